/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwx_rw.h: run an unmodified rdma_rw_* caller on the engine.
 *
 * Force-included into a ULP's sources (-include rdma/rwx_rw.h), it maps
 * every rdma_rw_* call a ULP makes - plain, signature and sizing - onto
 * the rdma_rwx_* function of the same contract, and imports the engine's
 * symbol namespace.  tools/build-ulps.sh builds the kernel's own
 * nvmet-rdma and ib_isert this way; Documentation/ulps.rst tells how.
 *
 * <rdma/rw.h> comes first, so its prototypes keep ib_core's names and the
 * ULP's own #include of it is a no-op.  rdma_rw_init_qp(),
 * rdma_rw_init_mrs() and rdma_rw_cleanup_mrs() are not mapped: ib_core
 * calls them from ib_create_qp() and ib_destroy_qp(), so the QP's send
 * queue and MR pools stay ib_core's, and the engine takes its MRs from
 * them.
 */
#ifndef _RDMA_RWX_RW_H
#define _RDMA_RWX_RW_H

#include <linux/module.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>

#define rdma_rw_ctx_init		rdma_rwx_ctx_init
#define rdma_rw_ctx_destroy		rdma_rwx_ctx_destroy
#define rdma_rw_ctx_init_bvec		rdma_rwx_ctx_init_bvec
#define rdma_rw_ctx_destroy_bvec	rdma_rwx_ctx_destroy_bvec
#define rdma_rw_ctx_wrs			rdma_rwx_ctx_wrs
#define rdma_rw_ctx_post		rdma_rwx_ctx_post
#define rdma_rw_ctx_signature_init	rdma_rwx_ctx_signature_init
#define rdma_rw_ctx_destroy_signature	rdma_rwx_ctx_destroy_signature
#define rdma_rw_mr_factor		rdma_rwx_mr_factor
#define rdma_rw_max_send_wr		rdma_rwx_max_send_wr

MODULE_IMPORT_NS(RDMA_RWX);

#endif /* _RDMA_RWX_RW_H */
