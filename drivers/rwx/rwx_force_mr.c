// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_core's force_mr, followed: ib_core makes the QPs' MR pools by it, and
 * its parameter has no sysfs file, so a probe QP asks ib_core.
 */

#include <linux/device.h>
#include <linux/printk.h>
#include <rdma/ib_verbs.h>
#include "rwx_internal.h"

/*
 * ib_core's force_mr, which has no sysfs file: -1 until a device has
 * answered rdma_rwx_probe_ibcore_force_mr(), else 0 or 1.  It is set when
 * ib_core loads, and ib_core outlives this module.
 */
static int rdma_rwx_ibcore_force_mr = -1;

/**
 * rdma_rwx_probe_ibcore_force_mr() - whether ib_core gives QPs an MR pool
 * @dev: the device
 * @port_num: the port the probe QP is for
 *
 * Creates a PD, a CQ and an RC QP that asks for one RW context, looks at
 * its MR pool and destroys them.  On a RoCE/IB device without max_sgl_rd
 * ib_create_qp() makes the pool only for ib_core's force_mr
 * (rdma_rw_init_mrs()).  Exported for the KUnit suites (namespace
 * RDMA_RWX_TESTING).
 *
 * Return: 1 (a pool) or 0, or the errno of the verb that failed, with
 * nothing left behind.
 */
int rdma_rwx_probe_ibcore_force_mr(struct ib_device *dev, u32 port_num)
{
	struct ib_qp_init_attr attr = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = port_num,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_rdma_ctxs = 1 },
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int ret;

	pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	cq = ib_alloc_cq(dev, NULL, 2, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto out_pd;
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;
	qp = ib_create_qp(pd, &attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto out_cq;
	}
	ret = !list_empty(&qp->rdma_mrs);
	ib_destroy_qp(qp);
out_cq:
	ib_free_cq(cq);
out_pd:
	ib_dealloc_pd(pd);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_probe_ibcore_force_mr, RDMA_RWX_TESTING);

/**
 * rdma_rwx_follow_ibcore_force_mr() - take ib_core's force_mr as the engine's
 * @dev: a device just added
 *
 * ib_core makes the QPs' MR pools (rdma_rw_init_mrs()) by its own
 * force_mr, and contexts must use them as ib_core would: the engine's MR
 * rule (__rdma_rwx_mr_need()) counts the engine's force_mr.  A probe QP on
 * the first RoCE/IB device without max_sgl_rd tells ib_core's; when it is
 * set, so is the engine's.  On iWARP and max_sgl_rd devices every QP has a
 * pool, so they cannot tell.  The engine's force_mr set alone leaves such
 * devices' QPs without a pool, where MR contexts fail with -ENOSPC: warned
 * once.
 */
void rdma_rwx_follow_ibcore_force_mr(struct ib_device *dev)
{
	u32 port_num = rdma_start_port(dev);
	int forced;

	/* No kverbs_provider test: ib_core adds no such device to a client. */
	if (READ_ONCE(rdma_rwx_ibcore_force_mr) >= 0 ||
	    rdma_cap_ib_switch(dev) || rdma_protocol_iwarp(dev, port_num) ||
	    dev->attrs.max_sgl_rd)
		return;
	forced = rdma_rwx_probe_ibcore_force_mr(dev, port_num);
	if (forced < 0) {
		dev_warn(&dev->dev, "rdma_rwx: cannot tell ib_core's force_mr (probe QP: %d)\n",
			 forced);
		return;
	}
	WRITE_ONCE(rdma_rwx_ibcore_force_mr, forced);
	if (forced)
		WRITE_ONCE(rdma_rwx_force_mr, true);
	else if (READ_ONCE(rdma_rwx_force_mr))
		pr_warn_once("rdma_rwx: force_mr is set and ib_core's is not: RoCE/IB QPs have no MR pool, their contexts fail with -ENOSPC\n");
}

/**
 * rdma_rwx_ibcore_forces_mr() - ib_core's force_mr as the engine has seen it
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING).
 *
 * Return: 1 or 0; -1 when no device has told it yet.
 */
int rdma_rwx_ibcore_forces_mr(void)
{
	return READ_ONCE(rdma_rwx_ibcore_force_mr);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_ibcore_forces_mr, RDMA_RWX_TESTING);
