// SPDX-License-Identifier: GPL-2.0-only
/*
 * WR layout: which path a context takes and how its DMA entries spread
 * over RDMA READ/WRITE WRs.  A pure function of the device's capabilities
 * and the entry count, kept apart from DMA mapping, MRs and posting so it
 * can be tested without a device.
 */

#include <linux/export.h>
#include <linux/errno.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/scatterlist.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"

/* READs must land in registered memory on iWARP; MRs may also be faster. */
static bool rdma_rwx_needs_mr(const struct rdma_rwx_caps *caps,
			      enum dma_data_direction dir, u32 nents)
{
	if (caps->force_mr)
		return true;
	if (dir != DMA_FROM_DEVICE)
		return false;
	return caps->iwarp || (caps->max_sgl_rd && nents > caps->max_sgl_rd);
}

static void rdma_rwx_split(struct rdma_rwx_layout *layout, u32 nents,
			   u32 per_op)
{
	layout->per_op = per_op;
	layout->nr_ops = DIV_ROUND_UP(nents, per_op);
	layout->last_op = nents - (layout->nr_ops - 1) * per_op;
}

/**
 * rdma_rwx_layout() - decide the WR layout of a READ/WRITE context
 * @caps: the device's and QP's capabilities (see rdma_rwx_qp_caps())
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 * @nents: DMA-mapped entries to move, after skipping the offset
 * @layout: filled in with the SGE path layout, or the MR path layout
 *	when memory registration is needed (@layout->sge_fallback then says
 *	whether an empty MR pool may fall back to the SGE path)
 *
 * Return: 0, or -EINVAL when @nents is 0, @dir is not a transfer
 * direction, or @caps has a zero SGE or page limit for the path taken.
 */
int rdma_rwx_layout(const struct rdma_rwx_caps *caps,
		    enum dma_data_direction dir, u32 nents,
		    struct rdma_rwx_layout *layout)
{
	if (!nents || (dir != DMA_TO_DEVICE && dir != DMA_FROM_DEVICE))
		return -EINVAL;

	if (rdma_rwx_needs_mr(caps, dir, nents)) {
		if (!caps->mr_pages)
			return -EINVAL;
		layout->path = RDMA_RWX_PATH_MR;
		layout->sge_fallback = !caps->force_mr &&
			!(caps->iwarp && dir == DMA_FROM_DEVICE);
		rdma_rwx_split(layout, nents,
			       min_t(u32, caps->mr_pages, RDMA_RWX_MAX_MR_PAGES));
		return 0;
	}
	return rdma_rwx_layout_sge(caps, dir, nents, layout);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_layout, RDMA_RWX);

/* The SGE path's layout: also the fallback when the MR pool runs dry. */
int rdma_rwx_layout_sge(const struct rdma_rwx_caps *caps,
			enum dma_data_direction dir, u32 nents,
			struct rdma_rwx_layout *layout)
{
	u32 max_sge = dir == DMA_TO_DEVICE ? caps->max_write_sge :
					     caps->max_read_sge;

	if (!nents || !max_sge)
		return -EINVAL;
	layout->path = RDMA_RWX_PATH_SGE;
	layout->sge_fallback = false;
	rdma_rwx_split(layout, nents, max_sge);
	return 0;
}

/**
 * rdma_rwx_sg_skip() - skip the DMA entries a byte offset covers
 * @sgp: in: first DMA-mapped entry; out: the entry the offset falls in
 * @nents: in: mapped entries from *@sgp; out: entries left from there
 * @offset: in: byte offset from *@sgp; out: offset into the new *@sgp
 *
 * Unlike ib_core, an offset at or past the end of the list is an error,
 * not a walk off its end.  Zero-length entries are skipped.
 *
 * Return: 0, or -EINVAL when @offset is not inside the list.
 */
int rdma_rwx_sg_skip(struct scatterlist **sgp, u32 *nents, u32 *offset)
{
	struct scatterlist *sg = *sgp;
	u32 left = *nents, off = *offset;

	while (left && off >= sg_dma_len(sg)) {
		off -= sg_dma_len(sg);
		left--;
		if (left)
			sg = sg_next(sg);
	}
	if (!left)
		return -EINVAL;
	*sgp = sg;
	*nents = left;
	*offset = off;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_sg_skip, RDMA_RWX);
