// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx counters in debugfs: <debugfs>/rdma_rwx/counters holds one
 * "name value" line per counter; writing anything to it zeroes the event
 * counts (contexts_live, a gauge, stays).  Counts since the last reset are
 * the per-CPU counts less their values at the reset.
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "rwx_internal.h"
#include "rwx_stats.h"

DEFINE_PER_CPU(struct rdma_rwx_counters, rdma_rwx_counters);

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
};

static struct dentry *rdma_rwx_debugfs;

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

/* Count the outcome of a context init: its path, or its error. */
void rdma_rwx_count_init(const struct rdma_rw_ctx *ctx, int ret)
{
	if (ret < 0) {
		rdma_rwx_count(rdma_rwx_err_counter(ret));
		return;
	}
	switch (ctx->type) {
	case RDMA_RWX_CTX_SINGLE:
		rdma_rwx_count(RWX_CNT_INIT_SGE_SINGLE);
		break;
	case RDMA_RWX_CTX_MULTI:
	case RDMA_RWX_CTX_MULTI_CACHED:
		rdma_rwx_count(RWX_CNT_INIT_SGE_MULTI);
		break;
	case RDMA_RWX_CTX_MR:
		rdma_rwx_count(RWX_CNT_INIT_MR);
		this_cpu_add(rdma_rwx_counters.events[RWX_CNT_MRS], ctx->nr_ops);
		break;
	default:
		rdma_rwx_count(RWX_CNT_INIT_SIG);
		rdma_rwx_count(RWX_CNT_MRS);
		break;
	}
}

static int rdma_rwx_counters_show(struct seq_file *m, void *unused)
{
	u64 sum[RWX_CNT_NR] = {}, base[RWX_CNT_NR] = {}, inits;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct rdma_rwx_counters *c =
			per_cpu_ptr(&rdma_rwx_counters, cpu);

		for (i = 0; i < RWX_CNT_NR; i++)
			base[i] += READ_ONCE(c->base[i]);
		/* Bases before counts: no base passes the count it was taken of. */
		smp_rmb();
		for (i = 0; i < RWX_CNT_NR; i++)
			sum[i] += READ_ONCE(c->events[i]);
	}
	for (i = 0; i < RWX_CNT_NR; i++)
		seq_printf(m, "%s %llu\n", rdma_rwx_counter_names[i],
			   sum[i] - base[i]);
	inits = sum[RWX_CNT_INIT_SGE_SINGLE] + sum[RWX_CNT_INIT_SGE_MULTI] +
		sum[RWX_CNT_INIT_MR] + sum[RWX_CNT_INIT_SIG];
	/* Signed: a context destroyed on another CPU may be read first. */
	seq_printf(m, "contexts_live %lld\n",
		   (s64)(inits - sum[RWX_CNT_DESTROY]));
	return 0;
}

static int rdma_rwx_counters_open(struct inode *inode, struct file *file)
{
	return single_open(file, rdma_rwx_counters_show, NULL);
}

static ssize_t rdma_rwx_counters_reset(struct file *file,
				       const char __user *buf, size_t len,
				       loff_t *ppos)
{
	int cpu, i;

	for_each_possible_cpu(cpu) {
		struct rdma_rwx_counters *c = per_cpu_ptr(&rdma_rwx_counters, cpu);

		for (i = 0; i < RWX_CNT_NR; i++)
			WRITE_ONCE(c->base[i], READ_ONCE(c->events[i]));
	}
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

void rdma_rwx_stats_init(void)
{
	/* Counting works without debugfs; only the file is missing then. */
	rdma_rwx_debugfs = debugfs_create_dir("rdma_rwx", NULL);
	debugfs_create_file("counters", 0600, rdma_rwx_debugfs, NULL,
			    &rdma_rwx_counters_fops);
}

void rdma_rwx_stats_exit(void)
{
	debugfs_remove_recursive(rdma_rwx_debugfs);
}
