// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: a software RDMA device for the engine's KUnit tests.
 *
 * An instance is an ib_device with one port (InfiniBand transport, or
 * iWARP with an Ethernet link layer) whose DMA device is a platform
 * device of this module with a 64-bit mask: ib_dma_map_sg() is plain
 * dma-direct, tracked by DMA-API debug, and the device reaches memory at
 * phys_to_virt() of the DMA addresses it is given.  An address that is not
 * in the kernel's linear map fails the WR with a protection error.
 *
 * Objects: PDs, CQs (a ring of completions), RC QPs (peered by
 * rwx_testdev_connect(), no CM), MRs: DMA MRs (all memory by DMA address),
 * fast-registration MRs and, with caps.integrity, integrity MRs.  A key is
 * the MR's 24-bit table index shifted left by 8 with an 8-bit variant; the
 * local DMA lkey is a reserved key (index 0) that names DMA addresses for
 * local access only.  Fast-registration and integrity MRs are FREE until a
 * REG_MR / REG_MR_INTEGRITY WR makes them VALID under its key and access;
 * LOCAL_INV, SEND_WITH_INV (at the receiver) and RDMA_READ_WITH_INV make
 * them FREE again.
 *
 * Posting copies each WR (GFP_ATOMIC: ULPs post from any context) into the
 * instance's pending list; an ordered workqueue, the executor, runs the
 * WRs in post order in process context and delivers the completions (see
 * rwx_testdev_exec.c).  A WR the device refuses completes with an error
 * status, moves its QP to the error state, and every later WR of the QP is
 * flushed.  The T10-DIF work of integrity MRs is in rwx_testdev_dif.c.
 *
 * Tests can record the send WRs posted and make the device fail on
 * request (see rwx_testdev.h).
 *
 * ib_core's MAD, SA and CM clients are not needed (QPs are connected by
 * rwx_testdev_connect()), so the InfiniBand port announces the IB
 * transport (RDMA_CORE_CAP_PROT_IB) without them: they would create SMI
 * and GSI QPs and an SM address handle on the device.  A RoCE port
 * (caps.roce) is the one that has them: ib_mad's GSI QP and ib_cm, so
 * that rdma_cm connects over it (rwx_testdev_roce.c); an iWARP port has
 * the instance's own iWARP connection manager (rwx_testdev_iwcm.c).
 * iWARP and RoCE ports need a net device for ib_core's port queries and
 * GID table: the instance registers one of its own ("rwxtd<n>"), which
 * drops anything sent to it; a ULP test brings it up with an address.
 * Unregistering it waits for the references ib_core's GID table drops
 * after an RCU grace period.
 *
 * Instances are created by the KUnit suites, and from user space through
 * debugfs (rwx_testdev_debugfs.c), for tests that run the kernel's own
 * ULPs over a RoCE instance.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include <rdma/ib_mad.h>
#include <rdma/iw_cm.h>

#include "rwx_testdev_internal.h"

#define RWX_TD_DRV_NAME		"rwx_testdev"
#define RWX_TD_NODE_GUID	0x02525758544400ULL	/* + instance id */

static DEFINE_MUTEX(rwx_td_list_lock);
static LIST_HEAD(rwx_td_list);
static atomic_t rwx_td_next_id = ATOMIC_INIT(0);

static int rwx_td_query_device(struct ib_device *ibdev,
			       struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	struct rwx_testdev *tdev = to_tdev(ibdev);
	const struct rwx_testdev_caps *caps = &tdev->caps;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = 1;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = ~((u64)SZ_4K - 1);
	attr->vendor_id = 0xffffff;
	attr->max_qp = RWX_TD_MAX_OBJ;
	attr->max_qp_wr = caps->max_qp_wr;
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	if (caps->integrity)
		attr->kernel_cap_flags |= IBK_INTEGRITY_HANDOVER;
	attr->max_send_sge = caps->max_send_sge;
	attr->max_recv_sge = caps->max_recv_sge;
	attr->max_sge_rd = caps->max_sge_rd;
	attr->max_cq = RWX_TD_MAX_OBJ;
	attr->max_cqe = RWX_TD_MAX_CQE;
	attr->max_mr = caps->max_mr;
	attr->max_pd = RWX_TD_MAX_OBJ;
	attr->max_qp_rd_atom = RWX_TD_RD_ATOM;
	attr->max_qp_init_rd_atom = RWX_TD_RD_ATOM;
	attr->max_res_rd_atom = RWX_TD_RD_ATOM * RWX_TD_MAX_OBJ;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_fast_reg_page_list_len = caps->max_fast_reg_page_list_len;
	attr->max_pkeys = 1;
	if (caps->integrity) {
		attr->max_pi_fast_reg_page_list_len =
			caps->max_pi_fast_reg_page_list_len;
		attr->sig_prot_cap = IB_PROT_T10DIF_TYPE_1 |
				     IB_PROT_T10DIF_TYPE_2 |
				     IB_PROT_T10DIF_TYPE_3;
		attr->sig_guard_cap = IB_GUARD_T10DIF_CRC |
				      IB_GUARD_T10DIF_CSUM;
	}
	attr->max_sgl_rd = caps->max_sgl_rd;
	return 0;
}

static int rwx_td_query_port(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attr *attr)
{
	struct rwx_testdev *tdev = to_tdev(ibdev);

	if (port_num != 1)
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = tdev->caps.roce ? RWX_TD_ROCE_GIDS : 1;
	attr->max_msg_sz = SZ_2G;
	attr->active_width = IB_WIDTH_4X;
	attr->active_speed = IB_SPEED_EDR;
	if (tdev->caps.iwarp) {
		attr->port_cap_flags = IB_PORT_CM_SUP;
		return 0;
	}
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	if (tdev->caps.roce) {
		attr->ip_gids = true;
	} else {
		attr->lid = 1;
		attr->sm_lid = 1;
	}
	return 0;
}

static int rwx_td_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				     struct ib_port_immutable *immutable)
{
	struct rwx_testdev *tdev = to_tdev(ibdev);
	struct ib_port_attr attr;
	int ret;

	ret = rwx_td_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	if (tdev->caps.iwarp)
		immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	else if (tdev->caps.roce)
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	else
		immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	immutable->max_mad_size = tdev->caps.roce ? IB_MGMT_MAD_SIZE : 0;
	return 0;
}

static int rwx_td_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			    union ib_gid *gid)
{
	struct rwx_testdev *tdev = to_tdev(ibdev);

	if (port_num != 1 || index)
		return -EINVAL;

	memset(gid, 0, sizeof(*gid));
	if (tdev->caps.iwarp) {
		memcpy(gid->raw, tdev->ndev->dev_addr, ETH_ALEN);
	} else {
		gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
		gid->global.interface_id = ibdev->node_guid;
	}
	return 0;
}

static int rwx_td_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			     u16 *pkey)
{
	if (port_num != 1 || index)
		return -EINVAL;
	*pkey = 0xffff;	/* the default P_Key, full member */
	return 0;
}

static int rwx_td_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rwx_testdev *tdev = to_tdev(ibpd->device);

	if (udata)
		return -EOPNOTSUPP;
	if (atomic_inc_return(&tdev->nr_pds) > RWX_TD_MAX_OBJ) {
		atomic_dec(&tdev->nr_pds);
		return -ENOMEM;
	}
	return 0;
}

static int rwx_td_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_tdev(ibpd->device)->nr_pds);
	return 0;
}

static const struct ib_device_ops rwx_td_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.alloc_mr = rwx_td_alloc_mr,
	.alloc_mr_integrity = rwx_td_alloc_mr_integrity,
	.alloc_pd = rwx_td_alloc_pd,
	.check_mr_status = rwx_td_check_mr_status,
	.create_ah = rwx_td_create_ah,
#ifdef RWX_TD_CQ_UDATA	/* before 6.11: see Kbuild */
	.create_cq = rwx_td_create_cq_udata,
#else
	.create_cq = rwx_td_create_cq_bundle,
#endif
	.create_qp = rwx_td_create_qp,
	.dealloc_pd = rwx_td_dealloc_pd,
	.dereg_mr = rwx_td_dereg_mr,
	.destroy_ah = rwx_td_destroy_ah,
	.destroy_cq = rwx_td_destroy_cq,
	.destroy_qp = rwx_td_destroy_qp,
	.get_dma_mr = rwx_td_get_dma_mr,
	.get_link_layer = rwx_td_get_link_layer,
	.get_port_immutable = rwx_td_get_port_immutable,
	.map_mr_sg = rwx_td_map_mr_sg,
	.map_mr_sg_pi = rwx_td_map_mr_sg_pi,
	.modify_qp = rwx_td_modify_qp,
	.poll_cq = rwx_td_poll_cq,
	.post_recv = rwx_td_post_recv,
	.post_send = rwx_td_post_send,
	.query_device = rwx_td_query_device,
	.query_gid = rwx_td_query_gid,
	.query_pkey = rwx_td_query_pkey,
	.query_port = rwx_td_query_port,
	.query_qp = rwx_td_query_qp,
	.reg_user_mr = rwx_td_reg_user_mr,
	.req_notify_cq = rwx_td_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, rwx_td_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, rwx_td_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, rwx_td_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, rwx_td_qp, ibqp),
};

/* An iWARP instance's connection manager (rwx_testdev_iwcm.c). */
static const struct ib_device_ops rwx_td_iw_ops = {
	.iw_accept = rwx_td_iw_accept,
	.iw_add_ref = rwx_td_iw_add_ref,
	.iw_connect = rwx_td_iw_connect,
	.iw_create_listen = rwx_td_iw_create_listen,
	.iw_destroy_listen = rwx_td_iw_destroy_listen,
	.iw_get_qp = rwx_td_iw_get_qp,
	.iw_reject = rwx_td_iw_reject,
	.iw_rem_ref = rwx_td_iw_rem_ref,
};

/* The platform device of each instance binds here, so it has a driver. */
static int rwx_td_probe(struct platform_device *pdev)
{
	return 0;
}

static struct platform_driver rwx_td_driver = {
	.probe = rwx_td_probe,
	.driver = {
		.name = RWX_TD_DRV_NAME,
	},
};

static void rwx_td_fill_caps(struct rwx_testdev_caps *caps)
{
	if (!caps->max_send_sge)
		caps->max_send_sge = RWX_TD_DEF_SGE;
	if (!caps->max_recv_sge)
		caps->max_recv_sge = RWX_TD_DEF_SGE;
	if (!caps->max_sge_rd)
		caps->max_sge_rd = RWX_TD_DEF_SGE;
	if (!caps->max_fast_reg_page_list_len)
		caps->max_fast_reg_page_list_len = RWX_TD_DEF_PAGES;
	if (!caps->integrity)
		caps->max_pi_fast_reg_page_list_len = 0;
	else if (!caps->max_pi_fast_reg_page_list_len)
		caps->max_pi_fast_reg_page_list_len = RWX_TD_DEF_PAGES;
	if (!caps->max_qp_wr)
		caps->max_qp_wr = RWX_TD_DEF_QP_WR;
	if (!caps->max_mr)
		caps->max_mr = RWX_TD_DEF_MR;
}

static bool rwx_td_caps_valid(const struct rwx_testdev_caps *caps)
{
	return !(caps->iwarp && caps->roce) &&
	       caps->max_send_sge <= S32_MAX &&
	       caps->max_recv_sge <= S32_MAX &&
	       caps->max_sge_rd <= S32_MAX &&
	       caps->max_qp_wr <= S32_MAX &&
	       caps->max_mr <= RWX_TD_MR_INDEX_MAX;
}

static int rwx_td_alloc_scratch(struct rwx_testdev *tdev)
{
	const struct rwx_testdev_caps *caps = &tdev->caps;

	tdev->max_segs = max3(caps->max_send_sge, caps->max_recv_sge,
			      caps->max_sge_rd);
	if (caps->roce)
		tdev->max_segs = max_t(u32, tdev->max_segs, RWX_TD_GSI_SGES);
	tdev->src_segs = kcalloc(tdev->max_segs, sizeof(*tdev->src_segs),
				 GFP_KERNEL);
	tdev->dst_segs = kcalloc(tdev->max_segs, sizeof(*tdev->dst_segs),
				 GFP_KERNEL);
	if (!tdev->src_segs || !tdev->dst_segs)
		return -ENOMEM;
	if (caps->integrity) {
		tdev->blk = kmalloc(RWX_TD_MAX_INTERVAL + RWX_TD_PI_SIZE,
				    GFP_KERNEL);
		if (!tdev->blk)
			return -ENOMEM;
	}
	return 0;
}

/* Everything of an instance but its ib_device. */
struct rwx_td_parts {
	struct platform_device *pdev;
	struct net_device *ndev;
	struct workqueue_struct *wq;
	struct rwx_td_seg *src_segs, *dst_segs;
	u8 *blk;
	struct rwx_testdev_wr_rec *recs;
};

static void rwx_td_take_parts(struct rwx_testdev *tdev,
			      struct rwx_td_parts *parts)
{
	parts->pdev = tdev->pdev;
	parts->ndev = tdev->ndev;
	parts->wq = tdev->wq;
	parts->src_segs = tdev->src_segs;
	parts->dst_segs = tdev->dst_segs;
	parts->blk = tdev->blk;
	parts->recs = tdev->recs;
	xa_destroy(&tdev->qps);
	xa_destroy(&tdev->mrs);
}

static void rwx_td_free_parts(struct rwx_td_parts *parts)
{
	if (parts->wq)
		destroy_workqueue(parts->wq);
	if (!IS_ERR_OR_NULL(parts->pdev))
		platform_device_unregister(parts->pdev);
	if (parts->ndev) {
		if (parts->ndev->reg_state == NETREG_REGISTERED)
			unregister_netdev(parts->ndev);
		free_netdev(parts->ndev);
	}
	kfree(parts->src_segs);
	kfree(parts->dst_segs);
	kfree(parts->blk);
	kvfree(parts->recs);
}

static netdev_tx_t rwx_td_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops rwx_td_netdev_ops = {
	.ndo_start_xmit = rwx_td_xmit,
};

/*
 * The iWARP or RoCE port's net device: registered, brought up by RoCE
 * tests only, traffic dropped.
 */
static int rwx_td_alloc_netdev(struct rwx_testdev *tdev)
{
	struct net_device *ndev;
	int ret;

	ndev = alloc_netdev(0, "rwxtd%d", NET_NAME_ENUM, ether_setup);
	if (!ndev)
		return -ENOMEM;
	tdev->ndev = ndev;
	ndev->netdev_ops = &rwx_td_netdev_ops;
	ndev->flags |= IFF_NOARP;
	eth_hw_addr_random(ndev);
	ret = register_netdev(ndev);
	if (ret)
		return ret;
	if (tdev->caps.iwarp) {
		/* Ports are rdma_cm's: no iwpmd port mapping. */
		strscpy(tdev->ibdev.iw_ifname, ndev->name,
			sizeof(tdev->ibdev.iw_ifname));
		tdev->ibdev.iw_driver_flags = IW_F_NO_PORT_MAP;
	}
	return ib_device_set_netdev(&tdev->ibdev, ndev, 1);
}

static int rwx_td_setup(struct rwx_testdev *tdev)
{
	struct platform_device_info info = {
		.name = RWX_TD_DRV_NAME,
		.id = tdev->id,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct ib_device *ibdev = &tdev->ibdev;
	int ret;

	ret = rwx_td_alloc_scratch(tdev);
	if (ret)
		return ret;

	/* Storage ULPs destroy QPs (which flush this) from reclaim work. */
	tdev->wq = alloc_ordered_workqueue("rwx_testdev%u", WQ_MEM_RECLAIM,
					   tdev->id);
	if (!tdev->wq)
		return -ENOMEM;

	tdev->pdev = platform_device_register_full(&info);
	if (IS_ERR(tdev->pdev))
		return PTR_ERR(tdev->pdev);
	if (!READ_ONCE(tdev->pdev->dev.driver))
		return -ENODEV;
	/* Nothing limits a mapping's segments: DMA-API debug checks this. */
	dma_set_max_seg_size(&tdev->pdev->dev, UINT_MAX);
	dma_set_seg_boundary(&tdev->pdev->dev, ULONG_MAX);
	if (tdev->caps.dma_merge && !tdev->caps.virt_dma) {
		ret = rwx_td_dma_merge(&tdev->pdev->dev);
		if (ret)
			return ret;
	}

	ibdev->node_type = tdev->caps.iwarp ? RDMA_NODE_RNIC : RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = RWX_TD_LOCAL_DMA_LKEY;
	ibdev->node_guid = cpu_to_be64(RWX_TD_NODE_GUID + tdev->id);
	ibdev->dev.parent = &tdev->pdev->dev;
	strscpy(ibdev->node_desc, RWX_TD_DRV_NAME, sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &rwx_td_ops);
	if (tdev->caps.iwarp)
		ib_set_device_ops(ibdev, &rwx_td_iw_ops);

	if (tdev->caps.iwarp || tdev->caps.roce)
		return rwx_td_alloc_netdev(tdev);
	return 0;
}

/**
 * rwx_testdev_create() - create and register an instance
 * @name: its ib_device name (may hold a "%d" for ib_core to fill in)
 * @caps: what it offers; zero fields get defaults
 *
 * Context: process context.
 * Return: the instance, or an ERR_PTR.
 */
struct rwx_testdev *rwx_testdev_create(const char *name,
				       const struct rwx_testdev_caps *caps)
{
	struct rwx_td_parts parts;
	struct rwx_testdev *tdev;
	int ret;

	if (!name || !caps)
		return ERR_PTR(-EINVAL);

	tdev = ib_alloc_device(rwx_testdev, ibdev);
	if (!tdev)
		return ERR_PTR(-ENOMEM);
	tdev->caps = *caps;
	rwx_td_fill_caps(&tdev->caps);
	tdev->id = atomic_inc_return(&rwx_td_next_id);
	INIT_LIST_HEAD(&tdev->node);
	INIT_WORK(&tdev->exec_work, rwx_td_exec_work);
	spin_lock_init(&tdev->sq_lock);
	INIT_LIST_HEAD(&tdev->sq_pending);
	xa_init_flags(&tdev->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&tdev->mrs, XA_FLAGS_ALLOC1);
	spin_lock_init(&tdev->lock);
	mutex_init(&tdev->iw_lock);
	INIT_LIST_HEAD(&tdev->iw_listeners);
	INIT_LIST_HEAD(&tdev->iw_conns);

	ret = -EINVAL;
	if (rwx_td_caps_valid(&tdev->caps))
		ret = rwx_td_setup(tdev);
	if (!ret)
		ret = ib_register_device(&tdev->ibdev, name,
					 tdev->caps.virt_dma ? NULL :
							       &tdev->pdev->dev);
	if (ret) {
		rwx_td_take_parts(tdev, &parts);
		ib_dealloc_device(&tdev->ibdev);
		rwx_td_free_parts(&parts);
		return ERR_PTR(ret);
	}

	mutex_lock(&rwx_td_list_lock);
	list_add_tail(&tdev->node, &rwx_td_list);
	mutex_unlock(&rwx_td_list_lock);
	return tdev;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_create, RWX_TESTDEV);

/*
 * ib_core's own clients (a RoCE port's MAD layer) free what they hold on
 * the instance as it is unregistered: anything left after that leaked.
 */
static void rwx_td_destroy(struct rwx_testdev *tdev)
{
	struct rwx_testdev_counts counts;
	struct rwx_td_parts parts;

	ib_unregister_device(&tdev->ibdev);
	rwx_td_iw_exit(tdev);
	flush_workqueue(tdev->wq);
	rwx_testdev_counts(tdev, &counts);
	WARN(counts.pds || counts.cqs || counts.qps || counts.mrs || counts.ahs,
	     "%s: destroyed with %u PDs, %u CQs, %u QPs, %u MRs, %u AHs alive\n",
	     dev_name(&tdev->ibdev.dev), counts.pds, counts.cqs, counts.qps,
	     counts.mrs, counts.ahs);

	rwx_td_take_parts(tdev, &parts);
	ib_dealloc_device(&tdev->ibdev);
	rwx_td_free_parts(&parts);
}

/**
 * rwx_testdev_destroy() - unregister and free an instance
 * @tdev: the instance; every PD, CQ, QP and MR of it must be gone
 *
 * Context: process context.
 */
void rwx_testdev_destroy(struct rwx_testdev *tdev)
{
	if (IS_ERR_OR_NULL(tdev))
		return;
	mutex_lock(&rwx_td_list_lock);
	list_del(&tdev->node);
	mutex_unlock(&rwx_td_list_lock);
	rwx_td_destroy(tdev);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_destroy, RWX_TESTDEV);

/**
 * rwx_testdev_ibdev() - the ib_device of an instance
 * @tdev: the instance
 *
 * Return: its registered ib_device.
 */
struct ib_device *rwx_testdev_ibdev(struct rwx_testdev *tdev)
{
	return &tdev->ibdev;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_ibdev, RWX_TESTDEV);

/**
 * rwx_testdev_from_ibdev() - the instance behind an ib_device
 * @ibdev: any ib_device
 *
 * Return: the instance, or NULL when @ibdev is not one of this driver's.
 */
struct rwx_testdev *rwx_testdev_from_ibdev(struct ib_device *ibdev)
{
	if (!ibdev || ibdev->ops.query_device != rwx_td_query_device)
		return NULL;
	return to_tdev(ibdev);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_from_ibdev, RWX_TESTDEV);

static int rwx_td_connect_one(struct ib_qp *qp, struct ib_qp *peer)
{
	struct rwx_testdev *tdev = to_tdev(qp->device);
	struct ib_qp_attr attr;
	int mask, ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_WRITE;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_4096;
	attr.dest_qp_num = peer->qp_num;
	attr.rq_psn = 0;
	attr.max_dest_rd_atomic = RWX_TD_RD_ATOM;
	attr.min_rnr_timer = 1;
	mask = IB_QP_STATE | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
	       IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	if (!tdev->caps.iwarp) {	/* iWARP has no address vectors */
		attr.ah_attr.type = rdma_ah_find_type(qp->device, 1);
		rdma_ah_set_dlid(&attr.ah_attr, 1);
		rdma_ah_set_port_num(&attr.ah_attr, 1);
		mask |= IB_QP_AV;
	}
	ret = ib_modify_qp(qp, &attr, mask);
	if (ret)
		return ret;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = RWX_TD_RD_ATOM;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

/**
 * rwx_testdev_create_qp() - create an RC QP on an instance
 * @pd: a PD of the instance
 * @cq: the CQ of its send and receive completions
 * @create_flags: IB_QP_CREATE_* flags: IB_QP_CREATE_INTEGRITY_EN for an
 *	integrity QP (an instance with caps.integrity), whose RDMA
 *	READ/WRITE contexts ib_core gives integrity MRs besides the plain
 *	pool
 * @cap: its queue and SGE sizes and its RDMA READ/WRITE contexts
 *	(max_rdma_ctxs: ib_core's MR pools)
 *
 * The QP is on port 1 and signals the WRs that ask for it.  It is created
 * through ib_create_qp(), so that ib_core sets up what it sets up for a
 * ULP's QP; rwx_testdev_connect() connects it.
 *
 * Context: process context.
 * Return: the QP, or an ERR_PTR (-EINVAL for a PD not on an instance).
 */
struct ib_qp *rwx_testdev_create_qp(struct ib_pd *pd, struct ib_cq *cq,
				    u32 create_flags,
				    const struct ib_qp_cap *cap)
{
	struct ib_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.port_num = 1,
		.create_flags = create_flags,
	};

	if (!pd || !cap || !rwx_testdev_from_ibdev(pd->device))
		return ERR_PTR(-EINVAL);
	attr.cap = *cap;
	return ib_create_qp(pd, &attr);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_create_qp, RWX_TESTDEV);

/**
 * rwx_testdev_connect() - move two RC QPs of an instance to RTS, peered
 * @a: one QP, in the RESET state
 * @b: the other, on the same instance, in the RESET state
 *
 * Each QP's destination becomes the other; both allow remote READ and
 * WRITE.  @a may equal @b (a QP talking to itself).
 *
 * Context: process context.
 * Return: 0, -EINVAL for QPs that are not RC QPs of one instance, or the
 * error of ib_modify_qp().
 */
int rwx_testdev_connect(struct ib_qp *a, struct ib_qp *b)
{
	int ret;

	if (!a || !b || a->device != b->device ||
	    !rwx_testdev_from_ibdev(a->device) ||
	    a->qp_type != IB_QPT_RC || b->qp_type != IB_QPT_RC)
		return -EINVAL;
	ret = rwx_td_connect_one(a, b);
	if (!ret && a != b)
		ret = rwx_td_connect_one(b, a);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_connect, RWX_TESTDEV);

/**
 * rwx_testdev_flush() - wait for the WRs posted so far to execute
 * @tdev: the instance
 *
 * When it returns, every WR posted on the instance before the call has
 * executed (or was flushed) and its completion, if any, is in its CQ.
 *
 * Context: process context; not from a completion handler the executor
 * calls.
 */
void rwx_testdev_flush(struct rwx_testdev *tdev)
{
	flush_workqueue(tdev->wq);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_flush, RWX_TESTDEV);

/**
 * rwx_testdev_counts() - the objects alive on an instance
 * @tdev: the instance
 * @counts: filled in: PDs, CQs, QPs, MRs (DMA MRs included), and the
 *	fast-reg and integrity MRs in VALID state
 */
void rwx_testdev_counts(struct rwx_testdev *tdev,
			struct rwx_testdev_counts *counts)
{
	counts->pds = atomic_read(&tdev->nr_pds);
	counts->cqs = atomic_read(&tdev->nr_cqs);
	counts->qps = atomic_read(&tdev->nr_qps);
	counts->mrs = atomic_read(&tdev->nr_mrs);
	counts->valid_mrs = atomic_read(&tdev->nr_valid_mrs);
	counts->ahs = atomic_read(&tdev->nr_ahs);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_counts, RWX_TESTDEV);

/**
 * rwx_testdev_inject() - arm a fault
 * @tdev: the instance
 * @fault: which one
 * @nth: fire at the nth event from now (1: the next); 0 disarms
 *
 * Arming clears what rwx_testdev_fault_fired() reports.
 */
void rwx_testdev_inject(struct rwx_testdev *tdev, enum rwx_testdev_fault fault,
			u32 nth)
{
	WARN_ON_ONCE(rwx_testdev_inject_owned(tdev, fault, nth, NULL));
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_inject, RWX_TESTDEV);

/**
 * rwx_testdev_inject_owned() - arm a fault for one module's PDs
 * @tdev: the instance
 * @fault: which one
 * @nth: fire at the nth event from now (1: the next); 0 disarms
 * @owner: the module whose PDs' events alone count (their restrack
 *	kern_name, e.g. "nvmet_rdma"), or NULL for every event
 *
 * Lets a test fail one ULP of two that share the instance (a target and
 * its host).  A pi_wire event has no PD to go by.  Arming clears what
 * rwx_testdev_fault_fired() reports.
 *
 * Return: 0, or -EINVAL for an unknown fault, pi_wire with an owner, or
 * an owner longer than a module name.
 */
int rwx_testdev_inject_owned(struct rwx_testdev *tdev,
			     enum rwx_testdev_fault fault, u32 nth,
			     const char *owner)
{
	unsigned long flags;

	if ((unsigned int)fault >= RWX_TESTDEV_NR_FAULTS ||
	    (owner && (fault == RWX_TESTDEV_FAULT_PI_WIRE ||
		       strlen(owner) >= MODULE_NAME_LEN)))
		return -EINVAL;
	spin_lock_irqsave(&tdev->lock, flags);
	tdev->fault_left[fault] = nth;
	tdev->fault_fired[fault] = false;
	strscpy(tdev->fault_owner[fault], owner ?: "", MODULE_NAME_LEN);
	spin_unlock_irqrestore(&tdev->lock, flags);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_inject_owned, RWX_TESTDEV);

/**
 * rwx_testdev_fault_fired() - whether a fault fired
 * @tdev: the instance
 * @fault: which one
 *
 * Return: true if @fault fired since it was last armed.
 */
bool rwx_testdev_fault_fired(struct rwx_testdev *tdev,
			     enum rwx_testdev_fault fault)
{
	unsigned long flags;
	bool fired;

	if (WARN_ON_ONCE((unsigned int)fault >= RWX_TESTDEV_NR_FAULTS))
		return false;
	spin_lock_irqsave(&tdev->lock, flags);
	fired = tdev->fault_fired[fault];
	spin_unlock_irqrestore(&tdev->lock, flags);
	return fired;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_fault_fired, RWX_TESTDEV);

/* Whether an event in @pd (NULL: none) counts for a fault of @owner's. */
static bool rwx_td_fault_owner_is(const char *owner, const struct ib_pd *pd)
{
	return !owner[0] ||
	       (pd && pd->res.kern_name && !strcmp(owner, pd->res.kern_name));
}

/*
 * Counts an event of @fault in @pd (NULL: no PD); true when the fault
 * fires on it.
 */
bool rwx_td_fault(struct rwx_testdev *tdev, enum rwx_testdev_fault fault,
		  const struct ib_pd *pd)
{
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->fault_left[fault] &&
	    rwx_td_fault_owner_is(tdev->fault_owner[fault], pd) &&
	    !--tdev->fault_left[fault]) {
		tdev->fault_fired[fault] = true;
		fire = true;
	}
	spin_unlock_irqrestore(&tdev->lock, flags);
	return fire;
}

static bool rwx_td_is_rdma(enum ib_wr_opcode opcode)
{
	return opcode == IB_WR_RDMA_WRITE ||
	       opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	       opcode == IB_WR_RDMA_READ ||
	       opcode == IB_WR_RDMA_READ_WITH_INV;
}

static void rwx_td_fill_rec(struct rwx_testdev_wr_rec *rec,
			    struct rwx_td_qp *qp, const struct ib_send_wr *wr)
{
	const struct ib_reg_wr *reg;
	int i;

	memset(rec, 0, sizeof(*rec));
	rec->qp_num = qp->ibqp.qp_num;
	rec->opcode = wr->opcode;
	rec->send_flags = wr->send_flags;
	rec->wr_id = wr->wr_id;
	rec->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge && i < RWX_TESTDEV_REC_SGES; i++)
		rec->sge[i] = wr->sg_list[i];
	if (rwx_td_is_rdma(wr->opcode)) {
		rec->remote_addr = rdma_wr(wr)->remote_addr;
		rec->rkey = rdma_wr(wr)->rkey;
	}
	switch (wr->opcode) {
	case IB_WR_LOCAL_INV:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ_WITH_INV:
		rec->invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:
		reg = reg_wr(wr);
		rec->reg_mr = reg->mr;
		rec->reg_key = reg->key;
		rec->reg_access = reg->access;
		rec->reg_iova = reg->mr->iova;
		rec->reg_length = reg->mr->length;
		if (wr->opcode == IB_WR_REG_MR_INTEGRITY && reg->mr->sig_attrs)
			rec->sig_attrs = *reg->mr->sig_attrs;
		break;
	default:
		break;
	}
}

/* Records a send WR being posted (the caller validated it). */
void rwx_td_record(struct rwx_testdev *tdev, struct rwx_td_qp *qp,
		   const struct ib_send_wr *wr)
{
	unsigned long flags;

	spin_lock_irqsave(&tdev->lock, flags);
	if (tdev->recording) {
		if (tdev->recs && tdev->rec_count < RWX_TESTDEV_REC_MAX)
			rwx_td_fill_rec(&tdev->recs[tdev->rec_count], qp, wr);
		if (tdev->rec_count < U32_MAX)
			tdev->rec_count++;
	}
	spin_unlock_irqrestore(&tdev->lock, flags);
}

/**
 * rwx_testdev_record_start() - start recording the send WRs posted
 * @tdev: the instance
 *
 * Drops what was recorded before.  Should the record buffer not be
 * allocatable, WRs are counted but not kept.
 *
 * Context: process context.
 */
void rwx_testdev_record_start(struct rwx_testdev *tdev)
{
	struct rwx_testdev_wr_rec *recs = NULL;
	unsigned long flags;

	if (!READ_ONCE(tdev->recs))
		recs = kvcalloc(RWX_TESTDEV_REC_MAX, sizeof(*recs), GFP_KERNEL);

	spin_lock_irqsave(&tdev->lock, flags);
	if (!tdev->recs) {
		tdev->recs = recs;
		recs = NULL;
	}
	tdev->recording = true;
	tdev->rec_count = 0;
	spin_unlock_irqrestore(&tdev->lock, flags);
	kvfree(recs);
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_record_start, RWX_TESTDEV);

/**
 * rwx_testdev_record_stop() - stop recording
 * @tdev: the instance
 * @recs: where to copy the records (may be NULL when @max is 0)
 * @max: room in @recs
 *
 * Return: the number of send WRs posted while recording ran; the first
 * min(that, @max, RWX_TESTDEV_REC_MAX) of them are copied to @recs.
 */
u32 rwx_testdev_record_stop(struct rwx_testdev *tdev,
			    struct rwx_testdev_wr_rec *recs, u32 max)
{
	unsigned long flags;
	u32 count, n;

	spin_lock_irqsave(&tdev->lock, flags);
	tdev->recording = false;
	count = tdev->rec_count;
	spin_unlock_irqrestore(&tdev->lock, flags);

	/* Nothing writes the records while recording is off. */
	n = min3(count, max, (u32)RWX_TESTDEV_REC_MAX);
	if (recs && n && tdev->recs)
		memcpy(recs, tdev->recs, n * sizeof(*recs));
	return count;
}
EXPORT_SYMBOL_NS_GPL(rwx_testdev_record_stop, RWX_TESTDEV);

static int __init rwx_td_init(void)
{
	int ret = platform_driver_register(&rwx_td_driver);

	if (!ret)
		rwx_td_debugfs_init();
	return ret;
}

static void __exit rwx_td_exit(void)
{
	struct rwx_testdev *tdev;

	rwx_td_debugfs_exit();
	for (;;) {
		mutex_lock(&rwx_td_list_lock);
		tdev = list_first_entry_or_null(&rwx_td_list,
						struct rwx_testdev, node);
		if (tdev)
			list_del(&tdev->node);
		mutex_unlock(&rwx_td_list_lock);
		if (!tdev)
			break;
		pr_warn("rwx_testdev: %s left behind, destroying it\n",
			dev_name(&tdev->ibdev.dev));
		rwx_td_destroy(tdev);
	}
	platform_driver_unregister(&rwx_td_driver);
}

module_init(rwx_td_init);
module_exit(rwx_td_exit);

MODULE_DESCRIPTION("rdma_rwx test device: a software RDMA device for KUnit");
MODULE_LICENSE("GPL");
