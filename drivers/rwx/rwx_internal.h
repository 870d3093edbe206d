/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx internals shared between the module's files.
 */
#ifndef _RWX_INTERNAL_H
#define _RWX_INTERNAL_H

#include <rdma/rwx.h>

extern bool rdma_rwx_force_mr;

int rdma_rwx_layout_sge(const struct rdma_rwx_caps *caps,
			enum dma_data_direction dir, u32 nents,
			struct rdma_rwx_layout *layout);

#endif /* _RWX_INTERNAL_H */
