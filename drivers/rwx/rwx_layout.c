// SPDX-License-Identifier: GPL-2.0-only
/* WR layout, apart from DMA and posting so that tests need no device. */

#include <linux/align.h>
#include <linux/export.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"

/**
 * rdma_rwx_next_mr_span() - the part of a DMA list the next MR registers
 * @caps: capabilities; @caps->mr_pages is the page budget of one MR
 * @pos: where the span starts; moved to where the next one starts
 * @span: filled in
 *
 * See Documentation/rdma_rwx.rst, "How the MR path splits a list".
 *
 * Return: 0, or -EINVAL (and @pos unchanged) when @pos has no entries
 * left, the budget is 0, or the span would take an empty entry.
 */
int rdma_rwx_next_mr_span(const struct rdma_rwx_caps *caps,
			  struct rdma_rwx_pos *pos,
			  struct rdma_rwx_mr_span *span)
{
	u32 budget = rdma_rwx_mr_budget(caps);
	struct scatterlist *sg = pos->sg, *last = NULL;
	u32 off = pos->offset;
	u64 prev_end = 0;

	if (!budget || !pos->nents)
		return -EINVAL;
	memset(span, 0, sizeof(*span));
	span->start = *pos;

	for (;;) {
		u64 start = sg_dma_address(sg) + off;
		u32 len = sg_dma_len(sg) - off;
		u32 room = budget - span->pages;
		bool shared = false;
		u64 need;

		/* ib_map_mr_sg() would give it a page, moving later data. */
		if (!len)
			return -EINVAL;
		if (last) {
			/* Only a both-sides-aligned boundary starts a page. */
			shared = !IS_ALIGNED(prev_end, PAGE_SIZE) ||
				 !IS_ALIGNED(start, PAGE_SIZE);
			if (shared && start != prev_end)
				break;	/* a gap */
		}
		need = rdma_rwx_run_pages(start, len) - shared;
		if (need > room) {
			if (!room)
				break;
			/* Fill the MR up to a page boundary in this entry. */
			span->last_len = ALIGN_DOWN(start, PAGE_SIZE) +
					 ((u64)room + shared) * PAGE_SIZE - start;
			span->length += span->last_len;
			span->pages = budget;
			span->split_last = true;
			pos->nents -= span->nents++;
			pos->sg = sg;
			pos->offset = off + span->last_len;
			return 0;
		}
		span->nents++;
		span->pages += need;
		span->length += len;
		span->last_len = len;
		prev_end = start + len;
		last = sg;
		if (span->nents == pos->nents || span->nents == budget)
			break;
		sg = rdma_rwx_sg_next(sg);
		off = 0;
	}
	pos->nents -= span->nents;
	pos->sg = pos->nents ? rdma_rwx_sg_next(last) : NULL;
	pos->offset = 0;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_next_mr_span, RDMA_RWX);

static int rdma_rwx_layout_mr(const struct rdma_rwx_caps *caps,
			      const struct rdma_rwx_pos *pos,
			      struct rdma_rwx_layout *layout)
{
	struct rdma_rwx_pos next = *pos;
	struct rdma_rwx_mr_span span;
	int ret;

	layout->path = RDMA_RWX_PATH_MR;
	layout->nr_ops = 0;
	layout->per_op = 0;
	while (next.nents) {
		ret = rdma_rwx_next_mr_span(caps, &next, &span);
		if (ret)
			return ret;
		layout->nr_ops++;
		layout->per_op = max(layout->per_op, span.nents);
		layout->last_op = span.nents;
	}
	return 0;
}

/**
 * rdma_rwx_layout() - decide the WR layout of a READ/WRITE context
 * @caps: the device's and QP's capabilities (see rdma_rwx_qp_caps())
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 * @pos: the DMA-mapped entries, past the offset (see rdma_rwx_sg_skip())
 * @layout: filled in; @layout->sge_fallback: may a failed MR path use SGEs
 *
 * See Documentation/rdma_rwx.rst, "Which path".
 *
 * Return: 0, or -EINVAL for no entries, a bad @dir, a zero SGE or page
 * limit for the path taken, or an empty entry on the MR path.
 */
int rdma_rwx_layout(const struct rdma_rwx_caps *caps,
		    enum dma_data_direction dir, const struct rdma_rwx_pos *pos,
		    struct rdma_rwx_layout *layout)
{
	enum rdma_rwx_mr_need need;

	if (!pos->nents || (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE))
		return -EINVAL;

	need = rdma_rwx_mr_need(caps, dir, pos->nents);
	if (need != RDMA_RWX_MR_NO) {
		layout->sge_fallback = need == RDMA_RWX_MR_PREFERRED;
		return rdma_rwx_layout_mr(caps, pos, layout);
	}
	return rdma_rwx_layout_sge(caps, dir, pos->nents, layout);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_layout, RDMA_RWX);

/**
 * rdma_rwx_sg_skip() - skip the DMA entries a byte offset covers
 * @pos: the entries and a byte offset; moved to the entry the offset is in
 *
 * Zero-length entries are skipped.
 *
 * Return: 0, or -EINVAL (and @pos unchanged) when the offset is not
 * inside the list.
 */
int rdma_rwx_sg_skip(struct rdma_rwx_pos *pos)
{
	struct scatterlist *sg = pos->sg;
	u32 left = pos->nents, off = pos->offset;

	while (left && off >= sg_dma_len(sg)) {
		off -= sg_dma_len(sg);
		left--;
		if (left)
			sg = rdma_rwx_sg_next(sg);
	}
	if (!left)
		return -EINVAL;
	pos->sg = sg;
	pos->nents = left;
	pos->offset = off;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_sg_skip, RDMA_RWX);
