/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Internal interfaces of librdmarwx.  Not installed.  Symbols here use the
 * rwxi_ prefix and hidden visibility: the unit tests reach them through
 * the static archive, applications never see them.
 *
 * Validation helpers return 0 or a positive errno value (never -1/errno)
 * so that they are pure and trivially testable; the public functions turn
 * that into the -1/errno convention with rdma_seterrno().
 */
#ifndef RWX_INTERNAL_H
#define RWX_INTERNAL_H

#include <rdma/rwx_verbs.h>

/* What the checks need to know about a QP (or the SRQ it receives from). */
struct rwxi_caps {
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_sge_rd;	/* device's READ SGE limit, 0 if unknown */
};

/* --- pure validation (check.c) --- */
int rwxi_check_len(size_t len);
int rwxi_check_nsge(int nsge, int sgl_present, uint32_t max_sge);
int rwxi_check_range(uintptr_t addr, size_t len, uintptr_t mr_addr,
		     size_t mr_len);
int rwxi_check_buf(uintptr_t addr, size_t len, int have_mr,
		   uintptr_t mr_addr, size_t mr_len, int inline_ok);
int rwxi_check_atomic(uint64_t addr, size_t len, uint64_t remote_addr);
int rwxi_check_send_wr(const struct ibv_send_wr *wr, uint32_t max_sge);
int rwxi_check_timeout(int timeout_ms);
int rwxi_check_rw_qp(enum ibv_qp_type type, enum rwx_rw_dir dir);
uint32_t rwxi_rw_max_sge(const struct rwxi_caps *caps, enum rwx_rw_dir dir);

/* --- QP/SRQ capability lookup (caps.c) --- */
int rwxi_qp_caps(struct ibv_qp *qp, struct rwxi_caps *caps);
int rwxi_srq_max_sge(struct ibv_srq *srq, uint32_t *max_sge);
void rwxi_caps_seed(struct ibv_qp *qp, const struct rwxi_caps *caps);
void rwxi_caps_forget(struct ibv_qp *qp);
void rwxi_caps_seed_srq(struct ibv_srq *srq, uint32_t max_sge);

/* --- posting plumbing (post.c) --- */
int rwxi_id_ok(const struct rdma_cm_id *id);
int rwxi_post_send_wr(struct rdma_cm_id *id, struct ibv_send_wr *wr);
int rwxi_post_single(struct rdma_cm_id *id, struct ibv_send_wr *wr,
		     void *context, void *addr, size_t length,
		     const struct ibv_mr *mr, int flags, int inline_ok);
int rwxi_fill_sge(struct ibv_sge *sge, void *addr, size_t length,
		  const struct ibv_mr *mr, int flags, int inline_ok);

#endif
