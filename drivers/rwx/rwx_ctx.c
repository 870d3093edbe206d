// SPDX-License-Identifier: GPL-2.0-only
/*
 * RDMA READ/WRITE contexts: map a scatterlist, build the WR chain the
 * layout asks for (SGE path or MR path), post it, tear it down.
 *
 * The context is the kernel's own struct rdma_rw_ctx, so ULPs port by
 * renaming calls.  Its type tag is ours: a context must be destroyed by
 * the engine that initialised it.
 */

#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
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

/* One entry on the SGE path: the WR and its SGE inside the context. */
static void rdma_rwx_init_single_wr(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    struct scatterlist *sg, u32 offset,
				    u64 remote_addr, u32 rkey,
				    enum dma_data_direction dir)
{
	struct ib_sge *sge = &ctx->single.sge;

	sge->addr = sg_dma_address(sg) + offset;
	sge->length = sg_dma_len(sg) - offset;
	sge->lkey = qp->pd->local_dma_lkey;
	rdma_rwx_fill_wr(&ctx->single.wr, rdma_rwx_sge_opcode(dir), sge, 1,
			 remote_addr, rkey);
	ctx->nr_ops = 1;
	ctx->type = RDMA_RWX_CTX_SINGLE;
}

/*
 * The count of a single-entry context set up by rdma_rwx_ctx_init()'s
 * fast path when this CPU's counter cache missed.  Returns 1, its number
 * of WRs.  Out of line, so that the fast path makes no call.
 */
static noinline int rdma_rwx_count_single_miss(struct ib_device *dev,
					       u32 bytes,
					       enum dma_data_direction dir)
{
	rdma_rwx_count_ctx(dev, RWX_CNT_INIT_SGE_SINGLE, 0, bytes, dir);
	return 1;
}

/* SGE path: gather the entries straight from the DMA addresses. */
static int rdma_rwx_init_sge_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 const struct rdma_rwx_layout *layout,
				 struct scatterlist *sg, u32 offset,
				 u64 remote_addr, u32 rkey,
				 enum dma_data_direction dir)
{
	u32 lkey = qp->pd->local_dma_lkey, nents, left, op, i;
	enum ib_wr_opcode opcode = rdma_rwx_sge_opcode(dir);
	u64 start = remote_addr;
	struct ib_rdma_wr *wrs;
	struct ib_sge *sge;
	bool cached;

	nents = (layout->nr_ops - 1) * layout->per_op + layout->last_op;
	if (nents == 1) {
		rdma_rwx_init_single_wr(ctx, qp, sg, offset, remote_addr, rkey,
					dir);
		rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_SINGLE, 0,
				   ctx->single.sge.length, dir);
		return 1;
	}
	wrs = rdma_rwx_alloc_sge_wrs(layout->nr_ops, nents, &cached);
	ctx->type = cached ? RDMA_RWX_CTX_MULTI_CACHED : RDMA_RWX_CTX_MULTI;
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
	/* remote_addr moved on by each SGE's length */
	rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SGE_MULTI, 0,
			   remote_addr - start, dir);
	return layout->nr_ops;
}

void rdma_rwx_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 count)
{
	while (count--)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[count].mr);
}

/*
 * ib_map_mr_sg() of @n entries from @pos->offset on, given a private
 * first entry rather than its sg_offset, for the drivers not known to
 * honour sg_offset: siw and qedr build their page lists from the entries
 * alone and would place the data sg_offset bytes early, hns refuses an
 * offset not 128-byte aligned.  Out of line, so that the others pay for no
 * copy.
 */
static noinline int rdma_rwx_map_from_offset_copy(struct ib_mr *mr,
						  const struct rdma_rwx_pos *pos,
						  u32 n)
{
	struct scatterlist head[2] = {};

	sg_dma_address(head) = sg_dma_address(pos->sg) + pos->offset;
	sg_dma_len(head) = sg_dma_len(pos->sg) - pos->offset;
	if (n > 1)
		sg_chain(head, 2, rdma_rwx_sg_next(pos->sg));
	else
		sg_mark_end(head);
	return ib_map_mr_sg(mr, head, n, NULL, PAGE_SIZE);
}

/*
 * Drivers whose map_mr_sg passes sg_offset to ib_sg_to_pages() (or its
 * equivalent) and so map from inside the first entry, as ib_core's own
 * rdma_rw_ctx relies on; checked in their 6.1 and 6.12 sources.
 */
static bool rdma_rwx_maps_sg_offset(const struct ib_device *dev)
{
	switch (dev->ops.driver_id) {
	case RDMA_DRIVER_MLX5:
	case RDMA_DRIVER_MLX4:
	case RDMA_DRIVER_RXE:
	case RDMA_DRIVER_IRDMA:
	case RDMA_DRIVER_CXGB4:
	case RDMA_DRIVER_BNXT_RE:
	case RDMA_DRIVER_ERDMA:
	case RDMA_DRIVER_OCRDMA:
	case RDMA_DRIVER_VMW_PVRDMA:
		return true;
	default:
		return false;
	}
}

/*
 * ib_map_mr_sg() of @n entries from @pos->offset on; *@offset is that
 * offset, which ib_map_mr_sg() may change (a partial map says there where
 * it stopped).  The caller's own variable, so that no copy here needs a
 * stack slot (and a stack canary); inline, so that it needs no call.
 */
static __always_inline int
rdma_rwx_map_from_offset(struct ib_mr *mr, const struct rdma_rwx_pos *pos,
			 u32 n, unsigned int *offset)
{
	if (!rdma_rwx_maps_sg_offset(mr->device))
		return rdma_rwx_map_from_offset_copy(mr, pos, n);
	return ib_map_mr_sg(mr, pos->sg, n, offset, PAGE_SIZE);
}

/*
 * Give @mr exactly the bytes of @span.  Where the span starts inside its
 * first entry or ends inside its last, ib_map_mr_sg() is handed private
 * copies of those entries rather than its sg_offset, which some drivers
 * ignore (see rdma_rwx_map_from_offset_copy()).
 */
static int rdma_rwx_map_span(struct ib_mr *mr,
			     const struct rdma_rwx_mr_span *span)
{
	struct scatterlist *sg = span->start.sg, head[1], *copy;
	u32 offset = span->start.offset, i;
	int ret;

	if (span->nents == 1) {
		sg_init_table(head, 1);
		sg_dma_address(head) = sg_dma_address(sg) + offset;
		sg_dma_len(head) = span->length;
		return ib_map_mr_sg(mr, head, 1, NULL, PAGE_SIZE);
	}
	if (!span->split_last && !offset)
		return ib_map_mr_sg(mr, sg, span->nents, NULL, PAGE_SIZE);
	if (!span->split_last)
		return rdma_rwx_map_from_offset(mr, &span->start, span->nents,
						&offset);

	/* Ends inside its last entry: a private copy of the whole span. */
	copy = kmalloc_array(span->nents, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	sg_init_table(copy, span->nents);
	for (i = 0; i < span->nents; i++, sg = rdma_rwx_sg_next(sg)) {
		sg_dma_address(&copy[i]) = sg_dma_address(sg);
		sg_dma_len(&copy[i]) = sg_dma_len(sg);
	}
	sg_dma_address(copy) += offset;
	sg_dma_len(copy) -= offset;
	sg_dma_len(&copy[span->nents - 1]) = span->last_len;
	ret = ib_map_mr_sg(mr, copy, span->nents, NULL, PAGE_SIZE);
	kfree(copy);
	return ret;
}

/*
 * The MR most lists get: the next min(entries left, budget) entries,
 * mapped whole, the way ib_core maps them.  Taken when none of them is
 * empty and the device maps them all into at most the budget's pages;
 * otherwise (a gap, an entry past the budget, an empty entry) the caller
 * maps the span rdma_rwx_next_mr_span() walks out instead.  Needs no walk
 * of its own beyond the one that finds the next entry, which ib_core makes
 * too; none at all when @bytes, the sum of the lengths of @pos's entries
 * (none empty), is known and they all fit.  Returns the number of entries
 * mapped (and moves @pos past them), 0 when the caller is to map the span
 * instead (@pos as it was), or the device's error (@pos->offset perhaps
 * changed by the driver: the caller gives up).
 */
static int rdma_rwx_map_entries(struct ib_mr *mr,
				const struct rdma_rwx_caps *caps,
				struct rdma_rwx_pos *pos, u64 bytes)
{
	u32 budget = rdma_rwx_mr_budget(caps), n = min(pos->nents, budget), i;
	u32 offset = pos->offset;
	struct scatterlist *last = pos->sg;
	u64 length = 0;
	int mapped;

	if (!n)		/* no budget: the walk refuses the span */
		return 0;
	if (bytes && n == pos->nents) {
		length = bytes;		/* no step past the last either */
	} else {
		for (i = 0;;) {
			if (!sg_dma_len(last))
				return 0;
			length += sg_dma_len(last);
			if (++i == n)
				break;
			last = rdma_rwx_sg_step(last);
		}
	}
	if (offset)
		mapped = rdma_rwx_map_from_offset(mr, pos, n, &pos->offset);
	else
		mapped = ib_map_mr_sg(mr, pos->sg, n, NULL, PAGE_SIZE);
	if (mapped < 0)
		return mapped;
	if (mapped != n || mr->length != length - offset ||
	    rdma_rwx_run_pages(mr->iova, mr->length) > budget) {
		pos->offset = offset;	/* for the walk */
		return 0;
	}
	pos->nents -= n;
	pos->sg = pos->nents ? rdma_rwx_sg_step(last) : NULL;
	pos->offset = 0;
	return n;
}

/*
 * The span rdma_rwx_next_mr_span() walks out from @pos, mapped into @mr;
 * @pos moves past it.  Returns 0 or -errno.  Out of line: only lists with
 * gaps, entries past an MR's budget or empty entries come here.
 */
static noinline int rdma_rwx_map_walked_span(struct ib_mr *mr,
					     const struct rdma_rwx_caps *caps,
					     struct rdma_rwx_pos *pos)
{
	struct rdma_rwx_mr_span span;
	int mapped;

	mapped = rdma_rwx_next_mr_span(caps, pos, &span);
	if (!mapped)
		mapped = rdma_rwx_map_span(mr, &span);
	if (mapped < 0)
		return mapped;
	if ((u32)mapped < span.nents || mr->length != span.length)
		return -EINVAL;
	return 0;
}

/*
 * @pool of @qp had no MR for a context that holds @held MRs of @qp: -EAGAIN
 * while another context holds any MR of @qp (it will come back; an MR
 * back in @pool since the miss counts too), -ENOSPC when none does, as
 * then this context holds all of @pool, which never grows, and a retry
 * can never succeed.  qp->mrs_used counts both pools' MRs, whose sizes
 * the engine does not know (a ULP may add MRs to either), so a context
 * that can never fit waits for the other pool's contexts before it gets
 * -ENOSPC: late, never wrong.
 */
int rdma_rwx_pool_short(struct ib_qp *qp, struct list_head *pool, u32 held)
{
	unsigned long flags;
	bool others;

	spin_lock_irqsave(&qp->mr_lock, flags);
	others = qp->mrs_used > held || !list_empty(pool);
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return others ? -EAGAIN : -ENOSPC;
}

/*
 * Register the next span of @pos into one pool MR, move @pos past it and
 * fill in its WRs, [LOCAL_INV,] REG_MR and READ/WRITE, still unlinked.
 * Returns the number of WRs.
 */
static int rdma_rwx_init_one_mr(struct rdma_rw_reg_ctx *reg, struct ib_qp *qp,
				const struct rdma_rwx_caps *caps,
				struct rdma_rwx_pos *pos, u64 bytes,
				u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	struct ib_mr *mr;
	int mapped, count;

	mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!mr)
		return -EAGAIN;
	mapped = rdma_rwx_map_entries(mr, caps, pos, bytes);
	if (!mapped)
		mapped = rdma_rwx_map_walked_span(mr, caps, pos);
	if (mapped < 0) {
		ib_mr_pool_put(qp, &qp->rdma_mrs, mr);
		return rdma_rwx_map_error(mapped);
	}
	count = rdma_rwx_fill_reg(reg, mr, IB_WR_REG_MR, caps->iwarp,
				  mr->length, remote_addr, rkey, dir);
	if (dir == DMA_FROM_DEVICE && caps->read_inv)
		reg->wr.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
	return count;
}

/* Room for one more op in ctx->reg, which holds @room ops. */
static int rdma_rwx_grow_reg(struct rdma_rw_ctx *ctx, u32 *room)
{
	struct rdma_rw_reg_ctx *reg;
	u32 more = *room;

	reg = krealloc_array(ctx->reg, *room + more, sizeof(*reg), GFP_KERNEL);
	if (!reg)
		return -ENOMEM;
	memset(reg + *room, 0, more * sizeof(*reg));
	ctx->reg = reg;
	*room += more;
	return 0;
}

/*
 * Free the op array of an MR context with @nr_ops ops.  Arrays of up to
 * RDMA_RWX_BUF_REGS ops are cache buffers: rdma_rwx_init_mr_wrs() takes
 * one whenever the list may fit, and an array that grows past it is
 * reallocated by kmalloc.
 */
void rdma_rwx_free_regs(struct rdma_rw_reg_ctx *reg, u32 nr_ops)
{
	if (nr_ops <= RDMA_RWX_BUF_REGS)
		rdma_rwx_buf_put(reg);
	else
		kfree(reg);
}

/*
 * MR path: one fast-registered MR per READ/WRITE WR, split as
 * rdma_rwx_next_mr_span() says.  The op array is sized for a list of
 * whole pages (a cache buffer when that fits one) and grows for lists
 * that need more MRs; the WRs are linked once all ops are in place, since
 * growing moves them.  Kept out of line: its stack frame would otherwise
 * weigh on every SGE-path context (and folded into rdma_rwx_init_wrs() it
 * was measured to cost the MR path more in spills than the call saves).
 */
noinline int rdma_rwx_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  const struct rdma_rwx_caps *caps,
				  struct rdma_rwx_pos pos, u64 bytes,
				  u64 remote_addr, u32 rkey,
				  enum dma_data_direction dir)
{
	u32 op, budget = max(rdma_rwx_mr_budget(caps), 1U);
	/* No division for the common list that fits one MR. */
	u32 room = pos.nents <= budget ? 1 : DIV_ROUND_UP(pos.nents, budget);
	bool cached = room <= RDMA_RWX_BUF_REGS;
	u64 start = remote_addr;
	int ret, count = 0;

	if (cached) {
		ctx->reg = rdma_rwx_buf_get();
		room = RDMA_RWX_BUF_REGS;
	} else {
		ctx->reg = kcalloc(room, sizeof(*ctx->reg), GFP_KERNEL);
	}
	if (!ctx->reg)
		return -ENOMEM;

	for (op = 0; pos.nents; op++) {
		ret = 0;
		if (op == room) {
			ret = rdma_rwx_grow_reg(ctx, &room);
			cached = false;		/* reallocated, or freed below */
		}
		if (!ret)
			ret = rdma_rwx_init_one_mr(&ctx->reg[op], qp, caps,
						   &pos, bytes, remote_addr,
						   rkey, dir);
		bytes = 0;	/* the whole list's: only the first op's */
		if (ret == -EAGAIN)
			ret = rdma_rwx_pool_short(qp, &qp->rdma_mrs, op);
		if (ret < 0) {
			rdma_rwx_put_mrs(ctx, qp, op);
			if (cached)
				rdma_rwx_buf_put(ctx->reg);
			else
				kfree(ctx->reg);
			return ret;
		}
		count += ret;
		remote_addr += ctx->reg[op].sge.length;
	}
	ctx->nr_ops = op;
	ctx->type = RDMA_RWX_CTX_MR;
	rdma_rwx_link_mr_wrs(ctx);
	rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_MR, op,
			   remote_addr - start, dir);
	return count;
}

/*
 * Every context but a single entry on the SGE path: skip the offset, take
 * the layout, build the WRs (SGE path, or MR path with its fallback).
 * @bytes: the sum of the @nents entries' lengths, none empty, or 0.
 * Returns the number of WRs, or -errno with nothing taken from the pool
 * (the caller unmaps).
 */
static int rdma_rwx_init_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			     u32 port_num, struct scatterlist *sg, u32 nents,
			     u64 bytes, u32 sg_offset, u64 remote_addr,
			     u32 rkey, enum dma_data_direction dir)
{
	struct rdma_rwx_pos pos = { .sg = sg, .nents = nents,
				    .offset = sg_offset };
	struct rdma_rwx_layout layout;
	struct rdma_rwx_caps caps;
	int ret;

	ret = rdma_rwx_skip(&pos);
	if (ret)
		return ret;
	if (pos.sg != sg)	/* @bytes counts the entries skipped */
		bytes = 0;
	rdma_rwx_fill_caps(qp, port_num, &caps);
	if (rdma_rwx_needs_mr(&caps, dir, pos.nents)) {
		ret = rdma_rwx_init_mr_wrs(ctx, qp, &caps, pos, bytes,
					   remote_addr, rkey, dir);
		if ((ret != -EAGAIN && ret != -ENOSPC) ||
		    !rdma_rwx_sge_fallback(&caps, dir))
			return ret;
		rdma_rwx_count(qp->pd->device, RWX_CNT_SGE_FALLBACK);
	}
	ret = rdma_rwx_layout_sge(&caps, dir, pos.nents, &layout);
	if (ret)
		return ret;
	return rdma_rwx_init_sge_wrs(ctx, qp, &layout, pos.sg, pos.offset,
				     remote_addr, rkey, dir);
}

/*
 * rdma_rwx_ctx_init() for any context: every check, the DMA mapping, the
 * layout.  Out of line: the common single entry on a device that does no
 * DMA (rdma_rwx_ctx_init_one()) then needs no call into it.
 */
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
	/* The sum of the lengths for the MR path, where it saves a walk. */
	if (sg_cnt > 1 && rdma_rwx_mr_likely(dev, port_num, dir))
		nents = __rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir, &bytes);
	else
		nents = rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents) {
		ret = -ENOMEM;
		goto out_dead;
	}

	if (nents == 1 && sg_offset < sg_dma_len(sg) &&
	    rdma_rwx_single_sge(qp, port_num, dir)) {
		rdma_rwx_init_single_wr(ctx, qp, sg, sg_offset, remote_addr,
					rkey, dir);
		rdma_rwx_count_ctx(dev, RWX_CNT_INIT_SGE_SINGLE, 0,
				   ctx->single.sge.length, dir);
		trace_rwx_ctx_init(dev, port_num, ctx, sg_cnt, dir, 1, false);
		return 1;
	}

	ret = rdma_rwx_init_wrs(ctx, qp, port_num, sg, nents, bytes, sg_offset,
				remote_addr, rkey, dir);
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
 * rdma_rwx_ctx_init() of a single entry (@sg_cnt is 1): on a device that
 * does no DMA, on the SGE path, with the trace event off, the checks, an
 * inline mapping, the WR in the context and the count, with no call.
 * Anything else, every error included, goes the general way.  The same
 * arguments as rdma_rwx_ctx_init(), so that each call between the three
 * is a jump.
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
			enum rdma_rwx_counter path = RWX_CNT_INIT_SGE_SINGLE;
			u32 bytes = sg->length - sg_offset;

			rdma_rwx_dma_map_sg(dev, sg, 1, dir);
			rdma_rwx_init_single_wr(ctx, qp, sg, sg_offset,
						remote_addr, rkey, dir);
			if (likely(rdma_rwx_count_ctx_cached(dev, path, 0,
							     bytes, dir)))
				return 1;
			return rdma_rwx_count_single_miss(dev, bytes, dir);
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
 * Maps @sg for DMA and builds the WR chain: plain RDMA READ/WRITE WRs
 * (the SGE path) or, for READs on iWARP, READs the device prefers to
 * register, or with the force_mr parameter, fast-registered MRs from the
 * QP's pool (the MR path).  On the MR path each MR is filled up to its
 * page budget, splitting an entry on a page boundary where needed, and a
 * gap between entries (a boundary not page-aligned on both sides and not
 * contiguous) starts a new MR; see rdma_rwx_next_mr_span().  When the
 * pool runs out and MRs are only an optimisation, it falls back to the
 * SGE path.
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post, or
 * -EINVAL for a NULL @ctx, @qp or @sg, an @sg_cnt of 0, an invalid @dir
 * or @port_num, an @sg_offset at or past the end of @sg, an empty entry
 * after the offset on the MR path, or memory the device refuses to
 * register; -ENOMEM when the DMA mapping or an
 * allocation fails; -EAGAIN when MRs are required and the QP's pool has
 * fewer free MRs than the context needs (worth a retry once other contexts
 * are destroyed); -ENOSPC when the whole pool has fewer MRs than the
 * context needs, or the QP has no pool (a retry can never succeed).
 * On error nothing stays mapped or taken from the pool.
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

/* A fresh rkey for each use, so a late access with the old one faults. */
static void rdma_rwx_bump_key(struct rdma_rw_reg_ctx *reg)
{
	struct ib_mr *mr = reg->mr;

	mr->need_inval = reg->wr.wr.opcode != IB_WR_RDMA_READ_WITH_INV;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	reg->reg_wr.key = mr->lkey;
	reg->sge.lkey = mr->lkey;
	/* READ with invalidate retires the key this chain registers. */
	if (!mr->need_inval)
		reg->wr.wr.ex.invalidate_rkey = mr->lkey;
}

/*
 * The tag of an MR context whose chain was handed out: each is its
 * unbuilt tag's next (checked here), so that this costs an increment.
 */
static u8 rdma_rwx_built_type(u8 type)
{
	BUILD_BUG_ON(RDMA_RWX_CTX_MR + 1 != RDMA_RWX_CTX_MR_BUILT);
	BUILD_BUG_ON(RDMA_RWX_CTX_SIG + 1 != RDMA_RWX_CTX_SIG_BUILT);
	BUILD_BUG_ON(RDMA_RWX_CTX_BVEC_MR + 1 != RDMA_RWX_CTX_BVEC_MR_BUILT);
	return type + 1;
}

/* Whether @ctx is an MR context whose chain was handed out. */
static bool rdma_rwx_built(const struct rdma_rw_ctx *ctx)
{
	return ctx->type == RDMA_RWX_CTX_MR_BUILT ||
	       ctx->type == RDMA_RWX_CTX_SIG_BUILT ||
	       ctx->type == RDMA_RWX_CTX_BVEC_MR_BUILT;
}

/**
 * rdma_rwx_ctx_wrs() - the WR chain of a context
 * @ctx: context initialised by rdma_rwx_ctx_init(),
 *	rdma_rwx_ctx_init_bvec() or rdma_rwx_ctx_signature_init()
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * Returns the chain of REG_MR / LOCAL_INV and RDMA READ/WRITE WRs of
 * @ctx.  Only the last READ/WRITE WR is signaled, with @cqe; with a
 * @chain_wr, that WR is appended instead and carries the completion.
 * MR keys are bumped here, so on the MR path the chain is handed out
 * once per rdma_rwx_ctx_init(): its LOCAL_INV WRs were built for the keys
 * the MRs had then.
 *
 * Return: the first WR, or NULL when @ctx is not a live context, its MR
 * chain was already handed out, or neither @cqe nor @chain_wr is given.
 */
struct ib_send_wr *rdma_rwx_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct ib_cqe *cqe,
				    struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;
	struct rdma_rw_reg_ctx *reg;
	u32 i, nr_ops;

	if (!ctx || (!cqe && !chain_wr))
		return NULL;

	switch (ctx->type) {
	case RDMA_RWX_CTX_SINGLE:	/* the common case, tested first */
		first = &ctx->single.wr.wr;
		if (likely(!chain_wr)) {
			first->next = NULL;
			first->wr_cqe = cqe;
			first->send_flags |= IB_SEND_SIGNALED;
			return first;
		}
		last = first;
		break;
	case RDMA_RWX_CTX_BVEC_SINGLE:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	case RDMA_RWX_CTX_MULTI:
	case RDMA_RWX_CTX_MULTI_CACHED:
	case RDMA_RWX_CTX_BVEC_MULTI:
	case RDMA_RWX_CTX_BVEC_MULTI_CACHED:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	case RDMA_RWX_CTX_MR:
	case RDMA_RWX_CTX_SIG:
	case RDMA_RWX_CTX_BVEC_MR:
		/* locals: the MRs' stores cannot alias them */
		reg = ctx->reg;
		nr_ops = ctx->nr_ops;
		for (i = 0; i < nr_ops; i++)
			rdma_rwx_bump_key(&reg[i]);
		first = rdma_rwx_reg_first_wr(reg);
		last = &reg[nr_ops - 1].wr.wr;
		ctx->type = rdma_rwx_built_type(ctx->type);
		break;
	default:
		return NULL;
	}

	last->next = chain_wr;
	if (chain_wr) {
		last->send_flags &= ~IB_SEND_SIGNALED;
	} else {
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_wrs, RDMA_RWX);

/*
 * ib_post_send() stopped at @bad_wr.  An MR whose REG_MR never reached the
 * device gets back the key it had (rdma_rwx_ctx_wrs() bumped it) and is
 * marked as the device holds it: valid if its LOCAL_INV was not posted
 * either, free if it was.  An MR registered without its READ/WRITE stays
 * valid, even where that READ would have invalidated it.  So the next
 * context to use it invalidates exactly what the device holds.
 */
static void rdma_rwx_unpost(struct rdma_rw_ctx *ctx,
			    const struct ib_send_wr *bad_wr)
{
	bool posted = true, had_inv, inv_posted, reg_posted;
	struct rdma_rw_reg_ctx *reg;
	u32 op;

	for (op = 0; op < ctx->nr_ops; op++) {
		reg = &ctx->reg[op];
		had_inv = reg->inv_wr.opcode == IB_WR_LOCAL_INV;
		posted &= bad_wr != &reg->inv_wr;
		inv_posted = had_inv && posted;
		posted &= bad_wr != &reg->reg_wr.wr;
		reg_posted = posted;
		posted &= bad_wr != &reg->wr.wr;
		if (!reg_posted) {
			ib_update_fast_reg_key(reg->mr, (u8)(reg->mr->lkey - 1));
			reg->mr->need_inval = had_inv && !inv_posted;
		} else if (!posted) {
			reg->mr->need_inval = true;
		}
	}
}

/**
 * rdma_rwx_ctx_post() - post the WR chain of a context
 * @ctx: context initialised by rdma_rwx_ctx_init(),
 *	rdma_rwx_ctx_init_bvec() or rdma_rwx_ctx_signature_init()
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * Posts what rdma_rwx_ctx_wrs() returns, in one ib_post_send().  When
 * that fails part-way, the MRs the device did not register keep the keys
 * and state the device knows them by, so that once the context is
 * destroyed the next context to take them invalidates the right key
 * (ib_core leaves them bumped, and the next LOCAL_INV names a key the
 * device never had).  The WRs before the failing one were posted,
 * unsignaled, and may still run: drain the QP (or wait for a later
 * signaled WR to complete) before destroying the context.  A ULP that
 * posts the chain of rdma_rwx_ctx_wrs() itself gets no such repair.
 *
 * Return: 0; -EINVAL when @ctx is not a live context, its MR chain was
 * already handed out, or neither @cqe nor @chain_wr is given; or the error
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
	bad_wr = first;		/* drivers that refuse a whole post may not set it */
	ret = ib_post_send(qp, first, &bad_wr);
	if (ret && rdma_rwx_built(ctx))
		rdma_rwx_unpost(ctx, bad_wr);
	if (traced)
		trace_rwx_ctx_post(qp->pd->device, port_num, &info, info.sges,
				   ret);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_post, RDMA_RWX);

/* A destroy's count and unmap when this CPU's counter cache missed. */
static noinline void rdma_rwx_ctx_retire_slow(struct ib_device *dev,
					      struct scatterlist *sg,
					      u32 sg_cnt,
					      enum dma_data_direction dir)
{
	rdma_rwx_count(dev, RWX_CNT_DESTROY);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/*
 * The end of every destroy: the context dead, counted, @sg unmapped.  The
 * cache miss goes out of line, so that a single-entry destroy keeps its
 * arguments in registers and ends in a tail call.
 */
static __always_inline void rdma_rwx_ctx_retire(struct rdma_rw_ctx *ctx,
						struct ib_qp *qp,
						struct scatterlist *sg,
						u32 sg_cnt,
						enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;

	ctx->type = RDMA_RWX_CTX_DEAD;
	if (unlikely(!rdma_rwx_count_cached(dev, RWX_CNT_DESTROY))) {
		rdma_rwx_ctx_retire_slow(dev, sg, sg_cnt, dir);
		return;
	}
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/*
 * Destroy a context that is not a single entry on the SGE path.  Out of
 * line, so that destroying a single-entry one needs no stack frame.
 */
static noinline void rdma_rwx_destroy_wrs(struct rdma_rw_ctx *ctx,
					  struct ib_qp *qp,
					  struct scatterlist *sg, u32 sg_cnt,
					  enum dma_data_direction dir)
{
	switch (ctx->type) {
	case RDMA_RWX_CTX_MULTI:
	case RDMA_RWX_CTX_MULTI_CACHED:	/* the SGEs share the buffer */
		rdma_rwx_free_sge_wrs(ctx->map.wrs,
				      ctx->type == RDMA_RWX_CTX_MULTI_CACHED);
		break;
	case RDMA_RWX_CTX_MR:
	case RDMA_RWX_CTX_MR_BUILT:
		rdma_rwx_put_mrs(ctx, qp, ctx->nr_ops);
		rdma_rwx_free_regs(ctx->reg, ctx->nr_ops);
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

/*
 * A destroy with the rwx_ctx_destroy event on: the event (before anything
 * is freed: it reads the WRs), then the destroy.  Apart, so that the
 * destroy without it keeps no register across the event's call.
 */
static noinline void rdma_rwx_ctx_destroy_traced(struct rdma_rw_ctx *ctx,
						 struct ib_qp *qp,
						 u32 port_num,
						 struct scatterlist *sg,
						 u32 sg_cnt,
						 enum dma_data_direction dir)
{
	/* A plain context it destroys; not a dead or signature one. */
	if (ctx->type >= RDMA_RWX_CTX_SINGLE && ctx->type <= RDMA_RWX_CTX_MR_BUILT)
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
 * Returns the MRs to the QP's pool, frees the WRs and unmaps @sg.  The
 * context is marked dead, so a second destroy does nothing.  A signature
 * context is left alone: rdma_rwx_ctx_destroy_signature() releases it.
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
