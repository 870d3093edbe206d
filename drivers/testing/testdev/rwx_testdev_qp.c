// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: completion queues, queue pairs and posting.
 *
 * A CQ is a ring of work completions under a spinlock; poll_cq pops,
 * req_notify_cq arms, and the executor calls the completion handler once
 * per arming (see rwx_td_cq_add() in rwx_testdev_exec.c).
 *
 * A QP is RC, or the GSI QP of a RoCE port (rwx_testdev_roce.c), which
 * sends datagrams to address handles.  post_send checks each WR against
 * what the QP and the device support (opcode, flags, SGE counts, queue
 * depth, QP state) and returns -EINVAL (-ENOMEM for a full queue or an
 * injected fault) with *bad_wr at the first WR it refuses; the WRs before
 * it stay posted.  An
 * accepted WR is copied, recorded when recording is on, and appended to
 * the instance's pending list for the executor.  WRs posted to a QP in the
 * error state are accepted and flushed by the executor, so that
 * ib_drain_qp() works.  Moving a QP to RESET (or destroying it) drops its
 * pending WRs without completions; destroying it then waits for the
 * executor to stop touching it.
 */

#include <linux/slab.h>

#include "rwx_testdev_internal.h"

static int rwx_td_create_cq(struct ib_cq *ibcq,
			    const struct ib_cq_init_attr *attr)
{
	struct rwx_testdev *tdev = to_tdev(ibcq->device);
	struct rwx_td_cq *cq = to_tdcq(ibcq);

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > RWX_TD_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (atomic_inc_return(&tdev->nr_cqs) > RWX_TD_MAX_OBJ) {
		atomic_dec(&tdev->nr_cqs);
		return -ENOMEM;
	}

	cq->ring = kvcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring) {
		atomic_dec(&tdev->nr_cqs);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

/*
 * create_cq as kernels from 6.11 on call it, and as earlier ones do (one
 * of them is unused, see Kbuild); kernel CQs only, no user attributes.
 */
int rwx_td_create_cq_bundle(struct ib_cq *ibcq,
			    const struct ib_cq_init_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	return attrs ? -EOPNOTSUPP : rwx_td_create_cq(ibcq, attr);
}

int rwx_td_create_cq_udata(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata)
{
	return udata ? -EOPNOTSUPP : rwx_td_create_cq(ibcq, attr);
}

int rwx_td_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rwx_td_cq *cq = to_tdcq(ibcq);

	/* Its QPs are gone, and their destruction waited for the executor. */
	kvfree(cq->ring);
	atomic_dec(&to_tdev(ibcq->device)->nr_cqs);
	return 0;
}

int rwx_td_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rwx_td_cq *cq = to_tdcq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->count) {
		wc[n++] = cq->ring[cq->head];
		cq->head = cq->head + 1 == cq->size ? 0 : cq->head + 1;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int rwx_td_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rwx_td_cq *cq = to_tdcq(ibcq);
	u32 sel = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (sel == IB_CQ_NEXT_COMP)
		cq->armed = IB_CQ_NEXT_COMP;
	else if (sel == IB_CQ_SOLICITED && cq->armed != IB_CQ_NEXT_COMP)
		cq->armed = IB_CQ_SOLICITED;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * The GSI QP has SGEs of its own, as on hardware: ib_mad's sends take two
 * (header and data) whatever the instance's limits.
 */
static int rwx_td_check_qp_cap(struct rwx_testdev *tdev,
			       enum ib_qp_type type,
			       const struct ib_qp_cap *cap)
{
	const struct rwx_testdev_caps *caps = &tdev->caps;
	u32 send_sge = caps->max_send_sge, recv_sge = caps->max_recv_sge;

	if (type == IB_QPT_GSI) {
		send_sge = max_t(u32, send_sge, RWX_TD_GSI_SGES);
		recv_sge = max_t(u32, recv_sge, RWX_TD_GSI_SGES);
	}
	if (cap->max_send_wr > caps->max_qp_wr ||
	    cap->max_recv_wr > caps->max_qp_wr ||
	    cap->max_send_sge > send_sge || cap->max_recv_sge > recv_sge ||
	    cap->max_inline_data)
		return -EINVAL;
	return 0;
}

int rwx_td_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata)
{
	struct rwx_testdev *tdev = to_tdev(ibqp->device);
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	u32 qpn;
	int ret;

	if (udata || init->srq || init->rwq_ind_tbl || init->xrcd)
		return -EOPNOTSUPP;
	if (init->qp_type != IB_QPT_RC &&
	    (init->qp_type != IB_QPT_GSI || !tdev->caps.roce))
		return -EOPNOTSUPP;
	if (init->create_flags & ~IB_QP_CREATE_INTEGRITY_EN ||
	    (init->create_flags && init->qp_type != IB_QPT_RC))
		return -EOPNOTSUPP;
	if ((init->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    !tdev->caps.integrity)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	ret = rwx_td_check_qp_cap(tdev, init->qp_type, &init->cap);
	if (ret)
		return ret;

	qp->tdev = tdev;
	qp->type = init->qp_type;
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	refcount_set(&qp->iw_refs, 1);
	init_completion(&qp->iw_released);
	qp->integrity = init->create_flags & IB_QP_CREATE_INTEGRITY_EN;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->cap = init->cap;
	qp->port_num = init->port_num ? init->port_num : 1;
	qp->path_mtu = IB_MTU_4096;
	INIT_LIST_HEAD(&qp->rq);

	if (atomic_inc_return(&tdev->nr_qps) > RWX_TD_MAX_OBJ) {
		atomic_dec(&tdev->nr_qps);
		return -ENOMEM;
	}
	/* Reserve the number; the executor sees the QP once it is complete. */
	if (qp->type == IB_QPT_GSI) {
		qpn = RWX_TD_GSI_QPN;
		ret = xa_insert(&tdev->qps, qpn, NULL, GFP_KERNEL);
	} else {
		ret = xa_alloc(&tdev->qps, &qpn, NULL,
			       XA_LIMIT(RWX_TD_FIRST_QPN, RWX_TD_MAX_QPN),
			       GFP_KERNEL);
	}
	if (ret) {
		atomic_dec(&tdev->nr_qps);
		return ret == -EBUSY ? -ENOMEM : ret;
	}
	ibqp->qp_num = qpn;
	xa_store(&tdev->qps, qpn, qp, GFP_KERNEL);
	return 0;
}

/* Takes @qp's pending send WRs off the instance's list, onto @out. */
static u32 rwx_td_take_sq(struct rwx_td_qp *qp, struct list_head *out)
{
	struct rwx_testdev *tdev = qp->tdev;
	struct rwx_td_swqe *swqe, *tmp;
	unsigned long flags;
	u32 n = 0;

	spin_lock_irqsave(&tdev->sq_lock, flags);
	list_for_each_entry_safe(swqe, tmp, &tdev->sq_pending, node) {
		if (swqe->qp == qp) {
			list_move_tail(&swqe->node, out);
			n++;
		}
	}
	spin_unlock_irqrestore(&tdev->sq_lock, flags);
	return n;
}

static void rwx_td_free_swqes(struct list_head *list)
{
	struct rwx_td_swqe *swqe, *tmp;

	list_for_each_entry_safe(swqe, tmp, list, node)
		kfree(swqe);
}

static void rwx_td_free_rwqes(struct list_head *list)
{
	struct rwx_td_rwqe *rwqe, *tmp;

	list_for_each_entry_safe(rwqe, tmp, list, node)
		kfree(rwqe);
}

/*
 * iWARP's transitions: rdma_cm moves a QP to INIT and RTR with its access
 * flags and port only (no path: the connection manager has it), and the
 * provider to RTS; ib_modify_qp_is_ok() holds IB's required attributes.
 */
static bool rwx_td_iw_modify_ok(enum ib_qp_state cur, enum ib_qp_state next)
{
	switch (next) {
	case IB_QPS_RESET:
	case IB_QPS_ERR:
		return true;
	case IB_QPS_INIT:
		return cur == IB_QPS_RESET || cur == IB_QPS_INIT;
	case IB_QPS_RTR:
		return cur == IB_QPS_INIT || cur == IB_QPS_RTR;
	case IB_QPS_RTS:
		return cur == IB_QPS_RTR || cur == IB_QPS_RTS ||
		       cur == IB_QPS_SQD;
	case IB_QPS_SQD:
		return cur == IB_QPS_RTS || cur == IB_QPS_SQD;
	default:
		return false;
	}
}

static int rwx_td_check_modify(struct rwx_td_qp *qp,
			       const struct ib_qp_attr *attr, int mask,
			       enum ib_qp_state cur, enum ib_qp_state next)
{
	if (qp->tdev->caps.iwarp ? !rwx_td_iw_modify_ok(cur, next) :
	    !ib_modify_qp_is_ok(cur, next, qp->type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > RWX_TD_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > RWX_TD_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_CAP) &&
	    rwx_td_check_qp_cap(qp->tdev, qp->type, &attr->cap))
		return -EINVAL;
	return 0;
}

static void rwx_td_apply_modify(struct rwx_td_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IB_QP_PORT)
		qp->port_num = attr->port_num;
	if (mask & IB_QP_PATH_MTU)
		qp->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		qp->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		qp->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_TIMEOUT)
		qp->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_CAP) {
		qp->cap.max_send_wr = attr->cap.max_send_wr;
		qp->cap.max_recv_wr = attr->cap.max_recv_wr;
	}
}

int rwx_td_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int mask, struct ib_udata *udata)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	enum ib_qp_state cur, next;
	LIST_HEAD(swqes);
	LIST_HEAD(rwqes);
	unsigned long flags;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&qp->lock, flags);
	cur = qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	/*
	 * iw_cm's disconnect (SQD) closes an iWARP connection: ERR here, from
	 * any state (a QP an error put in ERR is disconnected so too).
	 */
	if (READ_ONCE(qp->iw_conn) && next == IB_QPS_SQD)
		next = IB_QPS_ERR;
	ret = rwx_td_check_modify(qp, attr, mask, cur, next);
	if (ret) {
		spin_unlock_irqrestore(&qp->lock, flags);
		return ret;
	}
	rwx_td_apply_modify(qp, attr, mask);
	qp->state = next;
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET) {
		/* Dropped without completions, as a reset does. */
		rwx_td_take_sq(qp, &swqes);
		qp->sq_used = 0;
		qp->sq_unsignaled = 0;
		list_splice_init(&qp->rq, &rwqes);
		qp->rq_used = 0;
	}
	spin_unlock_irqrestore(&qp->lock, flags);

	rwx_td_free_swqes(&swqes);
	rwx_td_free_rwqes(&rwqes);
	if (next == IB_QPS_ERR) {
		rwx_td_iw_close(qp);
		rwx_td_kick(qp->tdev);	/* flushes the receive queue */
	}
	return 0;
}

int rwx_td_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	unsigned long flags;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));

	spin_lock_irqsave(&qp->lock, flags);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->path_mtu = qp->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->rq_psn = qp->rq_psn;
	attr->sq_psn = qp->sq_psn;
	attr->dest_qp_num = qp->dest_qp_num;
	attr->qp_access_flags = qp->access_flags;
	attr->cap = qp->cap;
	attr->pkey_index = qp->pkey_index;
	attr->max_rd_atomic = qp->max_rd_atomic;
	attr->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	attr->min_rnr_timer = qp->min_rnr_timer;
	attr->port_num = qp->port_num;
	attr->timeout = qp->timeout;
	attr->retry_cnt = qp->retry_cnt;
	attr->rnr_retry = qp->rnr_retry;
	attr->qkey = qp->qkey;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (!qp->tdev->caps.iwarp && qp->type == IB_QPT_RC) {
		attr->ah_attr.type = rdma_ah_find_type(ibqp->device, 1);
		if (!qp->tdev->caps.roce)
			rdma_ah_set_dlid(&attr->ah_attr, 1);
		rdma_ah_set_port_num(&attr->ah_attr, 1);
	}

	init->qp_type = qp->type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->create_flags = qp->integrity ? IB_QP_CREATE_INTEGRITY_EN : 0;
	init->port_num = qp->port_num;
	return 0;
}

int rwx_td_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	struct rwx_testdev *tdev = qp->tdev;
	LIST_HEAD(swqes);
	LIST_HEAD(rwqes);
	unsigned long flags;

	/*
	 * iWARP: closed first; iw_cm lets go of it once it has the CLOSE.
	 * Unbounded, as irdma's: ib_core frees the QP when this returns, and
	 * iw_cm still holds it until then (so a ULP must not destroy a
	 * connected QP from its own iw_cm event handler, which blocks the
	 * CLOSE's delivery).
	 */
	rwx_td_iw_close(qp);
	if (!refcount_dec_and_test(&qp->iw_refs))
		wait_for_completion(&qp->iw_released);

	spin_lock_irqsave(&qp->lock, flags);
	qp->state = IB_QPS_RESET;
	rwx_td_take_sq(qp, &swqes);
	qp->sq_used = 0;
	qp->sq_unsignaled = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	xa_erase(&tdev->qps, ibqp->qp_num);

	/* The executor may still run a WR of it, or be using it as a peer. */
	flush_workqueue(tdev->wq);

	spin_lock_irqsave(&qp->lock, flags);
	list_splice_init(&qp->rq, &rwqes);
	qp->rq_used = 0;
	spin_unlock_irqrestore(&qp->lock, flags);
	rwx_td_free_swqes(&swqes);
	rwx_td_free_rwqes(&rwqes);
	atomic_dec(&tdev->nr_qps);
	return 0;
}

/* The executor found a WR of @qp failing: the QP goes to the error state. */
void rwx_td_qp_set_error(struct rwx_td_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state != IB_QPS_RESET)
		qp->state = IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);
}

#define RWX_TD_SEND_FLAGS	(IB_SEND_SIGNALED | IB_SEND_SOLICITED | \
				 IB_SEND_FENCE)

/*
 * mlx5 registers an integrity MR again only after its signature status
 * was read (ib_check_mr_status()) since its last registration was posted.
 */
static bool rwx_td_sig_status_read(struct ib_mr *ibmr)
{
	struct rwx_td_mr *mr;
	unsigned long flags;
	bool read;

	if (!ibmr || ibmr->type != IB_MR_TYPE_INTEGRITY)
		return false;
	mr = to_tdmr(ibmr);
	spin_lock_irqsave(&mr->lock, flags);
	read = mr->sig_status_read;
	spin_unlock_irqrestore(&mr->lock, flags);
	return read;
}

static void rwx_td_sig_status_unread(struct ib_mr *ibmr)
{
	struct rwx_td_mr *mr = to_tdmr(ibmr);
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	mr->sig_status_read = false;
	spin_unlock_irqrestore(&mr->lock, flags);
}

/* What can be checked of a send WR without the QP's lock. */
static int rwx_td_check_send_wr(struct rwx_td_qp *qp,
				const struct ib_send_wr *wr)
{
	struct rwx_testdev *tdev = qp->tdev;
	u32 max_sge = qp->cap.max_send_sge;
	const struct ib_reg_wr *reg;

	if (wr->send_flags & ~RWX_TD_SEND_FLAGS)
		return -EINVAL;
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	if (qp->type == IB_QPT_GSI)
		return wr->num_sge > max_sge ? -EINVAL : rwx_td_check_ud_wr(qp, wr);

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		break;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		max_sge = min(max_sge, tdev->caps.max_sge_rd);
		break;
	case IB_WR_LOCAL_INV:
		max_sge = 0;
		break;
	case IB_WR_REG_MR_INTEGRITY:
		if (!qp->integrity)
			return -EINVAL;
		fallthrough;
	case IB_WR_REG_MR:
		reg = reg_wr(wr);
		if (!reg->mr || reg->mr->device != qp->ibqp.device ||
		    reg->mr->type == IB_MR_TYPE_DMA)
			return -EINVAL;
		if (wr->opcode == IB_WR_REG_MR_INTEGRITY &&
		    (!rwx_td_sig_status_read(reg->mr) ||
		     rwx_td_pi_reg_check(to_tdmr(reg->mr),
					 reg->mr->sig_attrs)))
			return -EINVAL;
		max_sge = 0;
		break;
	default:
		return -EINVAL;
	}
	if (wr->num_sge > max_sge)
		return -EINVAL;
	return 0;
}

static struct rwx_td_swqe *rwx_td_copy_send_wr(struct rwx_td_qp *qp,
					       const struct ib_send_wr *wr)
{
	const struct ib_reg_wr *reg;
	struct rwx_td_swqe *swqe;

	swqe = kzalloc(struct_size(swqe, sge, wr->num_sge), GFP_ATOMIC);
	if (!swqe)
		return NULL;
	swqe->qp = qp;
	swqe->wr_id = wr->wr_id;
	swqe->opcode = wr->opcode;
	swqe->send_flags = wr->send_flags;
	swqe->num_sge = wr->num_sge;
	if (wr->num_sge)
		memcpy(swqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
	if (qp->type == IB_QPT_GSI)
		rwx_td_copy_ud_wr(swqe, wr);

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_SEND_WITH_IMM:
		swqe->ex = (__force u32)wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
	case IB_WR_RDMA_READ_WITH_INV:
		swqe->ex = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:
		reg = reg_wr(wr);
		swqe->reg_index = to_tdmr(reg->mr)->index;
		swqe->reg_key = reg->key;
		swqe->reg_access = reg->access;
		break;
	default:
		break;
	}
	if (wr->opcode == IB_WR_RDMA_WRITE ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_READ ||
	    wr->opcode == IB_WR_RDMA_READ_WITH_INV) {
		swqe->remote_addr = rdma_wr(wr)->remote_addr;
		swqe->rkey = rdma_wr(wr)->rkey;
	}
	return swqe;
}

/*
 * Queues @swqe on @batch if the QP takes it now; the QP's lock is held.
 * The batch reaches the executor when the whole chain is read: once a WR
 * is executable it may complete, and the ULP free it, at any moment.
 */
static int rwx_td_queue_send(struct rwx_td_qp *qp, struct rwx_td_swqe *swqe,
			     const struct ib_send_wr *wr,
			     struct list_head *batch)
{
	struct rwx_testdev *tdev = qp->tdev;

	switch (qp->state) {
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_ERR:	/* the executor flushes it */
		break;
	default:
		return -EINVAL;
	}
	if (qp->sq_used >= qp->cap.max_send_wr)
		return -ENOMEM;
	if (rwx_td_fault(tdev, RWX_TESTDEV_FAULT_POST_SEND, qp->ibqp.pd))
		return -ENOMEM;

	qp->sq_used++;
	rwx_td_record(tdev, qp, wr);
	list_add_tail(&swqe->node, batch);
	return 0;
}

int rwx_td_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	struct rwx_testdev *tdev = qp->tdev;
	struct rwx_td_swqe *swqe = NULL;
	unsigned long flags;
	LIST_HEAD(batch);
	int ret = 0;

	for (; wr; wr = wr->next) {
		ret = rwx_td_check_send_wr(qp, wr);
		if (!ret) {
			swqe = rwx_td_copy_send_wr(qp, wr);
			if (!swqe)
				ret = -ENOMEM;
		}
		if (!ret) {
			spin_lock_irqsave(&qp->lock, flags);
			ret = rwx_td_queue_send(qp, swqe, wr, &batch);
			spin_unlock_irqrestore(&qp->lock, flags);
		}
		if (ret) {
			kfree(swqe);
			*bad_wr = wr;
			break;
		}
		swqe = NULL;
		if (wr->opcode == IB_WR_REG_MR_INTEGRITY)
			rwx_td_sig_status_unread(reg_wr(wr)->mr);
	}
	if (!list_empty(&batch)) {
		spin_lock_irqsave(&tdev->sq_lock, flags);
		list_splice_tail(&batch, &tdev->sq_pending);
		spin_unlock_irqrestore(&tdev->sq_lock, flags);
		rwx_td_kick(tdev);
	}
	return ret;
}

int rwx_td_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);
	const struct ib_recv_wr *next;
	struct rwx_td_rwqe *rwqe;
	bool flush = false;
	unsigned long flags;
	int ret = 0;

	/*
	 * Nothing of a WR is read once it is on the receive queue: a send
	 * may consume it at once, and its ULP repost or free it.
	 */
	for (; wr; wr = next) {
		next = wr->next;
		if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_recv_sge ||
		    (wr->num_sge && !wr->sg_list)) {
			ret = -EINVAL;
			break;
		}
		rwqe = kzalloc(struct_size(rwqe, sge, wr->num_sge), GFP_ATOMIC);
		if (!rwqe) {
			ret = -ENOMEM;
			break;
		}
		rwqe->wr_id = wr->wr_id;
		rwqe->num_sge = wr->num_sge;
		if (wr->num_sge)
			memcpy(rwqe->sge, wr->sg_list,
			       wr->num_sge * sizeof(*wr->sg_list));

		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state == IB_QPS_RESET)
			ret = -EINVAL;
		else if (qp->rq_used >= qp->cap.max_recv_wr)
			ret = -ENOMEM;
		if (!ret) {
			list_add_tail(&rwqe->node, &qp->rq);
			qp->rq_used++;
			flush |= qp->state == IB_QPS_ERR;
		}
		spin_unlock_irqrestore(&qp->lock, flags);
		if (ret) {
			kfree(rwqe);
			break;
		}
	}
	if (ret)
		*bad_wr = wr;
	if (flush)
		rwx_td_kick(qp->tdev);
	return ret;
}
