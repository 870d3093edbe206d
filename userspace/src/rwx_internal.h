/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal interfaces of librdmarwx.  Not installed.  Symbols here use the
 * rwxi_ prefix and hidden visibility: the unit tests reach them through
 * the static archive, applications never see them.
 *
 * Validation helpers return 0 or a positive errno value (never -1/errno)
 * so that they are pure and trivially testable; the public functions turn
 * that into the -1/errno convention with rdma_seterrno().
 */
#ifndef RWX_INTERNAL_H
#define RWX_INTERNAL_H

#include <errno.h>
#include <stdint.h>

#include <rdma/rwx_verbs.h>

/* What the checks need to know about a QP (or the SRQ it receives from). */
struct rwxi_caps {
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;	/* device's READ SGE limit, 0 if unknown */
	uint32_t max_send_wr;	/* the send queue's depth */
	uint32_t max_inline_data;	/* bytes a send may carry inline */
	uint32_t max_msg_sz;	/* bytes a WR may move (its port's), 0: any */
	uint8_t sq_sig_all;	/* created so: every send WR completes */
	uint32_t wr_ops;	/* RWXI_WR() bits: opcodes its ibv_wr_* take */
};

/*
 * --- pure validation ---
 * The posting path's rules are static inline, so that each rdma_post_*
 * compiles them into one function and drops what its own constant
 * opcode makes moot; the rest are in check.c.
 */

/* librdmacm stores size_t lengths in a 32-bit SGE field, truncating. */
static inline int rwxi_check_len(size_t len)
{
	return (uint64_t)len > UINT32_MAX ? EINVAL : 0;
}

static inline int rwxi_check_nsge(int nsge, int sgl_present,
				  uint32_t max_sge)
{
	if (nsge < 0)
		return EINVAL;
	if (nsge > 0 && !sgl_present)
		return EINVAL;
	if ((uint32_t)nsge > max_sge)
		return EINVAL;
	return 0;
}

/*
 * [addr, addr + len) inside [mr_addr, mr_addr + mr_len)?  Written with
 * subtractions only, so no sum can wrap around the address space.
 */
static inline int rwxi_check_range(uintptr_t addr, size_t len,
				   uintptr_t mr_addr, size_t mr_len)
{
	if (addr < mr_addr)
		return EINVAL;
	if (len > mr_len)
		return EINVAL;
	if (addr - mr_addr > mr_len - len)
		return EINVAL;
	return 0;
}

/*
 * A local buffer for a single-buffer post.  Without an MR the data must
 * be inline (when the operation allows it), or there must be no data at
 * all: a zero-length message touches no memory and needs no lkey.
 */
static inline int rwxi_check_buf(uintptr_t addr, size_t len, int have_mr,
				 uintptr_t mr_addr, size_t mr_len,
				 int inline_ok)
{
	int ret = rwxi_check_len(len);

	if (ret)
		return ret;
	if (!have_mr)
		return (len == 0 || inline_ok) ? 0 : EINVAL;
	return rwxi_check_range(addr, len, mr_addr, mr_len);
}

/* Atomics work on one naturally aligned 8-byte word at both ends. */
static inline int rwxi_check_atomic(uint64_t addr, size_t len,
				    uint64_t remote_addr)
{
	if (len != 8)
		return EINVAL;
	if (addr % 8 || remote_addr % 8)
		return EINVAL;
	return 0;
}

static inline int rwxi_opcode_known(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return 1;
	default:
		return 0;
	}
}

static inline int rwxi_opcode_is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * The ibv_wr_* path.  A QP created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
 * has the builders of the opcodes it asked for (rxe leaves the others
 * NULL; mlx5 gives it every builder of its type); a QP created otherwise
 * has none, though it may have an ibv_qp_ex (rxe: one of
 * ibv_create_qp_ex() with other extended attributes).  The library posts
 * a WR through them when the QP has its opcode's builder and the setters
 * it needs (rwxi_wr_ops()), else through ibv_post_send(): the two may
 * interleave outside a wr_start/wr_complete region (ibv_wr_post(3)).
 */
#define RWXI_WR(op) (1u << (op))	/* an opcode's bit in wr_ops */

/* The bit of @op in wr_ops, 0 for an opcode the library never builds so. */
static inline uint32_t rwxi_wr_bit(enum ibv_wr_opcode op)
{
	return rwxi_opcode_known(op) ? RWXI_WR(op) : 0;
}

/*
 * Whether @qp has the builder of @op now: its cached wr_ops may be those
 * of a destroyed QP that had the same address, handle and number (caps.c),
 * and a NULL builder must never be called.  A QP whose context had
 * builders is one of a provider that allocates every QP as a struct
 * verbs_qp (rwxi_qp_ex_of()), zeroed where unused.  rwxi_wr_ops() asks
 * it of every opcode.
 */
static inline int rwxi_wr_has_builder(const struct ibv_qp *qp,
				      enum ibv_wr_opcode op)
{
	const struct ibv_qp_ex *x = (const struct ibv_qp_ex *)qp;

	switch (op) {
	case IBV_WR_SEND:
		return x->wr_send != NULL;
	case IBV_WR_SEND_WITH_IMM:
		return x->wr_send_imm != NULL;
	case IBV_WR_SEND_WITH_INV:
		return x->wr_send_inv != NULL;
	case IBV_WR_RDMA_WRITE:
		return x->wr_rdma_write != NULL;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return x->wr_rdma_write_imm != NULL;
	case IBV_WR_RDMA_READ:
		return x->wr_rdma_read != NULL;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return x->wr_atomic_cmp_swp != NULL;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return x->wr_atomic_fetch_add != NULL;
	default:
		return 0;
	}
}

uint32_t rwxi_wr_ops(struct ibv_qp *qp);
int rwxi_has_qp_ex(struct ibv_context *ctx);
struct ibv_qp_ex *rwxi_qp_ex_of(struct ibv_qp *qp);
extern struct ibv_qp_ex *(*rwxi_qp_to_qp_ex)(struct ibv_qp *qp);

/*
 * One send WR: the checks that can be made without knowing which MR an
 * lkey belongs to, on the values of its fields (@wr itself is read only
 * for an atomic's SGE and remote address).  Where the opcode is a
 * constant, the compiler keeps only the checks that can fail for it.
 */
static inline int rwxi_check_send(enum ibv_wr_opcode op, int nsge,
				  int sgl_present, unsigned int send_flags,
				  const struct ibv_send_wr *wr,
				  uint32_t max_sge)
{
	int ret;

	if (!rwxi_opcode_known(op))
		return EINVAL;
	ret = rwxi_check_nsge(nsge, sgl_present, max_sge);
	if (ret)
		return ret;
	if (rwxi_opcode_is_atomic(op)) {
		if (nsge != 1 || (send_flags & IBV_SEND_INLINE))
			return EINVAL;
		return rwxi_check_atomic(wr->sg_list[0].addr,
					 wr->sg_list[0].length,
					 wr->wr.atomic.remote_addr);
	}
	/* Inline data is only gathered for operations that send data. */
	if (op == IBV_WR_RDMA_READ && (send_flags & IBV_SEND_INLINE))
		return EINVAL;
	return 0;
}

/* A caller-built send WR. */
static inline int rwxi_check_send_wr(const struct ibv_send_wr *wr,
				     uint32_t max_sge)
{
	if (!wr)
		return EINVAL;
	return rwxi_check_send(wr->opcode, wr->num_sge, wr->sg_list != NULL,
			       wr->send_flags, wr, max_sge);
}

int rwxi_check_timeout(int timeout_ms);
int rwxi_check_rw_qp(enum ibv_qp_type type, enum rwx_rw_dir dir);
int rwxi_check_list_wr(const struct ibv_send_wr *wr, uint32_t max_sge,
		       enum ibv_qp_type qp_type);
uint32_t rwxi_rw_max_sge(const struct rwxi_caps *caps, enum rwx_rw_dir dir);
int rwxi_check_inline(const struct ibv_send_wr *wr, uint32_t max_inline);

/* --- QP/SRQ capability lookup (caps.c) --- */
int rwxi_qp_caps(struct ibv_qp *qp, struct rwxi_caps *caps);
int rwxi_qp_caps_fresh(struct ibv_qp *qp, struct rwxi_caps *caps);
int rwxi_qp_send_sge_fresh(struct ibv_qp *qp, uint32_t *max_sge);
uint32_t rwxi_qp_wr_ops(struct ibv_qp *qp);
extern int (*rwxi_query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			    int attr_mask, struct ibv_qp_init_attr *init);
extern int (*rwxi_query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
extern int (*rwxi_query_device)(struct ibv_context *ctx,
				struct ibv_device_attr *attr);
extern int (*rwxi_query_port)(struct ibv_context *ctx, uint8_t port_num,
			      struct ibv_port_attr *attr);

/*
 * The send-SGE limit of the QP this thread posted to last, keyed like the
 * shared cache (caps.c): a post finds it without the cache's lock.
 * sge1_lim is what the single-buffer posts' fast path (post.c) needs of
 * it: a length L takes that path only if L - 1 < sge1_lim, which is
 * UINT32_MAX when the QP takes an SGE (1 <= L <= UINT32_MAX) and 0 when
 * it takes none (no length) or posts through ibv_wr_*.  wr_ops is the
 * QP's RWXI_WR() bits and wr_fast_ops the same where it takes an SGE
 * (the ibv_wr_* fast path's test).  An empty entry's qp is RWXI_NO_QP, an
 * address no QP has, so that no pointer, NULL included, matches it.
 */
struct rwxi_last_qp {
	const struct ibv_qp *qp;
	const struct ibv_context *ctx;
	uint32_t handle;
	uint32_t num;
	uint32_t max_send_sge;
	uint64_t sge1_lim;
	uint32_t wr_ops;
	uint32_t wr_fast_ops;
};

extern __thread struct rwxi_last_qp rwxi_last_qp
	__attribute__((tls_model("initial-exec")));
extern const char rwxi_no_qp;
#define RWXI_NO_QP ((const struct ibv_qp *)&rwxi_no_qp)

int rwxi_qp_send_sge_slow(struct ibv_qp *qp, uint32_t *max_sge)
	__attribute__((cold));

/* Whether this thread's last QP is @qp (the cache's whole key). */
static inline int rwxi_last_qp_is(const struct ibv_qp *qp)
{
	const struct rwxi_last_qp *last = &rwxi_last_qp;

	return last->qp == qp && last->ctx == qp->context &&
	       last->handle == qp->handle && last->num == qp->qp_num;
}

static inline int rwxi_qp_send_sge(struct ibv_qp *qp, uint32_t *max_sge)
{
	if (__builtin_expect(rwxi_last_qp_is(qp), 1)) {
		*max_sge = rwxi_last_qp.max_send_sge;
		return 0;
	}
	return rwxi_qp_send_sge_slow(qp, max_sge);
}

int rwxi_srq_max_sge(struct ibv_srq *srq, uint32_t *max_sge);
int rwxi_srq_max_sge_fresh(struct ibv_srq *srq, uint32_t *max_sge);
void rwxi_caps_seed(struct ibv_qp *qp, const struct rwxi_caps *caps);
void rwxi_caps_forget(struct ibv_qp *qp);
void rwxi_caps_seed_srq(struct ibv_srq *srq, uint32_t max_sge);

/* --- posting plumbing (post.c) --- */

/* Every post needs an id with a QP; librdmacm dereferences both blindly. */
static inline int rwxi_id_ok(const struct rdma_cm_id *id)
{
	return (id && id->qp) ? 0 : EINVAL;
}

/* Receives need an SRQ or a QP: an id of rdma_create_srq() may have no QP. */
static inline int rwxi_recv_id_ok(const struct rdma_cm_id *id)
{
	return (id && (id->srq || id->qp)) ? 0 : EINVAL;
}

int rwxi_recv_max_sge(struct rdma_cm_id *id, int fresh, uint32_t *max_sge);

/* errno = @err, -1: out of line, so that a post's fast path has no call. */
int rwxi_fail(int err) __attribute__((cold, noinline));
int rwxi_einval(void) __attribute__((cold, noinline));

int rwxi_post_send_wr(struct rdma_cm_id *id, struct ibv_send_wr *wr);
int rwxi_post_single(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		     void *context, void *addr, size_t length,
		     const struct ibv_mr *mr, int flags, int inline_ok);

#endif
