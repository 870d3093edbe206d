// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion retrieval.
 *
 * librdmacm's rdma_get_{send,recv}_comp() poll, arm, poll again, then block
 * on the CQ's completion channel.  They dereference id->*_cq_channel, which
 * exists only when librdmacm created the CQs (rdma_create_ep(), or
 * rdma_create_qp() without caller CQs); with caller-supplied CQs they crash.
 * Here such ids get EINVAL.  rwx_wait_comp() adds a timeout by waiting for
 * the channel fd with poll(2) before reading the event.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>

#include "rwx_internal.h"

struct cq_pick {
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
};

static int pick(struct rdma_cm_id *id, enum rwx_cq_sel which,
		int need_channel, struct cq_pick *p)
{
	if (!id)
		return EINVAL;
	switch (which) {
	case RWX_SEND_CQ:
		p->cq = id->send_cq;
		p->ch = id->send_cq_channel;
		break;
	case RWX_RECV_CQ:
		p->cq = id->recv_cq;
		p->ch = id->recv_cq_channel;
		break;
	default:
		return EINVAL;
	}
	if (!p->cq || (need_channel && !p->ch))
		return EINVAL;
	return 0;
}

/* ibv_poll_cq: count >= 0, or a provider error (no errno contract). */
static int poll_some(struct ibv_cq *cq, struct ibv_wc *wc, int nwc)
{
	int n = ibv_poll_cq(cq, nwc, wc);

	if (n < 0) {
		errno = EIO;
		return -1;
	}
	return n;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Wait for the channel to become readable; -1 blocks forever. */
static int wait_readable(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	if (timeout_ms < 0)
		return 0;	/* ibv_get_cq_event() itself will block */
	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -1;
	if (ret == 0) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

/*
 * Poll, arm, poll, wait: the arm-then-repoll closes the window where a
 * completion lands between the empty poll and the arm.
 */
static int wait_comps(const struct cq_pick *p, struct ibv_wc *wc, int nwc,
		      int timeout_ms)
{
	/* In ns, and rounded up to poll()'s ms: never return early. */
	int64_t deadline = timeout_ms >= 0 ?
		now_ns() + (int64_t)timeout_ms * 1000000 : 0;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n, ret, left = -1;

	for (;;) {
		n = poll_some(p->cq, wc, nwc);
		if (n)
			return n;
		ret = ibv_req_notify_cq(p->cq, 0);
		if (ret)
			return rdma_seterrno(ret);
		n = poll_some(p->cq, wc, nwc);
		if (n)
			return n;
		if (timeout_ms >= 0) {
			int64_t rem = deadline - now_ns();

			left = rem > 0 ? (int)((rem + 999999) / 1000000) : 0;
		}
		if (wait_readable(p->ch->fd, left))
			return -1;
		if (ibv_get_cq_event(p->ch, &ev_cq, &ev_ctx))
			return -1;
		/* Ack the CQ the event names: the channel may be shared. */
		ibv_ack_cq_events(ev_cq, 1);
	}
}

static int get_comp(struct rdma_cm_id *id, enum rwx_cq_sel which,
		    struct ibv_wc *wc)
{
	struct cq_pick p;
	int ret = pick(id, which, 1, &p);

	if (!ret && !wc)
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);
	return wait_comps(&p, wc, 1, -1);
}

int rdma_get_send_comp(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	return get_comp(id, RWX_SEND_CQ, wc);
}

int rdma_get_recv_comp(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	return get_comp(id, RWX_RECV_CQ, wc);
}

/* Non-blocking: works with any CQ, librdmacm's or the caller's. */
int rwx_get_comps(struct rdma_cm_id *id, enum rwx_cq_sel which,
		  struct ibv_wc *wc, int nwc)
{
	struct cq_pick p;
	int ret = pick(id, which, 0, &p);

	if (!ret && (!wc || nwc <= 0))
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);
	return poll_some(p.cq, wc, nwc);
}

int rwx_wait_comp(struct rdma_cm_id *id, enum rwx_cq_sel which,
		  struct ibv_wc *wc, int nwc, int timeout_ms)
{
	struct cq_pick p;
	int ret = pick(id, which, 1, &p);

	if (!ret && (!wc || nwc <= 0))
		ret = EINVAL;
	if (!ret)
		ret = rwxi_check_timeout(timeout_ms);
	if (ret)
		return rdma_seterrno(ret);
	return wait_comps(&p, wc, nwc, timeout_ms);
}

int rwx_comp_fd(struct rdma_cm_id *id, enum rwx_cq_sel which)
{
	struct cq_pick p;
	int ret = pick(id, which, 1, &p);

	if (ret)
		return rdma_seterrno(ret);
	return p.ch->fd;
}
