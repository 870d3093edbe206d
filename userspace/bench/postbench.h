/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * rwx_postbench: librdmacm's static inline rdma_post_write() and
 * rdma_post_send(), wrapped under names of their own in
 * postbench_inline.c (librdmarwx exports functions of the same names).
 * Same signatures as the originals.
 */
#ifndef POSTBENCH_H
#define POSTBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_cma.h>

int rdmacm_post_write(struct rdma_cm_id *id, void *context, void *addr,
		      size_t length, struct ibv_mr *mr, int flags,
		      uint64_t remote_addr, uint32_t rkey);
int rdmacm_post_send(struct rdma_cm_id *id, void *context, void *addr,
		     size_t length, struct ibv_mr *mr, int flags);

#endif
