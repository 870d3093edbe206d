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
	uint8_t have_sgl, have_mr, inline_ok, dir;
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
	wr.opcode = (enum ibv_wr_opcode)in->opcode;
	wr.send_flags = in->flags;
	wr.num_sge = in->nsge;
	wr.sg_list = in->have_sgl ? (struct ibv_sge *)in->sge : NULL;
	wr.wr.atomic.remote_addr = in->remote;
	/* The validators read at most num_sge SGEs of the list. */
	if (wr.sg_list && (wr.num_sge < 0 || wr.num_sge > MAX_SGE))
		wr.num_sge = MAX_SGE;
	ret = rwxi_check_send_wr(&wr, in->max_sge);
	must(ret == 0 || ret == EINVAL);
	if (!ret) {
		must(rwxi_opcode_known(wr.opcode));
		must(!ref_nsge(wr.num_sge, wr.sg_list != NULL, in->max_sge));
	}
	ret = rwxi_check_list_wr(&wr, in->max_sge,
				 (enum ibv_qp_type)in->qp_type);
	must(ret == 0 || ret == EINVAL);
	if (!ret && wr.num_sge > 0)
		must((uint32_t)wr.num_sge <= in->max_sge && wr.sg_list);
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
	must(ret == 0 || ret == EINVAL);
	if (!ret)
		must(in->qp_type == IBV_QPT_RC ||
		     (dir == RWX_RW_WRITE && in->qp_type == IBV_QPT_UC));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in;

	memset(&in, 0, sizeof(in));
	memcpy(&in, data, size < sizeof(in) ? size : sizeof(in));
	in.have_sgl &= 1;
	in.have_mr &= 1;
	in.inline_ok &= 1;
	scalars(&in);
	wrs(&in);
	return 0;
}
