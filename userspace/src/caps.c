// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * QP and SRQ SGE limits, cached.
 *
 * ibv_query_qp()/ibv_query_srq() are system calls on most providers; doing
 * one per post would halve the message rate of small operations.  The
 * limits never change for the life of a QP, so they are cached in a small
 * direct-mapped table.
 *
 * Nothing tells us when a QP is destroyed, and a new QP may reuse all of
 * its identity: its memory (malloc), its kernel handle (lowest free) and,
 * on siw, its number (lowest free).  An entry matches on the pointer, the
 * verbs context, the handle and the QP number, which catches most reuse,
 * but it is only a hint: a post the cached limits refuse, and one the
 * provider fails, is decided again on limits queried afresh
 * (rwxi_qp_caps_fresh(), rwxi_srq_max_sge_fresh()).  So stale limits never
 * make the library refuse a good post, and a post over the new QP's
 * limits fails with EINVAL, the library's errno, not the provider's.
 *
 * Posting takes the lock twice and costs as many instructions as the rest
 * of the library's checks together, so each thread also keeps the send
 * limit of the QP it posted to last (rwxi_last_qp, same key), read
 * without a lock: a thread posting to one QP never touches the table.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "rwx_internal.h"

#define CACHE_SLOTS 64

enum obj_kind { KIND_QP = 1, KIND_SRQ = 2 };

struct cache_ent {
	const void *obj;
	const void *ctx;
	uint32_t handle;
	uint32_t num;
	int kind;
	struct rwxi_caps caps;
};

static struct cache_ent cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* Only its address is used: RWXI_NO_QP, the empty last-QP entry's qp. */
const char rwxi_no_qp;

__thread struct rwxi_last_qp rwxi_last_qp
	__attribute__((tls_model("initial-exec"))) = { .qp = RWXI_NO_QP };

static void last_qp_clear(void)
{
	rwxi_last_qp = (struct rwxi_last_qp){ .qp = RWXI_NO_QP };
}

static struct cache_ent *slot_of(const void *obj)
{
	uintptr_t p = (uintptr_t)obj;

	/* Allocations are at least 16-byte aligned: drop the zero bits. */
	return &cache[((p >> 4) ^ (p >> 12)) % CACHE_SLOTS];
}

static int lookup(const void *obj, const void *ctx, uint32_t handle,
		  uint32_t num, int kind, struct rwxi_caps *out)
{
	struct cache_ent *e = slot_of(obj);
	int hit;

	pthread_mutex_lock(&cache_lock);
	hit = e->obj == obj && e->ctx == ctx && e->handle == handle &&
	      e->num == num && e->kind == kind;
	if (hit)
		*out = e->caps;
	pthread_mutex_unlock(&cache_lock);
	return hit;
}

static void store(const void *obj, const void *ctx, uint32_t handle,
		  uint32_t num, int kind, const struct rwxi_caps *caps)
{
	struct cache_ent *e = slot_of(obj);

	pthread_mutex_lock(&cache_lock);
	e->obj = obj;
	e->ctx = ctx;
	e->handle = handle;
	e->num = num;
	e->kind = kind;
	e->caps = *caps;
	pthread_mutex_unlock(&cache_lock);
}

/* The queries; the tests' fake device, which has no driver, answers them. */
int (*rwxi_query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct ibv_qp_init_attr *init) = ibv_query_qp;
int (*rwxi_query_srq)(struct ibv_srq *srq,
		      struct ibv_srq_attr *attr) = ibv_query_srq;
int (*rwxi_query_device)(struct ibv_context *ctx,
			 struct ibv_device_attr *attr) = ibv_query_device;

/* ibv_query_port() is a macro: a function for the hook to point at. */
static int query_port(struct ibv_context *ctx, uint8_t port_num,
		      struct ibv_port_attr *attr)
{
	return ibv_query_port(ctx, port_num, attr);
}

int (*rwxi_query_port)(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *attr) = query_port;

/*
 * The bytes a WR of the QP may move: its port's max_msg_sz (port 1 until
 * the QP has one).  Only RW contexts need it; where the port does not
 * tell, 2^31, the largest message InfiniBand defines.
 */
static uint32_t port_max_msg_sz(struct ibv_context *ctx, uint8_t port_num)
{
	struct ibv_port_attr port;

	memset(&port, 0, sizeof(port));
	if (rwxi_query_port(ctx, port_num ? port_num : 1, &port) ||
	    !port.max_msg_sz)
		return 1u << 31;
	return port.max_msg_sz;
}

/* Only RW contexts need it; a failed query just means "no extra limit". */
static uint32_t device_max_sge_rd(struct ibv_context *ctx)
{
	struct ibv_device_attr dev;

	memset(&dev, 0, sizeof(dev));
	if (rwxi_query_device(ctx, &dev))
		return 0;
	return dev.max_sge_rd > 0 ? (uint32_t)dev.max_sge_rd : 0;
}

/*
 * @qp's ibv_qp_ex, or NULL.  ibv_qp_to_qp_ex() reads past a struct
 * ibv_qp, so it may only be asked of a QP its provider allocated as
 * libibverbs' struct verbs_qp: every provider with a create_qp_ex of its
 * own does (mlx4, mlx5, rxe, hns, efa, qedr), while siw, bnxt_re, irdma
 * and others allocate a bare ibv_qp.  Where the provider has none, the
 * context's create_qp_ex is libibverbs' placeholder, which is not in the
 * provider's object (that of its post_send).  With rdma-core's providers
 * linked statically into libibverbs the two share one object and this
 * cannot tell them apart: such a build is not supported.
 */
int rwxi_has_qp_ex(struct ibv_context *ctx)
{
	struct verbs_context *v = verbs_get_ctx_op(ctx, create_qp_ex);
	Dl_info create, post;

	return v && ctx->ops.post_send &&
	       dladdr((void *)v->create_qp_ex, &create) &&
	       dladdr((void *)ctx->ops.post_send, &post) &&
	       create.dli_fbase == post.dli_fbase;
}

struct ibv_qp_ex *rwxi_qp_ex_of(struct ibv_qp *qp)
{
	return rwxi_has_qp_ex(qp->context) ? ibv_qp_to_qp_ex(qp) : NULL;
}

struct ibv_qp_ex *(*rwxi_qp_to_qp_ex)(struct ibv_qp *qp) = rwxi_qp_ex_of;

/*
 * The opcodes @qp's ibv_wr_* builders post (RWXI_WR() bits; 0: none, or
 * not all the calls a WR of the library needs).
 */
uint32_t rwxi_wr_ops(struct ibv_qp *qp)
{
	struct ibv_qp_ex *x;
	uint32_t ops = 0;
	unsigned int op;

	/* The types whose WRs the library fills in whole (not XRC, DC). */
	if (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UC &&
	    qp->qp_type != IBV_QPT_UD)
		return 0;
	x = rwxi_qp_to_qp_ex(qp);
	if (!x || &x->qp_base != qp || !x->wr_start || !x->wr_complete ||
	    !x->wr_set_sge || !x->wr_set_inline_data ||
	    (qp->qp_type == IBV_QPT_UD && !x->wr_set_ud_addr))
		return 0;
	for (op = 0; op < 32; op++)
		if (rwxi_wr_has_builder(qp, (enum ibv_wr_opcode)op))
			ops |= RWXI_WR(op);
	return ops;
}

/* Returns 0 or a positive errno. */
int rwxi_qp_caps(struct ibv_qp *qp, struct rwxi_caps *caps)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int ret;

	if (lookup(qp, qp->context, qp->handle, qp->qp_num, KIND_QP, caps))
		return 0;
	memset(&attr, 0, sizeof(attr));
	memset(&init, 0, sizeof(init));
	ret = rwxi_query_qp(qp, &attr, IBV_QP_CAP | IBV_QP_PORT, &init);
	if (ret)
		return ret > 0 ? ret : EIO;
	caps->max_send_sge = attr.cap.max_send_sge;
	caps->max_recv_sge = attr.cap.max_recv_sge;
	caps->max_sge_rd = device_max_sge_rd(qp->context);
	caps->max_send_wr = attr.cap.max_send_wr;
	caps->max_inline_data = attr.cap.max_inline_data;
	caps->max_msg_sz = port_max_msg_sz(qp->context, attr.port_num);
	caps->sq_sig_all = !!init.sq_sig_all;
	caps->wr_ops = rwxi_wr_ops(qp);
	store(qp, qp->context, qp->handle, qp->qp_num, KIND_QP, caps);
	return 0;
}

/* Drop @obj's entry from the table, and from this thread's last QP. */
static void forget(const void *obj)
{
	struct cache_ent *e = slot_of(obj);

	if (rwxi_last_qp.qp == obj)
		last_qp_clear();
	pthread_mutex_lock(&cache_lock);
	if (e->obj == obj)
		memset(e, 0, sizeof(*e));
	pthread_mutex_unlock(&cache_lock);
}

/*
 * @qp's limits queried now, not taken from the cache (which they then
 * replace): for deciding again what the cached ones refused, or what the
 * provider failed.  Other threads' last QPs keep what they had until a
 * post of theirs is refused or fails in turn.
 */
int rwxi_qp_caps_fresh(struct ibv_qp *qp, struct rwxi_caps *caps)
{
	forget(qp);
	return rwxi_qp_caps(qp, caps);
}

/*
 * rwxi_qp_send_sge() when the QP is not this thread's last one.  An
 * XRC_SEND QP is refused (and so never becomes the last one): a WR the
 * library builds has no remote SRQ number to give it.
 */
int rwxi_qp_send_sge_slow(struct ibv_qp *qp, uint32_t *max_sge)
{
	struct rwxi_caps caps;
	int ret, fast;

	if (qp->qp_type == IBV_QPT_XRC_SEND)
		return EINVAL;
	ret = rwxi_qp_caps(qp, &caps);
	if (ret)
		return ret;
	/* No fast path on UD: a send there needs an address (post.c). */
	fast = caps.max_send_sge && qp->qp_type != IBV_QPT_UD;
	rwxi_last_qp = (struct rwxi_last_qp){
		.qp = qp,
		.ctx = qp->context,
		.handle = qp->handle,
		.num = qp->qp_num,
		.max_send_sge = caps.max_send_sge,
		.sge1_lim = fast && !caps.wr_ops ? UINT32_MAX : 0,
		.wr_ops = caps.wr_ops,
		.wr_fast_ops = fast ? caps.wr_ops : 0,
	};
	*max_sge = caps.max_send_sge;
	return 0;
}

/* The RWXI_WR() bits of @qp: from this thread's last QP, or the cache. */
uint32_t rwxi_qp_wr_ops(struct ibv_qp *qp)
{
	struct rwxi_caps caps;

	if (rwxi_last_qp_is(qp))
		return rwxi_last_qp.wr_ops;
	return rwxi_qp_caps(qp, &caps) ? 0 : caps.wr_ops;
}

/* rwxi_qp_caps_fresh()'s send-SGE limit, as rwxi_qp_send_sge() gives it. */
int rwxi_qp_send_sge_fresh(struct ibv_qp *qp, uint32_t *max_sge)
{
	forget(qp);
	return rwxi_qp_send_sge_slow(qp, max_sge);
}

int rwxi_srq_max_sge(struct ibv_srq *srq, uint32_t *max_sge)
{
	struct ibv_srq_attr attr;
	struct rwxi_caps caps;
	int ret;

	if (lookup(srq, srq->context, srq->handle, 0, KIND_SRQ, &caps)) {
		*max_sge = caps.max_recv_sge;
		return 0;
	}
	memset(&attr, 0, sizeof(attr));
	ret = rwxi_query_srq(srq, &attr);
	if (ret)
		return ret > 0 ? ret : EIO;
	memset(&caps, 0, sizeof(caps));	/* an SRQ has receive limits only */
	caps.max_recv_sge = attr.max_sge;
	store(srq, srq->context, srq->handle, 0, KIND_SRQ, &caps);
	*max_sge = attr.max_sge;
	return 0;
}

int rwxi_srq_max_sge_fresh(struct ibv_srq *srq, uint32_t *max_sge)
{
	forget(srq);
	return rwxi_srq_max_sge(srq, max_sge);
}

/*
 * Tests: give a fake QP limits without a device to query.  Seeding and
 * forgetting also drop the calling thread's last QP, which may be this
 * one with other limits (the tests reuse one fake QP).
 */
void rwxi_caps_seed(struct ibv_qp *qp, const struct rwxi_caps *caps)
{
	struct rwxi_caps c = *caps;

	c.wr_ops = rwxi_wr_ops(qp);	/* the QP's, as a query finds them */
	last_qp_clear();
	store(qp, qp->context, qp->handle, qp->qp_num, KIND_QP, &c);
}

void rwxi_caps_seed_srq(struct ibv_srq *srq, uint32_t max_sge)
{
	struct rwxi_caps caps = { .max_recv_sge = max_sge };

	store(srq, srq->context, srq->handle, 0, KIND_SRQ, &caps);
}

void rwxi_caps_forget(struct ibv_qp *qp)
{
	forget(qp);
}
