// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: contexts in ib_core's encoding (drivers/rwx/rwx_ibcore.c) crossing
 * between the engine and the running kernel's own ib_core, as they do
 * during and across the live takeover.  Each context is set up by one
 * side, posted by either and destroyed by either, on rxe0, siw0 and the
 * test devices, over the SGE and MR paths (and every path with force_mr):
 * the data must arrive byte-exact, no MR stay taken, the engine's counters
 * move for its own contexts only, and KASAN, kmemleak and DMA-API debug
 * stay quiet (a wrong allocator or a cache buffer freed by ib_core shows
 * there).  Both sides must give a list the same encoding.  Bad input, a
 * second destroy and failed allocations are refused without harm.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/rwx_ibcore.h>
#include "../drivers/rwx/rwx_internal.h"
#include "../drivers/rwx/rwx_stats.h"
#include "rwx_counts.h"
#include "rwx_loopback.h"
#include "rwx_rw_fixture.h"
#include "rwx_test_devs.h"

/* Which implementation takes each step of a context's life. */
enum rwx_side { RWX_CORE, RWX_ENGINE };

static const char *const rwx_side_name[] = { "ib_core", "engine" };

static int rwx_ibcore_init(struct kunit *test)
{
	return rwx_rw_fixture_open(test, false, false);
}

static void rwx_ibcore_exit(struct kunit *test)
{
	rwx_rw_fixture_close(test);
}

/* @n entries of one page each, on pages of their own. */
static void rwx_ibcore_pages(struct kunit *test, u32 n)
{
	const struct rwx_shape s = { .entries = n, .len = PAGE_SIZE };
	struct rwx_rw_fixture *fx = test->priv;
	u32 i;

	rwx_rw_shape_start(test, &s);
	sg_init_table(fx->sgl, n);
	for (i = 0; i < n; i++)
		sg_set_buf(&fx->sgl[i], rwx_rw_shape_entry(test, &s, NULL, i),
			   s.len);
	fx->nents = n;
}

static int rwx_ibcore_side_init(struct kunit *test, enum rwx_side side,
				struct rdma_rw_ctx *rw,
				enum dma_data_direction dir)
{
	struct rwx_rw_fixture *fx = test->priv;

	if (side == RWX_CORE)
		return rdma_rw_ctx_init(rw, rwx_qp(test), rwx_port(test),
					fx->sgl, fx->nents, 0, fx->remote_dma,
					rwx_rkey(test), dir);
	return rdma_rwx_ibcore_ctx_init(rw, rwx_qp(test), rwx_port(test),
					fx->sgl, fx->nents, 0, fx->remote_dma,
					rwx_rkey(test), dir);
}

static int rwx_ibcore_side_post(struct kunit *test, enum rwx_side side,
				struct rdma_rw_ctx *rw, struct ib_cqe *cqe)
{
	if (side == RWX_CORE)
		return rdma_rw_ctx_post(rw, rwx_qp(test), rwx_port(test), cqe,
					NULL);
	return rdma_rwx_ibcore_ctx_post(rw, rwx_qp(test), rwx_port(test), cqe,
					NULL);
}

static void rwx_ibcore_side_destroy(struct kunit *test, enum rwx_side side,
				    struct rdma_rw_ctx *rw,
				    enum dma_data_direction dir)
{
	struct rwx_rw_fixture *fx = test->priv;

	if (side == RWX_CORE)
		rdma_rw_ctx_destroy(rw, rwx_qp(test), rwx_port(test), fx->sgl,
				    fx->nents, dir);
	else
		rdma_rwx_ibcore_ctx_destroy(rw, rwx_qp(test), rwx_port(test),
					    fx->sgl, fx->nents, dir);
}

/* The engine's counters a context of ib_core's @type and @nr_ops moves. */
static void rwx_ibcore_expect_init(struct rwx_counts *c, u8 type, u32 nr_ops,
				   u32 bytes, enum dma_data_direction dir)
{
	static const enum rdma_rwx_counter path[] = {
		RWX_CNT_INIT_SGE_SINGLE, RWX_CNT_INIT_SGE_MULTI, RWX_CNT_INIT_MR,
	};

	if (type >= ARRAY_SIZE(path))
		return;		/* the check then fails on the counters */
	c->d[path[type]]++;
	c->d[RWX_CNT_SHARED]++;
	if (type == 2)
		c->d[RWX_CNT_MRS] += nr_ops;
	c->d[dir == DMA_TO_DEVICE ? RWX_CNT_BYTES_WRITE : RWX_CNT_BYTES_READ] +=
		bytes;
}

struct rwx_ibcore_route {
	enum rwx_side init, post, destroy;
};

/*
 * ib_core's chain of a READ with invalidate names the MR's key from before
 * the chain renewed it (a deliberate difference, Documentation/rdma_rwx.rst):
 * the test device, as iWARP requires, refuses to invalidate a key the MR
 * does not hold (siw does not check).  There a context ib_core chains is
 * checked for that key, the same whoever set it up, instead of posted.
 */
static bool rwx_ibcore_core_refused(struct kunit *test,
				    const struct rwx_ibcore_route *r,
				    enum dma_data_direction dir)
{
	struct rwx_rw_fixture *fx = test->priv;

	return r->post == RWX_CORE && dir == DMA_FROM_DEVICE && fx->tdev &&
	       rdma_cap_read_inv(fx->conn.device, rwx_port(test));
}

/* ib_core's chain of @rw, checked and never posted: the MRs as before it. */
static void rwx_ibcore_core_chain_only(struct kunit *test,
				       struct rdma_rw_ctx *rw)
{
	struct ib_cqe cqe = {};
	struct rdma_rw_reg_ctx *reg;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, rdma_rw_ctx_wrs(rw, rwx_qp(test),
						    rwx_port(test), &cqe,
						    NULL));
	KUNIT_ASSERT_EQ(test, rw->type, 2);
	for (i = 0, reg = rw->reg; i < rw->nr_ops; i++, reg++) {
		KUNIT_EXPECT_EQ(test, reg->wr.wr.opcode,
				IB_WR_RDMA_READ_WITH_INV);
		KUNIT_EXPECT_EQ(test, ib_inc_rkey(reg->wr.wr.ex.invalidate_rkey),
				reg->reg_wr.key);
		ib_update_fast_reg_key(reg->mr, (u8)(reg->mr->lkey - 1));
		reg->mr->need_inval = !!reg->inv_wr.next;
	}
}

/*
 * One context of the fixture's list moved with the remote buffer along
 * @r, byte-exact; its encoding (type, ops) returned in *@type and
 * *@nr_ops.  Returns false when it could not run.
 */
static bool rwx_ibcore_move(struct kunit *test,
			    const struct rwx_ibcore_route *r,
			    enum dma_data_direction dir, u8 *type, u32 *nr_ops)
{
	struct rwx_rw_fixture *fx = test->priv;
	size_t total = (size_t)fx->nents * PAGE_SIZE;
	u8 *remote = page_address(fx->remote);
	struct rwx_loopback_wait *wait;
	struct ib_device *dev = fx->conn.device;
	struct rdma_rw_ctx rw;
	struct rwx_counts c;
	int ret;

	wait = kunit_kzalloc(test, sizeof(*wait), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wait);
	if (dir == DMA_TO_DEVICE) {
		rwx_rw_fill_local(fx, true);
		memset(remote, 0, total);
	} else {
		rwx_rw_random(remote, total);
		rwx_rw_fill_local(fx, false);
	}
	rwx_counts_start(test, &c, dev);

	memset(&rw, 0xff, sizeof(rw));	/* no mark, and no zeroes to lean on */
	ret = rwx_ibcore_side_init(test, r->init, &rw, dir);
	KUNIT_ASSERT_GT_MSG(test, ret, 0, "%u pages, %s init",
			    fx->nents, rwx_side_name[r->init]);
	*type = rw.type;
	*nr_ops = rw.nr_ops;
	KUNIT_EXPECT_LE_MSG(test, rw.type, 3, "not ib_core's encoding");
	KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_ctx_is_ours(&rw),
			r->init == RWX_ENGINE);
	if (r->init == RWX_ENGINE)
		rwx_ibcore_expect_init(&c, rw.type, rw.nr_ops, total, dir);

	if (rwx_ibcore_core_refused(test, r, dir)) {
		rwx_ibcore_core_chain_only(test, &rw);
		ret = -EPERM;	/* no data to check */
	} else {
		rwx_loopback_wait_init(wait);
		ret = rwx_ibcore_side_post(test, r->post, &rw, &wait->cqe);
		if (!ret)
			ret = rwx_loopback_wait_for(wait);
		/* a timed-out chain may still run: leave it mapped */
		KUNIT_ASSERT_NE(test, ret, -ETIMEDOUT);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0,
				    "%s of %u pages: set up by %s, posted by %s",
				    dir == DMA_TO_DEVICE ? "WRITE" : "READ",
				    fx->nents, rwx_side_name[r->init],
				    rwx_side_name[r->post]);
	}

	rwx_ibcore_side_destroy(test, r->destroy, &rw, dir);
	if (r->destroy == RWX_ENGINE)
		c.d[r->init == RWX_ENGINE ? RWX_CNT_SHARED_DESTROY :
					    RWX_CNT_ADOPTED]++;
	rwx_counts_check(test, &c, "a crossing context");
	KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
	if (ret)
		return ret == -EPERM;
	if (dir == DMA_TO_DEVICE && rwx_rw_fence(test, false))
		return false;
	KUNIT_EXPECT_EQ_MSG(test, rwx_rw_matching(fx, 0, total), total,
			    "%s of %u pages: set up by %s, posted by %s, destroyed by %s",
			    dir == DMA_TO_DEVICE ? "WRITE" : "READ", fx->nents,
			    rwx_side_name[r->init], rwx_side_name[r->post],
			    rwx_side_name[r->destroy]);
	return true;
}

/*
 * Every route of set-up, post and destroy between the two sides, both
 * directions, lists on a single WR, several WRs and several MRs; the two
 * sides encode each list alike.
 */
static void rwx_ibcore_crossing(struct kunit *test)
{
	static const u32 sizes[] = { 1, 3, 20, 70 };
	u32 i, d, route, nr_ops[2];
	u8 type[2];

	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		rwx_ibcore_pages(test, sizes[i]);
		for (d = 0; d < 2; d++) {
			enum dma_data_direction dir = d ? DMA_FROM_DEVICE :
							  DMA_TO_DEVICE;

			for (route = 0; route < 8; route++) {
				struct rwx_ibcore_route r = {
					.init = route & 1,
					.post = (route >> 1) & 1,
					.destroy = (route >> 2) & 1,
				};
				u8 t;
				u32 n;

				if (!rwx_ibcore_move(test, &r, dir, &t, &n))
					return;
				type[r.init] = t;
				nr_ops[r.init] = n;
			}
			KUNIT_EXPECT_EQ_MSG(test, type[RWX_ENGINE], type[RWX_CORE],
					    "%u pages, dir %u: type", sizes[i], d);
			KUNIT_EXPECT_EQ_MSG(test, nr_ops[RWX_ENGINE],
					    nr_ops[RWX_CORE],
					    "%u pages, dir %u: ops", sizes[i], d);
		}
	}
}

/* The same on the test devices (SGE limits, max_sgl_rd, iWARP, small MRs). */
static void rwx_ibcore_crossing_tdev(struct kunit *test)
{
	rwx_ibcore_crossing(test);
}

/*
 * Anything but a live context in ib_core's encoding - the engine's own
 * types, a dead context, unknown types, no ops - gets no chain and is left
 * alone by both destroys; nothing is counted.
 */
static void rwx_ibcore_bad_input(struct kunit *test)
{
	static const u8 types[] = { 4, RDMA_RWX_CTX_SINGLE, RDMA_RWX_CTX_MULTI,
				    RDMA_RWX_CTX_MR, RDMA_RWX_CTX_SIG,
				    RDMA_RWX_CTX_DEAD, 0xff };
	struct rwx_rw_fixture *fx = test->priv;
	struct ib_qp *qp;
	struct rdma_rw_ctx rw, before;
	struct ib_cqe cqe = {};
	struct rwx_counts c;
	u32 i, port;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rwx_ibcore_pages(test, 1);
	rwx_counts_start(test, &c, fx->conn.device);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		memset(&rw, 0x5a, sizeof(rw));
		rw.type = types[i];
		rw.nr_ops = 1;
		before = rw;
		KUNIT_EXPECT_NULL(test, rdma_rwx_ibcore_ctx_wrs(&rw, qp, port,
								&cqe, NULL));
		KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_ctx_post(&rw, qp, port,
							       &cqe, NULL),
				-EINVAL);
		rdma_rwx_ibcore_ctx_destroy(&rw, qp, port, fx->sgl, 1,
					    DMA_TO_DEVICE);
		rdma_rwx_ibcore_ctx_destroy_signature(&rw, qp, port, fx->sgl, 1,
						      NULL, 0, DMA_TO_DEVICE);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(&rw, &before, sizeof(rw)), 0,
				    "type %#x changed", types[i]);
	}
	/* No ops; no completion and no chained WR; no context, no QP. */
	memset(&rw, 0, sizeof(rw));
	KUNIT_EXPECT_NULL(test, rdma_rwx_ibcore_ctx_wrs(&rw, qp, port, &cqe,
							NULL));
	rw.nr_ops = 1;
	KUNIT_EXPECT_NULL(test, rdma_rwx_ibcore_ctx_wrs(&rw, qp, port, NULL,
							NULL));
	KUNIT_EXPECT_NULL(test, rdma_rwx_ibcore_ctx_wrs(NULL, qp, port, &cqe,
							NULL));
	KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_ctx_post(&rw, NULL, port, &cqe,
						       NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_ctx_post(NULL, qp, port, &cqe,
						       NULL), -EINVAL);
	rdma_rwx_ibcore_ctx_destroy(NULL, qp, port, fx->sgl, 1, DMA_TO_DEVICE);
	rdma_rwx_ibcore_ctx_destroy(&rw, NULL, port, fx->sgl, 1, DMA_TO_DEVICE);
	rdma_rwx_ibcore_ctx_destroy(&rw, qp, port, NULL, 1, DMA_TO_DEVICE);
	rwx_counts_check(test, &c, "bad input");

	/* A failed init counts as the engine's own do and leaves no ops. */
	rw.nr_ops = 1;
	KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_ctx_init(&rw, qp, port, fx->sgl,
						       1, 0, 0, 0, DMA_NONE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rw.nr_ops, 0);
	c.d[RWX_CNT_ERR_EINVAL]++;
	rwx_counts_check(test, &c, "an init refused");
}

/*
 * A second destroy does nothing, whoever set the context up (ib_core's
 * would free twice); a signature destroy leaves a plain context alone.
 */
static void rwx_ibcore_destroy_twice(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;
	u32 i, sizes[] = { 1, 3 }, side;
	struct rdma_rw_ctx rw;
	struct rwx_counts c;
	int ret;

	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		rwx_ibcore_pages(test, sizes[i]);
		for (side = RWX_CORE; side <= RWX_ENGINE; side++) {
			rwx_counts_start(test, &c, fx->conn.device);
			ret = rwx_ibcore_side_init(test, side, &rw,
						   DMA_TO_DEVICE);
			KUNIT_ASSERT_GT(test, ret, 0);
			if (side == RWX_ENGINE)
				rwx_ibcore_expect_init(&c, rw.type, rw.nr_ops,
						       sizes[i] * PAGE_SIZE,
						       DMA_TO_DEVICE);
			rdma_rwx_ibcore_ctx_destroy_signature(&rw, rwx_qp(test),
							      rwx_port(test),
							      fx->sgl, fx->nents,
							      NULL, 0,
							      DMA_TO_DEVICE);
			KUNIT_EXPECT_LE(test, rw.type, 3);
			rwx_ibcore_side_destroy(test, RWX_ENGINE, &rw,
						DMA_TO_DEVICE);
			rwx_ibcore_side_destroy(test, RWX_ENGINE, &rw,
						DMA_TO_DEVICE);
			KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);
			c.d[side == RWX_ENGINE ? RWX_CNT_SHARED_DESTROY :
						 RWX_CNT_ADOPTED]++;
			rwx_counts_check(test, &c, "destroyed twice");
			KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
		}
	}
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Since @v: the contexts the engine set up and counted live (none may be),
 * and those it set up shared.
 */
static void rwx_ibcore_built(struct kunit *test, struct rwx_counts *c,
			     const u64 *v, s64 *live, u64 *shared)
{
	u64 now[RWX_CNT_NR], d[RWX_CNT_NR];
	u32 i;

	rwx_counts_read(test, c, now);
	for (i = 0; i < RWX_CNT_NR; i++)
		d[i] = now[i] - v[i];
	*live = d[RWX_CNT_INIT_SGE_SINGLE] + d[RWX_CNT_INIT_SGE_MULTI] +
		d[RWX_CNT_INIT_MR] - d[RWX_CNT_DESTROY] - d[RWX_CNT_SHARED];
	*shared = d[RWX_CNT_SHARED];
}

/*
 * On rxe0 and siw0, which map without the DMA API: a failed allocation of
 * DMA-API debug's own turns it off for the whole boot.
 * Each allocation of an init failed in turn (rwx_rw_fail_each()'s way):
 * every -ENOMEM leaves no MR taken, no ops and no context counted live; a context
 * built anyway is in ib_core's encoding, counted shared, and ib_core's
 * destroy releases it.
 */
static void rwx_ibcore_alloc_fail(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;
	u32 sizes[] = { 3, 20 }, i, d, n, left, failed, built;
	struct ib_qp *qp;
	struct rdma_rw_ctx rw;
	struct rwx_counts c;
	u64 shared;
	s64 live;
	int ret;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		rwx_ibcore_pages(test, sizes[i]);
		for (d = 0; d < 2; d++) {
			enum dma_data_direction dir = d ? DMA_FROM_DEVICE :
							  DMA_TO_DEVICE;

			rwx_counts_start(test, &c, fx->conn.device);
			migrate_disable();
			for (n = 1, failed = built = left = 0; n <= 40; n++) {
				rdma_rwx_buf_cache_empty_local();
				current->fail_nth = n;
				ret = rdma_rwx_ibcore_ctx_init(&rw, qp,
							       rwx_port(test),
							       fx->sgl,
							       fx->nents, 0,
							       fx->remote_dma,
							       rwx_rkey(test),
							       dir);
				left = current->fail_nth;
				current->fail_nth = 0;
				if (ret == -ENOMEM) {
					KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
					KUNIT_EXPECT_EQ(test, rw.nr_ops, 0);
					failed++;
					continue;
				}
				KUNIT_EXPECT_GT(test, ret, 0);
				if (ret <= 0)
					break;
				built++;
				KUNIT_EXPECT_LE(test, rw.type, 3);
				rdma_rw_ctx_destroy(&rw, qp, rwx_port(test),
						    fx->sgl, fx->nents, dir);
				KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
				if (left)
					break;
			}
			migrate_enable();
			KUNIT_EXPECT_NE(test, left, 0U);
			KUNIT_EXPECT_GT_MSG(test, failed, 0U,
					    "%u pages, dir %u: nothing failed",
					    sizes[i], d);
			/* those built are shared, the others destroyed */
			rwx_ibcore_built(test, &c, c.v, &live, &shared);
			KUNIT_EXPECT_EQ(test, live, 0);
			KUNIT_EXPECT_EQ(test, shared, (u64)built);
		}
	}
}
#else
static void rwx_ibcore_alloc_fail(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
}
#endif

/* A QP made for RW contexts got an MR pool from ib_core. */
static bool rwx_ibcore_has_pool(struct ib_qp *qp)
{
	unsigned long flags;
	bool pool;

	spin_lock_irqsave(&qp->mr_lock, flags);
	pool = !list_empty(&qp->rdma_mrs) || qp->mrs_used;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return pool;
}

/*
 * The engine follows ib_core's force_mr (rwx_force_mr.c): its probe QP on rxe0
 * told what the fixture's QP shows, a pool on RoCE only with ib_core's
 * force_mr, and a one-entry WRITE takes the MR path exactly when there is
 * a pool.  siw0, iWARP, has a pool either way.
 */
static void rwx_ibcore_follows_force_mr(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;
	struct rdma_rw_ctx rw;
	struct ib_qp *qp;
	bool pool;
	int ret;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	pool = rwx_ibcore_has_pool(qp);
	if (rdma_protocol_iwarp(qp->device, rwx_port(test))) {
		KUNIT_EXPECT_TRUE(test, pool);
		return;
	}
	KUNIT_EXPECT_EQ(test, rdma_rwx_ibcore_forces_mr(), (int)pool);
	rwx_ibcore_pages(test, 1);
	ret = rdma_rwx_ctx_init(&rw, qp, rwx_port(test), fx->sgl, 1, 0,
				fx->remote_dma, rwx_rkey(test), DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, ret, 0);
	if (pool)	/* REG_MR, WRITE and maybe LOCAL_INV */
		KUNIT_EXPECT_GE(test, ret, 2);
	else
		KUNIT_EXPECT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, rw.type,
			pool ? RDMA_RWX_CTX_MR : RDMA_RWX_CTX_SINGLE);
	rdma_rwx_ctx_destroy(&rw, qp, rwx_port(test), fx->sgl, 1,
			     DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
}

/*
 * The probe on each test device, each of its allocations failed in turn
 * until one runs with none failed: every -ENOMEM leaves no PD, CQ, QP or
 * MR behind, and every probe that gets through (some failures are
 * absorbed) says what ib_core does: a pool on iWARP, with max_sgl_rd, or
 * with ib_core's force_mr.
 */
#ifdef CONFIG_FAULT_INJECTION
static void rwx_ibcore_probe_fail(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;
	struct rwx_testdev_counts before, after;
	struct ib_device *dev;
	u32 n, left = 0, failed = 0;
	int ret, want;

	rwx_rw_ready(test);
	dev = fx->conn.device;
	KUNIT_ASSERT_GE(test, rdma_rwx_ibcore_forces_mr(), 0);
	want = rdma_protocol_iwarp(dev, rwx_port(test)) ||
	       dev->attrs.max_sgl_rd || rdma_rwx_ibcore_forces_mr();
	rwx_testdev_counts(fx->tdev, &before);
	for (n = 1; n <= 100 && !left; n++) {
		current->fail_nth = n;
		ret = rdma_rwx_probe_ibcore_force_mr(dev, rwx_port(test));
		left = current->fail_nth;
		current->fail_nth = 0;
		rwx_testdev_counts(fx->tdev, &after);
		KUNIT_EXPECT_EQ(test, after.pds, before.pds);
		KUNIT_EXPECT_EQ(test, after.cqs, before.cqs);
		KUNIT_EXPECT_EQ(test, after.qps, before.qps);
		KUNIT_EXPECT_EQ(test, after.mrs, before.mrs);
		if (ret < 0) {
			KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
			failed++;
		} else {
			KUNIT_EXPECT_EQ(test, ret, want);
		}
	}
	KUNIT_EXPECT_NE_MSG(test, left, 0U, "a failure in each of %u runs", n - 1);
	KUNIT_EXPECT_GT(test, failed, 0U);
}
#else
static void rwx_ibcore_probe_fail(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
}
#endif

static struct kunit_case rwx_ibcore_cases[] = {
	KUNIT_CASE_PARAM(rwx_ibcore_crossing, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_crossing_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_bad_input, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_destroy_twice, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_alloc_fail, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_follows_force_mr, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_ibcore_probe_fail, rwx_test_tdev_gen_params),
	{}
};

static struct kunit_suite rwx_ibcore_suite = {
	.name = "rwx_ibcore",
	.init = rwx_ibcore_init,
	.exit = rwx_ibcore_exit,
	.test_cases = rwx_ibcore_cases,
};

kunit_test_suite(rwx_ibcore_suite);

MODULE_DESCRIPTION("KUnit: contexts crossing between the engine and ib_core");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
MODULE_IMPORT_NS(RDMA_RWX_TESTING);
