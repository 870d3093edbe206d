// SPDX-License-Identifier: GPL-2.0-only
/*
 * Harness self-test: a module that loads fine but WARNs while doing so.
 * The harness must fail the run on the splat alone.
 */

#include <linux/bug.h>
#include <linux/module.h>

static int __init rwx_selftest_warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit rwx_selftest_warn_exit(void)
{
}

module_init(rwx_selftest_warn_init);
module_exit(rwx_selftest_warn_exit);

MODULE_DESCRIPTION("rdma-rwx harness self-test: a WARN_ON at load");
MODULE_LICENSE("GPL");
