// SPDX-License-Identifier: GPL-2.0-only
/*
 * WR layout: which path a context takes and how its DMA entries spread
 * over RDMA READ/WRITE WRs and MRs.  A pure function of the device's
 * capabilities and the DMA addresses and lengths of the entries, kept
 * apart from DMA mapping, MRs and posting so it can be tested without a
 * device.
 */

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
 * An MR maps whole pages, as ib_map_mr_sg() lays them out: the first
 * entry may start inside a page, an entry that starts where the previous
 * one ended inside a page shares that page, and any other boundary that
 * is not page-aligned on both sides is a gap one MR cannot cover.  A span
 * takes entries while their pages fit the budget, up to as many entries
 * as the budget has pages, and ends before a gap.  An entry that does
 * not fit is split on a page boundary, so a list without gaps whose
 * entries share no page needs DIV_ROUND_UP(P, budget) MRs for the P pages
 * it touches, which rdma_rwx_mr_factor() promises; entries that share
 * pages may need more, as one MR takes at most budget entries (ib_core's
 * bound).  A list ib_core can register is split exactly as ib_core
 * splits it.
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

		/*
		 * ib_map_mr_sg() gives an empty entry a page of its own, which
		 * moves the data of every entry after it.
		 */
		if (!len)
			return -EINVAL;
		if (last) {
			/* Only a boundary aligned on both sides starts a page. */
			shared = !IS_ALIGNED(prev_end, PAGE_SIZE) ||
				 !IS_ALIGNED(start, PAGE_SIZE);
			if (shared && start != prev_end)
				break;	/* a gap */
		}
		need = rdma_rwx_run_pages(start, len) - shared;
		if (need > room) {
			if (!room)
				break;
			/* Fill the MR up to a page boundary inside this entry. */
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
	/* The span ends with the whole of @last. */
	pos->nents -= span->nents;
	pos->sg = pos->nents ? rdma_rwx_sg_next(last) : NULL;
	pos->offset = 0;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_next_mr_span, RDMA_RWX);

/* The MR path's layout: one READ/WRITE WR per span. */
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
 * @pos: the DMA-mapped entries to move, after skipping the offset (see
 *	rdma_rwx_sg_skip()); only the MR path reads their addresses
 * @layout: filled in with the SGE path layout, or the MR path layout
 *	when memory registration is needed (@layout->sge_fallback then says
 *	whether an empty MR pool may fall back to the SGE path)
 *
 * On the SGE path, each WR but the last gathers exactly the QP's SGE
 * limit of entries.  On the MR path, each WR uses one MR, split as
 * rdma_rwx_next_mr_span() says.
 *
 * Return: 0, or -EINVAL when @pos has no entries, @dir is not a transfer
 * direction, @caps has a zero SGE or page limit for the path taken, or
 * the MR path meets an empty entry.
 */
int rdma_rwx_layout(const struct rdma_rwx_caps *caps,
		    enum dma_data_direction dir, const struct rdma_rwx_pos *pos,
		    struct rdma_rwx_layout *layout)
{
	if (!pos->nents || (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE))
		return -EINVAL;

	if (rdma_rwx_needs_mr(caps, dir, pos->nents)) {
		layout->sge_fallback = rdma_rwx_sge_fallback(caps, dir);
		return rdma_rwx_layout_mr(caps, pos, layout);
	}
	return rdma_rwx_layout_sge(caps, dir, pos->nents, layout);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_layout, RDMA_RWX);

/**
 * rdma_rwx_sg_skip() - skip the DMA entries a byte offset covers
 * @pos: in: the first DMA-mapped entry, the mapped entries from it and a
 *	byte offset; out: the entry the offset falls in, the entries left
 *	from there and the offset into it
 *
 * Unlike ib_core, an offset at or past the end of the list is an error,
 * not a walk off its end.  Zero-length entries are skipped.
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
