// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion calls on the fake CQs.  The channel fd is a pipe nobody
 * writes, so any path that would read a CQ event instead times out; the
 * tests never reach ibv_get_cq_event() (which needs a real device).
 */
#include <time.h>

#include "rwx_test.h"

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

static void comp_caller_cqs_einval(void)
{
	struct ibv_wc wc;

	fake_setup(4, 4, 4);
	F.id.send_cq_channel = NULL;
	F.id.recv_cq_channel = NULL;
	CHECK_ERR(rdma_get_send_comp(&F.id, &wc), EINVAL);
	CHECK_ERR(rdma_get_recv_comp(&F.id, &wc), EINVAL);
	CHECK_ERR(rwx_wait_comp(&F.id, RWX_SEND_CQ, &wc, 1, 0), EINVAL);
	CHECK_ERR(rwx_comp_fd(&F.id, RWX_RECV_CQ), EINVAL);
	CHECK_EQ(F.poll_calls, 0);
	/* non-blocking polling works with caller CQs */
	CHECK_EQ(rwx_get_comps(&F.id, RWX_SEND_CQ, &wc, 1), 0);
}

static void comp_bad_args_einval(void)
{
	struct ibv_wc wc[2];

	fake_setup(4, 4, 4);
	CHECK_ERR(rdma_get_send_comp(NULL, wc), EINVAL);
	CHECK_ERR(rdma_get_recv_comp(&F.id, NULL), EINVAL);
	CHECK_ERR(rwx_get_comps(&F.id, RWX_SEND_CQ, wc, 0), EINVAL);
	CHECK_ERR(rwx_get_comps(&F.id, (enum rwx_cq_sel)5, wc, 1), EINVAL);
	CHECK_ERR(rwx_wait_comp(&F.id, RWX_RECV_CQ, wc, 2, -2), EINVAL);
	CHECK_ERR(rwx_comp_fd(NULL, RWX_SEND_CQ), EINVAL);
	F.id.send_cq = NULL;
	CHECK_ERR(rwx_get_comps(&F.id, RWX_SEND_CQ, wc, 1), EINVAL);
	CHECK_EQ(F.poll_calls, 0);
}

static void comp_ready_completion_returned(void)
{
	struct ibv_wc wc;

	fake_setup(4, 4, 4);
	F.wcs[0].wr_id = 77;
	F.wcs[0].status = IBV_WC_SUCCESS;
	F.nwcs = 1;
	CHECK_EQ(rdma_get_send_comp(&F.id, &wc), 1);
	CHECK_EQ(wc.wr_id, 77);
	CHECK_EQ(F.notify_calls, 0);	/* found on the first poll */
}

static void comp_get_comps_batches(void)
{
	struct ibv_wc wc[4];
	int i;

	fake_setup(4, 4, 4);
	for (i = 0; i < 6; i++)
		F.wcs[i].wr_id = (uint64_t)i;
	F.nwcs = 6;
	CHECK_EQ(rwx_get_comps(&F.id, RWX_RECV_CQ, wc, 4), 4);
	CHECK_EQ(wc[3].wr_id, 3);
	CHECK_EQ(rwx_wait_comp(&F.id, RWX_RECV_CQ, wc, 4, 100), 2);
	CHECK_EQ(wc[1].wr_id, 5);
	CHECK_EQ(rwx_get_comps(&F.id, RWX_RECV_CQ, wc, 4), 0);
}

static void comp_wait_times_out(void)
{
	struct timespec t0;
	struct ibv_wc wc;
	long el;

	fake_setup(4, 4, 4);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_ERR(rwx_wait_comp(&F.id, RWX_SEND_CQ, &wc, 1, 50), ETIMEDOUT);
	el = ms_since(&t0);
	CHECK(el >= 45 && el < 2000);
	CHECK_EQ(F.notify_calls, 1);	/* armed before sleeping */
	CHECK_EQ(F.poll_calls, 2);	/* poll, arm, re-poll */
	CHECK_ERR(rwx_wait_comp(&F.id, RWX_RECV_CQ, &wc, 1, 0), ETIMEDOUT);
}

static void comp_fd_is_channel_fd(void)
{
	fake_setup(4, 4, 4);
	CHECK_EQ(rwx_comp_fd(&F.id, RWX_SEND_CQ), F.pipe_fd[0]);
	CHECK_EQ(rwx_comp_fd(&F.id, RWX_RECV_CQ), F.pipe_fd[0]);
}

void suite_comp(void)
{
	RUN(comp_caller_cqs_einval);
	RUN(comp_bad_args_einval);
	RUN(comp_ready_completion_returned);
	RUN(comp_get_comps_batches);
	RUN(comp_wait_times_out);
	RUN(comp_fd_is_channel_fd);
}
