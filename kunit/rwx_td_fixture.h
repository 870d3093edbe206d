/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fixture of the suites that drive a test device (rwx_testdev) by hand,
 * without the RDMA CM: rwx_testdev_kunit and rwx_sig_kunit.
 */
#ifndef _RWX_TD_FIXTURE_H
#define _RWX_TD_FIXTURE_H

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/gfp.h>
#include <rdma/ib_verbs.h>
#include "rwx_testdev.h"

/*
 * A test device instance with what suites that post to it directly need: a
 * PD (unsafe global rkey), a CQ and a connected pair of RC QPs, which each
 * suite creates itself (its own sizes and flags).
 */
struct rwx_td_fixture {
	struct rwx_testdev *tdev;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;		/* posts here */
	struct ib_qp *peer;		/* the far end */
};

/* Zeroed pages for a test's buffers: NULL when there are none. */
static inline void *rwx_td_pages(unsigned int order)
{
	struct page *page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);

	return page ? page_address(page) : NULL;
}

static inline void rwx_td_free_pages(void *buf, unsigned int order)
{
	if (buf)
		free_pages((unsigned long)buf, order);
}

/* A new instance named after @name_fmt (one %d), its PD and a CQ. */
static inline void rwx_td_fixture_open(struct kunit *test,
				       struct rwx_td_fixture *fx,
				       const char *name_fmt,
				       const struct rwx_testdev_caps *caps,
				       int cqe, enum ib_poll_context poll)
{
	fx->tdev = rwx_testdev_create(name_fmt, caps);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->tdev);
	fx->dev = rwx_testdev_ibdev(fx->tdev);
	fx->pd = ib_alloc_pd(fx->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->pd);
	fx->cq = ib_alloc_cq(fx->dev, NULL, cqe, 0, poll);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->cq);
}

static inline void rwx_td_destroy_qp(struct ib_qp **qp)
{
	if (!IS_ERR_OR_NULL(*qp))
		ib_destroy_qp(*qp);
	*qp = NULL;
}

/*
 * In the ULP order of Documentation/rdma_rwx.rst (contexts and mappings
 * are the suite's, gone before): the QPs, the CQ, the PD, then the
 * instance, which must hold nothing any more.  Safe on a partly opened
 * fixture.
 */
static inline void rwx_td_fixture_close(struct kunit *test,
					struct rwx_td_fixture *fx)
{
	struct rwx_testdev_counts counts;

	rwx_td_destroy_qp(&fx->qp);
	rwx_td_destroy_qp(&fx->peer);
	if (!IS_ERR_OR_NULL(fx->cq))
		ib_free_cq(fx->cq);
	fx->cq = NULL;
	if (!IS_ERR_OR_NULL(fx->pd))
		ib_dealloc_pd(fx->pd);
	fx->pd = NULL;
	if (IS_ERR_OR_NULL(fx->tdev))
		return;
	rwx_testdev_counts(fx->tdev, &counts);
	KUNIT_EXPECT_EQ(test, counts.pds, 0);
	KUNIT_EXPECT_EQ(test, counts.cqs, 0);
	KUNIT_EXPECT_EQ(test, counts.qps, 0);
	KUNIT_EXPECT_EQ(test, counts.mrs, 0);
	KUNIT_EXPECT_EQ(test, counts.valid_mrs, 0);
	rwx_testdev_destroy(fx->tdev);
	fx->tdev = NULL;
}

#endif /* _RWX_TD_FIXTURE_H */
