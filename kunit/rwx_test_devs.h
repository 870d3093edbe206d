/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RDMA devices the KUnit suites run on, as tools/guest/rdma-setup.sh
 * creates them in the test guest: one RoCE, one iWARP.
 */
#ifndef _RWX_TEST_DEVS_H
#define _RWX_TEST_DEVS_H

#include <kunit/test.h>

struct rwx_test_dev {
	const char *name;
	const char *addr;	/* IPv4 address of its netdev */
};

static const struct rwx_test_dev rwx_test_devs[] = {
	{ .name = "rxe0", .addr = "192.0.2.1" },
	{ .name = "siw0", .addr = "192.0.2.2" },
};

static inline void rwx_test_dev_desc(const struct rwx_test_dev *dev,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", dev->name);
}

/* rwx_test_dev_gen_params(), for KUNIT_CASE_PARAM() */
KUNIT_ARRAY_PARAM(rwx_test_dev, rwx_test_devs, rwx_test_dev_desc);

#endif /* _RWX_TEST_DEVS_H */
