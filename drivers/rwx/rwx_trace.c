// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx trace events (rwx_trace.h): their definitions, and what a
 * context will move, read from its WRs for them.
 */

#define CREATE_TRACE_POINTS
#include "rwx_trace.h"

#include "rwx_internal.h"
#include "rwx_stats.h"

static void rdma_rwx_reg_info(const struct rdma_rw_ctx *ctx,
			      struct rdma_rwx_ctx_info *info)
{
	u32 op;

	/* [LOCAL_INV,] REG_MR and the READ/WRITE of each MR */
	for (op = 0; op < ctx->nr_ops; op++) {
		info->bytes += ctx->reg[op].sge.length;
		info->wrs += ctx->reg[op].inv_wr.opcode == IB_WR_LOCAL_INV ?
			3 : 2;
	}
	info->sges = ctx->nr_ops;
	info->dir = rdma_rwx_wr_dir(&ctx->reg[0].wr.wr);
}

/*
 * rdma_rwx_ctx_info() - what a live context will move, read from its WRs
 * @ctx: the context (a dead one has path none and moves nothing)
 * @info: filled in
 */
void rdma_rwx_ctx_info(const struct rdma_rw_ctx *ctx,
		       struct rdma_rwx_ctx_info *info)
{
	const struct ib_rdma_wr *last;
	u32 i;

	memset(info, 0, sizeof(*info));
	if (!ctx)
		return;
	switch (rdma_rwx_ctx_base(ctx->type)) {
	case RDMA_RWX_CTX_SINGLE:
		info->path = RWX_PATH_SGE_SINGLE;
		info->bytes = ctx->single.sge.length;
		info->sges = 1;
		info->dir = rdma_rwx_wr_dir(&ctx->single.wr.wr);
		info->wrs = 1;
		break;
	case RDMA_RWX_CTX_MULTI:
		/* Each WR starts where the one before ended. */
		info->path = RWX_PATH_SGE_MULTI;
		last = &ctx->map.wrs[ctx->nr_ops - 1];
		info->bytes = last->remote_addr - ctx->map.wrs[0].remote_addr;
		for (i = 0; i < last->wr.num_sge; i++)
			info->bytes += last->wr.sg_list[i].length;
		info->sges = (ctx->nr_ops - 1) * ctx->map.wrs[0].wr.num_sge +
			     last->wr.num_sge;
		info->dir = rdma_rwx_wr_dir(&last->wr);
		info->wrs = ctx->nr_ops;
		break;
	case RDMA_RWX_CTX_MR:
		info->path = RWX_PATH_MR;
		rdma_rwx_reg_info(ctx, info);
		break;
	case RDMA_RWX_CTX_SIG:
		info->path = RWX_PATH_SIG;
		rdma_rwx_reg_info(ctx, info);
		break;
	default:
		break;
	}
}

/*
 * The rwx_ctx_post event of a post that failed before ib_post_send():
 * @ctx is not in flight, so it can be read now.
 */
void rdma_rwx_trace_post(struct ib_device *dev, u32 port_num,
			 const struct rdma_rw_ctx *ctx, int ret)
{
	struct rdma_rwx_ctx_info info;

	if (!trace_rwx_ctx_post_enabled())
		return;
	rdma_rwx_ctx_info(ctx, &info);
	trace_rwx_ctx_post(dev, port_num, &info, info.sges, ret);
}

/*
 * The rwx_ctx_destroy event of a live context, before its destroy frees
 * anything.  Out of line: called only with the event on.
 */
void rdma_rwx_trace_destroy(struct ib_device *dev, u32 port_num,
			    const struct rdma_rw_ctx *ctx, u32 entries)
{
	struct rdma_rwx_ctx_info info;

	rdma_rwx_ctx_info(ctx, &info);
	trace_rwx_ctx_destroy(dev, port_num, &info, entries, 0);
}
