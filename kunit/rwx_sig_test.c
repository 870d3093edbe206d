// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: signature (T10-PI) contexts on the test device (rwx_testdev),
 * whose integrity MRs do the T10-DIF work a HCA does.  Every case moves
 * real data: WRITE and READ, both domains T10-DIF (pass), memory NONE
 * (insert on the wire / strip from it) and wire NONE, 512 B and 4 KiB
 * intervals, protection in a list of its own or interleaved with the
 * data, multi-entry lists.  The bytes and PI that arrive are checked
 * against PI computed here, independently of the device; corrupted data,
 * guards, reference and application tags are reported by
 * ib_check_mr_status() at the failing block.  ib_core's own
 * rdma_rw_ctx_signature_init() on the same device and input is the
 * oracle for the chain, and in ib_core's encoding (the live takeover's)
 * contexts cross between the two: set up, posted and destroyed by either.
 * Bad input, pool exhaustion, device faults and allocation failures leave
 * no MR taken and nothing mapped.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/rwx_ibcore.h>
#include <rdma/signature.h>
#include "../drivers/rwx/rwx_internal.h"
#include "rwx_counts.h"
#include "rwx_kunit_compat.h"
#include "rwx_loopback.h"
#include "rwx_t10_oracle.h"
#include "rwx_td_fixture.h"
#include "rwx_testdev.h"

#define RWX_SIG_BUF_ORDER	5	/* 128 KiB per buffer */
#define RWX_SIG_BUF_LEN		(PAGE_SIZE << RWX_SIG_BUF_ORDER)
#define RWX_SIG_MAX_SG		16
#define RWX_SIG_PI_PAGES	16	/* the integrity MRs' page lists */
#define RWX_SIG_CTXS		2	/* MRs in each of the QP's pools */
#define RWX_SIG_PI_SIZE		((u32)sizeof(struct t10_pi_tuple))
#define RWX_SIG_RECS		8	/* WRs recorded per chain */
#define RWX_SIG_REF_BASE	0x1000
#define RWX_SIG_APP_TAG		0x5a5a
/* Where in env->image the differential test keeps a copy of env->prot. */
#define RWX_SIG_IMAGE_PROT	(RWX_SIG_BUF_LEN / 2)

static const struct rwx_testdev_caps rwx_sig_caps = {
	.integrity = true,
	.max_send_sge = 4,
	.max_sge_rd = 4,
	.max_fast_reg_page_list_len = 64,
	.max_pi_fast_reg_page_list_len = RWX_SIG_PI_PAGES,
};

struct rwx_sig_env {
	struct rwx_td_fixture fx;	/* fx.qp: integrity enabled, the engine's */
	u8 *remote;			/* the peer's memory, at remote_dma */
	u64 remote_dma;
	u8 *data, *prot;		/* behind data_sg and prot_sg */
	u8 *blocks;			/* the blocks' data, for the oracle */
	u8 *image;			/* an expected memory or wire image */
	struct scatterlist data_sg[RWX_SIG_MAX_SG];
	struct scatterlist prot_sg[RWX_SIG_MAX_SG];
	u32 data_nents, prot_nents;
	struct rwx_testdev_wr_rec recs[RWX_SIG_RECS];
};

/* One shape of signature context. */
struct rwx_sig_case {
	const char *name;
	enum ib_signature_type mem, wire;
	enum ib_t10_dif_bg_type bg_type;
	u16 interval;
	u32 blocks;
	bool prot_list;		/* memory PI in a list of its own */
	u32 data_entries, prot_entries;
	u32 data_lead, prot_lead;	/* where the lists start in a page */
};

#define DIF	IB_SIG_TYPE_T10_DIF
#define NONE	IB_SIG_TYPE_NONE
#define CRC	IB_T10DIF_CRC
#define CSUM	IB_T10DIF_CSUM

static const struct rwx_sig_case rwx_sig_cases[] = {
	{ "pass-512-prot", DIF, DIF, CRC, 512, 24, true, 3, 1, 0, 0 },
	{ "pass-512-prot2", DIF, DIF, CRC, 512, 32, true, 4, 2, 512, 3968 },
	{ "pass-4096-prot", DIF, DIF, CRC, 4096, 8, true, 4, 1, 0, 100 },
	{ "pass-512-interleaved", DIF, DIF, CRC, 512, 20, false, 2, 0, 0, 0 },
	{ "pass-4096-csum", DIF, DIF, CSUM, 4096, 4, true, 2, 1, 0, 0 },
	{ "memnone-512", NONE, DIF, CRC, 512, 16, false, 2, 0, 1024, 0 },
	{ "memnone-4096", NONE, DIF, CRC, 4096, 6, false, 3, 0, 0, 0 },
	{ "wirenone-512-prot", DIF, NONE, CRC, 512, 24, true, 2, 1, 0, 0 },
	{ "wirenone-4096-interleaved", DIF, NONE, CRC, 4096, 3, false, 1, 0, 0, 0 },
	{ "wirenone-4096-csum", DIF, NONE, CSUM, 4096, 5, true, 5, 1, 0, 0 },
};

#undef DIF
#undef NONE
#undef CRC
#undef CSUM

static void rwx_sig_case_desc(const struct rwx_sig_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(rwx_sig_case, rwx_sig_cases, rwx_sig_case_desc);

static void rwx_sig_domain(struct ib_sig_domain *domain,
			   enum ib_signature_type type,
			   const struct rwx_sig_case *c)
{
	struct ib_t10_dif_domain *dif = &domain->sig.dif;

	memset(domain, 0, sizeof(*domain));
	domain->sig_type = type;
	if (type == IB_SIG_TYPE_NONE)
		return;
	dif->bg_type = c->bg_type;
	dif->pi_interval = c->interval;
	dif->app_tag = RWX_SIG_APP_TAG;
	dif->ref_tag = RWX_SIG_REF_BASE;
	dif->ref_remap = true;
	dif->app_escape = true;
	dif->ref_escape = true;
	dif->apptag_check_mask = 0xffff;
}

static void rwx_sig_attrs(struct ib_sig_attrs *attrs,
			  const struct rwx_sig_case *c)
{
	memset(attrs, 0, sizeof(*attrs));
	attrs->check_mask = IB_SIG_CHECK_GUARD | IB_SIG_CHECK_APPTAG |
			    IB_SIG_CHECK_REFTAG;
	rwx_sig_domain(&attrs->mem, c->mem, c);
	rwx_sig_domain(&attrs->wire, c->wire, c);
}

static bool rwx_sig_has_pi(enum ib_signature_type type)
{
	return type != IB_SIG_TYPE_NONE;
}

/* Bytes of the memory data list: PI interleaved when it has no list. */
static u32 rwx_sig_data_len(const struct rwx_sig_case *c)
{
	bool interleaved = rwx_sig_has_pi(c->mem) && !c->prot_list;

	return c->blocks * (c->interval + (interleaved ? RWX_SIG_PI_SIZE : 0));
}

/*
 * The SGE rdma_rw_ctx_signature_init() posts, by mlx5's reckoning: both
 * lists' bytes, less the protection list when the wire carries no PI.
 */
static u32 rwx_sig_sge_len(const struct rwx_sig_case *c)
{
	return rwx_sig_data_len(c) +
	       (c->prot_list && rwx_sig_has_pi(c->wire) ?
		c->blocks * RWX_SIG_PI_SIZE : 0);
}

static u32 rwx_sig_wire_len(const struct rwx_sig_case *c)
{
	return c->blocks * (c->interval +
			    (rwx_sig_has_pi(c->wire) ? RWX_SIG_PI_SIZE : 0));
}

/*
 * Spread [@buf + @lead, + @len) over @entries entries that meet on page
 * boundaries, as one MR can map them; returns the entry count.
 */
static u32 rwx_sig_split(struct kunit *test, struct scatterlist *sgl, u8 *buf,
			 u32 lead, u32 len, u32 entries)
{
	u32 first = lead >> PAGE_SHIFT, last = (lead + len - 1) >> PAGE_SHIFT;
	u32 pages = last - first + 1, i;

	KUNIT_ASSERT_LE(test, lead + len, (u32)RWX_SIG_BUF_LEN);
	KUNIT_ASSERT_GE(test, pages, entries);
	KUNIT_ASSERT_LE(test, entries, (u32)RWX_SIG_MAX_SG);
	sg_init_table(sgl, entries);
	for (i = 0; i < entries; i++) {
		u32 from = max(lead, (first + i * pages / entries) << PAGE_SHIFT);
		u32 to = min(lead + len,
			     (first + (i + 1) * pages / entries) << PAGE_SHIFT);

		sg_set_buf(&sgl[i], buf + from, to - from);
	}
	return entries;
}

/* The local lists of a case, with fresh random blocks. */
static void rwx_sig_lists(struct kunit *test, const struct rwx_sig_case *c)
{
	struct rwx_sig_env *env = test->priv;

	get_random_bytes(env->blocks, c->blocks * c->interval);
	env->data_nents = rwx_sig_split(test, env->data_sg, env->data,
					c->data_lead, rwx_sig_data_len(c),
					c->data_entries);
	env->prot_nents = 0;
	if (rwx_sig_has_pi(c->mem) && c->prot_list)
		env->prot_nents = rwx_sig_split(test, env->prot_sg, env->prot,
						c->prot_lead,
						c->blocks * RWX_SIG_PI_SIZE,
						c->prot_entries);
}

/*
 * An image of the blocks with the PI of @domain after each one: the wire
 * (T10-DIF or NONE), or memory with interleaved PI.  Returns its length.
 */
static u32 rwx_sig_image(struct rwx_sig_env *env, const struct rwx_sig_case *c,
			 const struct ib_sig_domain *domain, u8 *out)
{
	const u8 *block = env->blocks;
	u8 *p = out;
	u32 i;

	for (i = 0; i < c->blocks; i++, block += c->interval) {
		memcpy(p, block, c->interval);
		p += c->interval;
		if (rwx_sig_has_pi(domain->sig_type)) {
			rwx_t10_tuple(&domain->sig.dif, block, i,
				      (struct t10_pi_tuple *)p);
			p += RWX_SIG_PI_SIZE;
		}
	}
	return p - out;
}

/* Local memory as a ULP would fill it for a WRITE: data and correct PI. */
static void rwx_sig_fill_local(struct rwx_sig_env *env,
			       const struct rwx_sig_case *c,
			       const struct ib_sig_attrs *attrs)
{
	u8 *data = env->data + c->data_lead, *prot = env->prot + c->prot_lead;
	const struct ib_t10_dif_domain *dif = &attrs->mem.sig.dif;
	u32 i;

	if (!c->prot_list) {
		rwx_sig_image(env, c, &attrs->mem, data);
		return;
	}
	memcpy(data, env->blocks, c->blocks * c->interval);
	for (i = 0; i < c->blocks; i++)
		rwx_t10_tuple(dif, env->blocks + i * c->interval, i,
			      (struct t10_pi_tuple *)prot + i);
}

/* Whether local memory holds what a READ should have left there. */
static void rwx_sig_expect_local(struct kunit *test,
				 const struct rwx_sig_case *c,
				 const struct ib_sig_attrs *attrs)
{
	struct rwx_sig_env *env = test->priv;
	const u8 *data = env->data + c->data_lead;
	u32 len, i;

	if (!c->prot_list) {
		len = rwx_sig_image(env, c, &attrs->mem, env->image);
		KUNIT_EXPECT_MEMEQ_MSG(test, data, env->image, len,
				       "%s READ: memory image", c->name);
		return;
	}
	KUNIT_EXPECT_MEMEQ_MSG(test, data, env->blocks, c->blocks * c->interval,
			       "%s READ: data", c->name);
	for (i = 0; i < c->blocks; i++) {
		struct t10_pi_tuple want;
		const void *got = env->prot + c->prot_lead + i * RWX_SIG_PI_SIZE;

		rwx_t10_tuple(&attrs->mem.sig.dif, env->blocks + i * c->interval,
			      i, &want);
		KUNIT_EXPECT_MEMEQ_MSG(test, got, &want, RWX_SIG_PI_SIZE,
				       "%s READ: PI of block %u", c->name, i);
	}
}

static struct ib_qp *rwx_sig_create_qp(struct rwx_sig_env *env, u32 flags,
				       u32 ctxs)
{
	const struct ib_qp_cap cap = {
		.max_send_wr = 32, .max_recv_wr = 4,
		.max_send_sge = 4, .max_recv_sge = 1, .max_rdma_ctxs = ctxs,
	};

	return rwx_testdev_create_qp(env->fx.pd, env->fx.cq, flags, &cap);
}

static int rwx_sig_init(struct kunit *test)
{
	struct rwx_sig_env *env;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	if (!env)
		return -ENOMEM;
	test->priv = env;
	env->remote = rwx_td_pages(RWX_SIG_BUF_ORDER);
	env->data = rwx_td_pages(RWX_SIG_BUF_ORDER);
	env->prot = rwx_td_pages(RWX_SIG_BUF_ORDER);
	env->blocks = rwx_td_pages(RWX_SIG_BUF_ORDER);
	env->image = rwx_td_pages(RWX_SIG_BUF_ORDER);
	return 0;
}

/* The device of @caps, PD, CQ, the integrity QP and its connected peer. */
static void rwx_sig_ready_caps(struct kunit *test,
			       const struct rwx_testdev_caps *caps)
{
	struct rwx_sig_env *env = test->priv;

	KUNIT_ASSERT_NOT_NULL(test, env->remote);
	KUNIT_ASSERT_NOT_NULL(test, env->data);
	KUNIT_ASSERT_NOT_NULL(test, env->prot);
	KUNIT_ASSERT_NOT_NULL(test, env->blocks);
	KUNIT_ASSERT_NOT_NULL(test, env->image);

	rwx_td_fixture_open(test, &env->fx, "rwxsig%d", caps, 128,
			    IB_POLL_SOFTIRQ);
	env->fx.qp = rwx_sig_create_qp(env, IB_QP_CREATE_INTEGRITY_EN,
				       RWX_SIG_CTXS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.qp);
	env->fx.peer = rwx_sig_create_qp(env, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->fx.peer);
	KUNIT_ASSERT_EQ(test, rwx_testdev_connect(env->fx.qp, env->fx.peer), 0);
	env->remote_dma = ib_dma_map_single(env->fx.dev, env->remote,
					    RWX_SIG_BUF_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(env->fx.dev, env->remote_dma)) {
		env->remote_dma = 0;
		KUNIT_FAIL(test, "cannot map the remote buffer");
	}
}

static void rwx_sig_ready(struct kunit *test)
{
	rwx_sig_ready_caps(test, &rwx_sig_caps);
}

/* Each case destroys its own contexts; then the fixture, the buffers. */
static void rwx_sig_exit(struct kunit *test)
{
	struct rwx_sig_env *env = test->priv;

	if (env->remote_dma)
		ib_dma_unmap_single(env->fx.dev, env->remote_dma, RWX_SIG_BUF_LEN,
				    DMA_BIDIRECTIONAL);
	rwx_td_fixture_close(test, &env->fx);
	rwx_td_free_pages(env->remote, RWX_SIG_BUF_ORDER);
	rwx_td_free_pages(env->data, RWX_SIG_BUF_ORDER);
	rwx_td_free_pages(env->prot, RWX_SIG_BUF_ORDER);
	rwx_td_free_pages(env->blocks, RWX_SIG_BUF_ORDER);
	rwx_td_free_pages(env->image, RWX_SIG_BUF_ORDER);
}

static struct scatterlist *rwx_sig_prot(struct rwx_sig_env *env)
{
	return env->prot_nents ? env->prot_sg : NULL;
}

static int rwx_sig_ctx_init(struct rwx_sig_env *env, struct rdma_rw_ctx *rw,
			    struct ib_sig_attrs *attrs,
			    enum dma_data_direction dir)
{
	return rdma_rwx_ctx_signature_init(rw, env->fx.qp, 1, env->data_sg,
					   env->data_nents, rwx_sig_prot(env),
					   env->prot_nents, attrs,
					   env->remote_dma,
					   env->fx.pd->unsafe_global_rkey, dir);
}

static void rwx_sig_ctx_destroy(struct rwx_sig_env *env,
				struct rdma_rw_ctx *rw,
				enum dma_data_direction dir)
{
	rdma_rwx_ctx_destroy_signature(rw, env->fx.qp, 1, env->data_sg,
				       env->data_nents, rwx_sig_prot(env),
				       env->prot_nents, dir);
}

/*
 * init + post + wait + ib_check_mr_status + destroy, through the engine;
 * the posted chain is left in env->recs.  Returns init's WR count or an
 * error.
 */
static int rwx_sig_move(struct kunit *test, struct ib_sig_attrs *attrs,
			enum dma_data_direction dir, struct ib_mr_status *st)
{
	struct rwx_sig_env *env = test->priv;
	struct ib_mr_status again;
	struct rwx_loopback_wait wait;
	struct rdma_rw_ctx rw;
	int nr_wrs, ret;
	u32 posted;

	nr_wrs = rwx_sig_ctx_init(env, &rw, attrs, dir);
	if (nr_wrs < 0)
		return nr_wrs;
	rwx_loopback_wait_init(&wait);
	rwx_testdev_record_start(env->fx.tdev);
	ret = rdma_rwx_ctx_post(&rw, env->fx.qp, 1, &wait.cqe, NULL);
	if (!ret)
		ret = rwx_loopback_wait_for(&wait);
	posted = rwx_testdev_record_stop(env->fx.tdev, env->recs, RWX_SIG_RECS);
	if (ret == -ETIMEDOUT)
		return ret;	/* the WRs may still run: leave them mapped */
	KUNIT_EXPECT_EQ(test, posted, (u32)nr_wrs);
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(rw.reg->mr,
						 IB_MR_CHECK_SIG_STATUS, st), 0);
	/* Reading the status clears it. */
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(rw.reg->mr,
						 IB_MR_CHECK_SIG_STATUS, &again),
			0);
	KUNIT_EXPECT_EQ(test, again.fail_status, 0);
	rwx_sig_ctx_destroy(env, &rw, dir);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
	return ret ?: nr_wrs;
}

static const char *rwx_sig_dir(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? "WRITE" : "READ";
}

/* The chain the device saw for one signature context. */
static void rwx_sig_expect_chain(struct kunit *test, int nr_wrs,
				 const struct ib_sig_attrs *attrs,
				 enum dma_data_direction dir, u32 length)
{
	struct rwx_sig_env *env = test->priv;
	const struct rwx_testdev_wr_rec *reg, *rdma;

	KUNIT_ASSERT_TRUE(test, nr_wrs == 2 || nr_wrs == 3);
	if (nr_wrs == 3) {
		KUNIT_EXPECT_EQ(test, env->recs[0].opcode, IB_WR_LOCAL_INV);
		KUNIT_EXPECT_EQ(test, env->recs[0].send_flags, 0);
	}
	reg = &env->recs[nr_wrs - 2];
	rdma = &env->recs[nr_wrs - 1];
	KUNIT_EXPECT_EQ(test, reg->opcode, IB_WR_REG_MR_INTEGRITY);
	KUNIT_EXPECT_EQ(test, reg->reg_access, IB_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, reg->send_flags, 0);
	KUNIT_EXPECT_MEMEQ(test, &reg->sig_attrs.mem, &attrs->mem,
			   sizeof(attrs->mem));
	KUNIT_EXPECT_MEMEQ(test, &reg->sig_attrs.wire, &attrs->wire,
			   sizeof(attrs->wire));
	KUNIT_EXPECT_EQ(test, reg->sig_attrs.check_mask, attrs->check_mask);
	KUNIT_EXPECT_EQ(test, rdma->opcode, dir == DMA_TO_DEVICE ?
			IB_WR_RDMA_WRITE : IB_WR_RDMA_READ);
	KUNIT_EXPECT_EQ(test, rdma->send_flags, IB_SEND_SIGNALED);
	KUNIT_EXPECT_EQ(test, rdma->num_sge, 1);
	KUNIT_EXPECT_EQ(test, rdma->sge[0].lkey, reg->reg_key);
	KUNIT_EXPECT_EQ(test, rdma->sge[0].addr, reg->reg_iova);
	KUNIT_EXPECT_EQ(test, rdma->sge[0].length, length);
	KUNIT_EXPECT_EQ(test, rdma->remote_addr, env->remote_dma);
	KUNIT_EXPECT_EQ(test, rdma->rkey, env->fx.pd->unsafe_global_rkey);
}

/* One case, WRITE then READ, twice over (the second use of the pool's MRs
 * starts with LOCAL_INV), byte-exact with no signature error.
 */
static void rwx_sig_data(struct kunit *test)
{
	const struct rwx_sig_case *c = test->param_value;
	struct rwx_sig_env *env = test->priv;
	u32 wire_len = rwx_sig_wire_len(c), round;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	int ret;

	rwx_sig_ready(test);
	rwx_sig_attrs(&attrs, c);
	for (round = 0; round < 2 * RWX_SIG_CTXS; round++) {
		/* WRITE: memory with correct PI to the wire image. */
		rwx_sig_lists(test, c);
		rwx_sig_fill_local(env, c, &attrs);
		memset(env->remote, 0, RWX_SIG_BUF_LEN);
		ret = rwx_sig_move(test, &attrs, DMA_TO_DEVICE, &st);
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s WRITE", c->name);
		rwx_sig_expect_chain(test, ret, &attrs, DMA_TO_DEVICE,
				     rwx_sig_sge_len(c));
		KUNIT_EXPECT_EQ(test, st.fail_status, 0);
		rwx_sig_image(env, c, &attrs.wire, env->image);
		KUNIT_EXPECT_MEMEQ_MSG(test, env->remote, env->image, wire_len,
				       "%s WRITE: wire image", c->name);
		KUNIT_EXPECT_NULL(test, memchr_inv(env->remote + wire_len, 0,
						   RWX_SIG_BUF_LEN - wire_len));
		if (round)
			KUNIT_EXPECT_EQ(test, ret, 3);	/* MR used before */

		/* READ: the wire image into zeroed memory. */
		rwx_sig_lists(test, c);
		memset(env->data, 0, RWX_SIG_BUF_LEN);
		memset(env->prot, 0, RWX_SIG_BUF_LEN);
		rwx_sig_image(env, c, &attrs.wire, env->remote);
		ret = rwx_sig_move(test, &attrs, DMA_FROM_DEVICE, &st);
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s READ", c->name);
		rwx_sig_expect_chain(test, ret, &attrs, DMA_FROM_DEVICE,
				     rwx_sig_sge_len(c));
		KUNIT_EXPECT_EQ(test, st.fail_status, 0);
		rwx_sig_expect_local(test, c, &attrs);
	}
}

/*
 * A signature context in ib_core's encoding (the live takeover's), set up,
 * posted and destroyed by ib_core (@core bits 0, 1 and 2) or the engine:
 * byte-exact with no signature error on every route, counted for the
 * engine's set-up and destroys only.  Returns false when it could not run.
 */
static bool rwx_sig_cross(struct kunit *test, struct ib_sig_attrs *attrs,
			  enum dma_data_direction dir, u32 core)
{
	const struct rwx_sig_case *c = test->param_value;
	struct rwx_sig_env *env = test->priv;
	u32 rkey = env->fx.pd->unsafe_global_rkey;
	struct rwx_loopback_wait wait;
	struct ib_qp *qp = env->fx.qp;
	struct ib_mr_status st;
	struct rwx_counts cnt;
	struct rdma_rw_ctx rw;
	int ret;

	rwx_counts_start(test, &cnt, env->fx.dev);
	if (core & 1) {
		ret = rdma_rw_ctx_signature_init(&rw, qp, 1, env->data_sg,
						 env->data_nents,
						 rwx_sig_prot(env),
						 env->prot_nents, attrs,
						 env->remote_dma, rkey, dir);
	} else {
		ret = rdma_rwx_ibcore_ctx_signature_init(&rw, qp, 1,
							 env->data_sg,
							 env->data_nents,
							 rwx_sig_prot(env),
							 env->prot_nents, attrs,
							 env->remote_dma, rkey,
							 dir);
		cnt.d[RWX_CNT_INIT_SIG] = 1;
		cnt.d[RWX_CNT_MRS] = 1;
		cnt.d[dir == DMA_TO_DEVICE ? RWX_CNT_BYTES_WRITE :
					     RWX_CNT_BYTES_READ] = rwx_sig_sge_len(c);
		cnt.d[RWX_CNT_SHARED] = 1;
	}
	KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s, route %u", c->name, core);
	KUNIT_EXPECT_EQ(test, rw.type, 3);

	rwx_loopback_wait_init(&wait);
	if (core & 2)
		ret = rdma_rw_ctx_post(&rw, qp, 1, &wait.cqe, NULL);
	else
		ret = rdma_rwx_ibcore_ctx_post(&rw, qp, 1, &wait.cqe, NULL);
	if (!ret)
		ret = rwx_loopback_wait_for(&wait);
	if (ret == -ETIMEDOUT)
		return false;	/* the WRs may still run: leave them mapped */
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s %s, route %u", c->name,
			    rwx_sig_dir(dir), core);
	KUNIT_EXPECT_EQ(test, ib_check_mr_status(rw.reg->mr,
						 IB_MR_CHECK_SIG_STATUS, &st), 0);
	KUNIT_EXPECT_EQ(test, st.fail_status, 0);

	if (core & 4) {
		rdma_rw_ctx_destroy_signature(&rw, qp, 1, env->data_sg,
					      env->data_nents, rwx_sig_prot(env),
					      env->prot_nents, dir);
	} else {
		rdma_rwx_ibcore_ctx_destroy_signature(&rw, qp, 1, env->data_sg,
						      env->data_nents,
						      rwx_sig_prot(env),
						      env->prot_nents, dir);
		cnt.d[core & 1 ? RWX_CNT_ADOPTED : RWX_CNT_SHARED_DESTROY] = 1;
	}
	rwx_counts_check(test, &cnt, "a crossing signature context");
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	return !ret;
}

/* Every route between ib_core and the engine, WRITE then READ. */
static void rwx_sig_crossing(struct kunit *test)
{
	const struct rwx_sig_case *c = test->param_value;
	struct rwx_sig_env *env = test->priv;
	u32 wire_len = rwx_sig_wire_len(c), core;
	struct ib_sig_attrs attrs;

	rwx_sig_ready(test);
	rwx_sig_attrs(&attrs, c);
	for (core = 0; core < 8; core++) {
		rwx_sig_lists(test, c);
		rwx_sig_fill_local(env, c, &attrs);
		memset(env->remote, 0, RWX_SIG_BUF_LEN);
		if (!rwx_sig_cross(test, &attrs, DMA_TO_DEVICE, core))
			return;
		rwx_sig_image(env, c, &attrs.wire, env->image);
		KUNIT_EXPECT_MEMEQ_MSG(test, env->remote, env->image, wire_len,
				       "%s WRITE, route %u: wire image",
				       c->name, core);

		rwx_sig_lists(test, c);
		memset(env->data, 0, RWX_SIG_BUF_LEN);
		memset(env->prot, 0, RWX_SIG_BUF_LEN);
		rwx_sig_image(env, c, &attrs.wire, env->remote);
		if (!rwx_sig_cross(test, &attrs, DMA_FROM_DEVICE, core))
			return;
		rwx_sig_expect_local(test, c, &attrs);
	}
}

/* A PI field of block @block in an image of @domain. */
static struct t10_pi_tuple *rwx_sig_image_pi(const struct rwx_sig_case *c,
					     u8 *image, u32 block)
{
	return (struct t10_pi_tuple *)(image + block * (c->interval +
							RWX_SIG_PI_SIZE) +
				       c->interval);
}

enum rwx_sig_damage {
	RWX_SIG_DATA,		/* one data byte flipped */
	RWX_SIG_GUARD,		/* the guard flipped */
	RWX_SIG_REF,		/* the reference tag off by one */
	RWX_SIG_APP,		/* the application tag changed */
	RWX_SIG_ESCAPED,	/* app tag 0xffff: any guard is accepted */
};

/*
 * Damage block @block of an interleaved image; returns the value the check
 * wants (expected) and stores the one it finds (*actual).
 */
static u32 rwx_sig_damage(const struct rwx_sig_case *c,
			  const struct ib_t10_dif_domain *dif, u8 *image,
			  u32 block, enum rwx_sig_damage damage, u32 *actual)
{
	struct t10_pi_tuple *pi = rwx_sig_image_pi(c, image, block);
	u8 *data = (u8 *)pi - c->interval;

	switch (damage) {
	case RWX_SIG_DATA:
		data[c->interval / 2] ^= 0x20;
		*actual = be16_to_cpu(pi->guard_tag);
		return rwx_t10_guard(dif, data);
	case RWX_SIG_GUARD:
		pi->guard_tag ^= cpu_to_be16(0x0100);
		*actual = be16_to_cpu(pi->guard_tag);
		return rwx_t10_guard(dif, data);
	case RWX_SIG_REF:
		*actual = be32_to_cpu(pi->ref_tag) + 1;
		pi->ref_tag = cpu_to_be32(*actual);
		return *actual - 1;
	case RWX_SIG_APP:
		*actual = RWX_SIG_APP_TAG ^ 0x0f00;
		pi->app_tag = cpu_to_be16(*actual);
		return RWX_SIG_APP_TAG;
	case RWX_SIG_ESCAPED:
		pi->app_tag = cpu_to_be16(0xffff);
		pi->guard_tag ^= cpu_to_be16(0x0100);
		break;
	}
	*actual = 0;
	return 0;
}

static const enum ib_sig_err_type rwx_sig_err_of[] = {
	[RWX_SIG_DATA] = IB_SIG_BAD_GUARD,
	[RWX_SIG_GUARD] = IB_SIG_BAD_GUARD,
	[RWX_SIG_REF] = IB_SIG_BAD_REFTAG,
	[RWX_SIG_APP] = IB_SIG_BAD_APPTAG,
};

static void rwx_sig_expect_error(struct kunit *test,
				 const struct rwx_sig_case *c,
				 const struct ib_mr_status *st, u32 block,
				 enum rwx_sig_damage damage, u32 expected,
				 u32 actual, const char *what)
{
	if (damage == RWX_SIG_ESCAPED) {
		KUNIT_EXPECT_EQ_MSG(test, st->fail_status, 0, "%s: escaped", what);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test, st->fail_status, IB_MR_CHECK_SIG_STATUS,
			    "%s: damage %d not reported", what, damage);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.err_type, rwx_sig_err_of[damage],
			    "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.sig_err_offset,
			    (u64)block * (c->interval + RWX_SIG_PI_SIZE), "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.expected, expected, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, st->sig_err.actual, actual, "%s", what);
}

/*
 * Damaged PI, found where a HCA finds it: on a READ in the wire image the
 * peer sends, on a WRITE (pass) in the local memory image.  The data still
 * moves; ib_check_mr_status() names the block, and a second look finds
 * the error cleared (rwx_sig_move()).
 */
static void rwx_sig_errors(struct kunit *test)
{
	static const struct rwx_sig_case c = {
		"errors", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF, IB_T10DIF_CRC,
		512, 16, false, 2, 0, 0, 0
	};
	struct rwx_sig_env *env = test->priv;
	const struct ib_t10_dif_domain *dif;
	enum rwx_sig_damage damage;
	u32 expected, actual, block;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	char what[64];
	int ret;

	rwx_sig_ready(test);
	rwx_sig_attrs(&attrs, &c);
	dif = &attrs.wire.sig.dif;
	for (damage = RWX_SIG_DATA; damage <= RWX_SIG_ESCAPED; damage++) {
		block = 3 + damage * 2;

		snprintf(what, sizeof(what), "READ, damage %d in block %u",
			 damage, block);
		rwx_sig_lists(test, &c);
		rwx_sig_image(env, &c, &attrs.wire, env->remote);
		expected = rwx_sig_damage(&c, dif, env->remote, block, damage,
					  &actual);
		ret = rwx_sig_move(test, &attrs, DMA_FROM_DEVICE, &st);
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s", what);
		rwx_sig_expect_error(test, &c, &st, block, damage, expected,
				     actual, what);

		/* The same in the memory image of a WRITE. */
		snprintf(what, sizeof(what), "WRITE, damage %d in block %u",
			 damage, block);
		rwx_sig_lists(test, &c);
		rwx_sig_fill_local(env, &c, &attrs);
		expected = rwx_sig_damage(&c, &attrs.mem.sig.dif,
					  env->data + c.data_lead, block,
					  damage, &actual);
		ret = rwx_sig_move(test, &attrs, DMA_TO_DEVICE, &st);
		KUNIT_ASSERT_GT_MSG(test, ret, 0, "%s", what);
		rwx_sig_expect_error(test, &c, &st, block, damage, expected,
				     actual, what);
	}
}

/* One chain as the device recorded it, keys aside. */
static void rwx_sig_expect_same_rec(struct kunit *test,
				    const struct rwx_testdev_wr_rec *a,
				    const struct rwx_testdev_wr_rec *b, u32 i)
{
	KUNIT_EXPECT_EQ_MSG(test, a->opcode, b->opcode, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->send_flags, b->send_flags, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->num_sge, b->num_sge, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->sge[0].addr, b->sge[0].addr, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->sge[0].length, b->sge[0].length,
			    "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->remote_addr, b->remote_addr, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->rkey, b->rkey, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->reg_access, b->reg_access, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->reg_iova, b->reg_iova, "WR %u", i);
	KUNIT_EXPECT_EQ_MSG(test, a->reg_length, b->reg_length, "WR %u", i);
	KUNIT_EXPECT_MEMEQ_MSG(test, &a->sig_attrs, &b->sig_attrs,
			       sizeof(a->sig_attrs), "WR %u", i);
}

/*
 * A chain starts with LOCAL_INV exactly when its MR still holds a valid
 * key, which depends on the pool, not on the engine: returns 1 for one
 * (which must invalidate an older key of the MR the chain registers),
 * else 0.
 */
static int rwx_sig_expect_inv(struct kunit *test,
			      const struct rwx_testdev_wr_rec *recs, int nr)
{
	if (nr < 3 || recs[0].opcode != IB_WR_LOCAL_INV)
		return 0;
	KUNIT_EXPECT_EQ(test, recs[1].opcode, IB_WR_REG_MR_INTEGRITY);
	KUNIT_EXPECT_EQ(test, recs[0].invalidate_rkey >> 8,
			recs[1].reg_key >> 8);
	KUNIT_EXPECT_NE(test, recs[0].invalidate_rkey, recs[1].reg_key);
	return 1;
}

/*
 * ib_core's rdma_rw_ctx_signature_init() on the same device and input:
 * the same WR count, the same chain as the device saw it, the same bytes
 * at the far end.  MRs alternate between the two, so both meet MRs that
 * need a LOCAL_INV first.
 */
static void rwx_sig_diff(struct kunit *test)
{
	const struct rwx_sig_case *c = test->param_value;
	struct rwx_sig_env *env = test->priv;
	struct rwx_testdev_wr_rec *ref;
	struct ib_mr_status st;
	struct rwx_loopback_wait wait;
	struct ib_sig_attrs attrs;
	struct ib_send_wr *first;
	int nr_ref, nr, ref_inv, inv, i;
	struct rdma_rw_ctx rw;
	u32 posted, d;

	ref = kunit_kcalloc(test, RWX_SIG_RECS, sizeof(*ref), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ref);
	rwx_sig_ready(test);
	rwx_sig_attrs(&attrs, c);
	for (d = 0; d < 4; d++) {
		enum dma_data_direction dir = d & 1 ? DMA_FROM_DEVICE :
						      DMA_TO_DEVICE;
		u32 len = dir == DMA_TO_DEVICE ? rwx_sig_wire_len(c) :
						 rwx_sig_data_len(c);

		rwx_sig_lists(test, c);
		rwx_sig_fill_local(env, c, &attrs);
		rwx_sig_image(env, c, &attrs.wire, env->remote);

		/* ib_core, posted as it builds it. */
		nr_ref = rdma_rw_ctx_signature_init(&rw, env->fx.qp, 1,
						    env->data_sg, env->data_nents,
						    rwx_sig_prot(env),
						    env->prot_nents, &attrs,
						    env->remote_dma,
						    env->fx.pd->unsafe_global_rkey,
						    dir);
		KUNIT_ASSERT_GT_MSG(test, nr_ref, 0, "%s: ib_core", c->name);
		rwx_loopback_wait_init(&wait);
		rwx_testdev_record_start(env->fx.tdev);
		first = rdma_rw_ctx_wrs(&rw, env->fx.qp, 1, &wait.cqe, NULL);
		KUNIT_ASSERT_EQ(test, ib_post_send(env->fx.qp, first, NULL), 0);
		KUNIT_ASSERT_EQ(test, rwx_loopback_wait_for(&wait), 0);
		posted = rwx_testdev_record_stop(env->fx.tdev, ref, RWX_SIG_RECS);
		KUNIT_EXPECT_EQ(test, posted, (u32)nr_ref);
		/* As a ULP does, before the MR goes back to the pool. */
		KUNIT_EXPECT_EQ(test, ib_check_mr_status(rw.reg->mr,
							 IB_MR_CHECK_SIG_STATUS,
							 &st), 0);
		KUNIT_EXPECT_EQ(test, st.fail_status, 0);
		rdma_rw_ctx_destroy_signature(&rw, env->fx.qp, 1, env->data_sg,
					      env->data_nents, rwx_sig_prot(env),
					      env->prot_nents, dir);
		memcpy(env->image, dir == DMA_TO_DEVICE ? env->remote :
		       env->data + c->data_lead, len);
		memcpy(env->image + RWX_SIG_IMAGE_PROT, env->prot, PAGE_SIZE);

		/* The engine, on the same lists. */
		if (dir == DMA_FROM_DEVICE) {
			memset(env->data, 0, RWX_SIG_BUF_LEN);
			memset(env->prot, 0, RWX_SIG_BUF_LEN);
		} else {
			memset(env->remote, 0, RWX_SIG_BUF_LEN);
		}
		rwx_loopback_wait_init(&wait);
		nr = rwx_sig_ctx_init(env, &rw, &attrs, dir);
		KUNIT_ASSERT_GT_MSG(test, nr, 0, "%s %s", c->name,
				    rwx_sig_dir(dir));
		rwx_testdev_record_start(env->fx.tdev);
		KUNIT_ASSERT_EQ(test, rdma_rwx_ctx_post(&rw, env->fx.qp, 1,
							&wait.cqe, NULL), 0);
		KUNIT_ASSERT_EQ(test, rwx_loopback_wait_for(&wait), 0);
		posted = rwx_testdev_record_stop(env->fx.tdev, env->recs,
						 RWX_SIG_RECS);
		KUNIT_EXPECT_EQ(test, posted, (u32)nr);
		KUNIT_EXPECT_EQ(test, ib_check_mr_status(rw.reg->mr,
							 IB_MR_CHECK_SIG_STATUS,
							 &st), 0);
		KUNIT_EXPECT_EQ(test, st.fail_status, 0);
		rwx_sig_ctx_destroy(env, &rw, dir);
		/* The rest of the chains is the same, WR for WR. */
		ref_inv = rwx_sig_expect_inv(test, ref, nr_ref);
		inv = rwx_sig_expect_inv(test, env->recs, nr);
		KUNIT_ASSERT_EQ_MSG(test, nr - inv, nr_ref - ref_inv,
				    "%s %s: WR count", c->name,
				    rwx_sig_dir(dir));
		for (i = 0; i + inv < nr; i++)
			rwx_sig_expect_same_rec(test, &ref[i + ref_inv],
						&env->recs[i + inv], i);
		KUNIT_EXPECT_MEMEQ_MSG(test, dir == DMA_TO_DEVICE ? env->remote :
				       env->data + c->data_lead, env->image, len,
				       "%s %s: the same bytes", c->name,
				       rwx_sig_dir(dir));
		KUNIT_EXPECT_MEMEQ_MSG(test, env->prot,
				       env->image + RWX_SIG_IMAGE_PROT, PAGE_SIZE,
				       "%s %s: the same PI", c->name,
				       rwx_sig_dir(dir));
		KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
	}
}

/* The signature init with a remote address and key that do not matter. */
static int rwx_sig_call(struct rdma_rw_ctx *rw, struct ib_qp *qp, u32 port,
			struct scatterlist *sg, u32 sg_cnt,
			struct scatterlist *prot_sg, u32 prot_sg_cnt,
			struct ib_sig_attrs *attrs, enum dma_data_direction dir)
{
	return rdma_rwx_ctx_signature_init(rw, qp, port, sg, sg_cnt, prot_sg,
					   prot_sg_cnt, attrs, 0, 0, dir);
}

/*
 * Every invalid argument: its documented error, nothing mapped (DMA-API
 * debug checks at device removal), no MR taken.
 */
static void rwx_sig_bad_input(struct kunit *test)
{
	static const struct rwx_sig_case c = {
		"bad", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF, IB_T10DIF_CRC,
		512, 8, true, 1, 1, 0, 0
	};
	struct rwx_sig_env *env = test->priv;
	struct scatterlist *big, *d, *p;
	struct ib_sig_attrs attrs, bad;
	struct rdma_rw_ctx rw;
	struct ib_qp *plain;
	u32 i;

	rwx_sig_ready(test);
	rwx_sig_lists(test, &c);
	rwx_sig_attrs(&attrs, &c);
	d = env->data_sg;
	p = env->prot_sg;
	KUNIT_EXPECT_EQ(test, rwx_sig_call(NULL, env->fx.qp, 1, d, 1, p, 1, &attrs,
					   DMA_TO_DEVICE), -EINVAL);
	/* A refused context is marked dead, whatever it held before. */
#define RWX_SIG_EINVAL(q, port, dl, dn, pl, pn, a, dir) do {		\
		rw.type = RDMA_RWX_CTX_SINGLE;				\
		KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, q, port, dl, dn, pl, pn, \
						   a, dir), -EINVAL);	\
		KUNIT_EXPECT_EQ(test, rw.type, RDMA_RWX_CTX_DEAD);		\
	} while (0)
	RWX_SIG_EINVAL(NULL, 1, d, 1, p, 1, &attrs, DMA_TO_DEVICE);
	RWX_SIG_EINVAL(env->fx.qp, 1, NULL, 1, p, 1, &attrs, DMA_TO_DEVICE);
	RWX_SIG_EINVAL(env->fx.qp, 1, d, 0, p, 1, &attrs, DMA_TO_DEVICE);
	RWX_SIG_EINVAL(env->fx.qp, 1, d, 1, NULL, 1, &attrs, DMA_TO_DEVICE);
	RWX_SIG_EINVAL(env->fx.qp, 1, d, 1, p, 1, NULL, DMA_TO_DEVICE);
	RWX_SIG_EINVAL(env->fx.qp, 1, d, 1, p, 1, &attrs, DMA_BIDIRECTIONAL);
	RWX_SIG_EINVAL(env->fx.qp, 2, d, 1, p, 1, &attrs, DMA_TO_DEVICE);
#undef RWX_SIG_EINVAL

	/* Domains: both NONE, an interval T10 does not define, a bad guard. */
	bad = attrs;
	bad.mem.sig_type = IB_SIG_TYPE_NONE;
	bad.wire.sig_type = IB_SIG_TYPE_NONE;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);
	bad = attrs;
	bad.wire.sig.dif.pi_interval = 520;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);
	bad = attrs;
	bad.mem.sig.dif.bg_type = 7;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);
	bad = attrs;
	bad.mem.sig_type = 9;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);

	/* More entries than one integrity MR's page list. */
	big = kunit_kcalloc(test, RWX_SIG_PI_PAGES + 1, sizeof(*big),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	sg_init_table(big, RWX_SIG_PI_PAGES + 1);
	for (i = 0; i <= RWX_SIG_PI_PAGES; i++)
		sg_set_buf(&big[i], env->data + i * PAGE_SIZE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, env->fx.qp, 1, big,
					   RWX_SIG_PI_PAGES + 1, NULL, 0, &attrs,
					   DMA_TO_DEVICE), -EINVAL);
	/*
	 * A list the device cannot map in one MR (a gap between entries):
	 * its -ENOMEM (mlx5's answer too) passed on, as ib_core does.
	 */
	sg_init_table(big, 2);
	sg_set_buf(&big[0], env->data, 512);
	sg_set_buf(&big[1], env->data + 2 * PAGE_SIZE, 512);
	bad = attrs;
	bad.mem.sig_type = IB_SIG_TYPE_NONE;
	KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, env->fx.qp, 1, big, 2, NULL, 0,
					   &bad, DMA_TO_DEVICE), -ENOMEM);
	/*
	 * Lists that do not match the domains (the engine's own check: a
	 * device maps them): 8 blocks with PI for 7; data of no whole
	 * interval; a protection list with memory NONE; intervals that
	 * differ.
	 */
	env->prot_sg[0].length -= RWX_SIG_PI_SIZE;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			-EINVAL);
	env->prot_sg[0].length += RWX_SIG_PI_SIZE;
	env->data_sg[0].length -= 8;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			-EINVAL);
	env->data_sg[0].length += 8;
	bad = attrs;
	bad.mem.sig_type = IB_SIG_TYPE_NONE;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);
	bad = attrs;
	bad.wire.sig.dif.pi_interval = 4096;
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &bad, DMA_TO_DEVICE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);

	/* A QP without integrity. */
	plain = rwx_sig_create_qp(env, 0, RWX_SIG_CTXS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, plain);
	KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, plain, 1, d, env->data_nents,
					   p, env->prot_nents, &attrs,
					   DMA_TO_DEVICE), -EOPNOTSUPP);
	ib_destroy_qp(plain);
}

/*
 * The signature pool: -EAGAIN while other contexts hold its MRs, -ENOSPC
 * for a QP that has none; no fallback, nothing kept.
 */
static void rwx_sig_pool(struct kunit *test)
{
	static const struct rwx_sig_case c = {
		"pool", IB_SIG_TYPE_NONE, IB_SIG_TYPE_T10_DIF, IB_T10DIF_CRC,
		512, 8, false, 1, 0, 0, 0
	};
	struct rwx_sig_env *env = test->priv;
	struct rdma_rw_ctx held[RWX_SIG_CTXS], rw;
	struct ib_sig_attrs attrs;
	struct ib_qp *nopool;
	u32 i;

	rwx_sig_ready(test);
	rwx_sig_lists(test, &c);
	rwx_sig_attrs(&attrs, &c);
	for (i = 0; i < RWX_SIG_CTXS; i++)
		KUNIT_ASSERT_GT(test, rwx_sig_ctx_init(env, &held[i], &attrs,
						       DMA_TO_DEVICE), 0);
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, RWX_SIG_CTXS);
	/* The plain pool is another: its MRs are all there. */
	KUNIT_EXPECT_EQ(test, list_count_nodes(&env->fx.qp->rdma_mrs),
			(size_t)RWX_SIG_CTXS);
	for (i = 0; i < RWX_SIG_CTXS; i++)
		rwx_sig_ctx_destroy(env, &held[i], DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);

	nopool = rwx_sig_create_qp(env, IB_QP_CREATE_INTEGRITY_EN, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nopool);
	KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, nopool, 1, env->data_sg,
					   env->data_nents, NULL, 0, &attrs,
					   DMA_TO_DEVICE), -ENOSPC);
	ib_destroy_qp(nopool);
}

/*
 * A READ of @n entries of 3000 B, each 100 B into a page of its own from
 * page @first of env->data on: one MR each (a gap between any two).
 */
static int rwx_sig_gapped_read(struct rwx_sig_env *env, struct ib_qp *qp,
			       struct rdma_rw_ctx *rw, struct scatterlist *sgl,
			       u32 first, u32 n)
{
	u32 i;

	sg_init_table(sgl, n);
	for (i = 0; i < n; i++)
		sg_set_buf(&sgl[i], env->data + (first + i) * PAGE_SIZE + 100,
			   3000);
	return rdma_rwx_ctx_init(rw, qp, 1, sgl, n, 0, env->remote_dma,
				 env->fx.pd->unsafe_global_rkey,
				 DMA_FROM_DEVICE);
}

/*
 * An integrity QP's pools of unequal size (a ULP may add MRs to either):
 * a plain context that can never fit gets -ENOSPC however large the
 * signature pool, one that fits once another context is done -EAGAIN
 * however small it is.  iWARP, where a READ needs its MRs (no SGE
 * fallback); ib_core gives each pool max_rdma_ctxs (2) MRs.
 */
static void rwx_sig_pool_unequal(struct kunit *test)
{
	struct rwx_testdev_caps caps = rwx_sig_caps;
	struct rwx_sig_env *env = test->priv;
	struct scatterlist held_sg[2], sgl[5];
	struct rdma_rw_ctx holder, rw;
	struct ib_qp *qp;

	caps.iwarp = true;
	rwx_sig_ready_caps(test, &caps);
	/* 2 plain MRs, 6 signature MRs: 3 spans never fit. */
	qp = env->fx.qp;
	KUNIT_ASSERT_EQ(test, ib_mr_pool_init(qp, &qp->sig_mrs, 4,
					      IB_MR_TYPE_INTEGRITY,
					      RWX_SIG_PI_PAGES,
					      RWX_SIG_PI_PAGES), 0);
	KUNIT_EXPECT_EQ(test, rwx_sig_gapped_read(env, qp, &rw, sgl, 0, 3),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);

	/* 6 plain MRs, 2 signature MRs: 5 spans fit once a holder of 2 is done. */
	qp = rwx_sig_create_qp(env, IB_QP_CREATE_INTEGRITY_EN, RWX_SIG_CTXS);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);
	if (ib_mr_pool_init(qp, &qp->rdma_mrs, 4, IB_MR_TYPE_MEM_REG,
			    RWX_SIG_PI_PAGES, 0)) {
		ib_destroy_qp(qp);
		KUNIT_FAIL_AND_ABORT(test, "cannot add 4 MRs to the plain pool");
	}
	KUNIT_EXPECT_GT(test, rwx_sig_gapped_read(env, qp, &holder, held_sg,
						  8, 2), 0);
	KUNIT_EXPECT_EQ(test, rwx_sig_gapped_read(env, qp, &rw, sgl, 0, 5),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 2);
	rdma_rwx_ctx_destroy(&holder, qp, 1, held_sg, 2, DMA_FROM_DEVICE);
	if (rwx_sig_gapped_read(env, qp, &rw, sgl, 0, 5) > 0) {
		KUNIT_EXPECT_EQ(test, qp->mrs_used, 5);
		rdma_rwx_ctx_destroy(&rw, qp, 1, sgl, 5, DMA_FROM_DEVICE);
	} else {
		KUNIT_FAIL(test, "5 spans on a pool of 6, all free: not set up");
	}
	KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
	ib_destroy_qp(qp);
}

/*
 * The device's counters over signature contexts: an init counts init_sig,
 * its MR (mrs_registered) and the bytes it puts on the wire; the post
 * nothing; the destroy destroyed; an init the pool cannot serve
 * err_eagain, one on a QP without a pool err_enospc.
 */
static void rwx_sig_counters(struct kunit *test)
{
	const struct rwx_sig_case *c = &rwx_sig_cases[0];
	struct rwx_sig_env *env = test->priv;
	struct rdma_rw_ctx held[RWX_SIG_CTXS], rw;
	u32 wire_len = rwx_sig_wire_len(c), i;
	struct rwx_loopback_wait wait;
	struct ib_sig_attrs attrs;
	struct rwx_counts cnt;
	struct ib_qp *nopool;
	int ret;

	rwx_sig_ready(test);
	rwx_sig_attrs(&attrs, c);
	rwx_counts_start(test, &cnt, env->fx.dev);

	rwx_sig_lists(test, c);
	rwx_sig_fill_local(env, c, &attrs);
	KUNIT_ASSERT_GT(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			0);
	cnt.d[RWX_CNT_INIT_SIG] = 1;
	cnt.d[RWX_CNT_MRS] = 1;
	cnt.d[RWX_CNT_BYTES_WRITE] = wire_len;
	rwx_counts_check(test, &cnt, "signature init WRITE");
	rwx_loopback_wait_init(&wait);
	ret = rdma_rwx_ctx_post(&rw, env->fx.qp, 1, &wait.cqe, NULL);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret)
		KUNIT_ASSERT_EQ(test, rwx_loopback_wait_for(&wait), 0);
	rwx_counts_check(test, &cnt, "signature post");
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);
	cnt.d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, &cnt, "signature destroy");
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);	/* dead: no count */
	rwx_counts_check(test, &cnt, "second signature destroy");

	KUNIT_ASSERT_GT(test, rwx_sig_ctx_init(env, &rw, &attrs,
					       DMA_FROM_DEVICE), 0);
	cnt.d[RWX_CNT_INIT_SIG] = 1;
	cnt.d[RWX_CNT_MRS] = 1;
	cnt.d[RWX_CNT_BYTES_READ] = wire_len;
	rwx_counts_check(test, &cnt, "signature init READ");
	rwx_sig_ctx_destroy(env, &rw, DMA_FROM_DEVICE);
	cnt.d[RWX_CNT_DESTROY] = 1;
	rwx_counts_check(test, &cnt, "signature destroy READ");

	for (i = 0; i < RWX_SIG_CTXS; i++)
		KUNIT_ASSERT_GT(test, rwx_sig_ctx_init(env, &held[i], &attrs,
						       DMA_TO_DEVICE), 0);
	KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			-EAGAIN);
	cnt.d[RWX_CNT_INIT_SIG] = RWX_SIG_CTXS;
	cnt.d[RWX_CNT_MRS] = RWX_SIG_CTXS;
	cnt.d[RWX_CNT_BYTES_WRITE] = RWX_SIG_CTXS * wire_len;
	cnt.d[RWX_CNT_ERR_EAGAIN] = 1;
	rwx_counts_check(test, &cnt, "signature pool empty");
	for (i = 0; i < RWX_SIG_CTXS; i++)
		rwx_sig_ctx_destroy(env, &held[i], DMA_TO_DEVICE);
	cnt.d[RWX_CNT_DESTROY] = RWX_SIG_CTXS;
	rwx_counts_check(test, &cnt, "signature pool refilled");

	nopool = rwx_sig_create_qp(env, IB_QP_CREATE_INTEGRITY_EN, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nopool);
	KUNIT_EXPECT_EQ(test, rwx_sig_call(&rw, nopool, 1, env->data_sg,
					   env->data_nents, rwx_sig_prot(env),
					   env->prot_nents, &attrs,
					   DMA_TO_DEVICE), -ENOSPC);
	ib_destroy_qp(nopool);
	cnt.d[RWX_CNT_ERR_ENOSPC] = 1;
	rwx_counts_check(test, &cnt, "signature QP without a pool");
}

/*
 * Device faults: a mapping the device refuses or maps short is -EINVAL; a
 * failed post is the post's error and a WR completing with an error is the
 * completion's; each context is then destroyed with its MR returned.
 */
static void rwx_sig_faults(struct kunit *test)
{
	static const struct rwx_sig_case c = {
		"faults", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF, IB_T10DIF_CRC,
		512, 16, true, 2, 1, 0, 0
	};
	/* The device's error, passed on: -ENOMEM stays -ENOMEM. */
	static const struct {
		enum rwx_testdev_fault fault;
		int err;
	} map_faults[] = {
		{ RWX_TESTDEV_FAULT_MAP_FAIL, -EINVAL },
		{ RWX_TESTDEV_FAULT_MAP_SHORT, -ENOMEM },	/* as mlx5 */
		{ RWX_TESTDEV_FAULT_MAP_NOMEM, -ENOMEM },
	};
	/*
	 * The MR's state, the chain it gets, where the post fails, and
	 * whether a full transfer follows (it leaves the MR valid):
	 * free, REG fails; valid, REG fails after the LOCAL_INV (so free
	 * again); free, the WRITE fails after the REG (mlx5 would then
	 * refuse the next REG until the MR's status is read); valid, the
	 * LOCAL_INV fails; valid, the WRITE fails.
	 */
	static const struct {
		int chain;
		u32 nth;
		bool move;
	} post_faults[] = {
		{ 2, 1, true }, { 3, 2, false }, { 2, 2, true }, { 3, 1, true },
		{ 3, 3, true },
	};
	struct rwx_sig_env *env = test->priv;
	struct rwx_loopback_wait wait;
	struct ib_sig_attrs attrs;
	struct ib_mr_status st;
	struct rdma_rw_ctx rw;
	u32 i, nth;
	int ret;

	rwx_sig_ready(test);
	rwx_sig_lists(test, &c);
	rwx_sig_attrs(&attrs, &c);
	for (i = 0; i < ARRAY_SIZE(map_faults); i++) {
		rwx_testdev_inject(env->fx.tdev, map_faults[i].fault, 1);
		KUNIT_EXPECT_EQ(test, rwx_sig_ctx_init(env, &rw, &attrs,
						       DMA_TO_DEVICE),
				map_faults[i].err);
		KUNIT_EXPECT_TRUE(test,
				  rwx_testdev_fault_fired(env->fx.tdev,
							  map_faults[i].fault));
		KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
	}

	/*
	 * ib_post_send() failing at each WR of the chain, from a free MR
	 * (REG_MR, WRITE) and from a valid one (LOCAL_INV, REG_MR, WRITE):
	 * each time the MR must be left as the device holds it, which the
	 * next context, moving data through it, proves.
	 */
	for (i = 0; i < ARRAY_SIZE(post_faults); i++) {
		nth = post_faults[i].nth;
		ret = rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE);
		KUNIT_ASSERT_EQ_MSG(test, ret, post_faults[i].chain, "step %u", i);
		rwx_loopback_wait_init(&wait);
		rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_POST_SEND, nth);
		KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_ctx_post(&rw, env->fx.qp, 1,
							    &wait.cqe, NULL),
				    -ENOMEM, "post failing at WR %u of %d",
				    nth, ret);
		KUNIT_EXPECT_TRUE(test,
				  rwx_testdev_fault_fired(env->fx.tdev,
							  RWX_TESTDEV_FAULT_POST_SEND));
		rwx_testdev_flush(env->fx.tdev);	/* what was posted has run */
		rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);
		KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
		if (!post_faults[i].move)
			continue;

		rwx_sig_fill_local(env, &c, &attrs);
		memset(env->remote, 0, RWX_SIG_BUF_LEN);
		ret = rwx_sig_move(test, &attrs, DMA_TO_DEVICE, &st);
		KUNIT_EXPECT_GT_MSG(test, ret, 0,
				    "after a post failing at WR %u", nth);
		KUNIT_EXPECT_EQ(test, st.fail_status, 0);
		rwx_sig_image(env, &c, &attrs.wire, env->image);
		KUNIT_EXPECT_MEMEQ(test, env->remote, env->image,
				   rwx_sig_wire_len(&c));
	}

	/* The RDMA WRITE, the last WR, completing with an error. */
	ret = rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE);
	KUNIT_ASSERT_GT(test, ret, 0);
	rwx_loopback_wait_init(&wait);
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_WR_ERROR, ret);
	KUNIT_EXPECT_EQ(test, rdma_rwx_ctx_post(&rw, env->fx.qp, 1, &wait.cqe,
						NULL), 0);
	KUNIT_EXPECT_EQ(test, rwx_loopback_wait_for(&wait), -EIO);
	KUNIT_EXPECT_EQ(test, wait.status, IB_WC_GENERAL_ERR);
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
}

/*
 * The ULP's signature QP when the device fails to allocate an integrity
 * MR for its pool: ib_create_qp() fails and leaves nothing behind.
 */
static void rwx_sig_qp_alloc_fault(struct kunit *test)
{
	struct rwx_sig_env *env = test->priv;
	struct rwx_testdev_counts before, after;
	struct ib_qp *qp;
	u32 nth;

	rwx_sig_ready(test);
	rwx_testdev_counts(env->fx.tdev, &before);
	/* Plain pool first, then the signature pool: fail each MR in turn. */
	for (nth = 1; nth <= 2 * RWX_SIG_CTXS; nth++) {
		rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_ALLOC_MR, nth);
		qp = rwx_sig_create_qp(env, IB_QP_CREATE_INTEGRITY_EN,
				       RWX_SIG_CTXS);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(qp), "MR %u failed", nth);
		if (!IS_ERR(qp))
			ib_destroy_qp(qp);
		rwx_testdev_counts(env->fx.tdev, &after);
		KUNIT_EXPECT_EQ(test, after.mrs, before.mrs);
		KUNIT_EXPECT_EQ(test, after.qps, before.qps);
	}
	rwx_testdev_inject(env->fx.tdev, RWX_TESTDEV_FAULT_ALLOC_MR, 0);
}

/*
 * Every allocation of rdma_rwx_ctx_signature_init() failed in turn (the
 * task's fail_nth, as in rwx_engine_alloc_fail): -ENOMEM, no MR kept,
 * nothing leaked (kmemleak scans after the suite).
 */
static void rwx_sig_alloc_fail(struct kunit *test)
{
#ifdef CONFIG_FAULT_INJECTION
	static const struct rwx_sig_case c = {
		"alloc", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_T10_DIF, IB_T10DIF_CRC,
		512, 16, true, 2, 1, 0, 0
	};
	struct rwx_sig_env *env = test->priv;
	u32 n, left = 0, failed = 0;
	struct ib_sig_attrs attrs;
	struct rdma_rw_ctx rw;
	int ret;

	rwx_sig_ready(test);
	rwx_sig_lists(test, &c);
	rwx_sig_attrs(&attrs, &c);
	/* The context's buffer is allocated only with the cache empty. */
	migrate_disable();
	for (n = 1; n <= 32; n++) {
		rdma_rwx_buf_cache_empty_local();
		current->fail_nth = n;
		ret = rwx_sig_ctx_init(env, &rw, &attrs, DMA_FROM_DEVICE);
		left = current->fail_nth;
		current->fail_nth = 0;
		if (ret == -ENOMEM) {
			KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
			failed++;
			continue;
		}
		/* No assertion with migration off: it would end the test here. */
		KUNIT_EXPECT_GT_MSG(test, ret, 0, "call %u failed", n);
		if (ret <= 0)
			break;
		rwx_sig_ctx_destroy(env, &rw, DMA_FROM_DEVICE);
		KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
		if (left)	/* nothing was failed: all done */
			break;
	}
	migrate_enable();
	KUNIT_EXPECT_NE(test, left, 0U);
	KUNIT_EXPECT_GT(test, failed, 0U);
	kunit_info(test, "%u allocation failures injected", failed);
#else
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
#endif
}

/*
 * A signature context given to the plain destroy, and a plain one to the
 * signature destroy: both refused, nothing freed or leaked, and the right
 * destroy still works afterwards.
 */
static void rwx_sig_destroy_mismatch(struct kunit *test)
{
	static const struct rwx_sig_case c = {
		"mismatch", IB_SIG_TYPE_T10_DIF, IB_SIG_TYPE_NONE, IB_T10DIF_CRC,
		512, 8, true, 1, 1, 0, 0
	};
	struct rwx_sig_env *env = test->priv;
	struct ib_sig_attrs attrs;
	struct rdma_rw_ctx rw;

	rwx_sig_ready(test);
	rwx_sig_lists(test, &c);
	rwx_sig_attrs(&attrs, &c);
	KUNIT_ASSERT_GT(test, rwx_sig_ctx_init(env, &rw, &attrs, DMA_TO_DEVICE),
			0);
	rdma_rwx_ctx_destroy(&rw, env->fx.qp, 1, env->data_sg, env->data_nents,
			     DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 1);
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);	/* dead: no-op */

	KUNIT_ASSERT_GT(test, rdma_rwx_ctx_init(&rw, env->fx.qp, 1, env->data_sg,
						env->data_nents, 0,
						env->remote_dma, 0,
						DMA_TO_DEVICE), 0);
	rwx_sig_ctx_destroy(env, &rw, DMA_TO_DEVICE);
	rdma_rwx_ctx_destroy(&rw, env->fx.qp, 1, env->data_sg, env->data_nents,
			     DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, env->fx.qp->mrs_used, 0);
}

/*
 * Sizing with integrity: the PI page list sizes MRs where contexts may
 * register, every context counts its REG and LOCAL_INV WRs, and a device
 * without integrity handover is told so up front.
 */
static void rwx_sig_sizing(struct kunit *test)
{
	const u32 integrity = IB_QP_CREATE_INTEGRITY_EN;
	struct rwx_testdev_caps caps = rwx_sig_caps;
	struct rdma_rwx_caps qcaps;
	u32 per_op;
	struct rwx_sig_env *env = test->priv;
	struct ib_qp_init_attr attr = {
		.cap.max_send_wr = 8,
		.cap.max_rdma_ctxs = 4,
		.create_flags = IB_QP_CREATE_INTEGRITY_EN,
	};
	struct rwx_testdev *plain;

	rwx_sig_ready(test);
	/*
	 * An InfiniBand device without max_sgl_rd: plain contexts take the
	 * SGE path (READ WRs of max_sge_rd SGEs) unless force_mr, and then
	 * the integrity QP's MRs map the PI page list.
	 */
	rdma_rwx_qp_caps(env->fx.qp, 1, &qcaps);
	per_op = qcaps.force_mr ? RWX_SIG_PI_PAGES : rwx_sig_caps.max_sge_rd;
	KUNIT_EXPECT_EQ(test, rdma_rwx_qp_mr_factor(env->fx.dev, 1, 64, integrity),
			64 / per_op);
	KUNIT_EXPECT_EQ(test, rdma_rwx_qp_mr_factor(env->fx.dev, 1, 65, integrity),
			64 / per_op + 1);
	if (!qcaps.force_mr)
		KUNIT_EXPECT_EQ(test, rdma_rwx_mr_factor(env->fx.dev, 1, 64),
				64 / rwx_sig_caps.max_sge_rd);
	KUNIT_EXPECT_EQ(test, rdma_rwx_max_send_wr(env->fx.dev, 1, 5, integrity),
			15U);
	KUNIT_EXPECT_EQ(test, rdma_rwx_max_send_wr(env->fx.dev, 1, 5, 0), 5U);
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(env->fx.dev, 1, &attr),
			8 + 3 * 4);

	caps.integrity = false;
	plain = rwx_testdev_create("rwxsig%d", &caps);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, plain);
	KUNIT_EXPECT_EQ(test, rdma_rwx_init_qp_attr(rwx_testdev_ibdev(plain),
						    1, &attr), -EOPNOTSUPP);
	rwx_testdev_destroy(plain);
}

/* The T10-DIF oracle agrees with the check value and with the kernel. */
static void rwx_sig_crc_oracle(struct kunit *test)
{
	rwx_t10_oracle_check(test);
}

static struct kunit_case rwx_sig_test_cases[] = {
	KUNIT_CASE(rwx_sig_crc_oracle),
	KUNIT_CASE_PARAM(rwx_sig_data, rwx_sig_case_gen_params),
	KUNIT_CASE(rwx_sig_errors),
	KUNIT_CASE_PARAM(rwx_sig_diff, rwx_sig_case_gen_params),
	KUNIT_CASE_PARAM(rwx_sig_crossing, rwx_sig_case_gen_params),
	KUNIT_CASE(rwx_sig_bad_input),
	KUNIT_CASE(rwx_sig_pool),
	KUNIT_CASE(rwx_sig_pool_unequal),
	KUNIT_CASE(rwx_sig_counters),
	KUNIT_CASE(rwx_sig_faults),
	KUNIT_CASE(rwx_sig_qp_alloc_fault),
	KUNIT_CASE(rwx_sig_alloc_fail),
	KUNIT_CASE(rwx_sig_destroy_mismatch),
	KUNIT_CASE(rwx_sig_sizing),
	{}
};

static struct kunit_suite rwx_sig_suite = {
	.name = "rwx_sig",
	.init = rwx_sig_init,
	.exit = rwx_sig_exit,
	.test_cases = rwx_sig_test_cases,
};

kunit_test_suite(rwx_sig_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx signature (T10-PI) contexts on rwx_testdev");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
MODULE_IMPORT_NS(RDMA_RWX_TESTING);
