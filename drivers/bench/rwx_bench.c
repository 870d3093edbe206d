// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_bench: the CPU cost of one RW context, rdma_rwx against ib_core's
 * rdma_rw_ctx, measured in the same run on the same QP and lists.  One
 * operation is init (DMA mapping, layout, MRs), building the WR chain and
 * destroy; nothing is posted, so the device's speed does not enter.  The
 * engines alternate round by round.
 *
 * Two clocks: by default a round runs for round_ms and the figure is the
 * median round's mean.  With fixed_ops=N (for a guest under QEMU's
 * -icount, whose clock counts one nanosecond per instruction) a round is
 * exactly N operations and the figure is the cheapest round: rounds are
 * short enough that most hold no timer tick, and the cheapest one holds
 * none, so the figure is an instruction count that repeats run to run.
 * Beside the two engines, the floor: the calls both make and neither can
 * avoid (see rwx_bench_floor_init()), so that each engine's own cost is
 * its figure minus the floor's.
 * With sig=1 the contexts are signature (T10-PI) contexts on a test
 * device with integrity handover (rwx_testdev, the only one a guest has),
 * data in the list, its protection information in one more entry; the
 * signature API has no offset, so every shape starts at offset 0.
 * Everything happens at load time; results go to the kernel log.
 */

#include <linux/ktime.h>
#include <linux/timex.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/signature.h>
#include "rwx_loopback.h"
#include "rwx_testdev.h"
#include "../rwx/rwx_internal.h"	/* the floor's mapping: the cheapest known */

static char *addr = "192.0.2.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the RDMA device's netdev");

static unsigned int round_ms = 40;
module_param(round_ms, uint, 0444);
MODULE_PARM_DESC(round_ms, "Length of one round in ms (at least 10)");

static unsigned int fixed_ops;
module_param(fixed_ops, uint, 0444);
MODULE_PARM_DESC(fixed_ops,
		 "Operations per round, figure from the cheapest round (for -icount guests); 0: rounds of round_ms, median round");

static bool sig;
module_param(sig, bool, 0444);
MODULE_PARM_DESC(sig,
		 "Signature contexts on a test device instead of plain ones on addr's device");

#define RWX_BENCH_ROUNDS	15
#define RWX_BENCH_BATCH		64	/* operations between clock reads */
#define RWX_BENCH_MAX_ENTRIES	256
#define RWX_BENCH_OFFSET	512	/* the shapes' sg_offset when not 0 */

struct rwx_bench_engine {
	const char *name;
	int (*init)(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		    struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		    u64 remote_addr, u32 rkey, enum dma_data_direction dir);
	struct ib_send_wr *(*wrs)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  u32 port_num, struct ib_cqe *cqe,
				  struct ib_send_wr *chain_wr);
	void (*destroy)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			enum dma_data_direction dir);
	int (*sig_init)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			struct scatterlist *prot_sg, u32 prot_sg_cnt,
			struct ib_sig_attrs *sig_attrs, u64 remote_addr,
			u32 rkey, enum dma_data_direction dir);
	void (*sig_destroy)(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			    u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			    struct scatterlist *prot_sg, u32 prot_sg_cnt,
			    enum dma_data_direction dir);
};

/*
 * The floor: the calls into ib_core and the driver that both engines make
 * for a context and neither can avoid - the DMA mapping (for devices that
 * do no DMA, the engine's inline one, the cheapest known), and on the MR
 * path an MR from the QP's pool and ib_map_mr_sg() for each run of pages
 * ib_core puts in one MR, given back at destroy - and nothing else (no
 * WRs, no checks, no allocation).  Cost minus floor is what an engine
 * spends itself.  One context at a time: its MRs are kept here.
 */
#define RWX_BENCH_MAX_MRS	8

static struct {
	struct ib_mr *mrs[RWX_BENCH_MAX_MRS];
	u32 nr_mrs;
} rwx_bench_floor_ctx;

static u32 rwx_bench_pages_per_mr(struct ib_device *dev)
{
	return min_t(u32, dev->attrs.max_fast_reg_page_list_len, 256);
}

static void rwx_bench_floor_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct scatterlist *sg,
				    u32 sg_cnt, enum dma_data_direction dir)
{
	while (rwx_bench_floor_ctx.nr_mrs)
		ib_mr_pool_put(qp, &qp->rdma_mrs,
			       rwx_bench_floor_ctx.mrs[--rwx_bench_floor_ctx.nr_mrs]);
	ib_dma_unmap_sg(qp->pd->device, sg, sg_cnt, dir);
}

static int rwx_bench_floor_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				u32 port_num, struct scatterlist *sg, u32 sg_cnt,
				u32 sg_offset, u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	u32 per_mr = rwx_bench_pages_per_mr(dev), n, i;
	struct scatterlist *pos = sg;
	struct ib_mr *mr;
	int nents, ret;

	nents = rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents)
		return -ENOMEM;
	if (list_empty(&qp->rdma_mrs))
		return 1;
	for (; nents > 0; nents -= n, sg_offset = 0) {
		n = min_t(u32, nents, per_mr);
		mr = rwx_bench_floor_ctx.nr_mrs < RWX_BENCH_MAX_MRS ?
			ib_mr_pool_get(qp, &qp->rdma_mrs) : NULL;
		if (!mr) {
			ret = -EAGAIN;
			goto fail;
		}
		rwx_bench_floor_ctx.mrs[rwx_bench_floor_ctx.nr_mrs++] = mr;
		ret = ib_map_mr_sg(mr, pos, n, &sg_offset, PAGE_SIZE);
		if (ret != n) {
			ret = ret < 0 ? ret : -EINVAL;
			goto fail;
		}
		for (i = 0; i < n && nents > n; i++)
			pos = rdma_rwx_sg_step(pos);
	}
	return rwx_bench_floor_ctx.nr_mrs;
fail:
	rwx_bench_floor_destroy(ctx, qp, port_num, sg, sg_cnt, dir);
	return ret;
}

static struct ib_send_wr *rwx_bench_floor_wrs(struct rdma_rw_ctx *ctx,
					      struct ib_qp *qp, u32 port_num,
					      struct ib_cqe *cqe,
					      struct ib_send_wr *chain_wr)
{
	return (struct ib_send_wr *)ctx;	/* not NULL: no WRs to build */
}

static void rwx_bench_floor_sig_destroy(struct rdma_rw_ctx *ctx,
					struct ib_qp *qp, u32 port_num,
					struct scatterlist *sg, u32 sg_cnt,
					struct scatterlist *prot_sg,
					u32 prot_sg_cnt,
					enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;

	if (rwx_bench_floor_ctx.nr_mrs)
		ib_mr_pool_put(qp, &qp->sig_mrs,
			       rwx_bench_floor_ctx.mrs[--rwx_bench_floor_ctx.nr_mrs]);
	ib_dma_unmap_sg(dev, prot_sg, prot_sg_cnt, dir);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
}

/*
 * A signature context's floor: both lists' DMA mappings, one integrity MR
 * from the QP's signature pool and ib_map_mr_sg_pi() of both lists.
 */
static int rwx_bench_floor_sig_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				    u32 port_num, struct scatterlist *sg,
				    u32 sg_cnt, struct scatterlist *prot_sg,
				    u32 prot_sg_cnt,
				    struct ib_sig_attrs *sig_attrs,
				    u64 remote_addr, u32 rkey,
				    enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	int nents, prot_nents, ret;
	struct ib_mr *mr;

	nents = rdma_rwx_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents)
		return -ENOMEM;
	prot_nents = rdma_rwx_dma_map_sg(dev, prot_sg, prot_sg_cnt, dir);
	if (!prot_nents) {
		ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
		return -ENOMEM;
	}
	mr = ib_mr_pool_get(qp, &qp->sig_mrs);
	if (!mr) {
		ret = -EAGAIN;
		goto unmap;
	}
	rwx_bench_floor_ctx.mrs[rwx_bench_floor_ctx.nr_mrs++] = mr;
	ret = ib_map_mr_sg_pi(mr, sg, nents, NULL, prot_sg, prot_nents, NULL,
			      SZ_4K);
	if (ret)
		goto fail;
	return 1;
fail:
	rwx_bench_floor_sig_destroy(ctx, qp, port_num, sg, sg_cnt, prot_sg,
				    prot_sg_cnt, dir);
	return ret < 0 ? ret : -EINVAL;
unmap:
	ib_dma_unmap_sg(dev, prot_sg, prot_sg_cnt, dir);
	ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
	return ret;
}

static const struct rwx_bench_engine rwx_bench_engines[] = {
	{ "rdma_rwx", rdma_rwx_ctx_init, rdma_rwx_ctx_wrs, rdma_rwx_ctx_destroy,
	  rdma_rwx_ctx_signature_init, rdma_rwx_ctx_destroy_signature },
	{ "ib_core", rdma_rw_ctx_init, rdma_rw_ctx_wrs, rdma_rw_ctx_destroy,
	  rdma_rw_ctx_signature_init, rdma_rw_ctx_destroy_signature },
	{ "floor", rwx_bench_floor_init, rwx_bench_floor_wrs,
	  rwx_bench_floor_destroy, rwx_bench_floor_sig_init,
	  rwx_bench_floor_sig_destroy },
};

/*
 * A list of @entries entries of one page each, moved from @offset on;
 * @index is @entries' place in rwx_bench_entries[].
 */
struct rwx_bench_shape {
	u32 entries, offset, index;
};

static const u32 rwx_bench_entries[] = { 1, 2, 4, 16, 64, 256 };

/*
 * Protection information of a shape's list with sig=1: one 8-byte tuple
 * per 512-byte block, for up to RWX_BENCH_MAX_ENTRIES pages.
 */
#define RWX_BENCH_PI_INTERVAL	512
#define RWX_BENCH_PI_ORDER \
	get_order(RWX_BENCH_MAX_ENTRIES * (PAGE_SIZE / RWX_BENCH_PI_INTERVAL) * 8)

/* A test device instance with an integrity QP, for sig=1. */
struct rwx_bench_sig_env {
	struct rwx_testdev *tdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct page *pi;
	struct scatterlist prot_sg;
	struct ib_sig_attrs attrs;
};

struct rwx_bench {
	struct rwx_loopback conn;
	struct rwx_bench_sig_env sig;
	struct ib_qp *qp;		/* the QP of either */
	u32 port_num;
	u32 rkey;
	struct scatterlist sgl[RWX_BENCH_MAX_ENTRIES];
	u32 nents;
	struct ib_cqe cqe;
};

static void rwx_bench_free_list(struct rwx_bench *b)
{
	u32 i;

	for (i = 0; i < b->nents; i++)
		__free_page(sg_page(&b->sgl[i]));
	b->nents = 0;
}

static int rwx_bench_list(struct rwx_bench *b, u32 entries)
{
	struct page *page;

	rwx_bench_free_list(b);
	sg_init_table(b->sgl, entries);
	while (b->nents < entries) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		sg_set_page(&b->sgl[b->nents++], page, PAGE_SIZE, 0);
	}
	if (sig)	/* the list's tuples, in one entry */
		sg_init_one(&b->sig.prot_sg, page_address(b->sig.pi),
			    entries * (PAGE_SIZE / RWX_BENCH_PI_INTERVAL) * 8);
	return 0;
}

/*
 * Profile markers: under QEMU with tools/qemu/insn-profile.so, the
 * instructions executed between a start and an end marker of a region
 * are counted per function (tools/insn-profile.py).  A marker is a NOP
 * whose displacement the plugin knows: 0x52574d00 for a 0 bit of the
 * region, 01 for a 1 bit, 02 start, 03 end.  The region goes first, high
 * bit first.  Elsewhere the markers cost a few dozen instructions a
 * round, outside the clock.
 */
#define RWX_BENCH_MARK(code)	"nopl 0x52574d0" #code "(%%rax)"
#define RWX_BENCH_REGION_BITS	11

static void rwx_bench_mark(unsigned int region, bool end)
{
#ifdef CONFIG_X86		/* the plugin reads x86 code only */
	int bit;

	for (bit = RWX_BENCH_REGION_BITS - 1; bit >= 0; bit--) {
		if (region & BIT(bit))
			asm volatile(RWX_BENCH_MARK(1) ::: "memory");
		else
			asm volatile(RWX_BENCH_MARK(0) ::: "memory");
	}
	if (end)
		asm volatile(RWX_BENCH_MARK(3) ::: "memory");
	else
		asm volatile(RWX_BENCH_MARK(2) ::: "memory");
#endif
}

/*
 * A round's profile region: the engine, the shape's list length and
 * offset, the direction and the kind of context, as
 * tools/insn-profile.py decodes them.
 */
static unsigned int rwx_bench_region(int engine,
				     const struct rwx_bench_shape *s,
				     enum dma_data_direction dir)
{
	return engine | s->index << 2 | !!s->offset << 5 |
	       (dir == DMA_FROM_DEVICE) << 6 | sig << 7;
}

/*
 * The clock of a round: ns, or with fixed_ops the TSC itself, which under
 * -icount counts the guest's nanoseconds exactly, one per instruction
 * (ktime's conversion of it rounds, and a difference of two rounded
 * readings moves by one from run to run).
 */
static u64 rwx_bench_clock(void)
{
	return fixed_ops ? get_cycles() : ktime_get_ns();
}

/*
 * One round of one engine: fixed_ops operations, or batches of operations
 * until round_ms have passed, so that a coarse clock still gives a fair
 * mean.  Returns the mean per operation (ns, or TSC cycles with fixed_ops), or -errno.
 */
static s64 rwx_bench_round(struct rwx_bench *b, int engine,
			   const struct rwx_bench_shape *s,
			   enum dma_data_direction dir, int *nr_wrs)
{
	const struct rwx_bench_engine *e = &rwx_bench_engines[engine];
	unsigned int region = rwx_bench_region(engine, s, dir);
	struct ib_qp *qp = b->qp;
	u32 port = b->port_num, rkey = b->rkey;
	u32 batch = fixed_ops ?: RWX_BENCH_BATCH;
	u64 start, elapsed, ops = 0;
	struct rdma_rw_ctx ctx;
	unsigned int i;
	int ret;

	rwx_bench_mark(region, false);
	start = rwx_bench_clock();
	do {
		for (i = 0; i < batch; i++) {
			if (sig)
				ret = e->sig_init(&ctx, qp, port, b->sgl,
						  b->nents, &b->sig.prot_sg, 1,
						  &b->sig.attrs, 0x10000, rkey,
						  dir);
			else
				ret = e->init(&ctx, qp, port, b->sgl, b->nents,
					      s->offset, 0x10000, rkey, dir);
			if (ret < 0)
				return ret;
			*nr_wrs = ret;
			if (!e->wrs(&ctx, qp, port, &b->cqe, NULL))
				ret = -EINVAL;
			if (sig)
				e->sig_destroy(&ctx, qp, port, b->sgl,
					       b->nents, &b->sig.prot_sg, 1,
					       dir);
			else
				e->destroy(&ctx, qp, port, b->sgl, b->nents,
					   dir);
			if (ret < 0)
				return ret;
		}
		ops += batch;
		elapsed = rwx_bench_clock() - start;
	} while (!fixed_ops && elapsed < (u64)round_ms * NSEC_PER_MSEC);
	rwx_bench_mark(region, true);
	return max_t(s64, div64_u64(elapsed, ops), 1);
}

static int rwx_bench_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static int rwx_bench_shape(struct rwx_bench *b, const struct rwx_bench_shape *s,
			   enum dma_data_direction dir)
{
	const int nr = ARRAY_SIZE(rwx_bench_engines);
	s64 ns[ARRAY_SIZE(rwx_bench_engines)][RWX_BENCH_ROUNDS];
	int wrs[ARRAY_SIZE(rwx_bench_engines)];
	int r, k, e;

	for (r = 0; r < RWX_BENCH_ROUNDS; r++) {
		/* Alternate which engine goes first: no order advantage. */
		for (k = 0; k < nr; k++) {
			e = (r + k) % nr;
			ns[e][r] = rwx_bench_round(b, e, s, dir, &wrs[e]);
			if (ns[e][r] < 0) {
				pr_err("rwx_bench: %s failed: %lld\n",
				       rwx_bench_engines[e].name, ns[e][r]);
				return ns[e][r];
			}
		}
		cond_resched();
	}
	for (e = 0; e < nr; e++)
		sort(ns[e], RWX_BENCH_ROUNDS, sizeof(s64), rwx_bench_cmp, NULL);
	r = fixed_ops ? 0 : RWX_BENCH_ROUNDS / 2;
	pr_info("rwx_bench: cost %-5s %3u x 1 page +%-3u rdma_rwx %7lld ns %3d WRs ib_core %7lld ns %3d WRs ratio %lld.%02lld floor %7lld ns\n",
		dir == DMA_TO_DEVICE ? "WRITE" : "READ", s->entries, s->offset,
		ns[0][r], wrs[0], ns[1][r], wrs[1],
		div64_s64(ns[0][r], ns[1][r]),
		div64_s64(ns[0][r] * 100, ns[1][r]) % 100, ns[2][r]);
	return 0;
}

/* Every shape, WRITE and READ. */
static int rwx_bench_all(struct rwx_bench *b)
{
	struct rwx_bench_shape s;
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(rwx_bench_entries) && !ret; i++) {
		s.entries = rwx_bench_entries[i];
		s.index = i;
		ret = rwx_bench_list(b, s.entries);
		/* The signature API takes no offset. */
		for (s.offset = 0; s.offset <= (sig ? 0 : RWX_BENCH_OFFSET) &&
		     !ret; s.offset += RWX_BENCH_OFFSET) {
			ret = rwx_bench_shape(b, &s, DMA_TO_DEVICE);
			if (!ret)
				ret = rwx_bench_shape(b, &s, DMA_FROM_DEVICE);
		}
	}
	return ret;
}

/*
 * T10-DIF with CRC guards in memory and on the wire, 512-byte blocks: the
 * device checks and regenerates PI as data crosses it.
 */
static void rwx_bench_sig_attrs(struct ib_sig_attrs *attrs)
{
	struct ib_sig_domain *domains[] = { &attrs->mem, &attrs->wire };
	int i;

	memset(attrs, 0, sizeof(*attrs));
	attrs->check_mask = IB_SIG_CHECK_GUARD | IB_SIG_CHECK_REFTAG;
	for (i = 0; i < ARRAY_SIZE(domains); i++) {
		domains[i]->sig_type = IB_SIG_TYPE_T10_DIF;
		domains[i]->sig.dif.bg_type = IB_T10DIF_CRC;
		domains[i]->sig.dif.pi_interval = RWX_BENCH_PI_INTERVAL;
		domains[i]->sig.dif.ref_tag = 0x100;
		domains[i]->sig.dif.ref_remap = true;
	}
}

static void rwx_bench_sig_teardown(struct rwx_bench_sig_env *env)
{
	if (!IS_ERR_OR_NULL(env->qp))
		ib_destroy_qp(env->qp);
	if (!IS_ERR_OR_NULL(env->cq))
		ib_free_cq(env->cq);
	if (!IS_ERR_OR_NULL(env->pd))
		ib_dealloc_pd(env->pd);
	if (!IS_ERR_OR_NULL(env->tdev))
		rwx_testdev_destroy(env->tdev);
	if (env->pi)
		__free_pages(env->pi, RWX_BENCH_PI_ORDER);
}

/*
 * A test device instance able to register a whole shape in one integrity
 * MR, and an integrity QP on it (ib_core gives it both MR pools; nothing
 * is posted, so it needs no peer).  Returns a description of what failed.
 */
static const char *rwx_bench_sig_setup(struct rwx_bench *b)
{
	static const struct rwx_testdev_caps caps = {
		.integrity = true,
		.max_send_sge = 16,
		.max_recv_sge = 1,
		.max_sge_rd = 16,
		.max_fast_reg_page_list_len = RWX_BENCH_MAX_ENTRIES,
		.max_pi_fast_reg_page_list_len = RWX_BENCH_MAX_ENTRIES,
		.max_qp_wr = 1024,
		.max_mr = 64,
	};
	static const struct ib_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 1,
		.max_send_sge = 16, .max_recv_sge = 1, .max_rdma_ctxs = 4,
	};
	struct rwx_bench_sig_env *env = &b->sig;

	env->pi = alloc_pages(GFP_KERNEL | __GFP_ZERO, RWX_BENCH_PI_ORDER);
	if (!env->pi)
		return "PI pages";
	env->tdev = rwx_testdev_create("rwxbench%d", &caps);
	if (IS_ERR(env->tdev))
		return "test device";
	env->pd = ib_alloc_pd(rwx_testdev_ibdev(env->tdev),
			      IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(env->pd))
		return "PD";
	env->cq = ib_alloc_cq(env->pd->device, NULL, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(env->cq))
		return "CQ";
	env->qp = rwx_testdev_create_qp(env->pd, env->cq,
					IB_QP_CREATE_INTEGRITY_EN, &cap);
	if (IS_ERR(env->qp))
		return "integrity QP";
	rwx_bench_sig_attrs(&env->attrs);
	b->qp = env->qp;
	b->port_num = 1;
	b->rkey = env->pd->unsafe_global_rkey;
	return NULL;
}

static int rwx_bench_plain_setup(struct rwx_bench *b)
{
	struct rwx_loopback_params params = {
		.addr = addr,
		.max_send_wr = 1024,
		.max_send_sge = 16,
		.max_rdma_ctxs = 4,
	};
	int ret;

	ret = rwx_loopback_setup(&b->conn, &params);
	if (ret) {
		pr_err("rwx_bench: cannot connect on %s: %s (%d)\n", addr,
		       b->conn.error_what ?: "?", ret);
		return ret;
	}
	b->qp = b->conn.qp[RWX_CLIENT];
	b->port_num = b->conn.port_num;
	b->rkey = b->conn.pd->unsafe_global_rkey;
	return 0;
}

static int __init rwx_bench_init(void)
{
	const char *what;
	struct rwx_bench *b;
	int ret = 0;

	if (round_ms < 10)
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	if (sig) {
		what = rwx_bench_sig_setup(b);
		if (what) {
			pr_err("rwx_bench: no %s for signature contexts\n",
			       what);
			ret = -ENODEV;
		}
	} else {
		ret = rwx_bench_plain_setup(b);
	}
	if (ret)
		goto out;
	pr_info("rwx_bench: %s, %s contexts, %s, MR pool %s\n",
		dev_name(&b->qp->device->dev), sig ? "signature" : "plain",
		fixed_ops ? "rounds of fixed_ops operations, cheapest round" :
			    "rounds of round_ms, median round",
		list_empty(&b->qp->rdma_mrs) ? "none" : "present");
	ret = rwx_bench_all(b);
out:
	rwx_bench_free_list(b);
	if (sig)
		rwx_bench_sig_teardown(&b->sig);
	else
		rwx_loopback_teardown(&b->conn);
	kfree(b);
	return ret;
}

static void __exit rwx_bench_exit(void)
{
}

module_init(rwx_bench_init);
module_exit(rwx_bench_exit);

MODULE_DESCRIPTION("rdma_rwx benchmark: RW context CPU cost against ib_core");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
