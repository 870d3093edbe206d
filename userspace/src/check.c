// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Pure validation: plain values in, 0 or a positive errno out.  Nothing
 * here touches a device, so every rule is unit-tested on the host.  The
 * rules of the posting path are static inline in rwx_internal.h.
 */
#include <errno.h>
#include <stdint.h>

#include "rwx_internal.h"

int rwxi_check_timeout(int timeout_ms)
{
	return timeout_ms < -1 ? EINVAL : 0;
}

/*
 * RDMA READ needs a reliable connection; RDMA WRITE also runs on UC.  Not
 * XRC_SEND: the context's WRs have no remote SRQ number to give.
 */
int rwxi_check_rw_qp(enum ibv_qp_type type, enum rwx_rw_dir dir)
{
	switch (dir) {
	case RWX_RW_READ:
		return type == IBV_QPT_RC ? 0 : EINVAL;
	case RWX_RW_WRITE:
		return (type == IBV_QPT_RC || type == IBV_QPT_UC) ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

/* SGEs per WR: the QP's send limit, for READs also the device's. */
uint32_t rwxi_rw_max_sge(const struct rwxi_caps *caps, enum rwx_rw_dir dir)
{
	uint32_t n = caps->max_send_sge;

	if (dir == RWX_RW_READ && caps->max_sge_rd && caps->max_sge_rd < n)
		n = caps->max_sge_rd;
	return n;
}
