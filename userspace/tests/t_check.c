// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The pure validation rules, one by one, on plain values. */
#include <stdint.h>

#include "rwx_test.h"

static void check_len_limit(void)
{
	CHECK_EQ(rwxi_check_len(0), 0);
	CHECK_EQ(rwxi_check_len(UINT32_MAX), 0);
	CHECK_EQ(rwxi_check_len((size_t)UINT32_MAX + 1), EINVAL);
	CHECK_EQ(rwxi_check_len(SIZE_MAX), EINVAL);
}

static void check_nsge_rules(void)
{
	CHECK_EQ(rwxi_check_nsge(0, 0, 4), 0);	/* no SGEs, no list: fine */
	CHECK_EQ(rwxi_check_nsge(0, 1, 0), 0);
	CHECK_EQ(rwxi_check_nsge(4, 1, 4), 0);
	CHECK_EQ(rwxi_check_nsge(5, 1, 4), EINVAL);
	CHECK_EQ(rwxi_check_nsge(1, 1, 0), EINVAL);
	CHECK_EQ(rwxi_check_nsge(-1, 1, 4), EINVAL);
	CHECK_EQ(rwxi_check_nsge(INT32_MIN, 1, UINT32_MAX), EINVAL);
	CHECK_EQ(rwxi_check_nsge(1, 0, 4), EINVAL);	/* NULL sgl */
}

static void check_range_inside(void)
{
	CHECK_EQ(rwxi_check_range(1000, 100, 1000, 100), 0);
	CHECK_EQ(rwxi_check_range(1050, 50, 1000, 100), 0);
	CHECK_EQ(rwxi_check_range(1100, 0, 1000, 100), 0); /* empty at end */
	CHECK_EQ(rwxi_check_range(1000, 0, 1000, 0), 0);
}

static void check_range_outside(void)
{
	CHECK_EQ(rwxi_check_range(999, 1, 1000, 100), EINVAL);	/* before */
	CHECK_EQ(rwxi_check_range(1050, 51, 1000, 100), EINVAL); /* past end */
	CHECK_EQ(rwxi_check_range(1101, 0, 1000, 100), EINVAL);
	CHECK_EQ(rwxi_check_range(1000, 101, 1000, 100), EINVAL);
	CHECK_EQ(rwxi_check_range(2000, 1, 1000, 100), EINVAL);
}

/* Sums that wrap must not turn an out-of-range buffer into an "inside". */
static void check_range_wraparound(void)
{
	CHECK_EQ(rwxi_check_range(UINTPTR_MAX - 10, 100, 1000, 100), EINVAL);
	CHECK_EQ(rwxi_check_range(1010, SIZE_MAX, 1000, 100), EINVAL);
	CHECK_EQ(rwxi_check_range(UINTPTR_MAX - 99, 100, UINTPTR_MAX - 99,
				  100), 0);
	CHECK_EQ(rwxi_check_range(UINTPTR_MAX - 98, 100, UINTPTR_MAX - 99,
				  100), EINVAL);
}

static void check_buf_mr_inline(void)
{
	/* no MR: only inline or empty is acceptable */
	CHECK_EQ(rwxi_check_buf(0x1000, 16, 0, 0, 0, 0), EINVAL);
	CHECK_EQ(rwxi_check_buf(0x1000, 16, 0, 0, 0, 1), 0);
	CHECK_EQ(rwxi_check_buf(0, 0, 0, 0, 0, 0), 0);
	/* MR: range decides */
	CHECK_EQ(rwxi_check_buf(0x1000, 16, 1, 0x1000, 16, 0), 0);
	CHECK_EQ(rwxi_check_buf(0x1000, 17, 1, 0x1000, 16, 0), EINVAL);
	/* length limit first, even inline */
	CHECK_EQ(rwxi_check_buf(0x1000, (size_t)UINT32_MAX + 1, 0, 0, 0, 1),
		 EINVAL);
	CHECK_EQ(rwxi_check_buf(0x1000, (size_t)UINT32_MAX + 1, 1, 0x1000,
				SIZE_MAX - 0x1000, 0), EINVAL);
}

static void check_atomic_alignment(void)
{
	CHECK_EQ(rwxi_check_atomic(0x1000, 8, 0x2000), 0);
	CHECK_EQ(rwxi_check_atomic(0x1004, 8, 0x2000), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1001, 8, 0x2000), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1000, 8, 0x2004), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1000, 8, 0x2007), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1000, 4, 0x2000), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1000, 16, 0x2000), EINVAL);
	CHECK_EQ(rwxi_check_atomic(0x1000, 0, 0x2000), EINVAL);
}

static void check_send_wr_rules(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 1 };
	struct ibv_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), 0);
	CHECK_EQ(rwxi_check_send_wr(&wr, 0), EINVAL);
	CHECK_EQ(rwxi_check_send_wr(NULL, 1), EINVAL);
	wr.sg_list = NULL;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), EINVAL);
	wr.sg_list = &sge;
	wr.opcode = (enum ibv_wr_opcode)77;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), EINVAL);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_INLINE;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), EINVAL);
	wr.send_flags = 0;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), 0);
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = 0x2000;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), 0);
	wr.wr.atomic.remote_addr = 0x2001;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), EINVAL);
	wr.wr.atomic.remote_addr = 0x2000;
	sge.length = 4;
	CHECK_EQ(rwxi_check_send_wr(&wr, 1), EINVAL);
}

static void check_rw_qp_type(void)
{
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_RC, RWX_RW_READ), 0);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_RC, RWX_RW_WRITE), 0);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_UC, RWX_RW_WRITE), 0);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_UC, RWX_RW_READ), EINVAL);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_UD, RWX_RW_WRITE), EINVAL);
	/* No remote SRQ number to give an XRC_SEND QP's WRs. */
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_XRC_SEND, RWX_RW_READ), EINVAL);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_XRC_SEND, RWX_RW_WRITE), EINVAL);
	CHECK_EQ(rwxi_check_rw_qp(IBV_QPT_RC, (enum rwx_rw_dir)9), EINVAL);
}

static void check_rw_max_sge(void)
{
	struct rwxi_caps c = { .max_send_sge = 16, .max_sge_rd = 4 };

	CHECK_EQ(rwxi_rw_max_sge(&c, RWX_RW_WRITE), 16);
	CHECK_EQ(rwxi_rw_max_sge(&c, RWX_RW_READ), 4);
	c.max_sge_rd = 0;	/* unknown: only the QP limit applies */
	CHECK_EQ(rwxi_rw_max_sge(&c, RWX_RW_READ), 16);
	c.max_sge_rd = 32;
	CHECK_EQ(rwxi_rw_max_sge(&c, RWX_RW_READ), 16);
}

static void check_timeout(void)
{
	CHECK_EQ(rwxi_check_timeout(-1), 0);
	CHECK_EQ(rwxi_check_timeout(0), 0);
	CHECK_EQ(rwxi_check_timeout(-2), EINVAL);
}

void suite_check(void)
{
	RUN(check_len_limit);
	RUN(check_nsge_rules);
	RUN(check_range_inside);
	RUN(check_range_outside);
	RUN(check_range_wraparound);
	RUN(check_buf_mr_inline);
	RUN(check_atomic_alignment);
	RUN(check_send_wr_rules);
	RUN(check_rw_qp_type);
	RUN(check_rw_max_sge);
	RUN(check_timeout);
}
