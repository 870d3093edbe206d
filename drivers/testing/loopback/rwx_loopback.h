/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwx_loopback: two RC QPs on one RDMA device, connected to each other
 * through the in-kernel RDMA CM (so it works for RoCE and iWARP alike),
 * or directly on a device without an address (the test device),
 * sharing one PD whose unsafe global rkey exposes any DMA address to the
 * peer.  For the KUnit suites and the demo only: an unsafe global rkey
 * has no place on a real network.  Exported in the RDMA_RWX_LOOPBACK
 * namespace by rwx_loopback.ko.
 */
#ifndef _RDMA_RWX_LOOPBACK_H
#define _RDMA_RWX_LOOPBACK_H

#include <linux/completion.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* What the caller asks of the connection. */
struct rwx_loopback_params {
	const char *addr;		/* IPv4 address of the device's netdev */
	u32 max_send_wr;
	u32 max_send_sge;		/* clamped to the device's limit */
	u32 max_rdma_ctxs;		/* > 0 makes core create the QP's MR pool */
	u32 create_flags;		/* IB_QP_CREATE_*, e.g. INTEGRITY_EN */
	u8 ack_timeout;			/* > 0: the client's local ACK timeout,
					 * 4.096 us * 2^n (rdma_set_ack_timeout)
					 */
};

enum rwx_loopback_side { RWX_CLIENT, RWX_SERVER, RWX_SIDES };

struct rwx_loopback {
	struct rwx_loopback_params params;
	struct ib_device *device;
	u32 port_num;
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

int rwx_loopback_setup(struct rwx_loopback *conn,
		       const struct rwx_loopback_params *params);
int rwx_loopback_setup_direct(struct rwx_loopback *conn,
			      const struct rwx_loopback_params *params,
			      struct ib_device *device,
			      int (*connect)(struct ib_qp *a, struct ib_qp *b));
void rwx_loopback_teardown(struct rwx_loopback *conn);

/* One signaled WR's completion, waited for synchronously. */
struct rwx_loopback_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
};

void rwx_loopback_wait_init(struct rwx_loopback_wait *wait);
/* 0, -ETIMEDOUT, or -EIO when the completion carried an error status. */
int rwx_loopback_wait_for(struct rwx_loopback_wait *wait);

#endif /* _RDMA_RWX_LOOPBACK_H */
