/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * librdmarwx: the rdma_verbs.h helpers of librdmacm as real, validating
 * functions, plus rwx_ extensions (immediate data, invalidate, atomics,
 * WR lists, batched and timed completion waits, an RDMA READ/WRITE
 * context).
 *
 * A program switches by replacing <rdma/rdma_verbs.h> with this header
 * and linking -lrdmarwx.  Same names, signatures and convention (0 or a
 * count on success, -1 with errno on failure); what differs is that bad
 * caller input yields -1/EINVAL instead of an assert, a crash or silent
 * truncation.  See librdmarwx(3) and README.md for the full list.
 *
 * This header must not be combined with <rdma/rdma_verbs.h>: that one
 * defines the same names as static inline functions.
 */
#ifndef RWX_VERBS_H
#define RWX_VERBS_H

#ifdef RDMA_VERBS_H
#error "<rdma/rwx_verbs.h> replaces <rdma/rdma_verbs.h>; include only one"
#endif

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(RWX_BUILDING_LIBRARY) && defined(__GNUC__)
#define RWX_API __attribute__((visibility("default")))
#else
#define RWX_API
#endif

#define RWX_VERSION_STRING "0.1"

/*
 * Same as librdmacm's: map a verbs return code to 0 or -1/errno.  Its
 * real name is the message a program gets when it includes
 * <rdma/rdma_verbs.h> after this header: that one's rdma_seterrno() then
 * redefines this function (the other order stops at the #error above).
 */
#define rdma_seterrno rwx_verbs_h_replaces_rdma_verbs_h__include_only_one
static inline int rdma_seterrno(int ret)
{
	if (ret) {
		errno = ret;
		ret = -1;
	}
	return ret;
}

/* Shared receive queues: provided by librdmacm itself (real functions). */
int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr);
int rdma_create_srq_ex(struct rdma_cm_id *id,
		       struct ibv_srq_init_attr_ex *attr);
void rdma_destroy_srq(struct rdma_cm_id *id);

/* Memory registration (NULL with errno on failure). */
RWX_API struct ibv_mr *rdma_reg_msgs(struct rdma_cm_id *id, void *addr,
				     size_t length);
RWX_API struct ibv_mr *rdma_reg_read(struct rdma_cm_id *id, void *addr,
				     size_t length);
RWX_API struct ibv_mr *rdma_reg_write(struct rdma_cm_id *id, void *addr,
				      size_t length);
RWX_API int rdma_dereg_mr(struct ibv_mr *mr);

/* Vectored operations. */
RWX_API int rdma_post_recvv(struct rdma_cm_id *id, void *context,
			    struct ibv_sge *sgl, int nsge);
RWX_API int rdma_post_sendv(struct rdma_cm_id *id, void *context,
			    struct ibv_sge *sgl, int nsge, int flags);
RWX_API int rdma_post_readv(struct rdma_cm_id *id, void *context,
			    struct ibv_sge *sgl, int nsge, int flags,
			    uint64_t remote_addr, uint32_t rkey);
RWX_API int rdma_post_writev(struct rdma_cm_id *id, void *context,
			     struct ibv_sge *sgl, int nsge, int flags,
			     uint64_t remote_addr, uint32_t rkey);

/* Single-buffer operations. */
RWX_API int rdma_post_recv(struct rdma_cm_id *id, void *context, void *addr,
			   size_t length, struct ibv_mr *mr);
RWX_API int rdma_post_send(struct rdma_cm_id *id, void *context, void *addr,
			   size_t length, struct ibv_mr *mr, int flags);
RWX_API int rdma_post_read(struct rdma_cm_id *id, void *context, void *addr,
			   size_t length, struct ibv_mr *mr, int flags,
			   uint64_t remote_addr, uint32_t rkey);
RWX_API int rdma_post_write(struct rdma_cm_id *id, void *context, void *addr,
			    size_t length, struct ibv_mr *mr, int flags,
			    uint64_t remote_addr, uint32_t rkey);
RWX_API int rdma_post_ud_send(struct rdma_cm_id *id, void *context,
			      void *addr, size_t length, struct ibv_mr *mr,
			      int flags, struct ibv_ah *ah,
			      uint32_t remote_qpn);

/* Blocking completion retrieval (ids with librdmacm-created CQs only). */
RWX_API int rdma_get_send_comp(struct rdma_cm_id *id, struct ibv_wc *wc);
RWX_API int rdma_get_recv_comp(struct rdma_cm_id *id, struct ibv_wc *wc);

/* ---- rwx_ extensions ---------------------------------------------- */

/* Which of an id's completion queues an rwx_ completion call uses. */
enum rwx_cq_sel {
	RWX_SEND_CQ = 0,
	RWX_RECV_CQ = 1,
};

/*
 * rdma_create_qp() asking for the ibv_wr_* builders of what the library
 * posts on the QP's type: its single-WR posts then go through
 * ibv_wr_start()/ibv_wr_complete() (any QP made with
 * IBV_QP_INIT_ATTR_SEND_OPS_FLAGS does).  Where the provider has none, a
 * QP as rdma_create_qp() makes it.  Same arguments and returns.
 */
RWX_API int rwx_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			  struct ibv_qp_init_attr *qp_init_attr);

/* imm_data is passed through as in struct ibv_send_wr: network order. */
RWX_API int rwx_post_send_imm(struct rdma_cm_id *id, void *context,
			      void *addr, size_t length, struct ibv_mr *mr,
			      int flags, __be32 imm_data);
RWX_API int rwx_post_write_imm(struct rdma_cm_id *id, void *context,
			       void *addr, size_t length, struct ibv_mr *mr,
			       int flags, uint64_t remote_addr, uint32_t rkey,
			       __be32 imm_data);
RWX_API int rwx_post_send_inv(struct rdma_cm_id *id, void *context,
			      void *addr, size_t length, struct ibv_mr *mr,
			      int flags, uint32_t invalidate_rkey);
/* UD sends to @remote_qkey (rdma_post_ud_send: rdma_cm's RDMA_UDP_QKEY). */
RWX_API int rwx_post_ud_send_qkey(struct rdma_cm_id *id, void *context,
				  void *addr, size_t length,
				  struct ibv_mr *mr, int flags,
				  struct ibv_ah *ah, uint32_t remote_qpn,
				  uint32_t remote_qkey);
RWX_API int rwx_post_ud_send_imm(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey,
				 __be32 imm_data);
RWX_API int rwx_post_atomic_fadd(struct rdma_cm_id *id, void *context,
				 void *addr, size_t length, struct ibv_mr *mr,
				 int flags, uint64_t remote_addr,
				 uint32_t rkey, uint64_t add);
RWX_API int rwx_post_atomic_cswap(struct rdma_cm_id *id, void *context,
				  void *addr, size_t length,
				  struct ibv_mr *mr, int flags,
				  uint64_t remote_addr, uint32_t rkey,
				  uint64_t compare, uint64_t swap);
RWX_API int rwx_post_list(struct rdma_cm_id *id, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr);
RWX_API int rwx_post_recv_list(struct rdma_cm_id *id,
			       struct ibv_recv_wr *wr,
			       struct ibv_recv_wr **bad_wr);

RWX_API int rwx_get_comps(struct rdma_cm_id *id, enum rwx_cq_sel which,
			  struct ibv_wc *wc, int nwc);
RWX_API int rwx_wait_comp(struct rdma_cm_id *id, enum rwx_cq_sel which,
			  struct ibv_wc *wc, int nwc, int timeout_ms);
RWX_API int rwx_comp_fd(struct rdma_cm_id *id, enum rwx_cq_sel which);

/* ---- RDMA READ/WRITE context --------------------------------------- */

enum rwx_rw_dir {
	RWX_RW_READ,	/* remote -> local iov */
	RWX_RW_WRITE,	/* local iov -> remote */
};

/*
 * The caller allocates these; their reserved space lets later versions
 * add fields without a new SONAME.  comp_mask says which of those a call
 * filled in (none yet: 0).
 */

/* One WR of a layout: which SGEs it carries and where it lands remotely. */
struct rwx_rw_span {
	uint32_t first_sge;
	uint32_t nsge;
	uint64_t remote_off;	/* offset from the context's remote_addr */
	uint64_t bytes;
	uint32_t comp_mask;
	uint32_t reserved;
};

struct rwx_rw_ctx {
	struct ibv_qp *qp;
	struct ibv_send_wr *wrs;	/* nr_wrs WRs linked in order */
	struct ibv_sge *sges;
	int nr_wrs;
	int nr_sges;
	uint64_t total_bytes;
	uint64_t comp_mask;
	uint64_t reserved[4];
};

RWX_API int rwx_rw_layout(uint32_t max_sge, uint32_t nents,
			  const uint64_t *lens, struct rwx_rw_span *spans,
			  uint32_t max_spans);
RWX_API int rwx_rw_ctx_init(struct rwx_rw_ctx *ctx, struct ibv_qp *qp,
			    const struct iovec *iov, int iovcnt,
			    struct ibv_mr **mrs, int nmrs,
			    uint64_t remote_addr, uint32_t rkey,
			    enum rwx_rw_dir dir);
RWX_API int rwx_rw_ctx_post(struct rwx_rw_ctx *ctx, uint64_t wr_id,
			    struct ibv_send_wr *chain_wr,
			    struct ibv_send_wr **bad_wr);
RWX_API void rwx_rw_ctx_destroy(struct rwx_rw_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RWX_VERBS_H */
