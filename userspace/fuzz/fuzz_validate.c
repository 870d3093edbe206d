// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: the pure validators (check.c, rwx_internal.h) on any
 * values, each against a reference written here the plain way (128-bit
 * sums, no shortcuts): a range inside its MR, a buffer, an SGE count, an
 * atomic's alignment, a send WR and a list WR, inline data, the RW
 * context's SGE limit.  A disagreement aborts.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rwx_internal.h"

#define MAX_SGE 8

struct input {
	uint64_t addr, len, mr_addr, mr_len, remote;
	uint32_t max_sge, max_inline, max_sge_rd, opcode, flags, qp_type;
	int32_t nsge;
	uint8_t have_sgl, have_mr, inline_ok, dir, have_ptr;
	uint16_t mss, hdr_sz;
	struct ibv_sge sge[MAX_SGE];
};

static void must(int cond)
{
	if (!cond)
		abort();
}

static int ref_range(uint64_t addr, uint64_t len, uint64_t mr_addr,
		     uint64_t mr_len)
{
	unsigned __int128 end = (unsigned __int128)addr + len;
	unsigned __int128 mr_end = (unsigned __int128)mr_addr + mr_len;

	return addr >= mr_addr && end <= mr_end ? 0 : EINVAL;
}

static int ref_nsge(int nsge, int sgl, uint32_t max_sge)
{
	if (nsge < 0 || (nsge > 0 && !sgl))
		return EINVAL;
	return (uint32_t)nsge > max_sge ? EINVAL : 0;
}

/* A send WR (rwxi_check_send_wr), the plain way. */
static int ref_send(const struct ibv_send_wr *wr, uint32_t max_sge)
{
	int inl = !!(wr->send_flags & IBV_SEND_INLINE);
	const struct ibv_sge *sge = wr->sg_list;

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND_WITH_INV:
		return ref_nsge(wr->num_sge, !!sge, max_sge);
	case IBV_WR_RDMA_READ:
		return ref_nsge(wr->num_sge, !!sge, max_sge) || inl ? EINVAL : 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		if (ref_nsge(wr->num_sge, !!sge, max_sge) || wr->num_sge != 1 ||
		    inl)
			return EINVAL;
		return sge->length == 8 && !(sge->addr % 8) &&
		       !(wr->wr.atomic.remote_addr % 8) ? 0 : EINVAL;
	default:
		return EINVAL;
	}
}

/* A list WR (rwxi_check_list_wr), the plain way. */
static int ref_list(const struct ibv_send_wr *wr, uint32_t max_sge,
		    uint32_t qp_type)
{
	int inl = !!(wr->send_flags & IBV_SEND_INLINE);

	switch (wr->opcode) {
	case IBV_WR_LOCAL_INV:
		return wr->num_sge || inl ? EINVAL : 0;
	case IBV_WR_BIND_MW:
		return wr->num_sge || inl || !wr->bind_mw.mw ? EINVAL : 0;
	case IBV_WR_TSO:
		if (qp_type != IBV_QPT_UD && qp_type != IBV_QPT_RAW_PACKET)
			return EINVAL;
		if (!wr->tso.mss || (wr->tso.hdr_sz && !wr->tso.hdr))
			return EINVAL;
		return ref_nsge(wr->num_sge, !!wr->sg_list, max_sge);
	default:
		return ref_send(wr, max_sge);
	}
}

static void scalars(const struct input *in)
{
	int want;

	must(rwxi_check_len((size_t)in->len) ==
	     ((size_t)in->len > UINT32_MAX ? EINVAL : 0));
	must(rwxi_check_range((uintptr_t)in->addr, (size_t)in->len,
			      (uintptr_t)in->mr_addr, (size_t)in->mr_len) ==
	     ref_range(in->addr, in->len, in->mr_addr, in->mr_len));
	if ((size_t)in->len > UINT32_MAX)
		want = EINVAL;
	else if (!in->have_mr)
		want = (in->len == 0 || in->inline_ok) ? 0 : EINVAL;
	else
		want = ref_range(in->addr, in->len, in->mr_addr, in->mr_len);
	must(rwxi_check_buf((uintptr_t)in->addr, (size_t)in->len, in->have_mr,
			    (uintptr_t)in->mr_addr, (size_t)in->mr_len,
			    in->inline_ok) == want);
	must(rwxi_check_nsge(in->nsge, in->have_sgl, in->max_sge) ==
	     ref_nsge(in->nsge, in->have_sgl, in->max_sge));
	must(rwxi_check_atomic(in->addr, (size_t)in->len, in->remote) ==
	     ((in->len == 8 && !(in->addr % 8) && !(in->remote % 8)) ?
	      0 : EINVAL));
}

static void wrs(const struct input *in)
{
	struct rwxi_caps caps = { .max_send_sge = in->max_sge,
				  .max_sge_rd = in->max_sge_rd };
	enum rwx_rw_dir dir = in->dir % 3;
	struct ibv_send_wr wr;
	unsigned __int128 bytes = 0;
	uint32_t n;
	int i, ret;

	memset(&wr, 0, sizeof(wr));
	/* Mostly the opcodes there are, now and then any value. */
	wr.opcode = (enum ibv_wr_opcode)(in->opcode % 16 < 15 ?
					 in->opcode % 16 : in->opcode);
	wr.send_flags = in->flags;
	wr.num_sge = in->nsge;
	wr.sg_list = in->have_sgl ? (struct ibv_sge *)in->sge : NULL;
	/* The validators read at most num_sge SGEs of the list. */
	if (wr.sg_list && (wr.num_sge < 0 || wr.num_sge > MAX_SGE))
		wr.num_sge = MAX_SGE;
	if (wr.opcode == IBV_WR_BIND_MW) {
		wr.bind_mw.mw = in->have_ptr & 1 ? (struct ibv_mw *)in : NULL;
	} else if (wr.opcode == IBV_WR_TSO) {
		wr.tso.hdr = in->have_ptr & 1 ? (void *)in : NULL;
		wr.tso.hdr_sz = in->hdr_sz;
		wr.tso.mss = in->mss;
	} else {
		wr.wr.atomic.remote_addr = in->remote;
	}
	ret = rwxi_check_send_wr(&wr, in->max_sge);
	must(ret == ref_send(&wr, in->max_sge));
	ret = rwxi_check_list_wr(&wr, in->max_sge,
				 (enum ibv_qp_type)in->qp_type);
	must(ret == ref_list(&wr, in->max_sge, in->qp_type));
	if (wr.sg_list && wr.num_sge >= 0) {
		for (i = 0; i < wr.num_sge; i++)
			bytes += wr.sg_list[i].length;
		must(rwxi_check_inline(&wr, in->max_inline) ==
		     ((wr.send_flags & IBV_SEND_INLINE) &&
		      bytes > in->max_inline ? EINVAL : 0));
	}
	n = rwxi_rw_max_sge(&caps, dir);
	must(n <= in->max_sge);
	if (dir == RWX_RW_READ && in->max_sge_rd)
		must(n <= in->max_sge_rd);
	must(n == in->max_sge || (dir == RWX_RW_READ && n == in->max_sge_rd));
	ret = rwxi_check_rw_qp((enum ibv_qp_type)in->qp_type, dir);
	must(ret == ((in->qp_type == IBV_QPT_RC && dir != 2) ||
		     (in->qp_type == IBV_QPT_UC && dir == RWX_RW_WRITE) ?
		     0 : EINVAL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in;

	memset(&in, 0, sizeof(in));
	memcpy(&in, data, size < sizeof(in) ? size : sizeof(in));
	in.have_sgl &= 1;
	in.qp_type %= 16;	/* mostly the QP types there are */
	in.have_mr &= 1;
	in.inline_ok &= 1;
	scalars(&in);
	wrs(&in);
	return 0;
}
