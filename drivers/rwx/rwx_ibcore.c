// SPDX-License-Identifier: GPL-2.0-only
/*
 * Contexts in ib_core's own encoding, for the live takeover: during its
 * switches and across them, a context set up by one implementation is
 * torn down by the other (Documentation/takeover.rst, "One encoding on
 * both sides").  Set-up is the engine's - its checks, path, MR spans,
 * counters and events - with the result re-encoded as ib_core's rw.c
 * leaves it; chaining, posting and destroying take either origin.
 */

#include <linux/hash.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/rwx_ibcore.h>
#include "rwx_internal.h"
#include "rwx_stats.h"

/* ctx->type in ib_core's encoding: rw.c's own enum, which it keeps private. */
enum rdma_rwx_ibcore_type {
	RDMA_RWX_IBCORE_SINGLE,
	RDMA_RWX_IBCORE_MULTI,
	RDMA_RWX_IBCORE_MR,
	RDMA_RWX_IBCORE_SIG,
};

/*
 * Bytes 5 to 7 of a context, which ib_core never reads or writes: the
 * engine marks its own there, so that their destroy counts as such
 * (shared_destroyed) and one of ib_core's as adopted.  The check ties the
 * mark to the context's place and contents; ib_core's destroy leaves it,
 * so a context ib_core sets up where an engine context of the same buffer
 * was (a ULP reusing its request) counts as the engine's.  Either side may
 * destroy a shared context, so the engine cannot know how many are live:
 * they are counted at set-up (shared) and kept out of contexts_live.
 */
struct rdma_rwx_ibcore_mark {
	u8 tag;
	u16 check;
} __packed;

#define RDMA_RWX_IBCORE_TAG	0xe7

static_assert(offsetof(struct rdma_rw_ctx, type) == 4 &&
	      offsetof(struct rdma_rw_ctx, single) == 8);

static struct rdma_rwx_ibcore_mark *
rdma_rwx_ibcore_mark_of(const struct rdma_rw_ctx *ctx)
{
	return (struct rdma_rwx_ibcore_mark *)((u8 *)&ctx->type + 1);
}

/* The union's first word (an SGE address, or the arrays' pointer). */
static u16 rdma_rwx_ibcore_check(const struct rdma_rw_ctx *ctx)
{
	return hash_64((uintptr_t)ctx ^ (uintptr_t)ctx->reg ^ ctx->nr_ops,
		       16);
}

/**
 * rdma_rwx_ibcore_ctx_is_ours() - whether the engine set up a context
 * @ctx: a live context in ib_core's encoding
 *
 * Return: true when rdma_rwx_ibcore_ctx_init() or
 * rdma_rwx_ibcore_ctx_signature_init() set up @ctx (false for ib_core's).
 */
bool rdma_rwx_ibcore_ctx_is_ours(const struct rdma_rw_ctx *ctx)
{
	const struct rdma_rwx_ibcore_mark *mark = rdma_rwx_ibcore_mark_of(ctx);

	return mark->tag == RDMA_RWX_IBCORE_TAG &&
	       mark->check == rdma_rwx_ibcore_check(ctx);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_is_ours, RDMA_RWX);

/* Set up by the engine, in ib_core's encoding: marked and counted. */
static void rdma_rwx_ibcore_set(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				enum rdma_rwx_ibcore_type type)
{
	struct rdma_rwx_ibcore_mark *mark = rdma_rwx_ibcore_mark_of(ctx);

	ctx->type = type;
	mark->tag = RDMA_RWX_IBCORE_TAG;
	mark->check = rdma_rwx_ibcore_check(ctx);
	rdma_rwx_count(qp->pd->device, RWX_CNT_SHARED);
}

/* Destroyed: neither side's, and a second destroy here does nothing. */
static void rdma_rwx_ibcore_retire(struct rdma_rw_ctx *ctx)
{
	ctx->type = RDMA_RWX_CTX_DEAD;
	rdma_rwx_ibcore_mark_of(ctx)->tag = 0;
}

/*
 * A failed init leaves no ops: ib_isert takes a context with nr_ops for set
 * up and destroys it, and ib_core's destroy BUG()s on a dead one.
 */
static void rdma_rwx_ibcore_failed(struct rdma_rw_ctx *ctx)
{
	if (ctx)
		ctx->nr_ops = 0;
}

/* The engine's one buffer of WRs then SGEs as ib_core's two arrays. */
static int rdma_rwx_ibcore_split_sges(struct rdma_rw_ctx *ctx)
{
	struct ib_rdma_wr *old = ctx->map.wrs, *wrs;
	u32 nr_ops = ctx->nr_ops, nents = 0, op;
	struct ib_sge *sges;

	for (op = 0; op < nr_ops; op++)
		nents += old[op].wr.num_sge;
	wrs = kcalloc(nr_ops, sizeof(*wrs), GFP_KERNEL);
	sges = kcalloc(nents, sizeof(*sges), GFP_KERNEL);
	if (!wrs || !sges) {
		kfree(wrs);
		kfree(sges);
		return -ENOMEM;
	}
	memcpy(wrs, old, nr_ops * sizeof(*wrs));
	memcpy(sges, ctx->map.sges, nents * sizeof(*sges));
	for (op = 0; op < nr_ops; op++) {
		wrs[op].wr.sg_list = sges + (old[op].wr.sg_list - ctx->map.sges);
		wrs[op].wr.next = op + 1 < nr_ops ? &wrs[op + 1].wr : NULL;
	}
	rdma_rwx_free_sge_wrs(old, ctx->type & RDMA_RWX_CTX_CACHED);
	ctx->map.wrs = wrs;
	ctx->map.sges = sges;
	return 0;
}

/*
 * ib_core finds a LOCAL_INV by its link, not by its opcode, and its READ
 * with invalidate carries the key at set-up (its chain does not renew it).
 */
static int rdma_rwx_ibcore_own_regs(struct rdma_rw_ctx *ctx)
{
	struct rdma_rw_reg_ctx *reg;
	u32 op;
	int ret;

	ret = rdma_rwx_regs_to_heap(ctx);
	if (ret)
		return ret;
	for (op = 0, reg = ctx->reg; op < ctx->nr_ops; op++, reg++) {
		if (reg->inv_wr.opcode != IB_WR_LOCAL_INV)
			reg->inv_wr.next = NULL;
		if (reg->wr.wr.opcode == IB_WR_RDMA_READ_WITH_INV)
			reg->wr.wr.ex.invalidate_rkey = reg->mr->lkey;
	}
	return 0;
}

/* An engine context of rdma_rwx_ctx_init() in ib_core's encoding. */
static int rdma_rwx_ibcore_encode(struct rdma_rw_ctx *ctx, struct ib_qp *qp)
{
	int ret;

	switch (ctx->type & ~RDMA_RWX_CTX_CACHED) {
	case RDMA_RWX_CTX_SINGLE:
		rdma_rwx_ibcore_set(ctx, qp, RDMA_RWX_IBCORE_SINGLE);
		return 0;
	case RDMA_RWX_CTX_MULTI:
		ret = rdma_rwx_ibcore_split_sges(ctx);
		if (!ret)
			rdma_rwx_ibcore_set(ctx, qp, RDMA_RWX_IBCORE_MULTI);
		return ret;
	case RDMA_RWX_CTX_MR:
		ret = rdma_rwx_ibcore_own_regs(ctx);
		if (!ret)
			rdma_rwx_ibcore_set(ctx, qp, RDMA_RWX_IBCORE_MR);
		return ret;
	default:
		return -EINVAL;	/* no other type comes from a scatterlist */
	}
}

/**
 * rdma_rwx_ibcore_ctx_init() - rdma_rwx_ctx_init() in ib_core's encoding
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
 * Context: process context; may sleep.
 * Return: as rdma_rwx_ctx_init(); -ENOMEM too when the arrays of ib_core's
 * encoding cannot be allocated.  On error nothing stays mapped or taken,
 * and @ctx has no ops.
 */
int rdma_rwx_ibcore_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			     u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			     u32 sg_offset, u64 remote_addr, u32 rkey,
			     enum dma_data_direction dir)
{
	int ret;

	ret = rdma_rwx_ctx_init(ctx, qp, port_num, sg, sg_cnt, sg_offset,
				remote_addr, rkey, dir);
	if (ret >= 0) {
		int err = rdma_rwx_ibcore_encode(ctx, qp);

		if (!err)
			return ret;
		rdma_rwx_ctx_destroy(ctx, qp, port_num, sg, sg_cnt, dir);
		rdma_rwx_count(qp->pd->device, RWX_CNT_ERR_ENOMEM);
		ret = err;
	}
	rdma_rwx_ibcore_failed(ctx);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_init, RDMA_RWX);

/**
 * rdma_rwx_ibcore_ctx_signature_init() - a signature context in ib_core's
 *	encoding
 * @ctx: context to initialise
 * @qp: queue pair to operate on, created with %IB_QP_CREATE_INTEGRITY_EN
 * @port_num: port the connection is bound to
 * @sg: data scatterlist to READ/WRITE from/to
 * @sg_cnt: number of entries in @sg
 * @prot_sg: protection information scatterlist, or NULL
 * @prot_sg_cnt: number of entries in @prot_sg (0 without one)
 * @sig_attrs: the memory and wire signature domains and what to check
 * @remote_addr: remote address to read/write (relative to @rkey)
 * @rkey: remote key to operate on
 * @dir: %DMA_TO_DEVICE for RDMA WRITE, %DMA_FROM_DEVICE for RDMA READ
 *
 * Context: process context; may sleep.
 * Return: as rdma_rwx_ctx_signature_init(); -ENOMEM too when ib_core's
 * encoding cannot be allocated.  On error nothing stays mapped or taken,
 * and @ctx has no ops.
 */
int rdma_rwx_ibcore_ctx_signature_init(struct rdma_rw_ctx *ctx,
				       struct ib_qp *qp, u32 port_num,
				       struct scatterlist *sg, u32 sg_cnt,
				       struct scatterlist *prot_sg,
				       u32 prot_sg_cnt,
				       struct ib_sig_attrs *sig_attrs,
				       u64 remote_addr, u32 rkey,
				       enum dma_data_direction dir)
{
	int ret;

	ret = rdma_rwx_ctx_signature_init(ctx, qp, port_num, sg, sg_cnt,
					  prot_sg, prot_sg_cnt, sig_attrs,
					  remote_addr, rkey, dir);
	if (ret >= 0) {
		int err = rdma_rwx_ibcore_own_regs(ctx);

		if (!err) {
			rdma_rwx_ibcore_set(ctx, qp, RDMA_RWX_IBCORE_SIG);
			return ret;
		}
		rdma_rwx_ctx_destroy_signature(ctx, qp, port_num, sg, sg_cnt,
					       prot_sg, prot_sg_cnt, dir);
		rdma_rwx_count(qp->pd->device, RWX_CNT_ERR_ENOMEM);
		ret = err;
	}
	rdma_rwx_ibcore_failed(ctx);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_signature_init, RDMA_RWX);

/**
 * rdma_rwx_ibcore_ctx_wrs() - the WR chain of a context in ib_core's
 *	encoding
 * @ctx: context set up by ib_core or by an rdma_rwx_ibcore_ init function
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * As ib_core's: the MRs get fresh keys on every call.  Unlike ib_core's,
 * READ with invalidate names the key the chain registers, and the last
 * WR is signaled only without @chain_wr.
 *
 * Return: the first WR, or NULL when @ctx is not a live context of either
 * origin (ib_core's BUG()s) or neither @cqe nor @chain_wr is given.
 */
struct ib_send_wr *rdma_rwx_ibcore_ctx_wrs(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u32 port_num,
					   struct ib_cqe *cqe,
					   struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;

	if (!ctx || (!cqe && !chain_wr) || !ctx->nr_ops)
		return NULL;
	switch (ctx->type) {
	case RDMA_RWX_IBCORE_SINGLE:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	case RDMA_RWX_IBCORE_MULTI:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	case RDMA_RWX_IBCORE_MR:
	case RDMA_RWX_IBCORE_SIG:
		/* a LOCAL_INV has its opcode in either origin's encoding */
		first = rdma_rwx_reg_chain(ctx, &last);
		break;
	default:
		return NULL;
	}
	return rdma_rwx_end_chain(first, last, cqe, chain_wr);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_wrs, RDMA_RWX);

/**
 * rdma_rwx_ibcore_ctx_post() - post the WR chain of a context in ib_core's
 *	encoding
 * @ctx: context set up by ib_core or by an rdma_rwx_ibcore_ init function
 * @qp: queue pair to operate on
 * @port_num: port the connection is bound to
 * @cqe: completion for the last WR (used when @chain_wr is NULL)
 * @chain_wr: WR to append to the chain, or NULL
 *
 * After a partial post, the MRs whose registration was not posted get
 * their keys back, as rdma_rwx_ctx_post() does (ib_core's does not).
 *
 * Return: 0; -EINVAL where rdma_rwx_ibcore_ctx_wrs() returns NULL; or the
 * error of ib_post_send().
 */
int rdma_rwx_ibcore_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			     u32 port_num, struct ib_cqe *cqe,
			     struct ib_send_wr *chain_wr)
{
	const struct ib_send_wr *bad_wr;
	struct ib_send_wr *first;
	int ret;

	if (!qp)
		return -EINVAL;
	first = rdma_rwx_ibcore_ctx_wrs(ctx, qp, port_num, cqe, chain_wr);
	if (!first)
		return -EINVAL;
	bad_wr = first;		/* may be unset if the whole post is refused */
	ret = ib_post_send(qp, first, &bad_wr);
	if (ret && (ctx->type == RDMA_RWX_IBCORE_MR ||
		    ctx->type == RDMA_RWX_IBCORE_SIG))
		rdma_rwx_unpost(ctx, bad_wr);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_post, RDMA_RWX);

/* The unmap and the count; the context is dead after it. */
static void rdma_rwx_ibcore_unmap(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  struct scatterlist *sg, u32 sg_cnt,
				  enum dma_data_direction dir, bool ours)
{
	struct ib_device *dev = qp->pd->device;

	rdma_rwx_ibcore_retire(ctx);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
	rdma_rwx_count(dev, ours ? RWX_CNT_SHARED_DESTROY : RWX_CNT_ADOPTED);
}

/**
 * rdma_rwx_ibcore_ctx_destroy() - release a context in ib_core's encoding
 * @ctx: context set up by ib_core or by rdma_rwx_ibcore_ctx_init()
 * @qp: queue pair it was initialised on
 * @port_num: port the connection is bound to
 * @sg: scatterlist passed at init
 * @sg_cnt: entries in @sg, as passed at init
 * @dir: direction, as passed at init
 *
 * Counts shared_destroyed for the engine's own, adopted for ib_core's.  A
 * signature context, a dead one or anything else is left alone (ib_core's
 * BUG()s).
 */
void rdma_rwx_ibcore_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 u32 port_num, struct scatterlist *sg,
				 u32 sg_cnt, enum dma_data_direction dir)
{
	bool ours;

	if (!ctx || !qp || !sg)
		return;
	ours = rdma_rwx_ibcore_ctx_is_ours(ctx);
	switch (ctx->type) {
	case RDMA_RWX_IBCORE_SINGLE:
		break;
	case RDMA_RWX_IBCORE_MULTI:
		kfree(ctx->map.wrs);
		kfree(ctx->map.sges);
		break;
	case RDMA_RWX_IBCORE_MR:
		rdma_rwx_put_mrs(ctx, qp, ctx->nr_ops);
		kfree(ctx->reg);
		break;
	default:
		return;
	}
	rdma_rwx_ibcore_unmap(ctx, qp, sg, sg_cnt, dir, ours);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_destroy, RDMA_RWX);

/**
 * rdma_rwx_ibcore_ctx_destroy_signature() - release a signature context in
 *	ib_core's encoding
 * @ctx: context set up by ib_core or rdma_rwx_ibcore_ctx_signature_init()
 * @qp: queue pair it was initialised on
 * @port_num: port the connection is bound to
 * @sg: data scatterlist passed at init
 * @sg_cnt: entries in @sg, as passed at init
 * @prot_sg: protection scatterlist passed at init, or NULL
 * @prot_sg_cnt: entries in @prot_sg, as passed at init
 * @dir: direction, as passed at init
 *
 * As ib_core's, the MR's signature status is left for the ULP to read.
 * Anything but a live signature context is left alone.
 */
void rdma_rwx_ibcore_ctx_destroy_signature(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u32 port_num,
					   struct scatterlist *sg, u32 sg_cnt,
					   struct scatterlist *prot_sg,
					   u32 prot_sg_cnt,
					   enum dma_data_direction dir)
{
	bool ours;

	if (!ctx || !qp || !sg || ctx->type != RDMA_RWX_IBCORE_SIG)
		return;
	ours = rdma_rwx_ibcore_ctx_is_ours(ctx);
	ib_mr_pool_put(qp, &qp->sig_mrs, ctx->reg->mr);
	kfree(ctx->reg);
	if (prot_sg && prot_sg_cnt)
		ib_dma_unmap_sg(qp->pd->device, prot_sg, prot_sg_cnt, dir);
	rdma_rwx_ibcore_unmap(ctx, qp, sg, sg_cnt, dir, ours);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_ctx_destroy_signature, RDMA_RWX);
