// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fake device: verbs objects whose provider ops record what is posted
 * and enforce the limits a test gives each QP and SRQ, as a device would.
 * The unit tests and the post fuzzer (fuzz/) use it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rwx_test.h"

/* ---- fake device ---- */
struct fake F;

/* The device's limits for each QP and SRQ of a test (fake_qp_caps()). */
#define FAKE_OBJS 8
static struct {
	const void *obj;
	struct rwxi_caps caps;
} fake_objs[FAKE_OBJS];

static struct rwxi_caps *fake_caps_of(const void *obj)
{
	int i;

	for (i = 0; i < FAKE_OBJS; i++)
		if (fake_objs[i].obj == obj)
			return &fake_objs[i].caps;
	return NULL;
}

static void fake_set_caps(const void *obj, const struct rwxi_caps *caps)
{
	struct rwxi_caps *c = fake_caps_of(obj);
	int i;

	for (i = 0; !c && i < FAKE_OBJS; i++)
		if (!fake_objs[i].obj) {
			fake_objs[i].obj = obj;
			c = &fake_objs[i].caps;
		}
	if (!c)
		abort();
	*c = *caps;
}

void fake_qp_caps(struct ibv_qp *qp, const struct rwxi_caps *caps,
		  int cached)
{
	fake_set_caps(qp, caps);
	if (cached)
		rwxi_caps_seed(qp, caps);
}

void fake_srq_caps(struct ibv_srq *srq, uint32_t max_sge, int cached)
{
	struct rwxi_caps caps = { .max_recv_sge = max_sge };

	fake_set_caps(srq, &caps);
	if (cached)
		rwxi_caps_seed_srq(srq, max_sge);
}

static int fake_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init)
{
	const struct rwxi_caps *c = fake_caps_of(qp);

	F.queries++;
	if (!c || !(attr_mask & IBV_QP_CAP))
		return EINVAL;
	init->sq_sig_all = c->sq_sig_all;
	attr->port_num = 1;
	attr->cap.max_send_sge = c->max_send_sge;
	attr->cap.max_recv_sge = c->max_recv_sge;
	attr->cap.max_send_wr = c->max_send_wr;
	attr->cap.max_inline_data = c->max_inline_data;
	return 0;
}

static int fake_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	const struct rwxi_caps *c = fake_caps_of(srq);

	F.queries++;
	if (!c)
		return EINVAL;
	attr->max_sge = c->max_recv_sge;
	return 0;
}

/* The READ limit of the device of the QP queried last: one QP a test. */
static int fake_query_device(struct ibv_context *ctx,
			     struct ibv_device_attr *attr)
{
	int i;

	(void)ctx;
	for (i = 0; i < FAKE_OBJS; i++)
		if (fake_objs[i].obj == &F.qp)
			attr->max_sge_rd = (int)fake_objs[i].caps.max_sge_rd;
	return 0;
}

/* The message limit of the port of the QP queried last: one QP a test. */
static int fake_query_port(struct ibv_context *ctx, uint8_t port_num,
			   struct ibv_port_attr *attr)
{
	const struct rwxi_caps *c = fake_caps_of(&F.qp);

	(void)ctx;
	if (port_num != 1)
		return EINVAL;
	attr->max_msg_sz = c ? c->max_msg_sz : 0;
	return 0;
}

/* A WR over its port's max_msg_sz (0: any). */
static int fake_msg_over(const struct ibv_qp *qp,
			 const struct ibv_send_wr *wr)
{
	const struct rwxi_caps *c = fake_caps_of(qp);
	uint64_t len = 0;
	int i;

	if (!c || !c->max_msg_sz)
		return 0;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len > c->max_msg_sz;
}

/*
 * A provider's own checks: more SGEs than the QP takes, more inline data,
 * or a longer message than the port takes, fail the post.
 */
static int fake_over_limit(const void *obj, int nsge, int recv)
{
	const struct rwxi_caps *c = fake_caps_of(obj);

	return c && (uint32_t)nsge > (recv ? c->max_recv_sge : c->max_send_sge);
}

static int fake_inline_over(const struct ibv_qp *qp,
			    const struct ibv_send_wr *wr)
{
	const struct rwxi_caps *c = fake_caps_of(qp);
	uint64_t len = 0;
	int i;

	if (!c || !(wr->send_flags & IBV_SEND_INLINE))
		return 0;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len > c->max_inline_data;
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	F.post_calls++;
	if (F.post_ret) {
		*bad = wr;
		return F.post_ret;
	}
	for (; wr; wr = wr->next) {
		if (fake_over_limit(qp, wr->num_sge, 0) ||
		    fake_inline_over(qp, wr) || fake_msg_over(qp, wr)) {
			*bad = wr;
			return ENOMEM;
		}
		struct fake_wr *f = &F.posted[F.nposted++];
		int i;

		if (F.nposted > FAKE_MAX_WR || wr->num_sge > FAKE_MAX_SGE)
			abort();
		f->wr = *wr;
		for (i = 0; i < wr->num_sge; i++)
			f->sge[i] = wr->sg_list[i];
	}
	return 0;
}

/* ---- the ibv_wr_* builders ---- */
enum fake_wr_api fake_wr_api;

static struct ibv_qp_ex *fake_qp_to_qp_ex(struct ibv_qp *qp)
{
	return qp == &F.qp && F.qp_api != FAKE_WR_NONE ? &F.qpx : NULL;
}

static void fwr_start(struct ibv_qp_ex *x)
{
	(void)x;
	if (F.wr_open)
		abort();	/* a region inside a region */
	F.wr_open = 1;
	memset(&F.wr_pending, 0, sizeof(F.wr_pending));
}

/* A builder: the region's WR (the library builds one a region). */
static struct ibv_send_wr *fwr_new(struct ibv_qp_ex *x,
				   enum ibv_wr_opcode op)
{
	struct fake_wr *f = &F.wr_pending;

	if (F.wr_open != 1)
		abort();	/* no region, or a second WR in it */
	F.wr_open = 2;
	f->via_wr = 1;
	f->wr.opcode = op;
	f->wr.wr_id = x->wr_id;
	f->wr.send_flags = x->wr_flags;
	f->wr.sg_list = f->sge;
	return &f->wr;
}

/* A setter: the WR a builder made. */
static struct ibv_send_wr *fwr_cur(void)
{
	if (F.wr_open != 2)
		abort();
	return &F.wr_pending.wr;
}

static void fwr_send(struct ibv_qp_ex *x)
{
	fwr_new(x, IBV_WR_SEND);
}

static void fwr_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	fwr_new(x, IBV_WR_SEND_WITH_IMM)->imm_data = imm;
}

static void fwr_send_inv(struct ibv_qp_ex *x, uint32_t rkey)
{
	fwr_new(x, IBV_WR_SEND_WITH_INV)->invalidate_rkey = rkey;
}

static void fwr_rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode op,
		     uint32_t rkey, uint64_t raddr)
{
	struct ibv_send_wr *wr = fwr_new(x, op);

	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = raddr;
}

static void fwr_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	fwr_rdma(x, IBV_WR_RDMA_WRITE, rkey, raddr);
}

static void fwr_write_imm(struct ibv_qp_ex *x, uint32_t rkey,
			  uint64_t raddr, __be32 imm)
{
	fwr_rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, raddr);
	F.wr_pending.wr.imm_data = imm;
}

static void fwr_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr)
{
	fwr_rdma(x, IBV_WR_RDMA_READ, rkey, raddr);
}

static void fwr_cswap(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr,
		      uint64_t compare, uint64_t swap)
{
	struct ibv_send_wr *wr = fwr_new(x, IBV_WR_ATOMIC_CMP_AND_SWP);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = raddr;
	wr->wr.atomic.compare_add = compare;
	wr->wr.atomic.swap = swap;
}

static void fwr_fadd(struct ibv_qp_ex *x, uint32_t rkey, uint64_t raddr,
		     uint64_t add)
{
	struct ibv_send_wr *wr = fwr_new(x, IBV_WR_ATOMIC_FETCH_AND_ADD);

	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = raddr;
	wr->wr.atomic.compare_add = add;
}

static void fwr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah,
			    uint32_t qpn, uint32_t qkey)
{
	struct ibv_send_wr *wr = fwr_cur();

	(void)x;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = qpn;
	wr->wr.ud.remote_qkey = qkey;
}

/* A data setter (one a WR, as ibv_wr_post(3) has it); no data: no SGE. */
static void fwr_set_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr,
			uint32_t length)
{
	struct ibv_send_wr *wr = fwr_cur();

	(void)x;
	if (F.wr_pending.wr_data_set)
		abort();	/* data set twice */
	F.wr_pending.wr_data_set = 1;
	if (!length)
		return;
	F.wr_pending.sge[0] = (struct ibv_sge){ addr, length, lkey };
	wr->num_sge = 1;
}

static void fwr_set_inline_data(struct ibv_qp_ex *x, void *addr,
				size_t length)
{
	fwr_set_sge(x, 0, (uintptr_t)addr, (uint32_t)length);
	F.wr_pending.wr_inline = 1;
}

/* Checks the WR as post_send does, then records it. */
static int fwr_complete(struct ibv_qp_ex *x)
{
	struct fake_wr *f = &F.wr_pending;

	if (F.wr_open != 2)
		abort();	/* completing a region with no WR */
	F.wr_open = 0;
	F.post_calls++;
	F.wr_completes++;
	if (F.post_ret)
		return F.post_ret;
	if (!f->wr_data_set)
		return EINVAL;	/* mlx5 would not even finish the WQE */
	if (fake_over_limit(&x->qp_base, f->wr.num_sge, 0) ||
	    fake_inline_over(&x->qp_base, &f->wr) ||
	    fake_msg_over(&x->qp_base, &f->wr))
		return ENOMEM;
	if (!f->wr.num_sge)
		f->wr.sg_list = NULL;	/* as the library's WR would have it */
	if (F.nposted >= FAKE_MAX_WR)
		abort();
	F.posted[F.nposted++] = *f;
	return 0;
}

static void fwr_abort(struct ibv_qp_ex *x)
{
	(void)x;
	if (!F.wr_open)
		abort();
	F.wr_open = 0;
	F.wr_aborts++;
}

static void fake_wr_builders(struct ibv_qp_ex *x)
{
	x->wr_start = fwr_start;
	x->wr_complete = fwr_complete;
	x->wr_abort = fwr_abort;
	x->wr_send = fwr_send;
	x->wr_send_imm = fwr_send_imm;
	x->wr_send_inv = fwr_send_inv;
	x->wr_rdma_write = fwr_write;
	x->wr_rdma_write_imm = fwr_write_imm;
	x->wr_rdma_read = fwr_read;
	x->wr_atomic_cmp_swp = fwr_cswap;
	x->wr_atomic_fetch_add = fwr_fadd;
	x->wr_set_ud_addr = fwr_set_ud_addr;
	x->wr_set_sge = fwr_set_sge;
	x->wr_set_inline_data = fwr_set_inline_data;
}

static int record_recv(const void *obj, struct ibv_recv_wr *wr, int srq,
		       struct ibv_recv_wr **bad)
{
	F.post_calls++;
	for (; wr; wr = wr->next) {
		if (fake_over_limit(obj, wr->num_sge, 1)) {
			*bad = wr;
			return ENOMEM;
		}
		struct fake_wr *f = &F.posted[F.nposted++];
		int i;

		if (F.nposted > FAKE_MAX_WR || wr->num_sge > FAKE_MAX_SGE)
			abort();
		f->was_recv = 1;
		f->to_srq = srq;
		f->wr.wr_id = wr->wr_id;
		f->wr.num_sge = wr->num_sge;
		for (i = 0; i < wr->num_sge; i++)
			f->sge[i] = wr->sg_list[i];
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	return record_recv(qp, wr, 0, bad);
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	return record_recv(srq, wr, 1, bad);
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	F.poll_calls++;
	for (i = 0; i < n && i < F.nwcs; i++)
		wc[i] = F.wcs[i];
	memmove(F.wcs, F.wcs + i, sizeof(F.wcs[0]) * (size_t)(F.nwcs - i));
	F.nwcs -= i;
	return i;
}

static int fake_req_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	F.notify_calls++;
	return 0;
}

void fake_setup(uint32_t max_send_sge, uint32_t max_recv_sge,
		uint32_t max_sge_rd)
{
	struct rwxi_caps caps = { max_send_sge, max_recv_sge, max_sge_rd,
				  FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	static uint32_t qpn = 100;

	fake_teardown();
	F.ctx.ops.post_send = fake_post_send;
	F.ctx.ops.post_recv = fake_post_recv;
	F.ctx.ops.post_srq_recv = fake_post_srq_recv;
	F.ctx.ops.poll_cq = fake_poll_cq;
	F.ctx.ops.req_notify_cq = fake_req_notify;
	F.pd.context = &F.ctx;
	F.qp.context = &F.ctx;
	F.qp.pd = &F.pd;
	F.qp.qp_type = IBV_QPT_RC;
	F.qp.qp_num = qpn++;	/* a "new QP" each test, like the kernel */
	F.qp.handle = 7;
	F.srq.context = &F.ctx;
	F.scq.context = F.rcq.context = &F.ctx;
	if (pipe(F.pipe_fd))
		abort();
	F.sch.context = F.rch.context = &F.ctx;
	F.sch.fd = F.rch.fd = F.pipe_fd[0];
	F.id.verbs = &F.ctx;
	F.id.qp = &F.qp;
	F.id.pd = &F.pd;
	F.id.send_cq = &F.scq;
	F.id.recv_cq = &F.rcq;
	F.id.send_cq_channel = &F.sch;
	F.id.recv_cq_channel = &F.rch;
	F.id.qp_type = IBV_QPT_RC;
	rwxi_query_qp = fake_query_qp;
	rwxi_query_srq = fake_query_srq;
	rwxi_query_device = fake_query_device;
	rwxi_query_port = fake_query_port;
	rwxi_qp_to_qp_ex = fake_qp_to_qp_ex;
	F.qp_api = fake_wr_api;
	if (fake_wr_api == FAKE_WR_ALL)
		fake_wr_builders(&F.qpx);
	fake_qp_caps(&F.qp, &caps, 1);
	fake_srq_caps(&F.srq, max_recv_sge, 0);
}

void fake_teardown(void)
{
	if (F.pipe_fd[0] > 0) {
		close(F.pipe_fd[0]);
		close(F.pipe_fd[1]);
	}
	memset(&F, 0, sizeof(F));
	memset(fake_objs, 0, sizeof(fake_objs));
}

struct ibv_mr fake_mr(void *addr, size_t length, uint32_t lkey)
{
	struct ibv_mr mr;

	memset(&mr, 0, sizeof(mr));
	mr.context = &F.ctx;
	mr.pd = &F.pd;
	mr.addr = addr;
	mr.length = length;
	mr.lkey = lkey;
	mr.rkey = lkey + 1;
	return mr;
}
