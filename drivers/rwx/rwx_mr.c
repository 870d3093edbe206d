// SPDX-License-Identifier: GPL-2.0-only
/* The MR path: pool MRs per span, their release, repair after a failed post. */

#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"
#include "rwx_stats.h"

/* The first @count ops' MRs back to @qp's pool (any encoding). */
void rdma_rwx_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 count)
{
	while (count--)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[count].mr);
}

/*
 * A private first entry where sg_offset is mishandled (siw, qedr, hns; see
 * Documentation/rdma_rwx.rst).  Out of line, so the others copy nothing.
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

/* Drivers whose map_mr_sg honours sg_offset, per their 6.1 and 6.12 code. */
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
 * *@offset is the caller's, which ib_map_mr_sg() may move: a copy here
 * would need a stack slot (and canary).  Inline, so that it needs no call.
 */
static __always_inline int
rdma_rwx_map_from_offset(struct ib_mr *mr, const struct rdma_rwx_pos *pos,
			 u32 n, unsigned int *offset)
{
	if (!rdma_rwx_maps_sg_offset(mr->device))
		return rdma_rwx_map_from_offset_copy(mr, pos, n);
	return ib_map_mr_sg(mr, pos->sg, n, offset, PAGE_SIZE);
}

/* Exactly @span's bytes; an entry it cuts is handed over as a copy. */
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
 * Most lists' MR: the next min(entries, budget) entries mapped whole, as
 * ib_core does.  Returns the entries mapped (@pos moved past them), 0 to
 * map the walked span instead (@pos unchanged), or the device's error
 * (the caller gives up).
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

/* Out of line: only gaps, entries past the budget or empty ones come here. */
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
 * @pool was empty: -EAGAIN while another context holds an MR of @qp (or
 * @pool refilled), else -ENOSPC.  mrs_used counts both pools, so the other
 * pool's contexts may delay -ENOSPC: late, never wrong.
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

/* The next span of @pos in one pool MR, and its WRs; returns their number. */
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

/*
 * Doubles the op array: the first growth copies the cache buffer out, so
 * the array is one exactly when the context has at most
 * RDMA_RWX_BUF_REGS ops.
 */
static int rdma_rwx_grow_reg(struct rdma_rw_ctx *ctx, u32 *room)
{
	struct rdma_rw_reg_ctx *reg;

	if (*room == RDMA_RWX_BUF_REGS) {
		reg = kmalloc_array(*room * 2, sizeof(*reg), GFP_KERNEL);
		if (reg) {
			memcpy(reg, ctx->reg, *room * sizeof(*reg));
			rdma_rwx_buf_put(ctx->reg);
		}
	} else {
		reg = krealloc_array(ctx->reg, *room * 2, sizeof(*reg),
				     GFP_KERNEL);
	}
	if (!reg)
		return -ENOMEM;
	ctx->reg = reg;
	*room *= 2;
	return 0;
}

/* A cache buffer when @nr_ops fits one; larger arrays are kmalloc'd. */
static void rdma_rwx_free_regs(struct rdma_rw_reg_ctx *reg, u32 nr_ops)
{
	if (nr_ops <= RDMA_RWX_BUF_REGS)
		rdma_rwx_buf_put(reg);
	else
		kfree(reg);
}

/*
 * The op array of an MR or signature context moved out of the cache into
 * memory of its own, for ib_core's encoding (which kfree()s it); the WRs
 * are linked again where it moved.
 */
int rdma_rwx_regs_to_heap(struct rdma_rw_ctx *ctx)
{
	struct rdma_rw_reg_ctx *reg;

	if (ctx->nr_ops > RDMA_RWX_BUF_REGS)
		return 0;	/* kmalloc'd already */
	reg = kmemdup(ctx->reg, ctx->nr_ops * sizeof(*reg), GFP_KERNEL);
	if (!reg)
		return -ENOMEM;
	rdma_rwx_buf_put(ctx->reg);
	ctx->reg = reg;
	rdma_rwx_link_mr_wrs(ctx);
	return 0;
}

/*
 * The op array grows for lists that need more MRs, so the WRs are linked
 * last.  Out of line: inlined, its frame weighs on every SGE context, and
 * it measured more in spills than the call saves.
 */
noinline int rdma_rwx_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  const struct rdma_rwx_caps *caps,
				  struct rdma_rwx_pos pos, u64 bytes,
				  u64 remote_addr, u32 rkey,
				  enum dma_data_direction dir)
{
	u32 op, room = RDMA_RWX_BUF_REGS;
	u64 start = remote_addr;
	int ret, count = 0;

	ctx->reg = rdma_rwx_buf_get();
	if (!ctx->reg)
		return -ENOMEM;
	for (op = 0; pos.nents; op++) {
		ret = op == room ? rdma_rwx_grow_reg(ctx, &room) : 0;
		if (!ret)
			ret = rdma_rwx_init_one_mr(&ctx->reg[op], qp, caps,
						   &pos, bytes, remote_addr,
						   rkey, dir);
		bytes = 0;	/* the whole list's: only the first op's */
		if (ret == -EAGAIN)
			ret = rdma_rwx_pool_short(qp, &qp->rdma_mrs, op);
		if (ret < 0) {
			rdma_rwx_put_mrs(ctx, qp, op);
			rdma_rwx_free_regs(ctx->reg, room);
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

void rdma_rwx_release_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp)
{
	rdma_rwx_put_mrs(ctx, qp, ctx->nr_ops);
	rdma_rwx_free_regs(ctx->reg, ctx->nr_ops);
}

/*
 * Post stopped at @bad_wr: an MR whose REG_MR was not posted gets its old
 * key back, valid unless its LOCAL_INV was posted; one registered without
 * its READ/WRITE stays valid.  So the next user invalidates the right key.
 */
void rdma_rwx_unpost(struct rdma_rw_ctx *ctx, const struct ib_send_wr *bad_wr)
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
