// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sizing helpers: how many MRs and send WRs a ULP's contexts need, so it
 * can size its QP and CQs before creating them.
 */

#include <linux/overflow.h>
#include <rdma/ib_verbs.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"

/* Whether contexts on this port may take the MR path at all. */
static bool rdma_rwx_may_use_mr(struct ib_device *dev, u32 port_num)
{
	return rdma_rwx_force_mr || rdma_protocol_iwarp(dev, port_num) ||
	       dev->attrs.max_sgl_rd;
}

/**
 * rdma_rwx_qp_mr_factor() - MRs (or WRs) one context needs, per QP kind
 * @device: device handling the connection
 * @port_num: port the connection is bound to
 * @maxpages: payload pages one context moves at most
 * @create_flags: the QP's create flags (%IB_QP_CREATE_INTEGRITY_EN counts)
 *
 * As rdma_rwx_mr_factor(), for the QP the ULP will create: where
 * contexts may take the MR path, the MRs of a QP with integrity enabled
 * (its plain pool and its signature pool alike) map the device's
 * max_pi_fast_reg_page_list_len pages, which may be fewer than other MRs
 * map.  A signature context always needs one MR.
 *
 * Return: the number of MRs (on the MR path) or READ WRs (on the SGE
 * path) needed to move @maxpages pages.
 */
unsigned int rdma_rwx_qp_mr_factor(struct ib_device *device, u32 port_num,
				   unsigned int maxpages, u32 create_flags)
{
	u32 per_mr;

	if (!rdma_rwx_may_use_mr(device, port_num))
		per_mr = device->attrs.max_sge_rd;
	else if (create_flags & IB_QP_CREATE_INTEGRITY_EN)
		per_mr = min_t(u32, device->attrs.max_pi_fast_reg_page_list_len,
			       RDMA_RWX_MAX_MR_PAGES);
	else
		per_mr = min_t(u32, device->attrs.max_fast_reg_page_list_len,
			       RDMA_RWX_MAX_MR_PAGES);
	per_mr = max_t(u32, per_mr, 1);
	/* Rounded up without DIV_ROUND_UP, which overflows near UINT_MAX. */
	return maxpages / per_mr + !!(maxpages % per_mr);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_qp_mr_factor, RDMA_RWX);

/**
 * rdma_rwx_mr_factor() - MRs (or WRs) one context needs for a payload
 * @device: device handling the connection
 * @port_num: port the connection is bound to
 * @maxpages: payload pages one context moves at most
 *
 * ULPs multiply their context count by this to size max_rdma_ctxs and
 * their send queues.  A device that reports a zero page or SGE limit is
 * counted as one page per MR, never divided by; unlike ib_core's, the
 * result is right up to UINT_MAX pages.  For a QP with integrity enabled
 * use rdma_rwx_qp_mr_factor().
 *
 * Return: the number of MRs (on the MR path) or READ WRs (on the SGE
 * path) needed to move @maxpages pages.
 */
unsigned int rdma_rwx_mr_factor(struct ib_device *device, u32 port_num,
				unsigned int maxpages)
{
	return rdma_rwx_qp_mr_factor(device, port_num, maxpages, 0);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_mr_factor, RDMA_RWX);

/* WRs one context posts at most per READ/WRITE: + REG_MR + LOCAL_INV. */
static unsigned int rdma_rwx_wrs_per_op(struct ib_device *dev, u32 port_num,
					u32 create_flags)
{
	if ((create_flags & IB_QP_CREATE_INTEGRITY_EN) ||
	    rdma_rwx_may_use_mr(dev, port_num))
		return 3;
	return 1;
}

/**
 * rdma_rwx_max_send_wr() - send queue entries needed for RW contexts
 * @device: RDMA device
 * @port_num: port the connection is bound to
 * @max_rdma_ctxs: number of contexts in flight at once
 * @create_flags: QP create flags (IB_QP_CREATE_INTEGRITY_EN counts)
 *
 * Return: the send queue entries @max_rdma_ctxs contexts need, counting
 * REG_MR and LOCAL_INV WRs where the device uses MRs; UINT_MAX when the
 * product overflows.
 */
unsigned int rdma_rwx_max_send_wr(struct ib_device *device, u32 port_num,
				  unsigned int max_rdma_ctxs, u32 create_flags)
{
	unsigned int total;

	if (check_mul_overflow(rdma_rwx_wrs_per_op(device, port_num,
						   create_flags),
			       max_rdma_ctxs, &total))
		return UINT_MAX;
	return total;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_max_send_wr, RDMA_RWX);

/**
 * rdma_rwx_init_qp_attr() - check and complete a ULP's QP attributes
 * @device: device the QP will be created on
 * @port_num: port the connection is bound to
 * @attr: the ULP's attributes: cap.max_send_wr holds the ULP's own send
 *	WRs and cap.max_rdma_ctxs its contexts in flight
 *
 * Sets @attr->port_num and clamps cap.max_send_sge to the device.
 * ib_create_qp() then adds the contexts' WRs to cap.max_send_wr and
 * silently clamps the sum to the device's limit; this helper instead
 * tells the ULP up front whether the send queue it needs exists.
 *
 * Return: the send queue depth ib_create_qp() will give the QP (for
 * sizing the send CQ); -EINVAL for a NULL @device or @attr or an invalid
 * @port_num; -EOPNOTSUPP when @attr asks for %IB_QP_CREATE_INTEGRITY_EN on
 * a device without integrity handover; -EOVERFLOW when the depth does not fit in 32 bits; -ERANGE
 * when it exceeds the device's max_qp_wr.
 */
int rdma_rwx_init_qp_attr(struct ib_device *device, u32 port_num,
			  struct ib_qp_init_attr *attr)
{
	unsigned int ctx_wrs;
	u32 depth;

	if (!device || !attr || !rdma_rwx_port_valid(device, port_num))
		return -EINVAL;
	if ((attr->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    !(device->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return -EOPNOTSUPP;

	ctx_wrs = rdma_rwx_max_send_wr(device, port_num,
				       attr->cap.max_rdma_ctxs,
				       attr->create_flags);
	if (ctx_wrs == UINT_MAX ||
	    check_add_overflow(attr->cap.max_send_wr, ctx_wrs, &depth))
		return -EOVERFLOW;
	if (depth > (u32)device->attrs.max_qp_wr)
		return -ERANGE;

	attr->port_num = port_num;
	attr->cap.max_send_sge = min_t(u32, attr->cap.max_send_sge,
				       device->attrs.max_send_sge);
	return depth;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_init_qp_attr, RDMA_RWX);
