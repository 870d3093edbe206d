// SPDX-License-Identifier: GPL-2.0-only
/*
 * Signature (T10-PI) contexts: one integrity MR from the QP's sig_mrs
 * pool maps the data and the protection information together, and the
 * device inserts, strips or checks PI as the transfer crosses it.  The WR
 * chain is [LOCAL_INV,] REG_MR_INTEGRITY, RDMA READ/WRITE; it is built and
 * posted by rdma_rwx_ctx_wrs() / rdma_rwx_ctx_post() like any other.
 */

#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/signature.h>
#include "rwx_internal.h"
#include "rwx_stats.h"
#include "rwx_trace.h"

static bool rdma_rwx_sig_domain_valid(const struct ib_sig_domain *domain)
{
	const struct ib_t10_dif_domain *dif = &domain->sig.dif;

	switch (domain->sig_type) {
	case IB_SIG_TYPE_NONE:
		return true;
	case IB_SIG_TYPE_T10_DIF:
		return (dif->pi_interval == 512 || dif->pi_interval == 4096) &&
		       (dif->bg_type == IB_T10DIF_CRC ||
			dif->bg_type == IB_T10DIF_CSUM);
	default:
		return false;
	}
}

/* At least one domain carries PI, and both describe what T10 defines. */
static bool rdma_rwx_sig_attrs_valid(const struct ib_sig_attrs *attrs)
{
	return rdma_rwx_sig_domain_valid(&attrs->mem) &&
	       rdma_rwx_sig_domain_valid(&attrs->wire) &&
	       (attrs->mem.sig_type != IB_SIG_TYPE_NONE ||
		attrs->wire.sig_type != IB_SIG_TYPE_NONE);
}

static int rdma_rwx_sig_check_args(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg,
				   u32 sg_cnt, struct scatterlist *prot_sg,
				   u32 prot_sg_cnt,
				   const struct ib_sig_attrs *sig_attrs,
				   enum dma_data_direction dir)
{
	u32 pages;

	if (!ctx)
		return -EINVAL;
	ctx->type = RDMA_RWX_CTX_DEAD;
	if (!qp || !sg || !sg_cnt || !sig_attrs ||
	    (prot_sg_cnt && !prot_sg) || !rdma_rwx_dir_valid(dir) ||
	    !rdma_rwx_port_valid(qp->pd->device, port_num) ||
	    !rdma_rwx_sig_attrs_valid(sig_attrs))
		return -EINVAL;
	if (!qp->integrity_en)
		return -EOPNOTSUPP;
	/* Each list needs a page at least per entry in the one MR. */
	pages = min_t(u32, qp->pd->device->attrs.max_pi_fast_reg_page_list_len,
		      RDMA_RWX_MAX_MR_PAGES);
	if (sg_cnt > pages || prot_sg_cnt > pages)
		return -EINVAL;
	return 0;
}

/*
 * Take an integrity MR, give it @sig_attrs and both lists, and fill in
 * the context's WRs.  Returns the number of WRs.
 */
static int rdma_rwx_sig_init_reg(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 u32 port_num, struct scatterlist *sg, u32 nents,
				 struct scatterlist *prot_sg, u32 prot_nents,
				 const struct ib_sig_attrs *sig_attrs,
				 u64 remote_addr, u32 rkey,
				 enum dma_data_direction dir)
{
	struct rdma_rw_reg_ctx *reg;
	u32 length, meta_length;
	struct ib_mr *mr;
	int count;

	/* A cache buffer: rdma_rwx_fill_reg() writes every field. */
	BUILD_BUG_ON(sizeof(*reg) > RDMA_RWX_BUF_SIZE);
	reg = rdma_rwx_buf_get();
	if (!reg)
		return -ENOMEM;
	mr = ib_mr_pool_get(qp, &qp->sig_mrs);
	if (!mr) {
		rdma_rwx_buf_put(reg);
		return rdma_rwx_pool_short(qp, &qp->sig_mrs, 0);
	}

	/*
	 * The driver maps both lists by these attributes and reports the PI
	 * bytes it placed in meta_length.  ib_core's page size for PI MRs.
	 */
	*mr->sig_attrs = *sig_attrs;
	count = ib_map_mr_sg_pi(mr, sg, nents, NULL, prot_sg, prot_nents, NULL,
				SZ_4K);
	if (count) {
		count = rdma_rwx_map_error(count);
		goto out_put;
	}
	length = mr->length;
	meta_length = mr->sig_attrs->meta_length;
	/* No PI on the wire: the wire carries the data alone. */
	if (sig_attrs->wire.sig_type == IB_SIG_TYPE_NONE) {
		if (meta_length > length) {
			count = -EINVAL;
			goto out_put;
		}
		length -= meta_length;
	}

	count = rdma_rwx_fill_reg(reg, mr, IB_WR_REG_MR_INTEGRITY,
				  rdma_protocol_iwarp(qp->pd->device, port_num),
				  length, remote_addr, rkey, dir);
	ctx->reg = reg;
	ctx->nr_ops = 1;
	ctx->type = RDMA_RWX_CTX_SIG;
	rdma_rwx_link_mr_wrs(ctx);
	rdma_rwx_count_ctx(qp->pd->device, RWX_CNT_INIT_SIG, 1, length, dir);
	return count;

out_put:
	ib_mr_pool_put(qp, &qp->sig_mrs, mr);
	rdma_rwx_buf_put(reg);
	return count;
}

/**
 * rdma_rwx_ctx_signature_init() - initialise a context with T10-PI offload
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
 * Maps @sg and @prot_sg for DMA and registers both into one integrity MR
 * from the QP's signature pool, with a copy of @sig_attrs.  The chain
 * that rdma_rwx_ctx_wrs() then returns is LOCAL_INV (when the MR still
 * holds a valid key), REG_MR_INTEGRITY and one RDMA READ or WRITE through
 * the MR; its length leaves out the PI when the wire domain carries none.
 * After the transfer completes, the ULP reads the outcome of the checks
 * with ib_check_mr_status(ctx->reg->mr, IB_MR_CHECK_SIG_STATUS, ...), and
 * then releases the context with rdma_rwx_ctx_destroy_signature().
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post, or
 * -EINVAL for a NULL @ctx, @qp, @sg or @sig_attrs, an @sg_cnt of 0, a
 * @prot_sg_cnt without @prot_sg, an invalid @dir or @port_num, signature
 * domains that are both NONE or not valid T10-DIF (interval 512 or 4096,
 * CRC or IP-checksum guard), lists that one integrity MR cannot map (more
 * entries than its page list, or refused by the device);
 * -EOPNOTSUPP when @qp was not created with integrity (which needs a
 * device with integrity handover); -ENOMEM when the DMA mapping or an
 * allocation fails, or the device's mapping of the lists does; -EAGAIN
 * when the QP's signature pool is empty for now; -ENOSPC when it has no
 * MR at all.  On error nothing stays mapped or
 * taken from the pool.
 */
int rdma_rwx_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				u32 port_num, struct scatterlist *sg,
				u32 sg_cnt, struct scatterlist *prot_sg,
				u32 prot_sg_cnt, struct ib_sig_attrs *sig_attrs,
				u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	u32 nents, prot_nents = 0;
	struct ib_device *dev;
	int ret;

	ret = rdma_rwx_sig_check_args(ctx, qp, port_num, sg, sg_cnt, prot_sg,
				      prot_sg_cnt, sig_attrs, dir);
	if (ret)
		goto out_count;
	dev = qp->pd->device;

	nents = rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents) {
		ret = -ENOMEM;
		goto out_count;
	}
	if (prot_sg_cnt) {
		prot_nents = rdma_rwx_dma_map_sg(dev, prot_sg, prot_sg_cnt, dir);
		if (!prot_nents) {
			ret = -ENOMEM;
			goto out_unmap;
		}
	}

	ret = rdma_rwx_sig_init_reg(ctx, qp, port_num, sg, nents,
				    prot_nents ? prot_sg : NULL, prot_nents,
				    sig_attrs, remote_addr, rkey, dir);
	if (ret >= 0) {
		/* counted by rdma_rwx_sig_init_reg(); the event a NOP when off */
		trace_rwx_ctx_init(dev, port_num, ctx, sg_cnt, dir, ret, false);
		return ret;
	}

	if (prot_nents)
		ib_dma_unmap_sg(dev, prot_sg, prot_sg_cnt, dir);
out_unmap:
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
out_count:
	rdma_rwx_count_init_done(qp, port_num, ctx, sg_cnt, dir, ret, 0);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_signature_init, RDMA_RWX);

/**
 * rdma_rwx_ctx_destroy_signature() - release a signature context
 * @ctx: context initialised by rdma_rwx_ctx_signature_init()
 * @qp: queue pair it was initialised on
 * @port_num: port the connection is bound to
 * @sg: data scatterlist passed to rdma_rwx_ctx_signature_init()
 * @sg_cnt: entries in @sg, as passed at init
 * @prot_sg: protection scatterlist passed at init, or NULL
 * @prot_sg_cnt: entries in @prot_sg, as passed at init
 * @dir: direction, as passed at init
 *
 * Returns the integrity MR to the QP's signature pool, frees the context's
 * WRs and unmaps both lists.  Once its chain was handed out, the MR's
 * signature status is read (and so cleared) first: check it before
 * destroying the context.  The context is marked dead: a second
 * destroy does nothing.  A context that is not a live signature context
 * (a plain one, or a dead one) is left alone; a plain context is released
 * with rdma_rwx_ctx_destroy(), which in turn leaves signature contexts
 * alone.
 */
void rdma_rwx_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct scatterlist *sg,
				    u32 sg_cnt, struct scatterlist *prot_sg,
				    u32 prot_sg_cnt, enum dma_data_direction dir)
{
	struct ib_mr_status st;
	struct ib_device *dev;

	if (!ctx || !qp || !sg ||
	    (ctx->type & ~RDMA_RWX_CTX_BUILT) != RDMA_RWX_CTX_SIG)
		return;

	dev = qp->pd->device;
	if (trace_rwx_ctx_destroy_enabled())
		rdma_rwx_trace_destroy(dev, port_num, ctx, sg_cnt);
	/*
	 * mlx5 refuses to register an integrity MR again until its status
	 * was read since the last registration; a ULP reads it only after a
	 * successful transfer.  Read it here, so that an MR whose chain
	 * failed, or was posted only in part, does not block its pool.
	 */
	if (ctx->type & RDMA_RWX_CTX_BUILT)
		ib_check_mr_status(ctx->reg->mr, IB_MR_CHECK_SIG_STATUS, &st);
	ib_mr_pool_put(qp, &qp->sig_mrs, ctx->reg->mr);
	rdma_rwx_buf_put(ctx->reg);
	ctx->type = RDMA_RWX_CTX_DEAD;
	if (prot_sg && prot_sg_cnt)
		ib_dma_unmap_sg(dev, prot_sg, prot_sg_cnt, dir);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
	rdma_rwx_count(dev, RWX_CNT_DESTROY);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ctx_destroy_signature, RDMA_RWX);
