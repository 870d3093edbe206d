/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx counters: what the engine did, per device and per CPU, so that
 * counting costs the hot path a compare against this CPU's last device and
 * an increment of a CPU-local word, without disabling preemption.  Read
 * and reset through debugfs (rwx_stats.c; format in
 * Documentation/rdma_rwx.rst, "Counters"), and traced (rwx_trace.h).
 */
#ifndef _RWX_STATS_H
#define _RWX_STATS_H

#include <linux/err.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>

/* The order of the lines in the counters files: new ones go at the end. */
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
	RWX_CNT_INIT_BVEC,		/* contexts set up from a bio_vec array */
	RWX_CNT_BYTES_WRITE,		/* bytes of the contexts set up, */
	RWX_CNT_BYTES_READ,		/* by direction */
	RWX_CNT_SHARED,			/* set up in ib_core's encoding, */
	RWX_CNT_SHARED_DESTROY,		/* and of those destroyed here */
	RWX_CNT_ADOPTED,		/* ib_core's, destroyed here */
	RWX_CNT_NR
};

/* Only ever grow: a reset records their sum as its set's base. */
struct rdma_rwx_counters {
	u64 events[RWX_CNT_NR];
};

/*
 * The counters of one device (@dev NULL: of calls that named none, and of
 * contexts whose device went away before they were destroyed).  Between
 * devices @dev matches no lookup: RDMA_RWX_SET_GONE until a grace period
 * has passed, then RDMA_RWX_SET_FREE.
 */
struct rdma_rwx_dev_stats {
	struct ib_device *dev;
	struct rdma_rwx_counters __percpu *pcpu;
	u64 base[RWX_CNT_NR];		/* the counts' sum at the last reset */
	s64 live_base;			/* earlier devices' contexts_live */
	struct dentry *dir;		/* devices/<name>/ in debugfs */
	struct list_head node;		/* on the list of sets, free or not */
	struct rcu_head rcu;		/* from gone to free (rwx_stats.c) */
};

#define RDMA_RWX_SET_GONE	((struct ib_device *)ERR_PTR(-ENODEV))
#define RDMA_RWX_SET_FREE	((struct ib_device *)ERR_PTR(-ENOENT))

/* What a context's init chose, for the counters and the trace events. */
enum rdma_rwx_stat_path {
	RWX_PATH_NONE,		/* init failed */
	RWX_PATH_SGE_SINGLE,
	RWX_PATH_SGE_MULTI,
	RWX_PATH_MR,
	RWX_PATH_SIG,
};

/* A context's path, direction, WRs, SGEs and bytes, read back from it. */
struct rdma_rwx_ctx_info {
	u8 path;	/* enum rdma_rwx_stat_path */
	u8 dir;		/* enum dma_data_direction */
	u32 wrs;	/* WRs of the chain, REG_MR and LOCAL_INV too */
	u32 sges;	/* SGEs of its READ/WRITE WRs */
	u64 bytes;
};

void rdma_rwx_ctx_info(const struct rdma_rw_ctx *ctx,
		       struct rdma_rwx_ctx_info *info);

/* rdma_rwx_count_init_done() flags */
#define RDMA_RWX_COUNT_BVEC	0x1	/* set up by the bio_vec init */

/* This CPU's last device: never NULL (rdma_rwx_nodev_stats at worst). */
DECLARE_PER_CPU(struct rdma_rwx_dev_stats *, rdma_rwx_last_stats);
struct rdma_rwx_counters __percpu *rdma_rwx_dev_counters_slow(struct ib_device *dev);

/*
 * Counts run preemptible and unmarked; only RCU-tasks grace periods cover
 * them when a device's set is given back.  Debian's 6.1 and 6.12 have it.
 */
#if !IS_ENABLED(CONFIG_TASKS_RCU)
#error "rdma_rwx's counters need a kernel with CONFIG_TASKS_RCU"
#endif

/*
 * Whether this CPU's one-entry cache names @dev (a load and a compare);
 * *@c: the cached counters, @dev's on a hit.  A fast path tests it and
 * counts in *@c itself, its miss out of line, so that it makes no call.
 * Preemptible: the caller may count on another CPU than the one whose
 * cache it read (this_cpu_*() count wherever they run), and a set goes
 * to another device only a grace period after its own went (rwx_stats.c).
 * The cache is a fast path: looking the client data up on every count
 * instead measured 210 more instructions a context (make bench, -icount,
 * rxe: 221 -> 435 for one entry on the SGE path, 1024 -> 1234 on the MR
 * path).
 */
static __always_inline bool
rdma_rwx_counters_hit(struct ib_device *dev,
		      struct rdma_rwx_counters __percpu **c)
{
	struct rdma_rwx_dev_stats *s = this_cpu_read(rdma_rwx_last_stats);

	*c = s->pcpu;
	return likely(READ_ONCE(s->dev) == dev);
}

/*
 * The counters of @dev: a hit in this CPU's cache, or on a miss a lookup
 * of the device's client data, which is then cached.
 */
static __always_inline struct rdma_rwx_counters __percpu *
rdma_rwx_dev_counters(struct ib_device *dev)
{
	struct rdma_rwx_counters __percpu *c;

	return rdma_rwx_counters_hit(dev, &c) ? c :
	       rdma_rwx_dev_counters_slow(dev);
}

static inline enum rdma_rwx_counter
rdma_rwx_bytes_counter(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? RWX_CNT_BYTES_WRITE : RWX_CNT_BYTES_READ;
}

/*
 * Count one event on @dev.  this_cpu_*, not __this_cpu_*: contexts are
 * destroyed from completion handlers too, which may interrupt a count
 * (one instruction either way on x86; a plain read-modify-write would
 * lose updates elsewhere).
 */
static inline void rdma_rwx_count(struct ib_device *dev,
				  enum rdma_rwx_counter counter)
{
	this_cpu_inc(rdma_rwx_dev_counters(dev)->events[counter]);
}

/* A context's counts in counters @c: its path, the MRs it took, its bytes. */
static __always_inline void
rdma_rwx_count_ctx_in(struct rdma_rwx_counters __percpu *c,
		      enum rdma_rwx_counter path, u32 mrs, u64 bytes,
		      enum dma_data_direction dir)
{
	this_cpu_inc(c->events[path]);
	if (mrs)
		this_cpu_add(c->events[RWX_CNT_MRS], mrs);
	this_cpu_add(c->events[rdma_rwx_bytes_counter(dir)], bytes);
}

/*
 * A context set up on @dev: its path, the MRs it took, its bytes.  Each
 * init path calls this where it knows them (at its end).
 */
static __always_inline void rdma_rwx_count_ctx(struct ib_device *dev,
					       enum rdma_rwx_counter path,
					       u32 mrs, u64 bytes,
					       enum dma_data_direction dir)
{
	rdma_rwx_count_ctx_in(rdma_rwx_dev_counters(dev), path, mrs, bytes,
			      dir);
}

void rdma_rwx_trace_post(struct ib_device *dev, u32 port_num,
			 const struct rdma_rw_ctx *ctx, int ret);
void rdma_rwx_trace_destroy(struct ib_device *dev, u32 port_num,
			    const struct rdma_rw_ctx *ctx, u32 entries);
void rdma_rwx_count_init_done(struct ib_qp *qp, u32 port_num,
			      const struct rdma_rw_ctx *ctx, u32 sg_cnt,
			      enum dma_data_direction dir, int ret,
			      unsigned int flags);

/* For the KUnit suites (namespace RDMA_RWX_TESTING). */
u64 rdma_rwx_dev_counter(struct ib_device *dev, unsigned int counter);
u64 rdma_rwx_total_counter(unsigned int counter);
void rdma_rwx_stats_forget_device(struct ib_device *dev);
void rdma_rwx_stats_retire_barrier(void);
const char *rdma_rwx_dev_counter_name(unsigned int counter);

int rdma_rwx_stats_init(void);
void rdma_rwx_stats_exit(void);

#endif /* _RWX_STATS_H */
