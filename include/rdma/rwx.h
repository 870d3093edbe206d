/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx: an RDMA READ/WRITE context engine for kernel ULPs.
 */
#ifndef _RDMA_RWX_H
#define _RDMA_RWX_H

#define RDMA_RWX_VERSION "0.1"

#endif /* _RDMA_RWX_H */
