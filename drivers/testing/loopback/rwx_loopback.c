// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_loopback: a connected pair of RC QPs on one device, set up through
 * the in-kernel RDMA CM, for the KUnit suites and the demo.  Everything
 * the CM hands us is created inside the CM event handler, as ULPs do;
 * teardown first destroys the CM IDs (after which no handler runs) and
 * then the verbs objects.
 */

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/module.h>

#include "rwx_loopback.h"

#define RWX_LOOPBACK_CM_TIMEOUT_MS	5000
#define RWX_LOOPBACK_WAIT		(30 * HZ)	/* TCG guests are slow */

static void rwx_loopback_fail(struct rwx_loopback *conn, int error,
			      const char *what)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	if (!conn->error) {
		conn->error = error;
		conn->error_what = what;
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	complete(&conn->established);
}

/*
 * The PD (on first use) and one side's CQ on @device, and that side's QP
 * attributes: what the CM and the direct setup share.
 */
static int rwx_loopback_prepare_qp(struct rwx_loopback *conn,
				   enum rwx_loopback_side side,
				   struct ib_device *device, u32 port_num,
				   struct ib_qp_init_attr *attr)
{
	const struct rwx_loopback_params *p = &conn->params;
	struct ib_cq *cq;
	int ret;

	if (!conn->device) {
		conn->device = device;
		conn->port_num = port_num;
		conn->pd = ib_alloc_pd(device, IB_PD_UNSAFE_GLOBAL_RKEY);
		if (IS_ERR(conn->pd)) {
			ret = PTR_ERR(conn->pd);
			conn->pd = NULL;
			return ret;
		}
	} else if (conn->device != device) {
		return -EXDEV;
	}

	cq = ib_alloc_cq(device, conn, p->max_send_wr * 2 + 16, 0,
			 IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	conn->cq[side] = cq;

	memset(attr, 0, sizeof(*attr));
	attr->send_cq = cq;
	attr->recv_cq = cq;
	attr->qp_type = IB_QPT_RC;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->port_num = port_num;
	attr->cap.max_send_wr = p->max_send_wr;
	attr->cap.max_recv_wr = 16;
	attr->cap.max_send_sge = min_t(u32, p->max_send_sge,
				       device->attrs.max_send_sge);
	attr->cap.max_recv_sge = 1;
	attr->cap.max_rdma_ctxs = p->max_rdma_ctxs;
	attr->create_flags = p->create_flags;
	return 0;
}

static int rwx_loopback_create_qp(struct rwx_loopback *conn,
				  enum rwx_loopback_side side,
				  struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr;
	int ret;

	ret = rwx_loopback_prepare_qp(conn, side, id->device, id->port_num,
				      &attr);
	if (!ret)
		ret = rdma_create_qp(id, conn->pd, &attr);
	if (ret)
		return ret;
	conn->qp[side] = id->qp;
	return 0;
}

static void rwx_loopback_param(struct rwx_loopback *conn,
			       struct rdma_conn_param *param)
{
	const struct ib_device_attr *attrs = &conn->device->attrs;
	u8 depth = min3(attrs->max_qp_rd_atom, attrs->max_qp_init_rd_atom, 16);

	memset(param, 0, sizeof(*param));
	param->responder_resources = depth;
	param->initiator_depth = depth;
	param->retry_count = 7;
	param->rnr_retry_count = 7;
}

static void rwx_loopback_established(struct rwx_loopback *conn)
{
	unsigned long flags;
	bool both;

	spin_lock_irqsave(&conn->lock, flags);
	both = ++conn->established_count == RWX_SIDES;
	spin_unlock_irqrestore(&conn->lock, flags);
	if (both)
		complete(&conn->established);
}

static int rwx_loopback_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *event)
{
	struct rwx_loopback *conn = id->context;
	struct rdma_conn_param param;
	int ret;

	switch (event->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, RWX_LOOPBACK_CM_TIMEOUT_MS);
		if (ret)
			rwx_loopback_fail(conn, ret, "rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = rwx_loopback_create_qp(conn, RWX_CLIENT, id);
		if (ret) {
			rwx_loopback_fail(conn, ret, "client QP");
			break;
		}
		rwx_loopback_param(conn, &param);
		ret = rdma_connect_locked(id, &param);
		if (ret)
			rwx_loopback_fail(conn, ret, "rdma_connect");
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (conn->id[RWX_SERVER]) {
			rwx_loopback_fail(conn, -EBUSY, "second connect request");
			return -EBUSY;	/* the CM destroys this new ID */
		}
		ret = rwx_loopback_create_qp(conn, RWX_SERVER, id);
		if (!ret) {
			rwx_loopback_param(conn, &param);
			ret = rdma_accept(id, &param);
		}
		if (ret) {
			if (conn->qp[RWX_SERVER])
				rdma_destroy_qp(id);
			conn->qp[RWX_SERVER] = NULL;
			rwx_loopback_fail(conn, ret, "server accept");
			return ret;	/* the CM destroys this new ID */
		}
		conn->id[RWX_SERVER] = id;
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rwx_loopback_established(conn);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		rwx_loopback_fail(conn, event->status ? event->status : -ECONNABORTED,
				  rdma_event_msg(event->event));
		break;
	default:
		break;
	}
	return 0;
}

static struct rdma_cm_id *rwx_loopback_create_id(struct rwx_loopback *conn)
{
	return rdma_create_id(&init_net, rwx_loopback_handler, conn,
			      RDMA_PS_TCP, IB_QPT_RC);
}

/**
 * rwx_loopback_setup() - connect two RC QPs on the device owning an address
 * @conn: fixture to fill in; rwx_loopback_teardown() releases it, also
 *	after a failed setup
 * @params: address and QP sizing
 *
 * Return: 0, or a negative errno (conn->error_what says which step failed).
 */
int rwx_loopback_setup(struct rwx_loopback *conn,
		       const struct rwx_loopback_params *params)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	int ret;

	memset(conn, 0, sizeof(*conn));
	conn->params = *params;
	init_completion(&conn->established);
	spin_lock_init(&conn->lock);

	if (!in4_pton(params->addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		conn->error_what = "bad address";
		return -EINVAL;
	}

	id = rwx_loopback_create_id(conn);
	if (IS_ERR(id)) {
		conn->error_what = "rdma_create_id";
		return PTR_ERR(id);
	}
	conn->listen_id = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 1);
	if (ret) {
		conn->error_what = "bind/listen";
		return ret;
	}
	/* The port the bind picked. */
	sin.sin_port = ((struct sockaddr_in *)&id->route.addr.src_addr)->sin_port;

	id = rwx_loopback_create_id(conn);
	if (IS_ERR(id)) {
		conn->error_what = "rdma_create_id";
		return PTR_ERR(id);
	}
	conn->id[RWX_CLIENT] = id;
	if (params->ack_timeout) {
		ret = rdma_set_ack_timeout(id, params->ack_timeout);
		if (ret) {
			conn->error_what = "rdma_set_ack_timeout";
			return ret;
		}
	}
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin,
				RWX_LOOPBACK_CM_TIMEOUT_MS);
	if (ret) {
		conn->error_what = "rdma_resolve_addr";
		return ret;
	}

	if (!wait_for_completion_timeout(&conn->established, RWX_LOOPBACK_WAIT)) {
		conn->error_what = "timed out connecting";
		return -ETIMEDOUT;
	}
	return conn->error;
}
EXPORT_SYMBOL_NS_GPL(rwx_loopback_setup, RDMA_RWX_LOOPBACK);

/**
 * rwx_loopback_setup_direct() - connect two RC QPs of a device without the CM
 * @conn: fixture to fill in; rwx_loopback_teardown() releases it, also
 *	after a failed setup
 * @params: QP sizing (@params->addr is not used)
 * @device: the device, on port 1
 * @connect: moves the two QPs to RTS, each naming the other (for example
 *	rwx_testdev_connect() of the test device)
 *
 * For devices without an address, such as the test device.
 *
 * Return: 0, or a negative errno (conn->error_what says which step failed).
 */
int rwx_loopback_setup_direct(struct rwx_loopback *conn,
			      const struct rwx_loopback_params *params,
			      struct ib_device *device,
			      int (*connect)(struct ib_qp *a, struct ib_qp *b))
{
	struct ib_qp_init_attr attr;
	struct ib_qp *qp;
	int side, ret;

	memset(conn, 0, sizeof(*conn));
	conn->params = *params;
	init_completion(&conn->established);
	spin_lock_init(&conn->lock);

	for (side = 0; side < RWX_SIDES; side++) {
		ret = rwx_loopback_prepare_qp(conn, side, device, 1, &attr);
		if (ret) {
			conn->error_what = "PD or CQ";
			return ret;
		}
		qp = ib_create_qp(conn->pd, &attr);
		if (IS_ERR(qp)) {
			conn->error_what = "ib_create_qp";
			return PTR_ERR(qp);
		}
		conn->qp[side] = qp;
	}
	ret = connect(conn->qp[RWX_CLIENT], conn->qp[RWX_SERVER]);
	if (ret)
		conn->error_what = "connect";
	return ret;
}
EXPORT_SYMBOL_NS_GPL(rwx_loopback_setup_direct, RDMA_RWX_LOOPBACK);

/**
 * rwx_loopback_teardown() - release what rwx_loopback_setup() or
 *	rwx_loopback_setup_direct() made
 * @conn: fixture, in any state setup left it in
 */
void rwx_loopback_teardown(struct rwx_loopback *conn)
{
	int side;

	if (conn->listen_id)
		rdma_destroy_id(conn->listen_id);
	if (conn->id[RWX_CLIENT] && conn->qp[RWX_CLIENT])
		rdma_disconnect(conn->id[RWX_CLIENT]);
	/* Once its ID is gone, no CM handler touches the fixture. */
	for (side = 0; side < RWX_SIDES; side++)
		if (conn->id[side])
			rdma_destroy_id(conn->id[side]);
	for (side = 0; side < RWX_SIDES; side++) {
		if (conn->qp[side])
			ib_destroy_qp(conn->qp[side]);
		if (conn->cq[side])
			ib_free_cq(conn->cq[side]);
	}
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
	memset(conn, 0, sizeof(*conn));
}
EXPORT_SYMBOL_NS_GPL(rwx_loopback_teardown, RDMA_RWX_LOOPBACK);

static void rwx_loopback_wait_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rwx_loopback_wait *wait =
		container_of(wc->wr_cqe, struct rwx_loopback_wait, cqe);

	wait->status = wc->status;
	wait->opcode = wc->opcode;
	complete(&wait->done);
}

/**
 * rwx_loopback_wait_init() - prepare a completion waiter for one WR
 * @wait: waiter; put &@wait->cqe in the signaled WR's wr_cqe
 */
void rwx_loopback_wait_init(struct rwx_loopback_wait *wait)
{
	wait->cqe.done = rwx_loopback_wait_done;
	init_completion(&wait->done);
	wait->status = IB_WC_GENERAL_ERR;
}
EXPORT_SYMBOL_NS_GPL(rwx_loopback_wait_init, RDMA_RWX_LOOPBACK);

/**
 * rwx_loopback_wait_for() - wait for the WR of a waiter to complete
 * @wait: waiter set up by rwx_loopback_wait_init()
 *
 * Return: 0, -ETIMEDOUT after 30 s, or -EIO when the completion carried an
 * error status (@wait->status says which).
 */
int rwx_loopback_wait_for(struct rwx_loopback_wait *wait)
{
	if (!wait_for_completion_timeout(&wait->done, RWX_LOOPBACK_WAIT))
		return -ETIMEDOUT;
	return wait->status == IB_WC_SUCCESS ? 0 : -EIO;
}
EXPORT_SYMBOL_NS_GPL(rwx_loopback_wait_for, RDMA_RWX_LOOPBACK);

MODULE_DESCRIPTION("rdma_rwx loopback connections for its tests and demo");
MODULE_LICENSE("GPL");
