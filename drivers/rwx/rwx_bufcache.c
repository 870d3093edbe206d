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
 * case, never locks.
 */

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

/* Free every cached buffer: at module unload, when no context is left. */
void rdma_rwx_buf_cache_drain(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct rdma_rwx_buf_cache *cache =
			per_cpu_ptr(&rdma_rwx_buf_cache, cpu);

		while (cache->nr)
			kfree(cache->bufs[--cache->nr]);
		kfree(per_cpu(rdma_rwx_buf_hot, cpu));
		per_cpu(rdma_rwx_buf_hot, cpu) = NULL;
	}
}

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
