// SPDX-License-Identifier: GPL-2.0-only
/*
 * A per-CPU cache of the buffers that hold the WR and SGE arrays of small
 * multi-entry contexts.  kmalloc() zeroes every object it hands out where
 * init_on_alloc is on (Debian's default) and kfree() gives it back to the
 * slab; a context writes its arrays in full before any use, so taking
 * the buffer a destroyed context left costs neither.  Buffers are plain
 * kmalloc() objects: when a CPU's cache is empty a context allocates one,
 * when it is full the buffer is freed.  In front of each CPU's stack of
 * buffers, one slot of its own: a buffer given back goes there when it is
 * empty, and a context takes the slot's buffer first, each with one
 * this_cpu_cmpxchg() or this_cpu_xchg() (irq- and preemption-safe, no
 * lock), so a context that takes a buffer and gives it back, the common
 * case, never locks.  A CPU going offline frees what it cached.
 */

#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include "rwx_internal.h"

struct rdma_rwx_buf_cache {
	local_lock_t lock;	/* contexts are destroyed in any context */
	unsigned int nr;
	void *bufs[RDMA_RWX_BUF_CACHE_DEPTH];
};

static DEFINE_PER_CPU(struct rdma_rwx_buf_cache, rdma_rwx_buf_cache) = {
	.lock = INIT_LOCAL_LOCK(lock),
};

static DEFINE_PER_CPU(void *, rdma_rwx_buf_hot);

/* A buffer of RDMA_RWX_BUF_SIZE bytes, its contents undefined; or NULL. */
void *rdma_rwx_buf_get(void)
{
	struct rdma_rwx_buf_cache *cache;
	unsigned long flags;
	void *buf;

	buf = this_cpu_xchg(rdma_rwx_buf_hot, NULL);
	if (likely(buf))
		return buf;
	local_lock_irqsave(&rdma_rwx_buf_cache.lock, flags);
	cache = this_cpu_ptr(&rdma_rwx_buf_cache);
	if (cache->nr)
		buf = cache->bufs[--cache->nr];
	local_unlock_irqrestore(&rdma_rwx_buf_cache.lock, flags);
	return buf ?: kmalloc(RDMA_RWX_BUF_SIZE, GFP_KERNEL);
}

/* Give back a buffer of rdma_rwx_buf_get(). */
void rdma_rwx_buf_put(void *buf)
{
	struct rdma_rwx_buf_cache *cache;
	unsigned long flags;

	if (likely(!this_cpu_cmpxchg(rdma_rwx_buf_hot, NULL, buf)))
		return;
	local_lock_irqsave(&rdma_rwx_buf_cache.lock, flags);
	cache = this_cpu_ptr(&rdma_rwx_buf_cache);
	if (cache->nr < RDMA_RWX_BUF_CACHE_DEPTH) {
		cache->bufs[cache->nr++] = buf;
		buf = NULL;
	}
	local_unlock_irqrestore(&rdma_rwx_buf_cache.lock, flags);
	if (unlikely(buf))	/* the cache was full */
		kfree(buf);
}

/* Free the buffers cached on @cpu, which runs no context: offline, or gone. */
static void rdma_rwx_buf_cache_free_cpu(unsigned int cpu)
{
	struct rdma_rwx_buf_cache *cache = per_cpu_ptr(&rdma_rwx_buf_cache, cpu);

	while (cache->nr)
		kfree(cache->bufs[--cache->nr]);
	kfree(xchg(per_cpu_ptr(&rdma_rwx_buf_hot, cpu), NULL));
}

/*
 * A CPU that went offline gives its buffers back to the slab, rather than
 * keeping them until it comes back or the module goes: called on another
 * CPU once it is dead, so nothing runs on it (a local_lock section and the
 * slot's exchange keep preemption off, so none was left half done).
 */
static int rdma_rwx_buf_cpu_dead(unsigned int cpu)
{
	rdma_rwx_buf_cache_free_cpu(cpu);
	return 0;
}

static enum cpuhp_state rdma_rwx_buf_cpuhp_state;

/* At module load: free a CPU's buffers when it goes offline. */
int rdma_rwx_buf_cache_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "rdma/rwx:bufcache",
					NULL, rdma_rwx_buf_cpu_dead);
	if (ret < 0)
		return ret;
	rdma_rwx_buf_cpuhp_state = ret;
	return 0;
}

/* Free every cached buffer: at module unload, when no context is left. */
void rdma_rwx_buf_cache_exit(void)
{
	unsigned int cpu;

	cpuhp_remove_state_nocalls(rdma_rwx_buf_cpuhp_state);
	for_each_possible_cpu(cpu)
		rdma_rwx_buf_cache_free_cpu(cpu);
}

/**
 * rdma_rwx_buf_cache_held() - how many buffers a CPU's cache holds
 * @cpu: the CPU
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): a CPU taken offline
 * holds none.  Read without the CPU's lock: exact only while @cpu runs no
 * context (offline, or the test's own, idle).
 *
 * Return: the buffers in @cpu's slot and stack.
 */
unsigned int rdma_rwx_buf_cache_held(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&rdma_rwx_buf_cache, cpu)->nr) +
	       !!READ_ONCE(*per_cpu_ptr(&rdma_rwx_buf_hot, cpu));
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_buf_cache_held, RDMA_RWX_TESTING);

/**
 * rdma_rwx_buf_cache_empty_local() - free this CPU's cached buffers
 *
 * For the KUnit suites (namespace RDMA_RWX_TESTING): with migration off,
 * the next small context on this CPU then allocates its buffer, so a test
 * can fail that allocation.
 */
void rdma_rwx_buf_cache_empty_local(void)
{
	void *bufs[RDMA_RWX_BUF_CACHE_DEPTH];
	struct rdma_rwx_buf_cache *cache;
	unsigned long flags;
	unsigned int nr;

	local_lock_irqsave(&rdma_rwx_buf_cache.lock, flags);
	cache = this_cpu_ptr(&rdma_rwx_buf_cache);
	nr = cache->nr;
	memcpy(bufs, cache->bufs, nr * sizeof(*bufs));
	cache->nr = 0;
	local_unlock_irqrestore(&rdma_rwx_buf_cache.lock, flags);
	while (nr)
		kfree(bufs[--nr]);
	kfree(this_cpu_xchg(rdma_rwx_buf_hot, NULL));
}
EXPORT_SYMBOL_NS_GPL(rdma_rwx_buf_cache_empty_local, RDMA_RWX_TESTING);
