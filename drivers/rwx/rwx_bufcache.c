// SPDX-License-Identifier: GPL-2.0-only
/*
 * The buffers that hold the WR and SGE arrays of small multi-entry
 * contexts: a slab cache of their own with a constructor, so that
 * init_on_alloc (Debian's default) does not zero them - a context writes
 * its arrays in full before any use - and, in front of it, one buffer per
 * CPU, taken and given back with one this_cpu_xchg() / this_cpu_cmpxchg()
 * (irq- and preemption-safe, no lock).  A CPU going offline frees its
 * buffer.
 */

#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include "rwx_internal.h"

static struct kmem_cache *rdma_rwx_buf_slab;
static DEFINE_PER_CPU(void *, rdma_rwx_buf_hot);
static enum cpuhp_state rdma_rwx_buf_cpuhp_state;

/* A buffer of RDMA_RWX_BUF_SIZE bytes, its contents undefined; or NULL. */
void *rdma_rwx_buf_get(void)
{
	void *buf = this_cpu_xchg(rdma_rwx_buf_hot, NULL);

	return likely(buf) ? buf : kmem_cache_alloc(rdma_rwx_buf_slab,
						    GFP_KERNEL);
}

/* Give back a buffer of rdma_rwx_buf_get(). */
void rdma_rwx_buf_put(void *buf)
{
	if (unlikely(this_cpu_cmpxchg(rdma_rwx_buf_hot, NULL, buf)))
		kmem_cache_free(rdma_rwx_buf_slab, buf);
}

/* @cpu runs no context (offline, or this module going): free its buffer. */
static int rdma_rwx_buf_cpu_dead(unsigned int cpu)
{
	void *buf = xchg(per_cpu_ptr(&rdma_rwx_buf_hot, cpu), NULL);

	if (buf)
		kmem_cache_free(rdma_rwx_buf_slab, buf);
	return 0;
}

/* Its presence exempts the cache from init_on_alloc's zeroing. */
static void rdma_rwx_buf_ctor(void *buf)
{
}

int rdma_rwx_buf_cache_init(void)
{
	int ret;

	rdma_rwx_buf_slab = kmem_cache_create("rdma_rwx_buf",
					      RDMA_RWX_BUF_SIZE, 0, 0,
					      rdma_rwx_buf_ctor);
	if (!rdma_rwx_buf_slab)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"rdma/rwx:bufcache", NULL,
					rdma_rwx_buf_cpu_dead);
	if (ret < 0) {
		kmem_cache_destroy(rdma_rwx_buf_slab);
		return ret;
	}
	rdma_rwx_buf_cpuhp_state = ret;
	return 0;
}

/* At module unload, when no context is left. */
void rdma_rwx_buf_cache_exit(void)
{
	unsigned int cpu;

	cpuhp_remove_state_nocalls(rdma_rwx_buf_cpuhp_state);
	for_each_possible_cpu(cpu)
		rdma_rwx_buf_cpu_dead(cpu);
	kmem_cache_destroy(rdma_rwx_buf_slab);
}

/**
 * rdma_rwx_buf_cache_held() - how many buffers a CPU keeps
 * @cpu: the CPU
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): a CPU taken offline
 * keeps none.
 *
 * Return: 1 or 0.
 */
unsigned int rdma_rwx_buf_cache_held(unsigned int cpu)
{
	return !!READ_ONCE(*per_cpu_ptr(&rdma_rwx_buf_hot, cpu));
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_buf_cache_held, RDMA_RWX_TESTING);

/**
 * rdma_rwx_buf_cache_empty_local() - free this CPU's buffer
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): with migration off,
 * the next small context on this CPU then allocates its buffer, so a test
 * can fail that allocation.
 */
void rdma_rwx_buf_cache_empty_local(void)
{
	void *buf = this_cpu_xchg(rdma_rwx_buf_hot, NULL);

	if (buf)
		kmem_cache_free(rdma_rwx_buf_slab, buf);
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_buf_cache_empty_local, RDMA_RWX_TESTING);
