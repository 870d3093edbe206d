// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_rwx_takeover: ib_core's rdma_rw context functions redirected to the
 * engine by a live patch, so that the distribution's own ULP modules run on
 * it unmodified (Documentation/takeover.rst).  Loading enables the patch;
 * writing 0 to /sys/kernel/livepatch/rdma_rwx_takeover/enabled disables it,
 * after which the module unloads (a disabled patch cannot be enabled again).
 *
 * The engine sets every context up in ib_core's encoding and takes
 * ib_core's, so contexts cross the per-task switches in both directions.
 * QP sizing stays ib_core's (rdma_rw_init_qp(), rdma_rw_mr_factor(),
 * rdma_rw_max_send_wr()): the engine takes the same MR decision.
 */

#include <linux/livepatch.h>
#include <linux/module.h>
#include <rdma/rw.h>
#include <rdma/rwx_ibcore.h>

/* Each replacement has the exact type of the function it replaces. */
#define RDMA_RWX_TAKEOVER(old, new)					\
	{ .old_name = #old, .new_func = new }
static_assert(__same_type(&rdma_rw_ctx_init, &rdma_rwx_ibcore_ctx_init));
static_assert(__same_type(&rdma_rw_ctx_signature_init,
			  &rdma_rwx_ibcore_ctx_signature_init));
static_assert(__same_type(&rdma_rw_ctx_wrs, &rdma_rwx_ibcore_ctx_wrs));
static_assert(__same_type(&rdma_rw_ctx_post, &rdma_rwx_ibcore_ctx_post));
static_assert(__same_type(&rdma_rw_ctx_destroy,
			  &rdma_rwx_ibcore_ctx_destroy));
static_assert(__same_type(&rdma_rw_ctx_destroy_signature,
			  &rdma_rwx_ibcore_ctx_destroy_signature));

/*
 * The ib_core this was built for: the module refers to each function it
 * replaces, so that with modversions (Debian's kernels) the module loader
 * compares their CRCs, which cover the prototypes' types down to struct
 * rdma_rw_ctx, with the running ib_core's, and refuses to load ("disagrees
 * about version of symbol") an ib_core built otherwise: the engine writes
 * contexts in the encoding of the headers it was built against.
 */
static const void *const rdma_rwx_takeover_pinned[] __used = {
	rdma_rw_ctx_init, rdma_rw_ctx_signature_init, rdma_rw_ctx_wrs,
	rdma_rw_ctx_post, rdma_rw_ctx_destroy, rdma_rw_ctx_destroy_signature,
};

static struct klp_func rdma_rwx_takeover_funcs[] = {
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_init, rdma_rwx_ibcore_ctx_init),
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_signature_init,
			  rdma_rwx_ibcore_ctx_signature_init),
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_wrs, rdma_rwx_ibcore_ctx_wrs),
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_post, rdma_rwx_ibcore_ctx_post),
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_destroy, rdma_rwx_ibcore_ctx_destroy),
	RDMA_RWX_TAKEOVER(rdma_rw_ctx_destroy_signature,
			  rdma_rwx_ibcore_ctx_destroy_signature),
	{}
};

static struct klp_object rdma_rwx_takeover_objs[] = {
	{
		/* ib_core the module (Debian), or built in (vmlinux) */
		.name = IS_MODULE(CONFIG_INFINIBAND) ? "ib_core" : NULL,
		.funcs = rdma_rwx_takeover_funcs,
	},
	{}
};

static struct klp_patch rdma_rwx_takeover_patch = {
	.mod = THIS_MODULE,
	.objs = rdma_rwx_takeover_objs,
};

static int __init rdma_rwx_takeover_init(void)
{
	return klp_enable_patch(&rdma_rwx_takeover_patch);
}

static void __exit rdma_rwx_takeover_exit(void)
{
}

module_init(rdma_rwx_takeover_init);
module_exit(rdma_rwx_takeover_exit);

MODULE_DESCRIPTION("Live takeover of ib_core's rdma_rw API by the rdma_rwx engine");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_IMPORT_NS(RDMA_RWX);
