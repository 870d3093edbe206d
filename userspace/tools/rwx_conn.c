// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rdma_cm endpoints for the tools and the Soft-RoCE test (rwx_conn.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rwx_verbs.h>

#include "rwx_conn.h"

/*
 * The buffer and its MR are one page longer than asked: Linux 6.1's rxe
 * reads a pointer past the end of its page map when a copy ends exactly
 * where an MR of 256 * k pages ends (a KASAN report on a debug kernel;
 * fixed by the rxe MR rewrite in 6.3).
 */
int rwx_conn_buf(struct rwx_conn *c, size_t len)
{
	size_t reg_len = ((len + 4095) & ~(size_t)4095) + 4096;

	c->buf_len = len;
	c->buf = aligned_alloc(4096, reg_len);
	if (!c->buf) {
		perror("aligned_alloc");
		return -1;
	}
	memset(c->buf, 0x5a, reg_len);
	c->mr = ibv_reg_mr(c->id->pd, c->buf, reg_len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr) {
		perror("ibv_reg_mr");
		return -1;
	}
	return 0;
}

void rwx_conn_close(struct rwx_conn *c)
{
	if (c->mr)
		rdma_dereg_mr(c->mr);
	free(c->buf);
	if (c->id)
		rdma_destroy_ep(c->id);
	memset(c, 0, sizeof(*c));
}

/*
 * A receiver that disconnects as soon as it has the last message moves its
 * QP to the error state, possibly before its responder has acknowledged
 * that message.  Linux 6.1's rxe then drops the ACK (rxe_xmit_packet()
 * sends nothing from a responder that is not ready; 6.12 only checks for
 * RTR), and retries a lost ACK forever at retry_cnt 7, librdmacm's default:
 * the sender's last completion never comes.  So the receiver lets the last
 * sender, whose completions are all in, disconnect first.  rdma_disconnect()
 * is not called afterwards: in sync mode it would wait for the id's next
 * event, TIMEWAIT_EXIT, after the CM's timewait; rdma_destroy_ep() answers
 * the peer's request.
 */
int rwx_conn_await_disconnect(struct rdma_cm_id *id, int timeout_ms)
{
	struct pollfd pfd = { .fd = id->channel->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int ret, type;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret <= 0) {
		if (!ret)
			errno = ETIMEDOUT;
		return -1;
	}
	if (rdma_get_cm_event(id->channel, &ev))
		return -1;
	type = ev->event;
	rdma_ack_cm_event(ev);
	if (type != RDMA_CM_EVENT_DISCONNECTED) {
		fprintf(stderr, "rwx_conn: %s while waiting for the peer to disconnect\n",
			rdma_event_str(type));
		errno = EPROTO;
		return -1;
	}
	return 0;
}

void *rwx_accept_one(void *arg)
{
	struct rwx_accept *a = arg;

	a->ret = rdma_get_request(a->listen, &a->id);
	if (!a->ret && a->wr_qp)
		a->ret = rwx_create_qp(a->id, NULL, a->wr_qp);
	if (!a->ret)
		a->ret = rdma_accept(a->id, NULL);
	a->err = errno;
	return NULL;
}
