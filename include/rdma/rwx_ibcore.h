/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwx_ibcore.h: the engine on contexts in ib_core's own encoding.
 *
 * The same contracts as ib_core's rdma_rw_ctx_* functions of the same
 * names, for the live takeover (Documentation/takeover.rst): a context one
 * of these sets up can be chained, posted and destroyed by ib_core's
 * functions, and these chain, post and destroy the contexts ib_core's set
 * up.  ULPs built against the engine use <rdma/rwx.h> instead.
 */
#ifndef _RDMA_RWX_IBCORE_H
#define _RDMA_RWX_IBCORE_H

#include <linux/dma-direction.h>
#include <linux/types.h>

struct ib_cqe;
struct ib_qp;
struct ib_send_wr;
struct ib_sig_attrs;
struct rdma_rw_ctx;
struct scatterlist;

int rdma_rwx_ibcore_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			     u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			     u32 sg_offset, u64 remote_addr, u32 rkey,
			     enum dma_data_direction dir);
int rdma_rwx_ibcore_ctx_signature_init(struct rdma_rw_ctx *ctx,
				       struct ib_qp *qp, u32 port_num,
				       struct scatterlist *sg, u32 sg_cnt,
				       struct scatterlist *prot_sg,
				       u32 prot_sg_cnt,
				       struct ib_sig_attrs *sig_attrs,
				       u64 remote_addr, u32 rkey,
				       enum dma_data_direction dir);
struct ib_send_wr *rdma_rwx_ibcore_ctx_wrs(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u32 port_num,
					   struct ib_cqe *cqe,
					   struct ib_send_wr *chain_wr);
int rdma_rwx_ibcore_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			     u32 port_num, struct ib_cqe *cqe,
			     struct ib_send_wr *chain_wr);
void rdma_rwx_ibcore_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				 u32 port_num, struct scatterlist *sg,
				 u32 sg_cnt, enum dma_data_direction dir);
void rdma_rwx_ibcore_ctx_destroy_signature(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u32 port_num,
					   struct scatterlist *sg, u32 sg_cnt,
					   struct scatterlist *prot_sg,
					   u32 prot_sg_cnt,
					   enum dma_data_direction dir);
bool rdma_rwx_ibcore_ctx_is_ours(const struct rdma_rw_ctx *ctx);

#endif /* _RDMA_RWX_IBCORE_H */
