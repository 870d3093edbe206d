// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Pure validation: plain values in, 0 or a positive errno out.  Nothing
 * here touches a device, so every rule is unit-tested on the host.
 */
#include <errno.h>
#include <stdint.h>

#include "rwx_internal.h"

/* librdmacm stores size_t lengths in a 32-bit SGE field, truncating. */
int rwxi_check_len(size_t len)
{
	return (uint64_t)len > UINT32_MAX ? EINVAL : 0;
}

int rwxi_check_nsge(int nsge, int sgl_present, uint32_t max_sge)
{
	if (nsge < 0)
		return EINVAL;
	if (nsge > 0 && !sgl_present)
		return EINVAL;
	if ((uint32_t)nsge > max_sge)
		return EINVAL;
	return 0;
}

/*
 * [addr, addr + len) inside [mr_addr, mr_addr + mr_len)?  Written with
 * subtractions only, so no sum can wrap around the address space.
 */
int rwxi_check_range(uintptr_t addr, size_t len, uintptr_t mr_addr,
		     size_t mr_len)
{
	if (addr < mr_addr)
		return EINVAL;
	if (len > mr_len)
		return EINVAL;
	if (addr - mr_addr > mr_len - len)
		return EINVAL;
	return 0;
}

/*
 * A local buffer for a single-buffer post.  Without an MR the data must
 * be inline (when the operation allows it), or there must be no data at
 * all: a zero-length message touches no memory and needs no lkey.
 */
int rwxi_check_buf(uintptr_t addr, size_t len, int have_mr,
		   uintptr_t mr_addr, size_t mr_len, int inline_ok)
{
	int ret = rwxi_check_len(len);

	if (ret)
		return ret;
	if (!have_mr)
		return (len == 0 || inline_ok) ? 0 : EINVAL;
	return rwxi_check_range(addr, len, mr_addr, mr_len);
}

/* Atomics work on one naturally aligned 8-byte word at both ends. */
int rwxi_check_atomic(uint64_t addr, size_t len, uint64_t remote_addr)
{
	if (len != 8)
		return EINVAL;
	if (addr % 8 || remote_addr % 8)
		return EINVAL;
	return 0;
}

static int opcode_known(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_SEND_WITH_INV:
		return 1;
	default:
		return 0;
	}
}

static int opcode_is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * One caller-built send WR: the checks that can be made without knowing
 * which MR an lkey belongs to.
 */
int rwxi_check_send_wr(const struct ibv_send_wr *wr, uint32_t max_sge)
{
	int ret;

	if (!wr || !opcode_known(wr->opcode))
		return EINVAL;
	ret = rwxi_check_nsge(wr->num_sge, wr->sg_list != NULL, max_sge);
	if (ret)
		return ret;
	if (opcode_is_atomic(wr->opcode)) {
		if (wr->num_sge != 1 || (wr->send_flags & IBV_SEND_INLINE))
			return EINVAL;
		return rwxi_check_atomic(wr->sg_list[0].addr,
					 wr->sg_list[0].length,
					 wr->wr.atomic.remote_addr);
	}
	/* Inline data is only gathered for operations that send data. */
	if (wr->opcode == IBV_WR_RDMA_READ &&
	    (wr->send_flags & IBV_SEND_INLINE))
		return EINVAL;
	return 0;
}

int rwxi_check_timeout(int timeout_ms)
{
	return timeout_ms < -1 ? EINVAL : 0;
}

/* RDMA READ needs a reliable connection; RDMA WRITE also runs on UC. */
int rwxi_check_rw_qp(enum ibv_qp_type type, enum rwx_rw_dir dir)
{
	switch (dir) {
	case RWX_RW_READ:
		return (type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND) ?
		       0 : EINVAL;
	case RWX_RW_WRITE:
		return (type == IBV_QPT_RC || type == IBV_QPT_UC ||
			type == IBV_QPT_XRC_SEND) ? 0 : EINVAL;
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
