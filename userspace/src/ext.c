// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_post_*: send/write with immediate, send with invalidate, UD sends to
 * a chosen qkey, atomics and validated send and receive WR lists.  Same
 * single-WR shape and checks as post.c.
 */
#include <errno.h>
#include <string.h>

#include "rwx_internal.h"

int rwx_post_send_imm(struct rdma_cm_id *id, void *context, void *addr,
		      size_t length, struct ibv_mr *mr, int flags,
		      __be32 imm_data)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = imm_data,
	};

	return rwxi_post_single(id, &wr, context, addr, length, mr, flags, 1);
}

int rwx_post_write_imm(struct rdma_cm_id *id, void *context, void *addr,
		       size_t length, struct ibv_mr *mr, int flags,
		       uint64_t remote_addr, uint32_t rkey, __be32 imm_data)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.imm_data = imm_data,
		.wr.rdma = { .remote_addr = remote_addr, .rkey = rkey },
	};

	return rwxi_post_single(id, &wr, context, addr, length, mr, flags, 1);
}

int rwx_post_send_inv(struct rdma_cm_id *id, void *context, void *addr,
		      size_t length, struct ibv_mr *mr, int flags,
		      uint32_t invalidate_rkey)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND_WITH_INV,
		.invalidate_rkey = invalidate_rkey,
	};

	return rwxi_post_single(id, &wr, context, addr, length, mr, flags, 1);
}

/*
 * UD sends to the caller's qkey (rdma_post_ud_send() uses rdma_cm's
 * RDMA_UDP_QKEY), plain or with an immediate.
 */
static int post_ud(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		   void *context, void *addr, size_t length,
		   const struct ibv_mr *mr, int flags, struct ibv_ah *ah,
		   uint32_t remote_qpn, uint32_t remote_qkey)
{
	if (!ah)
		return rdma_seterrno(EINVAL);
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
	return rwxi_post_single(id, wr, context, addr, length, mr, flags, 1);
}

int rwx_post_ud_send_qkey(struct rdma_cm_id *id, void *context, void *addr,
			  size_t length, struct ibv_mr *mr, int flags,
			  struct ibv_ah *ah, uint32_t remote_qpn,
			  uint32_t remote_qkey)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };

	return post_ud(id, &wr, context, addr, length, mr, flags, ah,
		       remote_qpn, remote_qkey);
}

int rwx_post_ud_send_imm(struct rdma_cm_id *id, void *context, void *addr,
			 size_t length, struct ibv_mr *mr, int flags,
			 struct ibv_ah *ah, uint32_t remote_qpn,
			 uint32_t remote_qkey, __be32 imm_data)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_SEND_WITH_IMM,
		.imm_data = imm_data,
	};

	return post_ud(id, &wr, context, addr, length, mr, flags, ah,
		       remote_qpn, remote_qkey);
}

/* Atomics: an MR is mandatory (the old remote value is written back). */
static int post_atomic(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		       void *context, void *addr, size_t length,
		       const struct ibv_mr *mr, int flags)
{
	int ret;

	if (!mr || (flags & IBV_SEND_INLINE))
		return rdma_seterrno(EINVAL);
	ret = rwxi_check_atomic((uintptr_t)addr, length,
				wr->wr.atomic.remote_addr);
	if (ret)
		return rdma_seterrno(ret);
	return rwxi_post_single(id, wr, context, addr, length, mr, flags, 0);
}

int rwx_post_atomic_fadd(struct rdma_cm_id *id, void *context, void *addr,
			 size_t length, struct ibv_mr *mr, int flags,
			 uint64_t remote_addr, uint32_t rkey, uint64_t add)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.wr.atomic = { .remote_addr = remote_addr, .rkey = rkey,
			       .compare_add = add },
	};

	return post_atomic(id, &wr, context, addr, length, mr, flags);
}

int rwx_post_atomic_cswap(struct rdma_cm_id *id, void *context, void *addr,
			  size_t length, struct ibv_mr *mr, int flags,
			  uint64_t remote_addr, uint32_t rkey,
			  uint64_t compare, uint64_t swap)
{
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		.wr.atomic = { .remote_addr = remote_addr, .rkey = rkey,
			       .compare_add = compare, .swap = swap },
	};

	return post_atomic(id, &wr, context, addr, length, mr, flags);
}

/*
 * Validate every WR before posting any: a bad WR in the middle would
 * otherwise leave the earlier ones posted and the caller unsure what ran.
 * The walk is bounded so that a cyclic list fails instead of hanging.
 */
#define RWX_LIST_MAX 65536

/*
 * rwx_post_list()'s checks on @caps of the list from @wr (@whole), or of
 * @wr alone: 0 or the errno.
 */
static int list_ok(const struct ibv_qp *qp, const struct ibv_send_wr *wr,
		   const struct rwxi_caps *caps, int whole)
{
	const struct ibv_send_wr *w;
	int ret = 0, n = 0;

	for (w = wr; !ret && w; w = whole ? w->next : NULL)
		ret = ++n > RWX_LIST_MAX ? EINVAL :
		      rwxi_check_list_wr(w, caps->max_send_sge, qp->qp_type);
	return ret;
}

int rwx_post_list(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct ibv_send_wr *bad = NULL;
	struct rwxi_caps caps;
	int ret;

	/* As ibv_post_send's: the first WR not posted; nothing yet. */
	if (bad_wr)
		*bad_wr = wr;
	ret = rwxi_id_ok(id);
	if (!ret && !wr)
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);
	ret = rwxi_qp_caps(id->qp, &caps);
	if (!ret)
		ret = list_ok(id->qp, wr, &caps, 1);
	/* The cached limits are a hint (caps.c): a refusal is decided again. */
	if (ret == EINVAL)
		ret = rwxi_qp_caps_fresh(id->qp, &caps) ?:
		      list_ok(id->qp, wr, &caps, 1);
	if (ret)
		return rdma_seterrno(ret);
	ret = ibv_post_send(id->qp, wr, &bad);
	/*
	 * The WRs before *bad_wr were posted, whatever the errno; EINVAL if
	 * the limits queried now refuse *bad_wr, which the provider failed
	 * (inline data over max_inline_data among them).
	 */
	if (ret && bad && !rwxi_qp_caps_fresh(id->qp, &caps) &&
	    (list_ok(id->qp, bad, &caps, 0) ?:
	     rwxi_check_inline(bad, caps.max_inline_data)) == EINVAL)
		ret = EINVAL;
	if (bad_wr)
		*bad_wr = ret ? bad : NULL;
	return rdma_seterrno(ret);
}

/*
 * rwx_post_recv_list()'s checks on @max_sge of the list from @wr (@whole),
 * or of @wr alone: 0 or the errno.
 */
static int recv_list_ok(const struct ibv_recv_wr *wr, uint32_t max_sge,
			int whole)
{
	const struct ibv_recv_wr *w;
	int ret = 0, n = 0;

	for (w = wr; !ret && w; w = whole ? w->next : NULL)
		ret = ++n > RWX_LIST_MAX ? EINVAL :
		      rwxi_check_nsge(w->num_sge, w->sg_list != NULL, max_sge);
	return ret;
}

static int post_recv_list(struct rdma_cm_id *id, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	if (id->srq)
		return ibv_post_srq_recv(id->srq, wr, bad);
	return ibv_post_recv(id->qp, wr, bad);
}

int rwx_post_recv_list(struct rdma_cm_id *id, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct ibv_recv_wr *bad = NULL;
	uint32_t max_sge;
	int ret;

	/* As rwx_post_list(): the first WR not posted; nothing yet. */
	if (bad_wr)
		*bad_wr = wr;
	ret = rwxi_recv_id_ok(id);
	if (!ret && !wr)
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);
	ret = rwxi_recv_max_sge(id, 0, &max_sge) ?:
	      recv_list_ok(wr, max_sge, 1);
	/* The cached limits are a hint (caps.c): a refusal is decided again. */
	if (ret == EINVAL)
		ret = rwxi_recv_max_sge(id, 1, &max_sge) ?:
		      recv_list_ok(wr, max_sge, 1);
	if (ret)
		return rdma_seterrno(ret);
	ret = post_recv_list(id, wr, &bad);
	/*
	 * The WRs before *bad_wr were posted; EINVAL if the limits queried
	 * now refuse *bad_wr, which the provider failed.
	 */
	if (ret && bad && !rwxi_recv_max_sge(id, 1, &max_sge) &&
	    recv_list_ok(bad, max_sge, 0) == EINVAL)
		ret = EINVAL;
	if (bad_wr)
		*bad_wr = ret ? bad : NULL;
	return rdma_seterrno(ret);
}
