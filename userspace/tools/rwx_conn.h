/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What rwx_perf, rwx_postbench and the Soft-RoCE test program share: an
 * rdma_cm endpoint with one registered buffer, and accepting one
 * connection from a thread (a process connecting to itself).
 */
#ifndef RWX_CONN_H
#define RWX_CONN_H

#include <stddef.h>
#include <rdma/rdma_cma.h>

struct rwx_conn {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	char *buf;
	size_t buf_len;
};

/* A buffer of @len bytes for @c->id, registered for every access. */
int rwx_conn_buf(struct rwx_conn *c, size_t len);
/* Deregisters, frees and destroys what @c holds. */
void rwx_conn_close(struct rwx_conn *c);

struct rwx_accept {
	struct rdma_cm_id *listen;	/* in */
	/* in: if set, the accepted id's QP is made by rwx_create_qp() so */
	struct ibv_qp_init_attr *wr_qp;
	struct rdma_cm_id *id;		/* out: the accepted id */
	int ret, err;			/* out: 0, or -1 and errno */
};

/*
 * Waits up to @timeout_ms for the peer of the connected sync-mode @id to
 * disconnect (RDMA_CM_EVENT_DISCONNECTED on @id's own channel).  The side
 * that received the last message calls this instead of disconnecting
 * itself: see rwx_conn.c.  0, or -1 with errno (ETIMEDOUT, or EPROTO for
 * another event).
 */
int rwx_conn_await_disconnect(struct rdma_cm_id *id, int timeout_ms);

/*
 * pthread start routine: rdma_get_request(), (rwx_create_qp() with
 * wr_qp), then rdma_accept().
 */
void *rwx_accept_one(void *arg);

#endif
