// SPDX-License-Identifier: GPL-2.0-only
/*
 * Harness self-test, and the proof that breaking the teardown order of
 * Documentation/rdma_rwx.rst is caught by the kernel itself: on a test
 * device, a context takes an MR from its QP's pool and the QP is then
 * destroyed before the context.  ib_destroy_qp() warns (qp->mrs_used in
 * drivers/infiniband/core/verbs.c), and the harness must fail the run on
 * that splat.  The module then releases what the broken order stranded
 * (the MR, the mapping) by hand, so the run shows that one warning only.
 */

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_testdev.h"

/* iWARP: READs take the MR path, so the QP has a pool and uses it. */
static const struct rwx_testdev_caps rwx_selftest_caps = {
	.iwarp = true,
	.max_fast_reg_page_list_len = 16,
};

static int rwx_selftest_break_order(struct ib_device *dev, struct ib_pd *pd,
				    struct ib_cq *cq, struct scatterlist *sg)
{
	static const struct ib_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 1, .max_send_sge = 1,
		.max_recv_sge = 1, .max_rdma_ctxs = 1,
	};
	struct rdma_rw_ctx ctx;
	struct ib_qp *qp;
	int ret;

	qp = rwx_testdev_create_qp(pd, cq, 0, &cap);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = rdma_rwx_ctx_init(&ctx, qp, 1, sg, 1, 0, 0, 0, DMA_FROM_DEVICE);
	if (ret < 0) {
		ib_destroy_qp(qp);
		return ret;
	}
	pr_info("rwx_selftest_qp_first: context holds %u MR(s); destroying its QP first\n",
		qp->mrs_used);
	ib_destroy_qp(qp);		/* the broken order: warns */

	/* What the context still holds, released without its dead QP. */
	ib_dereg_mr(ctx.reg[0].mr);
	kfree(ctx.reg);
	ib_dma_unmap_sg(dev, sg, 1, DMA_FROM_DEVICE);
	return 0;
}

static int __init rwx_selftest_qp_first_init(void)
{
	struct rwx_testdev *tdev;
	struct scatterlist sg;
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *buf;
	int ret;

	buf = (void *)get_zeroed_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	sg_init_one(&sg, buf, PAGE_SIZE);
	tdev = rwx_testdev_create("rwxbad%d", &rwx_selftest_caps);
	if (IS_ERR(tdev)) {
		free_page((unsigned long)buf);
		return PTR_ERR(tdev);
	}
	dev = rwx_testdev_ibdev(tdev);
	pd = ib_alloc_pd(dev, 0);
	ret = PTR_ERR_OR_ZERO(pd);
	if (!ret) {
		cq = ib_alloc_cq(dev, NULL, 16, 0, IB_POLL_DIRECT);
		ret = PTR_ERR_OR_ZERO(cq);
		if (!ret) {
			ret = rwx_selftest_break_order(dev, pd, cq, &sg);
			ib_free_cq(cq);
		}
		ib_dealloc_pd(pd);
	}
	rwx_testdev_destroy(tdev);
	free_page((unsigned long)buf);
	return ret;
}

static void __exit rwx_selftest_qp_first_exit(void)
{
}

module_init(rwx_selftest_qp_first_init);
module_exit(rwx_selftest_qp_first_exit);

MODULE_DESCRIPTION("rdma-rwx harness self-test: a QP destroyed before its context");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RWX_TESTDEV);
