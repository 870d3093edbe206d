// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx counters.
 *
 * Each RDMA device gets a set of per-CPU counters when it appears (an
 * ib_client's add callback) and gives it back when it goes (remove); calls
 * that name no device (a NULL QP), and contexts destroyed after their
 * device went, count in a set of their own.  In debugfs:
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
 * The hot path finds a device's set in a per-CPU one-entry cache
 * (rdma_rwx_last_stats) and counts with preemption enabled, so a task may
 * be preempted holding a set's address.  Sets are therefore never freed
 * while the module is loaded: a removed device's set names no device
 * (RDMA_RWX_SET_GONE) and stays on the list the global file sums, so a
 * count that passed its cache test just before lands where the global
 * file still sees it.  After an RCU-tasks grace period (every task has
 * since switched voluntarily, which no counting section does, and
 * interrupt handlers have ended) no such count is left, and the set is
 * free: a device that appears later takes it, its earlier devices' counts
 * carried into the global file.
 */

#include <linux/debugfs.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
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
 * Protects the list of sets (in use or not, the last given back first),
 * their bases and the carried counts; taken inside rdma_rwx_stats_lock.  A
 * file read takes only this one: removing the file waits for its readers.
 */
static DEFINE_SPINLOCK(rdma_rwx_sets_lock);
static LIST_HEAD(rdma_rwx_sets);
/* The counts of the devices whose sets were taken again, since a reset. */
static u64 rdma_rwx_carried[RWX_CNT_NR];

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
	[RWX_CNT_SHARED] = "shared",
	[RWX_CNT_SHARED_DESTROY] = "shared_destroyed",
	[RWX_CNT_ADOPTED] = "adopted",
};

static struct ib_client rdma_rwx_client;

/*
 * This CPU's cache missed: look @dev's set up (its client data) and make
 * it this CPU's last device.  A device without a set (its add failed, or
 * it is going away) counts in the no-device set.  A set retired meanwhile
 * names no device, so the next lookup misses again.
 */
struct rdma_rwx_counters __percpu *rdma_rwx_dev_counters_slow(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s = NULL;

	if (dev)
		s = ib_get_client_data(dev, &rdma_rwx_client);
	if (!s)
		s = &rdma_rwx_nodev_stats;
	this_cpu_write(rdma_rwx_last_stats, s);
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

/* The counts only grow, so no later sum is less than the base. */
static void rdma_rwx_reset(struct rdma_rwx_dev_stats *s)
{
	memset(s->base, 0, sizeof(s->base));
	rdma_rwx_sum(s->pcpu, s->base);
}

/*
 * Per-CPU sums: contexts set up and not destroyed, a gauge no reset moves.
 * Shared contexts are not in it: ib_core may destroy them unseen.
 */
static s64 rdma_rwx_live(const u64 *sum)
{
	return sum[RWX_CNT_INIT_SGE_SINGLE] + sum[RWX_CNT_INIT_SGE_MULTI] +
	       sum[RWX_CNT_INIT_MR] + sum[RWX_CNT_INIT_SIG] -
	       sum[RWX_CNT_DESTROY] - sum[RWX_CNT_SHARED];
}

/*
 * What a counters file shows (@v, and contexts_live returned): one set
 * (@s), less its earlier devices', or every set and the carried counts.
 * contexts_live is signed: a context destroyed on another CPU may be read
 * first.
 */
static s64 rdma_rwx_sum_sets(struct rdma_rwx_dev_stats *s, u64 *v)
{
	u64 sum[RWX_CNT_NR] = {}, base[RWX_CNT_NR] = {};
	s64 live_base = 0;
	int i;

	spin_lock(&rdma_rwx_sets_lock);
	if (s) {
		rdma_rwx_sum(s->pcpu, sum);
		memcpy(base, s->base, sizeof(base));
		live_base = s->live_base;
	} else {
		list_for_each_entry(s, &rdma_rwx_sets, node) {
			rdma_rwx_sum(s->pcpu, sum);
			for (i = 0; i < RWX_CNT_NR; i++)
				base[i] += s->base[i];
		}
		for (i = 0; i < RWX_CNT_NR; i++)
			base[i] -= rdma_rwx_carried[i];
	}
	spin_unlock(&rdma_rwx_sets_lock);
	for (i = 0; i < RWX_CNT_NR; i++)
		v[i] = sum[i] - base[i];
	return rdma_rwx_live(sum) - live_base;
}

/*
 * A counters file: one device's (its set the file's private data) or,
 * without one, the global file.  A reset zeroes the event counts of one
 * set, or of all and the carried counts.
 */
static int rdma_rwx_counters_show(struct seq_file *m, void *unused)
{
	u64 v[RWX_CNT_NR];
	s64 live = rdma_rwx_sum_sets(m->private, v);
	int i;

	for (i = 0; i < RWX_CNT_NR; i++) {
		/* Counters added after contexts_live follow it. */
		if (i == RWX_CNT_INIT_BVEC)
			seq_printf(m, "contexts_live %lld\n", live);
		seq_printf(m, "%s %llu\n", rdma_rwx_counter_names[i], v[i]);
	}
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
	struct rdma_rwx_dev_stats *s;

	s = ((struct seq_file *)file->private_data)->private;
	spin_lock(&rdma_rwx_sets_lock);
	if (s) {
		rdma_rwx_reset(s);
	} else {
		list_for_each_entry(s, &rdma_rwx_sets, node)
			rdma_rwx_reset(s);
		memset(rdma_rwx_carried, 0, sizeof(rdma_rwx_carried));
	}
	spin_unlock(&rdma_rwx_sets_lock);
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

/* A free set, its earlier devices' counts carried, zeroed. */
static struct rdma_rwx_dev_stats *rdma_rwx_reuse_set(void)
{
	struct rdma_rwx_dev_stats *s;
	int i;

	list_for_each_entry(s, &rdma_rwx_sets, node) {
		if (READ_ONCE(s->dev) != RDMA_RWX_SET_FREE)
			continue;
		/* its counts since the last reset stay in the global file */
		for (i = 0; i < RWX_CNT_NR; i++)
			rdma_rwx_carried[i] -= s->base[i];
		rdma_rwx_reset(s);
		for (i = 0; i < RWX_CNT_NR; i++)
			rdma_rwx_carried[i] += s->base[i];
		s->live_base = rdma_rwx_live(s->base);
		return s;
	}
	return NULL;
}

/* A free set, or a new one; under rdma_rwx_stats_lock, so one at a time. */
static struct rdma_rwx_dev_stats *rdma_rwx_take_set(void)
{
	struct rdma_rwx_dev_stats *s;

	spin_lock(&rdma_rwx_sets_lock);
	s = rdma_rwx_reuse_set();
	spin_unlock(&rdma_rwx_sets_lock);
	if (s)
		return s;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->pcpu = alloc_percpu(struct rdma_rwx_counters);
	if (!s->pcpu) {
		kfree(s);
		return NULL;
	}
	spin_lock(&rdma_rwx_sets_lock);
	list_add_tail(&s->node, &rdma_rwx_sets);
	spin_unlock(&rdma_rwx_sets_lock);
	return s;
}

static int rdma_rwx_add_one(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s;

	rdma_rwx_follow_ibcore_force_mr(dev);
	mutex_lock(&rdma_rwx_stats_lock);
	s = rdma_rwx_take_set();
	if (s) {
		WRITE_ONCE(s->dev, dev);
		rdma_rwx_dev_debugfs(s);
		ib_set_client_data(dev, &rdma_rwx_client, s);
	}
	mutex_unlock(&rdma_rwx_stats_lock);
	return s ? 0 : -ENOMEM;
}

/* A grace period after its device went: no count can land in @s now. */
static void rdma_rwx_set_free(struct rcu_head *rcu)
{
	struct rdma_rwx_dev_stats *s =
		container_of(rcu, struct rdma_rwx_dev_stats, rcu);

	WRITE_ONCE(s->dev, RDMA_RWX_SET_FREE);
}

/*
 * Give the set of @dev back, if it has one: its file goes now, its counts
 * stay in the global file.  Contexts may still be live on @dev (the ULPs
 * whose ib_client was registered before this module's are told of the
 * removal after it): they count in the no-device set from now on, the set
 * matching no device in any CPU's cache.
 */
static void rdma_rwx_give_back(struct ib_device *dev)
{
	struct rdma_rwx_dev_stats *s;

	mutex_lock(&rdma_rwx_stats_lock);
	s = ib_get_client_data(dev, &rdma_rwx_client);
	if (s) {
		ib_set_client_data(dev, &rdma_rwx_client, NULL);
		WRITE_ONCE(s->dev, RDMA_RWX_SET_GONE);
		debugfs_remove_recursive(s->dir);
		s->dir = NULL;
		spin_lock(&rdma_rwx_sets_lock);
		list_move(&s->node, &rdma_rwx_sets);
		spin_unlock(&rdma_rwx_sets_lock);
		call_rcu_tasks(&s->rcu, rdma_rwx_set_free);
	}
	mutex_unlock(&rdma_rwx_stats_lock);
}

/* The device goes (rdma link delete, driver unload, or this module's unload). */
static void rdma_rwx_remove_one(struct ib_device *dev, void *client_data)
{
	rdma_rwx_give_back(dev);
}

/* The directory follows the device's name. */
static void rdma_rwx_rename_one(struct ib_device *dev, void *client_data)
{
	struct rdma_rwx_dev_stats *s;

	mutex_lock(&rdma_rwx_stats_lock);
	/* Not if it was retired meanwhile (rdma_rwx_stats_forget_device()). */
	s = ib_get_client_data(dev, &rdma_rwx_client);
	if (s) {
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
	struct rdma_rwx_dev_stats *s = &rdma_rwx_nodev_stats;
	u64 v[RWX_CNT_NR];

	if (counter >= RWX_CNT_NR)
		return U64_MAX;
	/* Held, the device's set cannot be given back meanwhile. */
	mutex_lock(&rdma_rwx_stats_lock);
	if (dev)
		s = ib_get_client_data(dev, &rdma_rwx_client);
	if (s)
		rdma_rwx_sum_sets(s, v);
	mutex_unlock(&rdma_rwx_stats_lock);
	return s ? v[counter] : U64_MAX;
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
	u64 v[RWX_CNT_NR];

	if (counter >= RWX_CNT_NR)
		return U64_MAX;
	rdma_rwx_sum_sets(NULL, v);
	return v[counter];
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_total_counter, RDMA_RWX_TESTING);

/**
 * rdma_rwx_stats_forget_device() - give a device's counters back now
 * @dev: the device
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): what the device's
 * removal does to its counters, while the test still holds contexts on
 * it, as when a ULP hears of the removal after this module does.  Its
 * later removal finds nothing left to give back.
 */
void rdma_rwx_stats_forget_device(struct ib_device *dev)
{
	rdma_rwx_give_back(dev);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_stats_forget_device, RDMA_RWX_TESTING);

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

/**
 * rdma_rwx_stats_retire_barrier() - wait until given-back counters are free
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): after it, every set
 * given back before the call can be taken by a new device.
 */
void rdma_rwx_stats_retire_barrier(void)
{
	rcu_barrier_tasks();
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_stats_retire_barrier, RDMA_RWX_TESTING);

/*
 * Every device is gone: free the sets, the no-device one aside, once the
 * files' readers and the grace periods (this module's code) are done.
 */
static void rdma_rwx_free_sets(void)
{
	struct rdma_rwx_dev_stats *s, *next;

	debugfs_remove_recursive(rdma_rwx_debugfs);
	rcu_barrier_tasks();
	list_for_each_entry_safe(s, next, &rdma_rwx_sets, node) {
		if (s == &rdma_rwx_nodev_stats)
			continue;
		free_percpu(s->pcpu);
		kfree(s);
	}
}

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
	if (ret)	/* the devices added before the failure were removed */
		rdma_rwx_free_sets();
	return ret;
}

void rdma_rwx_stats_exit(void)
{
	ib_unregister_client(&rdma_rwx_client);
	rdma_rwx_free_sets();
}
