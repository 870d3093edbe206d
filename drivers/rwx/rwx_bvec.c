// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA READ/WRITE contexts from a bio_vec array and an iterator over it:
 * the contract and argument order of upstream Linux 7.0's
 * rdma_rw_ctx_init_bvec(), on kernels without its DMA mapping calls
 * (dma_map_phys() and the IOVA API).
 *
 * Each non-empty segment the iterator covers is one DMA entry, mapped on
 * its own: with ib_dma_map_page() on the SGE path (one segment inline in
 * the context, several in a WR/SGE buffer as on the scatterlist path), or
 * through a scatterlist the context owns on the MR path, so that the MR
 * code of rwx_ctx.c (page-aware split, SGE fallback) runs unchanged.  The
 * context records what it mapped: destroy needs neither the bvecs nor
 * their count.
 */

#include <linux/build_bug.h>
#include <linux/bvec.h>
#include <linux/fault-inject.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"
#include "rwx_stats.h"
#include "rwx_trace.h"

/*
 * An MR context from bvecs: the op array, as every MR context has it in
 * ctx->reg, and the scatterlist it registered from, in the bytes of the
 * context's union the op array pointer leaves unused.
 */
struct rdma_rwx_bvec_mr {
	struct rdma_rw_reg_ctx *reg;	/* ctx->reg */
	struct scatterlist *sgl;	/* the owned list, DMA-mapped */
	u32 nents;			/* its entries, as given to the mapping */
};

static_assert(offsetof(struct rdma_rw_ctx, reg) ==
	      offsetof(struct rdma_rw_ctx, single));
static_assert(offsetof(struct rdma_rwx_bvec_mr, reg) == 0);
static_assert(sizeof(struct rdma_rwx_bvec_mr) <=
	      sizeof(((struct rdma_rw_ctx *)NULL)->single));
/* The bvec tags follow their scatterlist twins, in the same order. */
static_assert(RDMA_RWX_CTX_BVEC_MR_BUILT - RDMA_RWX_CTX_BVEC_SINGLE ==
	      RDMA_RWX_CTX_MR_BUILT - RDMA_RWX_CTX_SINGLE);

static struct rdma_rwx_bvec_mr *rdma_rwx_bvec_mr(struct rdma_rw_ctx *ctx)
{
	return (struct rdma_rwx_bvec_mr *)&ctx->reg;
}

/*
 * A fault point per segment mapping: with no IOMMU (the test kernels)
 * ib_dma_map_page() cannot fail by itself.  Its probability is 0, so
 * only a task's fail_nth (the KUnit suites' fault sweep) makes it fire.
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

/* Where the walk of an iterator over the bvec array stands. */
struct rdma_rwx_bvec_cursor {
	const struct bio_vec *bvecs;
	u32 idx;	/* the bvec */
	u32 done;	/* bytes of it behind */
	u32 left;	/* bytes of the transfer left */
};

/* One segment: a page, an offset into it (< PAGE_SIZE), a length. */
struct rdma_rwx_bvec_seg {
	struct page *page;
	u32 offset;
	u32 len;
};

/*
 * The next non-empty segment.  The iterator was validated by
 * rdma_rwx_bvec_segments(): the caller takes no more segments than that
 * counted, so the walk stays inside the array.
 */
static void rdma_rwx_bvec_next(struct rdma_rwx_bvec_cursor *cur,
			       struct rdma_rwx_bvec_seg *seg)
{
	const struct bio_vec *bv;
	size_t off;
	u32 n;

	for (;;) {
		bv = &cur->bvecs[cur->idx];
		n = min(bv->bv_len - cur->done, cur->left);
		if (n)
			break;
		cur->idx++;
		cur->done = 0;
	}
	off = (size_t)bv->bv_offset + cur->done;
	seg->page = nth_page(bv->bv_page, off >> PAGE_SHIFT);
	seg->offset = offset_in_page(off);
	seg->len = n;
	cur->left -= n;
	cur->done += n;
	if (cur->done == bv->bv_len) {
		cur->idx++;
		cur->done = 0;
	}
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
	u32 idx = iter.bi_idx, done = iter.bi_bvec_done, left = iter.bi_size;
	u32 n = 0, len;

	if (!bvecs || !nsegs || !nr_bvec || !left)
		return -EINVAL;
	while (left) {
		if (idx >= nr_bvec)
			return -EINVAL;
		len = bvecs[idx].bv_len;
		if (done > len)
			return -EINVAL;
		len = min(len - done, left);
		if (len) {
			if (is_pci_p2pdma_page(bvecs[idx].bv_page))
				return -EOPNOTSUPP;
			n++;
		}
		left -= len;
		idx++;
		done = 0;
	}
	*nsegs = n;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_bvec_segments, RDMA_RWX);

/* Map one segment into @sge (address and length). */
static int rdma_rwx_bvec_map(struct ib_device *dev,
			     const struct rdma_rwx_bvec_seg *seg,
			     struct ib_sge *sge, enum dma_data_direction dir)
{
	if (rdma_rwx_dma_map_fails(seg->len))
		return -ENOMEM;
	sge->addr = ib_dma_map_page(dev, seg->page, seg->offset, seg->len, dir);
	if (ib_dma_mapping_error(dev, sge->addr))
		return -ENOMEM;
	sge->length = seg->len;
	return 0;
}

static void rdma_rwx_bvec_unmap_sges(struct ib_device *dev,
				     const struct ib_sge *sge, u32 count,
				     enum dma_data_direction dir)
{
	while (count--) {
		ib_dma_unmap_page(dev, sge->addr, sge->length, dir);
		sge++;
	}
}

/* A single segment on the SGE path: the WR and its SGE in the context. */
static int rdma_rwx_bvec_single(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				struct rdma_rwx_bvec_cursor *cur,
				u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	struct ib_sge *sge = &ctx->single.sge;
	struct rdma_rwx_bvec_seg seg;
	int ret;

	rdma_rwx_bvec_next(cur, &seg);
	ret = rdma_rwx_bvec_map(qp->pd->device, &seg, sge, dir);
	if (ret)
		return ret;
	sge->lkey = qp->pd->local_dma_lkey;
	rdma_rwx_fill_wr(&ctx->single.wr, rdma_rwx_sge_opcode(dir), sge, 1,
			 remote_addr, rkey);
	ctx->nr_ops = 1;
	ctx->type = RDMA_RWX_CTX_BVEC_SINGLE;
	return 1;
}

/*
 * SGE path: one SGE per segment, the WRs and SGEs in one buffer (a cache
 * buffer when it fits), as rdma_rwx_ctx_init() lays them out.  On error
 * nothing stays mapped or allocated.
 */
static int rdma_rwx_bvec_sge_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 const struct rdma_rwx_layout *layout,
				 struct rdma_rwx_bvec_cursor *cur,
				 u64 remote_addr, u32 rkey,
				 enum dma_data_direction dir)
{
	u32 lkey = qp->pd->local_dma_lkey, nents, mapped = 0, op, i;
	enum ib_wr_opcode opcode = rdma_rwx_sge_opcode(dir);
	struct ib_device *dev = qp->pd->device;
	struct rdma_rwx_bvec_seg seg;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sge;
	bool cached;
	int ret;

	nents = (layout->nr_ops - 1) * layout->per_op + layout->last_op;
	if (nents == 1)
		return rdma_rwx_bvec_single(ctx, qp, cur, remote_addr, rkey,
					    dir);
	wrs = rdma_rwx_alloc_sge_wrs(layout->nr_ops, nents, &cached);
	if (!wrs)
		return -ENOMEM;
	sge = (struct ib_sge *)(wrs + layout->nr_ops);
	ctx->map.wrs = wrs;
	ctx->map.sges = sge;

	for (op = 0; op < layout->nr_ops; op++) {
		u32 nr_sge = op + 1 < layout->nr_ops ? layout->per_op :
						       layout->last_op;
		struct ib_rdma_wr *wr = &wrs[op];

		rdma_rwx_fill_wr(wr, opcode, sge, nr_sge, remote_addr, rkey);
		for (i = 0; i < nr_sge; i++, sge++) {
			rdma_rwx_bvec_next(cur, &seg);
			ret = rdma_rwx_bvec_map(dev, &seg, sge, dir);
			if (ret)
				goto unmap;
			mapped++;
			sge->lkey = lkey;
			remote_addr += sge->length;
		}
		wr->wr.next = op + 1 < layout->nr_ops ? &wrs[op + 1].wr : NULL;
	}
	ctx->nr_ops = layout->nr_ops;
	ctx->type = cached ? RDMA_RWX_CTX_BVEC_MULTI_CACHED :
			     RDMA_RWX_CTX_BVEC_MULTI;
	return layout->nr_ops;

unmap:
	rdma_rwx_bvec_unmap_sges(dev, ctx->map.sges, mapped, dir);
	rdma_rwx_free_sge_wrs(wrs, cached);
	return ret;
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
 * MR path: the segments as a scatterlist of @nents entries, DMA-mapped,
 * registered by rwx_ctx.c's MR code exactly as a caller's list would be.
 * On error nothing stays mapped, allocated or taken from the pool.
 */
static noinline int rdma_rwx_bvec_mr_wrs(struct rdma_rw_ctx *ctx,
					 struct ib_qp *qp,
					 const struct rdma_rwx_caps *caps,
					 struct rdma_rwx_bvec_cursor cur,
					 u32 nents, u64 remote_addr, u32 rkey,
					 enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	struct rdma_rwx_pos pos = {};
	struct rdma_rwx_bvec_seg seg;
	struct scatterlist *sgl, *sg;
	int ret, mapped;
	u32 i;

	if (rdma_rwx_bvec_sgl_cached(nents))
		sgl = rdma_rwx_buf_get();
	else
		sgl = kmalloc_array(nents, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return -ENOMEM;
	sg_init_table(sgl, nents);
	for (i = 0, sg = sgl; i < nents; i++, sg++) {
		rdma_rwx_bvec_next(&cur, &seg);
		sg_set_page(sg, seg.page, seg.len, seg.offset);
	}
	ret = -ENOMEM;
	if (rdma_rwx_dma_map_fails(nents))
		goto free;
	mapped = rdma_rwx_dma_map_sg(dev, sgl, nents, dir);
	if (!mapped)
		goto free;
	pos.sg = sgl;
	pos.nents = mapped;
	ret = rdma_rwx_init_mr_wrs(ctx, qp, caps, pos, 0, remote_addr, rkey,
				   dir);
	if (ret < 0) {
		ib_dma_unmap_sg(dev, sgl, nents, dir);
		goto free;
	}
	rdma_rwx_bvec_mr(ctx)->sgl = sgl;
	rdma_rwx_bvec_mr(ctx)->nents = nents;
	ctx->type = RDMA_RWX_CTX_BVEC_MR;
	return ret;

free:
	rdma_rwx_bvec_free_sgl(sgl, nents);
	return ret;
}

/*
 * Every context but a single segment on the SGE path: the MR path where
 * the scatterlist path takes it (iWARP READs, force_mr, READs of more
 * than max_sgl_rd segments), with its SGE fallback, else the SGE path.
 */
static noinline int rdma_rwx_bvec_init_wrs(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u32 port_num,
					   struct rdma_rwx_bvec_cursor *cur,
					   u32 nents, u64 remote_addr,
					   u32 rkey,
					   enum dma_data_direction dir)
{
	struct rdma_rwx_layout layout;
	struct rdma_rwx_caps caps;
	int ret;

	rdma_rwx_fill_caps(qp, port_num, &caps);
	if (rdma_rwx_needs_mr(&caps, dir, nents)) {
		ret = rdma_rwx_bvec_mr_wrs(ctx, qp, &caps, *cur, nents,
					   remote_addr, rkey, dir);
		if ((ret != -EAGAIN && ret != -ENOSPC) ||
		    !rdma_rwx_sge_fallback(&caps, dir))
			return ret;
		rdma_rwx_count(qp->pd->device, RWX_CNT_SGE_FALLBACK);
	}
	ret = rdma_rwx_layout_sge(&caps, dir, nents, &layout);
	if (ret)
		return ret;
	return rdma_rwx_bvec_sge_wrs(ctx, qp, &layout, cur, remote_addr, rkey,
				     dir);
}

/*
 * Count a bvec context set up on the SGE path on its path's line (the MR
 * path counts itself, in rdma_rwx_init_mr_wrs()).
 */
static void rdma_rwx_bvec_count_sge(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u64 bytes, enum dma_data_direction dir)
{
	if (ctx->type == RDMA_RWX_CTX_BVEC_SINGLE)
		rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_SINGLE, 0,
				   bytes, dir);
	else if (ctx->type != RDMA_RWX_CTX_BVEC_MR)
		rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_MULTI, 0,
				   bytes, dir);
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
 * pages) is one DMA entry, so the WR chain is the one
 * rdma_rwx_ctx_init() builds for a scatterlist of those segments:
 *
 * - SGE path: each segment mapped with ib_dma_map_page(), one SGE each,
 *   as many per WR as the QP allows.  A single segment lives in the
 *   context itself (no allocation); several share one WR/SGE buffer.
 * - MR path (READs on iWARP, READs of more than the device's max_sgl_rd
 *   segments, everything with the force_mr parameter): the segments are
 *   put in a scatterlist the context owns, DMA-mapped as one list and
 *   registered as rdma_rwx_ctx_init() registers one, including its
 *   page-aware split and, where MRs are only an optimisation, its
 *   fallback to the SGE path when the pool is short.
 *
 * Differences from upstream: upstream maps segments with dma_map_phys()
 * and, behind an IOMMU, links a multi-segment context into one IOVA
 * range (one SGE, one IOTLB sync); 6.1 and 6.12 have neither call, so
 * here a context behind an IOMMU pays one mapping and one unmapping per
 * segment on the SGE path and uses one SGE per segment (more WRs when
 * segments outnumber the QP's SGE limit); without an IOMMU, and on
 * software devices, the cost is that of upstream's own fallback.  The
 * iterator is checked before anything is mapped (upstream reads past
 * the array or maps past a bvec on some inputs), segments are counted
 * from the iterator rather than from @nr_bvec, empty bvecs are skipped,
 * max_sgl_rd is honoured as on the scatterlist path, PCI peer-to-peer
 * pages are refused, and NULL pointers, a bad direction or port fail.
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post, or -EINVAL for a NULL
 * @ctx, @qp or @bvecs, an @nr_bvec or @iter.bi_size of 0, an invalid @dir
 * or @port_num, an iterator that runs past @nr_bvec entries or starts
 * past the end of its bvec, or memory the device refuses to register;
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
	struct rdma_rwx_bvec_cursor cur = {
		.bvecs = bvecs, .idx = iter.bi_idx,
		.done = iter.bi_bvec_done, .left = iter.bi_size,
	};
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
		ret = rdma_rwx_bvec_single(ctx, qp, &cur, remote_addr, rkey,
					   dir);
	} else {
		ret = rdma_rwx_bvec_init_wrs(ctx, qp, port_num, &cur, nents,
					     remote_addr, rkey, dir);
	}
	if (ret >= 0)
		rdma_rwx_bvec_count_sge(ctx, qp, iter.bi_size, dir);
out:
	if (ret < 0 && ctx)
		ctx->type = RDMA_RWX_CTX_DEAD;
	/* init_bvec, or the error by cause; the rwx_ctx_init event */
	rdma_rwx_count_init_done(qp, port_num, ctx, nents, dir, ret,
				 RDMA_RWX_COUNT_BVEC);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_init_bvec, RDMA_RWX);

/* Direction of a context's data, from its WRs: READ sinks or WRITE sources. */
static enum dma_data_direction rdma_rwx_bvec_dir(const struct ib_send_wr *wr)
{
	return wr->opcode == IB_WR_RDMA_WRITE ? DMA_TO_DEVICE :
						DMA_FROM_DEVICE;
}

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
	struct rdma_rwx_bvec_mr *mr;
	struct ib_device *dev;
	u32 op;

	if (!ctx || !qp)
		return;
	dev = qp->pd->device;
	/* The event reads the WRs: before anything is freed. */
	if (trace_rwx_ctx_destroy_enabled() &&
	    ctx->type >= RDMA_RWX_CTX_BVEC_SINGLE &&
	    ctx->type <= RDMA_RWX_CTX_BVEC_MR_BUILT)
		rdma_rwx_trace_destroy(dev, port_num, ctx, nr_bvec);
	switch (ctx->type) {
	case RDMA_RWX_CTX_BVEC_SINGLE:
		rdma_rwx_bvec_unmap_sges(dev, &ctx->single.sge, 1,
					 rdma_rwx_bvec_dir(&ctx->single.wr.wr));
		break;
	case RDMA_RWX_CTX_BVEC_MULTI:
	case RDMA_RWX_CTX_BVEC_MULTI_CACHED:
		dir = rdma_rwx_bvec_dir(&ctx->map.wrs[0].wr);
		for (op = 0; op < ctx->nr_ops; op++)
			rdma_rwx_bvec_unmap_sges(dev, ctx->map.wrs[op].wr.sg_list,
						 ctx->map.wrs[op].wr.num_sge,
						 dir);
		rdma_rwx_free_sge_wrs(ctx->map.wrs,
				      ctx->type == RDMA_RWX_CTX_BVEC_MULTI_CACHED);
		break;
	case RDMA_RWX_CTX_BVEC_MR:
	case RDMA_RWX_CTX_BVEC_MR_BUILT:
		mr = rdma_rwx_bvec_mr(ctx);
		dir = rdma_rwx_bvec_dir(&ctx->reg[0].wr.wr);
		rdma_rwx_put_mrs(ctx, qp, ctx->nr_ops);
		rdma_rwx_free_regs(ctx->reg, ctx->nr_ops);
		ib_dma_unmap_sg(dev, mr->sgl, mr->nents, dir);
		rdma_rwx_bvec_free_sgl(mr->sgl, mr->nents);
		break;
	default:
		return;
	}
	ctx->type = RDMA_RWX_CTX_DEAD;
	rdma_rwx_count(dev, RWX_CNT_DESTROY);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_destroy_bvec, RDMA_RWX);
