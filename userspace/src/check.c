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

/*
 * A WR of rwx_post_list(), the caller's own: rwxi_check_send_wr()'s
 * opcodes, and three that move no data of an SGE list's own kind:
 * LOCAL_INV and BIND_MW (no SGEs, nothing inline; BIND_MW names its
 * window), and TSO on UD and raw packet QPs (a segment size, and a header
 * wherever a header size is given).  ATOMIC_WRITE and the driver opcodes
 * are refused: whether the device takes them cannot be told here.
 */
int rwxi_check_list_wr(const struct ibv_send_wr *wr, uint32_t max_sge,
		       enum ibv_qp_type qp_type)
{
	if (!wr)
		return EINVAL;
	switch (wr->opcode) {
	case IBV_WR_LOCAL_INV:
		return (wr->num_sge || (wr->send_flags & IBV_SEND_INLINE)) ?
		       EINVAL : 0;
	case IBV_WR_BIND_MW:
		return (wr->num_sge || (wr->send_flags & IBV_SEND_INLINE) ||
			!wr->bind_mw.mw) ? EINVAL : 0;
	case IBV_WR_TSO:
		if (qp_type != IBV_QPT_UD && qp_type != IBV_QPT_RAW_PACKET)
			return EINVAL;
		if (!wr->tso.mss || (wr->tso.hdr_sz && !wr->tso.hdr))
			return EINVAL;
		return rwxi_check_nsge(wr->num_sge, wr->sg_list != NULL,
				       max_sge);
	default:
		return rwxi_check_send_wr(wr, max_sge);
	}
}

/*
 * An inline WR's data within the QP's max_inline_data.  Not checked before
 * a post (a sum over the SGEs on every inline post): a provider refuses
 * such a WR, and a post it fails is decided again with this check
 * (post.c), which turns its errno (ENOMEM on mlx5) into EINVAL.
 */
int rwxi_check_inline(const struct ibv_send_wr *wr, uint32_t max_inline)
{
	uint64_t len = 0;
	int i;

	if (!(wr->send_flags & IBV_SEND_INLINE))
		return 0;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return len > max_inline ? EINVAL : 0;
}

/* SGEs per WR: the QP's send limit, for READs also the device's. */
uint32_t rwxi_rw_max_sge(const struct rwxi_caps *caps, enum rwx_rw_dir dir)
{
	uint32_t n = caps->max_send_sge;

	if (dir == RWX_RW_READ && caps->max_sge_rd && caps->max_sge_rd < n)
		n = caps->max_sge_rd;
	return n;
}
