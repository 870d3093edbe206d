/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RDMA devices the KUnit suites run on: the two tools/guest/rdma-setup.sh
 * creates in the test guest (one RoCE, one iWARP), reached through the
 * RDMA CM, and instances of the test device (rwx_testdev) with the
 * capabilities no soft device has: SGE limits from 1, small page lists,
 * max_sgl_rd, iWARP with small MRs.  A suite connects its loopback
 * fixture with rwx_test_connect() and releases it with
 * rwx_test_disconnect().
 */
#ifndef _RWX_TEST_DEVS_H
#define _RWX_TEST_DEVS_H

#include <kunit/test.h>
#include <linux/err.h>
#include "rwx_loopback.h"
#include "rwx_testdev.h"

struct rwx_test_dev {
	const char *name;
	const char *addr;	/* IPv4 address of its netdev; NULL: ... */
	const struct rwx_testdev_caps *caps;	/* ... a test device */
};

static const struct rwx_test_dev rwx_test_devs[] = {
	{ .name = "rxe0", .addr = "192.0.2.1" },
	{ .name = "siw0", .addr = "192.0.2.2" },
};

static const struct rwx_test_dev rwx_test_tdevs[] = {
	{ .name = "tdev-sge1", .caps = &rwx_testdev_sge1 },
	{ .name = "tdev-sge3-rd2", .caps = &rwx_testdev_sge3_rd2 },
	{ .name = "tdev-sgl-rd4", .caps = &rwx_testdev_sgl_rd4 },
	{ .name = "tdev-iwarp", .caps = &rwx_testdev_iwarp },
	{ .name = "tdev-iwarp-pl8", .caps = &rwx_testdev_iwarp_pl8 },
};

static inline void rwx_test_dev_desc(const struct rwx_test_dev *dev,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", dev->name);
}

/* rwx_test_dev_gen_params(), for KUNIT_CASE_PARAM(): rxe0 and siw0 */
static const void *rwx_test_dev_gen_params(const void *prev, char *desc)
	__maybe_unused;
KUNIT_ARRAY_PARAM(rwx_test_dev, rwx_test_devs, rwx_test_dev_desc);
/* rwx_test_tdev_gen_params(): the test device capability sets */
static const void *rwx_test_tdev_gen_params(const void *prev, char *desc)
	__maybe_unused;
KUNIT_ARRAY_PARAM(rwx_test_tdev, rwx_test_tdevs, rwx_test_dev_desc);

/*
 * Connect @conn on @dev.  For a test device, a new instance is created
 * first (*@tdev, which rwx_test_disconnect() removes again); with
 * @virt_dma it maps as rxe does, for tests that map many lists and move
 * little.  Returns 0 or the failing step's error (conn->error_what names
 * it).
 */
static inline int rwx_test_connect(const struct rwx_test_dev *dev,
				   struct rwx_loopback *conn,
				   const struct rwx_loopback_params *params,
				   bool virt_dma, struct rwx_testdev **tdev)
{
	static atomic_t instance = ATOMIC_INIT(0);
	struct rwx_loopback_params p = *params;
	char name[IB_DEVICE_NAME_MAX];
	struct rwx_testdev_caps caps;

	*tdev = NULL;
	if (!dev->caps) {
		p.addr = dev->addr;
		return rwx_loopback_setup(conn, &p);
	}
	memset(conn, 0, sizeof(*conn));
	snprintf(name, sizeof(name), "rwxt%d", atomic_inc_return(&instance));
	caps = *dev->caps;
	caps.virt_dma |= virt_dma;
	*tdev = rwx_testdev_create(name, &caps);
	if (IS_ERR(*tdev)) {
		int ret = PTR_ERR(*tdev);

		*tdev = NULL;
		conn->error_what = "rwx_testdev_create";
		return ret;
	}
	return rwx_loopback_setup_direct(conn, &p, rwx_testdev_ibdev(*tdev),
					 rwx_testdev_connect);
}

/* The fixture first, then the test device instance: the ULP order. */
static inline void rwx_test_disconnect(struct rwx_loopback *conn,
				       struct rwx_testdev *tdev)
{
	rwx_loopback_teardown(conn);
	if (tdev)
		rwx_testdev_destroy(tdev);
}

/* The device name a connected fixture must be on (test devices: any). */
static inline bool rwx_test_on_dev(const struct rwx_test_dev *dev,
				   struct ib_device *device)
{
	return dev->caps || !strcmp(dev_name(&device->dev), dev->name);
}

#endif /* _RWX_TEST_DEVS_H */
