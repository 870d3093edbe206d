// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: bio_vec contexts (rdma_rwx_ctx_init_bvec()) on rxe0, siw0 and the
 * test device's capability sets.  The iterator check and segment count
 * without a device; data moved byte-exact from bvec arrays (offsets
 * inside and at bvecs, ends inside a bvec with entries left over,
 * multi-page bvecs, empty bvecs, gaps and shared pages on the MR path),
 * each shape's WR chain first compared WR for WR with the one the
 * engine's scatterlist path builds for the same segments; the same
 * comparison over random arrays and iterators; bad input; every
 * allocation and DMA mapping of init failed in turn; the MR pool empty;
 * the device refusing or shortening MR mappings.  Nothing may stay
 * mapped (DMA-API debug on the test device), allocated (kmemleak) or
 * taken from the pool.
 */

#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "../drivers/rwx/rwx_internal.h"
#include "rwx_counts.h"
#include "rwx_kunit_compat.h"
#include "rwx_loopback.h"
#include "rwx_rw_fixture.h"
#include "rwx_test_devs.h"

#define RWX_DIFF_CASES		500
#define RWX_DIFF_CHUNKS		128
#define RWX_DIFF_CHUNK_ORDER	2	/* a chunk is 4 pages */

static int rwx_bvec_init(struct kunit *test)
{
	return rwx_rw_fixture_open(test, true, false);
}

static void rwx_bvec_exit(struct kunit *test)
{
	rwx_rw_fixture_close(test);
}

/*
 * The scatterlist of the segments ctx->iter covers in ctx->bvecs, one
 * entry per non-empty one, by kernel address: what the engine's
 * scatterlist path must be given to build the same chain.
 */
static void rwx_bvec_equiv_sgl(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u32 idx = ctx->iter.bi_idx, done = ctx->iter.bi_bvec_done;
	u32 left = ctx->iter.bi_size, n = 0, len;

	while (left) {
		struct bio_vec *bv = &ctx->bvecs[idx];

		KUNIT_ASSERT_LT(test, idx, ctx->nr_bvec);
		len = min(bv->bv_len - done, left);
		if (len) {
			KUNIT_ASSERT_LT(test, n, RWX_MAX_ENTRIES);
			sg_set_buf(&ctx->sgl[n++], bvec_virt(bv) + done, len);
		}
		left -= len;
		idx++;
		done = 0;
	}
	if (n)
		sg_mark_end(&ctx->sgl[n - 1]);
	ctx->nents = n;
}

/* The iterator from byte @offset of the array on, @size bytes. */
static void rwx_bvec_iter(struct kunit *test, u32 offset, u32 size)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u32 idx = 0;

	while (idx < ctx->nr_bvec && offset >= ctx->bvecs[idx].bv_len) {
		offset -= ctx->bvecs[idx].bv_len;
		idx++;
	}
	ctx->iter = (struct bvec_iter){
		.bi_idx = idx, .bi_bvec_done = offset, .bi_size = size,
	};
	sg_init_table(ctx->sgl, RWX_MAX_ENTRIES);
	rwx_bvec_equiv_sgl(test);
}

/*
 * A bvec array of shape @s, the iterator over its transfer and the
 * equivalent scatterlist; returns the transfer's size.
 */
static u32 rwx_bvec_build(struct kunit *test, const struct rwx_shape *s)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u8 *carved = rwx_rw_shape_start(test, s);
	u32 i, total = 0;

	for (i = 0; i < s->entries; i++) {
		u32 len = s->empty && i % 3 == 1 ? 0 : s->len;

		rwx_bvec_set(&ctx->bvecs[i], rwx_rw_shape_entry(test, s, carved, i),
			     len);
		total += len;
	}
	ctx->nr_bvec = s->entries;
	KUNIT_ASSERT_GT(test, total, s->offset + s->tail);
	rwx_bvec_iter(test, s->offset, total - s->offset - s->tail);
	return ctx->iter.bi_size;
}

/*
 * Init a context, from the bvecs or from the equivalent scatterlist,
 * record its chain and destroy it.
 */
static void rwx_bvec_chain(struct kunit *test, bool bvec, u64 raddr, u32 rkey,
			   enum dma_data_direction dir)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_chain *c = bvec ? ctx->bvec_chain : ctx->sg_chain;
	struct rwx_rw_list l = rwx_rw_list_of(ctx, bvec, 0);
	struct ib_send_wr *first;
	struct rdma_rw_ctx rw;

	c->nr_wrs = 0;
	c->nr_inv = 0;
	c->ret = rwx_rw_init_to(test, &rw, &l, raddr, rkey, dir);
	if (c->ret < 0)
		return;
	first = rdma_rwx_ctx_wrs(&rw, rwx_qp(test), rwx_port(test), &ctx->cqe,
				 NULL);
	KUNIT_EXPECT_NOT_NULL(test, first);
	rwx_chain_record(c, rwx_qp(test), first, &ctx->cqe);
	rwx_rw_destroy(test, &rw, &l, dir);
}

/*
 * The bvec context's chain against the scatterlist context's, WR for WR
 * (rwx_chain_compare(), LOCAL_INVs left out): the same result, and the
 * same WRs and SGEs.
 */
static bool rwx_bvec_compare(struct kunit *test, const char *what)
{
	struct rwx_rw_fixture *ctx = test->priv;
	const struct rwx_chain *a = ctx->bvec_chain, *b = ctx->sg_chain;
	u32 i, j;

	if (a->ret < 0 || b->ret < 0) {
		KUNIT_EXPECT_EQ_MSG(test, a->ret, b->ret, "%s: init result", what);
		return false;
	}
	KUNIT_EXPECT_EQ_MSG(test, a->ret - a->nr_inv, b->ret - b->nr_inv,
			    "%s: WR count", what);
	KUNIT_ASSERT_EQ_MSG(test, a->nr_wrs - a->nr_inv, b->nr_wrs - b->nr_inv,
			    "%s: WRs", what);
	KUNIT_ASSERT_EQ_MSG(test, a->nr_sges, b->nr_sges, "%s: SGEs", what);
	rwx_chain_compare(test, a, b, false, what, &i, &j);
	return true;
}

/* Both chains of the current array, compared. */
static bool rwx_bvec_diff_one(struct kunit *test, const char *what, u64 raddr,
			      u32 rkey, enum dma_data_direction dir)
{
	rwx_bvec_chain(test, false, raddr, rkey, dir);
	rwx_bvec_chain(test, true, raddr, rkey, dir);
	return rwx_bvec_compare(test, what);
}

/* Whether the array is zero outside the transfer. */
static bool rwx_bvec_outside_zero(struct rwx_rw_fixture *ctx)
{
	u32 i, done = ctx->iter.bi_bvec_done, left = ctx->iter.bi_size;

	for (i = 0; i < ctx->nr_bvec; i++) {
		struct bio_vec *bv = &ctx->bvecs[i];
		u8 *p = bvec_virt(bv);
		u32 from = 0, to = 0, n;

		if (i == ctx->iter.bi_idx)
			from = done;
		if (i >= ctx->iter.bi_idx && left) {
			n = min(bv->bv_len - from, left);
			to = from + n;
			left -= n;
		} else {
			from = 0;
		}
		if (memchr_inv(p, 0, from) ||
		    memchr_inv(p + to, 0, bv->bv_len - to))
			return false;
	}
	return true;
}

/*
 * One context of the current array, from the bvecs or from the equivalent
 * scatterlist: init, its chain recorded, posted as it is and waited for,
 * destroyed; after WRITEs fenced on iWARP.  Returns init's WR count or an
 * error.  The chain is posted, so that the MRs' keys stay as the device
 * knows them.
 */
static int rwx_bvec_move_rec(struct kunit *test, bool bvec,
			     enum dma_data_direction dir)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_chain *c = bvec ? ctx->bvec_chain : ctx->sg_chain;
	struct rwx_rw_list l = rwx_rw_list_of(ctx, bvec, 0);
	struct ib_qp *qp = rwx_qp(test);
	struct rwx_loopback_wait *wait;
	struct ib_send_wr *first;
	struct rdma_rw_ctx rw;
	int ret;

	c->nr_wrs = 0;
	c->nr_inv = 0;
	wait = kunit_kzalloc(test, sizeof(*wait), GFP_KERNEL);
	if (!wait)
		return -ENOMEM;
	c->ret = rwx_rw_init(test, &rw, &l, dir);
	if (c->ret < 0)
		return c->ret;
	rwx_loopback_wait_init(wait);
	first = rdma_rwx_ctx_wrs(&rw, qp, rwx_port(test), &wait->cqe, NULL);
	KUNIT_EXPECT_NOT_NULL(test, first);
	rwx_chain_record(c, qp, first, &wait->cqe);
	ret = first ? ib_post_send(qp, first, NULL) : -EINVAL;
	if (!ret)
		ret = rwx_loopback_wait_for(wait);
	if (ret == -ETIMEDOUT)
		return ret;	/* the WRs may still run: leave them mapped */
	rwx_rw_destroy(test, &rw, &l, dir);
	if (!ret && dir == DMA_TO_DEVICE)
		ret = rwx_rw_fence(test, true);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	return ret ?: c->ret;
}

/*
 * One shape, each direction moved by the scatterlist path and then by the
 * bvec path: the same chain WR for WR, the bytes right, nothing outside
 * the transfer touched.
 */
static void rwx_bvec_shape(struct kunit *test, const struct rwx_shape *s)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u8 *remote = page_address(ctx->remote);
	char what[96];
	size_t total;
	int ret, d;

	total = rwx_bvec_build(test, s);
	KUNIT_ASSERT_LE(test, total, RWX_REMOTE_LEN);
	for (d = 0; d < 2; d++) {
		enum dma_data_direction dir = d ? DMA_FROM_DEVICE : DMA_TO_DEVICE;

		snprintf(what, sizeof(what), "%s %u x %u (lead %u%s%s) at %u, tail %u",
			 d ? "READ" : "WRITE", s->entries, s->len, s->lead,
			 s->carve ? ", carved" : "", s->empty ? ", empties" : "",
			 s->offset, s->tail);
		if (d) {	/* random remote data into zeroed local memory */
			rwx_rw_random(remote, total);
			rwx_rw_fill_local(ctx, false);
		} else {	/* random local data to zeroed remote memory */
			rwx_rw_fill_local(ctx, true);
			memset(remote, 0, RWX_REMOTE_LEN);
		}
		ret = rwx_bvec_move_rec(test, false, dir);
		KUNIT_EXPECT_GT_MSG(test, ret, 0, "%s: scatterlist path", what);
		if (d)
			rwx_rw_fill_local(ctx, false);
		else
			memset(remote, 0, RWX_REMOTE_LEN);
		ret = rwx_bvec_move_rec(test, true, dir);
		KUNIT_EXPECT_GT_MSG(test, ret, 0, "%s", what);
		if (ret <= 0)
			continue;
		rwx_bvec_compare(test, what);
		KUNIT_EXPECT_EQ_MSG(test, rwx_rw_matching(ctx, 0, total), total,
				    "%s: bytes right", what);
		if (d)
			KUNIT_EXPECT_TRUE_MSG(test, rwx_bvec_outside_zero(ctx),
					      "%s: wrote outside", what);
		else if (total < RWX_REMOTE_LEN)
			KUNIT_EXPECT_NULL_MSG(test, memchr_inv(remote + total, 0,
							       RWX_REMOTE_LEN - total),
					      "%s: wrote past the end", what);
	}
}

#define P	((u32)PAGE_SIZE)

static void rwx_bvec_data(struct kunit *test)
{
	static const struct rwx_shape shapes[] = {
		{ 1, P, 0, P - 1 },		/* 1 byte */
		{ 1, P, 0, 0 },			/* one page, one bvec */
		{ 1, 3 * P, 200, 100, 50 },	/* one multi-page bvec, inside */
		{ 2, P, 0, 100 },		/* offset inside the first */
		{ 4, P, 0, P + 10, 2 * P - 20 },/* starts, ends inside bvecs */
		{ 16, P, 0, 0 },		/* the QP's SGE limit */
		{ 17, P, 0, P },		/* limit + 1, bi_idx 1 */
		{ 20, P, 0, 0, 3 * P },		/* bvecs left over at the end */
		{ 3, 4 * P, 0, 5 * P + 7 },	/* offset inside a middle bvec */
		{ 64, 2 * P, 0, 3000 },
		{ 256, P, 0, 0 },		/* one full MR */
		{ 300, P, 0, 1 },		/* two MRs */
		{ 1024, P, 0, 0 },		/* 4 MiB in pages */
		{ 64, 16 * P, 0, 0 },		/* 4 MiB in 64 KiB bvecs */
		{ 1, 512 * P, 0, 512 },		/* 2 MiB in one bvec */
		{ 100, 3 * P, 0, 3 * P + 100 },	/* bvecs straddle MRs */
		{ 6, 3000, 100, 10 },		/* gaps between all bvecs */
		{ 12, P, 0, 0, 0, false, true },	/* empty bvecs */
		{ 9, P, 0, P, P / 2, false, true },	/* ... inside the range */
		{ 200, 1000, 0, 0, 0, true },	/* sharing pages */
		{ 300, 700, 24, 50, 33, true },	/* ... more than 256 */
	};
	int i;

	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(shapes); i++)
		rwx_bvec_shape(test, &shapes[i]);
}

static void rwx_bvec_data_tdev(struct kunit *test)
{
	rwx_bvec_data(test);
}

#undef P

/* The checks and the count, no device needed. */
static void rwx_bvec_segments(struct kunit *test)
{
	struct rwx_rw_fixture *ctx = test->priv;
	struct bio_vec *bv = ctx->bvecs;
	struct bvec_iter it;
	u8 *buf;
	u32 n, i;

#define SEGS(nr, idx, done, size)	rdma_rwx_bvec_segments(bv, nr,	\
		(struct bvec_iter){ .bi_idx = idx, .bi_bvec_done = done,	\
				    .bi_size = size }, &n)
	buf = kunit_kzalloc(test, 8 * 1000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < 8; i++)		/* 1000, 0, 1000, 0, ... */
		rwx_bvec_set(&bv[i], buf + i * 1000, i & 1 ? 0 : 1000);

	n = 99;
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 0, 4000), 0);
	KUNIT_EXPECT_EQ(test, n, 4U);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 999, 2), 0);	/* inside, across */
	KUNIT_EXPECT_EQ(test, n, 2U);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 1000, 1), 0);	/* at its end */
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, SEGS(8, 2, 10, 100), 0);	/* inside one */
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, SEGS(8, 1, 0, 2500), 0);	/* from an empty one */
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, SEGS(7, 6, 0, 1000), 0);	/* the last */
	KUNIT_EXPECT_EQ(test, n, 1U);

	n = 99;
	KUNIT_EXPECT_EQ(test, SEGS(0, 0, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, SEGS(8, 8, 0, 1), -EINVAL);	/* bi_idx past */
	KUNIT_EXPECT_EQ(test, SEGS(8, 100, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 0, 4001), -EINVAL);	/* size past */
	KUNIT_EXPECT_EQ(test, SEGS(6, 0, 0, 4000), -EINVAL);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 0, U32_MAX), -EINVAL);
	KUNIT_EXPECT_EQ(test, SEGS(8, 0, 1001, 1), -EINVAL);	/* done past */
	KUNIT_EXPECT_EQ(test, SEGS(8, 1, 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, n, 99U);
	it = (struct bvec_iter){ .bi_size = 1 };
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_segments(NULL, 8, it, &n), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_segments(bv, 8, it, NULL), -EINVAL);
#undef SEGS
}

/*
 * A bvec array changed after its segments were counted (a bv_len grown
 * or shrunk): the list built from it stops at the array's end and at the
 * list's, with -EINVAL, never reading or writing past either.  The array
 * and the list are allocations of exactly their size, so that KASAN sees
 * a step past them.
 */
static void rwx_bvec_changed(struct kunit *test)
{
	struct bvec_iter it = { .bi_size = 3000 };
	struct scatterlist *sgl;
	struct bio_vec *bv;
	u8 *buf;
	u32 n, i;

	buf = kunit_kzalloc(test, 4000, GFP_KERNEL);
	bv = kunit_kmalloc_array(test, 4, sizeof(*bv), GFP_KERNEL);
	sgl = kunit_kmalloc_array(test, 3, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, bv);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	for (i = 0; i < 4; i++)		/* 1000, 1000, 1000, 0 */
		rwx_bvec_set(&bv[i], buf + i * 1000, i < 3 ? 1000 : 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_bvec_segments(bv, 4, it, &n), 0);
	KUNIT_ASSERT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_to_sgl(bv, 4, it, sgl, n), 3);
	KUNIT_EXPECT_EQ(test, sgl[2].length, 1000U);
	KUNIT_EXPECT_TRUE(test, sg_is_last(&sgl[2]));

	bv[1].bv_len = 500;	/* shrunk: the walk reaches the array's end */
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_to_sgl(bv, 4, it, sgl, n), -EINVAL);
	bv[1].bv_len = 0;	/* emptied: the same */
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_to_sgl(bv, 4, it, sgl, n), -EINVAL);
	bv[1].bv_len = 1000;	/* one grown into the empty one: a 4th segment */
	bv[0].bv_len = 500;
	bv[3].bv_len = 1000;
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_to_sgl(bv, 4, it, sgl, n), -EINVAL);
	bv[0].bv_len = 2000;	/* grown: fewer segments, all in the list */
	KUNIT_EXPECT_EQ(test, rdma_rwx_bvec_to_sgl(bv, 4, it, sgl, n), 2);
}

/*
 * Bad input fails with -EINVAL before anything is mapped; a context's
 * kind is its engine's: the scatterlist destroy leaves a bvec context
 * alone and the other way round.
 */
static void rwx_bvec_bad_input(struct kunit *test)
{
	const struct rwx_shape four = { .entries = 4, .len = PAGE_SIZE };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct ib_cqe cqe = {};
	struct rdma_rw_ctx rw;
	struct bvec_iter it;
	struct ib_qp *qp;
	u32 port, rkey;
	u64 raddr;
	bool mr;
	int ret;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rkey = rwx_rkey(test);
	raddr = ctx->remote_dma;
	rwx_bvec_build(test, &four);
	rdma_rwx_qp_caps(qp, port, &caps);
	mr = caps.iwarp || caps.force_mr;

#define INIT(c, q, p, bv, n, iter, dir)					\
	rdma_rwx_ctx_init_bvec(c, q, p, bv, n, iter, raddr, rkey, dir)
#define IT(idx, done, size)	((struct bvec_iter){ .bi_idx = (idx),	\
				  .bi_bvec_done = (done), .bi_size = (size) })
#define EXPECT_EINVAL(c, q, p, bv, n, iter, dir) do {			\
		rw.type = 0;						\
		KUNIT_EXPECT_EQ(test, INIT(c, q, p, bv, n, iter, dir), -EINVAL); \
		KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);	\
		KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);			\
	} while (0)
	it = IT(0, 0, 4 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, INIT(NULL, qp, port, ctx->bvecs, 4, it,
				   DMA_TO_DEVICE), -EINVAL);
	EXPECT_EINVAL(&rw, NULL, port, ctx->bvecs, 4, it, DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, NULL, 4, it, DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 0, it, DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, it, DMA_BIDIRECTIONAL);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, it, DMA_NONE);
	EXPECT_EINVAL(&rw, qp, 0, ctx->bvecs, 4, it, DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port + 1, ctx->bvecs, 4, it, DMA_FROM_DEVICE);
	/* An empty transfer, an iterator past the array, in both directions. */
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(0, 0, 0), DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(4, 0, 1), DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(4, 0, 1), DMA_FROM_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(0, 0, 4 * PAGE_SIZE + 1),
		      DMA_TO_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(3, 1, PAGE_SIZE),
		      DMA_FROM_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 3, IT(0, 0, 4 * PAGE_SIZE),
		      DMA_FROM_DEVICE);
	EXPECT_EINVAL(&rw, qp, port, ctx->bvecs, 4, IT(1, PAGE_SIZE + 1, 1),
		      DMA_TO_DEVICE);
#undef EXPECT_EINVAL

	/* A live context: WRs need a completion or a chain. */
	ret = INIT(&rw, qp, port, ctx->bvecs, 4, it, DMA_FROM_DEVICE);
	KUNIT_ASSERT_GT(test, ret, 0);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_BVEC |
			(mr ? RDMA_RWX_CTX_MR :
			 RDMA_RWX_CTX_MULTI | RDMA_RWX_CTX_CACHED));
	/* Not the scatterlist engine's: its destroy leaves it alone. */
	rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, ctx->nents,
			     DMA_FROM_DEVICE);
	KUNIT_EXPECT_NE(test, rw.type, RDMA_RWX_CTX_DEAD);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_BVEC |
			(mr ? RDMA_RWX_CTX_MR :
			 RDMA_RWX_CTX_MULTI | RDMA_RWX_CTX_CACHED));
	KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, NULL, NULL));
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, qp, port, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, NULL, port, NULL, NULL), -EINVAL);
	/* An MR chain is handed out once; plain WRs may be had again. */
	KUNIT_EXPECT_NOT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
	if (mr) {
		KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_BVEC |
				RDMA_RWX_CTX_MR | RDMA_RWX_CTX_BUILT);
		KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
		KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, qp, port, &cqe, NULL),
				-EINVAL);
	} else {
		KUNIT_EXPECT_NOT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));
	}
	/* Wrong count and direction, no bvecs: the context knows its own. */
	rdma_rwx_ctx_destroy_bvec(&rw, qp, port, NULL, 1, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	/* Dead: destroy and wrs do nothing. */
	rdma_rwx_ctx_destroy_bvec(&rw, qp, port, ctx->bvecs, 4, DMA_FROM_DEVICE);
	KUNIT_EXPECT_NULL(test, rdma_rwx_ctx_wrs(&rw, qp, port, &cqe, NULL));

	/* A scatterlist context is left alone by the bvec destroy. */
	ret = rdma_rwx_ctx_init(&rw, qp, port, ctx->sgl, ctx->nents, 0, raddr,
				rkey, DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, ret, 0);
	rdma_rwx_ctx_destroy_bvec(&rw, qp, port, ctx->bvecs, 4, DMA_TO_DEVICE);
	KUNIT_EXPECT_NE(test, rw.type, RDMA_RWX_CTX_DEAD);
	rdma_rwx_ctx_destroy(&rw, qp, port, ctx->sgl, ctx->nents, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
#undef IT
#undef INIT
}

/*
 * A single segment on the SGE path lives in the context: init makes no
 * fault-injectable call but its DMA mapping's fault point, so of a
 * fail_nth of 2 one call is left.  Failing that mapping is -ENOMEM with
 * nothing mapped.
 */
static void rwx_bvec_single(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	const struct rwx_shape one = { .entries = 3, .len = PAGE_SIZE,
					.offset = PAGE_SIZE + 5, .tail = PAGE_SIZE };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx rw;
	unsigned int left;
	int ret;

	rwx_rw_ready(test);
	rwx_bvec_build(test, &one);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	if (caps.force_mr)
		kunit_skip(test, "MR path (force_mr)");
	migrate_disable();
	rdma_rwx_buf_cache_empty_local();
	current->fail_nth = 2;
	ret = rdma_rwx_ctx_init_bvec(&rw, rwx_qp(test), rwx_port(test),
				     ctx->bvecs, ctx->nr_bvec, ctx->iter,
				     ctx->remote_dma, rwx_rkey(test),
				     DMA_TO_DEVICE);
	left = current->fail_nth;
	current->fail_nth = 0;
	migrate_enable();
	KUNIT_ASSERT_EQ(test, ret, 1);
	KUNIT_EXPECT_EQ(test, left, 1U);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_BVEC | RDMA_RWX_CTX_SINGLE);
	KUNIT_EXPECT_PTR_EQ(test, rw.single.wr.wr.sg_list, &rw.single.sge);
	KUNIT_EXPECT_EQ(test, rw.single.sge.length, PAGE_SIZE - 5);
	rdma_rwx_ctx_destroy_bvec(&rw, rwx_qp(test), rwx_port(test),
				  ctx->bvecs, ctx->nr_bvec, DMA_TO_DEVICE);

	current->fail_nth = 1;
	ret = rdma_rwx_ctx_init_bvec(&rw, rwx_qp(test), rwx_port(test),
				     ctx->bvecs, ctx->nr_bvec, ctx->iter,
				     ctx->remote_dma, rwx_rkey(test),
				     DMA_TO_DEVICE);
	current->fail_nth = 0;
	KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
	KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

#define P	((u32)PAGE_SIZE)

/*
 * Every fault-injectable call of rdma_rwx_ctx_init_bvec() failed in turn
 * (allocations and the DMA mapping of each segment, this CPU's buffer
 * cache emptied first): -ENOMEM, no MR kept, the context dead; the test
 * device's DMA-API debug and kmemleak find anything left behind.
 */
static void rwx_bvec_alloc_fail(struct kunit *test)
{
	static const struct rwx_shape shapes[] = {
		{ 40, P, 0, 10 },		/* SGE: WR/SGE buffer, 40 maps */
		{ 7, 3000, 100, 10 },		/* 7 MRs: the pool has 8 */
		{ 50, 3 * P, 0, 3 * P + 100 },	/* big list, MR split */
		{ 9, P, 0, P, P / 2, false, true },	/* empties */
	};
	u32 i, injected = 0;

	rwx_rw_need_fail_nth(test);
	rwx_rw_ready(test);
	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		rwx_bvec_build(test, &shapes[i]);
		injected += rwx_rw_fail_each(test, true, 0, 200, true, i);
	}
	kunit_info(test, "%u failures injected", injected);
}

static void rwx_bvec_alloc_fail_tdev(struct kunit *test)
{
	rwx_bvec_alloc_fail(test);
}

#undef P

/*
 * iWARP READs and force_mr need MRs: with the pool empty, -EAGAIN; more
 * spans than the whole pool, -ENOSPC.  Where MRs are only preferred
 * (max_sgl_rd, set on the device for a while), an empty pool falls back
 * to the SGE path and the data still moves.
 */
static void rwx_bvec_pool_empty(struct kunit *test)
{
	const struct rwx_shape two = { .entries = 2, .len = PAGE_SIZE };
	const struct rwx_shape nine_gaps = {
		.entries = 9, .len = 3000, .lead = 100,
	};
	const struct rwx_shape eight = {
		.entries = 8, .len = PAGE_SIZE, .offset = 10,
	};
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rw_ctx rw[RWX_POOL + 1];
	struct rdma_rwx_caps caps;
	struct ib_qp *qp;
	size_t total;
	bool needs_mr;
	int i, ret = 0;
	u32 port;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rdma_rwx_qp_caps(qp, port, &caps);
	needs_mr = caps.iwarp || caps.force_mr;
	rwx_bvec_build(test, &two);
	for (i = 0; i < ARRAY_SIZE(rw); i++) {
		ret = rdma_rwx_ctx_init_bvec(&rw[i], qp, port, ctx->bvecs, 2,
					     ctx->iter, ctx->remote_dma,
					     rwx_rkey(test), DMA_FROM_DEVICE);
		if (ret < 0)
			break;
	}
	KUNIT_EXPECT_EQ(test, i, needs_mr ? RWX_POOL : RWX_POOL + 1);
	KUNIT_EXPECT_EQ(test, ret, needs_mr ? -EAGAIN : 1);
	if (needs_mr)
		KUNIT_EXPECT_EQ(test, rw[i].type, RDMA_RWX_CTX_DEAD);
	while (i--)
		rdma_rwx_ctx_destroy_bvec(&rw[i], qp, port, ctx->bvecs, 2,
					  DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	rwx_bvec_build(test, &nine_gaps);
	ret = rdma_rwx_ctx_init_bvec(&rw[0], qp, port, ctx->bvecs, 9, ctx->iter,
				     ctx->remote_dma, rwx_rkey(test),
				     DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, ret, needs_mr ? -ENOSPC : 1);
	if (ret > 0)
		rdma_rwx_ctx_destroy_bvec(&rw[0], qp, port, ctx->bvecs, 9,
					  DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	/* max_sgl_rd 4: a READ of 8 segments prefers MRs. */
	rwx_rw_set_sgl_rd(test, ctx->conn.device, 4);
	total = rwx_bvec_build(test, &eight);
	rwx_rw_random(page_address(ctx->remote), total);
	ret = rwx_bvec_move_rec(test, false, DMA_FROM_DEVICE);
	KUNIT_EXPECT_GT(test, ret, 0);
	rwx_rw_fill_local(ctx, false);
	ret = rwx_bvec_move_rec(test, true, DMA_FROM_DEVICE);
	rwx_bvec_compare(test, "max_sgl_rd READ");
	if (list_empty(&qp->rdma_mrs)) {
		/* No pool: the SGE fallback, one READ of 8 SGEs. */
		KUNIT_EXPECT_FALSE(test, needs_mr);
		KUNIT_EXPECT_EQ(test, ret, 1);
	} else {
		KUNIT_EXPECT_GE(test, ret, 2);
		KUNIT_EXPECT_LE(test, ret, 3);
	}
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, total), total);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
}

/* The test device with max_sgl_rd 4 whose mappings merge, as an IOMMU's. */
static const struct rwx_testdev_caps rwx_tdev_sgl_rd_merge = {
	.max_send_sge = 32, .max_sge_rd = 30, .max_sgl_rd = 4,
	.max_fast_reg_page_list_len = 32, .dma_merge = true,
};

static const struct rwx_test_dev rwx_bvec_merge_devs[] = {
	{ .name = "tdev-sgl-rd4-merge", .caps = &rwx_tdev_sgl_rd_merge },
};

KUNIT_ARRAY_PARAM(rwx_bvec_merge, rwx_bvec_merge_devs, rwx_test_dev_desc);

/* One READ of one SGE, or with @mr its MR's [LOCAL_INV,] REG_MR and READ. */
static void rwx_bvec_expect_wrs(struct kunit *test, int ret, bool mr)
{
	KUNIT_EXPECT_GE(test, ret, mr ? 2 : 1);
	KUNIT_EXPECT_LE(test, ret, mr ? 3 : 1);
}

/*
 * Whether MRs are preferred is decided on the mapped entries, as upstream
 * does since f28599f3969d, for bvecs as for a scatterlist: with
 * max_sgl_rd 4, a READ of 8 contiguous pages that the device maps as one
 * entry takes the SGE path, one WR of one SGE, and no MR (under force_mr,
 * one MR); the same pages with neighbours swapped, which cannot merge,
 * still take MRs.
 */
static void rwx_bvec_merged_read(struct kunit *test)
{
	const struct rwx_shape contiguous = {
		.entries = 8, .len = PAGE_SIZE, .carve = true,
	};
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	struct rwx_counts c;
	u32 total, i;
	int ret;

	rwx_rw_ready(test);
	KUNIT_ASSERT_FALSE(test, list_empty(&rwx_qp(test)->rdma_mrs));
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	total = rwx_bvec_build(test, &contiguous);
	rwx_rw_random(page_address(ctx->remote), total);
	rwx_counts_start(test, &c, ctx->conn.device);
	ret = rwx_bvec_move_rec(test, false, DMA_FROM_DEVICE);
	rwx_bvec_expect_wrs(test, ret, caps.force_mr);
	rwx_rw_fill_local(ctx, false);
	ret = rwx_bvec_move_rec(test, true, DMA_FROM_DEVICE);
	rwx_bvec_expect_wrs(test, ret, caps.force_mr);
	rwx_bvec_compare(test, "merged READ");
	KUNIT_EXPECT_EQ(test, ctx->bvec_chain->nr_sges, 1U);
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, total), total);
	if (caps.force_mr) {
		c.d[RWX_CNT_INIT_MR] = 2;
		c.d[RWX_CNT_MRS] = 2;
	} else {
		c.d[RWX_CNT_INIT_SGE_SINGLE] = 1;	/* the scatterlist's */
		c.d[RWX_CNT_INIT_SGE_MULTI] = 1;	/* bvec lists: never single */
	}
	c.d[RWX_CNT_INIT_BVEC] = 1;
	c.d[RWX_CNT_BYTES_READ] = 2 * total;
	c.d[RWX_CNT_DESTROY] = 2;
	rwx_counts_check(test, &c, "merged READ");

	for (i = 0; i < contiguous.entries; i += 2)
		swap(ctx->bvecs[i], ctx->bvecs[i + 1]);
	rwx_bvec_iter(test, 0, total);
	rwx_rw_random(page_address(ctx->remote), total);
	ret = rwx_bvec_move_rec(test, true, DMA_FROM_DEVICE);
	rwx_bvec_expect_wrs(test, ret, true);
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, total), total);
	c.d[RWX_CNT_INIT_MR] = 1;
	c.d[RWX_CNT_MRS] = 1;
	c.d[RWX_CNT_INIT_BVEC] = 1;
	c.d[RWX_CNT_BYTES_READ] = total;
	c.d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, &c, "READ, neighbours swapped");
}

/*
 * The device shortening or refusing an MR mapping on the bvec MR path:
 * a short map is carried by the walked span, a refusal is -EINVAL with
 * every MR back and nothing mapped; where MRs are only preferred, the
 * SGE path serves instead.
 */
static void rwx_bvec_map_faults(struct kunit *test)
{
	const struct rwx_shape four = { .entries = 4, .len = PAGE_SIZE };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rdma_rwx_caps caps;
	bool mr;

	rwx_rw_ready(test);
	rdma_rwx_qp_caps(rwx_qp(test), rwx_port(test), &caps);
	mr = caps.iwarp || caps.force_mr;
	rwx_rw_map_short(test, true, mr, rwx_bvec_build(test, &four));

	rwx_testdev_inject(ctx->tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 0);
	rwx_rw_map_refused(test, true, mr, RWX_TESTDEV_FAULT_MAP_FAIL, -EINVAL);
	rwx_rw_map_refused(test, true, mr, RWX_TESTDEV_FAULT_MAP_NOMEM, -ENOMEM);
	if (caps.max_sgl_rd && !mr) {
		const struct rwx_shape more = {
			.entries = caps.max_sgl_rd + 4, .len = PAGE_SIZE,
		};

		rwx_rw_mr_fallback(test, true, rwx_bvec_build(test, &more));
	}
}

/*
 * NVMe-oF: a WRITE chain from bvecs with the response SEND appended
 * through chain_wr, one post; only the SEND completes, after the data.
 */
static void rwx_bvec_chain_send(struct kunit *test)
{
	const struct rwx_shape s = { .entries = 40, .len = PAGE_SIZE,
				      .offset = 100, .tail = 100 };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_rw_send snd;
	struct rdma_rw_ctx rw;
	size_t total;
	int nr_wrs;

	rwx_rw_ready(test);
	rwx_rw_send_prepare(test, &snd);
	total = rwx_bvec_build(test, &s);
	rwx_rw_fill_local(ctx, true);
	memset(page_address(ctx->remote), 0, total + PAGE_SIZE);
	nr_wrs = rdma_rwx_ctx_init_bvec(&rw, rwx_qp(test), rwx_port(test),
					ctx->bvecs, ctx->nr_bvec, ctx->iter,
					ctx->remote_dma, rwx_rkey(test),
					DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, nr_wrs, 0);
	rwx_rw_send_chain(test, &snd, &rw, nr_wrs);
	KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, total), total);
	KUNIT_EXPECT_NULL(test, memchr_inv(page_address(ctx->remote) + total, 0,
					   PAGE_SIZE));
	rwx_rw_send_finish(test, &snd);
	rdma_rwx_ctx_destroy_bvec(&rw, rwx_qp(test), rwx_port(test), ctx->bvecs,
				  ctx->nr_bvec, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
}

/*
 * The test device failing ib_post_send() at each WR of a bvec MR chain
 * (READs on iWARP; everything with force_mr): the post's error, and the
 * MRs left as the device holds them, which a following READ through the
 * same MRs proves by moving its data.  Then the READ completing with an
 * error: the completion's error, and a clean destroy.
 */
static void rwx_bvec_post_faults(struct kunit *test)
{
	const struct rwx_shape four = { .entries = 4, .len = PAGE_SIZE,
					 .offset = 10 };
	struct rwx_rw_fixture *ctx = test->priv;
	struct rwx_loopback_wait wait;
	struct rdma_rwx_caps caps;
	struct rdma_rw_ctx rw;
	struct ib_qp *qp;
	size_t total;
	int ret, nth;
	u32 port;

	rwx_rw_ready(test);
	qp = rwx_qp(test);
	port = rwx_port(test);
	rdma_rwx_qp_caps(qp, port, &caps);
	if (!caps.iwarp && !caps.force_mr)
		kunit_skip(test, "READs take no MR here");
	total = rwx_bvec_build(test, &four);
	for (nth = 1; nth <= 3; nth++) {
		ret = rdma_rwx_ctx_init_bvec(&rw, qp, port, ctx->bvecs,
					     ctx->nr_bvec, ctx->iter,
					     ctx->remote_dma, rwx_rkey(test),
					     DMA_FROM_DEVICE);
		KUNIT_ASSERT_GT(test, ret, 1);
		rwx_loopback_wait_init(&wait);
		rwx_testdev_inject(ctx->tdev, RWX_TESTDEV_FAULT_POST_SEND, nth);
		KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_ctx_post(&rw, qp, port,
							    &wait.cqe, NULL),
				    nth <= ret ? -ENOMEM : 0,
				    "post failing at WR %d of %d", nth, ret);
		if (nth > ret) {	/* all posted: the READ completes */
			rwx_testdev_inject(ctx->tdev,
					   RWX_TESTDEV_FAULT_POST_SEND, 0);
			KUNIT_EXPECT_EQ(test, rwx_loopback_wait_for(&wait), 0);
		}
		rwx_testdev_flush(ctx->tdev);	/* what was posted has run */
		rdma_rwx_ctx_destroy_bvec(&rw, qp, port, ctx->bvecs,
					  ctx->nr_bvec, DMA_FROM_DEVICE);
		KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

		rwx_rw_random(page_address(ctx->remote), total);
		rwx_rw_fill_local(ctx, false);
		ret = rwx_rw_move(test, true, 0, DMA_FROM_DEVICE);
		KUNIT_EXPECT_GT_MSG(test, ret, 0, "after a post failing at WR %d",
				    nth);
		if (ret > 0)
			KUNIT_EXPECT_EQ(test, rwx_rw_matching(ctx, 0, total), total);
	}

	/* The READ, the last WR, completing with an error. */
	ret = rdma_rwx_ctx_init_bvec(&rw, qp, port, ctx->bvecs, ctx->nr_bvec,
				     ctx->iter, ctx->remote_dma, rwx_rkey(test),
				     DMA_FROM_DEVICE);
	KUNIT_ASSERT_GT(test, ret, 0);
	rwx_loopback_wait_init(&wait);
	rwx_testdev_inject(ctx->tdev, RWX_TESTDEV_FAULT_WR_ERROR, ret);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, qp, port, &wait.cqe, NULL),
			0);
	KUNIT_EXPECT_EQ(test, rwx_loopback_wait_for(&wait), -EIO);
	rdma_rwx_ctx_destroy_bvec(&rw, qp, port, ctx->bvecs, ctx->nr_bvec,
				  DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
}

static void rwx_bvec_chain_send_tdev(struct kunit *test)
{
	rwx_bvec_chain_send(test);
}

/*
 * A random array: chunks of pages, bvecs of whole pages, several pages
 * or any length at any offset (gaps), some empty; a random iterator over
 * part of it.
 */
static void rwx_bvec_random_array(struct kunit *test, struct rnd_state *rnd,
				  struct page **chunks)
{
	struct rwx_rw_fixture *ctx = test->priv;
	u32 nr = 1 + prandom_u32_state(rnd) % RWX_DIFF_CHUNKS;
	u32 kind = prandom_u32_state(rnd) % 5, i, total = 0, start, size;
	u32 chunk = PAGE_SIZE << RWX_DIFF_CHUNK_ORDER, idx, done;

	if (prandom_u32_state(rnd) % 3 == 0)
		nr = 1 + nr % 20;
	for (i = 0; i < nr; i++) {
		u32 off = 0, len = PAGE_SIZE;

		if (kind == 0) {		/* ragged */
			off = prandom_u32_state(rnd) % chunk;
			len = prandom_u32_state(rnd) % (chunk - off + 1);
		} else if (prandom_u32_state(rnd) % 10 >= 7) {
			len = PAGE_SIZE * (1 + prandom_u32_state(rnd) %
					   (1 << RWX_DIFF_CHUNK_ORDER));
		}
		if (prandom_u32_state(rnd) % 16 == 0)
			len = 0;
		bvec_set_page(&ctx->bvecs[i], chunks[i], len, off);
		total += len;
	}
	if (!total) {
		ctx->bvecs[0].bv_len = PAGE_SIZE;
		ctx->bvecs[0].bv_offset = 0;
		total = PAGE_SIZE;
	}
	ctx->nr_bvec = nr;
	start = prandom_u32_state(rnd) % 2 ? 0 : prandom_u32_state(rnd) % total;
	size = total - start;
	if (prandom_u32_state(rnd) % 2)
		size = 1 + prandom_u32_state(rnd) % size;
	for (idx = 0, done = start; done >= ctx->bvecs[idx].bv_len; idx++)
		done -= ctx->bvecs[idx].bv_len;
	/* Sometimes at the end of the previous (non-empty) bvec instead. */
	if (!done && idx && ctx->bvecs[idx - 1].bv_len &&
	    prandom_u32_state(rnd) % 4 == 0) {
		idx--;
		done = ctx->bvecs[idx].bv_len;
	}
	ctx->iter = (struct bvec_iter){
		.bi_idx = idx, .bi_bvec_done = done, .bi_size = size,
	};
	sg_init_table(ctx->sgl, RWX_MAX_ENTRIES);
	rwx_bvec_equiv_sgl(test);
}

static int rwx_bvec_diff_init(struct kunit *test)
{
	/* Nothing is posted: a test device mapping as rxe does is quick. */
	return rwx_rw_fixture_open(test, true, true);
}

/*
 * Random arrays and iterators: the bvec context's chain must be the one
 * the scatterlist path builds for the same segments, WR for WR, or fail
 * with the same error.
 */
static void rwx_bvec_diff_random(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_rw_fixture *ctx = test->priv;
	struct page **chunks;
	u32 n, compared = 0, failed = 0, mr = 0;
	struct rnd_state rnd;
	char what[32];
	int i;

	KUNIT_ASSERT_EQ_MSG(test, ctx->setup_ret, 0, "connect on %s: %s",
			    dev->name, ctx->conn.error_what ?: "?");
	KUNIT_ASSERT_TRUE(test, rwx_test_on_dev(dev, ctx->conn.device));
	chunks = kunit_kcalloc(test, RWX_DIFF_CHUNKS, sizeof(*chunks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, chunks);
	for (i = 0; i < RWX_DIFF_CHUNKS; i++) {
		chunks[i] = alloc_pages(GFP_KERNEL, RWX_DIFF_CHUNK_ORDER);
		if (!chunks[i])
			break;
	}
	if (i < RWX_DIFF_CHUNKS) {
		KUNIT_FAIL(test, "no memory for chunks");
		goto out;
	}
	prandom_seed_state(&rnd, 0xb5ec + dev->name[0] +
			   (dev->caps ? strlen(dev->name) + dev->name[5] : 0));
	for (n = 0; n < RWX_DIFF_CASES; n++) {
		enum dma_data_direction dir;
		u64 raddr;
		u32 rkey;

		rwx_bvec_random_array(test, &rnd, chunks);
		dir = prandom_u32_state(&rnd) & 1 ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
		raddr = (u64)prandom_u32_state(&rnd) << 12 |
			prandom_u32_state(&rnd) % 4096;
		rkey = prandom_u32_state(&rnd);
		snprintf(what, sizeof(what), "case %u", n);
		if (rwx_bvec_diff_one(test, what, raddr, rkey, dir)) {
			compared++;
			mr += ctx->bvec_chain->wr[rwx_chain_skip_inv(ctx->bvec_chain, 0)].opcode ==
			      IB_WR_REG_MR;
		} else {
			failed++;
		}
		if (test->status == KUNIT_FAILURE)
			break;
		cond_resched();
	}
	KUNIT_EXPECT_EQ(test, n, RWX_DIFF_CASES);
	kunit_info(test, "%s: %u cases, %u chains compared (%u on the MR path), %u failed alike",
		   dev->name, n, compared, mr, failed);
	KUNIT_EXPECT_GT(test, compared, RWX_DIFF_CASES / 2);
	KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
out:
	for (i = 0; i < RWX_DIFF_CHUNKS && chunks[i]; i++)
		__free_pages(chunks[i], RWX_DIFF_CHUNK_ORDER);
}

static void rwx_bvec_diff_random_tdev(struct kunit *test)
{
	rwx_bvec_diff_random(test);
}

static struct kunit_case rwx_bvec_cases[] = {
	KUNIT_CASE(rwx_bvec_segments),
	KUNIT_CASE(rwx_bvec_changed),
	KUNIT_CASE_PARAM(rwx_bvec_data, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_data_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_bad_input, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_single, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_alloc_fail, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_alloc_fail_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_pool_empty, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_map_faults, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_chain_send, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_chain_send_tdev, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_post_faults, rwx_test_tdev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_merged_read, rwx_bvec_merge_gen_params),
	{}
};

static struct kunit_suite rwx_bvec_suite = {
	.name = "rwx_bvec",
	.init = rwx_bvec_init,
	.exit = rwx_bvec_exit,
	.test_cases = rwx_bvec_cases,
};

static struct kunit_case rwx_bvec_diff_cases[] = {
	KUNIT_CASE_PARAM(rwx_bvec_diff_random, rwx_test_dev_gen_params),
	KUNIT_CASE_PARAM(rwx_bvec_diff_random_tdev, rwx_test_tdev_gen_params),
	{}
};

static struct kunit_suite rwx_bvec_diff_suite = {
	.name = "rwx_bvec_diff",
	.init = rwx_bvec_diff_init,
	.exit = rwx_bvec_exit,
	.test_cases = rwx_bvec_diff_cases,
};

kunit_test_suites(&rwx_bvec_suite, &rwx_bvec_diff_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx bio_vec contexts on rxe0, siw0 and the test device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
MODULE_IMPORT_NS(RDMA_RWX_TESTING);
