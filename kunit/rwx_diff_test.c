// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: differential test against ib_core's own rdma_rw_ctx, on rxe0, siw0
 * and the test device's capability sets (rwx_test_devs.h).  For the same
 * QP and the same randomised scatterlist, offset, remote address, rkey and
 * direction, the engine must build the WR chain ib_core builds: opcodes,
 * WR count, SGE counts, addresses and lengths, remote addresses, rkeys,
 * signaling, and REG_MR access and extent.
 *
 * Deliberate differences, asserted as such:
 * - LOCAL_INV precedes a REG_MR exactly when that MR still holds a valid
 *   key, in both engines; as the two take MRs from the pool in turn, the
 *   chains are compared with LOCAL_INV WRs checked on their own.
 * - RDMA READ with invalidate names the key the chain registers; ib_core
 *   names the key the MR had before the chain bumped it.
 * - MR lkeys differ (each engine has its own MR from the pool); each SGE
 *   must use the lkey of the MR registered just before it.
 * - On the MR path, ib_core gives each MR a fixed number of entries.  It
 *   refuses (-EINVAL) a list whose entries span more pages than one MR
 *   maps or that has a gap between entries, and on siw, which maps
 *   entries of any length, it registers MRs beyond the advertised page
 *   list length.  The engine splits such lists over more MRs by pages.
 *   Its chain must then register exactly the spans
 *   rdma_rwx_next_mr_span() gives for that list, one READ/WRITE of each
 *   span to consecutive remote addresses; or, when the whole pool has
 *   fewer MRs than the spans, init must fail with -ENOSPC (no retry can
 *   succeed: each case runs alone on the pool), or, where MRs are only
 *   preferred (max_sgl_rd), fall back to the SGE path.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_loopback.h"
#include "rwx_rw_fixture.h"
#include "rwx_test_devs.h"

#define RWX_DIFF_CASES		1000
#define RWX_DIFF_CHUNKS		256	/* entries at most */
#define RWX_DIFF_CHUNK_ORDER	2	/* an entry spans up to 4 pages */
#define RWX_DIFF_POOL		16	/* MRs in the QP's pool */

struct rwx_diff_ctx {
	struct rwx_loopback conn;
	struct rwx_testdev *tdev;
	int setup_ret;
	struct page *chunks[RWX_DIFF_CHUNKS];
	struct scatterlist sgl[RWX_DIFF_CHUNKS];
	struct rwx_chain *ours, *core;
	struct ib_cqe cqe;
	/* cases of the deliberate MR split */
	u32 split, over_budget, pool_short;
};

static int rwx_diff_init(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_loopback_params params = {
		.max_send_wr = 64,
		.max_send_sge = 32,
		.max_rdma_ctxs = RWX_DIFF_POOL,
	};
	struct rwx_diff_ctx *ctx;
	int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	ctx->ours = rwx_chain_alloc(RWX_DIFF_CHUNKS);
	ctx->core = rwx_chain_alloc(RWX_DIFF_CHUNKS);
	if (!ctx->ours || !ctx->core)
		return -ENOMEM;
	for (i = 0; i < RWX_DIFF_CHUNKS; i++) {
		ctx->chunks[i] = alloc_pages(GFP_KERNEL, RWX_DIFF_CHUNK_ORDER);
		if (!ctx->chunks[i])
			return -ENOMEM;
	}
	/*
	 * Nothing is posted here, but every list is mapped three times: a
	 * test device that maps as rxe does keeps 1000 lists quick under
	 * DMA-API debug.
	 */
	ctx->setup_ret = rwx_test_connect(dev, &ctx->conn, &params, true,
					  &ctx->tdev);
	return 0;
}

static void rwx_diff_exit(struct kunit *test)
{
	struct rwx_diff_ctx *ctx = test->priv;
	int i;

	rwx_test_disconnect(&ctx->conn, ctx->tdev);
	for (i = 0; i < RWX_DIFF_CHUNKS; i++)
		if (ctx->chunks[i])
			__free_pages(ctx->chunks[i], RWX_DIFF_CHUNK_ORDER);
	vfree(ctx->ours);
	vfree(ctx->core);
}

/*
 * A random list: mostly whole pages, some of any length (gaps between
 * entries, which ib_core's MR path refuses and the engine splits).
 */
static u32 rwx_diff_shape(struct rwx_diff_ctx *ctx, struct rnd_state *rnd,
			  u32 *offset)
{
	u32 nents = 1 + prandom_u32_state(rnd) % RWX_DIFF_CHUNKS;
	bool ragged = prandom_u32_state(rnd) % 5 == 0;
	u32 i, len, total = 0;

	if (prandom_u32_state(rnd) % 3 == 0)	/* plenty of short lists */
		nents = 1 + nents % 20;
	sg_init_table(ctx->sgl, nents);
	for (i = 0; i < nents; i++) {
		if (ragged)
			len = 1 + prandom_u32_state(rnd) %
				  (PAGE_SIZE << RWX_DIFF_CHUNK_ORDER);
		else if (prandom_u32_state(rnd) % 10 < 7)
			len = PAGE_SIZE;
		else
			len = PAGE_SIZE * (1 + prandom_u32_state(rnd) %
					   (1 << RWX_DIFF_CHUNK_ORDER));
		sg_set_page(&ctx->sgl[i], ctx->chunks[i], len, 0);
		total += len;
	}
	switch (prandom_u32_state(rnd) % 4) {
	case 0:
		*offset = 0;
		break;
	case 1:		/* on an entry boundary */
		*offset = ctx->sgl[0].length;
		if (nents == 1)
			*offset = 0;
		break;
	default:
		*offset = prandom_u32_state(rnd) % total;
	}
	return nents;
}

/* Each engine in turn: init, record its chain, destroy. */
static void rwx_diff_run(struct kunit *test, struct rwx_chain *chain,
			 bool core, u32 nents, u32 offset, u64 raddr, u32 rkey,
			 enum dma_data_direction dir)
{
	struct rwx_diff_ctx *ctx = test->priv;
	struct ib_qp *qp = ctx->conn.qp[RWX_CLIENT];
	u32 port = ctx->conn.port_num;
	struct rdma_rw_ctx rw;
	struct ib_send_wr *first;

	memset(&rw, 0, sizeof(rw));
	chain->nr_wrs = 0;
	if (core)
		chain->ret = rdma_rw_ctx_init(&rw, qp, port, ctx->sgl, nents,
					      offset, raddr, rkey, dir);
	else
		chain->ret = rdma_rwx_ctx_init(&rw, qp, port, ctx->sgl, nents,
					       offset, raddr, rkey, dir);
	if (chain->ret < 0)
		return;
	if (core)
		first = rdma_rw_ctx_wrs(&rw, qp, port, &ctx->cqe, NULL);
	else
		first = rdma_rwx_ctx_wrs(&rw, qp, port, &ctx->cqe, NULL);
	rwx_chain_record(chain, qp, first, &ctx->cqe);
	if (core)
		rdma_rw_ctx_destroy(&rw, qp, port, ctx->sgl, nents, dir);
	else
		rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, nents, dir);
}

static void rwx_diff_check_inv(struct kunit *test, const struct rwx_chain *c,
			       const char *who, u32 n)
{
	u32 i;

	for (i = 0; i + 1 < c->nr_wrs; i++) {
		if (c->wr[i].opcode != IB_WR_LOCAL_INV)
			continue;
		/* Invalidates the MR the next REG_MR registers anew. */
		KUNIT_EXPECT_EQ_MSG(test, c->wr[i + 1].opcode, IB_WR_REG_MR,
				    "case %u %s: LOCAL_INV not before REG_MR", n, who);
		KUNIT_EXPECT_EQ_MSG(test, c->wr[i].invalidate_rkey & ~0xffU,
				    c->wr[i + 1].key & ~0xffU,
				    "case %u %s: LOCAL_INV of another MR", n, who);
		KUNIT_EXPECT_NE_MSG(test, c->wr[i].invalidate_rkey,
				    c->wr[i + 1].key,
				    "case %u %s: LOCAL_INV of the new key", n, who);
	}
}

/* Where one MR of the split must register. */
struct rwx_span_rec {
	u64 iova;
	u32 length;
};

/*
 * The MR spans the engine must register for this list, from the pure
 * split function on the list as the device maps it (rxe and siw map
 * virtually: the same addresses on every mapping).
 */
static u32 rwx_diff_spans(struct kunit *test, u32 nents, u32 offset,
			  enum dma_data_direction dir,
			  struct rwx_span_rec *spans, u32 max)
{
	struct rwx_diff_ctx *ctx = test->priv;
	struct ib_qp *qp = ctx->conn.qp[RWX_CLIENT];
	struct rdma_rwx_mr_span span;
	struct rdma_rwx_caps caps;
	struct rdma_rwx_pos pos;
	u32 nr = 0;

	rdma_rwx_qp_caps(qp, ctx->conn.port_num, &caps);
	pos.nents = ib_dma_map_sg(ctx->conn.device, ctx->sgl, nents, dir);
	KUNIT_ASSERT_GT(test, pos.nents, 0U);
	pos.sg = ctx->sgl;
	pos.offset = offset;
	if (!rdma_rwx_sg_skip(&pos)) {
		while (pos.nents && nr < max &&
		       !rdma_rwx_next_mr_span(&caps, &pos, &span)) {
			spans[nr].iova = sg_dma_address(span.start.sg) +
					 span.start.offset;
			spans[nr++].length = span.length;
		}
		KUNIT_EXPECT_EQ(test, pos.nents, 0U);
	}
	ib_dma_unmap_sg(ctx->conn.device, ctx->sgl, nents, dir);
	return nr;
}

/*
 * Deliberate: a list ib_core cannot register is split over more MRs.
 * The chain registers each span and moves it to the next remote bytes.
 */
static void rwx_diff_check_split(struct kunit *test, u32 n, u32 nents,
				 u32 offset, u64 raddr,
				 enum dma_data_direction dir)
{
	struct rwx_diff_ctx *ctx = test->priv;
	const struct rwx_chain *o = ctx->ours;
	struct rwx_span_rec *spans;
	struct rdma_rwx_caps caps;
	u32 nr, i = 0, s = 0, mr_length = 0;
	u64 mr_iova = 0;

	spans = kunit_kcalloc(test, RWX_DIFF_CHUNKS, sizeof(*spans), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, spans);
	nr = rwx_diff_spans(test, nents, offset, dir, spans, RWX_DIFF_CHUNKS);
	KUNIT_ASSERT_GT_MSG(test, nr, 1U, "case %u: one span, yet split", n);
	if (o->ret == -ENOSPC) {
		KUNIT_EXPECT_GT_MSG(test, nr, RWX_DIFF_POOL,
				    "case %u: -ENOSPC with enough MRs", n);
		ctx->pool_short++;
		return;
	}
	if (o->ret > 0 && o->wr[0].opcode != IB_WR_REG_MR &&
	    o->wr[0].opcode != IB_WR_LOCAL_INV) {
		/* Too many spans for the pool; MRs were only preferred. */
		rdma_rwx_qp_caps(ctx->conn.qp[RWX_CLIENT], ctx->conn.port_num,
				 &caps);
		KUNIT_EXPECT_TRUE_MSG(test, caps.max_sgl_rd && !caps.iwarp &&
				      !caps.force_mr,
				      "case %u: SGE fallback where MRs are required",
				      n);
		KUNIT_EXPECT_GT_MSG(test, nr, RWX_DIFF_POOL,
				    "case %u: SGE fallback with enough MRs", n);
		/* READs of the PD's DMA lkey, each within the SGE limit. */
		for (i = 0; i < o->nr_wrs; i++) {
			KUNIT_EXPECT_EQ_MSG(test, o->wr[i].opcode, IB_WR_RDMA_READ,
					    "case %u WR %u", n, i);
			KUNIT_EXPECT_LE_MSG(test, o->wr[i].num_sge,
					    caps.max_read_sge, "case %u WR %u",
					    n, i);
		}
		for (i = 0; i < o->nr_sges; i++)
			KUNIT_EXPECT_TRUE_MSG(test, o->sge[i].dma_lkey,
					      "case %u SGE %u", n, i);
		ctx->pool_short++;
		return;
	}
	KUNIT_ASSERT_GE_MSG(test, o->ret, 0, "case %u: ib_core %d, ours %d",
			    n, ctx->core->ret, o->ret);
	for (i = rwx_chain_skip_inv(o, 0); i < o->nr_wrs;
	     i = rwx_chain_skip_inv(o, i + 1)) {
		const struct rwx_wr_rec *w = &o->wr[i];

		if (w->opcode == IB_WR_REG_MR) {
			KUNIT_ASSERT_LT_MSG(test, s, nr, "case %u: too many MRs", n);
			mr_iova = w->mr_iova;
			mr_length = w->mr_length;
			KUNIT_EXPECT_EQ_MSG(test, mr_length, spans[s].length,
					    "case %u span %u", n, s);
			KUNIT_EXPECT_EQ_MSG(test, mr_iova, spans[s].iova,
					    "case %u span %u", n, s);
			continue;
		}
		KUNIT_ASSERT_EQ_MSG(test, w->num_sge, 1U, "case %u WR %u", n, i);
		KUNIT_EXPECT_EQ_MSG(test, o->sge[w->first_sge].addr, mr_iova,
				    "case %u WR %u", n, i);
		KUNIT_EXPECT_EQ_MSG(test, o->sge[w->first_sge].length, mr_length,
				    "case %u WR %u", n, i);
		KUNIT_EXPECT_TRUE_MSG(test, o->sge[w->first_sge].mr_lkey,
				      "case %u WR %u", n, i);
		KUNIT_EXPECT_EQ_MSG(test, w->remote_addr, raddr, "case %u WR %u", n, i);
		KUNIT_EXPECT_EQ_MSG(test, w->signaled, i + 1 == o->nr_wrs,
				    "case %u WR %u", n, i);
		raddr += mr_length;
		s++;
	}
	KUNIT_EXPECT_EQ_MSG(test, s, nr, "case %u: spans not all moved", n);
	ctx->split++;
}

/* Whether ib_core registered an MR of more pages than the device lists. */
static bool rwx_diff_over_budget(struct kunit *test, const struct rwx_chain *c)
{
	struct rwx_diff_ctx *ctx = test->priv;
	struct rdma_rwx_caps caps;
	u32 i, budget;

	rdma_rwx_qp_caps(ctx->conn.qp[RWX_CLIENT],
			 ctx->conn.port_num, &caps);
	budget = min_t(u32, caps.mr_pages, RDMA_RWX_MAX_MR_PAGES);
	for (i = 0; i < c->nr_wrs; i++) {
		const struct rwx_wr_rec *w = &c->wr[i];

		if (w->opcode == IB_WR_REG_MR &&
		    DIV_ROUND_UP(offset_in_page(w->mr_iova) + w->mr_length,
				 PAGE_SIZE) > budget)
			return true;
	}
	return false;
}

/* Returns whether two WR chains were compared WR by WR. */
static bool rwx_diff_compare(struct kunit *test, u32 n, u32 nents, u32 offset,
			     u64 raddr, enum dma_data_direction dir)
{
	struct rwx_diff_ctx *ctx = test->priv;
	const struct rwx_chain *o = ctx->ours, *c = ctx->core;
	char what[16];
	u32 i, j;

	if (c->ret >= 0 ? rwx_diff_over_budget(test, c) :
			  c->ret == -EINVAL && o->ret != -EINVAL) {
		ctx->over_budget += c->ret >= 0;
		rwx_diff_check_split(test, n, nents, offset, raddr, dir);
		return false;
	}
	KUNIT_ASSERT_EQ_MSG(test, o->ret < 0 ? o->ret : 0, c->ret < 0 ? c->ret : 0,
			    "case %u: init result", n);
	if (o->ret < 0)
		return false;
	rwx_diff_check_inv(test, o, "rdma_rwx", n);
	rwx_diff_check_inv(test, c, "ib_core", n);

	/* Deliberate: ours invalidates the key it registered. */
	snprintf(what, sizeof(what), "case %u", n);
	rwx_chain_compare(test, o, c, true, what, &i, &j);
	KUNIT_EXPECT_EQ_MSG(test, i, o->nr_wrs, "case %u: rdma_rwx has more WRs", n);
	KUNIT_EXPECT_EQ_MSG(test, j, c->nr_wrs, "case %u: ib_core has more WRs", n);
	return true;
}

static void rwx_diff_random(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_diff_ctx *ctx = test->priv;
	struct rnd_state rnd;
	u32 n, nents, offset, rkey;
	enum dma_data_direction dir;
	u64 raddr;
	struct rdma_rwx_caps caps;
	int failures = 0;
	u32 compared = 0;

	KUNIT_ASSERT_EQ_MSG(test, ctx->setup_ret, 0, "connect on %s: %s",
			    dev->name, ctx->conn.error_what ?: "?");
	prandom_seed_state(&rnd, 0x5277 + dev->name[0] +
			   (dev->caps ? strlen(dev->name) + dev->name[5] : 0));
	for (n = 0; n < RWX_DIFF_CASES && !failures; n++) {
		nents = rwx_diff_shape(ctx, &rnd, &offset);
		dir = prandom_u32_state(&rnd) & 1 ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
		raddr = (u64)prandom_u32_state(&rnd) << 12 | prandom_u32_state(&rnd) % 4096;
		rkey = prandom_u32_state(&rnd);
		rwx_diff_run(test, ctx->core, true, nents, offset, raddr, rkey, dir);
		rwx_diff_run(test, ctx->ours, false, nents, offset, raddr, rkey, dir);
		compared += rwx_diff_compare(test, n, nents, offset, raddr, dir);

		/* Stop at the first differing case: one report, not a flood. */
		failures = test->status == KUNIT_FAILURE;
		cond_resched();		/* a long loop on a busy guest */
	}
	KUNIT_EXPECT_EQ(test, n, RWX_DIFF_CASES);
	kunit_info(test, "%s: %u cases, %u WR chains compared, %u split by pages (%u of them over budget in ib_core), %u short of MRs (-ENOSPC or SGE fallback)",
		   dev->name, n, compared, ctx->split, ctx->over_budget,
		   ctx->pool_short);
	/* Most shapes must be valid, or the comparison says little. */
	if (!dev->caps)
		KUNIT_EXPECT_GT(test, compared, RWX_DIFF_CASES / 2);
	else	/* small MRs: many lists split, each checked span by span */
		KUNIT_EXPECT_GT(test, compared + ctx->split, RWX_DIFF_CASES / 2);
	KUNIT_EXPECT_GT(test, compared, RWX_DIFF_CASES / 10);
	/*
	 * The split is exercised wherever MRs are required, and only where
	 * MRs may be used (max_sgl_rd: READs of many entries).
	 */
	rdma_rwx_qp_caps(ctx->conn.qp[RWX_CLIENT],
			 ctx->conn.port_num, &caps);
	if (caps.iwarp || caps.force_mr)
		KUNIT_EXPECT_GT(test, ctx->split, 0U);
	else if (!caps.max_sgl_rd)
		KUNIT_EXPECT_EQ(test, ctx->split + ctx->pool_short, 0U);
	KUNIT_EXPECT_EQ(test, ctx->conn.qp[RWX_CLIENT]->mrs_used, 0);
}

/* The same on the test device's capability sets. */
static void rwx_diff_random_tdev(struct kunit *test)
{
	rwx_diff_random(test);
}

static struct kunit_case rwx_diff_cases[] = {
	KUNIT_CASE_PARAM(rwx_diff_random, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_diff_random_tdev, rwx_test_tdev_gen_params),
	{}
};

static struct kunit_suite rwx_diff_suite = {
	.name = "rwx_diff",
	.init = rwx_diff_init,
	.exit = rwx_diff_exit,
	.test_cases = rwx_diff_cases,
};

kunit_test_suite(rwx_diff_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx against ib_core's rdma_rw_ctx, randomised");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
