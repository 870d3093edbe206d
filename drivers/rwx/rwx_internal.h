/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx internals; the per-context decisions are inline, so that
 * rdma_rwx_ctx_init() makes them without calls.
 */
#ifndef _RWX_INTERNAL_H
#define _RWX_INTERNAL_H

#include <linux/align.h>
#include <linux/bvec.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>

extern bool rdma_rwx_force_mr;
void rdma_rwx_follow_ibcore_force_mr(struct ib_device *dev);
int rdma_rwx_ibcore_forces_mr(void);
int rdma_rwx_probe_ibcore_force_mr(struct ib_device *dev, u32 port_num);

/* ctx->type: a base layout and flags; anything else is not a live context. */
enum rdma_rwx_ctx_type {
	RDMA_RWX_CTX_SINGLE = 0x40,	/* one WR, SGE inline in the ctx */
	RDMA_RWX_CTX_MULTI,		/* WRs and SGEs in one buffer */
	RDMA_RWX_CTX_MR,		/* one registered MR per WR */
	RDMA_RWX_CTX_SIG,		/* one integrity MR (rwx_sig.c) */
	RDMA_RWX_CTX_CACHED = 0x04,	/* MULTI: the buffer is the cache's */
	RDMA_RWX_CTX_BUILT = 0x08,	/* MR, SIG: chain handed out once */
	RDMA_RWX_CTX_BVEC = 0x10,	/* from bvecs: owns its DMA mapping */
	RDMA_RWX_CTX_DEAD = 0x80,	/* destroyed, or init failed */
};

#define RDMA_RWX_CTX_FLAGS \
	(RDMA_RWX_CTX_CACHED | RDMA_RWX_CTX_BUILT | RDMA_RWX_CTX_BVEC)

static inline u8 rdma_rwx_ctx_base(u8 type)
{
	u8 base = type & ~RDMA_RWX_CTX_FLAGS;

	return base >= RDMA_RWX_CTX_SINGLE && base <= RDMA_RWX_CTX_SIG ?
		base : 0;
}

/* A multi-segment bio_vec context's list, in union bytes no pointer uses. */
struct rdma_rwx_owned {
	void *wrs_or_reg[2];		/* ctx->map, or ctx->reg */
	struct scatterlist *sgl;
	u32 nents;			/* as given to the mapping */
	u8 dir;
};

static_assert(sizeof(struct rdma_rwx_owned) <=
	      sizeof(((struct rdma_rw_ctx *)NULL)->single));
static_assert(sizeof(((struct rdma_rw_ctx *)NULL)->map) <=
	      sizeof(((struct rdma_rwx_owned *)NULL)->wrs_or_reg));

static inline struct rdma_rwx_owned *rdma_rwx_owned(struct rdma_rw_ctx *ctx)
{
	return (struct rdma_rwx_owned *)&ctx->single;
}

/* rwx_bufcache.c's buffers: the WRs and SGEs of up to 60 entries on one WR. */
#define RDMA_RWX_BUF_SIZE	1024
/* MR contexts of up to this many ops keep their op array in a buffer. */
#define RDMA_RWX_BUF_REGS \
	(RDMA_RWX_BUF_SIZE / sizeof(struct rdma_rw_reg_ctx))
void *rdma_rwx_buf_get(void);
void rdma_rwx_buf_put(void *buf);
int rdma_rwx_buf_cache_init(void);
void rdma_rwx_buf_cache_exit(void);
unsigned int rdma_rwx_buf_cache_held(unsigned int cpu);
void rdma_rwx_buf_cache_empty_local(void);

/* @nr_ops WRs, then @nents SGEs: a cache buffer (*@cached) if they fit. */
static inline struct ib_rdma_wr *
rdma_rwx_alloc_sge_wrs(u32 nr_ops, u32 nents, bool *cached)
{
	size_t size = size_add(array_size(nr_ops, sizeof(struct ib_rdma_wr)),
			       array_size(nents, sizeof(struct ib_sge)));

	*cached = size <= RDMA_RWX_BUF_SIZE;
	return *cached ? rdma_rwx_buf_get() : kmalloc(size, GFP_KERNEL);
}

static inline void rdma_rwx_free_sge_wrs(struct ib_rdma_wr *wrs, bool cached)
{
	if (cached)
		rdma_rwx_buf_put(wrs);
	else
		kfree(wrs);
}

/* Shared by the plain MR path (rwx_mr.c) and signature contexts. */
int rdma_rwx_pool_short(struct ib_qp *qp, struct list_head *pool, u32 held);

/* A refused MR mapping: the driver's -ENOMEM as is, any other -EINVAL. */
static inline int rdma_rwx_map_error(int err)
{
	return err == -ENOMEM ? -ENOMEM : -EINVAL;
}

void rdma_rwx_bvec_setup(void);
int rdma_rwx_bvec_to_sgl(const struct bio_vec *bvecs, u32 nr_bvec,
			 struct bvec_iter iter, struct scatterlist *sgl,
			 u32 nents);

/* The MR path (rwx_mr.c). */
int rdma_rwx_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 const struct rdma_rwx_caps *caps,
			 struct rdma_rwx_pos pos, u64 bytes, u64 remote_addr,
			 u32 rkey, enum dma_data_direction dir);
void rdma_rwx_release_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp);
void rdma_rwx_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 count);
void rdma_rwx_unpost(struct rdma_rw_ctx *ctx, const struct ib_send_wr *bad_wr);
int rdma_rwx_regs_to_heap(struct rdma_rw_ctx *ctx);

/* The scatterlist path, for bio_vec contexts (rwx_bvec.c). */
int rdma_rwx_init_owned(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			u32 port_num, struct scatterlist *sgl, u32 nents,
			u64 bytes, u64 remote_addr, u32 rkey,
			enum dma_data_direction dir);
void rdma_rwx_destroy_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  struct scatterlist *sg, u32 sg_cnt,
			  enum dma_data_direction dir);

static inline bool rdma_rwx_dir_valid(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE || dir == DMA_FROM_DEVICE;
}

static inline enum ib_wr_opcode rdma_rwx_sge_opcode(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ;
}

/* A READ/WRITE WR's data direction (READ with invalidate too). */
static inline enum dma_data_direction
rdma_rwx_wr_dir(const struct ib_send_wr *wr)
{
	return wr->opcode == IB_WR_RDMA_WRITE ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/* Each field once: the WR may be reused, and a memset() costs a rep stos. */
static inline void rdma_rwx_init_send_wr(struct ib_send_wr *wr,
					 enum ib_wr_opcode opcode,
					 struct ib_sge *sges, u32 nr_sge)
{
	wr->next = NULL;
	wr->wr_id = 0;
	wr->sg_list = sges;
	wr->num_sge = nr_sge;
	wr->opcode = opcode;
	wr->send_flags = 0;
	wr->ex.invalidate_rkey = 0;
}

static inline void rdma_rwx_fill_wr(struct ib_rdma_wr *wr,
				    enum ib_wr_opcode opcode,
				    struct ib_sge *sges, u32 nr_sge,
				    u64 remote_addr, u32 rkey)
{
	rdma_rwx_init_send_wr(&wr->wr, opcode, sges, nr_sge);
	wr->remote_addr = remote_addr;
	wr->rkey = rkey;
}

static inline void rdma_rwx_init_single_wr(struct rdma_rw_ctx *ctx,
					   struct ib_qp *qp, u64 addr,
					   u32 length, u64 remote_addr,
					   u32 rkey,
					   enum dma_data_direction dir)
{
	struct ib_sge *sge = &ctx->single.sge;

	sge->addr = addr;
	sge->length = length;
	sge->lkey = qp->pd->local_dma_lkey;
	rdma_rwx_fill_wr(&ctx->single.wr, rdma_rwx_sge_opcode(dir), sge, 1,
			 remote_addr, rkey);
	ctx->nr_ops = 1;
	ctx->type = RDMA_RWX_CTX_SINGLE;
}

/*
 * One MR's [LOCAL_INV,] registration and READ/WRITE, unlinked; returns the
 * WR count.  Always inline: out of line, two of its 8 arguments are stacked.
 */
static __always_inline int
rdma_rwx_fill_reg(struct rdma_rw_reg_ctx *reg, struct ib_mr *mr,
		  enum ib_wr_opcode reg_opcode, bool iwarp, u32 length,
		  u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	int count = 2;

	/* Every field: @reg may be in a reused buffer (rwx_bufcache.c). */
	reg->mr = mr;
	if (mr->need_inval) {
		rdma_rwx_init_send_wr(&reg->inv_wr, IB_WR_LOCAL_INV, NULL, 0);
		reg->inv_wr.ex.invalidate_rkey = mr->lkey;
		count++;
	} else {
		reg->inv_wr.opcode = IB_WR_RDMA_WRITE;	/* no LOCAL_INV */
	}

	rdma_rwx_init_send_wr(&reg->reg_wr.wr, reg_opcode, NULL, 0);
	reg->reg_wr.mr = mr;
	reg->reg_wr.key = mr->lkey;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE;
	if (iwarp)	/* iWARP READ responses are remote writes */
		reg->reg_wr.access |= IB_ACCESS_REMOTE_WRITE;

	reg->sge.addr = mr->iova;
	reg->sge.length = length;
	reg->sge.lkey = mr->lkey;
	rdma_rwx_fill_wr(&reg->wr, rdma_rwx_sge_opcode(dir), &reg->sge, 1,
			 remote_addr, rkey);
	return count;
}

static inline struct ib_send_wr *
rdma_rwx_reg_first_wr(struct rdma_rw_reg_ctx *reg)
{
	return reg->inv_wr.opcode == IB_WR_LOCAL_INV ? &reg->inv_wr :
						      &reg->reg_wr.wr;
}

/*
 * A fresh rkey each time the chain is handed out, so a late access with
 * the old one faults; READ with invalidate retires the key it registers.
 */
static inline void rdma_rwx_bump_key(struct rdma_rw_reg_ctx *reg)
{
	struct ib_mr *mr = reg->mr;

	mr->need_inval = reg->wr.wr.opcode != IB_WR_RDMA_READ_WITH_INV;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
	reg->reg_wr.key = mr->lkey;
	reg->sge.lkey = mr->lkey;
	if (!mr->need_inval)
		reg->wr.wr.ex.invalidate_rkey = mr->lkey;
}

static inline void rdma_rwx_link_mr_wrs(struct rdma_rw_ctx *ctx)
{
	struct rdma_rw_reg_ctx *reg = ctx->reg;
	u32 op, nr_ops = ctx->nr_ops;

	for (op = 0; op < nr_ops; op++, reg++) {
		if (reg->inv_wr.opcode == IB_WR_LOCAL_INV)
			reg->inv_wr.next = &reg->reg_wr.wr;
		reg->reg_wr.wr.next = &reg->wr.wr;
		reg->wr.wr.sg_list = &reg->sge;
		reg->wr.wr.next = op + 1 < nr_ops ?
			rdma_rwx_reg_first_wr(reg + 1) : NULL;
	}
}

/*
 * The chain of an MR or signature context, its keys renewed: returns the
 * first WR, and the last in *@last.
 */
static inline struct ib_send_wr *
rdma_rwx_reg_chain(struct rdma_rw_ctx *ctx, struct ib_send_wr **last)
{
	/* locals: the MRs' stores cannot alias them */
	struct rdma_rw_reg_ctx *reg = ctx->reg;
	u32 i, nr_ops = ctx->nr_ops;

	for (i = 0; i < nr_ops; i++)
		rdma_rwx_bump_key(&reg[i]);
	*last = &reg[nr_ops - 1].wr.wr;
	return rdma_rwx_reg_first_wr(reg);
}

/* @last completes to @cqe, or @chain_wr follows it; returns @first. */
static inline struct ib_send_wr *
rdma_rwx_end_chain(struct ib_send_wr *first, struct ib_send_wr *last,
		   struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	last->next = chain_wr;
	if (chain_wr) {
		last->send_flags &= ~IB_SEND_SIGNALED;
	} else {
		last->wr_cqe = cqe;
		last->send_flags |= IB_SEND_SIGNALED;
	}
	return first;
}

/*
 * sg_next() inline: its call costs about as much as a per-entry loop's
 * body.  rdma_rwx_sg_step() omits the end check, for entries not last.
 */
static inline struct scatterlist *rdma_rwx_sg_step(struct scatterlist *sg)
{
	sg++;
	if (unlikely(sg_is_chain(sg)))
		sg = sg_chain_ptr(sg);
	return sg;
}

static inline struct scatterlist *rdma_rwx_sg_next(struct scatterlist *sg)
{
	return sg_is_last(sg) ? NULL : rdma_rwx_sg_step(sg);
}

/*
 * ib_dma_map_sg() with ib_dma_virt_map_sg() inline (rxe, siw, rdmavt),
 * saving its call and a sg_next() call per entry.  With @bytes (constant
 * once inlined), it sums the lengths for the MR path, sparing it a walk
 * (0 if one is empty, or on a DMA device).  @sg_cnt >= 1.
 */
static __always_inline int __rdma_rwx_dma_map_sg(struct ib_device *dev,
						 struct scatterlist *sg,
						 u32 sg_cnt,
						 enum dma_data_direction dir,
						 u64 *bytes)
{
	bool empty = false;
	u32 left = sg_cnt;
	u64 sum = 0;

	if (!ib_uses_virt_dma(dev)) {
		if (bytes)
			*bytes = 0;
		return ib_dma_map_sg(dev, sg, sg_cnt, dir);
	}
	for (;;) {
		sg_dma_address(sg) = (uintptr_t)sg_virt(sg);
		sg_dma_len(sg) = sg->length;
		if (bytes) {
			sum += sg->length;
			if (unlikely(!sg->length))
				empty = true;
		}
		if (!--left)
			break;
		sg = rdma_rwx_sg_step(sg);
	}
	if (bytes)
		*bytes = empty ? 0 : sum;
	return sg_cnt;
}

static inline int rdma_rwx_dma_map_sg(struct ib_device *dev,
				      struct scatterlist *sg, u32 sg_cnt,
				      enum dma_data_direction dir)
{
	return __rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir, NULL);
}

/* rdma_is_port_valid() in one compare; a switch has port 0 only. */
static inline bool rdma_rwx_port_valid(struct ib_device *dev, u32 port_num)
{
	if (likely(!rdma_cap_ib_switch(dev)))
		return port_num - 1 < dev->phys_port_cnt;
	return port_num == 0;
}

static inline u32 rdma_rwx_max_read_sge(struct ib_qp *qp)
{
	return min_t(u32, qp->max_read_sge, qp->pd->device->attrs.max_sge_rd);
}

static inline void rdma_rwx_fill_caps(struct ib_qp *qp, u32 port_num,
				      struct rdma_rwx_caps *caps)
{
	struct ib_device *dev = qp->pd->device;
	u32 mr_pages = qp->integrity_en ?
		dev->attrs.max_pi_fast_reg_page_list_len :
		dev->attrs.max_fast_reg_page_list_len;

	caps->iwarp = rdma_protocol_iwarp(dev, port_num);
	caps->force_mr = rdma_rwx_force_mr;
	caps->read_inv = rdma_cap_read_inv(dev, port_num);
	caps->max_write_sge = qp->max_write_sge;
	caps->max_read_sge = rdma_rwx_max_read_sge(qp);
	caps->max_sgl_rd = dev->attrs.max_sgl_rd;
	caps->mr_pages = min_t(u32, mr_pages, RDMA_RWX_MAX_MR_PAGES);
}

enum rdma_rwx_mr_need {
	RDMA_RWX_MR_NO,
	RDMA_RWX_MR_PREFERRED,	/* a failed MR path falls back to SGEs */
	RDMA_RWX_MR_REQUIRED,
};

/*
 * The one MR policy, for every context and for sizing: force_mr, and an
 * iWARP READ (its sink must be an MR with remote write access), require
 * MRs; a READ past max_sgl_rd entries prefers them (0: no such limit).
 * @iwarp < 0 asks @dev, and only for a READ.
 */
static __always_inline enum rdma_rwx_mr_need
__rdma_rwx_mr_need(bool force_mr, int iwarp, struct ib_device *dev,
		   u32 port_num, u32 max_sgl_rd, enum dma_data_direction dir,
		   u32 nents)
{
	if (force_mr)
		return RDMA_RWX_MR_REQUIRED;
	if (dir != DMA_FROM_DEVICE)
		return RDMA_RWX_MR_NO;
	if (iwarp < 0)
		iwarp = rdma_protocol_iwarp(dev, port_num);
	if (iwarp)
		return RDMA_RWX_MR_REQUIRED;
	if (max_sgl_rd && nents > max_sgl_rd)
		return RDMA_RWX_MR_PREFERRED;
	return RDMA_RWX_MR_NO;
}

static inline enum rdma_rwx_mr_need
rdma_rwx_mr_need(const struct rdma_rwx_caps *caps, enum dma_data_direction dir,
		 u32 nents)
{
	return __rdma_rwx_mr_need(caps->force_mr, caps->iwarp, NULL, 0,
				  caps->max_sgl_rd, dir, nents);
}

/*
 * A hint to sum the lengths for the MR path: wrong costs a walk, never a
 * wrong context.  No device without DMA sets max_sgl_rd.
 */
static inline bool rdma_rwx_mr_likely(struct ib_device *dev, u32 port_num,
				      enum dma_data_direction dir)
{
	return __rdma_rwx_mr_need(rdma_rwx_force_mr, -1, dev, port_num, 0,
				  dir, 0);
}

/* One entry's path, straight from the QP: the common case fills no caps. */
static inline bool rdma_rwx_single_sge(struct ib_qp *qp, u32 port_num,
				       enum dma_data_direction dir)
{
	return !__rdma_rwx_mr_need(rdma_rwx_force_mr, -1, qp->pd->device,
				   port_num, 0, dir, 1) &&
	       (dir == DMA_TO_DEVICE ? qp->max_write_sge :
				       rdma_rwx_max_read_sge(qp));
}

/* Pages ib_sg_to_pages() sets for a range that starts a page: at least 1. */
static inline u64 rdma_rwx_run_pages(u64 start, u64 len)
{
	u64 first = ALIGN_DOWN(start, PAGE_SIZE);

	return max_t(u64, 1, (start + len - first + PAGE_SIZE - 1) >> PAGE_SHIFT);
}

static inline u32 rdma_rwx_mr_budget(const struct rdma_rwx_caps *caps)
{
	return min_t(u32, caps->mr_pages, RDMA_RWX_MAX_MR_PAGES);
}

/* The SGE path's layout: also the fallback when the MR pool runs dry. */
static inline int rdma_rwx_layout_sge(const struct rdma_rwx_caps *caps,
				      enum dma_data_direction dir, u32 nents,
				      struct rdma_rwx_layout *layout)
{
	u32 max_sge = dir == DMA_TO_DEVICE ? caps->max_write_sge :
					     caps->max_read_sge;

	if (!nents || !max_sge)
		return -EINVAL;
	layout->path = RDMA_RWX_PATH_SGE;
	layout->sge_fallback = false;
	layout->per_op = max_sge;
	if (nents <= max_sge) {		/* the common case, no division */
		layout->nr_ops = 1;
		layout->last_op = nents;
	} else {
		layout->nr_ops = DIV_ROUND_UP(nents, max_sge);
		layout->last_op = nents - (layout->nr_ops - 1) * max_sge;
	}
	return 0;
}

/* rdma_rwx_sg_skip() without the call when the offset is in @pos->sg. */
static inline int rdma_rwx_skip(struct rdma_rwx_pos *pos)
{
	if (pos->nents && pos->offset < sg_dma_len(pos->sg))
		return 0;
	return rdma_rwx_sg_skip(pos);
}

#endif /* _RWX_INTERNAL_H */
