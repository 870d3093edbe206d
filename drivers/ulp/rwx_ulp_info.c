// SPDX-License-Identifier: GPL-2.0-only
/*
 * Linked into every kernel ULP that tools/build-ulps.sh builds on the
 * engine, so that modinfo tells it from the distribution's module of the
 * same name.
 */
#include <linux/module.h>
#include <rdma/rwx.h>

MODULE_INFO(rdma_rwx, "rdma_rw_* calls go through rdma_rwx " RDMA_RWX_VERSION);
