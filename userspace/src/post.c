// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdma_post_*: librdmacm's inline helpers as validating functions.  Each
 * builds the same single WR as the inline version; before posting it runs
 * the pure checks of rwx_internal.h against the QP's cached SGE limits.
 */
#include <errno.h>
#include <string.h>

#include "rwx_internal.h"

/*
 * Fill one SGE for a single-buffer post.  A zero-length buffer yields no
 * SGE at all (returns 0 entries) so that neither lkey nor address matter.
 * Returns the number of SGEs (0 or 1) or -EINVAL.
 */
static inline int fill_sge(struct ibv_sge *sge, void *addr, size_t length,
			   const struct ibv_mr *mr, int flags, int inline_ok)
{
	int ret;

	inline_ok = inline_ok && (flags & IBV_SEND_INLINE);
	ret = rwxi_check_buf((uintptr_t)addr, length, mr != NULL,
			     mr ? (uintptr_t)mr->addr : 0,
			     mr ? mr->length : 0, inline_ok);
	if (ret)
		return -ret;
	if (length == 0)
		return 0;
	sge->addr = (uint64_t)(uintptr_t)addr;
	sge->length = (uint32_t)length;
	sge->lkey = mr ? mr->lkey : 0;
	return 1;
}

/*
 * Whether @qp takes @wr on its limits queried now: 0 or the errno.  The
 * cached limits may be a destroyed QP's (caps.c), so what they refuse,
 * and what the provider fails, is decided again here; so is inline data
 * over max_inline_data (rwxi_check_inline()).
 */
static __attribute__((noinline, cold)) int
send_wr_recheck(struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	struct rwxi_caps caps;
	uint32_t max_sge;
	int ret = rwxi_qp_send_sge_fresh(qp, &max_sge) ?:
		  rwxi_qp_caps(qp, &caps);

	return ret ?: rwxi_check_send_wr(wr, max_sge) ?:
	       rwxi_check_inline(wr, caps.max_inline_data);
}

/*
 * Post the single @wr to @qp, which the cached limits took (@ret 0) or
 * refused (@ret the errno): a refusal stands only if the fresh limits
 * refuse it too, and a provider's failure is EINVAL if they refuse the WR
 * (the provider failed it for that), else the provider's errno.
 */
/* The errno of a post of @wr the provider failed with @ret. */
static int failed_errno(struct ibv_qp *qp, const struct ibv_send_wr *wr,
			int ret)
{
	return send_wr_recheck(qp, wr) == EINVAL ? EINVAL : ret;
}

/*
 * Post one WR through @qp's ibv_wr_* builders: @wr's opcode (among the
 * QP's wr_ops: rwxi_wr_ops()) and opcode fields, with @wr_id, @flags and
 * @sge (NULL: no data) given apart, so that the fast path need not store
 * them in @wr.  0 or the provider's errno.
 */
static inline __attribute__((always_inline)) int
wr_post_sge(struct ibv_qp *qp, const struct ibv_send_wr *wr, uint64_t wr_id,
	    unsigned int flags, const struct ibv_sge *sge)
{
	struct ibv_qp_ex *x = (struct ibv_qp_ex *)qp;	/* same address */
	/* Read before the provider's calls: a constant where inlined so. */
	const enum ibv_wr_opcode op = wr->opcode;

	ibv_wr_start(x);
	x->wr_id = wr_id;
	x->wr_flags = flags;
	switch (op) {
	case IBV_WR_SEND:
		ibv_wr_send(x);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(x, wr->imm_data);
		break;
	case IBV_WR_SEND_WITH_INV:
		ibv_wr_send_inv(x, wr->invalidate_rkey);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(x, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(x, wr->wr.rdma.rkey,
				      wr->wr.rdma.remote_addr, wr->imm_data);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(x, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(x, wr->wr.atomic.rkey,
				      wr->wr.atomic.remote_addr,
				      wr->wr.atomic.compare_add,
				      wr->wr.atomic.swap);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(x, wr->wr.atomic.rkey,
					wr->wr.atomic.remote_addr,
					wr->wr.atomic.compare_add);
		break;
	default:	/* not among wr_ops: the callers never get here */
		ibv_wr_abort(x);
		return EINVAL;
	}
	if ((op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM) &&
	    qp->qp_type == IBV_QPT_UD)
		ibv_wr_set_ud_addr(x, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				   wr->wr.ud.remote_qkey);
	/* A data setter even for no data: mlx5's finishes the WQE. */
	if (sge && (flags & IBV_SEND_INLINE))
		ibv_wr_set_inline_data(x, (void *)(uintptr_t)sge->addr,
				       sge->length);
	else if (sge)
		ibv_wr_set_sge(x, sge->lkey, sge->addr, sge->length);
	else
		ibv_wr_set_sge(x, 0, 0, 0);
	return ibv_wr_complete(x);
}

/* wr_post_sge() of the single @wr (at most one SGE). */
static inline __attribute__((always_inline)) int
wr_post(struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	return wr_post_sge(qp, wr, wr->wr_id, wr->send_flags,
			   wr->num_sge ? wr->sg_list : NULL);
}

/*
 * A full send queue fails a builder-posted WR with ENOMEM, as it fails
 * ibv_post_send() on every provider: rxe's builders say ENOSPC (inline
 * data over the limit, their other ENOSPC, is EINVAL before this).
 */
static inline int wr_errno(int ret)
{
	return ret == ENOSPC ? ENOMEM : ret;
}

/*
 * Post the single @wr: through the QP's ibv_wr_* builders where it has
 * one for the opcode, else ibv_post_send().  A WR of more than one SGE
 * always takes ibv_post_send(): rxe before rdma-core v64 counts the
 * bytes of ibv_wr_set_sge_list() as the first SGE's length times their
 * number (fixed by its commit 406cd2ad0), which would send too few bytes.
 */
static int post_one(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;

	if (wr->num_sge <= 1 &&
	    (rwxi_qp_wr_ops(qp) & rwxi_wr_bit(wr->opcode)) &&
	    rwxi_wr_has_builder(qp, wr->opcode))
		return wr_errno(wr_post(qp, wr));
	return ibv_post_send(qp, wr, &bad);
}

/*
 * A SEND on a UD QP goes where its address handle says: without one (an
 * rdma_post_send(), not rdma_post_ud_send()) the provider would follow
 * whatever the WR held there.
 */
static int ud_ok(const struct ibv_qp *qp, const struct ibv_send_wr *wr)
{
	return qp->qp_type == IBV_QPT_UD && !wr->wr.ud.ah &&
	       (wr->opcode == IBV_WR_SEND ||
		wr->opcode == IBV_WR_SEND_WITH_IMM) ? EINVAL : 0;
}

static int post_checked(struct ibv_qp *qp, struct ibv_send_wr *wr, int ret)
{
	if (ret == EINVAL)
		ret = send_wr_recheck(qp, wr);
	if (!ret)
		ret = ud_ok(qp, wr);
	if (ret)
		return ret;
	ret = post_one(qp, wr);
	return ret ? failed_errno(qp, wr, ret) : 0;
}

/* Check a send WR's SGE count against the QP, then post it. */
int rwxi_post_send_wr(struct rdma_cm_id *id, struct ibv_send_wr *wr)
{
	uint32_t max_sge;
	int ret;

	ret = rwxi_id_ok(id);
	if (ret)
		return rdma_seterrno(ret);
	ret = rwxi_qp_send_sge(id->qp, &max_sge);
	if (!ret)
		ret = rwxi_check_send_wr(wr, max_sge);
	return rdma_seterrno(post_checked(id->qp, wr, ret));
}

/* The fields every send WR has; the opcode's own are the caller's. */
static void set_send_wr(struct ibv_send_wr *wr, void *context,
			struct ibv_sge *sgl, int nsge, int flags)
{
	wr->wr_id = (uintptr_t)context;
	wr->next = NULL;
	wr->sg_list = nsge ? sgl : NULL;
	wr->num_sge = nsge;
	wr->send_flags = (unsigned int)flags;
}

static void init_send_wr(struct ibv_send_wr *wr, void *context,
			 struct ibv_sge *sgl, int nsge, enum ibv_wr_opcode op,
			 int flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->opcode = op;
	set_send_wr(wr, context, sgl, nsge, flags);
}

int rwxi_fail(int err)
{
	errno = err;
	return -1;
}

int rwxi_einval(void)
{
	return rwxi_fail(EINVAL);
}

/*
 * Post @wr, whose opcode, immediate and opcode fields the caller set,
 * with one SGE from a single buffer: the same checks as
 * rwxi_post_send_wr(), on the values the WR is built from, in the same
 * order.  @qp is the id's QP (the id was not NULL), NULL if it has none.
 * Inlined into each slow path below, where the opcode is a constant.
 */
static inline __attribute__((always_inline)) int
post_single(struct ibv_qp *qp, struct ibv_send_wr *wr, void *context,
	    void *addr, size_t length, const struct ibv_mr *mr, int flags,
	    int inline_ok)
{
	enum ibv_wr_opcode op = wr->opcode;
	struct ibv_sge sge;
	uint32_t max_sge;
	int n = fill_sge(&sge, addr, length, mr, flags, inline_ok), ret;

	if (n < 0)
		return rdma_seterrno(-n);
	set_send_wr(wr, context, &sge, n, flags);
	if (!qp)
		return rdma_seterrno(EINVAL);
	ret = rwxi_qp_send_sge(qp, &max_sge);
	if (!ret)
		ret = rwxi_check_send(op, n, n > 0, (unsigned int)flags, wr,
				      max_sge);
	return rdma_seterrno(post_checked(qp, wr, ret));
}

/* For the extensions (ext.c). */
int rwxi_post_single(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		     void *context, void *addr, size_t length,
		     const struct ibv_mr *mr, int flags, int inline_ok)
{
	if (!id)
		return rdma_seterrno(EINVAL);
	return post_single(id->qp, wr, context, addr, length, mr, flags,
			   inline_ok);
}

/*
 * The fast path of rdma_post_send/write/read: the common case -
 * the QP this thread posted to last, 1 to UINT32_MAX bytes inside @mr
 * (or inline without an MR where allowed) - checked in as few
 * instructions as the checks allow, with the same outcome as
 * post_single()'s: FAST_POST with @sge filled (@qp takes an SGE, the
 * buffer is good), FAST_EINVAL where post_single() would fail with
 * EINVAL whatever else it looked at (it checks the buffer first), and
 * FAST_SLOW for everything else (another QP, no QP, a zero or too long
 * length, a QP without send SGEs), which the caller hands to
 * post_single().  FAST_WR is FAST_POST on a QP whose ibv_wr_* builders
 * post @wr_bit's opcode (its RWXI_WR() bit), for wr_fast(); never with
 * @wr_bit 0.  The range check is post_single()'s exactly:
 * mr->addr <= addr and (addr - mr->addr) + length <= mr->length, with
 * no wrap (length < 2^32 here, so the sum wraps only past the top).
 */
enum fast { FAST_POST, FAST_WR, FAST_SLOW, FAST_EINVAL };

/* fast_sge()'s checks after the length's: @via when they pass. */
static inline __attribute__((always_inline)) enum fast
fast_buf(const struct ibv_qp *qp, struct ibv_sge *sge, void *addr,
	 size_t length, const struct ibv_mr *mr, int flags, int inline_ok,
	 int no_inline, enum fast via)
{
	const struct rwxi_last_qp *last = &rwxi_last_qp;
	uintptr_t off, end;

	if (__builtin_expect(qp->context != last->ctx, 0))
		return FAST_SLOW;
	if (no_inline && (flags & IBV_SEND_INLINE))
		return FAST_EINVAL;
	sge->addr = (uintptr_t)addr;
	sge->length = (uint32_t)length;
	if (__builtin_expect(!mr, 0)) {
		if (!inline_ok || !(flags & IBV_SEND_INLINE))
			return FAST_EINVAL;
		sge->lkey = 0;
		return via;
	}
	if (__builtin_expect(__builtin_sub_overflow((uintptr_t)addr,
						    (uintptr_t)mr->addr,
						    &off), 0))
		return FAST_EINVAL;
	if (__builtin_expect(__builtin_add_overflow(off, length, &end), 0))
		return FAST_EINVAL;
	if (__builtin_expect(end > mr->length, 0))
		return FAST_EINVAL;
	sge->lkey = mr->lkey;
	return via;
}

static inline __attribute__((always_inline)) enum fast
fast_sge(const struct ibv_qp *qp, struct ibv_sge *sge, void *addr,
	 size_t length, const struct ibv_mr *mr, int flags, int inline_ok,
	 int no_inline, uint32_t wr_bit)
{
	const struct rwxi_last_qp *last = &rwxi_last_qp;

	if (__builtin_expect(qp != last->qp, 0))
		return FAST_SLOW;
	if (__builtin_expect(qp->handle != last->handle ||
			     qp->qp_num != last->num, 0))
		return FAST_SLOW;
	/*
	 * sge1_lim is 0 for a QP with builders: they are out of line, with
	 * the buffer's checks inlined there a second time.
	 */
	if (__builtin_expect((uint64_t)length - 1 >= last->sge1_lim, 0)) {
		if ((uint64_t)length - 1 >= UINT32_MAX ||
		    !(last->wr_fast_ops & wr_bit))
			return FAST_SLOW;
		return fast_buf(qp, sge, addr, length, mr, flags, inline_ok,
				no_inline, FAST_WR);
	}
	return fast_buf(qp, sge, addr, length, mr, flags, inline_ok,
			no_inline, FAST_POST);
}

/*
 * A fast post the provider failed: failed_errno() for it.  The
 * fast path posts only to this thread's last QP, and the provider gives
 * the failed WR back in @bad, so that neither need stay live across the
 * provider's call (which cost the fast path six instructions a post).
 */
static __attribute__((noinline, cold)) int
post_failed(const struct ibv_send_wr *bad, int ret)
{
	return failed_errno((struct ibv_qp *)rwxi_last_qp.qp, bad, ret);
}

/* Post @wr (opcode fields set) with @sge: the fast path's end. */
static inline __attribute__((always_inline)) int
fast_post(struct ibv_qp *qp, struct ibv_send_wr *wr, void *context,
	  struct ibv_sge *sge, int flags)
{
	struct ibv_send_wr *bad;
	int ret;

	set_send_wr(wr, context, sge, 1, flags);
	ret = ibv_post_send(qp, wr, &bad);
	if (__builtin_expect(ret, 0))
		return rwxi_fail(post_failed(bad, ret));
	return 0;
}

/*
 * The receive SGE limit of where @id's receives go (its SRQ, else its
 * QP): cached, or queried now (@fresh, for what the cached one refused or
 * the provider failed: post_checked()).  0 or the errno.
 */
int rwxi_recv_max_sge(struct rdma_cm_id *id, int fresh, uint32_t *max_sge)
{
	struct rwxi_caps caps;
	int ret;

	*max_sge = 0;
	if (id->srq)
		return fresh ? rwxi_srq_max_sge_fresh(id->srq, max_sge) :
			       rwxi_srq_max_sge(id->srq, max_sge);
	ret = fresh ? rwxi_qp_caps_fresh(id->qp, &caps) :
		      rwxi_qp_caps(id->qp, &caps);
	if (!ret)
		*max_sge = caps.max_recv_sge;
	return ret;
}

/* Whether where @id's receives go takes @nsge SGEs (rwxi_recv_max_sge). */
static int recv_ok(struct rdma_cm_id *id, int nsge, int sgl_present,
		   int fresh)
{
	uint32_t max_sge;

	return rwxi_recv_max_sge(id, fresh, &max_sge) ?:
	       rwxi_check_nsge(nsge, sgl_present, max_sge);
}

int rdma_post_recvv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		    int nsge)
{
	struct ibv_recv_wr wr, *bad = NULL;
	int ret;

	if (rwxi_recv_id_ok(id))
		return rdma_seterrno(EINVAL);
	ret = recv_ok(id, nsge, sgl != NULL, 0);
	if (ret == EINVAL)
		ret = recv_ok(id, nsge, sgl != NULL, 1);
	if (ret)
		return rdma_seterrno(ret);

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uintptr_t)context;
	wr.sg_list = nsge ? sgl : NULL;
	wr.num_sge = nsge;
	if (id->srq)
		ret = ibv_post_srq_recv(id->srq, &wr, &bad);
	else
		ret = ibv_post_recv(id->qp, &wr, &bad);
	if (ret && recv_ok(id, nsge, sgl != NULL, 1) == EINVAL)
		ret = EINVAL;
	return rdma_seterrno(ret);
}

int rdma_post_sendv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		    int nsge, int flags)
{
	struct ibv_send_wr wr;

	init_send_wr(&wr, context, sgl, nsge, IBV_WR_SEND, flags);
	return rwxi_post_send_wr(id, &wr);
}

static int post_rdmav(struct rdma_cm_id *id, void *context,
		      struct ibv_sge *sgl, int nsge, int flags,
		      enum ibv_wr_opcode op, uint64_t remote_addr,
		      uint32_t rkey)
{
	struct ibv_send_wr wr;

	init_send_wr(&wr, context, sgl, nsge, op, flags);
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return rwxi_post_send_wr(id, &wr);
}

int rdma_post_readv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl,
		    int nsge, int flags, uint64_t remote_addr, uint32_t rkey)
{
	return post_rdmav(id, context, sgl, nsge, flags, IBV_WR_RDMA_READ,
			  remote_addr, rkey);
}

int rdma_post_writev(struct rdma_cm_id *id, void *context,
		     struct ibv_sge *sgl, int nsge, int flags,
		     uint64_t remote_addr, uint32_t rkey)
{
	return post_rdmav(id, context, sgl, nsge, flags, IBV_WR_RDMA_WRITE,
			  remote_addr, rkey);
}

int rdma_post_recv(struct rdma_cm_id *id, void *context, void *addr,
		   size_t length, struct ibv_mr *mr)
{
	struct ibv_sge sge;
	int n;

	/* Receives always land in registered memory: no inline, MR needed. */
	if (!mr)
		return rdma_seterrno(EINVAL);
	n = fill_sge(&sge, addr, length, mr, 0, 0);
	if (n < 0)
		return rdma_seterrno(-n);
	return rdma_post_recvv(id, context, &sge, n);
}

/*
 * The single-buffer posts do not zero their WR whole (128 bytes, the
 * biggest part of a post's own cost): the fields every WR has are set
 * by set_send_wr(), each caller the opcode, the immediate and its
 * opcode's own fields.  What stays unset, providers read only for other
 * opcodes or QP types (XRC's remote SRQ number: XRC_SEND QPs are refused,
 * rwxi_qp_send_sge_slow()).  Each has a fast path (fast_sge()) and, out
 * of line, the whole of post_single() for what that does not take.
 */
/*
 * The fast path's end on a QP with builders (FAST_WR): @wr with its
 * opcode and opcode fields set, @sge checked.  Inlined into a function of
 * each opcode, where the opcode is a constant.
 */
static inline __attribute__((always_inline)) int
wr_fast(struct ibv_qp *qp, struct ibv_send_wr *wr, void *context,
	struct ibv_sge *sge, int flags)
{
	int ret;

	if (__builtin_expect(!rwxi_wr_has_builder(qp, wr->opcode), 0)) {
		set_send_wr(wr, context, sge, 1, flags);
		return rdma_seterrno(post_checked(qp, wr, 0));
	}
	ret = wr_post_sge(qp, wr, (uintptr_t)context, (unsigned int)flags,
			  sge);
	if (__builtin_expect(ret, 0)) {
		set_send_wr(wr, context, sge, 1, flags);
		return rwxi_fail(failed_errno(qp, wr, wr_errno(ret)));
	}
	return 0;
}

/*
 * rdma_post_send()'s out-of-line part, its builder path included: a
 * second exit from its fast path would have that allocate its stack
 * first (4 instructions more a post through ibv_post_send(), measured),
 * so SEND's builder path checks the buffer again here (about 20).
 */
static __attribute__((noinline)) int
send_slow(struct ibv_qp *qp, void *context, void *addr, size_t length,
	  struct ibv_mr *mr, int flags)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;

	wr.opcode = IBV_WR_SEND;
	wr.imm_data = 0;
	wr.wr.ud.ah = NULL;	/* no address: refused on UD (ud_ok()) */
	if (fast_sge(qp, &sge, addr, length, mr, flags, 1, 0,
		     RWXI_WR(IBV_WR_SEND)) == FAST_WR)
		return wr_fast(qp, &wr, context, &sge, flags);
	return post_single(qp, &wr, context, addr, length, mr, flags, 1);
}

int rdma_post_send(struct rdma_cm_id *id, void *context, void *addr,
		   size_t length, struct ibv_mr *mr, int flags)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_qp *qp;

	if (__builtin_expect(!id, 0))
		return rwxi_einval();
	qp = id->qp;
	switch (fast_sge(qp, &sge, addr, length, mr, flags, 1, 0, 0)) {
	case FAST_WR:	/* not with wr_bit 0 */
	case FAST_SLOW:
		return send_slow(qp, context, addr, length, mr, flags);
	case FAST_EINVAL:
		return rwxi_einval();
	case FAST_POST:
		break;
	}
	wr.opcode = IBV_WR_SEND;
	wr.imm_data = 0;
	return fast_post(qp, &wr, context, &sge, flags);
}

/*
 * READ and WRITE: one body each for the slow path, the builder path and
 * the call, where @op is a constant.  A READ writes local memory: it
 * always needs the sink's MR, and it cannot be inline.  READ and WRITE
 * take two arguments on the stack: a tail call to their slow path would
 * have the fast path load both at its start (and save a register for
 * one), so their slow paths take the WR with its remote fields and flags
 * set.
 */
static inline __attribute__((always_inline)) int
rdma_slow(struct ibv_qp *qp, void *context, void *addr, size_t length,
	  struct ibv_mr *mr, struct ibv_send_wr *wr, enum ibv_wr_opcode op)
{
	wr->opcode = op;
	wr->imm_data = 0;
	return post_single(qp, wr, context, addr, length, mr,
			   (int)wr->send_flags, op == IBV_WR_RDMA_WRITE);
}

static inline __attribute__((always_inline)) int
rdma_wr(struct ibv_qp *qp, void *context, struct ibv_sge *sge,
	struct ibv_send_wr *wr, enum ibv_wr_opcode op)
{
	wr->opcode = op;
	wr->imm_data = 0;
	return wr_fast(qp, wr, context, sge, (int)wr->send_flags);
}

static __attribute__((noinline, cold)) int
read_slow(struct ibv_qp *qp, void *context, void *addr, size_t length,
	  struct ibv_mr *mr, struct ibv_send_wr *wr)
{
	return rdma_slow(qp, context, addr, length, mr, wr, IBV_WR_RDMA_READ);
}

static __attribute__((noinline)) int
read_wr(struct ibv_qp *qp, void *context, struct ibv_sge *sge,
	struct ibv_send_wr *wr)
{
	return rdma_wr(qp, context, sge, wr, IBV_WR_RDMA_READ);
}

static __attribute__((noinline, cold)) int
write_slow(struct ibv_qp *qp, void *context, void *addr, size_t length,
	   struct ibv_mr *mr, struct ibv_send_wr *wr)
{
	return rdma_slow(qp, context, addr, length, mr, wr, IBV_WR_RDMA_WRITE);
}

static __attribute__((noinline)) int
write_wr(struct ibv_qp *qp, void *context, struct ibv_sge *sge,
	 struct ibv_send_wr *wr)
{
	return rdma_wr(qp, context, sge, wr, IBV_WR_RDMA_WRITE);
}

static inline __attribute__((always_inline)) int
post_rdma(struct rdma_cm_id *id, void *context, void *addr, size_t length,
	  struct ibv_mr *mr, int flags, uint64_t remote_addr, uint32_t rkey,
	  enum ibv_wr_opcode op)
{
	const int is_read = op == IBV_WR_RDMA_READ;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct ibv_qp *qp;

	if (__builtin_expect(!id || (is_read && !mr), 0))
		return rwxi_einval();
	qp = id->qp;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	wr.send_flags = (unsigned int)flags;
	switch (fast_sge(qp, &sge, addr, length, mr, flags, !is_read, is_read,
			 RWXI_WR(op))) {
	case FAST_SLOW:
		return is_read ? read_slow(qp, context, addr, length, mr, &wr) :
				 write_slow(qp, context, addr, length, mr, &wr);
	case FAST_EINVAL:
		return rwxi_einval();
	case FAST_WR:
		return is_read ? read_wr(qp, context, &sge, &wr) :
				 write_wr(qp, context, &sge, &wr);
	case FAST_POST:
		break;
	}
	wr.opcode = op;
	wr.imm_data = 0;
	return fast_post(qp, &wr, context, &sge, flags);
}

int rdma_post_read(struct rdma_cm_id *id, void *context, void *addr,
		   size_t length, struct ibv_mr *mr, int flags,
		   uint64_t remote_addr, uint32_t rkey)
{
	return post_rdma(id, context, addr, length, mr, flags, remote_addr,
			 rkey, IBV_WR_RDMA_READ);
}

int rdma_post_write(struct rdma_cm_id *id, void *context, void *addr,
		    size_t length, struct ibv_mr *mr, int flags,
		    uint64_t remote_addr, uint32_t rkey)
{
	return post_rdma(id, context, addr, length, mr, flags, remote_addr,
			 rkey, IBV_WR_RDMA_WRITE);
}

/* rdma_cm's UD QPs (RDMA_PS_UDP) all have the qkey RDMA_UDP_QKEY. */
int rdma_post_ud_send(struct rdma_cm_id *id, void *context, void *addr,
		      size_t length, struct ibv_mr *mr, int flags,
		      struct ibv_ah *ah, uint32_t remote_qpn)
{
	return rwx_post_ud_send_qkey(id, context, addr, length, mr, flags, ah,
				     remote_qpn, RDMA_UDP_QKEY);
}
