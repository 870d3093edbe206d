// SPDX-License-Identifier: GPL-2.0-only
/* Signature (T10-PI) contexts: one integrity MR maps data and PI. */

#include <linux/math64.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
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

static bool rdma_rwx_sig_attrs_valid(const struct ib_sig_attrs *attrs)
{
	return rdma_rwx_sig_domain_valid(&attrs->mem) &&
	       rdma_rwx_sig_domain_valid(&attrs->wire) &&
	       (attrs->mem.sig_type != IB_SIG_TYPE_NONE ||
		attrs->wire.sig_type != IB_SIG_TYPE_NONE);
}

/* Bytes of the first @nents entries of @sg. */
static u64 rdma_rwx_sg_bytes(struct scatterlist *sg, u32 nents)
{
	u64 bytes = 0;

	for (; sg && nents; nents--, sg = sg_next(sg))
		bytes += sg->length;
	return bytes;
}

/*
 * Whether the lists hold whole protection intervals as @attrs lay them
 * out: memory T10-DIF keeps 8 bytes of PI per interval in the protection
 * list, or after each interval's data without one; memory NONE has no
 * protection list; both domains T10-DIF share one interval.  A device maps
 * what it is given (mlx5 reads the attributes only at REG_MR_INTEGRITY),
 * so a mismatch would otherwise reach the wire.
 */
static bool rdma_rwx_sig_lists_valid(const struct ib_sig_attrs *attrs,
				     struct scatterlist *sg, u32 sg_cnt,
				     struct scatterlist *prot_sg,
				     u32 prot_sg_cnt)
{
	const struct ib_t10_dif_domain *mem = &attrs->mem.sig.dif;
	const struct ib_t10_dif_domain *wire = &attrs->wire.sig.dif;
	bool mem_pi = attrs->mem.sig_type == IB_SIG_TYPE_T10_DIF;
	bool wire_pi = attrs->wire.sig_type == IB_SIG_TYPE_T10_DIF;
	u64 data = rdma_rwx_sg_bytes(sg, sg_cnt), blocks;
	u32 interval, rem;

	if (mem_pi && wire_pi && mem->pi_interval != wire->pi_interval)
		return false;
	if (!mem_pi && prot_sg_cnt)
		return false;
	interval = mem_pi ? mem->pi_interval : wire->pi_interval;
	if (mem_pi && !prot_sg_cnt)
		interval += sizeof(struct t10_pi_tuple);
	blocks = div_u64_rem(data, interval, &rem);
	if (!blocks || rem)
		return false;
	return !prot_sg_cnt ||
	       rdma_rwx_sg_bytes(prot_sg, prot_sg_cnt) ==
	       blocks * sizeof(struct t10_pi_tuple);
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
	if (!rdma_rwx_sig_lists_valid(sig_attrs, sg, sg_cnt, prot_sg,
				      prot_sg_cnt))
		return -EINVAL;
	/* Each list needs a page at least per entry in the one MR. */
	pages = min_t(u32, qp->pd->device->attrs.max_pi_fast_reg_page_list_len,
		      RDMA_RWX_MAX_MR_PAGES);
	if (sg_cnt > pages || prot_sg_cnt > pages)
		return -EINVAL;
	return 0;
}

/* An integrity MR for both lists, and its WRs; returns their number. */
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

	/* The driver sets meta_length; SZ_4K is ib_core's page size for PI. */
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
 * Registers both lists in one integrity MR.  After completion, check
 * ib_check_mr_status() before the destroy; see Documentation/rdma_rwx.rst,
 * "Signature (T10-PI) contexts".
 *
 * Context: process context; may sleep.
 * Return: the number of WRs the context will post; -EINVAL for bad
 * arguments or domains, lists that do not hold whole protection intervals
 * as the domains lay them out, or lists one integrity MR cannot map;
 * -EOPNOTSUPP
 * when @qp has no integrity; -ENOMEM when mapping or allocation fails;
 * -EAGAIN when the signature pool is empty for now; -ENOSPC when it has
 * no MR at all.  On error nothing stays mapped or taken from the pool.
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
		/* counted by rdma_rwx_sig_init_reg(); the event a NOP if off */
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
 * Reads (so clears) the MR's signature status once its chain was handed
 * out: check it before.  A dead or plain context is left alone.
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
	 * mlx5 registers an integrity MR again only once its status was read,
	 * which ULPs do only after a good transfer: a failed chain would block.
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
