// SPDX-License-Identifier: GPL-2.0-only
/* bio_vec contexts: see Documentation/rdma_rwx.rst, "bio_vec contexts". */

#include <linux/bvec.h>
#include <linux/fault-inject.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"
#include "rwx_stats.h"
#include "rwx_trace.h"

/* Mappings cannot fail without an IOMMU: a fault point for fail_nth. */
#ifdef CONFIG_FAULT_INJECTION
static DECLARE_FAULT_ATTR(rdma_rwx_fail_dma_map);

static bool rdma_rwx_dma_map_fails(u32 len)
{
	return should_fail(&rdma_rwx_fail_dma_map, len);
}

/* Quietly, as the suites' failslab: no stack dump per injected failure. */
void rdma_rwx_bvec_setup(void)
{
	rdma_rwx_fail_dma_map.verbose = 0;
}
#else
void rdma_rwx_bvec_setup(void)
{
}

static bool rdma_rwx_dma_map_fails(u32 len)
{
	return false;
}
#endif

/*
 * Counts (and with @sgl sets) the non-empty segments; every step is
 * checked, so a bvec changed since the count cannot lead past the array.
 */
static int rdma_rwx_bvec_walk(const struct bio_vec *bvecs, u32 nr_bvec,
			      struct bvec_iter iter, struct scatterlist *sgl,
			      u32 max)
{
	u32 idx = iter.bi_idx, done = iter.bi_bvec_done, left = iter.bi_size;
	const struct bio_vec *bv;
	u32 n = 0, len;
	size_t off;

	for (; left; idx++, done = 0) {
		if (idx >= nr_bvec || done > bvecs[idx].bv_len)
			return -EINVAL;
		bv = &bvecs[idx];
		len = min(bv->bv_len - done, left);
		if (!len)
			continue;
		if (is_pci_p2pdma_page(bv->bv_page))
			return -EOPNOTSUPP;
		if (n == max)
			return -EINVAL;
		left -= len;
		if (sgl) {
			off = (size_t)bv->bv_offset + done;
			sg_set_page(&sgl[n], nth_page(bv->bv_page,
						      off >> PAGE_SHIFT),
				    len, offset_in_page(off));
		}
		n++;
	}
	return n;
}

/**
 * rdma_rwx_bvec_segments() - check a bvec iterator and count its segments
 * @bvecs: bio_vec array
 * @nr_bvec: entries in @bvecs
 * @iter: the transfer within @bvecs (bi_sector unused)
 * @nsegs: set to the number of non-empty segments it covers
 *
 * The checks rdma_rwx_ctx_init_bvec() makes before mapping; needs no device.
 *
 * Return: 0; -EINVAL for a NULL pointer, an @nr_bvec or bi_size of 0, or
 * an iterator that runs past @nr_bvec entries or starts past its bvec's
 * end; -EOPNOTSUPP for a segment in PCI peer-to-peer memory.
 */
int rdma_rwx_bvec_segments(const struct bio_vec *bvecs, u32 nr_bvec,
			   struct bvec_iter iter, u32 *nsegs)
{
	int n;

	if (!bvecs || !nsegs || !nr_bvec || !iter.bi_size)
		return -EINVAL;
	n = rdma_rwx_bvec_walk(bvecs, nr_bvec, iter, NULL, U32_MAX);
	if (n < 0)
		return n;
	*nsegs = n;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_bvec_segments, RDMA_RWX);

/**
 * rdma_rwx_bvec_to_sgl() - the segments of a bvec iterator as a scatterlist
 * @bvecs: bio_vec array
 * @nr_bvec: entries in @bvecs
 * @iter: iterator over @bvecs, as rdma_rwx_ctx_init_bvec() takes it
 * @sgl: a table of @nents entries, initialised here
 * @nents: its size: the segments rdma_rwx_bvec_segments() counted
 *
 * For the KUnit suites (RDMA_RWX_TESTING), which change bvecs after the count.
 *
 * Return: the segments set; -EINVAL as rdma_rwx_bvec_segments(), or for
 * more than @nents segments; -EOPNOTSUPP for a PCI peer-to-peer page.
 */
int rdma_rwx_bvec_to_sgl(const struct bio_vec *bvecs, u32 nr_bvec,
			 struct bvec_iter iter, struct scatterlist *sgl,
			 u32 nents)
{
	if (!nents)
		return -EINVAL;
	sg_init_table(sgl, nents);
	return rdma_rwx_bvec_walk(bvecs, nr_bvec, iter, sgl, nents);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_bvec_to_sgl, RDMA_RWX_TESTING);

static int rdma_rwx_bvec_single(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				struct scatterlist *seg, u64 remote_addr,
				u32 rkey, enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	u64 addr;

	if (rdma_rwx_dma_map_fails(seg->length))
		return -ENOMEM;
	addr = ib_dma_map_page(dev, sg_page(seg), seg->offset, seg->length,
			       dir);
	if (ib_dma_mapping_error(dev, addr))
		return -ENOMEM;
	rdma_rwx_init_single_wr(ctx, qp, addr, seg->length, remote_addr,
				rkey, dir);
	ctx->type |= RDMA_RWX_CTX_BVEC;
	rdma_rwx_count_ctx(dev, RWX_CNT_INIT_SGE_SINGLE, 0, seg->length, dir);
	return 1;
}

static bool rdma_rwx_bvec_sgl_cached(u32 nents)
{
	return nents <= RDMA_RWX_BUF_SIZE / sizeof(struct scatterlist);
}

static void rdma_rwx_bvec_free_sgl(struct scatterlist *sgl, u32 nents)
{
	if (rdma_rwx_bvec_sgl_cached(nents))
		rdma_rwx_buf_put(sgl);
	else
		kfree(sgl);
}

/* Any other context: its own list, mapped, built by the scatterlist path. */
static noinline int rdma_rwx_bvec_list(struct rdma_rw_ctx *ctx,
				       struct ib_qp *qp, u32 port_num,
				       const struct bio_vec *bvecs,
				       u32 nr_bvec, struct bvec_iter iter,
				       u32 nents, u64 remote_addr, u32 rkey,
				       enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	struct rdma_rwx_owned *owned;
	struct scatterlist *sgl;
	int ret, mapped;

	if (rdma_rwx_bvec_sgl_cached(nents))
		sgl = rdma_rwx_buf_get();
	else
		sgl = kmalloc_array(nents, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return -ENOMEM;
	ret = rdma_rwx_bvec_to_sgl(bvecs, nr_bvec, iter, sgl, nents);
	if (ret != (int)nents)
		goto free;
	ret = -ENOMEM;
	if (rdma_rwx_dma_map_fails(nents))
		goto free;
	mapped = rdma_rwx_dma_map_sg(dev, sgl, nents, dir);
	if (!mapped)
		goto free;
	ret = rdma_rwx_init_owned(ctx, qp, port_num, sgl, mapped, iter.bi_size,
				  remote_addr, rkey, dir);
	if (ret < 0) {
		ib_dma_unmap_sg(dev, sgl, nents, dir);
		goto free;
	}
	owned = rdma_rwx_owned(ctx);
	owned->sgl = sgl;
	owned->nents = nents;
	owned->dir = dir;
	ctx->type |= RDMA_RWX_CTX_BVEC;
	return ret;

free:
	rdma_rwx_bvec_free_sgl(sgl, nents);
	return ret < 0 ? ret : -EINVAL;
}

/**
 * rdma_rwx_ctx_init_bvec() - initialise an RDMA READ/WRITE context from bvecs
 * @ctx: context to initialise
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @bvecs: bio_vec array to READ/WRITE from/to
 * @nr_bvec: entries in @bvecs
 * @iter: the transfer within @bvecs
 * @remote_addr: remote address to read/write (relative to @rkey)
 * @rkey: remote key to operate on
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 *
 * Upstream 7.0's rdma_rw_ctx_init_bvec(): same arguments and returns; the
 * chain rdma_rwx_ctx_init() builds for the segments as a scatterlist.  See
 * Documentation/rdma_rwx.rst, "bio_vec contexts", for the differences.
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post; -EINVAL for a bad
 * argument or iterator (as rdma_rwx_bvec_segments()) or, where MRs are
 * required, memory the device refuses; -EOPNOTSUPP for PCI peer-to-peer
 * memory; otherwise as rdma_rwx_ctx_init().
 */
int rdma_rwx_ctx_init_bvec(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			   u32 port_num, const struct bio_vec *bvecs,
			   u32 nr_bvec, struct bvec_iter iter,
			   u64 remote_addr, u32 rkey,
			   enum dma_data_direction dir)
{
	struct scatterlist seg;
	u32 nents = 0;
	int ret;

	if (!ctx || !qp || !rdma_rwx_dir_valid(dir) ||
	    !rdma_rwx_port_valid(qp->pd->device, port_num)) {
		ret = -EINVAL;
		goto out;
	}
	ret = rdma_rwx_bvec_segments(bvecs, nr_bvec, iter, &nents);
	if (ret)
		goto out;
	if (nents == 1 && rdma_rwx_single_sge(qp, port_num, dir)) {
		ret = rdma_rwx_bvec_to_sgl(bvecs, nr_bvec, iter, &seg, 1);
		if (ret == 1)
			ret = rdma_rwx_bvec_single(ctx, qp, &seg, remote_addr,
						   rkey, dir);
		else if (ret >= 0)
			ret = -EINVAL;
	} else {
		ret = rdma_rwx_bvec_list(ctx, qp, port_num, bvecs, nr_bvec,
					 iter, nents, remote_addr, rkey, dir);
	}
out:
	if (ret < 0 && ctx)
		ctx->type = RDMA_RWX_CTX_DEAD;
	rdma_rwx_count_init_done(qp, port_num, ctx, nents, dir, ret,
				 RDMA_RWX_COUNT_BVEC);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_init_bvec, RDMA_RWX);

/**
 * rdma_rwx_ctx_destroy_bvec() - release what rdma_rwx_ctx_init_bvec() took
 * @ctx: context to release
 * @qp: queue pair it was initialised on
 * @port_num: port the connection is bound to (unused)
 * @bvecs: bio_vec array passed to rdma_rwx_ctx_init_bvec() (unused)
 * @nr_bvec: entries in @bvecs (unused)
 * @dir: direction passed to rdma_rwx_ctx_init_bvec() (unused)
 *
 * Upstream 7.0's rdma_rw_ctx_destroy_bvec().  The context knows what it
 * mapped; a dead or non-bvec context is left alone.
 *
 * Context: process context.
 */
void rdma_rwx_ctx_destroy_bvec(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, const struct bio_vec *bvecs,
			       u32 nr_bvec, enum dma_data_direction dir)
{
	struct rdma_rwx_owned owned;
	struct ib_device *dev;
	u8 base;

	if (!ctx || !qp || !(ctx->type & RDMA_RWX_CTX_BVEC))
		return;
	base = rdma_rwx_ctx_base(ctx->type);
	if (!base)
		return;
	dev = qp->pd->device;
	/* The event reads the WRs: before anything is freed. */
	if (trace_rwx_ctx_destroy_enabled())
		rdma_rwx_trace_destroy(dev, port_num, ctx, nr_bvec);
	if (base == RDMA_RWX_CTX_SINGLE) {
		ib_dma_unmap_page(dev, ctx->single.sge.addr,
				  ctx->single.sge.length,
				  rdma_rwx_wr_dir(&ctx->single.wr.wr));
		ctx->type = RDMA_RWX_CTX_DEAD;
		rdma_rwx_count(dev, RWX_CNT_DESTROY);
		return;
	}
	/* Destroyed as the scatterlist context it is, then the list freed. */
	owned = *rdma_rwx_owned(ctx);
	ctx->type &= ~RDMA_RWX_CTX_BVEC;
	rdma_rwx_destroy_wrs(ctx, qp, owned.sgl, owned.nents, owned.dir);
	rdma_rwx_bvec_free_sgl(owned.sgl, owned.nents);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_destroy_bvec, RDMA_RWX);
