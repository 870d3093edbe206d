// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx: an RDMA READ/WRITE context engine for kernel ULPs.
 *
 * Module entry points.  The engine itself lives in the other files of
 * this directory.
 */

#include <linux/module.h>
#include <rdma/rwx.h>

static int __init rdma_rwx_init(void)
{
	return 0;
}

static void __exit rdma_rwx_exit(void)
{
}

module_init(rdma_rwx_init);
module_exit(rdma_rwx_exit);

MODULE_DESCRIPTION("RDMA READ/WRITE context engine for kernel ULPs");
MODULE_LICENSE("GPL");
MODULE_VERSION(RDMA_RWX_VERSION);
