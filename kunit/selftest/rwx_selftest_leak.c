// SPDX-License-Identifier: GPL-2.0-only
/*
 * Harness self-test: a module that leaks one allocation at load.  The
 * guest's kmemleak scans must report it and the harness fail the run on
 * the report alone.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

/* Where the pointer goes for a moment, so the allocation cannot be elided. */
static void *rwx_selftest_leaked;

static int __init rwx_selftest_leak_init(void)
{
	void *p = kmalloc(96, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 96);
	WRITE_ONCE(rwx_selftest_leaked, p);
	WRITE_ONCE(rwx_selftest_leaked, NULL);
	return 0;
}

static void __exit rwx_selftest_leak_exit(void)
{
}

module_init(rwx_selftest_leak_init);
module_exit(rwx_selftest_leak_exit);

MODULE_DESCRIPTION("rdma-rwx harness self-test: one allocation leaked at load");
MODULE_LICENSE("GPL");
