// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the ground the engine stands on.  On each test device (rxe0 for
 * RoCE, siw0 for iWARP) create a PD, CQs and two connected RC QPs, and move
 * bytes with plain RDMA WRITE and READ.  If this fails, nothing the engine
 * does can be judged.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "rwx_kunit_compat.h"
#include "rwx_loopback.h"
#include "rwx_test_devs.h"

#define RWX_XFER_LEN	(64 * 1024)
#define RWX_GUARD	64	/* bytes checked untouched around the target */

struct rwx_verbs_ctx {
	struct rwx_loopback conn;
	int setup_ret;
	u8 *local;		/* client memory */
	u8 *remote;		/* server memory, reached by the global rkey */
	u64 local_dma, remote_dma;
};

static int rwx_verbs_init(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_loopback_params params = {
		.max_send_wr = 64,
		.max_send_sge = 16,
	};
	struct rwx_verbs_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	if (!dev)	/* not a parameterised case */
		return 0;
	params.addr = dev->addr;
	ctx->setup_ret = rwx_loopback_setup(&ctx->conn, &params);
	return 0;
}

static void rwx_verbs_exit(struct kunit *test)
{
	struct rwx_verbs_ctx *ctx = test->priv;
	struct ib_device *device = ctx->conn.device;

	if (ctx->local_dma)
		ib_dma_unmap_single(device, ctx->local_dma, RWX_XFER_LEN,
				    DMA_BIDIRECTIONAL);
	if (ctx->remote_dma)
		ib_dma_unmap_single(device, ctx->remote_dma,
				    RWX_XFER_LEN + 2 * RWX_GUARD,
				    DMA_BIDIRECTIONAL);
	rwx_loopback_teardown(&ctx->conn);
	kfree(ctx->local);
	kfree(ctx->remote);
}

/* Connected QPs on the expected device, plus mapped buffers. */
static void rwx_verbs_ready(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_verbs_ctx *ctx = test->priv;
	struct ib_device *device;

	KUNIT_ASSERT_EQ_MSG(test, ctx->setup_ret, 0, "connect on %s (%s): %s",
			    dev->name, dev->addr,
			    ctx->conn.error_what ?: "?");
	device = ctx->conn.device;
	KUNIT_ASSERT_STREQ(test, dev_name(&device->dev), dev->name);

	ctx->local = kmalloc(RWX_XFER_LEN, GFP_KERNEL);
	ctx->remote = kmalloc(RWX_XFER_LEN + 2 * RWX_GUARD, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->local);
	KUNIT_ASSERT_NOT_NULL(test, ctx->remote);
	ctx->local_dma = ib_dma_map_single(device, ctx->local, RWX_XFER_LEN,
					   DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(device, ctx->local_dma));
	ctx->remote_dma = ib_dma_map_single(device, ctx->remote,
					    RWX_XFER_LEN + 2 * RWX_GUARD,
					    DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(device, ctx->remote_dma)) {
		ctx->remote_dma = 0;
		KUNIT_FAIL(test, "cannot map the remote buffer");
	}
}

static void rwx_fill(u8 *buf, size_t len, u32 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (u8)(seed + i * 131 + (i >> 8));
}

/* One RDMA READ or WRITE of the whole buffer, waited for. */
static int rwx_post_rdma(struct kunit *test, enum ib_wr_opcode opcode)
{
	struct rwx_verbs_ctx *ctx = test->priv;
	struct rwx_loopback_wait *wait;
	struct ib_sge sge = {
		.addr = ctx->local_dma,
		.length = RWX_XFER_LEN,
		.lkey = ctx->conn.pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = opcode,
			.sg_list = &sge,
			.num_sge = 1,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = ctx->remote_dma + RWX_GUARD,
		.rkey = ctx->conn.pd->unsafe_global_rkey,
	};
	int ret;

	/* Allocated from the test so that it outlives a timed-out wait. */
	wait = kunit_kzalloc(test, sizeof(*wait), GFP_KERNEL);
	if (!wait)
		return -ENOMEM;
	rwx_loopback_wait_init(wait);
	wr.wr.wr_cqe = &wait->cqe;
	ret = ib_post_send(ctx->conn.qp[RWX_CLIENT], &wr.wr, NULL);
	if (ret)
		return ret;
	return rwx_loopback_wait_for(wait);
}

/*
 * The state ib_query_qp() reports for a connected QP: RTS, but siw sets
 * none before 6.8 (see Kbuild), so on Debian's 6.1 the field keeps the 0
 * (RESET) it was cleared to.
 */
static enum ib_qp_state rwx_verbs_connected_state(struct ib_device *device)
{
#ifndef RWX_SIW_QUERIES_STATE
	if (device->ops.driver_id == RDMA_DRIVER_SIW)
		return IB_QPS_RESET;
#endif
	return IB_QPS_RTS;
}

static void rwx_verbs_connect(struct kunit *test)
{
	struct rwx_verbs_ctx *ctx = test->priv;
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	int side;

	rwx_verbs_ready(test);
	for (side = 0; side < RWX_SIDES; side++) {
		memset(&attr, 0, sizeof(attr));
		KUNIT_ASSERT_EQ(test, ib_query_qp(ctx->conn.qp[side], &attr,
						  IB_QP_STATE, &init_attr), 0);
		KUNIT_EXPECT_EQ(test, attr.qp_state,
				rwx_verbs_connected_state(ctx->conn.device));
	}
}

static void rwx_verbs_write(struct kunit *test)
{
	struct rwx_verbs_ctx *ctx = test->priv;

	rwx_verbs_ready(test);
	rwx_fill(ctx->local, RWX_XFER_LEN, 7);
	memset(ctx->remote, 0xa5, RWX_XFER_LEN + 2 * RWX_GUARD);

	KUNIT_ASSERT_EQ(test, rwx_post_rdma(test, IB_WR_RDMA_WRITE), 0);
	KUNIT_EXPECT_MEMEQ(test, ctx->remote + RWX_GUARD, ctx->local,
			   RWX_XFER_LEN);
	KUNIT_EXPECT_NULL(test, memchr_inv(ctx->remote, 0xa5, RWX_GUARD));
	KUNIT_EXPECT_NULL(test, memchr_inv(ctx->remote + RWX_GUARD + RWX_XFER_LEN,
					   0xa5, RWX_GUARD));
}

static void rwx_verbs_read(struct kunit *test)
{
	struct rwx_verbs_ctx *ctx = test->priv;

	rwx_verbs_ready(test);
	rwx_fill(ctx->remote, RWX_XFER_LEN + 2 * RWX_GUARD, 99);
	memset(ctx->local, 0, RWX_XFER_LEN);

	KUNIT_ASSERT_EQ(test, rwx_post_rdma(test, IB_WR_RDMA_READ), 0);
	KUNIT_EXPECT_MEMEQ(test, ctx->local, ctx->remote + RWX_GUARD,
			   RWX_XFER_LEN);
}

static struct kunit_case rwx_verbs_cases[] = {
	KUNIT_CASE_PARAM(rwx_verbs_connect, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_verbs_write, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_verbs_read, rwx_test_dev_gen_params),
	{}
};

static struct kunit_suite rwx_verbs_suite = {
	.name = "rwx_verbs",
	.init = rwx_verbs_init,
	.exit = rwx_verbs_exit,
	.test_cases = rwx_verbs_cases,
};

kunit_test_suite(rwx_verbs_suite);

MODULE_DESCRIPTION("KUnit: connected QPs and plain RDMA on rxe0 and siw0");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
