/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx counters: what the engine did, per CPU so that counting costs
 * an increment of a CPU-local word.  Read and reset through debugfs
 * (rwx_stats.c; format in Documentation/rdma_rwx.rst, "Counters").
 */
#ifndef _RWX_STATS_H
#define _RWX_STATS_H

#include <linux/percpu.h>
#include <rdma/rw.h>

enum rdma_rwx_counter {
	RWX_CNT_INIT_SGE_SINGLE,	/* contexts set up, by path */
	RWX_CNT_INIT_SGE_MULTI,
	RWX_CNT_INIT_MR,
	RWX_CNT_INIT_SIG,
	RWX_CNT_MRS,			/* MRs taken from the pools */
	RWX_CNT_SGE_FALLBACK,		/* MR pool short, SGE path taken */
	RWX_CNT_DESTROY,		/* contexts destroyed */
	RWX_CNT_ERR_EAGAIN,		/* failed inits, by error */
	RWX_CNT_ERR_ENOSPC,
	RWX_CNT_ERR_EINVAL,
	RWX_CNT_ERR_ENOMEM,
	RWX_CNT_ERR_OTHER,
	RWX_CNT_NR
};

/*
 * @events only ever grow: a reset records them in @base, and readers show
 * the difference, so contexts_live (inits less destroys) needs no word of
 * its own on the hot path.
 */
struct rdma_rwx_counters {
	u64 events[RWX_CNT_NR];
	u64 base[RWX_CNT_NR];	/* @events at the last reset */
};

DECLARE_PER_CPU(struct rdma_rwx_counters, rdma_rwx_counters);

static inline void rdma_rwx_count(enum rdma_rwx_counter counter)
{
	this_cpu_inc(rdma_rwx_counters.events[counter]);
}

void rdma_rwx_count_init(const struct rdma_rw_ctx *ctx, int ret);

/* rdma_rwx_count_init() of a single-entry SGE context, inline. */
static inline void rdma_rwx_count_init_single(void)
{
	rdma_rwx_count(RWX_CNT_INIT_SGE_SINGLE);
}

static inline void rdma_rwx_count_destroy(void)
{
	rdma_rwx_count(RWX_CNT_DESTROY);
}

void rdma_rwx_stats_init(void);
void rdma_rwx_stats_exit(void);

#endif /* _RWX_STATS_H */
