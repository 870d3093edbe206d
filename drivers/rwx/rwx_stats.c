// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx counters.
 *
 * Each RDMA device gets a set of per-CPU counters when it appears (an
 * ib_client's add callback) and loses it when it goes (remove); calls that
 * name no device (a NULL QP), and contexts destroyed after their device
 * went, count in a set of their own.  In debugfs:
 *
 *   <debugfs>/rdma_rwx/counters                  the sum over every set,
 *                                                  removed devices included
 *   <debugfs>/rdma_rwx/devices/<ibdev>/counters  one device
 *
 * Each holds one "name value" line per counter; writing anything to one
 * zeroes its event counts (the global file: every device's), while
 * contexts_live, a gauge, stays.  Counts since the last reset are the
 * per-CPU counts' sum less its value at the reset (the set's base).
 *
 * The hot path finds a device's counters in a per-CPU one-entry cache
 * (rdma_rwx_last_stats) and counts with preemption enabled, so a task may
 * be preempted holding a set's address.  Removal therefore takes a set out
 * of the device's client data and of every CPU's cache at once, and folds
 * its counts into the removed-devices total and frees it after an
 * RCU-tasks grace period (every task has since switched voluntarily,
 * which no counting section does, and interrupt handlers have ended).
 * Until then it stays on the list of sets the global file sums, so no
 * count is lost or shown twice.
 */

#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "rwx_internal.h"
#include "rwx_stats.h"
#include "rwx_trace.h"

static DEFINE_PER_CPU(struct rdma_rwx_counters, rdma_rwx_nodev_counters);

/* Calls without a device, and contexts that outlived theirs. */
static struct rdma_rwx_dev_stats rdma_rwx_nodev_stats = {
	.pcpu = &rdma_rwx_nodev_counters,
	.node = LIST_HEAD_INIT(rdma_rwx_nodev_stats.node),
};

/*
 * Set in rdma_rwx_stats_init(): a module's per-CPU initialisers get no
 * relocations, so a pointer in one would be NULL.
 */
DEFINE_PER_CPU(struct rdma_rwx_dev_stats *, rdma_rwx_last_stats);

/* Serialises the client data's changes with the debugfs tree. */
static DEFINE_MUTEX(rdma_rwx_stats_lock);
/*
 * Protects every set not yet freed (the no-device one, the devices', the
 * retiring ones), their bases and the removed total; taken inside
 * rdma_rwx_stats_lock, and by the RCU-tasks callback that frees a set
 * (bottom halves disabled).
 */
static DEFINE_SPINLOCK(rdma_rwx_sets_lock);
static LIST_HEAD(rdma_rwx_sets);
/* The counts and bases of freed sets. */
static u64 rdma_rwx_removed[RWX_CNT_NR], rdma_rwx_removed_base[RWX_CNT_NR];

static struct dentry *rdma_rwx_debugfs, *rdma_rwx_debugfs_devices;

static const char *const rdma_rwx_counter_names[RWX_CNT_NR] = {
	[RWX_CNT_INIT_SGE_SINGLE] = "init_sge_single",
	[RWX_CNT_INIT_SGE_MULTI] = "init_sge_multi",
	[RWX_CNT_INIT_MR] = "init_mr",
	[RWX_CNT_INIT_SIG] = "init_sig",
	[RWX_CNT_MRS] = "mrs_registered",
	[RWX_CNT_SGE_FALLBACK] = "sge_fallback",
	[RWX_CNT_DESTROY] = "destroyed",
	[RWX_CNT_ERR_EAGAIN] = "err_eagain",
	[RWX_CNT_ERR_ENOSPC] = "err_enospc",
	[RWX_CNT_ERR_EINVAL] = "err_einval",
	[RWX_CNT_ERR_ENOMEM] = "err_enomem",
	[RWX_CNT_ERR_OTHER] = "err_other",
	[RWX_CNT_INIT_BVEC] = "init_bvec",
	[RWX_CNT_BYTES_WRITE] = "bytes_write",
	[RWX_CNT_BYTES_READ] = "bytes_read",
};

static struct ib_client rdma_rwx_client;

/*
 * This CPU's cache missed: look @dev's set up (its client data) and make
 * it this CPU's last device.  A device without a set (its add failed, or
 * it is going away) counts in the no-device set, uncached.  Cached, then
 * checked, on one CPU: a retirement meanwhile (which marks, then sweeps
 * the caches) leaves the set in no cache, one side or the other taking
 * it out.
 */
struct rdma_rwx_counters __percpu *rdma_rwx_dev_counters_slow(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s = NULL;

	if (dev)
		s = ib_get_client_data(dev, &rdma_rwx_client);
	if (!s)
		return rdma_rwx_nodev_stats.pcpu;
	preempt_disable();
	this_cpu_write(rdma_rwx_last_stats, s);
	smp_mb();	/* pairs with rdma_rwx_retire()'s */
	if (READ_ONCE(s->dev) != dev)
		this_cpu_cmpxchg(rdma_rwx_last_stats, s, &rdma_rwx_nodev_stats);
	preempt_enable();
	return s->pcpu;
}

static enum rdma_rwx_counter rdma_rwx_err_counter(int err)
{
	switch (err) {
	case -EAGAIN:
		return RWX_CNT_ERR_EAGAIN;
	case -ENOSPC:
		return RWX_CNT_ERR_ENOSPC;
	case -EINVAL:
		return RWX_CNT_ERR_EINVAL;
	case -ENOMEM:
		return RWX_CNT_ERR_ENOMEM;
	default:
		return RWX_CNT_ERR_OTHER;
	}
}

/*
 * rdma_rwx_count_init_done() - the end of a context init, out of line
 * @qp: the QP it was set up on (NULL: counted without a device)
 * @port_num: its port
 * @ctx: the context; only read when @ret is not an error
 * @sg_cnt: the entries it was given
 * @dir: its direction
 * @ret: what the init returns (WRs, or -errno)
 * @flags: %RDMA_RWX_COUNT_BVEC for a context set up from a bio_vec array
 *
 * A failed init counts its error by cause; a successful one was counted
 * on its path by the path (rdma_rwx_count_ctx()), and here only in
 * init_bvec when @flags say so.  Either is traced (rwx_ctx_init).  The
 * bio_vec init calls this with %RDMA_RWX_COUNT_BVEC, every other init
 * with 0.
 */
void rdma_rwx_count_init_done(struct ib_qp *qp, u32 port_num,
			      const struct rdma_rw_ctx *ctx, u32 sg_cnt,
			      enum dma_data_direction dir, int ret,
			      unsigned int flags)
{
	struct ib_device *dev = qp && qp->pd ? qp->pd->device : NULL;

	if (ret < 0)
		rdma_rwx_count(dev, rdma_rwx_err_counter(ret));
	else if (flags & RDMA_RWX_COUNT_BVEC)
		rdma_rwx_count(dev, RWX_CNT_INIT_BVEC);
	trace_rwx_ctx_init(dev, port_num, ctx, sg_cnt, dir, ret,
			   flags & RDMA_RWX_COUNT_BVEC);
}

/* Add a set's per-CPU counts to @sum. */
static void rdma_rwx_sum(struct rdma_rwx_counters __percpu *pcpu, u64 *sum)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct rdma_rwx_counters *c = per_cpu_ptr(pcpu, cpu);

		for (i = 0; i < RWX_CNT_NR; i++)
			sum[i] += READ_ONCE(c->events[i]);
	}
}

/* Under rdma_rwx_sets_lock; the counts only grow, so no later sum is less. */
static void rdma_rwx_reset(struct rdma_rwx_dev_stats *s)
{
	memset(s->base, 0, sizeof(s->base));
	rdma_rwx_sum(s->pcpu, s->base);
}

static void rdma_rwx_show(struct seq_file *m, const u64 *sum, const u64 *base)
{
	u64 inits;
	int i;

	for (i = 0; i < RWX_CNT_INIT_BVEC; i++)
		seq_printf(m, "%s %llu\n", rdma_rwx_counter_names[i],
			   sum[i] - base[i]);
	inits = sum[RWX_CNT_INIT_SGE_SINGLE] + sum[RWX_CNT_INIT_SGE_MULTI] +
		sum[RWX_CNT_INIT_MR] + sum[RWX_CNT_INIT_SIG];
	/* Signed: a context destroyed on another CPU may be read first. */
	seq_printf(m, "contexts_live %lld\n",
		   (s64)(inits - sum[RWX_CNT_DESTROY]));
	/* Counters added after contexts_live follow it, in their order. */
	for (i = RWX_CNT_INIT_BVEC; i < RWX_CNT_NR; i++)
		seq_printf(m, "%s %llu\n", rdma_rwx_counter_names[i],
			   sum[i] - base[i]);
}

/* What a counters file shows: one set (@s), or all and the removed total. */
static void rdma_rwx_sum_sets(struct rdma_rwx_dev_stats *s, u64 *sum,
			      u64 *base)
{
	int i;

	spin_lock_bh(&rdma_rwx_sets_lock);
	if (s) {
		rdma_rwx_sum(s->pcpu, sum);
		memcpy(base, s->base, sizeof(s->base));
	} else {
		list_for_each_entry(s, &rdma_rwx_sets, node) {
			rdma_rwx_sum(s->pcpu, sum);
			for (i = 0; i < RWX_CNT_NR; i++)
				base[i] += s->base[i];
		}
		for (i = 0; i < RWX_CNT_NR; i++) {
			sum[i] += rdma_rwx_removed[i];
			base[i] += rdma_rwx_removed_base[i];
		}
	}
	spin_unlock_bh(&rdma_rwx_sets_lock);
}

/* Zero the event counts of one set (@s), or of all and the removed total. */
static void rdma_rwx_reset_sets(struct rdma_rwx_dev_stats *s)
{
	spin_lock_bh(&rdma_rwx_sets_lock);
	if (s) {
		rdma_rwx_reset(s);
	} else {
		list_for_each_entry(s, &rdma_rwx_sets, node)
			rdma_rwx_reset(s);
		memcpy(rdma_rwx_removed_base, rdma_rwx_removed,
		       sizeof(rdma_rwx_removed));
	}
	spin_unlock_bh(&rdma_rwx_sets_lock);
}

/*
 * A counters file: one device's (its set the file's private data) or,
 * without one, the global file.  debugfs keeps a device's set alive while
 * a read or write runs: removal takes the file away (waiting for them)
 * before the set goes.
 */
static int rdma_rwx_counters_show(struct seq_file *m, void *unused)
{
	u64 sum[RWX_CNT_NR] = {}, base[RWX_CNT_NR] = {};

	rdma_rwx_sum_sets(m->private, sum, base);
	rdma_rwx_show(m, sum, base);
	return 0;
}

static int rdma_rwx_counters_open(struct inode *inode, struct file *file)
{
	return single_open(file, rdma_rwx_counters_show, inode->i_private);
}

static ssize_t rdma_rwx_counters_reset(struct file *file,
				       const char __user *buf, size_t len,
				       loff_t *ppos)
{
	rdma_rwx_reset_sets(((struct seq_file *)file->private_data)->private);
	return len;
}

static const struct file_operations rdma_rwx_counters_fops = {
	.owner = THIS_MODULE,
	.open = rdma_rwx_counters_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = rdma_rwx_counters_reset,
};

/* devices/<name>/counters for @s, under rdma_rwx_stats_lock. */
static void rdma_rwx_dev_debugfs(struct rdma_rwx_dev_stats *s)
{
	s->dir = debugfs_create_dir(dev_name(&s->dev->dev),
				    rdma_rwx_debugfs_devices);
	debugfs_create_file("counters", 0600, s->dir, s,
			    &rdma_rwx_counters_fops);
}

static int rdma_rwx_add_one(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->pcpu = alloc_percpu(struct rdma_rwx_counters);
	if (!s->pcpu) {
		kfree(s);
		return -ENOMEM;
	}
	s->dev = dev;
	mutex_lock(&rdma_rwx_stats_lock);
	spin_lock_bh(&rdma_rwx_sets_lock);
	list_add_tail(&s->node, &rdma_rwx_sets);
	spin_unlock_bh(&rdma_rwx_sets_lock);
	rdma_rwx_dev_debugfs(s);
	mutex_unlock(&rdma_rwx_stats_lock);
	ib_set_client_data(dev, &rdma_rwx_client, s);
	return 0;
}

/* Take @s out of every CPU's cache. */
static void rdma_rwx_uncache(struct rdma_rwx_dev_stats *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		cmpxchg(per_cpu_ptr(&rdma_rwx_last_stats, cpu), s,
			&rdma_rwx_nodev_stats);
}

/* After retirement's grace period nobody holds @s: its counts join the total. */
static void rdma_rwx_retire_free(struct rcu_head *rcu)
{
	struct rdma_rwx_dev_stats *s =
		container_of(rcu, struct rdma_rwx_dev_stats, rcu);
	int i;

	spin_lock_bh(&rdma_rwx_sets_lock);
	rdma_rwx_sum(s->pcpu, rdma_rwx_removed);
	for (i = 0; i < RWX_CNT_NR; i++)
		rdma_rwx_removed_base[i] += s->base[i];
	list_del(&s->node);
	spin_unlock_bh(&rdma_rwx_sets_lock);
	free_percpu(s->pcpu);
	kfree(s);
}

/*
 * Retire the set of @dev, if it has one: its file goes now, its counts
 * stay in the global file (the set stays on the list until freed).
 * Contexts may still be live on @dev (the ULPs whose ib_client was
 * registered before this module's are told of the removal after it): they
 * count in the no-device set from now on (the set names RDMA_RWX_DEV_GONE,
 * so no cache lookup matches it); only a count already past its lookup
 * still lands in the retiring set.
 */
static void rdma_rwx_retire(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s;

	mutex_lock(&rdma_rwx_stats_lock);
	s = ib_get_client_data(dev, &rdma_rwx_client);
	if (!s) {
		mutex_unlock(&rdma_rwx_stats_lock);
		return;
	}
	ib_set_client_data(dev, &rdma_rwx_client, NULL);
	WRITE_ONCE(s->dev, RDMA_RWX_DEV_GONE);
	smp_mb();	/* pairs with rdma_rwx_dev_counters_slow()'s */
	rdma_rwx_uncache(s);
	debugfs_remove_recursive(s->dir);
	s->dir = NULL;
	mutex_unlock(&rdma_rwx_stats_lock);
	call_rcu_tasks(&s->rcu, rdma_rwx_retire_free);
}

/* The device goes (rdma link delete, driver unload, or this module's unload). */
static void rdma_rwx_remove_one(struct ib_device *dev, void *client_data)
{
	rdma_rwx_retire(dev);
}

/* The directory follows the device's name. */
static void rdma_rwx_rename_one(struct ib_device *dev, void *client_data)
{
	struct rdma_rwx_dev_stats *s = client_data;

	if (!s)
		return;
	mutex_lock(&rdma_rwx_stats_lock);
	/* Not if it was retired meanwhile (rdma_rwx_stats_forget_device()). */
	if (ib_get_client_data(dev, &rdma_rwx_client) == s) {
		debugfs_remove_recursive(s->dir);
		rdma_rwx_dev_debugfs(s);
	}
	mutex_unlock(&rdma_rwx_stats_lock);
}

static struct ib_client rdma_rwx_client = {
	.name = "rdma_rwx",
	.add = rdma_rwx_add_one,
	.remove = rdma_rwx_remove_one,
	.rename = rdma_rwx_rename_one,
};

/**
 * rdma_rwx_dev_counter() - one counter of one device, since its last reset
 * @dev: the device (NULL: the no-device set)
 * @counter: an enum rdma_rwx_counter
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): what
 * <debugfs>/rdma_rwx/devices/<dev>/counters shows on that counter's line.
 *
 * Return: the count, or U64_MAX when @dev has no counters or @counter is
 * out of range.
 */
u64 rdma_rwx_dev_counter(struct ib_device *dev, unsigned int counter)
{
	u64 sum[RWX_CNT_NR] = {}, base[RWX_CNT_NR] = {};
	struct rdma_rwx_dev_stats *s = &rdma_rwx_nodev_stats;

	if (counter >= RWX_CNT_NR)
		return U64_MAX;
	/* Held, a removal cannot free the device's counters under us. */
	mutex_lock(&rdma_rwx_stats_lock);
	if (dev)
		s = ib_get_client_data(dev, &rdma_rwx_client);
	if (s)
		rdma_rwx_sum_sets(s, sum, base);
	mutex_unlock(&rdma_rwx_stats_lock);
	return s ? sum[counter] - base[counter] : U64_MAX;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_dev_counter, RDMA_RWX_TESTING);

/**
 * rdma_rwx_total_counter() - one line of the global counters file
 * @counter: an enum rdma_rwx_counter
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): the sum over every
 * set, removed devices' included, since the last reset.
 *
 * Return: the count, or U64_MAX when @counter is out of range.
 */
u64 rdma_rwx_total_counter(unsigned int counter)
{
	u64 sum[RWX_CNT_NR] = {}, base[RWX_CNT_NR] = {};

	if (counter >= RWX_CNT_NR)
		return U64_MAX;
	rdma_rwx_sum_sets(NULL, sum, base);
	return sum[counter] - base[counter];
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_total_counter, RDMA_RWX_TESTING);

/**
 * rdma_rwx_stats_forget_device() - retire a device's counters now
 * @dev: the device
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): what the device's
 * removal does to its counters, while the test still holds contexts on
 * it, as when a ULP hears of the removal after this module does.  Its
 * later removal finds nothing left to retire.
 */
void rdma_rwx_stats_forget_device(struct ib_device *dev)
{
	rdma_rwx_retire(dev);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_stats_forget_device, RDMA_RWX_TESTING);

/**
 * rdma_rwx_stats_retire_barrier() - wait for retired counters to be freed
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): after it, every set
 * retired before the call is folded into the removed total and freed.
 */
void rdma_rwx_stats_retire_barrier(void)
{
	rcu_barrier_tasks();
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_stats_retire_barrier, RDMA_RWX_TESTING);

/**
 * rdma_rwx_dev_counter_name() - the line name of a counter
 * @counter: an enum rdma_rwx_counter
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING).
 *
 * Return: the name, or NULL when @counter is out of range.
 */
const char *rdma_rwx_dev_counter_name(unsigned int counter)
{
	return counter < RWX_CNT_NR ? rdma_rwx_counter_names[counter] : NULL;
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_dev_counter_name, RDMA_RWX_TESTING);

int rdma_rwx_stats_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu)
		per_cpu(rdma_rwx_last_stats, cpu) = &rdma_rwx_nodev_stats;
	list_add(&rdma_rwx_nodev_stats.node, &rdma_rwx_sets);

	/* Counting works without debugfs; only the files are missing then. */
	rdma_rwx_debugfs = debugfs_create_dir("rdma_rwx", NULL);
	debugfs_create_file("counters", 0600, rdma_rwx_debugfs, NULL,
			    &rdma_rwx_counters_fops);
	rdma_rwx_debugfs_devices = debugfs_create_dir("devices",
						      rdma_rwx_debugfs);
	ret = ib_register_client(&rdma_rwx_client);
	if (ret) {
		/* Devices added before the failure were retired: wait. */
		rcu_barrier_tasks();
		debugfs_remove_recursive(rdma_rwx_debugfs);
	}
	return ret;
}

void rdma_rwx_stats_exit(void)
{
	ib_unregister_client(&rdma_rwx_client);
	/* The retirement callback is this module's code. */
	rcu_barrier_tasks();
	debugfs_remove_recursive(rdma_rwx_debugfs);
}
