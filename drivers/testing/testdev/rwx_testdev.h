/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwx_testdev: a software RDMA device for the engine's tests only, never
 * part of the product module.  A test creates an instance with the
 * capabilities it wants (SGE limits, max_sge_rd, max_sgl_rd, page-list
 * lengths, iWARP or InfiniBand transport, integrity handover), connects
 * two RC QPs on it by naming each other, lets the engine post to them,
 * and removes the instance again.  The device executes what is posted
 * against memory, checks keys and access rights the way hardware does
 * (a bad WR completes with an error status and moves its QP to the error
 * state), does the T10-DIF work of an integrity MR, records every posted
 * WR, and fails on request.  Exported in the RWX_TESTDEV namespace by
 * rwx_testdev.ko.
 */
#ifndef _RWX_TESTDEV_H
#define _RWX_TESTDEV_H

#include <rdma/ib_verbs.h>

/**
 * struct rwx_testdev_caps - what an instance offers
 * @iwarp: iWARP port (RDMA READ sinks must be MRs with REMOTE_WRITE
 *	access; READ with invalidate); else InfiniBand
 * @roce: a RoCE v2 port on the instance's net device instead, with a GSI
 *	QP and address handles, so that ib_cm and rdma_cm connect over it
 *	(both ends on the instance: see rwx_testdev_roce.c)
 * @integrity: integrity handover (IBK_INTEGRITY_HANDOVER): integrity MRs,
 *	IB_QP_CREATE_INTEGRITY_EN QPs, REG_MR_INTEGRITY
 * @max_send_sge: SGEs per send queue WR (RDMA WRITE, SEND)
 * @max_recv_sge: SGEs per receive WR
 * @max_sge_rd: SGEs per RDMA READ WR
 * @max_sgl_rd: attrs.max_sgl_rd (0: no preference for MRs)
 * @max_fast_reg_page_list_len: pages per fast-registration MR
 * @max_pi_fast_reg_page_list_len: pages per integrity MR (data and
 *	protection each)
 * @max_qp_wr: WRs per queue
 * @max_mr: MRs the instance holds at once, DMA MRs included
 * @virt_dma: map as rxe and siw do (ib_dma_map_sg() gives kernel virtual
 *	addresses, no DMA API), for tests that map many lists and move
 *	little; otherwise mappings are real dma-direct ones
 * @dma_merge: with real mappings, physically contiguous entries of a
 *	scatterlist map to one DMA segment, as behind an IOMMU
 */
struct rwx_testdev_caps {
	bool iwarp;
	bool roce;
	bool integrity;
	bool virt_dma;
	bool dma_merge;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_sge_rd;
	u32 max_sgl_rd;
	u32 max_fast_reg_page_list_len;
	u32 max_pi_fast_reg_page_list_len;
	u32 max_qp_wr;
	u32 max_mr;
};

struct rwx_testdev;

/*
 * Named capability sets, each reaching paths the others do not (the
 * KUnit suites' test devices, and those rwx_testdev's debugfs creates):
 * one SGE; three send and two READ SGEs; max_sgl_rd 4; iWARP with one
 * READ SGE; iWARP with eight-page MRs; integrity handover with mlx5's
 * limits.
 */
static const struct rwx_testdev_caps rwx_testdev_sge1 __maybe_unused = {
	.max_send_sge = 1, .max_sge_rd = 1, .max_fast_reg_page_list_len = 256,
};

static const struct rwx_testdev_caps rwx_testdev_sge3_rd2 __maybe_unused = {
	.max_send_sge = 3, .max_sge_rd = 2, .max_fast_reg_page_list_len = 64,
};

static const struct rwx_testdev_caps rwx_testdev_sgl_rd4 __maybe_unused = {
	.max_send_sge = 32, .max_sge_rd = 30, .max_sgl_rd = 4,
	.max_fast_reg_page_list_len = 32,
};

static const struct rwx_testdev_caps rwx_testdev_iwarp __maybe_unused = {
	.iwarp = true, .max_send_sge = 16, .max_sge_rd = 1,
	.max_fast_reg_page_list_len = 64,
};

static const struct rwx_testdev_caps rwx_testdev_iwarp_pl8 __maybe_unused = {
	.iwarp = true, .max_send_sge = 2, .max_sge_rd = 2,
	.max_fast_reg_page_list_len = 8,
};

/*
 * mlx5_ib_query_device(): 30 SGEs (a 512-byte WQE), 2^16 pages a KLM
 * list (log_max_klm_list_size on ConnectX-4 and later), half that for an
 * integrity MR.  ULPs cap their MRs at 256 pages (rw.c, nvme-rdma).
 * MRs: mlx5 has millions; an nvmet-rdma queue with PI takes 2304 (a
 * context per 30 pages of a 1 MiB I/O, 128 deep, each with an integrity
 * MR and an MR), so 2^16 here.
 */
static const struct rwx_testdev_caps rwx_testdev_mlx5_pi __maybe_unused = {
	.integrity = true, .max_send_sge = 30, .max_recv_sge = 30,
	.max_sge_rd = 30, .max_fast_reg_page_list_len = 1 << 16,
	.max_pi_fast_reg_page_list_len = 1 << 15, .max_mr = 1 << 16,
};

/*
 * A new registered instance named @name (unique, e.g. "rwxt%d"); ERR_PTR
 * on failure.  Its DMA device is a platform device with a 64-bit mask,
 * so ib_dma_map_sg() is a real dma-direct mapping that DMA-API debug
 * checks (unless @caps->virt_dma); the device reaches memory through the
 * mapped addresses.
 */
struct rwx_testdev *rwx_testdev_create(const char *name,
				       const struct rwx_testdev_caps *caps);
/* Unregisters and frees it; every PD, CQ, QP and MR must be gone. */
void rwx_testdev_destroy(struct rwx_testdev *tdev);
struct ib_device *rwx_testdev_ibdev(struct rwx_testdev *tdev);
/* The instance behind an ib_device of this driver, or NULL. */
struct rwx_testdev *rwx_testdev_from_ibdev(struct ib_device *ibdev);

/*
 * An RC QP on @pd's instance through ib_create_qp() (port 1, completions
 * on @cq, signaled by request); with IB_QP_CREATE_INTEGRITY_EN in
 * @create_flags an integrity QP, whose @cap->max_rdma_ctxs contexts
 * ib_core gives integrity MRs.  ERR_PTR on failure.
 */
struct ib_qp *rwx_testdev_create_qp(struct ib_pd *pd, struct ib_cq *cq,
				    u32 create_flags,
				    const struct ib_qp_cap *cap);
/* Moves two RC QPs of one instance through INIT, RTR, RTS, peered. */
int rwx_testdev_connect(struct ib_qp *a, struct ib_qp *b);

/* Waits until every WR posted so far on the instance has executed. */
void rwx_testdev_flush(struct rwx_testdev *tdev);

/* Objects alive on the instance, for leak checks. */
struct rwx_testdev_counts {
	u32 pds, cqs, qps, mrs;		/* mrs: every kind, DMA MRs included */
	u32 ahs;
	u32 valid_mrs;			/* fast-reg/integrity MRs holding a valid key */
};

void rwx_testdev_counts(struct rwx_testdev *tdev,
			struct rwx_testdev_counts *counts);

/**
 * enum rwx_testdev_fault - failures a test can ask for
 * @RWX_TESTDEV_FAULT_POST_SEND: ib_post_send() fails with -ENOMEM at
 *	the nth WR posted from now (counted over every post_send call);
 *	*bad_wr names it and the WRs before it in that call are posted
 * @RWX_TESTDEV_FAULT_ALLOC_MR: the nth alloc_mr or alloc_mr_integrity
 *	returns -ENOMEM
 * @RWX_TESTDEV_FAULT_MAP_SHORT: the nth map_mr_sg maps one entry fewer
 *	than asked (map_mr_sg_pi: returns -ENOMEM, as mlx5 does)
 * @RWX_TESTDEV_FAULT_MAP_FAIL: the nth map_mr_sg or map_mr_sg_pi
 *	returns -EINVAL
 * @RWX_TESTDEV_FAULT_WR_ERROR: the nth WR executed from now completes
 *	with IB_WC_GENERAL_ERR (signaled or not), its QP goes to the error
 *	state and every later WR of that QP is flushed
 *	(IB_WC_WR_FLUSH_ERR)
 * @RWX_TESTDEV_FAULT_MAP_NOMEM: the nth map_mr_sg or map_mr_sg_pi
 *	returns -ENOMEM
 * @RWX_TESTDEV_FAULT_PI_WIRE: the nth wire image with PI moved through
 *	an integrity MR from now has its first interval's guard damaged on
 *	the wire: the receiving integrity MR's check reports it
 * @RWX_TESTDEV_NR_FAULTS: the number of faults
 */
enum rwx_testdev_fault {
	RWX_TESTDEV_FAULT_POST_SEND,
	RWX_TESTDEV_FAULT_ALLOC_MR,
	RWX_TESTDEV_FAULT_MAP_SHORT,
	RWX_TESTDEV_FAULT_MAP_FAIL,
	RWX_TESTDEV_FAULT_WR_ERROR,
	RWX_TESTDEV_FAULT_MAP_NOMEM,
	RWX_TESTDEV_FAULT_PI_WIRE,
	RWX_TESTDEV_NR_FAULTS
};

/*
 * Arms @fault to fire once, at its @nth event from now (1: the next);
 * 0 disarms it.
 */
void rwx_testdev_inject(struct rwx_testdev *tdev, enum rwx_testdev_fault fault,
			u32 nth);
/*
 * The same, counting only events in the PDs of the module named @owner
 * (their restrack kern_name; NULL: every event); -EINVAL for pi_wire
 * with an owner, or a name longer than a module's.
 */
int rwx_testdev_inject_owned(struct rwx_testdev *tdev,
			     enum rwx_testdev_fault fault, u32 nth,
			     const char *owner);
/* Whether @fault fired since it was last armed. */
bool rwx_testdev_fault_fired(struct rwx_testdev *tdev,
			     enum rwx_testdev_fault fault);

#define RWX_TESTDEV_REC_SGES	16

/**
 * struct rwx_testdev_wr_rec - one posted send WR, as the device saw it
 * @qp_num: the QP it was posted on
 * @opcode: the WR's opcode
 * @send_flags: its send flags
 * @wr_id: its wr_id
 * @num_sge: its SGE count
 * @sge: its first RWX_TESTDEV_REC_SGES SGEs
 * @remote_addr: RDMA WRs: remote address
 * @rkey: RDMA WRs: remote key
 * @invalidate_rkey: LOCAL_INV, SEND_WITH_INV, READ_WITH_INV: the key
 * @reg_mr: REG_MR, REG_MR_INTEGRITY: the MR
 * @reg_key: REG_MR, REG_MR_INTEGRITY: the key to register
 * @reg_access: REG_MR, REG_MR_INTEGRITY: the access flags
 * @reg_iova: REG_MR, REG_MR_INTEGRITY: the MR's iova when posted
 * @reg_length: REG_MR, REG_MR_INTEGRITY: the MR's length when posted
 * @sig_attrs: REG_MR_INTEGRITY: the MR's signature attributes when posted
 */
struct rwx_testdev_wr_rec {
	u32 qp_num;
	enum ib_wr_opcode opcode;
	int send_flags;
	u64 wr_id;
	int num_sge;
	struct ib_sge sge[RWX_TESTDEV_REC_SGES];
	u64 remote_addr;
	u32 rkey;
	u32 invalidate_rkey;
	struct ib_mr *reg_mr;
	u32 reg_key;
	int reg_access;
	u64 reg_iova;
	u64 reg_length;
	struct ib_sig_attrs sig_attrs;
};

/*
 * Recording: off when an instance is created.  Starting it drops what
 * was recorded; the device keeps the first RWX_TESTDEV_REC_MAX WRs posted
 * after it (later ones are counted, not kept).
 */
#define RWX_TESTDEV_REC_MAX	4096
void rwx_testdev_record_start(struct rwx_testdev *tdev);
/*
 * Stops recording and returns the number of WRs posted while it ran;
 * copies the first min(that, @max) of them to @recs (which may be NULL
 * when @max is 0).
 */
u32 rwx_testdev_record_stop(struct rwx_testdev *tdev,
			    struct rwx_testdev_wr_rec *recs, u32 max);

#endif /* _RWX_TESTDEV_H */
