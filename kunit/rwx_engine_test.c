// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine moving real data between two connected QPs on rxe0
 * (RoCE: SGE path) and siw0 (iWARP: READs take the MR path), byte-exact,
 * over list shapes from 1 byte to 4 MiB with offsets (on the MR path also
 * entries larger than an MR, entries straddling MRs, gaps and shared
 * pages); the NVMe-oF pattern (WRITE chain + SEND through chain_wr, one
 * post, one completion); bad input, which must fail with its documented
 * error and leave no MR taken from the pool; pool exhaustion; the
 * max_sgl_rd decision with its SGE fallback; and the sizing helpers.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "../drivers/rwx/rwx_internal.h"
#include "../drivers/rwx/rwx_stats.h"
#include "rwx_counts.h"
#include "rwx_debugfs.h"
#include "rwx_loopback.h"
#include "rwx_rw_fixture.h"
#include "rwx_test_devs.h"

static int rwx_engine_init(struct kunit *test)
{
	return rwx_rw_fixture_open(test, false, false);
}

static void rwx_engine_exit(struct kunit *test)
{
	rwx_rw_fixture_close(test);
}

static void rwx_engine_list(struct kunit *test, const struct rwx_shape *s)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u8 *carved = rwx_rw_shape_start(test, s);
	u32 i;

	sg_init_table(ctx->sgl, s->entries);
	for (i = 0; i < s->entries; i++)
		sg_set_buf(&ctx->sgl[i], rwx_rw_shape_entry(test, s, carved, i),
			   s->len);
	ctx->nents = s->entries;
}

/* @n entries of one page each, on pages of their own. */
static void rwx_engine_pages(struct kunit *test, u32 n)
{
	const struct rwx_shape s = { .entries = n, .len = PAGE_SIZE };

	rwx_engine_list(test, &s);
}

/* One direction of one shape: every shape must be moved. */
static bool rwx_engine_try(struct kunit *test, const struct rwx_shape *s,
			   enum dma_data_direction dir)
{
	int ret = rwx_rw_move(test, false, s->offset, dir);

	KUNIT_EXPECT_GT_MSG(test, ret, 0, "%s %u x %u bytes (lead %u%s), offset %u",
			    dir == DMA_TO_DEVICE ? "WRITE" : "READ", s->entries,
			    s->len, s->lead, s->carve ? ", carved" : "", s->offset);
	return ret > 0;
}

/* Byte-exact WRITE then READ of one shape. */
static void rwx_engine_shape(struct kunit *test, const struct rwx_shape *s)
{
	struct rwx_rw_fixture *ctx = test->priv;
	size_t total = (size_t)s->entries * s->len - s->offset;
	u8 *remote = page_address(ctx->remote);

	rwx_engine_list(test, s);
	KUNIT_ASSERT_LE(test, total, RWX_REMOTE_LEN);

	/* WRITE: random local data to zeroed remote memory. */
	rwx_rw_fill_local(ctx, true);
	memset(remote, 0, RWX_REMOTE_LEN);
	if (rwx_engine_try(test, s, DMA_TO_DEVICE)) {
		KUNIT_EXPECT_EQ_MSG(test, rwx_rw_matching(ctx, s->offset, total),
				    total, "WRITE %u x %u bytes, offset %u: bytes right",
				    s->entries, s->len, s->offset);
		/* Nothing past the transfer was touched. */
		if (total < RWX_REMOTE_LEN)
			KUNIT_EXPECT_NULL(test, memchr_inv(remote + total, 0,
							   RWX_REMOTE_LEN - total));
	}

	/* READ: random remote data into zeroed local memory. */
	rwx_rw_random(remote, total);
	rwx_rw_fill_local(ctx, false);
	if (rwx_engine_try(test, s, DMA_FROM_DEVICE)) {
		KUNIT_EXPECT_EQ_MSG(test, rwx_rw_matching(ctx, s->offset, total),
				    total, "READ %u x %u bytes, offset %u: bytes right",
				    s->entries, s->len, s->offset);
		/* The bytes before the offset were not written. */
		KUNIT_EXPECT_NULL(test, memchr_inv(sg_virt(ctx->sgl), 0,
						   min_t(u32, s->offset,
							 ctx->sgl->length)));
	}
}

#define P	((u32)PAGE_SIZE)

/*
 * On the MR path (siw READs; everything with force_mr) the shapes beyond
 * whole pages need the page-aware split: entries larger than an MR,
 * entries that straddle MRs, gaps between entries, and entries sharing
 * pages; ib_core refuses all of those.
 */
static void rwx_engine_data(struct kunit *test)
{
	static const struct rwx_shape shapes[] = {
		{ 1, P, 0, P - 1 },		/* 1 byte */
		{ 1, P, 0, 0 },			/* one page */
		{ 2, P, 0, 100 },		/* offset inside the first */
		{ 16, P, 0, 0 },		/* the QP's SGE limit */
		{ 17, P, 0, P },		/* limit + 1, offset on a boundary */
		{ 3, 4 * P, 0, 5 * P + 7 },	/* offset inside a middle entry */
		{ 64, 2 * P, 0, 3000 },
		{ 256, P, 0, 0 },		/* one full MR */
		{ 300, P, 0, 1 },		/* two MRs */
		{ 1024, P, 0, 0 },		/* 4 MiB in pages */
		{ 64, 16 * P, 0, 0 },		/* 4 MiB in 64 KiB entries */
		{ 1, 512 * P, 0, 512 },		/* 2 MiB in one entry */
		{ 100, 3 * P, 0, 3 * P + 100 },	/* entries straddle MRs */
		{ 6, 3000, 100, 10 },		/* gaps between all entries */
		{ 200, 1000, 0, 0, 0, true },	/* sharing pages */
		{ 300, 700, 24, 50, 0, true },	/* ... more than 256 entries */
	};
	int i;

	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(shapes); i++)
		rwx_engine_shape(test, &shapes[i]);
}

#undef P

/*
 * NVMe-oF: the data goes out as a WRITE chain with the response SEND
 * appended through chain_wr, in one post; only the SEND completes.
 */
static void rwx_engine_chain_send(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_rw_send snd;
	struct rdma_rw_ctx rw;
	int nr_wrs;

	rwx_rw_ready(test);
	rwx_rw_send_prepare(test, &snd);
	rwx_engine_pages(test, 40);	/* several WRITE WRs */
	rwx_rw_fill_local(ctx, true);
	memset(page_address(ctx->remote), 0, 40 * PAGE_SIZE);
	nr_wrs = rdma_rwx_ctx_init(&rw, rwx_qp(test), rwx_port(test), ctx->sgl,
				   40, 0, ctx->remote_dma,
				   ctx->conn.pd->unsafe_global_rkey, DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, nr_wrs, 1);
	rwx_rw_send_chain(test, &snd, &rw, nr_wrs);
	/* The SEND was ordered after the data: the data is there. */
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, 40 * PAGE_SIZE),
			40 * PAGE_SIZE);
	rwx_rw_send_finish(test, &snd);
	rdma_rwx_ctx_destroy(&rw, rwx_qp(test), rwx_port(test), ctx->sgl, 40,
			     DMA_TO_DEVICE);
}

static void rwx_engine_bad_input(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct ib_cqe cqe = {};
	struct ib_qp *qp;
	struct rdma_rw_ctx rw;
	u32 port, rkey, len;
	u64 raddr;
	int ret;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rkey = ctx->conn.pd->unsafe_global_rkey;
	raddr = ctx->remote_dma;
	rwx_engine_pages(test, 4);
	len = 4 * PAGE_SIZE;

/* A refused context is marked dead, whatever it held before. */
#define RWX_EXPECT_INIT(want, c, q, p, sg, n, off, dir) do {		\
		rw.type = RDMA_RWX_CTX_SINGLE;				\
		KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init(c, q, p, sg, n, off,	\
							raddr, rkey, dir), want); \
		KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);		\
	} while (0)
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init(NULL, qp, port, ctx->sgl, 4, 0,
						raddr, rkey, DMA_TO_DEVICE),
			-EINVAL);
	RWX_EXPECT_INIT(-EINVAL, &rw, NULL, port, ctx->sgl, 4, 0, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, NULL, 4, 0, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 0, 0, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, 0, DMA_BIDIRECTIONAL);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, 0, DMA_NONE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, 0, ctx->sgl, 4, 0, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port + 1, ctx->sgl, 4, 0, DMA_TO_DEVICE);
	/* Offsets at and past the end, for both directions (both paths on siw). */
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, len, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, len, DMA_FROM_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, len + 1, DMA_TO_DEVICE);
	RWX_EXPECT_INIT(-EINVAL, &rw, qp, port, ctx->sgl, 4, U32_MAX, DMA_FROM_DEVICE);
#undef RWX_EXPECT_INIT
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	/*
	 * An empty entry inside the list: the MR path refuses it (an MR
	 * would give it a page and move the data after it), the SGE path
	 * carries it.
	 */
	sg_set_page(&ctx->sgl[1], sg_page(&ctx->sgl[1]), 0, 0);
	ret = rdma_rwx_ctx_init(&rw, qp, port, ctx->sgl, 4, 0, raddr, rkey,
				DMA_FROM_DEVICE);
	rdma_rwx_qp_caps(qp, port, &caps);
	if (caps.iwarp || caps.force_mr) {
		KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	} else {
		KUNIT_EXPECT_GT(test, ret, 0);
		if (ret > 0)
			rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 4,
					     DMA_FROM_DEVICE);
	}
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	sg_set_page(&ctx->sgl[1], sg_page(&ctx->sgl[1]), PAGE_SIZE, 0);

	/* A live context: WRs need a completion or a chain. */
	KUNIT_ASSERT_GT(test, rdma_rwx_ctx_init(&rw, qp, port, ctx->sgl, 4, 0,
						raddr, rkey, DMA_FROM_DEVICE), 0);
	KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, NULL, NULL));
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, qp, port, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, NULL, port, NULL, NULL), -EINVAL);
	/*
	 * An MR chain is handed out once: its LOCAL_INVs name the keys of
	 * init time.  Plain WRs carry no keys and may be had again.
	 */
	KUNIT_EXPECT_NOT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
	if (caps.iwarp || caps.force_mr) {
		KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
		KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, qp, port, &cqe, NULL),
				-EINVAL);
	} else {
		KUNIT_EXPECT_NOT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
	}
	rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 4, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	/* A destroyed context is dead: destroy and post do nothing. */
	rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 4, DMA_FROM_DEVICE);
	KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, NULL, NULL));
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
}

/*
 * iWARP READs (and everything with force_mr) need MRs: once the pool is
 * empty, -EAGAIN, and nothing is lost.  A context that needs more MRs than
 * the whole pool holds gets -ENOSPC, since no retry can succeed.
 * Otherwise (RoCE) READs never touch the pool at all.
 */
static void rwx_engine_pool_empty(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_rw_fixture *ctx = test->priv;
	const struct rwx_shape nine_gaps = {
		.entries = 9, .len = 3000, .lead = 100,
	};
	struct rdma_rw_ctx rw[9];
	struct ib_qp *qp;
	u32 port, taken;
	struct rdma_rwx_caps caps;
	int i, ret = 0;
	bool needs_mr;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	rdma_rwx_qp_caps(qp, rwx_port(test), &caps);
	needs_mr = caps.iwarp || caps.force_mr;
	port = rwx_port(test);
	rwx_engine_pages(test, 2);
	/* Eight contexts in the pool: the ninth READ finds it empty. */
	for (i = 0; i < ARRAY_SIZE(rw); i++) {
		ret = rdma_rwx_ctx_init(&rw[i], qp, port, ctx->sgl, 2, 0,
					ctx->remote_dma,
					ctx->conn.pd->unsafe_global_rkey,
					DMA_FROM_DEVICE);
		if (ret < 0)
			break;
	}
	taken = i;
	KUNIT_EXPECT_EQ_MSG(test, taken, needs_mr ? 8U : 9U, "%s", dev->name);
	KUNIT_EXPECT_EQ(test, ret, needs_mr ? -EAGAIN : 1);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, needs_mr ? 8 : 0);
	while (i--)
		rdma_rwx_ctx_destroy(&rw[i], qp, port, ctx->sgl, 2, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	/* Nine gapped entries need nine MRs; the pool has eight. */
	rwx_engine_list(test, &nine_gaps);
	ret = rdma_rwx_ctx_init(&rw[0], qp, port, ctx->sgl, ctx->nents, 0,
				ctx->remote_dma,
				ctx->conn.pd->unsafe_global_rkey,
				DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, ret, needs_mr ? -ENOSPC : 1);
	if (ret > 0)
		rdma_rwx_ctx_destroy(&rw[0], qp, port, ctx->sgl, ctx->nents,
				     DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
}

/* The buffer a small context took from the cache. */
static void *rwx_engine_ctx_buf(const struct rdma_rw_ctx *rw, bool mr)
{
	return mr ? (void *)rw->reg : (void *)rw->map.wrs;
}

/*
 * A small context takes its buffer (SGE path: its WRs and SGEs; MR path:
 * its op array) from this CPU's cache and gives it back when destroyed,
 * so the next one gets the same buffer; with the cache empty it
 * allocates one, and that allocation failing is -ENOMEM with the context
 * dead.  With migration off, so that one CPU's cache is in play.
 */
static void rwx_engine_buf_cache(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx rw;
	struct ib_qp *qp;
	void *buf = NULL;
	u32 port;
	int ret;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rdma_rwx_qp_caps(qp, port, &caps);
	rwx_engine_pages(test, 2);

#define RWX_INIT_TWO()	rdma_rwx_ctx_init(&rw, qp, port, ctx->sgl, 2, 0,	\
					  ctx->remote_dma,			\
					  ctx->conn.pd->unsafe_global_rkey,	\
					  DMA_TO_DEVICE)
	migrate_disable();
	ret = RWX_INIT_TWO();
	KUNIT_EXPECT_GT(test, ret, 0);
	if (ret > 0) {
		KUNIT_EXPECT_EQ(test, rw.type, caps.force_mr ?
				RDMA_RWX_CTX_MR :
				(RDMA_RWX_CTX_MULTI | RDMA_RWX_CTX_CACHED));
		buf = rwx_engine_ctx_buf(&rw, caps.force_mr);
		rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 2, DMA_TO_DEVICE);
		ret = RWX_INIT_TWO();
		KUNIT_EXPECT_GT(test, ret, 0);
	}
	if (ret > 0) {
		KUNIT_EXPECT_PTR_EQ(test, rwx_engine_ctx_buf(&rw, caps.force_mr), buf);
		rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 2, DMA_TO_DEVICE);
	}
#ifdef CONFIG_FAULT_INJECTION
	rdma_rwx_buf_cache_empty_local();
	current->fail_nth = 1;
	ret = RWX_INIT_TWO();
	current->fail_nth = 0;
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	/* Then it allocates one, which joins the cache at destroy. */
	ret = RWX_INIT_TWO();
	KUNIT_EXPECT_GT(test, ret, 0);
	if (ret > 0)
		rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, 2, DMA_TO_DEVICE);
#endif
	migrate_enable();
#undef RWX_INIT_TWO
}

#define P	((u32)PAGE_SIZE)

/*
 * Every allocation rdma_rwx_ctx_init() makes, failed in turn
 * (rwx_rw_fail_each()): each -ENOMEM must leave no MR taken; kmemleak,
 * scanned after the suite, finds anything left allocated.  The shapes
 * reach the SGE path's WR array (this CPU's buffer cache emptied first,
 * so small contexts allocate too), the MR path's op array and its growth
 * (gaps: one MR per entry), and the private copy of a span that ends
 * inside an entry.
 */
static void rwx_engine_alloc_fail(struct kunit *test)
{
	static const struct rwx_shape shapes[] = {
		{ 40, P, 0, 0 },
		{ 7, 3000, 100, 10 },		/* 7 MRs: the pool has 8 */
		{ 100, 3 * P, 0, 3 * P + 100 },
	};
	u32 i, injected = 0;

	rwx_rw_need_fail_nth(test);
	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		rwx_engine_list(test, &shapes[i]);
		injected += rwx_rw_fail_each(test, false, shapes[i].offset, 64,
					     false, i);
	}
	kunit_info(test, "%u allocation failures injected", injected);
}

#undef P

/*
 * A device that prefers MRs for READs of more than max_sgl_rd entries (no
 * soft device does: the test sets it on the device for a while).  Without
 * an MR pool (RoCE unless ib_core.force_mr) the engine must fall back to
 * the SGE path and still move the data; iWARP and force_mr take the MR
 * path as ever.
 */
static void rwx_engine_sgl_rd(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	const struct rwx_shape s = { .entries = 8, .len = PAGE_SIZE, .offset = 10 };
	struct rdma_rwx_caps caps;
	size_t total = 8 * PAGE_SIZE - 10;
	int ret;

	rwx_rw_ready(test);
	rwx_rw_set_sgl_rd(test, ctx->conn.device, 4);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	KUNIT_ASSERT_EQ(test, caps.max_sgl_rd, 4U);

	rwx_engine_list(test, &s);
	rwx_rw_random(page_address(ctx->remote), total);
	rwx_rw_fill_local(ctx, false);
	ret = rwx_rw_move(test, false, s.offset, DMA_FROM_DEVICE);
	if (list_empty(&rwx_qp(test)->rdma_mrs)) {
		/* No pool: one READ of 8 SGEs (the QP allows 16). */
		KUNIT_EXPECT_FALSE(test, caps.iwarp || caps.force_mr);
		KUNIT_EXPECT_EQ(test, ret, 1);
	} else {
		/* One MR: REG_MR + READ, maybe LOCAL_INV first. */
		KUNIT_EXPECT_GE(test, ret, 2);
		KUNIT_EXPECT_LE(test, ret, 3);
	}
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, s.offset, total), total);
}

/*
 * The one MR policy: its rules on given inputs, then on the device, asked
 * as the single-entry check and the sizing ask it (iwarp -1), agreeing
 * with the answer from the QP's capabilities.
 */
static void rwx_engine_mr_policy(struct kunit *test)
{
	static const struct {
		bool force_mr;
		int iwarp;
		u32 max_sgl_rd, nents;
		enum dma_data_direction dir;
		enum rdma_rwx_mr_need want;
	} rules[] = {
		{ true, 0, 0, 1, DMA_TO_DEVICE, RDMA_RWX_MR_REQUIRED },
		{ true, 1, 4, 8, DMA_FROM_DEVICE, RDMA_RWX_MR_REQUIRED },
		{ false, 0, 0, 1000, DMA_TO_DEVICE, RDMA_RWX_MR_NO },
		{ false, 1, 0, 5, DMA_TO_DEVICE, RDMA_RWX_MR_NO },
		{ false, 1, 0, 1, DMA_FROM_DEVICE, RDMA_RWX_MR_REQUIRED },
		{ false, 1, 4, 8, DMA_FROM_DEVICE, RDMA_RWX_MR_REQUIRED },
		{ false, 0, 4, 4, DMA_FROM_DEVICE, RDMA_RWX_MR_NO },
		{ false, 0, 4, 5, DMA_FROM_DEVICE, RDMA_RWX_MR_PREFERRED },
		{ false, 0, 4, 5, DMA_TO_DEVICE, RDMA_RWX_MR_NO },
		{ false, 0, 0, U32_MAX, DMA_FROM_DEVICE, RDMA_RWX_MR_NO },
	};
	static const enum dma_data_direction dirs[] = { DMA_TO_DEVICE,
							DMA_FROM_DEVICE };
	static const u32 nents[] = { 1, 4, 5, 300 };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct ib_device *dev;
	u32 port;
	int d, i;

	for (i = 0; i < ARRAY_SIZE(rules); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    __rdma_rwx_mr_need(rules[i].force_mr,
						       rules[i].iwarp, NULL, 0,
						       rules[i].max_sgl_rd,
						       rules[i].dir,
						       rules[i].nents),
				    rules[i].want, "rule %d", i);

	rwx_rw_ready(test);
	dev = ctx->conn.device;
	port = rwx_port(test);
	rdma_rwx_qp_caps(rwx_qp(test), port, &caps);
	KUNIT_EXPECT_EQ(test, caps.iwarp, rdma_protocol_iwarp(dev, port));
	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		for (i = 0; i < ARRAY_SIZE(nents); i++)
			KUNIT_EXPECT_EQ_MSG(test,
					    __rdma_rwx_mr_need(caps.force_mr, -1,
							       dev, port,
							       caps.max_sgl_rd,
							       dirs[d], nents[i]),
					    rdma_rwx_mr_need(&caps, dirs[d],
							     nents[i]),
					    "%s dir %d, %u entries", dev->name,
					    dirs[d], nents[i]);
	}
}

/*
 * The sizing helpers agree with ib_core's where ib_core is right, and
 * report what ib_core gets wrong or silently clamps.
 */
static void rwx_engine_sizing(struct kunit *test)
{
	static const unsigned int pages[] = { 1, 2, 31, 32, 33, 255, 256, 257, 1024 };
	struct rwx_rw_fixture *ctx = test->priv;
	struct ib_qp_init_attr attr = {};
	struct rdma_rwx_caps caps;
	struct ib_device *dev;
	unsigned int want;
	u32 port, factor;
	int i;

	rwx_rw_ready(test);
	dev = ctx->conn.device;
	port = rwx_port(test);
	rdma_rwx_qp_caps(rwx_qp(test), port, &caps);

	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_mr_factor(dev, port, pages[i]),
				    rdma_rw_mr_factor(dev, port, pages[i]),
				    "%u pages", pages[i]);
	/* ib_core's rounding overflows here; ours does not. */
	want = rdma_rwx_mr_factor(dev, port, 1024);
	KUNIT_EXPECT_GT(test, rdma_rwx_mr_factor(dev, port, UINT_MAX), want);

	for (i = 0; i < 2; i++) {
		u32 flags = i ? IB_QP_CREATE_INTEGRITY_EN : 0;

		KUNIT_EXPECT_EQ(test, rdma_rwx_max_send_wr(dev, port, 0, flags), 0U);
		KUNIT_EXPECT_EQ(test, rdma_rwx_max_send_wr(dev, port, 128, flags),
				rdma_rw_max_send_wr(dev, port, 128, flags));
		KUNIT_EXPECT_EQ(test, rdma_rwx_max_send_wr(dev, port, UINT_MAX / 2, flags),
				rdma_rw_max_send_wr(dev, port, UINT_MAX / 2, flags));
	}
	factor = rdma_rwx_max_send_wr(dev, port, 1, 0);
	KUNIT_EXPECT_EQ(test, factor, caps.iwarp || caps.force_mr ? 3U : 1U);

	/* A ULP with 16 WRs of its own and 8 contexts. */
	attr.cap.max_send_wr = 16;
	attr.cap.max_rdma_ctxs = 8;
	attr.cap.max_send_sge = 1000;
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port, &attr),
			(int)(16 + 8 * factor));
	KUNIT_EXPECT_EQ(test, attr.port_num, port);
	KUNIT_EXPECT_EQ(test, attr.cap.max_send_sge, (u32)dev->attrs.max_send_sge);

	/* Bad input, each with its documented error; attr is left alone. */
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(NULL, port, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, 0, &attr), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port + 1, &attr), -EINVAL);
	attr.port_num = 0;
	attr.cap.max_send_wr = U32_MAX;
	attr.cap.max_rdma_ctxs = 1;
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port, &attr), -EOVERFLOW);
	attr.cap.max_send_wr = 0;
	attr.cap.max_rdma_ctxs = UINT_MAX;
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port, &attr), -EOVERFLOW);
	/* One context more than the device's send queue holds. */
	attr.cap.max_send_wr = dev->attrs.max_qp_wr;
	attr.cap.max_rdma_ctxs = 1;
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(dev, port, &attr), -ERANGE);
	KUNIT_EXPECT_EQ(test, attr.port_num, 0U);
}

/*
 * The same data and chains on the test device's capability sets, whose
 * device fails what hardware fails: an iWARP READ into memory not
 * registered for remote write, an SGE list longer than the device takes.
 */
static void rwx_engine_data_tdev(struct kunit *test)
{
	rwx_engine_data(test);
}

static void rwx_engine_chain_send_tdev(struct kunit *test)
{
	rwx_engine_chain_send(test);
}

/*
 * The device mapping an MR short or refusing it.  The engine first maps
 * the next entries whole, as ib_core does; when the device maps fewer,
 * it maps the span rdma_rwx_next_mr_span() walks out instead, and the
 * data still moves.  A refusal, or a short map of that span too, is
 * -EINVAL, the device's -ENOMEM -ENOMEM, each with every MR back in the
 * pool.  The SGE path maps no MR, and serves where MRs are only preferred.
 */
static void rwx_engine_map_faults(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	bool mr;

	rwx_rw_ready(test);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	mr = caps.iwarp || caps.force_mr;	/* READs of 4 entries */
	rwx_engine_pages(test, 4);
	rwx_rw_map_short(test, false, mr, 4 * PAGE_SIZE);

	rwx_testdev_inject(ctx->tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 0);
	rwx_rw_map_refused(test, false, mr, RWX_TESTDEV_FAULT_MAP_FAIL, -EINVAL);
	rwx_rw_map_refused(test, false, mr, RWX_TESTDEV_FAULT_MAP_NOMEM, -ENOMEM);
	if (caps.max_sgl_rd && !mr) {
		rwx_engine_pages(test, caps.max_sgl_rd + 4);
		rwx_rw_mr_fallback(test, false,
				   (caps.max_sgl_rd + 4) * PAGE_SIZE);
	}
}

/*
 * Add to what the next check expects what an init of @n pages in
 * direction @dir moves: its path's counter (the one the engine documents
 * for @caps), its MRs (one per READ/WRITE WR of @rw) and its bytes.
 */
static void rwx_counts_expect_init(struct rwx_counts *c,
				   const struct rdma_rwx_caps *caps, u32 n,
				   enum dma_data_direction dir,
				   const struct rdma_rw_ctx *rw)
{
	if (rdma_rwx_mr_need(caps, dir, n)) {
		c->d[RWX_CNT_INIT_MR]++;
		c->d[RWX_CNT_MRS] += rw->nr_ops;
	} else {
		c->d[n == 1 ? RWX_CNT_INIT_SGE_SINGLE : RWX_CNT_INIT_SGE_MULTI]++;
	}
	c->d[dir == DMA_TO_DEVICE ? RWX_CNT_BYTES_WRITE : RWX_CNT_BYTES_READ] +=
		(u64)n * PAGE_SIZE;
}

/*
 * One context of @n pages in direction @dir, each step checked: init
 * counts its path, its MRs and its bytes; the post counts nothing; the
 * destroy counts destroyed.  The path is the one the engine documents for
 * the QP's capabilities.
 */
static void rwx_counters_context(struct kunit *test, struct rwx_counts *c,
				 u32 n, enum dma_data_direction dir)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_loopback_wait *wait;
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx rw;
	int ret;

	wait = kunit_kzalloc(test, sizeof(*wait), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wait);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	rwx_engine_pages(test, n);
	ret = rdma_rwx_ctx_init(&rw, rwx_qp(test), rwx_port(test), ctx->sgl, n,
				0, ctx->remote_dma,
				ctx->conn.pd->unsafe_global_rkey, dir);
	KUNIT_ASSERT_GT(test, ret, 0);
	if (rdma_rwx_mr_need(&caps, dir, n))
		KUNIT_EXPECT_EQ(test, rw.nr_ops, 1U);	/* n pages fit one MR */
	rwx_counts_expect_init(c, &caps, n, dir, &rw);
	rwx_counts_check(test, c, dir == DMA_TO_DEVICE ? "init WRITE" : "init READ");

	rwx_loopback_wait_init(wait);
	ret = rdma_rwx_ctx_post(&rw, rwx_qp(test), rwx_port(test), &wait->cqe,
				NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		KUNIT_ASSERT_EQ(test, rwx_loopback_wait_for(wait), 0);
	rwx_counts_check(test, c, "post");

	rdma_rwx_ctx_destroy(&rw, rwx_qp(test), rwx_port(test), ctx->sgl, n, dir);
	c->d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, c, "destroy");
	/* A second destroy does nothing, and counts nothing. */
	rdma_rwx_ctx_destroy(&rw, rwx_qp(test), rwx_port(test), ctx->sgl, n, dir);
	rwx_counts_check(test, c, "second destroy");
}

/*
 * The same for a context from a bio_vec array of @n pages: its path's
 * counters as for the scatterlist, and init_bvec beside them.
 */
static void rwx_counters_bvec(struct kunit *test, struct rwx_counts *c,
			      u32 n, enum dma_data_direction dir)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct bvec_iter iter = { .bi_size = n * PAGE_SIZE };
	struct rdma_rwx_caps caps;
	struct bio_vec *bvecs;
	struct rdma_rw_ctx rw;
	u32 i;
	int ret;

	bvecs = kunit_kcalloc(test, n, sizeof(*bvecs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bvecs);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	rwx_engine_pages(test, n);
	for (i = 0; i < n; i++)
		bvec_set_page(&bvecs[i], sg_page(&ctx->sgl[i]), PAGE_SIZE, 0);
	ret = rdma_rwx_ctx_init_bvec(&rw, rwx_qp(test), rwx_port(test), bvecs,
				     n, iter, ctx->remote_dma,
				     ctx->conn.pd->unsafe_global_rkey, dir);
	KUNIT_ASSERT_GT(test, ret, 0);
	rwx_counts_expect_init(c, &caps, n, dir, &rw);
	c->d[RWX_CNT_INIT_BVEC] = 1;
	rwx_counts_check(test, c, "bvec init");
	rdma_rwx_ctx_destroy_bvec(&rw, rwx_qp(test), rwx_port(test), bvecs, n,
				  dir);
	c->d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, c, "bvec destroy");
	/* An empty iterator: -EINVAL, counted as such, not as a bvec init. */
	iter.bi_size = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init_bvec(&rw, rwx_qp(test),
						     rwx_port(test), bvecs, n,
						     iter, ctx->remote_dma,
						     ctx->conn.pd->unsafe_global_rkey,
						     dir), -EINVAL);
	c->d[RWX_CNT_ERR_EINVAL] = 1;
	rwx_counts_check(test, c, "bvec bad iterator");
}

/*
 * The device's counters (<debugfs>/rdma_rwx/devices/<dev>/counters) over a
 * known sequence of contexts and failures: each event moves exactly its
 * counters, on its device only, and the no-device set moves only for a
 * call that names no QP.
 */
static void rwx_engine_counters(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	const struct rwx_shape nine_gaps = {
		.entries = 9, .len = 3000, .lead = 100,
	};
	struct rwx_counts c, nodev;
	struct ib_sig_attrs sig = {};
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx *rw;		/* 9: off the stack */
	struct ib_device *dev;
	struct ib_qp *qp;
	u32 port, rkey;
	u64 remote;
	int i, ret;

	rw = kunit_kcalloc(test, 9, sizeof(*rw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rw);
	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	dev = ctx->conn.device;
	remote = ctx->remote_dma;
	rkey = ctx->conn.pd->unsafe_global_rkey;
	rdma_rwx_qp_caps(qp, port, &caps);
	rwx_counts_start(test, &c, dev);
	rwx_counts_start(test, &nodev, NULL);

	rwx_counters_context(test, &c, 1, DMA_TO_DEVICE);
	rwx_counters_context(test, &c, 1, DMA_FROM_DEVICE);
	rwx_counters_context(test, &c, 3, DMA_TO_DEVICE);
	rwx_counters_context(test, &c, 3, DMA_FROM_DEVICE);
	rwx_counters_bvec(test, &c, 1, DMA_TO_DEVICE);
	rwx_counters_bvec(test, &c, 3, DMA_FROM_DEVICE);

	/* Bad input: -EINVAL, on the device when the call names one. */
	rwx_engine_pages(test, 1);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init(&rw[0], qp, port, ctx->sgl, 1,
						0, remote, rkey,
						DMA_BIDIRECTIONAL), -EINVAL);
	c.d[RWX_CNT_ERR_EINVAL] = 1;
	rwx_counts_check(test, &c, "bad direction");
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init(&rw[0], qp, 0, ctx->sgl, 1, 0,
						remote, rkey, DMA_TO_DEVICE),
			-EINVAL);
	c.d[RWX_CNT_ERR_EINVAL] = 1;
	rwx_counts_check(test, &c, "bad port");
	rwx_counts_check(test, &nodev, "errors on the device");
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_init(&rw[0], NULL, port, ctx->sgl, 1,
						0, remote, rkey, DMA_TO_DEVICE),
			-EINVAL);
	rwx_counts_check(test, &c, "no QP");
	nodev.d[RWX_CNT_ERR_EINVAL] = 1;
	rwx_counts_check(test, &nodev, "no QP");

	/* Any other error: a signature context on a QP without integrity. */
	sig.mem.sig_type = IB_SIG_TYPE_T10_DIF;
	sig.mem.sig.dif.pi_interval = 512;
	sig.mem.sig.dif.bg_type = IB_T10DIF_CRC;
	KUNIT_EXPECT_EQ(test,
			rdma_rwx_ctx_signature_init(&rw[0], qp, port, ctx->sgl,
						    1, NULL, 0, &sig, remote,
						    rkey, DMA_TO_DEVICE),
			-EOPNOTSUPP);
	c.d[RWX_CNT_ERR_OTHER] = 1;
	rwx_counts_check(test, &c, "signature without integrity");

#ifdef CONFIG_FAULT_INJECTION
	/* The first allocation (this CPU's cache emptied) fails: -ENOMEM. */
	rwx_engine_pages(test, 3);
	migrate_disable();
	rdma_rwx_buf_cache_empty_local();
	current->fail_nth = 1;
	ret = rdma_rwx_ctx_init(&rw[0], qp, port, ctx->sgl, 3, 0, remote, rkey,
				DMA_TO_DEVICE);
	current->fail_nth = 0;
	migrate_enable();
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	c.d[RWX_CNT_ERR_ENOMEM] = 1;
	rwx_counts_check(test, &c, "allocation failed");
#endif

	rwx_engine_pages(test, 2);
	if (rdma_rwx_mr_need(&caps, DMA_FROM_DEVICE, 2)) {
		/* Eight contexts empty the pool: the ninth gets -EAGAIN. */
		for (i = 0; i < 8; i++)
			KUNIT_ASSERT_GT(test,
					rdma_rwx_ctx_init(&rw[i], qp, port,
							  ctx->sgl, 2, 0, remote,
							  rkey, DMA_FROM_DEVICE),
					0);
		c.d[RWX_CNT_INIT_MR] = 8;
		c.d[RWX_CNT_MRS] = 8;
		c.d[RWX_CNT_BYTES_READ] = 8 * 2 * PAGE_SIZE;
		rwx_counts_check(test, &c, "pool emptied");
		KUNIT_EXPECT_EQ(test,
				rdma_rwx_ctx_init(&rw[8], qp, port, ctx->sgl, 2,
						  0, remote, rkey,
						  DMA_FROM_DEVICE), -EAGAIN);
		c.d[RWX_CNT_ERR_EAGAIN] = 1;
		rwx_counts_check(test, &c, "pool empty");
		for (i = 0; i < 8; i++)
			rdma_rwx_ctx_destroy(&rw[i], qp, port, ctx->sgl, 2,
					     DMA_FROM_DEVICE);
		c.d[RWX_CNT_DESTROY] = 8;
		rwx_counts_check(test, &c, "pool refilled");

		/* Nine gapped entries need nine MRs; the pool has eight. */
		rwx_engine_list(test, &nine_gaps);
		KUNIT_EXPECT_EQ(test,
				rdma_rwx_ctx_init(&rw[0], qp, port, ctx->sgl,
						  ctx->nents, 0, remote, rkey,
						  DMA_FROM_DEVICE), -ENOSPC);
		c.d[RWX_CNT_ERR_ENOSPC] = 1;
		rwx_counts_check(test, &c, "pool too small");
	} else {
		/*
		 * The device prefers MRs for READs of more than 4 entries and
		 * the QP has no pool: the SGE fallback.
		 */
		KUNIT_ASSERT_EQ(test, dev->attrs.max_sgl_rd, 0U);
		KUNIT_ASSERT_NOT_NULL(test,
				      kunit_alloc_resource(test, rwx_rw_sgl_rd_hold,
							   rwx_rw_restore_sgl_rd,
							   GFP_KERNEL, dev));
		dev->attrs.max_sgl_rd = 4;
		rwx_engine_pages(test, 8);
		ret = rdma_rwx_ctx_init(&rw[0], qp, port, ctx->sgl, 8, 0, remote,
					rkey, DMA_FROM_DEVICE);
		KUNIT_ASSERT_EQ(test, ret, 1);
		c.d[RWX_CNT_SGE_FALLBACK] = 1;
		c.d[RWX_CNT_INIT_SGE_MULTI] = 1;
		c.d[RWX_CNT_BYTES_READ] = 8 * PAGE_SIZE;
		rwx_counts_check(test, &c, "SGE fallback");
		rdma_rwx_ctx_destroy(&rw[0], qp, port, ctx->sgl, 8,
				     DMA_FROM_DEVICE);
		c.d[RWX_CNT_DESTROY] = 1;
		rwx_counts_check(test, &c, "SGE fallback destroyed");
		dev->attrs.max_sgl_rd = 0;
	}
	rwx_counts_check(test, &nodev, "the sequence");
}

/*
 * A device that appears gets counters of its own, all zero, and counts
 * only its own contexts (each test device is new to the engine).
 */
static void rwx_engine_counters_tdev(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_counts c;
	u32 i;

	rwx_rw_ready(test);
	rwx_counts_start(test, &c, ctx->conn.device);
	for (i = 0; i < RWX_CNT_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, c.v[i], 0ULL, "new device: %s",
				    rdma_rwx_dev_counter_name(i));
	rwx_counters_context(test, &c, 1, DMA_TO_DEVICE);
	rwx_counters_context(test, &c, 4, DMA_FROM_DEVICE);
}

/*
 * One page each way, set up and destroyed: set @a moves by that, and so
 * does set @b unless NULL.
 */
static void rwx_counters_one_page(struct kunit *test, struct rwx_counts *a,
				  struct rwx_counts *b, const char *what)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx rw;
	enum dma_data_direction dir;

	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	rwx_engine_pages(test, 1);
	for (dir = DMA_TO_DEVICE; dir <= DMA_FROM_DEVICE; dir++) {
		KUNIT_ASSERT_GT(test, rdma_rwx_ctx_init(&rw, rwx_qp(test),
							rwx_port(test), ctx->sgl,
							1, 0, ctx->remote_dma,
							ctx->conn.pd->unsafe_global_rkey,
							dir), 0);
		rwx_counts_expect_init(a, &caps, 1, dir, &rw);
		if (b)
			rwx_counts_expect_init(b, &caps, 1, dir, &rw);
		rdma_rwx_ctx_destroy(&rw, rwx_qp(test), rwx_port(test),
				     ctx->sgl, 1, dir);
	}
	a->d[RWX_CNT_DESTROY] = 2;
	rwx_counts_check(test, a, what);
	if (b) {
		b->d[RWX_CNT_DESTROY] = 2;
		rwx_counts_check(test, b, what);
	}
}

/*
 * A device's counters retired, as its removal retires them, while a
 * context is live on it (a ULP that hears of the removal after the engine
 * does destroys its contexts later): the device's set is gone, and from
 * then on its contexts count in the no-device set - even on a CPU whose
 * cache still holds the given-back set (the test stays on that CPU) -
 * while the global file keeps every count.  A grace period later the set
 * is free, the last given back: a device that appears then takes it, and
 * its file starts from zero - contexts_live too, though the set's first
 * device left a context live on it - while the set's counts so far stay
 * in the global file, none lost, none twice.
 */
static void rwx_engine_counters_retired(struct kunit *test)
{
	const struct cpumask *here = cpumask_of(raw_smp_processor_id());
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_counts total, nodev;
	struct rdma_rwx_caps caps;
	struct ib_device *dev, *next_dev;
	struct rwx_testdev *next;
	struct rwx_dbg_file file;
	struct rwx_dbg dbg = {};
	struct rdma_rw_ctx rw;
	int ret;
	u32 i;

	/* Each case runs in a thread of its own: no need to undo this. */
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, here), 0);
	rwx_rw_ready(test);
	dev = ctx->conn.device;
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	rwx_counts_start_total(test, &total);
	rwx_engine_pages(test, 1);
	KUNIT_ASSERT_GT(test, rdma_rwx_ctx_init(&rw, rwx_qp(test),
						rwx_port(test), ctx->sgl, 1, 0,
						ctx->remote_dma,
						ctx->conn.pd->unsafe_global_rkey,
						DMA_TO_DEVICE), 0);
	rwx_counts_expect_init(&total, &caps, 1, DMA_TO_DEVICE, &rw);
	rwx_counts_check(test, &total, "live context");

	rdma_rwx_stats_forget_device(dev);
	KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_dev_counter(dev, RWX_CNT_DESTROY),
			    U64_MAX, "%s still has counters", dev->name);
	rwx_counts_check(test, &total, "device retired");
	rwx_counts_start(test, &nodev, NULL);
	rdma_rwx_ctx_destroy(&rw, rwx_qp(test), rwx_port(test), ctx->sgl, 1,
			     DMA_TO_DEVICE);
	total.d[RWX_CNT_DESTROY] = 1;
	nodev.d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, &total, "live context destroyed");
	rwx_counts_check(test, &nodev, "live context destroyed");
	rwx_counters_one_page(test, &total, &nodev, "after the removal");

	rdma_rwx_stats_retire_barrier();
	next = rwx_testdev_create("rwxcnt%d", &rwx_testdev_sge3_rd2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, next);
	next_dev = rwx_testdev_ibdev(next);
	ret = rwx_dbg_open(&dbg);
	if (!ret)
		ret = rwx_dbg_counters_read(&dbg, next_dev, &file);
	rwx_dbg_close(&dbg);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s's counters file", next_dev->name);
	KUNIT_EXPECT_EQ(test, ret ? -1LL : file.live, 0LL);
	for (i = 0; i < RWX_CNT_NR; i++) {
		KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_dev_counter(next_dev, i),
				    0ULL, "a new device's %s",
				    rdma_rwx_dev_counter_name(i));
		KUNIT_EXPECT_EQ_MSG(test, ret ? U64_MAX : file.v[i], 0ULL,
				    "a new device's file: %s",
				    rdma_rwx_dev_counter_name(i));
	}
	rwx_counts_check(test, &total, "a free set taken again");
	rwx_testdev_destroy(next);
	rwx_counts_check(test, &total, "its device gone");
	rwx_counters_one_page(test, &total, &nodev, "after both");
}

static struct kunit_case rwx_engine_cases[] = {
	KUNIT_CASE_PARAM(rwx_engine_data, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_data_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_chain_send, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_chain_send_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_map_faults, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_bad_input, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_pool_empty, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_sgl_rd, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_alloc_fail, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_buf_cache, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_mr_policy, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_sizing, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_counters, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_counters_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_engine_counters_retired, rwx_test_tdev_gen_params),
	{}
};

static struct kunit_suite rwx_engine_suite = {
	.name = "rwx_engine",
	.init = rwx_engine_init,
	.exit = rwx_engine_exit,
	.test_cases = rwx_engine_cases,
};

kunit_test_suite(rwx_engine_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx moving data on rxe0, siw0 and the test device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
MODULE_IMPORT_NS(RDMA_RWX_TESTING);
