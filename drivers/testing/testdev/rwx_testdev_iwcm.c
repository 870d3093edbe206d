// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: the iWARP connection manager of an iWARP instance
 * (caps.iwarp), what iw_cm and rdma_cm need to connect two of its QPs,
 * so that the kernel's ULPs run on the iWARP sets.
 *
 * Both ends are on the instance, as with the RoCE port: a connect finds
 * the listener of its destination port in the instance's table and hands
 * it a connection request; the accept peers the two QPs (each one's
 * dest_qp_num the other's, as rwx_testdev_connect() does) and moves them
 * to RTS, which an iWARP provider does itself; data then moves as on any
 * instance.  A QP moved to SQD or ERR by iw_cm (a disconnect), or
 * destroyed, closes its connection: CLOSE to its own cm_id, DISCONNECT
 * then CLOSE to the peer's, whose QP goes to the error state.  The events
 * follow siw (drivers/infiniband/sw/siw/siw_cm.c); iw_cm queues each on
 * its own work, so they are delivered from any context here.
 * A request that no one accepts or rejects (its listener went away)
 * times out as a connect would.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include <rdma/iw_cm.h>

#include "rwx_testdev_internal.h"

#define RWX_TD_IW_TIMEOUT	(10 * HZ)

enum rwx_td_iw_state {
	RWX_TD_IW_REQUESTED,	/* connect request out, not answered */
	RWX_TD_IW_ESTABLISHED,
	RWX_TD_IW_CLOSED,	/* rejected, timed out or closed */
};

/**
 * struct rwx_td_iw_listener - a listening cm_id (a reference held)
 * @node: in the instance's iw_listeners
 * @cm_id: the cm_id; its m_local_addr is the address and port
 */
struct rwx_td_iw_listener {
	struct list_head node;
	struct iw_cm_id *cm_id;
};

/**
 * struct rwx_td_iw_conn - a connection, from its request on
 * @node: in the instance's iw_conns
 * @tdev: the instance
 * @state: where it is (under the instance's iw_lock)
 * @active: the connecting cm_id (a reference held until it is closed)
 * @passive: the accepting cm_id (likewise, from the accept)
 * @active_qp: the connecting QP
 * @passive_qp: the accepting QP
 * @timeout: fails a request that nobody answers
 */
struct rwx_td_iw_conn {
	struct list_head node;
	struct rwx_testdev *tdev;
	enum rwx_td_iw_state state;
	struct iw_cm_id *active;
	struct iw_cm_id *passive;
	struct rwx_td_qp *active_qp;
	struct rwx_td_qp *passive_qp;
	struct delayed_work timeout;
};

static struct rwx_testdev *rwx_td_iw_tdev(struct iw_cm_id *cm_id)
{
	return to_tdev(cm_id->device);
}

/* Whether a listener on @listen takes a connection to @dst. */
static bool rwx_td_iw_addr_match(const struct sockaddr_storage *listen,
				 const struct sockaddr_storage *dst)
{
	const struct sockaddr_in *l4 = (const void *)listen;
	const struct sockaddr_in *d4 = (const void *)dst;
	const struct sockaddr_in6 *l6 = (const void *)listen;
	const struct sockaddr_in6 *d6 = (const void *)dst;

	if (listen->ss_family != dst->ss_family)
		return false;
	if (listen->ss_family == AF_INET)
		return l4->sin_port == d4->sin_port &&
		       (l4->sin_addr.s_addr == htonl(INADDR_ANY) ||
			l4->sin_addr.s_addr == d4->sin_addr.s_addr);
	if (listen->ss_family == AF_INET6)
		return l6->sin6_port == d6->sin6_port &&
		       (ipv6_addr_any(&l6->sin6_addr) ||
			ipv6_addr_equal(&l6->sin6_addr, &d6->sin6_addr));
	return false;
}

static struct rwx_td_iw_listener *
rwx_td_iw_find_listener(struct rwx_testdev *tdev,
			const struct sockaddr_storage *dst)
{
	struct rwx_td_iw_listener *l;

	lockdep_assert_held(&tdev->iw_lock);
	list_for_each_entry(l, &tdev->iw_listeners, node)
		if (rwx_td_iw_addr_match(&l->cm_id->m_local_addr, dst))
			return l;
	return NULL;
}

/* An event to @cm_id: its connection's addresses as @cm_id sees them. */
static void rwx_td_iw_event(struct iw_cm_id *cm_id,
			    enum iw_cm_event_type type, int status,
			    const void *pdata, u8 pdata_len)
{
	struct iw_cm_event ev = {
		.event = type,
		.status = status,
		.local_addr = cm_id->m_local_addr,
		.remote_addr = cm_id->m_remote_addr,
		.private_data = (void *)pdata,
		.private_data_len = pdata_len,
		.ird = RWX_TD_RD_ATOM,
		.ord = RWX_TD_RD_ATOM,
	};

	cm_id->event_handler(cm_id, &ev);
}

void rwx_td_iw_add_ref(struct ib_qp *ibqp)
{
	refcount_inc(&to_tdqp(ibqp)->iw_refs);
}

void rwx_td_iw_rem_ref(struct ib_qp *ibqp)
{
	struct rwx_td_qp *qp = to_tdqp(ibqp);

	if (refcount_dec_and_test(&qp->iw_refs))
		complete(&qp->iw_released);
}

/* Called with iw_cm's cm_id spinlock held: no sleeping, no reference. */
struct ib_qp *rwx_td_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct rwx_td_qp *qp = xa_load(&to_tdev(ibdev)->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

int rwx_td_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct rwx_testdev *tdev = rwx_td_iw_tdev(cm_id);
	struct rwx_td_iw_listener *l, *other;
	int ret = 0;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->cm_id = cm_id;
	mutex_lock(&tdev->iw_lock);
	list_for_each_entry(other, &tdev->iw_listeners, node)
		if (rwx_td_iw_addr_match(&other->cm_id->m_local_addr,
					 &cm_id->m_local_addr) ||
		    rwx_td_iw_addr_match(&cm_id->m_local_addr,
					 &other->cm_id->m_local_addr)) {
			ret = -EADDRINUSE;
			break;
		}
	if (!ret) {
		cm_id->add_ref(cm_id);
		cm_id->provider_data = l;
		list_add_tail(&l->node, &tdev->iw_listeners);
	}
	mutex_unlock(&tdev->iw_lock);
	if (ret)
		kfree(l);
	return ret;
}

int rwx_td_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct rwx_testdev *tdev = rwx_td_iw_tdev(cm_id);
	struct rwx_td_iw_listener *l = cm_id->provider_data;

	if (!l)
		return -EINVAL;
	mutex_lock(&tdev->iw_lock);
	list_del(&l->node);
	mutex_unlock(&tdev->iw_lock);
	cm_id->provider_data = NULL;
	cm_id->rem_ref(cm_id);
	kfree(l);
	return 0;
}

/* Ends @conn's request with CONNECT_REPLY(@status); iw_lock held. */
static void rwx_td_iw_fail_request(struct rwx_td_iw_conn *conn, int status,
				   const void *pdata, u8 pdata_len)
{
	lockdep_assert_held(&conn->tdev->iw_lock);
	conn->state = RWX_TD_IW_CLOSED;
	WRITE_ONCE(conn->active_qp->iw_conn, NULL);
	rwx_td_iw_event(conn->active, IW_CM_EVENT_CONNECT_REPLY, status,
			pdata, pdata_len);
	conn->active->rem_ref(conn->active);
	conn->active = NULL;
}

static void rwx_td_iw_timeout(struct work_struct *work)
{
	struct rwx_td_iw_conn *conn =
		container_of(to_delayed_work(work), struct rwx_td_iw_conn,
			     timeout);

	mutex_lock(&conn->tdev->iw_lock);
	if (conn->state == RWX_TD_IW_REQUESTED)
		rwx_td_iw_fail_request(conn, -ETIMEDOUT, NULL, 0);
	mutex_unlock(&conn->tdev->iw_lock);
}

int rwx_td_iw_connect(struct iw_cm_id *cm_id,
		      struct iw_cm_conn_param *param)
{
	struct rwx_testdev *tdev = rwx_td_iw_tdev(cm_id);
	struct iw_cm_event ev = {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.local_addr = cm_id->m_remote_addr,
		.remote_addr = cm_id->m_local_addr,
		.private_data = (void *)param->private_data,
		.private_data_len = param->private_data_len,
		.ird = param->ird,
		.ord = param->ord,
	};
	struct rwx_td_iw_listener *l;
	struct rwx_td_iw_conn *conn;
	struct rwx_td_qp *qp;
	int ret = -ECONNREFUSED;

	qp = xa_load(&tdev->qps, param->qpn);
	if (!qp || qp->type != IB_QPT_RC)
		return -EINVAL;
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	conn->tdev = tdev;
	conn->state = RWX_TD_IW_REQUESTED;
	conn->active = cm_id;
	conn->active_qp = qp;
	INIT_DELAYED_WORK(&conn->timeout, rwx_td_iw_timeout);
	ev.provider_data = conn;

	mutex_lock(&tdev->iw_lock);
	l = rwx_td_iw_find_listener(tdev, &cm_id->m_remote_addr);
	/* The request is the listener's to take: only then is it ours. */
	if (l && !l->cm_id->event_handler(l->cm_id, &ev)) {
		cm_id->add_ref(cm_id);
		WRITE_ONCE(qp->iw_conn, conn);
		list_add_tail(&conn->node, &tdev->iw_conns);
		queue_delayed_work(tdev->wq, &conn->timeout,
				   RWX_TD_IW_TIMEOUT);
		ret = 0;
	}
	mutex_unlock(&tdev->iw_lock);
	if (ret)
		kfree(conn);
	return ret;
}

static void rwx_td_iw_peer(struct rwx_td_qp *qp, u32 dest)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->dest_qp_num = dest;
	if (qp->state == IB_QPS_INIT || qp->state == IB_QPS_RTR)
		qp->state = IB_QPS_RTS;
	spin_unlock_irqrestore(&qp->lock, flags);
}

/* Frees @conn, unlinked: its timeout may be running still. */
static void rwx_td_iw_free(struct rwx_td_iw_conn *conn)
{
	cancel_delayed_work_sync(&conn->timeout);
	kfree(conn);
}

int rwx_td_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param)
{
	struct rwx_testdev *tdev = rwx_td_iw_tdev(cm_id);
	struct rwx_td_iw_conn *conn = cm_id->provider_data;
	struct rwx_td_qp *qp;
	int ret;

	if (!conn)
		return -EINVAL;
	qp = xa_load(&tdev->qps, param->qpn);
	mutex_lock(&tdev->iw_lock);
	if (conn->state == RWX_TD_IW_REQUESTED && qp && qp->type == IB_QPT_RC) {
		conn->state = RWX_TD_IW_ESTABLISHED;
		/* Before the connection is reachable: then it may go any time. */
		cancel_delayed_work(&conn->timeout);
		cm_id->add_ref(cm_id);
		conn->passive = cm_id;
		conn->passive_qp = qp;
		WRITE_ONCE(qp->iw_conn, conn);
		rwx_td_iw_peer(qp, conn->active_qp->ibqp.qp_num);
		rwx_td_iw_peer(conn->active_qp, qp->ibqp.qp_num);
		rwx_td_iw_event(cm_id, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0);
		rwx_td_iw_event(conn->active, IW_CM_EVENT_CONNECT_REPLY, 0,
				param->private_data, param->private_data_len);
		mutex_unlock(&tdev->iw_lock);
		return 0;
	}
	ret = conn->state == RWX_TD_IW_REQUESTED ? -EINVAL : -ECONNRESET;
	mutex_unlock(&tdev->iw_lock);
	/*
	 * iw_cm asks nothing more of a request whose accept failed: it ends
	 * here as a rejected one does (only an accept of @cm_id establishes).
	 */
	rwx_td_iw_reject(cm_id, NULL, 0);
	return ret;
}

int rwx_td_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct rwx_testdev *tdev = rwx_td_iw_tdev(cm_id);
	struct rwx_td_iw_conn *conn = cm_id->provider_data;
	int ret = -ECONNRESET;

	if (!conn)
		return -EINVAL;
	mutex_lock(&tdev->iw_lock);
	if (conn->state != RWX_TD_IW_ESTABLISHED) {
		if (conn->state == RWX_TD_IW_REQUESTED)
			rwx_td_iw_fail_request(conn, -ECONNREFUSED, pdata,
					       pdata_len);
		list_del(&conn->node);
		ret = 0;
	}
	mutex_unlock(&tdev->iw_lock);
	if (!ret) {
		cm_id->provider_data = NULL;
		rwx_td_iw_free(conn);
	}
	return ret;
}

/*
 * @qp leaves RTS (iw_cm's disconnect: SQD or ERR) or is destroyed: its
 * connection, if it has one, closes.  The peer QP goes to the error
 * state; each cm_id gets its events and loses the reference held on it.
 */
void rwx_td_iw_close(struct rwx_td_qp *qp)
{
	struct rwx_testdev *tdev = qp->tdev;
	struct rwx_td_iw_conn *conn;
	struct iw_cm_id *mine, *peer;
	struct rwx_td_qp *peer_qp;

	if (!READ_ONCE(qp->iw_conn))
		return;
	mutex_lock(&tdev->iw_lock);
	conn = qp->iw_conn;
	if (!conn || conn->state != RWX_TD_IW_ESTABLISHED) {
		if (conn && conn->state == RWX_TD_IW_REQUESTED &&
		    conn->active_qp == qp)	/* destroyed while connecting */
			rwx_td_iw_fail_request(conn, -ECONNRESET, NULL, 0);
		mutex_unlock(&tdev->iw_lock);
		return;
	}
	conn->state = RWX_TD_IW_CLOSED;
	list_del(&conn->node);
	mine = qp == conn->active_qp ? conn->active : conn->passive;
	peer = qp == conn->active_qp ? conn->passive : conn->active;
	peer_qp = qp == conn->active_qp ? conn->passive_qp : conn->active_qp;
	WRITE_ONCE(conn->active_qp->iw_conn, NULL);
	WRITE_ONCE(conn->passive_qp->iw_conn, NULL);
	rwx_td_qp_set_error(peer_qp);
	rwx_td_iw_event(mine, IW_CM_EVENT_CLOSE, 0, NULL, 0);
	rwx_td_iw_event(peer, IW_CM_EVENT_DISCONNECT, 0, NULL, 0);
	rwx_td_iw_event(peer, IW_CM_EVENT_CLOSE, 0, NULL, 0);
	mutex_unlock(&tdev->iw_lock);
	rwx_td_kick(tdev);	/* flushes the peer's queues */
	mine->rem_ref(mine);
	peer->rem_ref(peer);
	rwx_td_iw_free(conn);
}

/* What the instance holds at its end: requests nobody answered. */
void rwx_td_iw_exit(struct rwx_testdev *tdev)
{
	struct rwx_td_iw_conn *conn, *tmp;

	list_for_each_entry_safe(conn, tmp, &tdev->iw_conns, node) {
		list_del(&conn->node);
		rwx_td_iw_free(conn);
	}
}
