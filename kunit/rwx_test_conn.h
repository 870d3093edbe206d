/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Test fixture: two RC QPs on one RDMA device, connected to each other
 * through the in-kernel RDMA CM (so it works for RoCE and iWARP alike),
 * sharing one PD whose unsafe global rkey exposes any DMA address to the
 * peer.  Used by the KUnit suites that move real data.
 */
#ifndef _RWX_TEST_CONN_H
#define _RWX_TEST_CONN_H

#include <linux/completion.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* What a test asks of the connection. */
struct rwx_test_conn_params {
	const char *addr;		/* IPv4 address of the device's netdev */
	u32 max_send_wr;
	u32 max_send_sge;		/* clamped to the device's limit */
	u32 max_rdma_ctxs;		/* > 0 makes core create the QP's MR pool */
};

enum rwx_test_side { RWX_CLIENT, RWX_SERVER, RWX_SIDES };

struct rwx_test_conn {
	struct rwx_test_conn_params params;
	struct ib_device *device;
	struct ib_pd *pd;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id[RWX_SIDES];
	struct ib_cq *cq[RWX_SIDES];
	struct ib_qp *qp[RWX_SIDES];
	struct completion established;	/* both sides, or an error */
	int established_count;
	int error;
	const char *error_what;
	spinlock_t lock;			/* error, established_count */
};

int rwx_test_conn_setup(struct rwx_test_conn *conn,
			const struct rwx_test_conn_params *params);
void rwx_test_conn_teardown(struct rwx_test_conn *conn);

/* One signaled WR's completion, waited for synchronously. */
struct rwx_test_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
};

void rwx_test_wait_init(struct rwx_test_wait *wait);
/* 0, -ETIMEDOUT, or -EIO when the completion carried an error status. */
int rwx_test_wait_for(struct rwx_test_wait *wait);

#endif /* _RWX_TEST_CONN_H */
