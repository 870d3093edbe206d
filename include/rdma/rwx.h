/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx: an RDMA READ/WRITE context engine for kernel ULPs.
 *
 * The same job as ib_core's rdma_rw_ctx_* API, on the same context type
 * (struct rdma_rw_ctx from <rdma/rw.h>), so that a ULP ports by renaming
 * its calls.  Symbols are exported in the RDMA_RWX namespace:
 * MODULE_IMPORT_NS(RDMA_RWX) in the ULP.
 */
#ifndef _RDMA_RWX_H
#define _RDMA_RWX_H

#include <linux/bvec.h>
#include <linux/dma-direction.h>
#include <linux/types.h>

#define RDMA_RWX_VERSION "0.1"

struct ib_cqe;
struct ib_device;
struct ib_qp;
struct ib_qp_init_attr;
struct ib_send_wr;
struct ib_sig_attrs;
struct rdma_rw_ctx;
struct scatterlist;

/* The most pages one MR covers: bounds the MR pool's resources. */
#define RDMA_RWX_MAX_MR_PAGES	256

/**
 * struct rdma_rwx_caps - what the WR layout depends on
 * @iwarp: the port runs iWARP (READ sinks must be registered)
 * @force_mr: always register memory (the force_mr module parameter)
 * @read_inv: the device supports RDMA READ with invalidate
 * @max_write_sge: SGEs per RDMA WRITE WR (the QP's max_write_sge)
 * @max_read_sge: SGEs per RDMA READ WR (the QP's max_read_sge, which is
 *	already bounded by the device's max_sge_rd)
 * @max_sgl_rd: the device prefers MRs for READs of more entries than
 *	this (0: no preference)
 * @mr_pages: pages one fast-registration MR covers (at most
 *	RDMA_RWX_MAX_MR_PAGES)
 */
struct rdma_rwx_caps {
	bool iwarp;
	bool force_mr;
	bool read_inv;
	u32 max_write_sge;
	u32 max_read_sge;
	u32 max_sgl_rd;
	u32 mr_pages;
};

/**
 * enum rdma_rwx_path - how a context moves its data
 * @RDMA_RWX_PATH_SGE: RDMA READ/WRITE WRs gathering the DMA-mapped
 *	entries directly with the PD's local DMA lkey
 * @RDMA_RWX_PATH_MR: each READ/WRITE WR uses one fast-registered MR,
 *	preceded by its REG_MR WR (and LOCAL_INV when the MR still holds a
 *	valid key)
 */
enum rdma_rwx_path {
	RDMA_RWX_PATH_SGE,
	RDMA_RWX_PATH_MR,
};

/**
 * struct rdma_rwx_layout - the WR layout of one context
 * @path: SGE or MR path
 * @nr_ops: RDMA READ/WRITE WRs (not counting REG_MR / LOCAL_INV); on the
 *	MR path also the MRs
 * @per_op: the most DMA entries one READ/WRITE WR covers (SGEs on the SGE
 *	path, where every WR but the last covers exactly this many; entries
 *	an MR touches on the MR path)
 * @last_op: DMA entries the last READ/WRITE WR covers
 * @sge_fallback: on the MR path, an empty MR pool may fall back to the
 *	SGE path (false for iWARP READs and with force_mr)
 */
struct rdma_rwx_layout {
	enum rdma_rwx_path path;
	u32 nr_ops;
	u32 per_op;
	u32 last_op;
	bool sge_fallback;
};

/**
 * struct rdma_rwx_pos - a position in a DMA-mapped scatterlist
 * @sg: the entry
 * @nents: mapped entries left, counting @sg
 * @offset: byte offset into @sg
 */
struct rdma_rwx_pos {
	struct scatterlist *sg;
	u32 nents;
	u32 offset;
};

/**
 * struct rdma_rwx_mr_span - the part of a DMA list one MR registers
 * @start: where it starts
 * @nents: DMA entries it touches, the first from @start.offset; only the
 *	last may be covered in part
 * @length: bytes it covers
 * @last_len: bytes it covers of its last entry (from @start.offset when
 *	@nents is 1)
 * @pages: pages it maps
 * @split_last: it ends inside its last entry, where the next span starts
 */
struct rdma_rwx_mr_span {
	struct rdma_rwx_pos start;
	u32 nents;
	u32 length;
	u32 last_len;
	u32 pages;
	bool split_last;
};

int rdma_rwx_layout(const struct rdma_rwx_caps *caps,
		    enum dma_data_direction dir, const struct rdma_rwx_pos *pos,
		    struct rdma_rwx_layout *layout);
int rdma_rwx_next_mr_span(const struct rdma_rwx_caps *caps,
			  struct rdma_rwx_pos *pos,
			  struct rdma_rwx_mr_span *span);
int rdma_rwx_sg_skip(struct rdma_rwx_pos *pos);
void rdma_rwx_qp_caps(struct ib_qp *qp, u32 port_num,
		      struct rdma_rwx_caps *caps);

int rdma_rwx_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      u32 port_num, struct scatterlist *sg, u32 sg_cnt,
		      u32 sg_offset, u64 remote_addr, u32 rkey,
		      enum dma_data_direction dir);
void rdma_rwx_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			  enum dma_data_direction dir);
struct ib_send_wr *rdma_rwx_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct ib_cqe *cqe,
				    struct ib_send_wr *chain_wr);
int rdma_rwx_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      u32 port_num, struct ib_cqe *cqe,
		      struct ib_send_wr *chain_wr);

int rdma_rwx_ctx_init_bvec(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			   u32 port_num, const struct bio_vec *bvecs,
			   u32 nr_bvec, struct bvec_iter iter,
			   u64 remote_addr, u32 rkey,
			   enum dma_data_direction dir);
void rdma_rwx_ctx_destroy_bvec(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, const struct bio_vec *bvecs,
			       u32 nr_bvec, enum dma_data_direction dir);
int rdma_rwx_bvec_segments(const struct bio_vec *bvecs, u32 nr_bvec,
			   struct bvec_iter iter, u32 *nsegs);

int rdma_rwx_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				u32 port_num, struct scatterlist *sg,
				u32 sg_cnt, struct scatterlist *prot_sg,
				u32 prot_sg_cnt, struct ib_sig_attrs *sig_attrs,
				u64 remote_addr, u32 rkey,
				enum dma_data_direction dir);
void rdma_rwx_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct scatterlist *sg,
				    u32 sg_cnt, struct scatterlist *prot_sg,
				    u32 prot_sg_cnt, enum dma_data_direction dir);

unsigned int rdma_rwx_mr_factor(struct ib_device *device, u32 port_num,
				unsigned int maxpages);
unsigned int rdma_rwx_qp_mr_factor(struct ib_device *device, u32 port_num,
				   unsigned int maxpages, u32 create_flags);
unsigned int rdma_rwx_max_send_wr(struct ib_device *device, u32 port_num,
				  unsigned int max_rdma_ctxs, u32 create_flags);
int rdma_rwx_init_qp_attr(struct ib_device *device, u32 port_num,
			  struct ib_qp_init_attr *attr);

#endif /* _RDMA_RWX_H */
