// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the test device (rwx_testdev) itself, through the verbs a ULP
 * uses.  Every case creates its own instance and removes it, with every
 * object count back at zero.  Data is checked byte for byte: RDMA WRITE
 * and READ through the local DMA lkey, the unsafe global rkey and
 * fast-registration MRs; SEND and RECV; each access error completes with
 * its status, moves the QP to the error state and flushes what follows;
 * the iWARP rules for READ sinks and READ with invalidate; completion
 * notification; every fault; WR recording; integrity MRs for the three
 * domain combinations, both intervals, PI in a list of its own and
 * interleaved, with PI computed here independently of the device, and
 * every kind of damaged PI reported at its block; ib_core's rdma_rw
 * contexts on the device; and the iWARP connection manager's ends.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <rdma/signature.h>
#include "rwx_kunit_compat.h"
#include "rwx_t10_oracle.h"
#include "rwx_td_fixture.h"
#include "rwx_testdev.h"

#define RWX_TDT_BUF_ORDER	3		/* 32 KiB per buffer */
#define RWX_TDT_BUF_LEN		(PAGE_SIZE << RWX_TDT_BUF_ORDER)
#define RWX_TDT_CQE		256
#define RWX_TDT_SEND_WR		32
#define RWX_TDT_RECV_WR		16
#define RWX_TDT_MAX_WC		16
#define RWX_TDT_PI		((u32)sizeof(struct t10_pi_tuple))
#define RWX_TDT_META_OFF	(24 * 1024)	/* PI lists in the local buffer */
#define RWX_TDT_FAR		BIT_ULL(52)	/* no memory there */
#define RWX_TDT_WAIT		(30 * HZ)	/* TCG guests are slow */

struct rwx_tdt_env {
	struct rwx_td_fixture fx;
	u8 *local, *remote, *extra;
	u64 local_dma, remote_dma;
	struct ib_wc wc[RWX_TDT_MAX_WC];
};

static const struct rwx_testdev_caps rwx_tdt_ib_caps = {
	.max_send_sge = 4,
	.max_recv_sge = 4,
	.max_sge_rd = 4,
	.max_fast_reg_page_list_len = 8,
};

static const struct rwx_testdev_caps rwx_tdt_iwarp_caps = {
	.iwarp = true,
	.max_send_sge = 4,
	.max_recv_sge = 4,
	.max_sge_rd = 2,
	.max_fast_reg_page_list_len = 8,
};

static const struct rwx_testdev_caps rwx_tdt_pi_caps = {
	.integrity = true,
	.max_send_sge = 4,
	.max_recv_sge = 4,
	.max_sge_rd = 4,
	.max_fast_reg_page_list_len = 8,
	.max_pi_fast_reg_page_list_len = 8,
};

static int rwx_tdt_init(struct kunit *test)
{
	struct rwx_tdt_env *env;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	if (!env)
		return -ENOMEM;
	test->priv = env;
	env->local = rwx_td_pages(RWX_TDT_BUF_ORDER);
	env->remote = rwx_td_pages(RWX_TDT_BUF_ORDER);
	env->extra = rwx_td_pages(RWX_TDT_BUF_ORDER);
	return 0;
}

static void rwx_tdt_exit(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;

	if (env->local_dma)
		ib_dma_unmap_single(env->fx.dev, env->local_dma, RWX_TDT_BUF_LEN,
				    DMA_BIDIRECTIONAL);
	if (env->remote_dma)
		ib_dma_unmap_single(env->fx.dev, env->remote_dma, RWX_TDT_BUF_LEN,
				    DMA_BIDIRECTIONAL);
	rwx_td_fixture_close(test, &env->fx);
	rwx_td_free_pages(env->local, RWX_TDT_BUF_ORDER);
	rwx_td_free_pages(env->remote, RWX_TDT_BUF_ORDER);
	rwx_td_free_pages(env->extra, RWX_TDT_BUF_ORDER);
}

static struct ib_qp *rwx_tdt_create_qp_pd(struct rwx_tdt_env *env,
					  struct ib_pd *pd, struct ib_cq *cq,
					  u32 flags)
{
	const struct ib_qp_cap cap = {
		.max_send_wr = RWX_TDT_SEND_WR,
		.max_recv_wr = RWX_TDT_RECV_WR,
		.max_send_sge = min(4, env->fx.dev->attrs.max_send_sge),
		.max_recv_sge = min(4, env->fx.dev->attrs.max_recv_sge),
	};

	return rwx_testdev_create_qp(pd, cq, flags, &cap);
}

static struct ib_qp *rwx_tdt_create_qp(struct rwx_tdt_env *env,
				       struct ib_cq *cq, u32 flags)
{
	return rwx_tdt_create_qp_pd(env, env->fx.pd, cq, flags);
}

/* A fresh connected pair on env->fx.cq, replacing the one before. */
static void rwx_tdt_pair(struct kunit *test, u32 flags)
{
	struct rwx_tdt_env *env = test->priv;

	rwx_td_destroy_qp(&env->fx.qp);
	rwx_td_destroy_qp(&env->fx.peer);
	while (ib_poll_cq(env->fx.cq, RWX_TDT_MAX_WC, env->wc) > 0)
		;	/* what the old pair left */
	env->fx.qp = rwx_tdt_create_qp(env, env->fx.cq, flags);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.qp);
	env->fx.peer = rwx_tdt_create_qp(env, env->fx.cq, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.peer);
	KUNIT_ASSERT_EQ(test, rwx_testdev_connect(env->fx.qp, env->fx.peer), 0);
}

/* An instance, its PD (unsafe global rkey), a CQ polled here, a pair. */
static void rwx_tdt_setup(struct kunit *test,
			  const struct rwx_testdev_caps *caps, u32 qp_flags)
{
	struct rwx_tdt_env *env = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, env->local);
	KUNIT_ASSERT_NOT_NULL(test, env->remote);
	KUNIT_ASSERT_NOT_NULL(test, env->extra);
	rwx_td_fixture_open(test, &env->fx, "rwxtdt%d", caps, RWX_TDT_CQE,
			    IB_POLL_DIRECT);
	rwx_tdt_pair(test, qp_flags);

	env->local_dma = ib_dma_map_single(env->fx.dev, env->local,
					   RWX_TDT_BUF_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(env->fx.dev, env->local_dma)) {
		env->local_dma = 0;
		KUNIT_FAIL_AND_ABORT(test, "cannot map the local buffer");
	}
	env->remote_dma = ib_dma_map_single(env->fx.dev, env->remote,
					    RWX_TDT_BUF_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(env->fx.dev, env->remote_dma)) {
		env->remote_dma = 0;
		KUNIT_FAIL_AND_ABORT(test, "cannot map the remote buffer");
	}
}

/* Everything the device has completed so far; returns the count. */
static int rwx_tdt_poll(struct rwx_tdt_env *env)
{
	int n = 0, got;

	rwx_testdev_flush(env->fx.tdev);
	while (n < RWX_TDT_MAX_WC) {
		got = ib_poll_cq(env->fx.cq, RWX_TDT_MAX_WC - n, env->wc + n);
		if (got <= 0)
			break;
		n += got;
	}
	return n;
}

static void rwx_tdt_expect_wc(struct kunit *test, const struct ib_wc *wc,
			      u64 wr_id, enum ib_wc_status status,
			      enum ib_wc_opcode opcode)
{
	KUNIT_EXPECT_EQ(test, wc->wr_id, wr_id);
	KUNIT_EXPECT_EQ_MSG(test, wc->status, status, "WR %llu: %s, not %s",
			    wr_id, ib_wc_status_msg(wc->status),
			    ib_wc_status_msg(status));
	if (status != IB_WC_WR_FLUSH_ERR)
		KUNIT_EXPECT_EQ_MSG(test, wc->opcode, opcode, "WR %llu", wr_id);
}

/* Polls exactly one completion and checks it. */
static void rwx_tdt_expect_one(struct kunit *test, u64 wr_id,
			       enum ib_wc_status status,
			       enum ib_wc_opcode opcode)
{
	struct rwx_tdt_env *env = test->priv;

	KUNIT_ASSERT_EQ_MSG(test, rwx_tdt_poll(env), 1, "WR %llu", wr_id);
	rwx_tdt_expect_wc(test, &env->wc[0], wr_id, status, opcode);
}

static int rwx_tdt_rdma(struct ib_qp *qp, enum ib_wr_opcode opcode,
			struct ib_sge *sge, int nsge, u64 raddr, u32 rkey,
			u64 wr_id, int flags)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.opcode = opcode,
			.sg_list = sge,
			.num_sge = nsge,
			.send_flags = flags,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

static struct ib_sge rwx_tdt_sge(struct rwx_tdt_env *env, u32 off, u32 len)
{
	struct ib_sge sge = {
		.addr = env->local_dma + off,
		.length = len,
		.lkey = env->fx.pd->local_dma_lkey,
	};

	return sge;
}

/* A WRITE and a READ, signaled, of @len bytes of local memory at @off. */
static int rwx_tdt_write(struct rwx_tdt_env *env, u32 off, u32 len,
			 u64 raddr, u64 wr_id)
{
	struct ib_sge sge = rwx_tdt_sge(env, off, len);

	return rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, &sge, 1, raddr,
			    env->fx.pd->unsafe_global_rkey, wr_id,
			    IB_SEND_SIGNALED);
}

/* One page list entry per @len bytes from @dma, already mapped. */
static void rwx_tdt_sg(struct scatterlist *sg, u32 nents, const u64 *dma,
		       const u32 *len)
{
	u32 i;

	sg_init_table(sg, nents);
	for (i = 0; i < nents; i++) {
		sg_dma_address(&sg[i]) = dma[i];
		sg_dma_len(&sg[i]) = len[i];
	}
}

/* REG_MR of @mr under a fresh key with @access; @signaled or not. */
static int rwx_tdt_reg(struct ib_qp *qp, struct ib_mr *mr, int access,
		       enum ib_wr_opcode opcode, u64 wr_id, bool signaled)
{
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.opcode = opcode,
			.send_flags = signaled ? IB_SEND_SIGNALED : 0,
		},
		.mr = mr,
		.access = access,
	};

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.key = mr->rkey;
	return ib_post_send(qp, &wr.wr, NULL);
}

static int rwx_tdt_inv(struct ib_qp *qp, u32 key, u64 wr_id)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = key,
	};

	return ib_post_send(qp, &wr, NULL);
}

static bool rwx_tdt_fired(struct rwx_tdt_env *env,
			  enum rwx_testdev_fault fault)
{
	return rwx_testdev_fault_fired(env->fx.tdev, fault);
}

static u32 rwx_tdt_valid_mrs(struct rwx_tdt_env *env)
{
	struct rwx_testdev_counts counts;

	rwx_testdev_counts(env->fx.tdev, &counts);
	return counts.valid_mrs;
}

static enum ib_qp_state rwx_tdt_qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return IB_QPS_RESET;
	return attr.qp_state;
}

/*
 * The device as ib_core sees it: the capabilities asked for, defaults for
 * the rest, the port's transport, limits enforced on QPs and MRs, and the
 * objects counted.
 */
static void rwx_tdt_caps(struct kunit *test)
{
	static const struct rwx_testdev_caps small = {
		.max_send_sge = 3,
		.max_sge_rd = 2,
		.max_sgl_rd = 5,
		.max_fast_reg_page_list_len = 4,
		.max_mr = 4,
	};
	struct rwx_tdt_env *env = test->priv;
	struct rwx_testdev_counts counts;
	struct ib_qp_init_attr attr;
	struct ib_mr *mr[3], *extra;
	struct ib_qp *qp;
	u32 i;

	rwx_tdt_setup(test, &small, 0);
	KUNIT_EXPECT_PTR_EQ(test, rwx_testdev_from_ibdev(env->fx.dev), env->fx.tdev);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_send_sge, 3);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_recv_sge, 32);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_sge_rd, 2);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_sgl_rd, 5);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_fast_reg_page_list_len, 4);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_pi_fast_reg_page_list_len, 0);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_qp_wr, 4096);
	KUNIT_EXPECT_EQ(test, env->fx.dev->attrs.max_qp_init_rd_atom, 16);
	KUNIT_EXPECT_TRUE(test, env->fx.dev->attrs.kernel_cap_flags &
			  IBK_LOCAL_DMA_LKEY);
	KUNIT_EXPECT_FALSE(test, env->fx.dev->attrs.kernel_cap_flags &
			   IBK_INTEGRITY_HANDOVER);
	KUNIT_EXPECT_TRUE(test, env->fx.dev->attrs.device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_ib(env->fx.dev, 1));
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(env->fx.dev, 1),
			IB_LINK_LAYER_INFINIBAND);
	KUNIT_EXPECT_PTR_EQ(test, rwx_testdev_from_ibdev(NULL),
			    (struct rwx_testdev *)NULL);

	rwx_testdev_counts(env->fx.tdev, &counts);
	KUNIT_EXPECT_EQ(test, counts.pds, 1);
	KUNIT_EXPECT_EQ(test, counts.cqs, 1);
	KUNIT_EXPECT_EQ(test, counts.qps, 2);
	KUNIT_EXPECT_EQ(test, counts.mrs, 1);	/* the unsafe global rkey */

	/* QP capabilities above the device's, or unsupported. */
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = env->fx.cq;
	attr.recv_cq = env->fx.cq;
	attr.qp_type = IB_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 4;
	qp = ib_create_qp(env->fx.pd, &attr);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	attr.cap.max_send_sge = 3;
	attr.cap.max_send_wr = 4097;
	qp = ib_create_qp(env->fx.pd, &attr);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	attr.cap.max_send_wr = 1;
	attr.create_flags = IB_QP_CREATE_INTEGRITY_EN;
	qp = ib_create_qp(env->fx.pd, &attr);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP);
	attr.create_flags = 0;
	attr.qp_type = IB_QPT_UD;
	qp = ib_create_qp(env->fx.pd, &attr);
	KUNIT_EXPECT_TRUE(test, IS_ERR(qp));

	/* MRs: page list limit, MR limit (the DMA MR counts). */
	extra = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 5);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(extra), -EINVAL);
	extra = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_SG_GAPS, 2);
	KUNIT_EXPECT_TRUE(test, IS_ERR(extra));
	extra = ib_alloc_mr_integrity(env->fx.pd, 1, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(extra), -EOPNOTSUPP);
	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 4);
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, mr[i]);
	}
	extra = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(extra), -ENOMEM);
	rwx_testdev_counts(env->fx.tdev, &counts);
	KUNIT_EXPECT_EQ(test, counts.mrs, 4);
	KUNIT_EXPECT_EQ(test, counts.valid_mrs, 0);
	for (i = 0; i < ARRAY_SIZE(mr); i++)
		if (!IS_ERR_OR_NULL(mr[i]))
			ib_dereg_mr(mr[i]);
}

/*
 * RDMA WRITE and READ through the local DMA lkey and the unsafe global
 * rkey, several SGEs, crossing pages; unsignaled WRs run but complete
 * silently.
 */
static void rwx_tdt_write_read(struct kunit *test)
{
	static const u32 off[] = { 0, 2048, 4000 }, len[] = { 1000, 24, 2000 };
	struct rwx_tdt_env *env = test->priv;
	u32 rkey, total = 0, pos = 0, i;
	struct ib_sge sge[3];
	u8 *expect;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	rkey = env->fx.pd->unsafe_global_rkey;
	expect = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, expect);
	get_random_bytes(env->local, 8192);
	for (i = 0; i < 3; i++) {
		sge[i] = rwx_tdt_sge(env, off[i], len[i]);
		memcpy(expect + total, env->local + off[i], len[i]);
		total += len[i];
	}

	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, sge, 3,
					   env->remote_dma + 100, rkey, 1,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, sge, 3,
					   env->remote_dma + 8192, rkey, 2, 0),
			0);
	rwx_tdt_expect_one(test, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_PTR_EQ(test, env->wc[0].qp, env->fx.qp);
	KUNIT_EXPECT_MEMEQ(test, env->remote + 100, expect, total);
	KUNIT_EXPECT_MEMEQ(test, env->remote + 8192, expect, total);
	KUNIT_EXPECT_NULL(test, memchr_inv(env->remote, 0, 100));
	KUNIT_EXPECT_NULL(test, memchr_inv(env->remote + 100 + total, 0,
					   8192 - 100 - total));

	/* READ it back into two SGEs of zeroed memory. */
	memset(env->local + 16384, 0, 8192);
	sge[0] = rwx_tdt_sge(env, 16384 + 10, 1500);
	sge[1] = rwx_tdt_sge(env, 20000, total - 1500);
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_READ, sge, 2,
					   env->remote_dma + 100, rkey, 3,
					   IB_SEND_SIGNALED), 0);
	rwx_tdt_expect_one(test, 3, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, env->wc[0].byte_len, total);
	KUNIT_EXPECT_MEMEQ(test, env->local + 16384 + 10, expect, 1500);
	KUNIT_EXPECT_MEMEQ(test, env->local + 20000, expect + 1500,
			   total - 1500);
	KUNIT_EXPECT_NULL(test, memchr_inv(env->local + 16384, 0, 10));
	pos = 16384 + 10 + 1500;
	KUNIT_EXPECT_NULL(test, memchr_inv(env->local + pos, 0, 20000 - pos));
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.qp), IB_QPS_RTS);
}

/*
 * A fast-registration MR: FREE until REG_MR, then a local SGE and a remote
 * target under its key (two page-list entries, an offset into the first
 * page), FREE again after LOCAL_INV, registrable again.
 */
static void rwx_tdt_fast_reg(struct kunit *test)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	struct rwx_tdt_env *env = test->priv;
	struct scatterlist sg[2];
	u64 dma[2];
	u32 len[2] = { PAGE_SIZE - 512, 1000 };
	struct ib_sge sge;
	struct ib_mr *mr;
	u32 first;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	get_random_bytes(env->local, RWX_TDT_BUF_LEN);
	dma[0] = env->local_dma + PAGE_SIZE + 512;
	dma[1] = env->local_dma + 2 * PAGE_SIZE;
	rwx_tdt_sg(sg, 2, dma, len);
	mr = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_EQ(test, mr->iova, dma[0]);
	KUNIT_EXPECT_EQ(test, mr->length, (u64)len[0] + len[1]);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);

	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, access, IB_WR_REG_MR, 1,
					  true), 0);
	rwx_tdt_expect_one(test, 1, IB_WC_SUCCESS, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 1);

	/* The MR as the local source, across its two entries. */
	sge.addr = mr->iova + 100;
	sge.length = 3800;
	sge.lkey = mr->lkey;
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 2,
					   IB_SEND_SIGNALED), 0);
	rwx_tdt_expect_one(test, 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	first = len[0] - 100;
	KUNIT_EXPECT_MEMEQ(test, env->remote, env->local + PAGE_SIZE + 612,
			   first);
	KUNIT_EXPECT_MEMEQ(test, env->remote + first,
			   env->local + 2 * PAGE_SIZE, 3800 - first);

	/* The MR as the remote target: its last 600 bytes. */
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE,
					   &(struct ib_sge){
						.addr = env->local_dma + 6 * PAGE_SIZE,
						.length = 600,
						.lkey = env->fx.pd->local_dma_lkey },
					   1, mr->iova + mr->length - 600,
					   mr->rkey, 3, IB_SEND_SIGNALED), 0);
	rwx_tdt_expect_one(test, 3, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_MEMEQ(test, env->local + 2 * PAGE_SIZE + 400,
			   env->local + 6 * PAGE_SIZE, 600);

	KUNIT_ASSERT_EQ(test, rwx_tdt_inv(env->fx.qp, mr->rkey, 4), 0);
	rwx_tdt_expect_one(test, 4, IB_WC_SUCCESS, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);

	/* Registrable again, under the next key. */
	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, access, IB_WR_REG_MR, 5,
					  true), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_inv(env->fx.qp, mr->rkey, 6), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 5, IB_WC_SUCCESS, IB_WC_REG_MR);
	rwx_tdt_expect_wc(test, &env->wc[1], 6, IB_WC_SUCCESS, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.qp), IB_QPS_RTS);
	ib_dereg_mr(mr);
}

/* WRs that the device refuses when it executes them. */
enum rwx_tdt_bad_kind {
	RWX_TDT_BAD_RKEY,	/* the global rkey with another variant */
	RWX_TDT_DMA_LKEY_AS_RKEY,
	RWX_TDT_BAD_LKEY,
	RWX_TDT_BAD_ADDR,	/* a DMA address with no memory */
	RWX_TDT_FREE_MR,	/* an MR never registered, as rkey */
	RWX_TDT_NO_REMOTE_WRITE,
	RWX_TDT_NO_LOCAL_WRITE,	/* READ into an MR without it */
	RWX_TDT_REMOTE_RANGE,
	RWX_TDT_LOCAL_RANGE,
	RWX_TDT_OTHER_PD,	/* an MR of another PD, as rkey */
	RWX_TDT_REG_VALID,	/* REG_MR on a VALID MR */
	RWX_TDT_REG_OTHER_KEY,	/* REG_MR with a key of another index */
	RWX_TDT_INV_BAD_KEY,
	RWX_TDT_READ_INV_IB,	/* READ with invalidate on InfiniBand */
	RWX_TDT_NO_RECV,	/* SEND with no receive posted */
	RWX_TDT_PEER_ERR,	/* the peer is in the error state */
};

struct rwx_tdt_bad {
	const char *name;
	enum rwx_tdt_bad_kind kind;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
};

static const struct rwx_tdt_bad rwx_tdt_bads[] = {
	{ "bad-rkey", RWX_TDT_BAD_RKEY, IB_WC_REM_ACCESS_ERR,
	  IB_WC_RDMA_WRITE },
	{ "dma-lkey-as-rkey", RWX_TDT_DMA_LKEY_AS_RKEY, IB_WC_REM_ACCESS_ERR,
	  IB_WC_RDMA_READ },
	{ "bad-lkey", RWX_TDT_BAD_LKEY, IB_WC_LOC_PROT_ERR, IB_WC_RDMA_WRITE },
	{ "bad-addr", RWX_TDT_BAD_ADDR, IB_WC_LOC_PROT_ERR, IB_WC_RDMA_WRITE },
	{ "free-mr", RWX_TDT_FREE_MR, IB_WC_REM_ACCESS_ERR, IB_WC_RDMA_WRITE },
	{ "no-remote-write", RWX_TDT_NO_REMOTE_WRITE, IB_WC_REM_ACCESS_ERR,
	  IB_WC_RDMA_WRITE },
	{ "no-local-write", RWX_TDT_NO_LOCAL_WRITE, IB_WC_LOC_PROT_ERR,
	  IB_WC_RDMA_READ },
	{ "remote-range", RWX_TDT_REMOTE_RANGE, IB_WC_REM_ACCESS_ERR,
	  IB_WC_RDMA_WRITE },
	{ "local-range", RWX_TDT_LOCAL_RANGE, IB_WC_LOC_PROT_ERR,
	  IB_WC_RDMA_WRITE },
	{ "other-pd", RWX_TDT_OTHER_PD, IB_WC_REM_ACCESS_ERR,
	  IB_WC_RDMA_WRITE },
	{ "reg-valid", RWX_TDT_REG_VALID, IB_WC_MW_BIND_ERR, IB_WC_REG_MR },
	{ "reg-other-key", RWX_TDT_REG_OTHER_KEY, IB_WC_MW_BIND_ERR,
	  IB_WC_REG_MR },
	{ "inv-bad-key", RWX_TDT_INV_BAD_KEY, IB_WC_LOC_PROT_ERR,
	  IB_WC_LOCAL_INV },
	{ "read-inv-ib", RWX_TDT_READ_INV_IB, IB_WC_LOC_QP_OP_ERR,
	  IB_WC_RDMA_READ },
	{ "no-recv", RWX_TDT_NO_RECV, IB_WC_RNR_RETRY_EXC_ERR, IB_WC_SEND },
	{ "peer-error", RWX_TDT_PEER_ERR, IB_WC_RETRY_EXC_ERR,
	  IB_WC_RDMA_WRITE },
};

static void rwx_tdt_bad_desc(const struct rwx_tdt_bad *bad, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", bad->name);
}

KUNIT_ARRAY_PARAM(rwx_tdt_bad, rwx_tdt_bads, rwx_tdt_bad_desc);

/* The WRs of one bad case, built by rwx_tdt_build_bad(). */
struct rwx_tdt_bad_wr {
	struct ib_rdma_wr rdma;
	struct ib_reg_wr reg;
	struct ib_send_wr send;
	struct ib_sge sge;
	struct ib_mr *mr, *mr2;
	struct ib_pd *pd2;
	struct ib_qp *qp2;
};

/* A fast-reg MR over 2 pages of local memory at 8 KiB, registered. */
static struct ib_mr *rwx_tdt_mr(struct kunit *test, struct ib_pd *pd,
				int access, bool reg)
{
	struct rwx_tdt_env *env = test->priv;
	u64 dma = env->local_dma + 8192;
	u32 len = 2 * PAGE_SIZE;
	struct scatterlist sg;
	struct ib_mr *mr;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	rwx_tdt_sg(&sg, 1, &dma, &len);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	if (reg) {
		KUNIT_EXPECT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, access,
						  IB_WR_REG_MR, 90, true), 0);
		rwx_tdt_expect_one(test, 90, IB_WC_SUCCESS, IB_WC_REG_MR);
	}
	return mr;
}

static struct ib_send_wr *rwx_tdt_build_bad(struct kunit *test,
					    const struct rwx_tdt_bad *bad,
					    struct rwx_tdt_bad_wr *w)
{
	const int all = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_WRITE;
	struct rwx_tdt_env *env = test->priv;
	struct ib_send_wr *wr = &w->rdma.wr;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	/* By default: an unsignaled WRITE of 64 bytes, global rkey. */
	w->sge = rwx_tdt_sge(env, 0, 64);
	wr->opcode = IB_WR_RDMA_WRITE;
	wr->sg_list = &w->sge;
	wr->num_sge = 1;
	wr->wr_id = 101;
	w->rdma.remote_addr = env->remote_dma;
	w->rdma.rkey = env->fx.pd->unsafe_global_rkey;

	switch (bad->kind) {
	case RWX_TDT_BAD_RKEY:
		w->rdma.rkey ^= 0x5;
		break;
	case RWX_TDT_DMA_LKEY_AS_RKEY:
		wr->opcode = IB_WR_RDMA_READ;
		w->rdma.rkey = env->fx.pd->local_dma_lkey;
		break;
	case RWX_TDT_BAD_LKEY:
		w->sge.lkey = env->fx.pd->unsafe_global_rkey + 0x100;
		break;
	case RWX_TDT_BAD_ADDR:
		w->sge.addr = RWX_TDT_FAR;
		break;
	case RWX_TDT_FREE_MR:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, false);
		w->rdma.remote_addr = w->mr->iova;
		w->rdma.rkey = w->mr->rkey;
		break;
	case RWX_TDT_NO_REMOTE_WRITE:
		w->mr = rwx_tdt_mr(test, env->fx.pd, IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_READ, true);
		w->rdma.remote_addr = w->mr->iova;
		w->rdma.rkey = w->mr->rkey;
		break;
	case RWX_TDT_NO_LOCAL_WRITE:
		w->mr = rwx_tdt_mr(test, env->fx.pd, IB_ACCESS_REMOTE_READ, true);
		wr->opcode = IB_WR_RDMA_READ;
		w->sge.addr = w->mr->iova;
		w->sge.lkey = w->mr->lkey;
		break;
	case RWX_TDT_REMOTE_RANGE:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, true);
		w->rdma.remote_addr = w->mr->iova + w->mr->length - 32;
		w->rdma.rkey = w->mr->rkey;
		break;
	case RWX_TDT_LOCAL_RANGE:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, true);
		w->sge.addr = w->mr->iova - 1;
		w->sge.lkey = w->mr->lkey;
		break;
	case RWX_TDT_OTHER_PD:
		w->pd2 = ib_alloc_pd(env->fx.dev, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w->pd2);
		w->mr = rwx_tdt_mr(test, w->pd2, all, false);
		/* VALID, through a QP of its own PD talking to itself. */
		w->qp2 = rwx_tdt_create_qp_pd(env, w->pd2, env->fx.cq, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w->qp2);
		KUNIT_ASSERT_EQ(test, rwx_testdev_connect(w->qp2, w->qp2), 0);
		KUNIT_ASSERT_EQ(test, rwx_tdt_reg(w->qp2, w->mr, all,
						  IB_WR_REG_MR, 92, true), 0);
		rwx_tdt_expect_one(test, 92, IB_WC_SUCCESS, IB_WC_REG_MR);
		w->rdma.remote_addr = w->mr->iova;
		w->rdma.rkey = w->mr->rkey;
		break;
	case RWX_TDT_REG_VALID:
	case RWX_TDT_REG_OTHER_KEY:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, true);
		if (bad->kind == RWX_TDT_REG_OTHER_KEY) {
			KUNIT_ASSERT_EQ(test, rwx_tdt_inv(env->fx.qp, w->mr->rkey,
							  91), 0);
			rwx_tdt_expect_one(test, 91, IB_WC_SUCCESS,
					   IB_WC_LOCAL_INV);
			w->mr2 = rwx_tdt_mr(test, env->fx.pd, all, false);
		}
		w->reg.wr.opcode = IB_WR_REG_MR;
		w->reg.wr.wr_id = 101;
		w->reg.mr = w->mr;
		w->reg.access = all;
		w->reg.key = w->mr2 ? w->mr2->rkey : ib_inc_rkey(w->mr->rkey);
		wr = &w->reg.wr;
		break;
	case RWX_TDT_INV_BAD_KEY:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, true);
		w->send.opcode = IB_WR_LOCAL_INV;
		w->send.wr_id = 101;
		w->send.ex.invalidate_rkey = ib_inc_rkey(w->mr->rkey);
		wr = &w->send;
		break;
	case RWX_TDT_READ_INV_IB:
		w->mr = rwx_tdt_mr(test, env->fx.pd, all, true);
		wr->opcode = IB_WR_RDMA_READ_WITH_INV;
		w->sge.addr = w->mr->iova;
		w->sge.lkey = w->mr->lkey;
		wr->ex.invalidate_rkey = w->mr->lkey;
		break;
	case RWX_TDT_NO_RECV:
		w->send.opcode = IB_WR_SEND;
		w->send.wr_id = 101;
		w->send.sg_list = &w->sge;
		w->send.num_sge = 1;
		wr = &w->send;
		break;
	case RWX_TDT_PEER_ERR:
		KUNIT_ASSERT_EQ(test, ib_modify_qp(env->fx.peer, &attr,
						   IB_QP_STATE), 0);
		break;
	}
	return wr;
}

/*
 * Each refused WR, unsignaled, completes with its status; the signaled
 * WRITE behind it in the same post is flushed, the QP is in the error
 * state, and a WR or receive posted afterwards is flushed too.
 */
static void rwx_tdt_errors(struct kunit *test)
{
	const struct rwx_tdt_bad *bad = test->param_value;
	struct rwx_tdt_env *env = test->priv;
	struct ib_recv_wr recv = { .wr_id = 104 };
	struct rwx_tdt_bad_wr *w;
	struct ib_rdma_wr good = {
		.wr = {
			.wr_id = 102,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	struct ib_send_wr *wr;
	struct ib_sge sge;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	sge = rwx_tdt_sge(env, 4096, 128);
	good.wr.sg_list = &sge;
	good.wr.num_sge = 1;
	good.remote_addr = env->remote_dma + 4096;
	good.rkey = env->fx.pd->unsafe_global_rkey;

	wr = rwx_tdt_build_bad(test, bad, w);
	wr->next = &good.wr;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 101, bad->status, bad->opcode);
	rwx_tdt_expect_wc(test, &env->wc[1], 102, IB_WC_WR_FLUSH_ERR, 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.qp), IB_QPS_ERR);

	good.wr.wr_id = 103;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &good.wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_recv(env->fx.qp, &recv, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 103, IB_WC_WR_FLUSH_ERR, 0);
	rwx_tdt_expect_wc(test, &env->wc[1], 104, IB_WC_WR_FLUSH_ERR, 0);
	KUNIT_EXPECT_EQ(test, env->wc[1].opcode, IB_WC_RECV);
	KUNIT_EXPECT_NULL(test, memchr_inv(env->remote + 4096, 0, 128));

	rwx_td_destroy_qp(&env->fx.qp);
	rwx_td_destroy_qp(&env->fx.peer);
	rwx_td_destroy_qp(&w->qp2);
	if (w->mr)
		ib_dereg_mr(w->mr);
	if (w->mr2)
		ib_dereg_mr(w->mr2);
	if (w->pd2)
		ib_dealloc_pd(w->pd2);
}

/*
 * Posting refuses WRs the QP cannot take: the earlier ones of the chain
 * stay posted and *bad_wr names the refused one.
 */
static void rwx_tdt_post_checks(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	const struct ib_send_wr *bad_wr;
	struct ib_rdma_wr wr[2];
	struct ib_sge sge[4];
	struct ib_qp *fresh;
	u32 i;

	rwx_tdt_setup(test, &rwx_tdt_iwarp_caps, 0);
	for (i = 0; i < 4; i++)
		sge[i] = rwx_tdt_sge(env, i * 64, 64);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 2; i++) {
		wr[i].wr.wr_id = i + 1;
		wr[i].wr.opcode = IB_WR_RDMA_WRITE;
		wr[i].wr.sg_list = sge;
		wr[i].wr.num_sge = 1;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].remote_addr = env->remote_dma;
		wr[i].rkey = env->fx.pd->unsafe_global_rkey;
	}
	wr[0].wr.next = &wr[1].wr;

	/* A READ with more SGEs than max_sge_rd (2), after a good WRITE. */
	wr[1].wr.opcode = IB_WR_RDMA_READ;
	wr[1].wr.num_sge = 3;
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[0].wr, &bad_wr),
			-EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, bad_wr, &wr[1].wr);
	rwx_tdt_expect_one(test, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);

	/* An opcode the device does not do, inline data, too many SGEs. */
	wr[1].wr.num_sge = 1;
	wr[1].wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[1].wr, &bad_wr),
			-EINVAL);
	wr[1].wr.opcode = IB_WR_RDMA_WRITE;
	wr[1].wr.send_flags |= IB_SEND_INLINE;
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[1].wr, &bad_wr),
			-EINVAL);
	wr[1].wr.send_flags = IB_SEND_SIGNALED;
	wr[1].wr.num_sge = 5;
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[1].wr, &bad_wr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ib_post_recv(env->fx.qp, &(struct ib_recv_wr){
				.sg_list = sge, .num_sge = 5 }, NULL), -EINVAL);

	/* A QP that is not ready to send. */
	fresh = rwx_tdt_create_qp(env, env->fx.cq, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fresh);
	wr[1].wr.num_sge = 1;
	KUNIT_EXPECT_EQ(test, ib_post_send(fresh, &wr[1].wr, &bad_wr),
			-EINVAL);
	ib_destroy_qp(fresh);
	KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.qp), IB_QPS_RTS);
}

static int rwx_tdt_cm_handler(struct rdma_cm_id *id,
			      struct rdma_cm_event *event)
{
	return 0;
}

/*
 * A wildcard rdma_cm listen reaches every device rdma_cm has taken on:
 * on an iWARP instance, its own connection manager listens, and lets go
 * when the listen ends (rdma_destroy_id() waits for that).
 */
static void rwx_tdt_wildcard_listen(struct kunit *test)
{
	struct sockaddr_in any = { .sin_family = AF_INET };
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, rwx_tdt_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	KUNIT_EXPECT_EQ(test, rdma_bind_addr(id, (struct sockaddr *)&any), 0);
	KUNIT_EXPECT_EQ(test, rdma_listen(id, 1), 0);
	rdma_destroy_id(id);
}

/* An iw_cm_id as iw_cm would hand the device: its events and references. */
struct rwx_tdt_iw_id {
	struct iw_cm_id id;
	int refs;
	int nr;
	enum iw_cm_event_type ev[4];
	int status[4];
	void *request;		/* a CONNECT_REQUEST's provider_data */
};

static struct rwx_tdt_iw_id *to_tdt_iw(struct iw_cm_id *id)
{
	return container_of(id, struct rwx_tdt_iw_id, id);
}

static int rwx_tdt_iw_event(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	struct rwx_tdt_iw_id *t = to_tdt_iw(id);

	if (t->nr < ARRAY_SIZE(t->ev)) {
		t->ev[t->nr] = ev->event;
		t->status[t->nr] = ev->status;
	}
	t->nr++;
	if (ev->event == IW_CM_EVENT_CONNECT_REQUEST)
		t->request = ev->provider_data;
	return 0;
}

static void rwx_tdt_iw_add_ref(struct iw_cm_id *id)
{
	to_tdt_iw(id)->refs++;
}

static void rwx_tdt_iw_rem_ref(struct iw_cm_id *id)
{
	to_tdt_iw(id)->refs--;
}

/* @t on @dev, from 192.0.2.3:@port (0.0.0.0 with @any) to 192.0.2.3:4420. */
static void rwx_tdt_iw_id_init(struct rwx_tdt_iw_id *t, struct ib_device *dev,
			       u16 port, bool any)
{
	struct sockaddr_in *local = (struct sockaddr_in *)&t->id.m_local_addr;
	struct sockaddr_in *remote = (struct sockaddr_in *)&t->id.m_remote_addr;

	memset(t, 0, sizeof(*t));
	t->id.device = dev;
	t->id.event_handler = rwx_tdt_iw_event;
	t->id.add_ref = rwx_tdt_iw_add_ref;
	t->id.rem_ref = rwx_tdt_iw_rem_ref;
	local->sin_family = AF_INET;
	local->sin_addr.s_addr = any ? htonl(INADDR_ANY) : htonl(0xc0000203);
	local->sin_port = htons(port);
	remote->sin_family = AF_INET;
	remote->sin_addr.s_addr = htonl(0xc0000203);
	remote->sin_port = htons(4420);
}

/* A QP of the instance in INIT, as rdma_cm has it before a connect. */
static struct ib_qp *rwx_tdt_iw_qp(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_qp *qp;

	qp = rwx_tdt_create_qp(env, env->fx.cq, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);
	return qp;
}

/*
 * The iWARP connection manager's ends, called as iw_cm calls them: an
 * accept that fails refuses the request to the connecting side and
 * keeps nothing (iw_cm asks nothing more of it); a connection whose QP an
 * error put in the error state still closes when iw_cm disconnects (SQD):
 * CLOSE to its cm_id, DISCONNECT and CLOSE to the peer's, every reference
 * given back.
 */
static void rwx_tdt_iw_cm(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct rwx_tdt_iw_id *listener, *active, *passive;
	struct iw_cm_conn_param param = { .ord = 1, .ird = 1 };
	const struct ib_device_ops *ops;
	struct ib_qp_attr attr = { .qp_state = IB_QPS_SQD };
	const struct ib_send_wr *bad_wr;
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
		.rkey = 0xdeadbe00,	/* no such key: a remote access error */
	};
	struct ib_qp *a, *b;
	struct ib_sge sge;

	listener = kunit_kzalloc(test, 3 * sizeof(*listener), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, listener);
	active = listener + 1;
	passive = listener + 2;
	rwx_tdt_setup(test, &rwx_tdt_iwarp_caps, 0);
	ops = &env->fx.dev->ops;
	a = rwx_tdt_iw_qp(test);
	b = rwx_tdt_iw_qp(test);

	rwx_tdt_iw_id_init(listener, env->fx.dev, 4420, true);
	KUNIT_ASSERT_EQ(test, ops->iw_create_listen(&listener->id, 1), 0);
	KUNIT_EXPECT_EQ(test, listener->refs, 1);

	/* An accept that fails: the request refused, nothing kept. */
	rwx_tdt_iw_id_init(active, env->fx.dev, 40000, false);
	param.qpn = a->qp_num;
	KUNIT_ASSERT_EQ(test, ops->iw_connect(&active->id, &param), 0);
	KUNIT_ASSERT_EQ(test, listener->nr, 1);
	KUNIT_EXPECT_EQ(test, listener->ev[0], IW_CM_EVENT_CONNECT_REQUEST);
	KUNIT_EXPECT_EQ(test, active->refs, 1);
	rwx_tdt_iw_id_init(passive, env->fx.dev, 4420, false);
	passive->id.provider_data = listener->request;
	param.qpn = 0xffffff;	/* no such QP */
	KUNIT_EXPECT_EQ(test, ops->iw_accept(&passive->id, &param), -EINVAL);
	KUNIT_EXPECT_NULL(test, passive->id.provider_data);
	KUNIT_ASSERT_EQ(test, active->nr, 1);
	KUNIT_EXPECT_EQ(test, active->ev[0], IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, active->status[0], -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, active->refs, 0);
	KUNIT_EXPECT_EQ(test, passive->nr, 0);
	KUNIT_EXPECT_EQ(test, passive->refs, 0);

	/* A connection made, both QPs in RTS. */
	rwx_tdt_iw_id_init(active, env->fx.dev, 40001, false);
	param.qpn = a->qp_num;
	KUNIT_ASSERT_EQ(test, ops->iw_connect(&active->id, &param), 0);
	rwx_tdt_iw_id_init(passive, env->fx.dev, 4420, false);
	passive->id.provider_data = listener->request;
	param.qpn = b->qp_num;
	KUNIT_ASSERT_EQ(test, ops->iw_accept(&passive->id, &param), 0);
	KUNIT_EXPECT_EQ(test, passive->ev[0], IW_CM_EVENT_ESTABLISHED);
	KUNIT_EXPECT_EQ(test, active->ev[0], IW_CM_EVENT_CONNECT_REPLY);
	KUNIT_EXPECT_EQ(test, active->status[0], 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(a), IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(b), IB_QPS_RTS);

	/* b's WRITE to a key a lacks: b in the error state, still connected. */
	sge = rwx_tdt_sge(env, 0, 64);
	wr.wr.sg_list = &sge;
	wr.remote_addr = env->remote_dma;
	KUNIT_ASSERT_EQ(test, ib_post_send(b, &wr.wr, &bad_wr), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 1);
	KUNIT_EXPECT_EQ(test, env->wc[0].status, IB_WC_REM_ACCESS_ERR);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(b), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, passive->nr, 1);

	/* iw_cm's disconnect of b (SQD) closes the connection all the same. */
	KUNIT_EXPECT_EQ(test, ib_modify_qp(b, &attr, IB_QP_STATE), 0);
	KUNIT_ASSERT_EQ(test, passive->nr, 2);
	KUNIT_EXPECT_EQ(test, passive->ev[1], IW_CM_EVENT_CLOSE);
	KUNIT_ASSERT_EQ(test, active->nr, 3);
	KUNIT_EXPECT_EQ(test, active->ev[1], IW_CM_EVENT_DISCONNECT);
	KUNIT_EXPECT_EQ(test, active->ev[2], IW_CM_EVENT_CLOSE);
	KUNIT_EXPECT_EQ(test, passive->refs, 0);
	KUNIT_EXPECT_EQ(test, active->refs, 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(a), IB_QPS_ERR);

	KUNIT_EXPECT_EQ(test, ops->iw_destroy_listen(&listener->id), 0);
	KUNIT_EXPECT_EQ(test, listener->refs, 0);
	ib_destroy_qp(a);
	ib_destroy_qp(b);
	rwx_tdt_poll(env);	/* what the error state flushed */
}

/*
 * iWARP: a READ sink must be registered with remote WRITE access; READ
 * with invalidate retires the sink's key once the data is there.
 *
 * It has a connection manager of its own (rwx_testdev_iwcm.c).
 */
static void rwx_tdt_iwarp(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_READ,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	struct ib_mr *mr, *sink;
	struct ib_sge sge;

	rwx_tdt_setup(test, &rwx_tdt_iwarp_caps, 0);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_iwarp(env->fx.dev, 1));
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(env->fx.dev, 1),
			IB_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_EQ(test, env->fx.dev->node_type, RDMA_NODE_RNIC);
	KUNIT_EXPECT_TRUE(test, rdma_cap_iw_cm(env->fx.dev, 1));
	rwx_tdt_wildcard_listen(test);
	get_random_bytes(env->remote, 4096);
	wr.wr.sg_list = &sge;
	wr.remote_addr = env->remote_dma;
	wr.rkey = env->fx.pd->unsafe_global_rkey;

	/* Into the local DMA lkey: refused. */
	sge = rwx_tdt_sge(env, 0, 256);
	wr.wr.wr_id = 1;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	rwx_tdt_expect_one(test, 1, IB_WC_LOC_PROT_ERR, IB_WC_RDMA_READ);

	/* Into an MR with local WRITE only: refused. */
	rwx_tdt_pair(test, 0);
	mr = rwx_tdt_mr(test, env->fx.pd, IB_ACCESS_LOCAL_WRITE, true);
	sge.addr = mr->iova;
	sge.lkey = mr->lkey;
	wr.wr.wr_id = 2;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	rwx_tdt_expect_one(test, 2, IB_WC_LOC_PROT_ERR, IB_WC_RDMA_READ);

	/* Into an MR with remote WRITE: the data lands. */
	rwx_tdt_pair(test, 0);
	sink = rwx_tdt_mr(test, env->fx.pd, IB_ACCESS_LOCAL_WRITE |
			  IB_ACCESS_REMOTE_WRITE, true);
	sge.addr = sink->iova + 100;
	sge.lkey = sink->lkey;
	wr.wr.wr_id = 3;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	rwx_tdt_expect_one(test, 3, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	KUNIT_EXPECT_MEMEQ(test, env->local + 8192 + 100, env->remote, 256);

	/* READ with invalidate: data, then the key is gone. */
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 2);
	wr.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
	wr.wr.ex.invalidate_rkey = sink->lkey;
	wr.wr.wr_id = 4;
	wr.remote_addr = env->remote_dma + 1024;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	rwx_tdt_expect_one(test, 4, IB_WC_SUCCESS, IB_WC_RDMA_READ);
	KUNIT_EXPECT_MEMEQ(test, env->local + 8192 + 100, env->remote + 1024,
			   256);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 1);
	KUNIT_ASSERT_EQ(test, rwx_tdt_inv(env->fx.qp, mr->rkey, 5), 0);
	rwx_tdt_expect_one(test, 5, IB_WC_SUCCESS, IB_WC_LOCAL_INV);

	/* The invalidated sink refuses the next READ. */
	wr.wr.opcode = IB_WR_RDMA_READ;
	wr.wr.wr_id = 6;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	rwx_tdt_expect_one(test, 6, IB_WC_LOC_PROT_ERR, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);
	rwx_td_destroy_qp(&env->fx.qp);
	ib_dereg_mr(mr);
	ib_dereg_mr(sink);
}

/*
 * SEND with immediate into two receive SGEs; SEND with invalidate; a
 * receive too small for the SEND fails both ends.
 */
static void rwx_tdt_send_recv(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct ib_sge rsge[2], ssge[2];
	struct ib_recv_wr recv = {
		.wr_id = 10,
		.sg_list = rsge,
		.num_sge = 2,
	};
	struct ib_send_wr send = {
		.wr_id = 1,
		.opcode = IB_WR_SEND_WITH_IMM,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = ssge,
		.num_sge = 2,
		.ex.imm_data = cpu_to_be32(0x12345678),
	};
	const struct ib_wc *swc, *rwc;
	struct ib_mr *mr;
	u32 i;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	get_random_bytes(env->local, 8192);
	ssge[0] = rwx_tdt_sge(env, 0, 1000);
	ssge[1] = rwx_tdt_sge(env, 5000, 2000);
	for (i = 0; i < 2; i++) {
		rsge[i].addr = env->remote_dma + i * 8192;
		rsge[i].length = 2000;
		rsge[i].lkey = env->fx.pd->local_dma_lkey;
	}
	KUNIT_ASSERT_EQ(test, ib_post_recv(env->fx.peer, &recv, NULL), 0);
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &send, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	/* The receive completes while the SEND executes, before it. */
	rwc = &env->wc[0];
	swc = &env->wc[1];
	rwx_tdt_expect_wc(test, swc, 1, IB_WC_SUCCESS, IB_WC_SEND);
	rwx_tdt_expect_wc(test, rwc, 10, IB_WC_SUCCESS, IB_WC_RECV);
	KUNIT_EXPECT_PTR_EQ(test, rwc->qp, env->fx.peer);
	KUNIT_EXPECT_EQ(test, rwc->byte_len, 3000);
	KUNIT_EXPECT_EQ(test, rwc->src_qp, env->fx.qp->qp_num);
	KUNIT_EXPECT_TRUE(test, rwc->wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rwc->ex.imm_data), 0x12345678);
	KUNIT_EXPECT_MEMEQ(test, env->remote, env->local, 1000);
	KUNIT_EXPECT_MEMEQ(test, env->remote + 1000, env->local + 5000, 1000);
	KUNIT_EXPECT_MEMEQ(test, env->remote + 8192, env->local + 6000, 1000);
	KUNIT_EXPECT_NULL(test, memchr_inv(env->remote + 8192 + 1000, 0, 1000));

	/* SEND with invalidate: the receiver's MR goes FREE. */
	mr = rwx_tdt_mr(test, env->fx.pd, IB_ACCESS_LOCAL_WRITE |
			IB_ACCESS_REMOTE_WRITE, true);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 1);
	recv.wr_id = 11;
	KUNIT_ASSERT_EQ(test, ib_post_recv(env->fx.peer, &recv, NULL), 0);
	send.wr_id = 2;
	send.opcode = IB_WR_SEND_WITH_INV;
	send.num_sge = 1;
	send.ex.invalidate_rkey = mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &send, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 11, IB_WC_SUCCESS, IB_WC_RECV);
	KUNIT_EXPECT_TRUE(test, env->wc[0].wc_flags & IB_WC_WITH_INVALIDATE);
	KUNIT_EXPECT_EQ(test, env->wc[0].ex.invalidate_rkey, mr->rkey);
	rwx_tdt_expect_wc(test, &env->wc[1], 2, IB_WC_SUCCESS, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);

	/* A receive too small: the receiver and the sender both fail. */
	rsge[0].length = 100;
	recv.num_sge = 1;
	recv.wr_id = 12;
	KUNIT_ASSERT_EQ(test, ib_post_recv(env->fx.peer, &recv, NULL), 0);
	recv.wr_id = 13;
	KUNIT_ASSERT_EQ(test, ib_post_recv(env->fx.peer, &recv, NULL), 0);
	send.opcode = IB_WR_SEND;
	send.wr_id = 3;
	KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, &send, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 3);
	rwx_tdt_expect_wc(test, &env->wc[0], 12, IB_WC_LOC_LEN_ERR, IB_WC_RECV);
	rwx_tdt_expect_wc(test, &env->wc[1], 13, IB_WC_WR_FLUSH_ERR, 0);
	rwx_tdt_expect_wc(test, &env->wc[2], 3, IB_WC_REM_INV_REQ_ERR,
			  IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.peer), IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(env->fx.qp), IB_QPS_ERR);
	rwx_td_destroy_qp(&env->fx.qp);
	rwx_td_destroy_qp(&env->fx.peer);
	ib_dereg_mr(mr);
}

struct rwx_tdt_notify {
	atomic_t calls;
	struct completion done;
	struct ib_cqe cqe;
	enum ib_wc_status status;
	struct ib_cqe rcqe;
	atomic_t flushed;
};

static void rwx_tdt_comp(struct ib_cq *cq, void *ctx)
{
	struct rwx_tdt_notify *n = ctx;

	atomic_inc(&n->calls);
}

static void rwx_tdt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rwx_tdt_notify *n = container_of(wc->wr_cqe,
						struct rwx_tdt_notify, cqe);

	n->status = wc->status;
	complete(&n->done);
}

static void rwx_tdt_flushed(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rwx_tdt_notify *n = container_of(wc->wr_cqe,
						struct rwx_tdt_notify, rcqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		atomic_inc(&n->flushed);
}

/*
 * Completion notification: the handler runs once per arming, a solicited
 * arming waits for a solicited or failed completion, REPORT_MISSED_EVENTS
 * tells of completions already there; ib_core's softirq polling
 * delivers through wr_cqe, and ib_drain_qp() flushes what is posted.
 */
static void rwx_tdt_notify(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct ib_cq_init_attr cq_attr = { .cqe = 16 };
	struct rwx_tdt_notify *n;
	struct ib_qp *qp, *peer;
	struct ib_cq *cq;
	struct ib_wc wc[4];
	struct ib_sge sge;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	n = kunit_kzalloc(test, sizeof(*n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n);
	cq = ib_create_cq(env->fx.dev, rwx_tdt_comp, NULL, n, &cq_attr);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	qp = rwx_tdt_create_qp(env, cq, 0);
	peer = rwx_tdt_create_qp(env, cq, 0);
	if (IS_ERR(qp) || IS_ERR(peer) || rwx_testdev_connect(qp, peer)) {
		KUNIT_FAIL(test, "QPs on the raw CQ");
		goto out;
	}
	sge = rwx_tdt_sge(env, 0, 16);

	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 1,
					   IB_SEND_SIGNALED), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 2,
					   IB_SEND_SIGNALED), 0);
	rwx_testdev_flush(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->calls), 1);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, wc), 2);
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);

	/* Armed for NEXT_COMP above: one call for the next completion. */
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 3,
					   IB_SEND_SIGNALED), 0);
	rwx_testdev_flush(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->calls), 2);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, wc), 1);

	/* Solicited only: a plain success does not call, an error does. */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_SOLICITED), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 4,
					   IB_SEND_SIGNALED), 0);
	rwx_testdev_flush(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->calls), 2);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma, 0xdead00, 5, 0),
			0);
	rwx_testdev_flush(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&n->calls), 3);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 4, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_REM_ACCESS_ERR);
out:
	if (!IS_ERR_OR_NULL(qp))
		ib_destroy_qp(qp);
	if (!IS_ERR_OR_NULL(peer))
		ib_destroy_qp(peer);
	ib_destroy_cq(cq);

	/* ib_core's softirq polling. */
	cq = ib_alloc_cq(env->fx.dev, NULL, 16, 0, IB_POLL_SOFTIRQ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, cq);
	qp = rwx_tdt_create_qp(env, cq, 0);
	peer = rwx_tdt_create_qp(env, cq, 0);
	if (!IS_ERR(qp) && !IS_ERR(peer) && !rwx_testdev_connect(qp, peer)) {
		struct ib_rdma_wr wr = {
			.wr = {
				.wr_cqe = &n->cqe,
				.opcode = IB_WR_RDMA_WRITE,
				.sg_list = &sge,
				.num_sge = 1,
				.send_flags = IB_SEND_SIGNALED,
			},
			.remote_addr = env->remote_dma,
			.rkey = env->fx.pd->unsafe_global_rkey,
		};

		init_completion(&n->done);
		n->cqe.done = rwx_tdt_done;
		n->status = IB_WC_GENERAL_ERR;
		KUNIT_EXPECT_EQ(test, ib_post_send(qp, &wr.wr, NULL), 0);
		KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&n->done,
								  RWX_TDT_WAIT),
				0);
		KUNIT_EXPECT_EQ(test, n->status, IB_WC_SUCCESS);

		n->rcqe.done = rwx_tdt_flushed;
		KUNIT_EXPECT_EQ(test, ib_post_recv(qp, &(struct ib_recv_wr){
					.wr_cqe = &n->rcqe }, NULL), 0);
		ib_drain_qp(qp);
		KUNIT_EXPECT_EQ(test, atomic_read(&n->flushed), 1);
		KUNIT_EXPECT_EQ(test, rwx_tdt_qp_state(qp), IB_QPS_ERR);
	} else {
		KUNIT_FAIL(test, "QPs on the softirq CQ");
	}
	if (!IS_ERR_OR_NULL(qp))
		ib_destroy_qp(qp);
	if (!IS_ERR_OR_NULL(peer))
		ib_destroy_qp(peer);
	ib_free_cq(cq);
}

/* Each fault fires once, at the event it was armed for, and is reported. */
static void rwx_tdt_faults(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	const struct ib_send_wr *bad_wr;
	struct scatterlist sg[3];
	struct ib_rdma_wr wr[3];
	struct ib_mr *mr[3];
	struct ib_sge sge;
	u64 dma[3];
	u32 len[3] = { PAGE_SIZE, PAGE_SIZE, PAGE_SIZE };
	u32 i;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	sge = rwx_tdt_sge(env, 0, 64);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 3; i++) {
		wr[i].wr.wr_id = i + 1;
		wr[i].wr.opcode = IB_WR_RDMA_WRITE;
		wr[i].wr.sg_list = &sge;
		wr[i].wr.num_sge = 1;
		wr[i].wr.send_flags = IB_SEND_SIGNALED;
		wr[i].wr.next = i < 2 ? &wr[i + 1].wr : NULL;
		wr[i].remote_addr = env->remote_dma;
		wr[i].rkey = env->fx.pd->unsafe_global_rkey;
	}

	/* Disarmed: nothing fires. */
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_POST_SEND, 1);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_POST_SEND, 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[2].wr, NULL), 0);
	KUNIT_EXPECT_FALSE(test,
			   rwx_tdt_fired(env, RWX_TESTDEV_FAULT_POST_SEND));
	rwx_tdt_expect_one(test, 3, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);

	/* ib_post_send() at the second WR of a chain, then never again. */
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_POST_SEND, 2);
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[0].wr, &bad_wr),
			-ENOMEM);
	KUNIT_EXPECT_PTR_EQ(test, bad_wr, &wr[1].wr);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_POST_SEND));
	rwx_tdt_expect_one(test, 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[0].wr, NULL), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 3);

	/* The second MR allocation. */
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_ALLOC_MR, 2);
	for (i = 0; i < 3; i++)
		mr[i] = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_EXPECT_FALSE(test, IS_ERR(mr[0]));
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr[1]), -ENOMEM);
	KUNIT_EXPECT_FALSE(test, IS_ERR(mr[2]));
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_ALLOC_MR));
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr[0]));

	/* Mapping: a list longer than the MR maps what fits; short; fail. */
	for (i = 0; i < 3; i++)
		dma[i] = env->local_dma + 2 * i * PAGE_SIZE;
	rwx_tdt_sg(sg, 3, dma, len);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 3, NULL, PAGE_SIZE), 2);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 1);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 2, NULL, PAGE_SIZE), 1);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_SHORT));
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 2, NULL, PAGE_SIZE), 2);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_MAP_FAIL, 2);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_FALSE(test,
			   rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_FAIL));
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 2, NULL, PAGE_SIZE),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_FAIL));
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr[0], sg, 2, NULL, PAGE_SIZE), 2);
	ib_dereg_mr(mr[0]);
	if (!IS_ERR(mr[2]))
		ib_dereg_mr(mr[2]);

	/* The second WR executed fails; the third is flushed. */
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_WR_ERROR, 2);
	wr[1].wr.send_flags = 0;	/* fails all the same */
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr[0].wr, NULL), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 3);
	rwx_tdt_expect_wc(test, &env->wc[0], 1, IB_WC_SUCCESS,
			  IB_WC_RDMA_WRITE);
	rwx_tdt_expect_wc(test, &env->wc[1], 2, IB_WC_GENERAL_ERR,
			  IB_WC_RDMA_WRITE);
	rwx_tdt_expect_wc(test, &env->wc[2], 3, IB_WC_WR_FLUSH_ERR, 0);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_WR_ERROR));
	rwx_td_destroy_qp(&env->fx.qp);
}

/* Arms @fault at the next event in the PDs of @owner's module. */
static int rwx_tdt_arm(struct rwx_tdt_env *env, enum rwx_testdev_fault fault,
		       const char *owner)
{
	return rwx_testdev_inject_owned(env->fx.tdev, fault, 1, owner);
}

/*
 * A fault armed for one module counts only the events in that module's
 * PDs: armed for another, it never fires here; armed for this suite's PD,
 * it does.  What cannot be armed is refused.
 */
static void rwx_tdt_fault_owner(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	char long_name[MODULE_NAME_LEN + 1];
	struct scatterlist sg[2];
	struct ib_rdma_wr wr;
	const char *ours;
	struct ib_sge sge;
	struct ib_mr *mr;
	u32 len[2] = { PAGE_SIZE, PAGE_SIZE };
	u64 dma[2];

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	ours = env->fx.pd->res.kern_name;
	KUNIT_ASSERT_NOT_NULL(test, ours);
	mr = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	dma[0] = env->local_dma;
	dma[1] = env->local_dma + 2 * PAGE_SIZE;
	rwx_tdt_sg(sg, 2, dma, len);

	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_MAP_FAIL, "nvmet_rdma"), 0);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE), 2);
	KUNIT_EXPECT_FALSE(test, rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_FAIL));
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_MAP_FAIL, ours), 0);
	KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_FAIL));
	ib_dereg_mr(mr);

	sge = rwx_tdt_sge(env, 0, 64);
	wr = (struct ib_rdma_wr){
		.wr = { .wr_id = 1, .opcode = IB_WR_RDMA_WRITE,
			.sg_list = &sge, .num_sge = 1,
			.send_flags = IB_SEND_SIGNALED },
		.remote_addr = env->remote_dma,
		.rkey = env->fx.pd->unsafe_global_rkey,
	};
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_POST_SEND, "nvme_rdma"), 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), 0);
	KUNIT_EXPECT_FALSE(test, rwx_tdt_fired(env, RWX_TESTDEV_FAULT_POST_SEND));
	KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 1);
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_POST_SEND, ours), 0);
	KUNIT_EXPECT_EQ(test, ib_post_send(env->fx.qp, &wr.wr, NULL), -ENOMEM);
	KUNIT_EXPECT_TRUE(test, rwx_tdt_fired(env, RWX_TESTDEV_FAULT_POST_SEND));

	memset(long_name, 'x', MODULE_NAME_LEN);
	long_name[MODULE_NAME_LEN] = 0;
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_PI_WIRE, ours), -EINVAL);
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_FAULT_WR_ERROR, long_name), -EINVAL);
	KUNIT_EXPECT_EQ(test, rwx_tdt_arm(env, RWX_TESTDEV_NR_FAULTS, NULL), -EINVAL);
}

/* Recording keeps what was posted while it ran, as posted. */
static void rwx_tdt_record(struct kunit *test)
{
	struct rwx_tdt_env *env = test->priv;
	struct rwx_testdev_wr_rec *recs;
	struct ib_sge sge[2];
	struct ib_mr *mr;
	u64 dma;
	u32 len = PAGE_SIZE, n, rkey;
	struct scatterlist sg;

	rwx_tdt_setup(test, &rwx_tdt_ib_caps, 0);
	recs = kunit_kcalloc(test, 8, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	rkey = env->fx.pd->unsafe_global_rkey;
	sge[0] = rwx_tdt_sge(env, 0, 100);
	sge[1] = rwx_tdt_sge(env, 300, 200);
	mr = ib_alloc_mr(env->fx.pd, IB_MR_TYPE_MEM_REG, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	dma = env->local_dma + PAGE_SIZE;
	rwx_tdt_sg(&sg, 1, &dma, &len);
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);

	/* Not recording: not counted. */
	KUNIT_EXPECT_EQ(test, rwx_tdt_write(env, 0, 8, env->remote_dma, 1), 0);
	rwx_testdev_record_start(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, sge, 2,
					   env->remote_dma + 64, rkey, 2,
					   IB_SEND_SIGNALED), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, IB_ACCESS_LOCAL_WRITE,
					  IB_WR_REG_MR, 3, false), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_READ, sge, 1,
					   env->remote_dma + 128, rkey, 4, 0),
			0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_inv(env->fx.qp, mr->rkey, 5), 0);
	n = rwx_testdev_record_stop(env->fx.tdev, recs, 8);
	KUNIT_ASSERT_EQ(test, n, 4);
	KUNIT_EXPECT_EQ(test, rwx_tdt_write(env, 0, 8, env->remote_dma, 6), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 4);

	KUNIT_EXPECT_EQ(test, recs[0].qp_num, env->fx.qp->qp_num);
	KUNIT_EXPECT_EQ(test, recs[0].opcode, IB_WR_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, recs[0].send_flags, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, recs[0].wr_id, 2);
	KUNIT_EXPECT_EQ(test, recs[0].num_sge, 2);
	KUNIT_EXPECT_MEMEQ(test, recs[0].sge, sge, sizeof(sge));
	KUNIT_EXPECT_EQ(test, recs[0].remote_addr, env->remote_dma + 64);
	KUNIT_EXPECT_EQ(test, recs[0].rkey, rkey);
	KUNIT_EXPECT_EQ(test, recs[1].opcode, IB_WR_REG_MR);
	KUNIT_EXPECT_PTR_EQ(test, recs[1].reg_mr, mr);
	KUNIT_EXPECT_EQ(test, recs[1].reg_key, mr->rkey);
	KUNIT_EXPECT_EQ(test, recs[1].reg_access, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, recs[1].reg_iova, dma);
	KUNIT_EXPECT_EQ(test, recs[1].reg_length, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, recs[2].opcode, IB_WR_RDMA_READ);
	KUNIT_EXPECT_EQ(test, recs[2].send_flags, 0);
	KUNIT_EXPECT_EQ(test, recs[2].num_sge, 1);
	KUNIT_EXPECT_EQ(test, recs[2].remote_addr, env->remote_dma + 128);
	KUNIT_EXPECT_EQ(test, recs[3].opcode, IB_WR_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, recs[3].invalidate_rkey, mr->rkey);

	/* Starting again drops it all; stop may copy nothing. */
	rwx_testdev_record_start(env->fx.tdev);
	KUNIT_EXPECT_EQ(test, rwx_tdt_write(env, 0, 8, env->remote_dma, 7), 0);
	KUNIT_EXPECT_EQ(test, rwx_testdev_record_stop(env->fx.tdev, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, rwx_testdev_record_stop(env->fx.tdev, NULL, 0), 1);
	KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 1);
	ib_dereg_mr(mr);
}

/*
 * rdma_rw on the device: a READ of three entries with max_sgl_rd 1 goes
 * through an MR of the QP's pool (REG_MR, READ; LOCAL_INV on reuse).
 */
static void rwx_tdt_rw_mr(struct kunit *test)
{
	static const struct rwx_testdev_caps caps = {
		.max_send_sge = 4,
		.max_sge_rd = 4,
		.max_sgl_rd = 1,
		.max_fast_reg_page_list_len = 8,
	};
	static const struct ib_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 1,
		.max_send_sge = 4, .max_recv_sge = 1, .max_rdma_ctxs = 1,
	};
	struct rwx_tdt_env *env = test->priv;
	struct rwx_testdev_counts counts;
	struct scatterlist sg[3];
	struct rdma_rw_ctx ctx;
	struct ib_cqe cqe = {};
	u32 round;
	int ret;

	rwx_tdt_setup(test, &caps, 0);
	rwx_td_destroy_qp(&env->fx.qp);
	rwx_td_destroy_qp(&env->fx.peer);
	env->fx.qp = rwx_testdev_create_qp(env->fx.pd, env->fx.cq, 0, &cap);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.qp);
	rwx_testdev_counts(env->fx.tdev, &counts);
	KUNIT_EXPECT_EQ(test, counts.mrs, 2);	/* pool + global rkey */
	env->fx.peer = rwx_tdt_create_qp(env, env->fx.cq, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.peer);
	KUNIT_ASSERT_EQ(test, rwx_testdev_connect(env->fx.qp, env->fx.peer), 0);

	/* Entries an MR maps whole: they meet at page boundaries. */
	for (round = 0; round < 2; round++) {
		get_random_bytes(env->remote, 3 * PAGE_SIZE);
		memset(env->extra, 0, RWX_TDT_BUF_LEN);
		sg_init_table(sg, 3);
		sg_set_buf(&sg[0], env->extra + 512, PAGE_SIZE - 512);
		sg_set_buf(&sg[1], env->extra + PAGE_SIZE, PAGE_SIZE);
		sg_set_buf(&sg[2], env->extra + 2 * PAGE_SIZE, 1000);
		ret = rdma_rw_ctx_init(&ctx, env->fx.qp, 1, sg, 3, 0,
				       env->remote_dma, env->fx.pd->unsafe_global_rkey,
				       DMA_FROM_DEVICE);
		KUNIT_ASSERT_EQ(test, ret, round ? 3 : 2);
		KUNIT_EXPECT_EQ(test, rdma_rw_ctx_post(&ctx, env->fx.qp, 1, &cqe,
						       NULL), 0);
		KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 1);
		KUNIT_EXPECT_PTR_EQ(test, env->wc[0].wr_cqe, &cqe);
		KUNIT_EXPECT_EQ(test, env->wc[0].status, IB_WC_SUCCESS);
		rdma_rw_ctx_destroy(&ctx, env->fx.qp, 1, sg, 3, DMA_FROM_DEVICE);
		KUNIT_EXPECT_MEMEQ(test, env->extra + 512, env->remote,
				   2 * PAGE_SIZE - 512 + 1000);
		KUNIT_EXPECT_NULL(test, memchr_inv(env->extra, 0, 512));
	}
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 1);
	rwx_td_destroy_qp(&env->fx.qp);
}

/* Integrity: PI computed here, independently of the device. */

/* Both oracles agree with the T10-DIF check value and with the kernel. */
static void rwx_tdt_pi_oracle(struct kunit *test)
{
	rwx_t10_oracle_check(test);
}

struct rwx_tdt_pi_case {
	const char *name;
	enum ib_signature_type mem, wire;
	enum ib_t10_dif_bg_type bg_type;
	u16 interval;
	u32 blocks;
	bool meta;		/* memory PI in a list of its own */
};

#define DIF	IB_SIG_TYPE_T10_DIF
#define NONE	IB_SIG_TYPE_NONE
#define CRC	IB_T10DIF_CRC
#define CSUM	IB_T10DIF_CSUM

static const struct rwx_tdt_pi_case rwx_tdt_pi_cases[] = {
	{ "dif-dif-512-meta", DIF, DIF, CRC, 512, 9, true },
	{ "dif-dif-512-interleaved", DIF, DIF, CRC, 512, 9, false },
	{ "dif-dif-4096-meta", DIF, DIF, CRC, 4096, 3, true },
	{ "dif-dif-4096-interleaved", DIF, DIF, CRC, 4096, 2, false },
	{ "dif-dif-512-csum", DIF, DIF, CSUM, 512, 5, true },
	{ "none-dif-512", NONE, DIF, CRC, 512, 9, false },
	{ "none-dif-4096", NONE, DIF, CRC, 4096, 2, false },
	{ "dif-none-512-meta", DIF, NONE, CRC, 512, 9, true },
	{ "dif-none-512-interleaved", DIF, NONE, CRC, 512, 5, false },
	{ "dif-none-4096-meta", DIF, NONE, CRC, 4096, 2, true },
	{ "dif-none-4096-interleaved", DIF, NONE, CSUM, 4096, 2, false },
};

#undef DIF
#undef NONE
#undef CRC
#undef CSUM

static void rwx_tdt_pi_desc(const struct rwx_tdt_pi_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rwx_tdt_pi, rwx_tdt_pi_cases, rwx_tdt_pi_desc);

static bool rwx_tdt_has_pi(enum ib_signature_type type)
{
	return type == IB_SIG_TYPE_T10_DIF;
}

/* Different reference tag bases in the two domains: passing translates. */
static void rwx_tdt_domain(struct ib_sig_domain *d, enum ib_signature_type type,
			   const struct rwx_tdt_pi_case *c, u32 ref_base)
{
	struct ib_t10_dif_domain *dif = &d->sig.dif;

	memset(d, 0, sizeof(*d));
	d->sig_type = type;
	if (!rwx_tdt_has_pi(type))
		return;
	dif->bg_type = c->bg_type;
	dif->pi_interval = c->interval;
	dif->app_tag = 0x5a5a;
	dif->ref_tag = ref_base;
	dif->ref_remap = true;
	dif->app_escape = true;
	dif->ref_escape = true;
	dif->apptag_check_mask = 0xffff;
}

static void rwx_tdt_attrs(struct ib_sig_attrs *attrs,
			  const struct rwx_tdt_pi_case *c)
{
	memset(attrs, 0, sizeof(*attrs));
	attrs->check_mask = IB_SIG_CHECK_GUARD | IB_SIG_CHECK_APPTAG |
			    IB_SIG_CHECK_REFTAG;
	rwx_tdt_domain(&attrs->mem, c->mem, c, 0x100);
	rwx_tdt_domain(&attrs->wire, c->wire, c, 0x7000);
}

/* Blocks followed by their tuples in @domain; returns its length. */
static u32 rwx_tdt_image(const struct rwx_tdt_pi_case *c, const u8 *blocks,
			 const struct ib_sig_domain *domain, u8 *out)
{
	u8 *p = out;
	u32 i;

	for (i = 0; i < c->blocks; i++) {
		memcpy(p, blocks + i * c->interval, c->interval);
		p += c->interval;
		if (rwx_tdt_has_pi(domain->sig_type)) {
			rwx_t10_tuple(&domain->sig.dif, blocks + i * c->interval,
				      i, (struct t10_pi_tuple *)p);
			p += RWX_TDT_PI;
		}
	}
	return p - out;
}

static u32 rwx_tdt_data_len(const struct rwx_tdt_pi_case *c)
{
	bool interleaved = rwx_tdt_has_pi(c->mem) && !c->meta;

	return c->blocks * (c->interval + (interleaved ? RWX_TDT_PI : 0));
}

static u32 rwx_tdt_wire_len(const struct rwx_tdt_pi_case *c)
{
	return c->blocks * (c->interval +
			    (rwx_tdt_has_pi(c->wire) ? RWX_TDT_PI : 0));
}

/* Where the data list starts in the local buffer: not page aligned. */
#define RWX_TDT_DATA_OFF	256

/*
 * Sets @attrs and maps the case's lists into @mr (rw.c's order; nvme-rdma
 * sets the attributes after mapping, as rwx_tdt_pi_refused() does): the
 * data list at RWX_TDT_DATA_OFF of the buffer at @base in two entries
 * meeting at a page boundary (when it spans pages), the PI list at
 * RWX_TDT_META_OFF.
 */
static int rwx_tdt_pi_map_at(u64 base, struct ib_mr *mr,
			     const struct rwx_tdt_pi_case *c,
			     const struct ib_sig_attrs *attrs)
{
	u32 len = rwx_tdt_data_len(c), first = PAGE_SIZE - RWX_TDT_DATA_OFF;
	struct scatterlist dsg[2], msg;
	u32 dlen[2], mlen;
	u64 ddma[2], mdma;
	u32 dn = 1;

	ddma[0] = base + RWX_TDT_DATA_OFF;
	dlen[0] = len;
	if (len > first) {
		dlen[0] = first;
		ddma[1] = base + PAGE_SIZE;
		dlen[1] = len - first;
		dn = 2;
	}
	rwx_tdt_sg(dsg, dn, ddma, dlen);
	mdma = base + RWX_TDT_META_OFF;
	mlen = c->blocks * RWX_TDT_PI;
	rwx_tdt_sg(&msg, 1, &mdma, &mlen);

	*mr->sig_attrs = *attrs;
	return ib_map_mr_sg_pi(mr, dsg, dn, NULL, c->meta ? &msg : NULL,
			       c->meta ? 1 : 0, NULL, SZ_4K);
}

static int rwx_tdt_pi_map(struct rwx_tdt_env *env, struct ib_mr *mr,
			  const struct rwx_tdt_pi_case *c,
			  const struct ib_sig_attrs *attrs)
{
	return rwx_tdt_pi_map_at(env->local_dma, mr, c, attrs);
}

/*
 * The SGE rdma_rw_ctx_signature_init() posts for the case: both lists,
 * less the PI list when the wire carries no PI.
 */
static u32 rwx_tdt_sge_len(const struct rwx_tdt_pi_case *c)
{
	bool wire_pi = rwx_tdt_has_pi(c->wire);

	return rwx_tdt_data_len(c) +
	       (c->meta && wire_pi ? c->blocks * RWX_TDT_PI : 0);
}

/*
 * REG_MR_INTEGRITY, the RDMA WRITE or READ of the wire image through the
 * MR, LOCAL_INV; then the MR's signature status into @st.
 */
static void rwx_tdt_pi_move(struct kunit *test, struct ib_mr *mr,
			    enum ib_wr_opcode opcode, u32 sge_len,
			    struct ib_mr_status *st)
{
	struct rwx_tdt_env *env = test->priv;
	struct ib_sge sge;

	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, IB_ACCESS_LOCAL_WRITE,
					  IB_WR_REG_MR_INTEGRITY, 1, false), 0);
	sge.addr = mr->iova;
	sge.length = sge_len;
	sge.lkey = mr->lkey;
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, opcode, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 2,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_inv(env->fx.qp, mr->lkey, 3), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 2, IB_WC_SUCCESS,
			  opcode == IB_WR_RDMA_WRITE ? IB_WC_RDMA_WRITE :
						       IB_WC_RDMA_READ);
	rwx_tdt_expect_wc(test, &env->wc[1], 3, IB_WC_SUCCESS, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(mr, IB_MR_CHECK_SIG_STATUS,
						 st), 0);
}

/* Local memory as a ULP fills it for a WRITE: the blocks and their PI. */
static void rwx_tdt_pi_fill(struct rwx_tdt_env *env,
			    const struct rwx_tdt_pi_case *c,
			    const struct ib_sig_attrs *attrs, const u8 *blocks)
{
	u8 *data = env->local + RWX_TDT_DATA_OFF;
	u32 i;

	if (!c->meta) {
		rwx_tdt_image(c, blocks, &attrs->mem, data);
		return;
	}
	memcpy(data, blocks, c->blocks * c->interval);
	for (i = 0; i < c->blocks; i++)
		rwx_t10_tuple(&attrs->mem.sig.dif, blocks + i * c->interval, i,
			      (struct t10_pi_tuple *)(env->local +
						      RWX_TDT_META_OFF) + i);
}

/*
 * One shape: the MR's geometry, then WRITE (memory with correct PI to
 * the wire image) and READ (the wire image into zeroed memory), byte-exact
 * against PI computed here, with no signature error.
 */
static void rwx_tdt_pi_data(struct kunit *test)
{
	const struct rwx_tdt_pi_case *c = test->param_value;
	struct rwx_tdt_env *env = test->priv;
	u32 wire_len = rwx_tdt_wire_len(c), len, i;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	u8 *blocks, *image;
	struct ib_mr *mr;

	rwx_tdt_setup(test, &rwx_tdt_pi_caps, IB_QP_CREATE_INTEGRITY_EN);
	blocks = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	image = kunit_kmalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blocks);
	KUNIT_ASSERT_NOT_NULL(test, image);
	get_random_bytes(blocks, c->blocks * c->interval);
	rwx_tdt_attrs(&attrs, c);
	mr = ib_alloc_mr_integrity(env->fx.pd, 4, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);

	/* The geometry mlx5 reports: the lists' bytes, zero-based. */
	KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map(env, mr, c, &attrs), 0);
	KUNIT_EXPECT_EQ(test, mr->iova, 0);
	KUNIT_EXPECT_EQ(test, mr->sig_attrs->meta_length,
			c->meta ? c->blocks * RWX_TDT_PI : 0);
	KUNIT_EXPECT_EQ(test, mr->length,
			(u64)rwx_tdt_data_len(c) + mr->sig_attrs->meta_length);

	/* WRITE: the wire image, from an SGE as rw.c makes it. */
	rwx_tdt_pi_fill(env, c, &attrs, blocks);
	memset(env->remote, 0, RWX_TDT_BUF_LEN);
	rwx_tdt_pi_move(test, mr, IB_WR_RDMA_WRITE, rwx_tdt_sge_len(c), &st);
	KUNIT_EXPECT_EQ(test, st.fail_status, 0);
	len = rwx_tdt_image(c, blocks, &attrs.wire, image);
	KUNIT_EXPECT_EQ(test, len, wire_len);
	KUNIT_EXPECT_MEMEQ_MSG(test, env->remote, image, wire_len,
			       "%s: wire image", c->name);
	KUNIT_EXPECT_NULL(test, memchr_inv(env->remote + wire_len, 0,
					   RWX_TDT_BUF_LEN - wire_len));

	/* READ into zeroed memory. */
	memset(env->local, 0, RWX_TDT_BUF_LEN);
	memcpy(env->remote, image, wire_len);
	KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map(env, mr, c, &attrs), 0);
	rwx_tdt_pi_move(test, mr, IB_WR_RDMA_READ, rwx_tdt_sge_len(c), &st);
	KUNIT_EXPECT_EQ(test, st.fail_status, 0);
	if (!c->meta) {
		len = rwx_tdt_image(c, blocks, &attrs.mem, image);
		KUNIT_EXPECT_EQ(test, len, rwx_tdt_data_len(c));
		KUNIT_EXPECT_MEMEQ_MSG(test, env->local + RWX_TDT_DATA_OFF,
				       image, len, "%s: memory image", c->name);
	} else {
		KUNIT_EXPECT_MEMEQ_MSG(test, env->local + RWX_TDT_DATA_OFF,
				       blocks, c->blocks * c->interval,
				       "%s: data", c->name);
		for (i = 0; i < c->blocks; i++) {
			struct t10_pi_tuple want;

			rwx_t10_tuple(&attrs.mem.sig.dif,
				      blocks + i * c->interval, i, &want);
			KUNIT_EXPECT_MEMEQ_MSG(test, env->local +
					       RWX_TDT_META_OFF + i * RWX_TDT_PI,
					       &want, RWX_TDT_PI,
					       "%s: PI of block %u", c->name, i);
		}
	}
	KUNIT_EXPECT_NULL(test, memchr_inv(env->local, 0, RWX_TDT_DATA_OFF));
	ib_dereg_mr(mr);
}

enum rwx_tdt_damage {
	RWX_TDT_DATA,		/* a data byte flipped */
	RWX_TDT_GUARD,		/* the guard flipped */
	RWX_TDT_REF,		/* the reference tag off by one */
	RWX_TDT_APP,		/* the application tag changed */
	RWX_TDT_ESCAPED,	/* app tag 0xffff and a bad guard: skipped */
	RWX_TDT_UNCHECKED,	/* a bad ref tag, with only the guard checked */
};

/*
 * Damages block @block of an interleaved image; returns the value the
 * check expects and sets the one it finds.
 */
static u32 rwx_tdt_damage(const struct rwx_tdt_pi_case *c,
			  const struct ib_t10_dif_domain *dif, u8 *image,
			  u32 block, enum rwx_tdt_damage damage, u32 *actual)
{
	u8 *data = image + block * (c->interval + RWX_TDT_PI);
	struct t10_pi_tuple *pi = (struct t10_pi_tuple *)(data + c->interval);

	*actual = 0;
	switch (damage) {
	case RWX_TDT_DATA:
		data[7] ^= 0x10;
		*actual = be16_to_cpu(pi->guard_tag);
		return rwx_t10_guard(dif, data);
	case RWX_TDT_GUARD:
		pi->guard_tag ^= cpu_to_be16(0x0001);
		*actual = be16_to_cpu(pi->guard_tag);
		return rwx_t10_guard(dif, data);
	case RWX_TDT_REF:
	case RWX_TDT_UNCHECKED:
		*actual = be32_to_cpu(pi->ref_tag) + 1;
		pi->ref_tag = cpu_to_be32(*actual);
		return *actual - 1;
	case RWX_TDT_APP:
		*actual = 0x5a5b;
		pi->app_tag = cpu_to_be16(*actual);
		return 0x5a5a;
	case RWX_TDT_ESCAPED:
		pi->app_tag = cpu_to_be16(0xffff);
		pi->guard_tag ^= cpu_to_be16(0x0100);
		break;
	}
	return 0;
}

static const enum ib_sig_err_type rwx_tdt_err_of[] = {
	[RWX_TDT_DATA] = IB_SIG_BAD_GUARD,
	[RWX_TDT_GUARD] = IB_SIG_BAD_GUARD,
	[RWX_TDT_REF] = IB_SIG_BAD_REFTAG,
	[RWX_TDT_APP] = IB_SIG_BAD_APPTAG,
};

static void rwx_tdt_expect_sig(struct kunit *test, struct ib_mr *mr,
			       const struct rwx_tdt_pi_case *c,
			       const struct ib_mr_status *st,
			       enum rwx_tdt_damage damage, u32 block,
			       u32 expected, u32 actual, const char *what)
{
	struct ib_mr_status again;

	if (damage >= RWX_TDT_ESCAPED) {
		KUNIT_EXPECT_EQ_MSG(test, st->fail_status, 0, "%s", what);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, st->fail_status, IB_MR_CHECK_SIG_STATUS,
			    "%s: not reported", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.err_type, rwx_tdt_err_of[damage],
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.sig_err_offset,
			    (u64)block * (c->interval + RWX_TDT_PI), "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.expected, expected, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.actual, actual, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.key, mr->lkey, "%s", what);
	/* Reported once. */
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(mr, IB_MR_CHECK_SIG_STATUS,
						 &again), 0);
	KUNIT_EXPECT_EQ_MSG(test, again.fail_status, 0, "%s: again", what);
}

/*
 * Damaged PI, found where a HCA finds it: on a READ in the wire image, on
 * a WRITE in memory.  The data still moves; the error names the block.
 */
static void rwx_tdt_pi_errors(struct kunit *test)
{
	static const struct rwx_tdt_pi_case c = {
		"errors", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF,
		IB_T10DIF_CRC, 512, 8, false
	};
	struct rwx_tdt_env *env = test->priv;
	u32 expected, actual, block;
	enum rwx_tdt_damage damage;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	char what[48];
	u8 *blocks;
	struct ib_mr *mr;

	rwx_tdt_setup(test, &rwx_tdt_pi_caps, IB_QP_CREATE_INTEGRITY_EN);
	blocks = kunit_kmalloc(test, c.blocks * c.interval, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blocks);
	mr = ib_alloc_mr_integrity(env->fx.pd, 4, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);

	for (damage = RWX_TDT_DATA; damage <= RWX_TDT_UNCHECKED; damage++) {
		block = 1 + damage;
		get_random_bytes(blocks, c.blocks * c.interval);
		rwx_tdt_attrs(&attrs, &c);
		if (damage == RWX_TDT_UNCHECKED)
			attrs.check_mask = IB_SIG_CHECK_GUARD;

		snprintf(what, sizeof(what), "READ, damage %d", damage);
		rwx_tdt_image(&c, blocks, &attrs.wire, env->remote);
		expected = rwx_tdt_damage(&c, &attrs.wire.sig.dif, env->remote,
					  block, damage, &actual);
		KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map(env, mr, &c, &attrs), 0);
		rwx_tdt_pi_move(test, mr, IB_WR_RDMA_READ, rwx_tdt_sge_len(&c),
				&st);
		rwx_tdt_expect_sig(test, mr, &c, &st, damage, block, expected,
				   actual, what);
		/* The data moved all the same. */
		KUNIT_EXPECT_MEMEQ(test, env->local + RWX_TDT_DATA_OFF,
				   env->remote, c.interval);

		snprintf(what, sizeof(what), "WRITE, damage %d", damage);
		rwx_tdt_pi_fill(env, &c, &attrs, blocks);
		expected = rwx_tdt_damage(&c, &attrs.mem.sig.dif,
					  env->local + RWX_TDT_DATA_OFF, block,
					  damage, &actual);
		KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map(env, mr, &c, &attrs), 0);
		rwx_tdt_pi_move(test, mr, IB_WR_RDMA_WRITE, rwx_tdt_sge_len(&c),
				&st);
		rwx_tdt_expect_sig(test, mr, &c, &st, damage, block, expected,
				   actual, what);
		KUNIT_EXPECT_MEMEQ(test, env->remote + block * (c.interval + 8),
				   env->local + RWX_TDT_DATA_OFF +
				   block * (c.interval + 8), c.interval);
	}
	ib_dereg_mr(mr);
}

static int rwx_tdt_map_pi(struct ib_mr *mr, struct scatterlist *dsg, int dn,
			  struct scatterlist *msg)
{
	return ib_map_mr_sg_pi(mr, dsg, dn, NULL, msg, msg ? 1 : 0, NULL,
			       SZ_4K);
}

/*
 * Posts REG_MR_INTEGRITY of @mr with @attrs set, expecting it refused at
 * post (-EINVAL) with nothing queued and the MR not VALID.
 */
static void rwx_tdt_reg_refused(struct kunit *test, struct ib_mr *mr,
				const struct ib_sig_attrs *attrs,
				const char *what)
{
	struct rwx_tdt_env *env = test->priv;

	*mr->sig_attrs = *attrs;
	KUNIT_EXPECT_EQ_MSG(test, rwx_tdt_reg(env->fx.qp, mr,
					      IB_ACCESS_LOCAL_WRITE,
					      IB_WR_REG_MR_INTEGRITY, 1, true),
			    -EINVAL, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, rwx_tdt_poll(env), 0, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, rwx_tdt_valid_mrs(env), 0, "%s", what);
}

/*
 * What an integrity MR refuses, and when, as on mlx5: map_mr_sg_pi()
 * lists longer than the MR (-ENOMEM) and its faults, whatever the
 * attributes; posting REG_MR_INTEGRITY (-EINVAL) malformed attributes and
 * lists that do not match them, data of no whole number of intervals
 * among them; a local SGE that is not the one rw.c makes; no integrity
 * without handover.
 */
static void rwx_tdt_pi_refused(struct kunit *test)
{
	static const struct rwx_tdt_pi_case c = {
		"refused", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF,
		IB_T10DIF_CRC, 512, 4, true
	};
	struct rwx_tdt_env *env = test->priv;
	struct ib_sig_attrs attrs, bad;
	struct scatterlist dsg[3], msg;
	u64 ddma[3], mdma;
	u32 dlen[3], mlen;
	struct ib_sge sge;
	struct ib_mr *mr;
	u32 i;

	rwx_tdt_setup(test, &rwx_tdt_pi_caps, IB_QP_CREATE_INTEGRITY_EN);
	KUNIT_EXPECT_TRUE(test, env->fx.dev->attrs.kernel_cap_flags &
			  IBK_INTEGRITY_HANDOVER);
	mr = ib_alloc_mr_integrity(env->fx.pd, 9, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EINVAL);
	mr = ib_alloc_mr_integrity(env->fx.pd, 2, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	rwx_tdt_attrs(&attrs, &c);
	mdma = env->local_dma + RWX_TDT_META_OFF;
	mlen = 32;
	rwx_tdt_sg(&msg, 1, &mdma, &mlen);
	ddma[0] = env->local_dma;
	dlen[0] = 2048;
	rwx_tdt_sg(dsg, 1, ddma, dlen);

	/* Attributes are not read at map time: these all map. */
	memset(mr->sig_attrs, 0, sizeof(*mr->sig_attrs));
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), 0);
	KUNIT_EXPECT_EQ(test, mr->length, 2048 + 32);
	KUNIT_EXPECT_EQ(test, mr->sig_attrs->meta_length, 32);
	bad = attrs;
	bad.mem.sig_type = IB_SIG_TYPE_NONE;
	bad.wire.sig_type = IB_SIG_TYPE_NONE;
	rwx_tdt_reg_refused(test, mr, &bad, "neither domain T10-DIF");
	bad = attrs;
	bad.wire.sig.dif.pi_interval = 520;
	rwx_tdt_reg_refused(test, mr, &bad, "interval 520");
	bad = attrs;
	bad.wire.sig.dif.pi_interval = 4096;
	rwx_tdt_reg_refused(test, mr, &bad, "intervals differ");
	bad = attrs;
	bad.mem.sig_type = IB_SIG_TYPE_NONE;
	rwx_tdt_reg_refused(test, mr, &bad, "a PI list, memory NONE");

	mlen = 24;	/* PI for 3 of 4 blocks */
	rwx_tdt_sg(&msg, 1, &mdma, &mlen);
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), 0);
	rwx_tdt_reg_refused(test, mr, &attrs, "PI for 3 of 4 blocks");
	mlen = 32;
	rwx_tdt_sg(&msg, 1, &mdma, &mlen);
	dlen[0] = 2000;	/* not whole intervals */
	rwx_tdt_sg(dsg, 1, ddma, dlen);
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), 0);
	rwx_tdt_reg_refused(test, mr, &attrs, "not whole intervals");
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, NULL), 0);
	rwx_tdt_reg_refused(test, mr, &attrs,
			    "not whole interleaved intervals");
	for (i = 0; i < 3; i++) {	/* three pages, the MR holds two */
		ddma[i] = env->local_dma + 2 * i * PAGE_SIZE;
		dlen[i] = PAGE_SIZE;
	}
	rwx_tdt_sg(dsg, 3, ddma, dlen);
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 3, NULL), -ENOMEM);

	dlen[0] = 2048;
	rwx_tdt_sg(dsg, 1, ddma, dlen);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 1);
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), -ENOMEM);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_SHORT));
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_MAP_FAIL, 1);
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), -EINVAL);
	KUNIT_EXPECT_TRUE(test,
			  rwx_tdt_fired(env, RWX_TESTDEV_FAULT_MAP_FAIL));
	KUNIT_EXPECT_EQ(test, rwx_tdt_map_pi(mr, dsg, 1, &msg), 0);
	*mr->sig_attrs = attrs;

	/* A local SGE that is not the one rw.c makes. */
	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, IB_ACCESS_LOCAL_WRITE,
					  IB_WR_REG_MR_INTEGRITY, 1, true), 0);
	sge.addr = 0;
	sge.length = rwx_tdt_wire_len(&c) - 8;
	sge.lkey = mr->lkey;
	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, IB_WR_RDMA_WRITE, &sge, 1,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, 2,
					   IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 2);
	rwx_tdt_expect_wc(test, &env->wc[0], 1, IB_WC_SUCCESS, IB_WC_REG_MR);
	rwx_tdt_expect_wc(test, &env->wc[1], 2, IB_WC_LOC_PROT_ERR,
			  IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 1);
	rwx_td_destroy_qp(&env->fx.qp);
	ib_dereg_mr(mr);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);

	/* REG_MR_INTEGRITY needs a QP with integrity. */
	rwx_tdt_pair(test, 0);
	mr = ib_alloc_mr_integrity(env->fx.pd, 2, 2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, rwx_tdt_reg(env->fx.qp, mr, IB_ACCESS_LOCAL_WRITE,
					  IB_WR_REG_MR_INTEGRITY, 1, true),
			-EINVAL);
	ib_dereg_mr(mr);
}

/* An RDMA READ or WRITE of @sge at the whole of @rkey's MR; its status. */
static enum ib_wc_status rwx_tdt_rdma_status(struct kunit *test,
					     enum ib_wr_opcode opcode,
					     struct ib_sge *sge, u64 raddr,
					     u32 rkey)
{
	struct rwx_tdt_env *env = test->priv;

	KUNIT_ASSERT_EQ(test, rwx_tdt_rdma(env->fx.qp, opcode, sge, 1, raddr,
					   rkey, 7, IB_SEND_SIGNALED), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_poll(env), 1);
	return env->wc[0].status;
}

/* @mr's signature status: the error type, or 0 when none. */
static int rwx_tdt_sig_err(struct kunit *test, struct ib_mr *mr,
			   u64 *offset)
{
	struct ib_mr_status st;

	KUNIT_EXPECT_EQ(test, ib_check_mr_status(mr, IB_MR_CHECK_SIG_STATUS,
						 &st), 0);
	if (!(st.fail_status & IB_MR_CHECK_SIG_STATUS))
		return 0;
	*offset = st.sig_err.sig_err_offset;
	return st.sig_err.err_type;
}

/*
 * An integrity MR at the remote end, as an NVMe-oF initiator's is to its
 * target: the target READs the initiator's data and PI through both MRs
 * (and a plain buffer takes the bare wire image), then WRITEs it back;
 * a damaged guard in the initiator's memory is reported by both MRs and
 * the data still moves, one damaged on the wire (the device's fault) by
 * the receiving MR alone; an access that is not the whole wire image from
 * 0 is a remote access error.
 */
static void rwx_tdt_pi_remote(struct kunit *test)
{
	static const struct rwx_tdt_pi_case c = {
		"remote", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF,
		IB_T10DIF_CRC, 512, 6, true
	};
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	struct rwx_tdt_env *env = test->priv;
	u32 wire_len = rwx_tdt_wire_len(&c);
	struct ib_mr *host, *target;
	struct ib_sig_attrs attrs;
	struct t10_pi_tuple *pi;
	struct ib_sge sge;
	u8 *blocks, *image;
	u64 offset = 0;

	rwx_tdt_setup(test, &rwx_tdt_pi_caps, IB_QP_CREATE_INTEGRITY_EN);
	blocks = kunit_kmalloc(test, c.blocks * c.interval, GFP_KERNEL);
	image = kunit_kmalloc(test, wire_len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, blocks);
	KUNIT_ASSERT_NOT_NULL(test, image);
	get_random_bytes(blocks, c.blocks * c.interval);
	rwx_tdt_attrs(&attrs, &c);
	rwx_tdt_image(&c, blocks, &attrs.wire, image);
	host = ib_alloc_mr_integrity(env->fx.pd, 4, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, host);
	target = ib_alloc_mr_integrity(env->fx.pd, 4, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, target);

	/* The initiator's memory is the local buffer, the target's the remote. */
	rwx_tdt_pi_fill(env, &c, &attrs, blocks);
	memset(env->remote, 0, RWX_TDT_BUF_LEN);
	KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map(env, host, &c, &attrs), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_pi_map_at(env->remote_dma, target, &c,
						&attrs), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, host, access,
					  IB_WR_REG_MR_INTEGRITY, 1, false), 0);
	KUNIT_ASSERT_EQ(test, rwx_tdt_reg(env->fx.qp, target, access,
					  IB_WR_REG_MR_INTEGRITY, 2, false), 0);

	/* READ through both MRs: the target's memory gets data and PI. */
	sge = (struct ib_sge){ .length = rwx_tdt_sge_len(&c),
			       .lkey = target->lkey };
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_READ, &sge,
						  0, host->rkey),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, env->remote + RWX_TDT_DATA_OFF, blocks,
			   c.blocks * c.interval);
	KUNIT_EXPECT_MEMEQ(test, env->remote + RWX_TDT_META_OFF,
			   env->local + RWX_TDT_META_OFF,
			   c.blocks * RWX_TDT_PI);
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, host, &offset), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, target, &offset), 0);

	/* READ into a plain buffer: the wire image itself. */
	sge = rwx_tdt_sge(env, RWX_TDT_META_OFF / 2, wire_len);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_READ, &sge,
						  0, host->rkey),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, env->local + RWX_TDT_META_OFF / 2, image,
			   wire_len);

	/* WRITE back through both MRs into zeroed initiator memory. */
	memset(env->local + RWX_TDT_DATA_OFF, 0, c.blocks * c.interval);
	memset(env->local + RWX_TDT_META_OFF, 0, c.blocks * RWX_TDT_PI);
	sge = (struct ib_sge){ .length = rwx_tdt_sge_len(&c),
			       .lkey = target->lkey };
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_WRITE, &sge,
						  0, host->rkey),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_MEMEQ(test, env->local + RWX_TDT_DATA_OFF, blocks,
			   c.blocks * c.interval);
	KUNIT_EXPECT_MEMEQ(test, env->local + RWX_TDT_META_OFF,
			   env->remote + RWX_TDT_META_OFF,
			   c.blocks * RWX_TDT_PI);

	/* A damaged guard in the initiator's memory: both MRs report it. */
	pi = (struct t10_pi_tuple *)(env->local + RWX_TDT_META_OFF) + 2;
	pi->guard_tag ^= cpu_to_be16(0x0004);
	memset(env->remote + RWX_TDT_DATA_OFF, 0, c.blocks * c.interval);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_READ, &sge,
						  0, host->rkey),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, host, &offset),
			IB_SIG_BAD_GUARD);
	KUNIT_EXPECT_EQ(test, offset, 2 * (c.interval + RWX_TDT_PI));
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, target, &offset),
			IB_SIG_BAD_GUARD);
	KUNIT_EXPECT_EQ(test, offset, 2 * (c.interval + RWX_TDT_PI));
	KUNIT_EXPECT_MEMEQ(test, env->remote + RWX_TDT_DATA_OFF, blocks,
			   c.blocks * c.interval);

	/* Damaged on the wire (the fault): the receiving MR reports it. */
	pi->guard_tag ^= cpu_to_be16(0x0004);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_PI_WIRE, 1);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_READ, &sge,
						  0, host->rkey),
			IB_WC_SUCCESS);
	KUNIT_EXPECT_TRUE(test, rwx_tdt_fired(env, RWX_TESTDEV_FAULT_PI_WIRE));
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, host, &offset), 0);
	KUNIT_EXPECT_EQ(test, rwx_tdt_sig_err(test, target, &offset),
			IB_SIG_BAD_GUARD);
	KUNIT_EXPECT_EQ(test, offset, 0);

	/* Not the whole image from 0: a remote access error. */
	sge = rwx_tdt_sge(env, RWX_TDT_META_OFF / 2, wire_len - 8);
	KUNIT_EXPECT_EQ(test, rwx_tdt_rdma_status(test, IB_WR_RDMA_READ, &sge,
						  0, host->rkey),
			IB_WC_REM_ACCESS_ERR);
	rwx_td_destroy_qp(&env->fx.qp);
	ib_dereg_mr(target);
	ib_dereg_mr(host);
	KUNIT_EXPECT_EQ(test, rwx_tdt_valid_mrs(env), 0);
}

/*
 * ib_core's rdma_rw_ctx_signature_init() on the device: its signature
 * pool comes from alloc_mr_integrity, it sets the attributes after
 * mapping, and the chain it posts moves the wire image - with PI passed
 * from a protection list, and inserted from data alone (its SGE then
 * shorter than the image).
 */
static void rwx_tdt_pi_rw(struct kunit *test)
{
	static const struct rwx_tdt_pi_case cases[] = {
		{ "rw-pass", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF,
		  IB_T10DIF_CRC, 512, 6, true },
		{ "rw-insert", IB_SIG_TYPE_NONE, IB_SIG_TYPE_T10_DIF,
		  IB_T10DIF_CRC, 512, 6, false },
	};
	static const struct ib_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1, .max_rdma_ctxs = 1,
	};
	struct rwx_tdt_env *env = test->priv;
	const struct rwx_tdt_pi_case *c;
	struct scatterlist sg, prot;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	struct rdma_rw_ctx ctx;
	struct ib_cqe cqe = {};
	u32 round, i, wire_len, uses = 0;
	u8 *blocks, *image, *pi;
	int ret;

	rwx_tdt_setup(test, &rwx_tdt_pi_caps, 0);
	rwx_td_destroy_qp(&env->fx.qp);
	env->fx.qp = rwx_testdev_create_qp(env->fx.pd, env->fx.cq,
					   IB_QP_CREATE_INTEGRITY_EN, &cap);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.qp);
	rwx_td_destroy_qp(&env->fx.peer);
	env->fx.peer = rwx_tdt_create_qp(env, env->fx.cq, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.peer);
	KUNIT_ASSERT_EQ(test, rwx_testdev_connect(env->fx.qp, env->fx.peer), 0);

	blocks = env->extra;
	pi = env->extra + 4 * PAGE_SIZE;
	image = kunit_kmalloc(test, RWX_TDT_BUF_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, image);
	for (c = cases; c < cases + ARRAY_SIZE(cases); c++) {
		wire_len = rwx_tdt_wire_len(c);
		rwx_tdt_attrs(&attrs, c);
		/* The pool's one MR: every use but the first invalidates. */
		for (round = 0; round < 2; round++) {
			get_random_bytes(blocks, c->blocks * c->interval);
			for (i = 0; c->meta && i < c->blocks; i++)
				rwx_t10_tuple(&attrs.mem.sig.dif,
					      blocks + i * c->interval, i,
					      (struct t10_pi_tuple *)pi + i);
			sg_init_one(&sg, blocks, c->blocks * c->interval);
			sg_init_one(&prot, pi, c->blocks * RWX_TDT_PI);
			memset(env->remote, 0, RWX_TDT_BUF_LEN);
			ret = rdma_rw_ctx_signature_init(&ctx, env->fx.qp, 1,
							 &sg, 1,
							 c->meta ? &prot : NULL,
							 c->meta ? 1 : 0,
							 &attrs,
							 env->remote_dma,
							 env->fx.pd->unsafe_global_rkey,
							 DMA_TO_DEVICE);
			KUNIT_ASSERT_EQ_MSG(test, ret, uses++ ? 3 : 2, "%s",
					    c->name);
			KUNIT_EXPECT_EQ(test, rdma_rw_ctx_post(&ctx, env->fx.qp,
							       1, &cqe, NULL),
					0);
			KUNIT_EXPECT_EQ(test, rwx_tdt_poll(env), 1);
			KUNIT_EXPECT_EQ_MSG(test, env->wc[0].status,
					    IB_WC_SUCCESS, "%s", c->name);
			KUNIT_EXPECT_EQ(test,
					ib_check_mr_status(ctx.reg->mr,
							   IB_MR_CHECK_SIG_STATUS,
							   &st), 0);
			KUNIT_EXPECT_EQ(test, st.fail_status, 0);
			rdma_rw_ctx_destroy_signature(&ctx, env->fx.qp, 1, &sg,
						      1, c->meta ? &prot : NULL,
						      c->meta ? 1 : 0,
						      DMA_TO_DEVICE);
			rwx_tdt_image(c, blocks, &attrs.wire, image);
			KUNIT_EXPECT_MEMEQ_MSG(test, env->remote, image,
					       wire_len, "%s", c->name);
			KUNIT_EXPECT_NULL(test,
					  memchr_inv(env->remote + wire_len, 0,
						     RWX_TDT_BUF_LEN -
						     wire_len));
		}
	}
	rwx_td_destroy_qp(&env->fx.qp);
}

static struct kunit_case rwx_tdt_cases[] = {
	KUNIT_CASE(rwx_tdt_caps),
	KUNIT_CASE(rwx_tdt_write_read),
	KUNIT_CASE(rwx_tdt_fast_reg),
	KUNIT_CASE_PARAM(rwx_tdt_errors, rwx_tdt_bad_gen_params),
	KUNIT_CASE(rwx_tdt_post_checks),
	KUNIT_CASE(rwx_tdt_iwarp),
	KUNIT_CASE(rwx_tdt_iw_cm),
	KUNIT_CASE(rwx_tdt_send_recv),
	KUNIT_CASE(rwx_tdt_notify),
	KUNIT_CASE(rwx_tdt_faults),
	KUNIT_CASE(rwx_tdt_fault_owner),
	KUNIT_CASE(rwx_tdt_record),
	KUNIT_CASE(rwx_tdt_rw_mr),
	KUNIT_CASE(rwx_tdt_pi_oracle),
	KUNIT_CASE_PARAM(rwx_tdt_pi_data, rwx_tdt_pi_gen_params),
	KUNIT_CASE(rwx_tdt_pi_errors),
	KUNIT_CASE(rwx_tdt_pi_refused),
	KUNIT_CASE(rwx_tdt_pi_remote),
	KUNIT_CASE(rwx_tdt_pi_rw),
	{}
};

static struct kunit_suite rwx_tdt_suite = {
	.name = "rwx_testdev",
	.init = rwx_tdt_init,
	.exit = rwx_tdt_exit,
	.test_cases = rwx_tdt_cases,
};

kunit_test_suite(rwx_tdt_suite);

MODULE_DESCRIPTION("KUnit: the rdma_rwx test device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RWX_TESTDEV);
