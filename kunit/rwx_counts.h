/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit helpers: every counter of one set of the engine's counters (a
 * device's, the no-device one, or the global file's sum), read before and
 * after an event, and checked to have moved by exactly what the event
 * should move and nothing else.
 */
#ifndef _RWX_COUNTS_H
#define _RWX_COUNTS_H

#include <kunit/test.h>
#include <linux/string.h>
#include "../drivers/rwx/rwx_stats.h"

/* Every counter of one set, and what moved it. */
struct rwx_counts {
	struct ib_device *dev;		/* NULL: the no-device set */
	bool total;			/* the global file's sum instead */
	u64 v[RWX_CNT_NR];
	u64 d[RWX_CNT_NR];		/* the deltas the next check expects */
};

static inline const char *rwx_counts_name(const struct rwx_counts *c)
{
	if (c->total)
		return "(all devices)";
	return c->dev ? c->dev->name : "(no device)";
}

static inline void rwx_counts_read(struct kunit *test, struct rwx_counts *c,
				   u64 *v)
{
	u32 i;

	for (i = 0; i < RWX_CNT_NR; i++) {
		v[i] = c->total ? rdma_rwx_total_counter(i) :
				  rdma_rwx_dev_counter(c->dev, i);
		KUNIT_ASSERT_NE_MSG(test, v[i], U64_MAX, "%s has no counter %s",
				    rwx_counts_name(c),
				    rdma_rwx_dev_counter_name(i));
	}
}

/* Start counting on @dev's set (NULL: the no-device set). */
static inline void rwx_counts_start(struct kunit *test, struct rwx_counts *c,
				    struct ib_device *dev)
{
	c->dev = dev;
	c->total = false;
	memset(c->d, 0, sizeof(c->d));
	rwx_counts_read(test, c, c->v);
}

/* Start counting on the global file's sum. */
static inline void rwx_counts_start_total(struct kunit *test,
					  struct rwx_counts *c)
{
	c->dev = NULL;
	c->total = true;
	memset(c->d, 0, sizeof(c->d));
	rwx_counts_read(test, c, c->v);
}

/*
 * Every counter moved by exactly what c->d says since the last check (the
 * others not at all); then the next check starts from here.
 */
static inline void rwx_counts_check(struct kunit *test, struct rwx_counts *c,
				    const char *what)
{
	u64 now[RWX_CNT_NR];
	u32 i;

	rwx_counts_read(test, c, now);
	for (i = 0; i < RWX_CNT_NR; i++)
		KUNIT_EXPECT_EQ_MSG(test, now[i] - c->v[i], c->d[i],
				    "%s: %s on %s", what,
				    rdma_rwx_dev_counter_name(i),
				    rwx_counts_name(c));
	memcpy(c->v, now, sizeof(now));
	memset(c->d, 0, sizeof(c->d));
}

#endif /* _RWX_COUNTS_H */
