// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA mapping of an instance with caps.dma_merge: bus addresses are
 * physical ones, as with dma-direct, but a scatterlist's physically
 * contiguous entries map to one DMA segment, as behind an IOMMU, so a
 * mapped list can be shorter than the list given.  The executor reaches
 * memory through the addresses as for any instance.  Needs dma_map_ops
 * (CONFIG_DMA_OPS before 6.10, CONFIG_ARCH_HAS_DMA_OPS since: the test
 * kernels enable GART_IOMMU for it, as Debian's kernels do).
 */

#include <linux/dma-map-ops.h>
#include <linux/scatterlist.h>
#include "rwx_testdev_internal.h"

static dma_addr_t rwx_td_dma_map_page(struct device *dev, struct page *page,
				      unsigned long offset, size_t size,
				      enum dma_data_direction dir,
				      unsigned long attrs)
{
	return page_to_phys(page) + offset;
}

/* Nothing to undo; 6.12 calls it without checking that it is set. */
static void rwx_td_dma_unmap_page(struct device *dev, dma_addr_t addr,
				  size_t size, enum dma_data_direction dir,
				  unsigned long attrs)
{
}

/* Each entry joins the segment before it where the memory continues it. */
static int rwx_td_dma_map_sg(struct device *dev, struct scatterlist *sgl,
			     int nents, enum dma_data_direction dir,
			     unsigned long attrs)
{
	unsigned int max = dma_get_max_seg_size(dev);
	struct scatterlist *sg, *seg = NULL;
	int i, mapped = 0;

	for_each_sg(sgl, sg, nents, i) {
		phys_addr_t phys = sg_phys(sg);
		unsigned int len = sg->length;

		if (seg && sg_dma_address(seg) + sg_dma_len(seg) == phys &&
		    len <= max - sg_dma_len(seg)) {
			sg_dma_len(seg) += len;
			continue;
		}
		seg = seg ? sg_next(seg) : sgl;
		sg_dma_address(seg) = phys;
		sg_dma_len(seg) = len;
		mapped++;
	}
	return mapped;
}

static const struct dma_map_ops rwx_td_dma_merge_ops = {
	.map_page = rwx_td_dma_map_page,
	.unmap_page = rwx_td_dma_unmap_page,
	.map_sg = rwx_td_dma_map_sg,
};

/* -EOPNOTSUPP where the kernel has no dma_map_ops to install. */
int rwx_td_dma_merge(struct device *dev)
{
	set_dma_ops(dev, &rwx_td_dma_merge_ops);
	return get_dma_ops(dev) == &rwx_td_dma_merge_ops ? 0 : -EOPNOTSUPP;
}
