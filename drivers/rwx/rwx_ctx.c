// SPDX-License-Identifier: GPL-2.0-only
/* Scatterlist contexts: ib_core's struct rdma_rw_ctx, our own type tag. */

#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"
#include "rwx_stats.h"
#include "rwx_trace.h"

/**
 * rdma_rwx_qp_caps() - the capabilities the WR layout depends on
 * @qp: queue pair the context will be posted on
 * @port_num: port the connection is bound to
 * @caps: filled in
 */
void rdma_rwx_qp_caps(struct ib_qp *qp, u32 port_num,
		      struct rdma_rwx_caps *caps)
{
	rdma_rwx_fill_caps(qp, port_num, caps);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_qp_caps, RDMA_RWX);

/* The fast path's cache-miss count: out of line, so a hit makes no call. */
static noinline int rdma_rwx_count_single_miss(struct ib_device *dev,
					       u32 bytes,
					       enum dma_data_direction dir)
{
	rdma_rwx_count_ctx(dev, RWX_CNT_INIT_SGE_SINGLE, 0, bytes, dir);
	return 1;
}

/* SGE path; a single entry lives in the context unless its list is @owned. */
static __always_inline int
rdma_rwx_init_sge_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      const struct rdma_rwx_layout *layout,
		      struct scatterlist *sg, u32 offset, u64 remote_addr,
		      u32 rkey, enum dma_data_direction dir, bool owned)
{
	u32 lkey = qp->pd->local_dma_lkey, nents, left, op, i;
	enum ib_wr_opcode opcode = rdma_rwx_sge_opcode(dir);
	u64 start = remote_addr;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sge;
	bool cached;

	nents = (layout->nr_ops - 1) * layout->per_op + layout->last_op;
	if (nents == 1 && !owned) {
		rdma_rwx_init_single_wr(ctx, qp, sg_dma_address(sg) + offset,
					sg_dma_len(sg) - offset, remote_addr,
					rkey, dir);
		rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_SINGLE, 0,
				   ctx->single.sge.length, dir);
		return 1;
	}
	wrs = rdma_rwx_alloc_sge_wrs(layout->nr_ops, nents, &cached);
	ctx->type = RDMA_RWX_CTX_MULTI | (cached ? RDMA_RWX_CTX_CACHED : 0);
	if (!wrs)
		return -ENOMEM;
	sge = (struct ib_sge *)(wrs + layout->nr_ops);
	ctx->map.wrs = wrs;
	ctx->map.sges = sge;
	left = nents;

	for (op = 0; op < layout->nr_ops; op++) {
		u32 nr_sge = op + 1 < layout->nr_ops ? layout->per_op :
						       layout->last_op;
		struct ib_rdma_wr *wr = &wrs[op];

		rdma_rwx_fill_wr(wr, opcode, sge, nr_sge, remote_addr, rkey);
		for (i = 0; i < nr_sge; i++, sge++) {
			sge->addr = sg_dma_address(sg) + offset;
			sge->length = sg_dma_len(sg) - offset;
			sge->lkey = lkey;
			remote_addr += sge->length;
			offset = 0;
			if (--left)	/* never step past the last entry */
				sg = rdma_rwx_sg_step(sg);
		}
		wr->wr.next = op + 1 < layout->nr_ops ? &wrs[op + 1].wr : NULL;
	}
	ctx->nr_ops = layout->nr_ops;
	rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_MULTI, 0,
			   remote_addr - start, dir);
	return layout->nr_ops;
}

/*
 * @bytes: the entries' summed length (none empty), or 0.  Returns the WR
 * count, or -errno with nothing taken from the pool (the caller unmaps).
 */
static __always_inline int
rdma_rwx_init_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		  struct scatterlist *sg, u32 nents, u64 bytes, u32 sg_offset,
		  u64 remote_addr, u32 rkey, enum dma_data_direction dir,
		  bool owned)
{
	struct rdma_rwx_pos pos = { .sg = sg, .nents = nents,
				    .offset = sg_offset };
	struct rdma_rwx_layout layout;
	enum rdma_rwx_mr_need need;
	struct rdma_rwx_caps caps;
	int ret;

	ret = rdma_rwx_skip(&pos);
	if (ret)
		return ret;
	if (pos.sg != sg)	/* @bytes counts the entries skipped */
		bytes = 0;
	rdma_rwx_fill_caps(qp, port_num, &caps);
	need = rdma_rwx_mr_need(&caps, dir, pos.nents);
	if (need != RDMA_RWX_MR_NO) {
		ret = rdma_rwx_init_mr_wrs(ctx, qp, &caps, pos, bytes,
					   remote_addr, rkey, dir);
		if (ret >= 0 || need == RDMA_RWX_MR_REQUIRED)
			return ret;
		rdma_rwx_count(qp->pd->device, RWX_CNT_SGE_FALLBACK);
	}
	ret = rdma_rwx_layout_sge(&caps, dir, pos.nents, &layout);
	if (ret)
		return ret;
	return rdma_rwx_init_sge_wrs(ctx, qp, &layout, pos.sg, pos.offset,
				     remote_addr, rkey, dir, owned);
}

/* A bio_vec context's list: never the single layout, which cannot keep it. */
int rdma_rwx_init_owned(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			u32 port_num, struct scatterlist *sgl, u32 nents,
			u64 bytes, u64 remote_addr, u32 rkey,
			enum dma_data_direction dir)
{
	return rdma_rwx_init_wrs(ctx, qp, port_num, sgl, nents, bytes, 0,
				 remote_addr, rkey, dir, true);
}

/* Out of line, so that rdma_rwx_ctx_init_one()'s fast path makes no call. */
static noinline int rdma_rwx_ctx_init_any(struct rdma_rw_ctx *ctx,
					  struct ib_qp *qp, u32 port_num,
					  struct scatterlist *sg, u32 sg_cnt,
					  u32 sg_offset, u64 remote_addr,
					  u32 rkey,
					  enum dma_data_direction dir)
{
	struct ib_device *dev;
	int ret, nents;
	u64 bytes = 0;

	if (!ctx) {
		ret = -EINVAL;
		goto out_count;
	}
	if (!qp || !sg || !sg_cnt || !rdma_rwx_dir_valid(dir) ||
	    !rdma_rwx_port_valid(qp->pd->device, port_num)) {
		ret = -EINVAL;
		goto out_dead;
	}
	dev = qp->pd->device;
	/*
	 * The sum of the lengths for the MR path, where it saves a walk:
	 * measured 6 % of an MR context of 64 entries, 7 % at 256.
	 */
	if (sg_cnt > 1 && rdma_rwx_mr_likely(dev, port_num, dir))
		nents = __rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir, &bytes);
	else
		nents = rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents) {
		ret = -ENOMEM;
		goto out_dead;
	}

	ret = rdma_rwx_init_wrs(ctx, qp, port_num, sg, nents, bytes, sg_offset,
				remote_addr, rkey, dir, false);
	if (likely(ret >= 0)) {
		/* counted on its path by rdma_rwx_init_wrs() */
		trace_rwx_ctx_init(dev, port_num, ctx, sg_cnt, dir, ret, false);
		return ret;
	}
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
out_dead:
	ctx->type = RDMA_RWX_CTX_DEAD;
out_count:
	rdma_rwx_count_init_done(qp, port_num, ctx, sg_cnt, dir, ret, 0);
	return ret;
}

/*
 * One entry, no DMA, SGE path, event off: no call; all else goes the
 * general way.  Same arguments as rdma_rwx_ctx_init(), so each call is a jump.
 *
 * The single-entry fast path: this, its counters' cache test with the miss
 * out of line, rdma_rwx_ctx_wrs()'s first test and the untraced destroy's
 * tail call.  Measured (make bench, -icount, rxe): without the last three,
 * a single-entry context costs 238 instructions against 221 (7 %).
 */
static noinline int rdma_rwx_ctx_init_one(struct rdma_rw_ctx *ctx,
					  struct ib_qp *qp, u32 port_num,
					  struct scatterlist *sg, u32 sg_cnt,
					  u32 sg_offset, u64 remote_addr,
					  u32 rkey,
					  enum dma_data_direction dir)
{
	struct ib_device *dev;

	if (likely(ctx && qp && sg && rdma_rwx_dir_valid(dir) &&
		   !trace_rwx_ctx_init_enabled())) {
		dev = qp->pd->device;
		if (ib_uses_virt_dma(dev) &&
		    rdma_rwx_port_valid(dev, port_num) &&
		    sg_offset < sg->length &&
		    rdma_rwx_single_sge(qp, port_num, dir)) {
			u32 bytes = sg->length - sg_offset;
			struct rdma_rwx_counters __percpu *c;

			rdma_rwx_dma_map_sg(dev, sg, 1, dir);
			rdma_rwx_init_single_wr(ctx, qp,
						sg_dma_address(sg) + sg_offset,
						bytes, remote_addr, rkey, dir);
			if (unlikely(!rdma_rwx_counters_hit(dev, &c)))
				return rdma_rwx_count_single_miss(dev, bytes,
								  dir);
			rdma_rwx_count_ctx_in(c, RWX_CNT_INIT_SGE_SINGLE, 0,
					      bytes, dir);
			return 1;
		}
	}
	return rdma_rwx_ctx_init_any(ctx, qp, port_num, sg, sg_cnt, sg_offset,
				     remote_addr, rkey, dir);
}

/**
 * rdma_rwx_ctx_init() - initialise an RDMA READ/WRITE context
 * @ctx: context to initialise
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @sg: scatterlist to READ/WRITE from/to
 * @sg_cnt: number of entries in @sg
 * @sg_offset: byte offset into @sg where the transfer starts
 * @remote_addr: remote address to read/write (relative to @rkey)
 * @rkey: remote key to operate on
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 *
 * Maps @sg and builds its chain on the SGE or MR path; see
 * Documentation/rdma_rwx.rst, "Which path".
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post; -EINVAL for bad
 * arguments (an @sg_offset past the list too) or, where MRs are required,
 * an empty entry or refused memory; -ENOMEM when mapping or allocation
 * fails; -EAGAIN when required MRs are short for now; -ENOSPC when the
 * pool can never hold them.  On error nothing stays mapped or taken.
 */
int rdma_rwx_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      u32 port_num, struct scatterlist *sg, u32 sg_cnt,
		      u32 sg_offset, u64 remote_addr, u32 rkey,
		      enum dma_data_direction dir)
{
	/* Decided in two tests, so that other contexts pay for no more. */
	if (likely(sg_cnt == 1 && !rdma_rwx_force_mr))
		return rdma_rwx_ctx_init_one(ctx, qp, port_num, sg, sg_cnt,
					     sg_offset, remote_addr, rkey, dir);
	return rdma_rwx_ctx_init_any(ctx, qp, port_num, sg, sg_cnt, sg_offset,
				     remote_addr, rkey, dir);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_init, RDMA_RWX);

/**
 * rdma_rwx_ctx_wrs() - the WR chain of a context
 * @ctx: context set up by any rdma_rwx init function
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * Only the last WR is signaled (Documentation/rdma_rwx.rst, "Which path").
 *
 * Return: the first WR, or NULL when @ctx is not a live context, its MR
 * chain was already handed out, or neither @cqe nor @chain_wr is given.
 */
struct ib_send_wr *rdma_rwx_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct ib_cqe *cqe,
				    struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;

	if (!ctx || (!cqe && !chain_wr))
		return NULL;

	/* The common case, tested first: a scatterlist's single entry. */
	if (likely(ctx->type == RDMA_RWX_CTX_SINGLE && !chain_wr)) {
		first = &ctx->single.wr.wr;
		first->next = NULL;
		first->wr_cqe = cqe;
		first->send_flags |= IB_SEND_SIGNALED;
		return first;
	}
	/* A built chain (its keys are bumped) or a dead context: none. */
	switch (ctx->type & ~(RDMA_RWX_CTX_BVEC | RDMA_RWX_CTX_CACHED)) {
	case RDMA_RWX_CTX_SINGLE:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	case RDMA_RWX_CTX_MULTI:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	case RDMA_RWX_CTX_MR:
	case RDMA_RWX_CTX_SIG:
		first = rdma_rwx_reg_chain(ctx, &last);
		ctx->type |= RDMA_RWX_CTX_BUILT;
		break;
	default:
		return NULL;
	}
	return rdma_rwx_end_chain(first, last, cqe, chain_wr);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_wrs, RDMA_RWX);

/**
 * rdma_rwx_ctx_post() - post the WR chain of a context
 * @ctx: context set up by any rdma_rwx init function
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * After a partial failure, drain the QP before the destroy (see
 * Documentation/rdma_rwx.rst, "Deliberate differences from ib_core").
 *
 * Return: 0; -EINVAL where rdma_rwx_ctx_wrs() returns NULL; or the error
 * of ib_post_send().
 */
int rdma_rwx_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      u32 port_num, struct ib_cqe *cqe,
		      struct ib_send_wr *chain_wr)
{
	const struct ib_send_wr *bad_wr;
	struct rdma_rwx_ctx_info info;
	struct ib_send_wr *first;
	bool traced;
	int ret;

	if (!qp) {
		rdma_rwx_trace_post(NULL, port_num, ctx, -EINVAL);
		return -EINVAL;
	}
	first = rdma_rwx_ctx_wrs(ctx, qp, port_num, cqe, chain_wr);
	if (!first) {
		rdma_rwx_trace_post(qp->pd->device, port_num, ctx, -EINVAL);
		return -EINVAL;
	}
	/* Read for the event before the post: then it may be freed. */
	traced = trace_rwx_ctx_post_enabled();
	if (traced)
		rdma_rwx_ctx_info(ctx, &info);
	bad_wr = first;		/* may be unset if the whole post is refused */
	ret = ib_post_send(qp, first, &bad_wr);
	if (ret && (ctx->type & RDMA_RWX_CTX_BUILT))
		rdma_rwx_unpost(ctx, bad_wr);
	if (traced)
		trace_rwx_ctx_post(qp->pd->device, port_num, &info, info.sges,
				   ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_post, RDMA_RWX);

static noinline void rdma_rwx_ctx_retire_slow(struct ib_device *dev,
					      struct scatterlist *sg,
					      u32 sg_cnt,
					      enum dma_data_direction dir)
{
	rdma_rwx_count(dev, RWX_CNT_DESTROY);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/* Cache miss out of line, so a single-entry destroy ends in a tail call. */
static __always_inline void rdma_rwx_ctx_retire(struct rdma_rw_ctx *ctx,
						struct ib_qp *qp,
						struct scatterlist *sg,
						u32 sg_cnt,
						enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	struct rdma_rwx_counters __percpu *c;

	ctx->type = RDMA_RWX_CTX_DEAD;
	if (unlikely(!rdma_rwx_counters_hit(dev, &c))) {
		rdma_rwx_ctx_retire_slow(dev, sg, sg_cnt, dir);
		return;
	}
	this_cpu_inc(c->events[RWX_CNT_DESTROY]);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/* Out of line, so that destroying a single-entry context needs no frame. */
noinline void rdma_rwx_destroy_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   struct scatterlist *sg, u32 sg_cnt,
				   enum dma_data_direction dir)
{
	switch (ctx->type & ~(RDMA_RWX_CTX_CACHED | RDMA_RWX_CTX_BUILT)) {
	case RDMA_RWX_CTX_MULTI:	/* the SGEs share the buffer */
		rdma_rwx_free_sge_wrs(ctx->map.wrs,
				      ctx->type & RDMA_RWX_CTX_CACHED);
		break;
	case RDMA_RWX_CTX_MR:
		rdma_rwx_release_mrs(ctx, qp);
		break;
	default:
		return;
	}
	rdma_rwx_ctx_retire(ctx, qp, sg, sg_cnt, dir);
}

static __always_inline void __rdma_rwx_ctx_destroy(struct rdma_rw_ctx *ctx,
						   struct ib_qp *qp,
						   struct scatterlist *sg,
						   u32 sg_cnt,
						   enum dma_data_direction dir)
{
	if (ctx->type != RDMA_RWX_CTX_SINGLE) {
		rdma_rwx_destroy_wrs(ctx, qp, sg, sg_cnt, dir);
		return;
	}
	rdma_rwx_ctx_retire(ctx, qp, sg, sg_cnt, dir);
}

/* Apart, so that the untraced destroy keeps no register across the event. */
static noinline void rdma_rwx_ctx_destroy_traced(struct rdma_rw_ctx *ctx,
						 struct ib_qp *qp,
						 u32 port_num,
						 struct scatterlist *sg,
						 u32 sg_cnt,
						 enum dma_data_direction dir)
{
	u8 base = rdma_rwx_ctx_base(ctx->type);

	/* A plain context it destroys; not a dead, bvec or signature one. */
	if (base && base != RDMA_RWX_CTX_SIG && !(ctx->type & RDMA_RWX_CTX_BVEC))
		rdma_rwx_trace_destroy(qp->pd->device, port_num, ctx, sg_cnt);
	__rdma_rwx_ctx_destroy(ctx, qp, sg, sg_cnt, dir);
}

/**
 * rdma_rwx_ctx_destroy() - release what rdma_rwx_ctx_init() took
 * @ctx: context to release
 * @qp: queue pair it was initialised on
 * @port_num: port the connection is bound to
 * @sg: scatterlist passed to rdma_rwx_ctx_init()
 * @sg_cnt: entries in @sg, as passed to rdma_rwx_ctx_init()
 * @dir: direction, as passed to rdma_rwx_ctx_init()
 *
 * A second destroy does nothing; a signature or bvec context is left alone.
 */
void rdma_rwx_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			  enum dma_data_direction dir)
{
	if (!ctx || !qp || !sg)
		return;
	if (trace_rwx_ctx_destroy_enabled()) {
		rdma_rwx_ctx_destroy_traced(ctx, qp, port_num, sg, sg_cnt, dir);
		return;
	}
	__rdma_rwx_ctx_destroy(ctx, qp, sg, sg_cnt, dir);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_destroy, RDMA_RWX);
