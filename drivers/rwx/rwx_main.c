// SPDX-License-Identifier: GPL-2.0-only
/* rdma_rwx module parameters and entry points. */

#include <linux/module.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"
#include "rwx_stats.h"

bool rdma_rwx_force_mr;
module_param_named(force_mr, rdma_rwx_force_mr, bool, 0444);
MODULE_PARM_DESC(force_mr,
		 "Register memory (MR path) for every RDMA READ/WRITE; the QP needs an MR pool (ib_core.force_mr=1 on RoCE/IB). Set too when ib_core's force_mr is");

static int __init rdma_rwx_init(void)
{
	int ret;

	rdma_rwx_bvec_setup();
	ret = rdma_rwx_buf_cache_init();
	if (ret)
		return ret;
	ret = rdma_rwx_stats_init();
	if (ret)
		rdma_rwx_buf_cache_exit();
	return ret;
}

static void __exit rdma_rwx_exit(void)
{
	rdma_rwx_stats_exit();
	rdma_rwx_buf_cache_exit();
}

module_init(rdma_rwx_init);
module_exit(rdma_rwx_exit);

MODULE_DESCRIPTION("RDMA READ/WRITE context engine for kernel ULPs");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_RWX_VERSION);
