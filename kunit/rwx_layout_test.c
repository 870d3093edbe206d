// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine's WR layout and offset skip, without a device.
 *
 * The layout is checked against the rules the engine documents, over a
 * matrix of capabilities (SGE limits 1..32, iWARP or not, force_mr,
 * max_sgl_rd, fast-reg page list lengths) and list shapes (1, 2, limit,
 * limit + 1, 256 and 1024 entries), plus hand-computed cases.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <rdma/rwx.h>

static const u32 rwx_sgl_rd_values[] = { 0, 4, 16 };
static const u32 rwx_mr_page_values[] = { 1, 16, 256, 512 };

/* What the documented rules say the layout must be. */
static void rwx_expect_layout(struct kunit *test,
			      const struct rdma_rwx_caps *caps,
			      enum dma_data_direction dir, u32 nents)
{
	bool read = dir == DMA_FROM_DEVICE;
	bool want_mr = caps->force_mr ||
		(read && (caps->iwarp ||
			  (caps->max_sgl_rd && nents > caps->max_sgl_rd)));
	u32 limit = want_mr ? min_t(u32, caps->mr_pages, RDMA_RWX_MAX_MR_PAGES) :
		read ? caps->max_read_sge : caps->max_write_sge;
	struct rdma_rwx_layout layout;
	int ret;

	memset(&layout, 0xcc, sizeof(layout));
	ret = rdma_rwx_layout(caps, dir, nents, &layout);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, layout.path,
			want_mr ? RDMA_RWX_PATH_MR : RDMA_RWX_PATH_SGE);
	KUNIT_EXPECT_EQ(test, layout.per_op, limit);
	/* The fewest WRs that cover every entry, none over the limit. */
	KUNIT_EXPECT_EQ(test, layout.nr_ops, DIV_ROUND_UP(nents, limit));
	KUNIT_EXPECT_GE(test, layout.last_op, 1U);
	KUNIT_EXPECT_LE(test, layout.last_op, layout.per_op);
	KUNIT_EXPECT_EQ(test, (layout.nr_ops - 1) * layout.per_op +
			layout.last_op, nents);
	KUNIT_EXPECT_EQ(test, layout.sge_fallback,
			want_mr && !caps->force_mr && !(caps->iwarp && read));
}

/* Every direction and list shape for one set of capabilities. */
static void rwx_layout_shapes(struct kunit *test,
			      const struct rdma_rwx_caps *caps, u32 limit)
{
	const u32 shapes[] = { 1, 2, limit, limit + 1, 256, 1024 };
	int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		rwx_expect_layout(test, caps, DMA_TO_DEVICE, shapes[i]);
		rwx_expect_layout(test, caps, DMA_FROM_DEVICE, shapes[i]);
	}
}

static void rwx_layout_matrix(struct kunit *test)
{
	const u32 combos = 2 * 2 * ARRAY_SIZE(rwx_sgl_rd_values) *
			   ARRAY_SIZE(rwx_mr_page_values);
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
			rwx_layout_shapes(test, &caps, limit);
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
	struct rdma_rwx_layout l;

	/* RoCE WRITE of 1024 entries: 64 WRs of 16 SGEs. */
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_TO_DEVICE, 1024, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 64U);
	KUNIT_EXPECT_EQ(test, l.last_op, 16U);

	/* RoCE READ of 17 entries, 8 SGEs per READ: 8 + 8 + 1. */
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, 17, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 3U);
	KUNIT_EXPECT_EQ(test, l.per_op, 8U);
	KUNIT_EXPECT_EQ(test, l.last_op, 1U);

	/* iWARP READ of 300 pages: two MRs, 256 + 44, no SGE fallback. */
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&iwarp, DMA_FROM_DEVICE, 300, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_MR);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 2U);
	KUNIT_EXPECT_EQ(test, l.last_op, 44U);
	KUNIT_EXPECT_FALSE(test, l.sge_fallback);

	/* iWARP WRITE needs no MR: 3 SGEs per WRITE, 7 entries -> 3 WRs. */
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&iwarp, DMA_TO_DEVICE, 7, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 3U);
	KUNIT_EXPECT_EQ(test, l.last_op, 1U);

	/* max_sgl_rd 4: a READ of 4 entries gathers, of 5 registers. */
	roce.max_sgl_rd = 4;
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, 4, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_SGE);
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_FROM_DEVICE, 5, &l), 0);
	KUNIT_EXPECT_EQ(test, l.path, RDMA_RWX_PATH_MR);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 1U);
	KUNIT_EXPECT_TRUE(test, l.sge_fallback);

	/* Page list lengths above 256 are capped. */
	roce.mr_pages = 1000;
	roce.force_mr = true;
	KUNIT_ASSERT_EQ(test, rdma_rwx_layout(&roce, DMA_TO_DEVICE, 1024, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nr_ops, 4U);
	KUNIT_EXPECT_FALSE(test, l.sge_fallback);
}

static void rwx_layout_errors(struct kunit *test)
{
	struct rdma_rwx_caps caps = {
		.max_write_sge = 4, .max_read_sge = 4, .mr_pages = 16,
	};
	struct rdma_rwx_layout l;

	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, 0, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_BIDIRECTIONAL, 4, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_NONE, 4, &l), -EINVAL);
	caps.max_write_sge = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_TO_DEVICE, 4, &l), -EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_FROM_DEVICE, 4, &l), 0);
	caps.iwarp = true;
	caps.mr_pages = 0;
	KUNIT_EXPECT_EQ(test, rdma_rwx_layout(&caps, DMA_FROM_DEVICE, 4, &l), -EINVAL);
}

#define RWX_SKIP_ENTRIES 4

/* Entries of 100, 0, 200 and 300 bytes, as a DMA mapping would leave them. */
static struct scatterlist *rwx_skip_list(struct kunit *test)
{
	static const u32 lens[RWX_SKIP_ENTRIES] = { 100, 0, 200, 300 };
	struct scatterlist *sgl;
	int i;

	sgl = kunit_kcalloc(test, RWX_SKIP_ENTRIES, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sgl);
	sg_init_table(sgl, RWX_SKIP_ENTRIES);
	for (i = 0; i < RWX_SKIP_ENTRIES; i++) {
		sg_dma_address(&sgl[i]) = 0x10000 * (i + 1);
		sg_dma_len(&sgl[i]) = lens[i];
	}
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
		struct scatterlist *sg = sgl;
		u32 nents = RWX_SKIP_ENTRIES, off = c->offset;
		int ret = rdma_rwx_sg_skip(&sg, &nents, &off);

		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "offset %u", c->offset);
		if (ret) {
			/* Nothing changes on error. */
			KUNIT_EXPECT_PTR_EQ(test, sg, sgl);
			KUNIT_EXPECT_EQ(test, nents, RWX_SKIP_ENTRIES);
			KUNIT_EXPECT_EQ(test, off, c->offset);
			continue;
		}
		KUNIT_EXPECT_PTR_EQ_MSG(test, sg, &sgl[c->entry], "offset %u", c->offset);
		KUNIT_EXPECT_EQ_MSG(test, nents, c->left, "offset %u", c->offset);
		KUNIT_EXPECT_EQ_MSG(test, off, c->new_offset, "offset %u", c->offset);
	}
}

/* A shorter count stops the walk even though the list goes on. */
static void rwx_sg_skip_honours_count(struct kunit *test)
{
	struct scatterlist *sgl = rwx_skip_list(test), *sg = sgl;
	u32 nents = 1, off = 100;

	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&sg, &nents, &off), -EINVAL);
	sg = sgl;
	nents = 3;
	off = 299;
	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&sg, &nents, &off), 0);
	KUNIT_EXPECT_PTR_EQ(test, sg, &sgl[2]);
	KUNIT_EXPECT_EQ(test, off, 199U);
	sg = sgl;
	nents = 3;
	off = 300;
	KUNIT_EXPECT_EQ(test, rdma_rwx_sg_skip(&sg, &nents, &off), -EINVAL);
}

static struct kunit_case rwx_layout_cases[] = {
	KUNIT_CASE(rwx_layout_matrix),
	KUNIT_CASE(rwx_layout_examples),
	KUNIT_CASE(rwx_layout_errors),
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
