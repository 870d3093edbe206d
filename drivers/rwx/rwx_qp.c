// SPDX-License-Identifier: GPL-2.0-only
/* Sizing helpers: the MRs and send WRs a ULP's contexts need. */

#include <linux/overflow.h>
#include <rdma/ib_verbs.h>
#include <rdma/rwx.h>
#include "rwx_internal.h"

/* Whether any context on the port may take the MR path: the largest READ. */
static bool rdma_rwx_may_use_mr(struct ib_device *dev, u32 port_num)
{
	return __rdma_rwx_mr_need(rdma_rwx_force_mr, -1, dev, port_num,
				  dev->attrs.max_sgl_rd, DMA_FROM_DEVICE,
				  U32_MAX);
}

/**
 * rdma_rwx_qp_mr_factor() - MRs (or WRs) one context needs, per QP kind
 * @device: device handling the connection
 * @port_num: port the connection is bound to
 * @maxpages: payload pages one context moves at most
 * @create_flags: the QP's create flags (%IB_QP_CREATE_INTEGRITY_EN counts)
 *
 * As rdma_rwx_mr_factor(); both MR pools of a QP with integrity map only
 * max_pi_fast_reg_page_list_len pages.  A signature context needs one MR.
 *
 * Return: MRs (MR path) or READ WRs (SGE path) to move @maxpages pages.
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
 * A zero device limit counts as 1; right up to UINT_MAX pages, unlike
 * ib_core's.  For a QP with integrity see rdma_rwx_qp_mr_factor().
 *
 * Return: MRs (MR path) or READ WRs (SGE path) to move @maxpages pages.
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
 * Return: the send queue entries the contexts need, REG_MR and LOCAL_INV
 * included where MRs may be used; UINT_MAX on overflow.
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
 * Sets @attr->port_num and clamps cap.max_send_sge.  ib_create_qp() adds
 * the contexts' WRs to cap.max_send_wr and silently clamps the sum.
 *
 * Return: the send queue depth ib_create_qp() will give the QP; -EINVAL
 * for a NULL pointer or an invalid @port_num; -EOPNOTSUPP for integrity
 * on a device without integrity handover; -EOVERFLOW when the depth does
 * not fit in 32 bits; -ERANGE when it exceeds the device's max_qp_wr.
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
