/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * A tiny test framework: one line per test, "ok NAME", "FAIL NAME: detail"
 * or "skip NAME: reason".  A CHECK that fails records where and why and
 * returns from the test function, so later checks do not run on bad state.
 *
 * Also the fake verbs objects: struct ibv_context's ops table is public
 * ABI and ibv_post_send(), ibv_post_recv(), ibv_poll_cq() and
 * ibv_req_notify_cq() are inline calls through it, so a zeroed context
 * with our own ops lets the public functions run to the "hardware" and
 * lets the tests see exactly which WRs would have been posted.
 */
#ifndef RWX_TEST_H
#define RWX_TEST_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rwx_internal.h"

void t_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void t_skip(const char *reason);
void t_run(const char *name, void (*fn)(void));
int t_failed_now(void);	/* for loops calling helpers that CHECK */

#define RUN(fn) t_run(#fn, fn)
#define SKIP(reason) do { t_skip(reason); return; } while (0)

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		t_failf(__FILE__, __LINE__, "%s", #cond);		\
		return;							\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long long a_ = (unsigned long long)(a);		\
	unsigned long long b_ = (unsigned long long)(b);		\
	if (a_ != b_) {							\
		t_failf(__FILE__, __LINE__, "%s = %llu (%lld), want %s = %llu", \
			#a, a_, (long long)a_, #b, b_);			\
		return;							\
	}								\
} while (0)

/* A public call must return -1 and set errno to exactly err. */
#define CHECK_ERR(call, err) do {					\
	long long r_;							\
	int e_;								\
	errno = 0;							\
	r_ = (long long)(call);						\
	e_ = errno;							\
	if (r_ != -1 || e_ != (err)) {					\
		t_failf(__FILE__, __LINE__,				\
			"%s -> %lld errno %d (%s), want -1 errno %s",	\
			#call, r_, e_, strerror(e_), #err);		\
		return;							\
	}								\
} while (0)

/* ---- fake device ---- */
#define FAKE_MAX_WR 64
#define FAKE_MAX_SGE 64
#define FAKE_SEND_WR FAKE_MAX_WR	/* the fake QP's send queue depth */
#define FAKE_INLINE 64			/* and its max_inline_data */
#define FAKE_MSG UINT32_MAX		/* and its port's max_msg_sz */

struct fake_wr {
	struct ibv_send_wr wr;		/* copy; next/sg_list not usable */
	struct ibv_sge sge[FAKE_MAX_SGE];
	int was_recv;
	int to_srq;
	int via_wr;			/* posted through the ibv_wr_* builders */
	int wr_data_set;		/* ... with a data setter called */
	int wr_inline;			/* ... that of inline data */
};

struct fake {
	struct ibv_context ctx;
	struct ibv_pd pd;
	union {				/* an ibv_qp_ex where fake_wr_api says */
		struct ibv_qp qp;
		struct ibv_qp_ex qpx;
	};
	struct ibv_srq srq;
	struct ibv_cq scq, rcq;
	struct ibv_comp_channel sch, rch;
	struct rdma_cm_id id;
	int pipe_fd[2];			/* the channels' fd: never written */
	/* recorded posts */
	struct fake_wr posted[FAKE_MAX_WR];
	int nposted;
	int post_calls;
	int post_ret;			/* what post_send returns */
	/* completions poll_cq hands out */
	struct ibv_wc wcs[16];
	int nwcs;
	int poll_calls, notify_calls;
	int queries;			/* QP and SRQ queries answered */
	/* the ibv_wr_* builders' state: the one WR of an open region */
	int qp_api;			/* fake_wr_api at fake_setup() */
	int wr_open, wr_completes, wr_aborts;
	struct fake_wr wr_pending;
};

extern struct fake F;

/*
 * What fake_setup() gives its QP: FAKE_WR_NONE a plain ibv_qp (no
 * ibv_qp_ex), FAKE_WR_BARE an ibv_qp_ex without builders (as rxe gives
 * every QP of ibv_create_qp_ex() that asked for none: rdma_cm's), and
 * FAKE_WR_ALL one with every builder and setter, which record their WR
 * as post_send does (fake_wr.via_wr).
 */
enum fake_wr_api { FAKE_WR_NONE, FAKE_WR_BARE, FAKE_WR_ALL };
extern enum fake_wr_api fake_wr_api;

void fake_setup(uint32_t max_send_sge, uint32_t max_recv_sge,
		uint32_t max_sge_rd);
void fake_teardown(void);
struct ibv_mr fake_mr(void *addr, size_t length, uint32_t lkey);
/*
 * The device's limits for @qp (what a query answers, and what its post
 * takes: more SGEs fail with ENOMEM, as on mlx5), and, with @cached, the
 * library's cache of them as after a first query.  Without @cached the
 * cache keeps what it had: a destroyed QP's limits, say.
 */
void fake_qp_caps(struct ibv_qp *qp, const struct rwxi_caps *caps,
		  int cached);
void fake_srq_caps(struct ibv_srq *srq, uint32_t max_sge, int cached);

/* Suites */
void suite_check(void);
void suite_post(void);
void suite_ext(void);
void suite_comp(void);
void suite_rw(void);
void suite_perf(void);
void suite_wr(void);

#endif
