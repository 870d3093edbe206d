// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA READ/WRITE contexts from a bio_vec array and an iterator over it:
 * the contract and argument order of upstream Linux 7.0's
 * rdma_rw_ctx_init_bvec(), on kernels without its DMA mapping calls
 * (dma_map_phys() and the IOVA API).
 *
 * A front end to the scatterlist path: a single segment on the SGE path
 * is mapped with ib_dma_map_page() into the context's own SGE;
 * any other context turns the segments into a scatterlist it owns (a
 * cache buffer where it fits), maps it, and has rwx_ctx.c build it as any
 * list: the same path choice on the mapped entries, the same MR code and
 * SGE fallback, the same destroy.  The context records what it mapped:
 * destroy needs neither the bvecs nor their count.
 */

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

/*
 * A fault point per DMA mapping: with no IOMMU (the test kernels)
 * ib_dma_map_page() and ib_dma_map_sg() cannot fail by themselves.  Its
 * probability is 0, so only a task's fail_nth (the KUnit suites' fault sweep) makes it fire.
 * Debian's kernels do not set CONFIG_FAULT_INJECTION: there it is gone.
 */
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
 * Walk the segments @iter covers, each the non-empty part of one bvec: a
 * page, an offset into it (< PAGE_SIZE) and a length.  With @sgl, each is
 * set in the next of its @max entries.  Every step is checked against the
 * array, so a bvec changed since an earlier walk cannot lead this one past
 * it.  Returns the number of segments, or -EINVAL (the iterator runs past
 * @nr_bvec entries, starts past the end of its bvec, or covers more than
 * @max segments); -EOPNOTSUPP for a PCI peer-to-peer page.
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
 * @iter: iterator over @bvecs: the transfer starts @iter.bi_bvec_done
 *	bytes into @bvecs[@iter.bi_idx] and is @iter.bi_size bytes long
 * @nsegs: set to the number of non-empty segments the transfer covers
 *	(one per bvec it touches, empty bvecs not counted)
 *
 * The validation rdma_rwx_ctx_init_bvec() makes before it maps anything;
 * no device needed.  @iter.bi_sector is not used.
 *
 * Return: 0; -EINVAL for a NULL @bvecs or @nsegs, an @nr_bvec or
 * @iter.bi_size of 0, an iterator that runs past @nr_bvec entries
 * (including a @iter.bi_idx at or past it) or starts past the end of its
 * bvec (@iter.bi_bvec_done > bv_len); -EOPNOTSUPP when a segment is in
 * PCI peer-to-peer memory.
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
 * What rdma_rwx_ctx_init_bvec() maps; exported for the KUnit suites
 * (namespace RDMA_RWX_TESTING), which change a bvec after the count.
 *
 * Return: the segments set, or -EINVAL when @iter runs past @nr_bvec
 * entries, starts past the end of its bvec or covers more than @nents
 * segments; -EOPNOTSUPP for a PCI peer-to-peer page.  Nothing is read
 * past @bvecs[@nr_bvec - 1] or written past @sgl[@nents - 1].
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

/* A single segment on the SGE path: mapped into the context's own SGE. */
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

/* The owned list of @nents entries: a cache buffer when it fits one. */
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

/*
 * Any other context: the segments as a scatterlist of @nents entries,
 * mapped and built by the scatterlist path; the context keeps the list.
 * On error nothing stays mapped, allocated or taken from the pool.
 */
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
 * @iter: the part of @bvecs to move: from @iter.bi_bvec_done bytes into
 *	@bvecs[@iter.bi_idx], @iter.bi_size bytes; it may start and end
 *	inside a bvec, and @bvecs may hold entries past its end
 * @remote_addr: remote address to read/write (relative to @rkey)
 * @rkey: remote key to operate on
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 *
 * Upstream Linux 7.0's rdma_rw_ctx_init_bvec(), same arguments, same
 * order, same return convention, on a context that
 * rdma_rwx_ctx_wrs() and rdma_rwx_ctx_post() take as any other, and
 * rdma_rwx_ctx_destroy_bvec() releases.  Each non-empty segment @iter
 * covers (the part of one bvec; a bvec may span several contiguous
 * pages) is one scatterlist entry, so the WR chain is the one
 * rdma_rwx_ctx_init() builds for a scatterlist of those segments: a
 * single segment on the SGE path is mapped with ib_dma_map_page() into
 * the context itself (no allocation); any other context puts the segments
 * in a scatterlist it owns, maps it with ib_dma_map_sg() and is built by
 * the scatterlist path (the path chosen on the mapped entries, the same
 * MR code and SGE fallback).
 *
 * Differences from upstream: upstream maps segments with dma_map_phys()
 * and, behind an IOMMU, links a multi-segment context into one IOVA
 * range (one SGE, one IOTLB sync); 6.1 and 6.12 have neither call, so
 * here such a context is one ib_dma_map_sg() of its list, which an IOMMU
 * may merge.  The iterator is checked before anything is mapped (upstream
 * reads past the array or maps past a bvec on some inputs), segments are
 * counted from the iterator rather than from @nr_bvec, empty bvecs are
 * skipped, max_sgl_rd is honoured as on the scatterlist path, PCI
 * peer-to-peer pages are refused, and NULL pointers, a bad direction or
 * port fail.
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post, or -EINVAL for a NULL
 * @ctx, @qp or @bvecs, an @nr_bvec or @iter.bi_size of 0, an invalid @dir
 * or @port_num, an iterator that runs past @nr_bvec entries or starts
 * past the end of its bvec, or, where MRs are required, memory the
 * device refuses to register;
 * -EOPNOTSUPP when a segment is in PCI peer-to-peer memory; -ENOMEM when
 * a DMA mapping or an allocation fails; -EAGAIN when MRs are required
 * and the QP's pool has fewer free MRs than the context needs; -ENOSPC
 * when the whole pool has fewer.  On error nothing stays mapped or taken
 * from the pool.
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
	/* init_bvec, or the error by cause; the rwx_ctx_init event */
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
 * Upstream Linux 7.0's rdma_rw_ctx_destroy_bvec(), same arguments.
 * Returns the MRs to the QP's pool, unmaps exactly the segments init
 * mapped and frees what it allocated.  The context describes its own
 * mappings and direction, so unlike upstream, which unmaps @nr_bvec SGEs
 * of a multi-segment context, a wrong @nr_bvec or @dir does no harm.  The
 * context is marked dead: destroying it again, or destroying a context
 * whose init failed, does nothing (upstream forbids both).  A scatterlist
 * or signature context is left alone, as rdma_rwx_ctx_destroy() leaves a
 * bvec context alone.
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
				  ctx->single.wr.wr.opcode == IB_WR_RDMA_WRITE ?
				  DMA_TO_DEVICE : DMA_FROM_DEVICE);
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
