// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine's WR layout, MR split and offset skip, without a
 * device, on synthetic DMA-mapped lists.
 *
 * The layout is checked against the rules the engine documents, over a
 * matrix of capabilities (SGE limits 1..32, iWARP or not, force_mr,
 * max_sgl_rd, fast-reg page list lengths) by list shapes (1, 2, limit,
 * limit + 1, 256 and 1024 entries) and offsets, plus hand-computed cases.
 * The MR split is checked on hand-computed lists and, on random lists, for
 * the properties it documents.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/scatterlist.h>
#include <rdma/rwx.h>

static const u32 rwx_sgl_rd_values[] = { 0, 4, 16 };
static const u32 rwx_mr_page_values[] = { 1, 16, 256, 512 };

#define RWX_LIST_MAX	1024
#define RWX_DMA_BASE	0x100000000ULL	/* above 4 GiB: u64 arithmetic */

/* A synthetic DMA-mapped list, as ib_dma_map_sg() would leave it. */
static struct scatterlist *rwx_dma_list(struct kunit *test, u32 nents)
{
	struct scatterlist *sgl;

	sgl = kunit_kcalloc(test, nents, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, nents);
	return sgl;
}

static void rwx_dma_set(struct scatterlist *sg, u64 addr, u32 len)
{
	sg_dma_address(sg) = addr;
	sg_dma_len(sg) = len;
}

/* @nents one-page entries, each on its own page with a hole after it. */
static struct scatterlist *rwx_page_list(struct kunit *test, u32 nents)
{
	struct scatterlist *sgl = rwx_dma_list(test, nents);
	u32 i;

	for (i = 0; i < nents; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 2ULL * i * PAGE_SIZE,
			    PAGE_SIZE);
	return sgl;
}

static struct rdma_rwx_pos rwx_pos(struct scatterlist *sgl, u32 nents,
				   u32 offset)
{
	return (struct rdma_rwx_pos){ .sg = sgl, .nents = nents,
				      .offset = offset };
}

/*
 * What the documented rules say the layout of @nents one-page entries
 * must be (one page per entry: an MR takes as many entries as pages).
 */
static void rwx_expect_layout(struct kunit *test,
			      const struct rdma_rwx_caps *caps,
			      enum dma_data_direction dir,
			      const struct rdma_rwx_pos *pos)
{
	bool read = dir == DMA_FROM_DEVICE;
	u32 nents = pos->nents;
	bool want_mr = caps->force_mr ||
		(read && (caps->iwarp ||
			  (caps->max_sgl_rd && nents > caps->max_sgl_rd)));
	u32 limit = want_mr ? min_t(u32, caps->mr_pages, RDMA_RWX_MAX_MR_PAGES) :
		read ? caps->max_read_sge : caps->max_write_sge;
	struct rdma_rwx_layout layout;
	int ret;

	memset(&layout, 0xcc, sizeof(layout));
	ret = rdma_rwx_layout(caps, dir, pos, &layout);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, layout.path,
			want_mr ? RDMA_RWX_PATH_MR : RDMA_RWX_PATH_SGE);
	/* The fewest WRs that cover every entry, none over the limit. */
	KUNIT_EXPECT_EQ(test, layout.nr_ops, DIV_ROUND_UP(nents, limit));
	KUNIT_EXPECT_EQ(test, layout.per_op,
			want_mr ? min(limit, nents) : limit);
	KUNIT_EXPECT_GE(test, layout.last_op, 1U);
	KUNIT_EXPECT_LE(test, layout.last_op, layout.per_op);
	KUNIT_EXPECT_EQ(test, (layout.nr_ops - 1) * limit + layout.last_op,
			nents);
	KUNIT_EXPECT_EQ(test, layout.sge_fallback,
			want_mr && !caps->force_mr && !(caps->iwarp && read));
}

/*
 * Every direction, list shape and offset for one set of capabilities.
 * Offsets: 0, inside the first entry, inside a middle entry, on an entry
 * boundary, and at the end of the list (which the skip refuses).
 */
static void rwx_layout_shapes(struct kunit *test,
			      const struct rdma_rwx_caps *caps,
			      struct scatterlist *sgl, u32 limit)
{
	const u32 shapes[] = { 1, 2, limit, limit + 1, 256, 1024 };
	int i, o;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		u32 n = shapes[i];
		const u32 offsets[] = {
			0, 100, (n / 2) * PAGE_SIZE + 7, (n - 1) * PAGE_SIZE,
			n * PAGE_SIZE,
		};

		for (o = 0; o < ARRAY_SIZE(offsets); o++) {
			struct rdma_rwx_pos pos = rwx_pos(sgl, n, offsets[o]);

			if (offsets[o] == n * PAGE_SIZE) {
				KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&pos), -EINVAL);
				continue;
			}
			KUNIT_ASSERT_EQ(test, rdma_rwx_sg_skip(&pos), 0);
			KUNIT_EXPECT_EQ(test, pos.nents,
					n - offsets[o] / (u32)PAGE_SIZE);
			rwx_expect_layout(test, caps, DMA_TO_DEVICE, &pos);
			rwx_expect_layout(test, caps, DMA_FROM_DEVICE, &pos);
		}
	}
}

static void rwx_layout_matrix(struct kunit *test)
{
	const u32 combos = 2 * 2 * ARRAY_SIZE(rwx_sgl_rd_values) *
			   ARRAY_SIZE(rwx_mr_page_values);
	struct scatterlist *sgl = rwx_page_list(test, RWX_LIST_MAX);
	struct rdma_rwx_caps caps = {};
	u32 limit, combo, c;

	for (limit = 1; limit <= 32; limit++) {
		for (combo = 0; combo < combos; combo++) {
			c = combo;
			caps.iwarp = c & 1;
			c >>= 1;
			caps.force_mr = c & 1;
			c >>= 1;
			caps.max_sgl_rd = rwx_sgl_rd_values[c % ARRAY_SIZE(rwx_sgl_rd_values)];
			c /= ARRAY_SIZE(rwx_sgl_rd_values);
			caps.mr_pages = rwx_mr_page_values[c];
			caps.read_inv = caps.iwarp;
			caps.max_write_sge = limit;
			/* reads are often allowed fewer SGEs */
			caps.max_read_sge = max_t(u32, limit / 2, 1);
			rwx_layout_shapes(test, &caps, sgl, limit);
		}
	}
}

/* Cases worked out by hand, independent of the rules above. */
static void rwx_layout_examples(struct kunit *test)
{
	struct rdma_rwx_caps roce = {
		.max_write_sge = 16, .max_read_sge = 8, .mr_pages = 256,
	};
	struct rdma_rwx_caps iwarp = {
		.iwarp = true, .read_inv = true,
		.max_write_sge = 3, .max_read_sge = 1, .mr_pages = 256,
	};
	struct scatterlist *sgl = rwx_page_list(test, RWX_LIST_MAX);
	struct rdma_rwx_layout l;
	struct rdma_rwx_pos pos;

	/* RoCE WRITE of 1024 entries: 64 WRs of 16 SGEs. */
	pos = rwx_pos(sgl, 1024, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_TO_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 64U);
	KUNIT_EXPECT_EQ(test, l.last_op, 16U);

	/* RoCE READ of 17 entries, 8 SGEs per READ: 8 + 8 + 1. */
	pos = rwx_pos(sgl, 17, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 3U);
	KUNIT_EXPECT_EQ(test, l.per_op, 8U);
	KUNIT_EXPECT_EQ(test, l.last_op, 1U);

	/* iWARP READ of 300 pages: two MRs, 256 + 44, no SGE fallback. */
	pos = rwx_pos(sgl, 300, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&iwarp, DMA_FROM_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_MR);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 2U);
	KUNIT_EXPECT_EQ(test, l.per_op, 256U);
	KUNIT_EXPECT_EQ(test, l.last_op, 44U);
	KUNIT_EXPECT_FALSE(test, l.sge_fallback);

	/* iWARP WRITE needs no MR: 3 SGEs per WRITE, 7 entries -> 3 WRs. */
	pos = rwx_pos(sgl, 7, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&iwarp, DMA_TO_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 3U);
	KUNIT_EXPECT_EQ(test, l.last_op, 1U);

	/* max_sgl_rd 4: a READ of 4 entries gathers, of 5 registers. */
	roce.max_sgl_rd = 4;
	pos = rwx_pos(sgl, 4, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	pos = rwx_pos(sgl, 5, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_MR);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 1U);
	KUNIT_EXPECT_TRUE(test, l.sge_fallback);

	/* Page list lengths above 256 are capped. */
	roce.mr_pages = 1000;
	roce.force_mr = true;
	pos = rwx_pos(sgl, 1024, 0);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_TO_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 4U);
	KUNIT_EXPECT_FALSE(test, l.sge_fallback);
}

static void rwx_layout_errors(struct kunit *test)
{
	struct rdma_rwx_caps caps = {
		.max_write_sge = 4, .max_read_sge = 4, .mr_pages = 16,
	};
	struct scatterlist *sgl = rwx_page_list(test, 4);
	struct rdma_rwx_pos pos = rwx_pos(sgl, 4, 0);
	struct rdma_rwx_pos empty = rwx_pos(sgl, 0, 0);
	struct rdma_rwx_mr_span span;
	struct rdma_rwx_layout l;

	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, &empty, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_BIDIRECTIONAL, &pos, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_NONE, &pos, &l), -EINVAL);
	caps.max_write_sge = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, &pos, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_FROM_DEVICE, &pos, &l), 0);
	caps.iwarp = true;
	caps.mr_pages = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_FROM_DEVICE, &pos, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_next_mr_span(&caps, &pos, &span), -EINVAL);
	caps.mr_pages = 16;
	KUNIT_EXPECT_EQ(test, rdma_rwx_next_mr_span(&caps, &empty, &span), -EINVAL);
	/* A failed call leaves the position alone. */
	KUNIT_EXPECT_EQ(test, empty.nents, 0U);
	KUNIT_EXPECT_PTR_EQ(test, pos.sg, sgl);
	KUNIT_EXPECT_EQ(test, pos.nents, 4U);

	/*
	 * An empty entry would get a page of its own in the MR: refused on
	 * the MR path, whether it falls inside a span or starts one; the
	 * SGE path carries it as a zero-length SGE.
	 */
	sg_dma_len(&sgl[2]) = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_FROM_DEVICE, &pos, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_next_mr_span(&caps, &pos, &span), -EINVAL);
	KUNIT_EXPECT_EQ(test, pos.nents, 4U);
	caps.mr_pages = 2;
	KUNIT_EXPECT_EQ(test, rdma_rwx_next_mr_span(&caps, &pos, &span), 0);
	KUNIT_EXPECT_EQ(test, span.nents, 2U);
	KUNIT_EXPECT_EQ(test, rdma_rwx_next_mr_span(&caps, &pos, &span), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, pos.sg, &sgl[2]);
	caps.iwarp = false;
	caps.max_write_sge = 4;
	pos = rwx_pos(sgl, 4, 0);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
}

/* One span as worked out by hand. */
struct rwx_span_want {
	u32 first, offset;	/* entry index and offset it starts at */
	u32 nents, length, last_len, pages;
	bool split_last;
};

static void rwx_expect_spans(struct kunit *test, const char *what,
			     const struct rdma_rwx_caps *caps,
			     struct scatterlist *sgl, u32 nents, u32 offset,
			     const struct rwx_span_want *want, u32 nr_want)
{
	struct rdma_rwx_pos pos = rwx_pos(sgl, nents, offset);
	struct rdma_rwx_mr_span span;
	struct rdma_rwx_layout l;
	u32 i;

	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(caps, DMA_TO_DEVICE, &pos, &l), 0);
	KUNIT_EXPECT_EQ_MSG(test, l.nr_ops, nr_want, "%s: MRs", what);
	for (i = 0; i < nr_want; i++) {
		const struct rwx_span_want *w = &want[i];

		KUNIT_ASSERT_EQ_MSG(test, rdma_rwx_next_mr_span(caps, &pos, &span),
				    0, "%s span %u", what, i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, span.start.sg, &sgl[w->first],
					"%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.start.offset, w->offset,
				    "%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.nents, w->nents, "%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.length, w->length, "%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.last_len, w->last_len,
				    "%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.pages, w->pages, "%s span %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, span.split_last, w->split_last,
				    "%s span %u", what, i);
	}
	KUNIT_EXPECT_EQ_MSG(test, pos.nents, 0U, "%s: list not used up", what);
}

#define P	((u32)PAGE_SIZE)

/* MR splits worked out by hand, with a budget of 256 pages unless said. */
static void rwx_mr_span_examples(struct kunit *test)
{
	struct rdma_rwx_caps caps = { .force_mr = true, .mr_pages = 256 };
	struct scatterlist *sgl = rwx_dma_list(test, 300);
	u32 i;

	/* 64 entries of 16 pages: four full MRs of 16 entries each. */
	for (i = 0; i < 64; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 32ULL * i * P, 16 * P);
	rwx_expect_spans(test, "64 x 16 pages", &caps, sgl, 64, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 16, 256 * P, 16 * P, 256, false },
				 { 16, 0, 16, 256 * P, 16 * P, 256, false },
				 { 32, 0, 16, 256 * P, 16 * P, 256, false },
				 { 48, 0, 16, 256 * P, 16 * P, 256, false },
			 }, 4);

	/* 100 entries of 3 pages: 85 entries and a page, then the rest. */
	for (i = 0; i < 100; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 4ULL * i * P, 3 * P);
	rwx_expect_spans(test, "100 x 3 pages", &caps, sgl, 100, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 86, 256 * P, P, 256, true },
				 { 85, P, 15, 44 * P, 3 * P, 44, false },
			 }, 2);

	/* One 2 MiB entry from offset 512: 512 pages, split in two. */
	rwx_dma_set(&sgl[0], RWX_DMA_BASE, 512 * P);
	rwx_expect_spans(test, "2 MiB from 512", &caps, sgl, 1, 512,
			 (const struct rwx_span_want[]){
				 { 0, 512, 1, 256 * P - 512, 256 * P - 512, 256, true },
				 { 0, 256 * P, 1, 256 * P, 256 * P, 256, false },
			 }, 2);

	/* Gaps: 1000-byte entries on pages of their own, an MR each. */
	for (i = 0; i < 3; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 8ULL * i * P + 24, 1000);
	rwx_expect_spans(test, "gaps", &caps, sgl, 3, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 1, 1000, 1000, 1, false },
				 { 1, 0, 1, 1000, 1000, 1, false },
				 { 2, 0, 1, 1000, 1000, 1, false },
			 }, 3);

	/* Contiguous 1000-byte entries share pages: 10 in 3 pages. */
	for (i = 0; i < 10; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 1000ULL * i, 1000);
	rwx_expect_spans(test, "contiguous", &caps, sgl, 10, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 10, 10000, 1000, 3, false },
			 }, 1);

	/* 300 contiguous 16-byte entries: at most 256 entries per MR. */
	for (i = 0; i < 300; i++)
		rwx_dma_set(&sgl[i], RWX_DMA_BASE + 16ULL * i, 16);
	rwx_expect_spans(test, "entry bound", &caps, sgl, 300, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 256, 4096, 16, 1, false },
				 { 256, 0, 44, 44 * 16, 16, 1, false },
			 }, 2);

	/*
	 * Budget 3, a contiguous pair of 6000 and 10000 bytes: the second
	 * shares the first's last page and is split after two more pages.
	 */
	caps.mr_pages = 3;
	rwx_dma_set(&sgl[0], RWX_DMA_BASE, 6000);
	rwx_dma_set(&sgl[1], RWX_DMA_BASE + 6000, 10000);
	rwx_expect_spans(test, "shared split", &caps, sgl, 2, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 2, 6000 + 3 * P - 6000, 3 * P - 6000, 3, true },
				 { 1, 3 * P - 6000, 1, 16000 - 3 * P,
				   16000 - 3 * P, 1, false },
			 }, 2);

	/* Budget 2: the second no longer fits beside the first. */
	caps.mr_pages = 2;
	rwx_expect_spans(test, "full at a boundary", &caps, sgl, 2, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 1, 6000, 6000, 2, false },
				 { 1, 0, 1, 3 * P - 6000, 3 * P - 6000, 2, true },
				 { 1, 3 * P - 6000, 1, 16000 - 3 * P,
				   16000 - 3 * P, 1, false },
			 }, 3);

	/* Budget 1: one page per MR. */
	caps.mr_pages = 1;
	rwx_dma_set(&sgl[0], RWX_DMA_BASE, 3 * P);
	rwx_expect_spans(test, "one page each", &caps, sgl, 1, 0,
			 (const struct rwx_span_want[]){
				 { 0, 0, 1, P, P, 1, true },
				 { 0, P, 1, P, P, 1, true },
				 { 0, 2 * P, 1, P, P, 1, false },
			 }, 3);
}

#undef P

#define RWX_PROP_CASES		2000
#define RWX_PROP_ENTRIES	300

static const u32 rwx_prop_budgets[] = { 1, 2, 3, 16, 256 };

/*
 * A random list with increasing, non-overlapping addresses: entries of
 * 1 byte to 4 pages or whole pages, each boundary contiguous, a jump to
 * a fresh page, or a jump to anywhere (a gap unless both sides align).
 */
static void rwx_prop_list(struct scatterlist *sgl, u32 nents,
			  struct rnd_state *rnd)
{
	u64 addr = RWX_DMA_BASE + prandom_u32_state(rnd) % (2 * PAGE_SIZE);
	u32 i, len;

	for (i = 0; i < nents; i++) {
		if (prandom_u32_state(rnd) % 2)
			len = PAGE_SIZE * (1 + prandom_u32_state(rnd) % 4);
		else
			len = 1 + prandom_u32_state(rnd) % (4 * PAGE_SIZE);
		rwx_dma_set(&sgl[i], addr, len);
		addr += len;
		switch (prandom_u32_state(rnd) % 3) {
		case 0:
			break;
		case 1:
			addr = ALIGN(addr + 1, PAGE_SIZE);
			break;
		default:
			addr += 1 + prandom_u32_state(rnd) % PAGE_SIZE;
		}
	}
}

static u64 rwx_end(struct scatterlist *sg)
{
	return sg_dma_address(sg) + sg_dma_len(sg);
}

/* ib_map_mr_sg() stops at a boundary not page-aligned and not contiguous. */
static bool rwx_gap(struct scatterlist *prev, struct scatterlist *next)
{
	u64 end = rwx_end(prev), start = sg_dma_address(next);

	return end != start && (!IS_ALIGNED(end, PAGE_SIZE) ||
				!IS_ALIGNED(start, PAGE_SIZE));
}

/*
 * Check one span against the list on its own terms: it starts where the
 * last one stopped, its bytes tile the list, it has no gap inside, its
 * pages (counted here as distinct pages touched) fit the budget, and it
 * stops only where it must.
 */
static void rwx_prop_span(struct kunit *test, struct scatterlist *sgl,
			  u32 nents, u32 *entry, u32 *offset, u32 budget,
			  const struct rdma_rwx_mr_span *span)
{
	u32 first = *entry, left = span->length, i = first, off = *offset;
	u64 last_page = U64_MAX, pages = 0, a, b;

	KUNIT_ASSERT_PTR_EQ(test, span->start.sg, &sgl[first]);
	KUNIT_ASSERT_EQ(test, span->start.offset, *offset);
	KUNIT_ASSERT_GT(test, span->nents, 0U);
	KUNIT_ASSERT_LE(test, span->nents, budget);
	KUNIT_ASSERT_LE(test, first + span->nents, nents);
	for (i = first; i < first + span->nents; i++, off = 0) {
		u32 avail = sg_dma_len(&sgl[i]) - off;
		u32 piece = i + 1 < first + span->nents ? avail : span->last_len;

		KUNIT_ASSERT_LE(test, piece, avail);
		KUNIT_ASSERT_LE(test, piece, left);
		if (i > first)
			KUNIT_ASSERT_FALSE(test, rwx_gap(&sgl[i - 1], &sgl[i]));
		a = (sg_dma_address(&sgl[i]) + off) >> PAGE_SHIFT;
		b = (sg_dma_address(&sgl[i]) + off + piece - 1) >> PAGE_SHIFT;
		pages += b - a + 1 - (a == last_page);
		last_page = b;
		left -= piece;
		if (i + 1 == first + span->nents) {
			KUNIT_EXPECT_EQ(test, span->split_last, piece < avail);
			*entry = piece < avail ? i : i + 1;
			*offset = piece < avail ? off + piece : 0;
		}
	}
	KUNIT_EXPECT_EQ(test, left, 0U);
	KUNIT_EXPECT_EQ(test, span->pages, pages);
	KUNIT_EXPECT_LE(test, span->pages, budget);
	/* Stopped early only at a gap, a full MR or the entry bound. */
	if (*entry < nents && !span->split_last)
		KUNIT_EXPECT_TRUE(test, rwx_gap(&sgl[*entry - 1], &sgl[*entry]) ||
				  span->pages == budget || span->nents == budget);
	if (span->split_last)
		KUNIT_EXPECT_EQ(test, span->pages, budget);
}

static void rwx_mr_span_properties(struct kunit *test)
{
	struct scatterlist *sgl = rwx_dma_list(test, RWX_PROP_ENTRIES);
	struct rdma_rwx_caps caps = { .force_mr = true };
	struct rdma_rwx_mr_span span;
	struct rdma_rwx_layout l;
	struct rdma_rwx_pos pos;
	struct rnd_state rnd;
	u32 n, nents, entry, offset, spans, splits = 0, gaps = 0;

	prandom_seed_state(&rnd, 0x52570);
	for (n = 0; n < RWX_PROP_CASES; n++) {
		nents = 1 + prandom_u32_state(&rnd) % RWX_PROP_ENTRIES;
		if (n % 2)
			nents = 1 + nents % 8;
		sg_init_table(sgl, nents);
		rwx_prop_list(sgl, nents, &rnd);
		caps.mr_pages = rwx_prop_budgets[prandom_u32_state(&rnd) %
						 ARRAY_SIZE(rwx_prop_budgets)];
		pos = rwx_pos(sgl, nents, prandom_u32_state(&rnd) %
					  sg_dma_len(&sgl[0]));
		entry = 0;
		offset = pos.offset;
		KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, &pos, &l), 0);
		KUNIT_ASSERT_EQ(test, l.path, RDMA_RWX_PATH_MR);
		for (spans = 0; pos.nents; spans++) {
			KUNIT_ASSERT_EQ(test, rdma_rwx_next_mr_span(&caps, &pos, &span), 0);
			rwx_prop_span(test, sgl, nents, &entry, &offset,
				      caps.mr_pages, &span);
			KUNIT_ASSERT_EQ(test, pos.nents, nents - entry);
			if (pos.nents) {
				KUNIT_ASSERT_PTR_EQ(test, pos.sg, &sgl[entry]);
				KUNIT_ASSERT_EQ(test, pos.offset, offset);
				if (!offset && rwx_gap(&sgl[entry - 1], &sgl[entry]))
					gaps++;
			}
			splits += span.split_last;
			if (test->status == KUNIT_FAILURE)
				return;
		}
		KUNIT_EXPECT_EQ(test, entry, nents);
		KUNIT_EXPECT_EQ(test, spans, l.nr_ops);
	}
	/* The generator must reach the interesting cases. */
	KUNIT_EXPECT_GT(test, splits, 100U);
	KUNIT_EXPECT_GT(test, gaps, 100U);
}

/*
 * The count rdma_rwx_mr_factor() promises: a list without gaps whose
 * entries share no page (whole pages, page-aligned, any number of pages
 * each, laid out contiguously or apart) needs DIV_ROUND_UP(P, budget)
 * MRs for the P pages it touches from the offset on.
 */
static void rwx_mr_span_count(struct kunit *test)
{
	struct scatterlist *sgl = rwx_dma_list(test, RWX_PROP_ENTRIES);
	struct rdma_rwx_caps caps = { .force_mr = true };
	struct rdma_rwx_layout l;
	struct rdma_rwx_pos pos;
	struct rnd_state rnd;
	u32 n, i, nents, pages, offset, budget;
	u64 addr;

	prandom_seed_state(&rnd, 0x4d52);
	for (n = 0; n < RWX_PROP_CASES; n++) {
		nents = 1 + prandom_u32_state(&rnd) % RWX_PROP_ENTRIES;
		sg_init_table(sgl, nents);
		addr = RWX_DMA_BASE;
		pages = 0;
		for (i = 0; i < nents; i++) {
			u32 len = 1 + prandom_u32_state(&rnd) % 8;

			rwx_dma_set(&sgl[i], addr, len * PAGE_SIZE);
			pages += len;
			addr += (u64)(len + prandom_u32_state(&rnd) % 2) *
				PAGE_SIZE;
		}
		/* An offset inside the first entry drops its whole pages. */
		offset = prandom_u32_state(&rnd) % sg_dma_len(&sgl[0]);
		pages -= offset >> PAGE_SHIFT;
		budget = rwx_prop_budgets[prandom_u32_state(&rnd) %
					  ARRAY_SIZE(rwx_prop_budgets)];
		caps.mr_pages = budget;
		pos = rwx_pos(sgl, nents, offset);
		KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, &pos, &l), 0);
		KUNIT_ASSERT_EQ_MSG(test, l.nr_ops, DIV_ROUND_UP(pages, budget),
				    "case %u: %u entries, %u pages, budget %u",
				    n, nents, pages, budget);
	}
}

#define RWX_SKIP_ENTRIES 4

/* Entries of 100, 0, 200 and 300 bytes, as a DMA mapping would leave them. */
static struct scatterlist *rwx_skip_list(struct kunit *test)
{
	static const u32 lens[RWX_SKIP_ENTRIES] = { 100, 0, 200, 300 };
	struct scatterlist *sgl = rwx_dma_list(test, RWX_SKIP_ENTRIES);
	int i;

	for (i = 0; i < RWX_SKIP_ENTRIES; i++)
		rwx_dma_set(&sgl[i], 0x10000 * (i + 1), lens[i]);
	return sgl;
}

struct rwx_skip_case {
	u32 offset;
	int ret;
	int entry;	/* index the skip must land on */
	u32 left, new_offset;
};

static void rwx_sg_skip_cases(struct kunit *test)
{
	static const struct rwx_skip_case cases[] = {
		{ 0, 0, 0, 4, 0 },		/* at 0 */
		{ 42, 0, 0, 4, 42 },		/* inside the first entry */
		{ 99, 0, 0, 4, 99 },		/* its last byte */
		{ 100, 0, 2, 2, 0 },		/* boundary: skips the empty one */
		{ 150, 0, 2, 2, 50 },		/* inside a middle entry */
		{ 300, 0, 3, 1, 0 },		/* boundary of the last entry */
		{ 599, 0, 3, 1, 299 },		/* the very last byte */
		{ 600, -EINVAL },		/* at the end */
		{ 601, -EINVAL },		/* past the end */
		{ U32_MAX, -EINVAL },
	};
	struct scatterlist *sgl = rwx_skip_list(test);
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct rwx_skip_case *c = &cases[i];
		struct rdma_rwx_pos pos = rwx_pos(sgl, RWX_SKIP_ENTRIES, c->offset);
		int ret = rdma_rwx_sg_skip(&pos);

		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "offset %u", c->offset);
		if (ret) {
			/* Nothing changes on error. */
			KUNIT_EXPECT_PTR_EQ(test, pos.sg, sgl);
			KUNIT_EXPECT_EQ(test, pos.nents, RWX_SKIP_ENTRIES);
			KUNIT_EXPECT_EQ(test, pos.offset, c->offset);
			continue;
		}
		KUNIT_EXPECT_PTR_EQ_MSG(test, pos.sg, &sgl[c->entry], "offset %u", c->offset);
		KUNIT_EXPECT_EQ_MSG(test, pos.nents, c->left, "offset %u", c->offset);
		KUNIT_EXPECT_EQ_MSG(test, pos.offset, c->new_offset, "offset %u", c->offset);
	}
}

/* A shorter count stops the walk even though the list goes on. */
static void rwx_sg_skip_honours_count(struct kunit *test)
{
	struct scatterlist *sgl = rwx_skip_list(test);
	struct rdma_rwx_pos pos = rwx_pos(sgl, 1, 100);

	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&pos), -EINVAL);
	pos = rwx_pos(sgl, 3, 299);
	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&pos), 0);
	KUNIT_EXPECT_PTR_EQ(test, pos.sg, &sgl[2]);
	KUNIT_EXPECT_EQ(test, pos.offset, 199U);
	pos = rwx_pos(sgl, 3, 300);
	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&pos), -EINVAL);
}

static struct kunit_case rwx_layout_cases[] = {
	KUNIT_CASE(rwx_layout_matrix),
	KUNIT_CASE(rwx_layout_examples),
	KUNIT_CASE(rwx_layout_errors),
	KUNIT_CASE(rwx_mr_span_examples),
	KUNIT_CASE(rwx_mr_span_properties),
	KUNIT_CASE(rwx_mr_span_count),
	KUNIT_CASE(rwx_sg_skip_cases),
	KUNIT_CASE(rwx_sg_skip_honours_count),
	{}
};

static struct kunit_suite rwx_layout_suite = {
	.name = "rwx_layout",
	.test_cases = rwx_layout_cases,
};

kunit_test_suite(rwx_layout_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx WR layout and offset skip");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
