// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit: the engine on every online CPU at once.  One kthread per CPU,
 * bound to it, runs contexts on shared QPs and a shared MR pool: single-
 * and multi-entry scatterlists (the per-CPU buffer cache and kmalloc'd
 * WR arrays), bio_vecs, the MR path and, on the test device, signature
 * contexts from a one-MR signature pool; each context is posted, waited
 * for and its data checked.  Meanwhile a reader sums the counters (with
 * exact checks on what a sum may show), a second test device appears and
 * is removed again and again (its counters retired under the workers'
 * per-CPU caches), and in a second phase the counters are reset through
 * their debugfs files.  At the end every counter moved by exactly what
 * the threads did, the pools are full, nothing is live.  Then: a thread
 * that migrates between a context's init and its destroy (buffers taken
 * from one CPU's cache go back to another's), and CPU 1 taken offline
 * and back while unbound threads run contexts.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
#include <rdma/mr_pool.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/signature.h>
#include "../drivers/rwx/rwx_internal.h"
#include "../drivers/rwx/rwx_stats.h"
#include "rwx_counts.h"
#include "rwx_debugfs.h"
#include "rwx_loopback.h"
#include "rwx_rw_fixture.h"
#include "rwx_t10_oracle.h"
#include "rwx_test_devs.h"

#define RWX_SMP_MAX_WORKERS	7	/* a slice of remote memory each, */
#define RWX_SMP_SLICES		8	/* and one for the migrating thread */
#define RWX_SMP_SLICE		(RWX_REMOTE_LEN / RWX_SMP_SLICES)
#define RWX_SMP_BUF_ORDER	7	/* 128 local pages per thread */
#define RWX_SMP_BIG		70	/* big list: kmalloc'd WRs, 3 MRs of 32 pages */
#define RWX_SMP_ITERS		100	/* per worker and phase, test device */
#define RWX_SMP_ITERS_SLOW	50	/* rxe, much slower under TCG */
#define RWX_SMP_RETRY_TIME	(60 * HZ)	/* -EAGAIN retries of one init */
#define RWX_SMP_WAIT		(300 * HZ)
/* Signature contexts: 2 blocks of 512 bytes, PI inserted on the wire. */
#define RWX_SMP_SIG_BLOCKS	2
#define RWX_SMP_SIG_LEN		(RWX_SMP_SIG_BLOCKS * 512)
#define RWX_SMP_SIG_PI		((u32)sizeof(struct t10_pi_tuple))
#define RWX_SMP_SIG_PAGE	100	/* where in the local pages */
#define RWX_SMP_SIG_REMOTE	(RWX_SMP_SLICE - PAGE_SIZE)	/* in the slice */
#define RWX_SMP_MIGRATIONS	300
#define RWX_SMP_HOTPLUG_ROUNDS	6
#define RWX_SMP_CHURN_MIN	2
#define RWX_SMP_CHURN_MAX	40
#define RWX_SMP_CHURN_ORDER	1	/* its two pages */

/*
 * The test device of the stress: multi-entry WRITEs on the SGE path (4
 * SGEs a WR), READs of more than 4 entries on the MR path (max_sgl_rd),
 * integrity for the signature QP.
 */
static const struct rwx_testdev_caps rwx_smp_caps = {
	.integrity = true,
	.max_send_sge = 4,
	.max_sge_rd = 4,
	.max_sgl_rd = 4,
	.max_fast_reg_page_list_len = 32,
	.max_pi_fast_reg_page_list_len = 16,
};

static const struct rwx_test_dev rwx_smp_tdev = {
	.name = "tdev-smp", .caps = &rwx_smp_caps,
};

/* The second device, which comes and goes meanwhile. */
static const struct rwx_test_dev rwx_smp_churn_dev = {
	.name = "tdev-churn", .caps = &rwx_testdev_sge3_rd2,
};

/* What one worker's list is: which kind, and its extent. */
enum rwx_smp_kind {
	RWX_SMP_SINGLE,		/* one entry */
	RWX_SMP_SMALL,		/* 2-4 pages: a cache buffer */
	RWX_SMP_MEDIUM,		/* 5-8 pages: 2 WRs; READ: the MR path (tdev) */
	RWX_SMP_BIGLIST,	/* 70 pages: kmalloc'd WRs; READ: 3 MRs (tdev) */
	RWX_SMP_BVEC,		/* 1-4 bvecs */
	RWX_SMP_SIG,		/* signature (tdev), else 3 pages */
	RWX_SMP_OFFSET,		/* 3 pages from byte 100 on */
	RWX_SMP_NR_KINDS
};

struct rwx_smp_list {
	u32 nents;		/* entries, or bvecs */
	u32 offset;		/* sg_offset */
	u32 bytes;		/* moved */
	bool bvec;
};

/*
 * What the engine must have counted of one thread's contexts; and how
 * many multi-entry SGE contexts had a buffer of the cache, how many one
 * of their own.
 */
struct rwx_smp_tally {
	u64 v[RWX_CNT_NR];
	u64 cached, uncached;
};

struct rwx_smp_env;

struct rwx_smp_worker {
	struct rwx_smp_env *env;
	struct task_struct *task;
	struct completion done;
	unsigned int id;
	u32 iters;		/* 0: until env->stop */
	u32 ran;		/* iterations done */
	u8 *buf;		/* 1 << RWX_SMP_BUF_ORDER pages */
	u64 remote_off;		/* its slice of the remote buffer */
	struct scatterlist sgl[RWX_SMP_BIG];
	struct bio_vec bvecs[4];
	struct bvec_iter iter;
	struct rwx_smp_tally tally;
	/*
	 * What its posts wait on: here, not on the stack, as a post that timed
	 * out may still complete later (its WRs are left posted).
	 */
	struct rwx_loopback_wait wait;
	int err;		/* the first failure, and what it was */
	char msg[160];
};

/* The counters' debugfs files, reached from a kernel thread. */
/* The state of one case: one at a time (the suite's exit cleans up). */
struct rwx_smp_env {
	struct kunit *test;
	struct rwx_rw_fixture *fx;
	bool tdev;
	struct ib_device *dev;
	struct ib_qp *qp;
	u32 port, rkey;
	struct rdma_rwx_caps caps;
	struct ib_qp *sig_qp, *sig_peer;	/* tdev: the signature QPs */
	struct rwx_smp_worker workers[RWX_SMP_MAX_WORKERS + 1];
	unsigned int nr_workers;
	u32 iters;			/* each worker's, in a stress */
	const enum rwx_smp_kind *kinds;
	u32 nr_kinds;
	bool stop;			/* the workers stop early */
	bool workers_done;		/* the helpers stop */
	/* the reader, or in the reset phase the resetter */
	struct rwx_smp_worker reader;
	u32 samples;
	s64 live_min, live_max;		/* contexts_live as the resetter saw it */
	struct rwx_dbg dbg;
	/* the device that comes and goes */
	struct rwx_smp_worker churn;
	struct rwx_loopback churn_conn;
	u32 churn_rounds;
};

static struct rwx_smp_env *rwx_smp_cur;

static const enum rwx_smp_kind rwx_smp_all_kinds[] = {
	RWX_SMP_SINGLE, RWX_SMP_SMALL, RWX_SMP_MEDIUM, RWX_SMP_BIGLIST,
	RWX_SMP_BVEC, RWX_SMP_SIG, RWX_SMP_OFFSET, RWX_SMP_SINGLE,
};

/* Small contexts only: single entries and cache buffers. */
static const enum rwx_smp_kind rwx_smp_small_kinds[] = {
	RWX_SMP_SMALL, RWX_SMP_SINGLE, RWX_SMP_SMALL, RWX_SMP_BVEC,
};

static __printf(3, 4) int rwx_smp_fail(struct rwx_smp_worker *w, int err,
				       const char *fmt, ...)
{
	va_list args;

	if (w->err)
		return w->err;
	w->err = err ?: -EIO;
	va_start(args, fmt);
	vsnprintf(w->msg, sizeof(w->msg), fmt, args);
	va_end(args);
	return w->err;
}

static const char *rwx_smp_dir(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? "WRITE" : "READ";
}

/* The pattern byte of entry @k, and the marker at its start. */
static u8 rwx_smp_byte(u32 seed, u32 k)
{
	return (u8)(seed * 13 + k * 7 + 1);
}

static u32 rwx_smp_marker(u32 seed, u32 k)
{
	return seed ^ (k << 24) ^ 0x5a000000;
}

/*
 * The worker's list of @kind in iteration @i: @n pages from the first on,
 * all whole but the last (@last bytes), moved from @offset on; entries
 * that meet on page boundaries, as one MR maps them.
 */
static void rwx_smp_pages(struct rwx_smp_worker *w, struct rwx_smp_list *l,
			  u32 n, u32 last, u32 offset)
{
	u32 k;

	sg_init_table(w->sgl, n);
	for (k = 0; k < n; k++)
		sg_set_buf(&w->sgl[k], w->buf + k * PAGE_SIZE,
			   k + 1 < n ? PAGE_SIZE : last);
	l->nents = n;
	l->offset = offset;
	l->bytes = (n - 1) * PAGE_SIZE + last - offset;
	l->bvec = false;
}

static void rwx_smp_list(struct rwx_smp_worker *w, enum rwx_smp_kind kind,
			 u32 i, struct rwx_smp_list *l)
{
	u32 lead, len, k;

	switch (kind) {
	case RWX_SMP_SINGLE:
		lead = (i * 64) % 2048;
		len = 256 + (i * 8) % 1024;
		sg_init_table(w->sgl, 1);
		sg_set_buf(&w->sgl[0], w->buf + lead, len);
		*l = (struct rwx_smp_list){ .nents = 1, .bytes = len };
		break;
	case RWX_SMP_SMALL:
		rwx_smp_pages(w, l, 2 + i % 3, PAGE_SIZE / 2, 0);
		break;
	case RWX_SMP_MEDIUM:
		rwx_smp_pages(w, l, 5 + i % 4, PAGE_SIZE, 0);
		break;
	case RWX_SMP_BIGLIST:
		rwx_smp_pages(w, l, RWX_SMP_BIG, PAGE_SIZE - 512, 0);
		break;
	case RWX_SMP_BVEC:
		/* The scatterlist of the same bytes, for the data checks. */
		rwx_smp_pages(w, l, 1 + i % 4, PAGE_SIZE / 2, 0);
		for (k = 0; k < l->nents; k++)
			rwx_bvec_set(&w->bvecs[k], sg_virt(&w->sgl[k]),
				     w->sgl[k].length);
		w->iter = (struct bvec_iter){ .bi_size = l->bytes };
		l->bvec = true;
		break;
	case RWX_SMP_SIG:	/* not on the test device */
		rwx_smp_pages(w, l, 3, 100, 0);
		break;
	default:
		rwx_smp_pages(w, l, 3, PAGE_SIZE, 100);
		break;
	}
}

/* One entry of a transfer: where it is, its bytes, where it lands. */
struct rwx_smp_piece {
	struct scatterlist *sg;
	u8 *p;
	u32 k, len, pos;
};

/* The next piece of @l (pc->k: its index, 0 to start); false at the end. */
static bool rwx_smp_piece(struct rwx_smp_worker *w,
			  const struct rwx_smp_list *l, struct rwx_smp_piece *pc)
{
	if (pc->k >= l->nents)
		return false;
	if (!pc->k) {
		pc->sg = w->sgl;
		pc->pos = 0;
		pc->p = (u8 *)sg_virt(pc->sg) + l->offset;
		pc->len = pc->sg->length - l->offset;
		return true;
	}
	pc->pos += pc->len;
	pc->sg = sg_next(pc->sg);
	pc->p = sg_virt(pc->sg);
	pc->len = pc->sg->length;
	return true;
}

static void rwx_smp_fill(struct rwx_smp_worker *w, const struct rwx_smp_list *l,
			 u32 seed)
{
	struct rwx_smp_piece pc;

	for (pc.k = 0; rwx_smp_piece(w, l, &pc); pc.k++) {
		u32 marker = rwx_smp_marker(seed, pc.k);

		memset(pc.p, rwx_smp_byte(seed, pc.k), pc.len);
		if (pc.len >= 4)
			memcpy(pc.p, &marker, 4);
	}
}

static void rwx_smp_zero(struct rwx_smp_worker *w, const struct rwx_smp_list *l)
{
	struct rwx_smp_piece pc;

	for (pc.k = 0; rwx_smp_piece(w, l, &pc); pc.k++)
		memset(pc.p, 0, pc.len);
}

/*
 * The pattern of seed @seed where it must be: in the local pieces, or
 * with @remote in the remote bytes, one after the other.
 */
static int rwx_smp_check(struct rwx_smp_worker *w, const struct rwx_smp_list *l,
			 u32 seed, const u8 *remote, const char *what)
{
	struct rwx_smp_piece pc;

	for (pc.k = 0; rwx_smp_piece(w, l, &pc); pc.k++) {
		const u8 *q = remote ? remote + pc.pos : pc.p;
		u32 marker = rwx_smp_marker(seed, pc.k);

		if ((pc.len >= 4 && memcmp(q, &marker, 4)) ||
		    (pc.len > 4 &&
		     memchr_inv(q + 4, rwx_smp_byte(seed, pc.k), pc.len - 4)))
			return rwx_smp_fail(w, -EIO,
					    "%s: entry %u of %u (%u bytes at %u) wrong, %s",
					    what, pc.k, l->nents, pc.len, pc.pos,
					    remote ? "remote" : "local");
	}
	return 0;
}

/* What the engine counts for a context it set up (@rw, of @l). */
static void rwx_smp_tally_init(struct rwx_smp_worker *w,
			       const struct rdma_rw_ctx *rw,
			       const struct rwx_smp_list *l,
			       enum dma_data_direction dir)
{
	u64 *v = w->tally.v, bytes = l->bytes;
	bool mr = false;

	/* The base layout, and whether its buffer is the cache's. */
	switch (rw->type & ~RDMA_RWX_CTX_BVEC) {
	case RDMA_RWX_CTX_SINGLE:
		v[RWX_CNT_INIT_SGE_SINGLE]++;
		break;
	case RDMA_RWX_CTX_MULTI | RDMA_RWX_CTX_CACHED:
		w->tally.cached++;
		v[RWX_CNT_INIT_SGE_MULTI]++;
		break;
	case RDMA_RWX_CTX_MULTI:
		w->tally.uncached++;
		v[RWX_CNT_INIT_SGE_MULTI]++;
		break;
	case RDMA_RWX_CTX_MR:
		v[RWX_CNT_INIT_MR]++;
		v[RWX_CNT_MRS] += rw->nr_ops;
		mr = true;
		break;
	case RDMA_RWX_CTX_SIG:
		v[RWX_CNT_INIT_SIG]++;
		v[RWX_CNT_MRS]++;
		bytes = rw->reg[0].sge.length;	/* the wire's */
		mr = true;
		break;
	default:
		rwx_smp_fail(w, -EINVAL, "a live context of type %#x", rw->type);
		return;
	}
	if (!mr && rdma_rwx_mr_need(&w->env->caps, dir, l->nents))
		v[RWX_CNT_SGE_FALLBACK]++;
	if (l->bvec)
		v[RWX_CNT_INIT_BVEC]++;
	v[rdma_rwx_bytes_counter(dir)] += bytes;
}

static int rwx_smp_init(struct rwx_smp_worker *w, struct rdma_rw_ctx *rw,
			const struct rwx_smp_list *l,
			enum dma_data_direction dir)
{
	struct rwx_smp_env *env = w->env;
	u64 raddr = env->fx->remote_dma + w->remote_off;

	if (l->bvec)
		return rdma_rwx_ctx_init_bvec(rw, env->qp, env->port, w->bvecs,
					      l->nents, w->iter, raddr,
					      env->rkey, dir);
	return rdma_rwx_ctx_init(rw, env->qp, env->port, w->sgl, l->nents,
				 l->offset, raddr, env->rkey, dir);
}

static void rwx_smp_destroy(struct rwx_smp_worker *w, struct rdma_rw_ctx *rw,
			    const struct rwx_smp_list *l,
			    enum dma_data_direction dir)
{
	struct rwx_smp_env *env = w->env;

	if (l->bvec)
		rdma_rwx_ctx_destroy_bvec(rw, env->qp, env->port, w->bvecs,
					  l->nents, dir);
	else
		rdma_rwx_ctx_destroy(rw, env->qp, env->port, w->sgl, l->nents,
				     dir);
	w->tally.v[RWX_CNT_DESTROY]++;
}

/*
 * @w posts @rw on @qp and waits: 0, or the post's or the completion's
 * error.
 */
static int rwx_smp_post(struct rwx_smp_worker *w, struct rdma_rw_ctx *rw,
			struct ib_qp *qp, u32 port)
{
	int ret;

	rwx_loopback_wait_init(&w->wait);
	ret = rdma_rwx_ctx_post(rw, qp, port, &w->wait.cqe, NULL);
	return ret ?: rwx_loopback_wait_for(&w->wait);
}

/*
 * Whether @w tries an init again after it returned @ret: on -EAGAIN (the
 * pool is short: another CPU holds its MRs), each counted, until
 * @deadline - time, not tries, as the holder's vCPU may be starved for a
 * while on a loaded host.
 */
static bool rwx_smp_again(struct rwx_smp_worker *w, int ret,
			  unsigned long deadline)
{
	if (ret != -EAGAIN || time_after(jiffies, deadline))
		return false;
	w->tally.v[RWX_CNT_ERR_EAGAIN]++;
	usleep_range(20, 50);
	return true;
}

/*
 * One context of @l: set up (retried while the pool is short, each
 * -EAGAIN counted), posted, waited for, destroyed.
 */
static int rwx_smp_move(struct rwx_smp_worker *w, const struct rwx_smp_list *l,
			enum dma_data_direction dir)
{
	unsigned long deadline = jiffies + RWX_SMP_RETRY_TIME;
	struct rwx_smp_env *env = w->env;
	struct rdma_rw_ctx rw;
	int ret;

	do
		ret = rwx_smp_init(w, &rw, l, dir);
	while (rwx_smp_again(w, ret, deadline));
	if (ret <= 0)
		return rwx_smp_fail(w, ret, "init %s of %u entries (%u bytes%s): %d",
				    rwx_smp_dir(dir), l->nents, l->bytes,
				    l->bvec ? ", bvec" : "", ret);
	rwx_smp_tally_init(w, &rw, l, dir);
	ret = rwx_smp_post(w, &rw, env->qp, env->port);
	if (ret == -ETIMEDOUT)	/* the WRs may still run: leave them mapped */
		return rwx_smp_fail(w, ret, "%s of %u entries timed out",
				    rwx_smp_dir(dir), l->nents);
	rwx_smp_destroy(w, &rw, l, dir);
	if (ret)
		return rwx_smp_fail(w, ret, "%s of %u entries: %d",
				    rwx_smp_dir(dir), l->nents, ret);
	return 0;
}

/* A WRITE of the pattern, checked remotely, then a READ of it back. */
static int rwx_smp_round_trip(struct rwx_smp_worker *w,
			      const struct rwx_smp_list *l, u32 seed)
{
	const u8 *remote = page_address(w->env->fx->remote) + w->remote_off;
	int ret;

	rwx_smp_fill(w, l, seed);
	ret = rwx_smp_move(w, l, DMA_TO_DEVICE);
	if (!ret)
		ret = rwx_smp_check(w, l, seed, remote, "WRITE");
	if (ret)
		return ret;
	rwx_smp_zero(w, l);
	ret = rwx_smp_move(w, l, DMA_FROM_DEVICE);
	return ret ?: rwx_smp_check(w, l, seed, NULL, "READ");
}

/* T10-DIF inserted on the wire (memory NONE): 512-byte blocks, CRC. */
static void rwx_smp_sig_attrs(struct ib_sig_attrs *attrs, u32 ref)
{
	struct ib_t10_dif_domain *dif = &attrs->wire.sig.dif;

	memset(attrs, 0, sizeof(*attrs));
	attrs->check_mask = IB_SIG_CHECK_GUARD | IB_SIG_CHECK_APPTAG |
			    IB_SIG_CHECK_REFTAG;
	attrs->mem.sig_type = IB_SIG_TYPE_NONE;
	attrs->wire.sig_type = IB_SIG_TYPE_T10_DIF;
	dif->bg_type = IB_T10DIF_CRC;
	dif->pi_interval = 512;
	dif->app_tag = 0x5a5a;
	dif->ref_tag = ref;
	dif->ref_remap = true;
	dif->apptag_check_mask = 0xffff;
}

/* One signature context on the signature QP, its status checked. */
static int rwx_smp_sig_move(struct rwx_smp_worker *w, struct ib_sig_attrs *attrs,
			    enum dma_data_direction dir)
{
	struct rwx_smp_env *env = w->env;
	struct rwx_smp_list l = { .nents = 2, .bytes = RWX_SMP_SIG_LEN };
	u64 raddr = env->fx->remote_dma + w->remote_off + RWX_SMP_SIG_REMOTE;
	unsigned long deadline = jiffies + RWX_SMP_RETRY_TIME;
	struct ib_mr_status st;
	struct rdma_rw_ctx rw;
	int ret;

	do
		ret = rdma_rwx_ctx_signature_init(&rw, env->sig_qp, 1, w->sgl,
						  2, NULL, 0, attrs, raddr,
						  env->rkey, dir);
	while (rwx_smp_again(w, ret, deadline));
	if (ret <= 0)
		return rwx_smp_fail(w, ret, "signature init %s: %d",
				    rwx_smp_dir(dir), ret);
	rwx_smp_tally_init(w, &rw, &l, dir);
	ret = rwx_smp_post(w, &rw, env->sig_qp, 1);
	if (ret == -ETIMEDOUT)
		return rwx_smp_fail(w, ret, "signature %s timed out",
				    rwx_smp_dir(dir));
	if (!ret) {
		ret = ib_check_mr_status(rw.reg->mr, IB_MR_CHECK_SIG_STATUS, &st);
		if (!ret && st.fail_status)
			ret = rwx_smp_fail(w, -EIO, "signature %s: error %d at %llu",
					   rwx_smp_dir(dir), st.sig_err.err_type,
					   st.sig_err.sig_err_offset);
	}
	rdma_rwx_ctx_destroy_signature(&rw, env->sig_qp, 1, w->sgl, 2, NULL, 0,
				       dir);
	w->tally.v[RWX_CNT_DESTROY]++;
	if (ret)
		return rwx_smp_fail(w, ret, "signature %s: %d",
				    rwx_smp_dir(dir), ret);
	return 0;
}

/*
 * WRITE two blocks with their PI inserted (the wire image checked
 * against PI computed here), then READ the image back with it stripped.
 */
static int rwx_smp_sig_round_trip(struct rwx_smp_worker *w, u32 seed)
{
	const u8 *remote = page_address(w->env->fx->remote) + w->remote_off +
			   RWX_SMP_SIG_REMOTE;
	u8 *data = w->buf + RWX_SMP_SIG_PAGE * PAGE_SIZE;
	struct ib_sig_attrs attrs;
	struct t10_pi_tuple pi;
	u32 b;
	int ret;

	rwx_smp_sig_attrs(&attrs, 0x1000 + w->id);
	sg_init_table(w->sgl, 2);
	sg_set_buf(&w->sgl[0], data, 512);
	sg_set_buf(&w->sgl[1], data + 512, 512);
	for (b = 0; b < RWX_SMP_SIG_LEN; b++)
		data[b] = rwx_smp_byte(seed, b / 7);
	ret = rwx_smp_sig_move(w, &attrs, DMA_TO_DEVICE);
	if (ret)
		return ret;
	for (b = 0; b < RWX_SMP_SIG_BLOCKS; b++) {
		const u8 *block = remote + b * (512 + RWX_SMP_SIG_PI);

		rwx_t10_tuple(&attrs.wire.sig.dif, data + b * 512, b, &pi);
		if (memcmp(block, data + b * 512, 512) ||
		    memcmp(block + 512, &pi, RWX_SMP_SIG_PI))
			return rwx_smp_fail(w, -EIO,
					    "signature WRITE: block %u or its PI wrong",
					    b);
	}
	memset(data, 0, RWX_SMP_SIG_LEN);
	ret = rwx_smp_sig_move(w, &attrs, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	for (b = 0; b < RWX_SMP_SIG_LEN; b++)
		if (data[b] != rwx_smp_byte(seed, b / 7))
			return rwx_smp_fail(w, -EIO,
					    "signature READ: byte %u wrong", b);
	return 0;
}

static int rwx_smp_iteration(struct rwx_smp_worker *w, u32 i)
{
	struct rwx_smp_env *env = w->env;
	enum rwx_smp_kind kind = env->kinds[(i + w->id) % env->nr_kinds];
	u32 seed = (w->id << 20) | i;
	struct rwx_smp_list l;

	if (kind == RWX_SMP_SIG && env->sig_qp)
		return rwx_smp_sig_round_trip(w, seed);
	rwx_smp_list(w, kind, i, &l);
	return rwx_smp_round_trip(w, &l, seed);
}

/* Park a helper thread until kthread_stop(). */
static void rwx_smp_park(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int rwx_smp_worker_fn(void *data)
{
	struct rwx_smp_worker *w = data;
	struct rwx_smp_env *env = w->env;

	while (!READ_ONCE(env->stop) && (!w->iters || w->ran < w->iters)) {
		if (rwx_smp_iteration(w, w->ran))
			break;
		w->ran++;
		cond_resched();
	}
	complete(&w->done);
	rwx_smp_park();
	return 0;
}

/* Start @w with @fn: bound to @cpu, or unbound when @cpu is negative. */
static int rwx_smp_start(struct rwx_smp_worker *w, int (*fn)(void *),
			 int cpu, const char *name)
{
	struct task_struct *t;

	init_completion(&w->done);
	if (cpu >= 0)
		t = kthread_create_on_cpu(fn, w, cpu, "rwx_smp/%u");
	else
		t = kthread_create(fn, w, "rwx_smp_%s%u", name, w->id);
	if (IS_ERR(t))
		return PTR_ERR(t);
	w->task = t;
	wake_up_process(t);
	return 0;
}

/* Wait for @w's work (stopping every worker if it hangs), then stop it. */
static void rwx_smp_join(struct rwx_smp_env *env, struct rwx_smp_worker *w)
{
	if (!w->task)
		return;
	if (!wait_for_completion_timeout(&w->done, RWX_SMP_WAIT)) {
		rwx_smp_fail(w, -ETIMEDOUT, "did not finish in time");
		WRITE_ONCE(env->stop, true);
		WRITE_ONCE(env->workers_done, true);
		wait_for_completion(&w->done);
	}
	kthread_stop(w->task);
	w->task = NULL;
}

/* ---- the helpers: reader, resetter, the device that comes and goes ---- */

static u64 rwx_smp_inits(struct ib_device *dev, bool total)
{
	static const u32 inits[] = {
		RWX_CNT_INIT_SGE_SINGLE, RWX_CNT_INIT_SGE_MULTI, RWX_CNT_INIT_MR,
		RWX_CNT_INIT_SIG,
	};
	u64 sum = 0;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(inits); i++)
		sum += total ? rdma_rwx_total_counter(inits[i]) :
			       rdma_rwx_dev_counter(dev, inits[i]);
	return sum;
}

/*
 * No reset meanwhile: every count only grows, and a context's init is
 * counted before its destroy, so destroys read first never exceed inits
 * read after - on the device and in the global sum, through which the
 * second device's counters are retired meanwhile (none lost, none twice).
 */
static int rwx_smp_reader_fn(void *data)
{
	struct rwx_smp_worker *r = data;
	struct rwx_smp_env *env = r->env;
	u64 prev[RWX_CNT_NR] = {}, prev_total = 0, d, in, v;
	u32 i;

	while (!READ_ONCE(env->workers_done) && !r->err) {
		d = rdma_rwx_dev_counter(env->dev, RWX_CNT_DESTROY);
		in = rwx_smp_inits(env->dev, false);
		if (d > in)
			rwx_smp_fail(r, -EIO, "sample %u: %llu destroyed, %llu set up",
				     env->samples, d, in);
		for (i = 0; i < RWX_CNT_NR; i++) {
			v = rdma_rwx_dev_counter(env->dev, i);
			if (v < prev[i])
				rwx_smp_fail(r, -EIO, "sample %u: %s went back from %llu to %llu",
					     env->samples,
					     rdma_rwx_dev_counter_name(i),
					     prev[i], v);
			prev[i] = v;
		}
		d = rdma_rwx_total_counter(RWX_CNT_DESTROY);
		in = rwx_smp_inits(NULL, true);
		if (d > in || d < prev_total)
			rwx_smp_fail(r, -EIO,
				     "sample %u: all: %llu destroyed (was %llu), %llu set up",
				     env->samples, d, prev_total, in);
		prev_total = d;
		env->samples++;
		usleep_range(1000, 2000);
	}
	complete(&r->done);
	rwx_smp_park();
	return 0;
}

/*
 * The only one to reset: the device's file and the global one in turn.
 * What is exact then: a count since a reset never runs below zero (no
 * base passes the count it was taken of); destroys read first exceed
 * inits read after by no more than were live at the reset, at most one a
 * worker; the files parse.  contexts_live is a gauge a reset leaves
 * alone, summed CPU by CPU without stopping them, so while contexts come
 * and go it is not exact (it may even dip below zero, rwx_stats.c says):
 * only its range is reported; it is checked when all is quiet, by the
 * case.
 */
static int rwx_smp_resetter_fn(void *data)
{
	struct rwx_smp_worker *r = data;
	struct rwx_smp_env *env = r->env;
	struct rwx_dbg_file f;
	u64 d, in, v;
	int ret;
	u32 i;

	while (!READ_ONCE(env->workers_done) && !r->err) {
		ret = rwx_dbg_counters_reset(&env->dbg, env->samples & 1 ?
					     NULL : env->dev);
		if (ret) {
			rwx_smp_fail(r, ret, "reset %u: %d", env->samples, ret);
			break;
		}
		d = rdma_rwx_dev_counter(env->dev, RWX_CNT_DESTROY);
		in = rwx_smp_inits(env->dev, false);
		if (d > in + env->nr_workers)
			rwx_smp_fail(r, -EIO, "reset %u: %llu destroyed since, %llu set up",
				     env->samples, d, in);
		for (i = 0; i < RWX_CNT_NR; i++) {
			v = rdma_rwx_dev_counter(env->dev, i);
			if (v >> 40)
				rwx_smp_fail(r, -EIO, "reset %u: %s is %llu",
					     env->samples,
					     rdma_rwx_dev_counter_name(i), v);
		}
		ret = rwx_dbg_counters_read(&env->dbg, env->samples % 3 ?
					    env->dev : NULL, &f);
		if (ret)
			rwx_smp_fail(r, ret, "reading the counters file: %d", ret);
		if (!ret) {
			env->live_min = min(env->live_min, f.live);
			env->live_max = max(env->live_max, f.live);
		}
		for (i = 0; !ret && i < RWX_CNT_NR; i++)
			if (f.v[i] >> 40)
				rwx_smp_fail(r, -EIO, "reset %u: the file's %s is %llu",
					     env->samples,
					     rdma_rwx_dev_counter_name(i),
					     f.v[i]);
		env->samples++;
		usleep_range(500, 1000);
	}
	complete(&r->done);
	rwx_smp_park();
	return 0;
}

/*
 * Another test device instance, connected, one context moved on it (so
 * that its counters land in some CPU's cache), then removed - its
 * counters retired while the workers count on theirs - over and over.
 */
static int rwx_smp_churn_round(struct rwx_smp_worker *c)
{
	struct rwx_smp_env *env = c->env;
	struct rwx_loopback *conn = &env->churn_conn;
	/* An MR pool only with force_mr (no MR path otherwise). */
	const struct rwx_loopback_params params = {
		.max_send_wr = 16, .max_send_sge = 4, .max_rdma_ctxs = 2,
	};
	u8 *src = c->buf, *dst = c->buf + PAGE_SIZE, fill = env->churn_rounds;
	struct rwx_testdev *tdev;
	struct scatterlist sg;
	struct rdma_rw_ctx rw;
	struct ib_device *dev;
	u64 raddr;
	int ret;

	ret = rwx_test_connect(&rwx_smp_churn_dev, conn, &params, true, &tdev);
	if (ret) {
		rwx_smp_fail(c, ret, "second device: %s: %d",
			     conn->error_what ?: "?", ret);
		goto out;
	}
	dev = conn->device;
	memset(src, fill, 256);
	memset(dst, ~fill, 256);
	sg_init_one(&sg, src, 256);
	raddr = ib_dma_map_single(dev, dst, 256, DMA_FROM_DEVICE);
	ret = rdma_rwx_ctx_init(&rw, conn->qp[RWX_CLIENT], conn->port_num, &sg,
				1, 0, raddr, conn->pd->unsafe_global_rkey,
				DMA_TO_DEVICE);
	if (ret <= 0) {
		rwx_smp_fail(c, ret, "second device: init %d", ret);
	} else {
		if (rw.type == RDMA_RWX_CTX_MR) {	/* force_mr */
			c->tally.v[RWX_CNT_INIT_MR]++;
			c->tally.v[RWX_CNT_MRS] += rw.nr_ops;
		} else {
			c->tally.v[RWX_CNT_INIT_SGE_SINGLE]++;
		}
		c->tally.v[RWX_CNT_BYTES_WRITE] += 256;
		ret = rwx_smp_post(c, &rw, conn->qp[RWX_CLIENT], conn->port_num);
		if (ret != -ETIMEDOUT) {
			rdma_rwx_ctx_destroy(&rw, conn->qp[RWX_CLIENT],
					     conn->port_num, &sg, 1,
					     DMA_TO_DEVICE);
			c->tally.v[RWX_CNT_DESTROY]++;
		}
		if (ret)
			rwx_smp_fail(c, ret, "second device: WRITE %d", ret);
		else if (memchr_inv(dst, fill, 256))
			rwx_smp_fail(c, -EIO, "second device: bytes wrong");
	}
	ib_dma_unmap_single(dev, raddr, 256, DMA_FROM_DEVICE);
out:
	rwx_test_disconnect(conn, tdev);
	return c->err;
}

static int rwx_smp_churn_fn(void *data)
{
	struct rwx_smp_worker *c = data;
	struct rwx_smp_env *env = c->env;

	while (env->churn_rounds < RWX_SMP_CHURN_MIN ||
	       (!READ_ONCE(env->workers_done) &&
		env->churn_rounds < RWX_SMP_CHURN_MAX)) {
		if (rwx_smp_churn_round(c))
			break;
		env->churn_rounds++;
	}
	complete(&c->done);
	rwx_smp_park();
	return 0;
}

/* ---- the cases' setup and checks ---- */

static struct ib_qp *rwx_smp_sig_qp(struct rwx_smp_env *env, u32 flags,
				    u32 ctxs)
{
	const struct ib_qp_cap cap = {
		.max_send_wr = 64, .max_recv_wr = 4,
		.max_send_sge = 4, .max_recv_sge = 1, .max_rdma_ctxs = ctxs,
	};

	return rwx_testdev_create_qp(env->fx->conn.pd, env->fx->conn.cq[RWX_CLIENT],
				     flags, &cap);
}

static void rwx_smp_free(struct rwx_smp_worker *w, unsigned int order)
{
	if (w->buf)
		free_pages((unsigned long)w->buf, order);
	w->buf = NULL;
}

/* Stop every thread still running, free what the case took. */
static void rwx_smp_cleanup(struct rwx_smp_env *env)
{
	u32 i;

	WRITE_ONCE(env->stop, true);
	WRITE_ONCE(env->workers_done, true);
	for (i = 0; i < ARRAY_SIZE(env->workers); i++) {
		rwx_smp_join(env, &env->workers[i]);
		rwx_smp_free(&env->workers[i], RWX_SMP_BUF_ORDER);
	}
	rwx_smp_join(env, &env->reader);
	rwx_smp_join(env, &env->churn);
	rwx_smp_free(&env->churn, RWX_SMP_CHURN_ORDER);
	rwx_dbg_close(&env->dbg);
	if (!IS_ERR_OR_NULL(env->sig_qp))
		ib_destroy_qp(env->sig_qp);
	if (!IS_ERR_OR_NULL(env->sig_peer))
		ib_destroy_qp(env->sig_peer);
	env->sig_qp = NULL;
	env->sig_peer = NULL;
}

static int rwx_smp_suite_init(struct kunit *test)
{
	return rwx_rw_fixture_open(test, false, false);
}

static void rwx_smp_suite_exit(struct kunit *test)
{
	if (rwx_smp_cur)
		rwx_smp_cleanup(rwx_smp_cur);
	rwx_smp_cur = NULL;
	rwx_rw_fixture_close(test);
}

static void rwx_smp_worker_prepare(struct kunit *test, struct rwx_smp_env *env,
				   struct rwx_smp_worker *w, unsigned int id)
{
	w->env = env;
	w->id = id;
	w->remote_off = (u64)id * RWX_SMP_SLICE;
	w->buf = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
					RWX_SMP_BUF_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, w->buf);
}

/*
 * The case's state on the fixture's connection; on the test device also
 * the signature QPs, whose pool has one MR for every worker to share.
 */
static struct rwx_smp_env *rwx_smp_setup(struct kunit *test,
					 const struct rwx_test_dev *tdev)
{
	struct rwx_smp_env *env;
	unsigned int i;

	rwx_rw_ready(test);
	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	rwx_smp_cur = env;
	env->test = test;
	env->fx = test->priv;
	env->tdev = !!tdev->caps;
	env->iters = env->tdev ? RWX_SMP_ITERS : RWX_SMP_ITERS_SLOW;
	env->dev = env->fx->conn.device;
	env->qp = rwx_qp(test);
	env->port = rwx_port(test);
	env->rkey = rwx_rkey(test);
	rdma_rwx_qp_caps(env->qp, env->port, &env->caps);
	env->kinds = rwx_smp_all_kinds;
	env->nr_kinds = ARRAY_SIZE(rwx_smp_all_kinds);
	env->nr_workers = min_t(unsigned int, num_online_cpus(),
				RWX_SMP_MAX_WORKERS);
	for (i = 0; i <= env->nr_workers; i++)
		rwx_smp_worker_prepare(test, env, &env->workers[i], i);
	env->reader.env = env;
	env->churn.env = env;
	if (!env->tdev)
		return env;
	env->sig_qp = rwx_smp_sig_qp(env, IB_QP_CREATE_INTEGRITY_EN, 1);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sig_qp);
	env->sig_peer = rwx_smp_sig_qp(env, 0, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sig_peer);
	KUNIT_ASSERT_EQ(test, rwx_testdev_connect(env->sig_qp, env->sig_peer), 0);
	return env;
}

static void rwx_smp_expect_ok(struct kunit *test, struct rwx_smp_worker *w,
			      const char *who)
{
	KUNIT_EXPECT_EQ_MSG(test, w->err, 0, "%s %u: %s", who, w->id, w->msg);
}

/* Add @w's tally to what @c expects (and to @t, unless NULL). */
static void rwx_smp_add(struct rwx_counts *c, const struct rwx_smp_worker *w,
			struct rwx_smp_tally *t)
{
	u32 i;

	for (i = 0; i < RWX_CNT_NR; i++)
		c->d[i] += w->tally.v[i];
	if (t) {
		t->cached += w->tally.cached;
		t->uncached += w->tally.uncached;
	}
}

/* Every MR back in the pools, none in use. */
struct rwx_smp_pools {
	size_t rdma, sig;
};

static void rwx_smp_pools_read(struct rwx_smp_env *env,
			       struct rwx_smp_pools *p)
{
	p->rdma = list_count_nodes(&env->qp->rdma_mrs);
	p->sig = env->sig_qp ? list_count_nodes(&env->sig_qp->sig_mrs) : 0;
}

static void rwx_smp_pools_check(struct kunit *test, struct rwx_smp_env *env,
				const struct rwx_smp_pools *before)
{
	struct rwx_smp_pools now;

	rwx_smp_pools_read(env, &now);
	KUNIT_EXPECT_EQ(test, env->qp->mrs_used, 0);
	KUNIT_EXPECT_EQ(test, now.rdma, before->rdma);
	if (env->sig_qp) {
		KUNIT_EXPECT_EQ(test, env->sig_qp->mrs_used, 0);
		KUNIT_EXPECT_EQ(test, now.sig, before->sig);
		KUNIT_EXPECT_EQ(test, now.sig, (size_t)1);
	}
}

/* The workers, one bound to each online CPU, with @helper beside them. */
static void rwx_smp_run(struct kunit *test, struct rwx_smp_env *env,
			int (*helper)(void *), bool churn)
{
	unsigned int cpu, n = 0;
	u32 i;

	env->stop = false;
	env->workers_done = false;
	env->samples = 0;
	for_each_online_cpu(cpu) {
		struct rwx_smp_worker *w = &env->workers[n];

		if (n == env->nr_workers)
			break;
		w->iters = env->iters;
		w->ran = 0;
		KUNIT_EXPECT_EQ(test, rwx_smp_start(w, rwx_smp_worker_fn, cpu,
						    NULL), 0);
		n++;
	}
	if (helper)
		KUNIT_EXPECT_EQ(test, rwx_smp_start(&env->reader, helper, -1,
						    "reader"), 0);
	if (churn) {
		env->churn.buf = (u8 *)__get_free_pages(GFP_KERNEL,
							RWX_SMP_CHURN_ORDER);
		if (env->churn.buf)
			KUNIT_EXPECT_EQ(test, rwx_smp_start(&env->churn,
							    rwx_smp_churn_fn,
							    -1, "churn"), 0);
		else
			KUNIT_FAIL(test, "no memory for the second device");
	}
	for (i = 0; i < n; i++)
		rwx_smp_join(env, &env->workers[i]);
	WRITE_ONCE(env->workers_done, true);
	rwx_smp_join(env, &env->reader);
	rwx_smp_join(env, &env->churn);
	rwx_smp_free(&env->churn, RWX_SMP_CHURN_ORDER);
	for (i = 0; i < n; i++) {
		rwx_smp_expect_ok(test, &env->workers[i], "worker");
		KUNIT_EXPECT_EQ(test, env->workers[i].ran, env->iters);
	}
	rwx_smp_expect_ok(test, &env->reader, helper == rwx_smp_reader_fn ?
			  "reader" : "resetter");
	if (churn)
		rwx_smp_expect_ok(test, &env->churn, "second device");
	KUNIT_EXPECT_EQ(test, n, env->nr_workers);
}

/*
 * Every worker on its CPU at once, on the shared QPs and pools, with the
 * reader and (test device) the second device coming and going.  Then each
 * counter of the device moved by exactly what the workers did, the global
 * sum by that and the second device's rounds, the no-device set not at
 * all; the pools are full and nothing is live.  On the test device, its
 * counters are then retired (its removal's first step) and the global sum
 * still holds every count.
 */
static void rwx_smp_stress(struct kunit *test,
			   const struct rwx_test_dev *dev)
{
	struct rwx_smp_tally bufs = {};
	struct rwx_counts dc, nodev, total;
	struct rwx_smp_pools pools;
	struct rwx_smp_env *env;
	struct rwx_dbg_file f;
	ktime_t start = ktime_get();
	u32 i;

	env = rwx_smp_setup(test, dev);
	rwx_smp_pools_read(env, &pools);
	KUNIT_ASSERT_EQ(test, rwx_dbg_open(&env->dbg), 0);
	rwx_counts_start(test, &dc, env->dev);
	rwx_counts_start(test, &nodev, NULL);
	rwx_counts_start_total(test, &total);

	rwx_smp_run(test, env, rwx_smp_reader_fn, env->tdev);
	KUNIT_EXPECT_GT(test, env->samples, 0U);
	if (env->tdev)
		KUNIT_EXPECT_GE(test, env->churn_rounds, (u32)RWX_SMP_CHURN_MIN);

	for (i = 0; i < env->nr_workers; i++) {
		rwx_smp_add(&dc, &env->workers[i], &bufs);
		rwx_smp_add(&total, &env->workers[i], NULL);
	}
	rwx_smp_add(&total, &env->churn, NULL);
	KUNIT_EXPECT_GT(test, dc.d[RWX_CNT_DESTROY], 0ULL);
	KUNIT_EXPECT_EQ(test, dc.d[RWX_CNT_DESTROY],
			dc.d[RWX_CNT_INIT_SGE_SINGLE] + dc.d[RWX_CNT_INIT_SGE_MULTI] +
			dc.d[RWX_CNT_INIT_MR] + dc.d[RWX_CNT_INIT_SIG]);
	if (env->tdev || env->caps.force_mr)
		KUNIT_EXPECT_GT(test, dc.d[RWX_CNT_INIT_MR], 0ULL);
	if (env->tdev)
		KUNIT_EXPECT_GT(test, dc.d[RWX_CNT_INIT_SIG], 0ULL);
	if (!env->caps.force_mr) {	/* both kinds of WR buffer */
		KUNIT_EXPECT_GT(test, bufs.cached, 0ULL);
		KUNIT_EXPECT_GT(test, bufs.uncached, 0ULL);
	}
	/* Short: 6.1 keeps 512 bytes of a case's log. */
	kunit_info(test, "%llu ctx: %llu single, %llu multi (%llu cached), %llu MR, %llu sig, %llu bvec; %llu EAGAIN; %u reads, %u devs; %lld ms",
		   dc.d[RWX_CNT_DESTROY], dc.d[RWX_CNT_INIT_SGE_SINGLE],
		   dc.d[RWX_CNT_INIT_SGE_MULTI], bufs.cached,
		   dc.d[RWX_CNT_INIT_MR], dc.d[RWX_CNT_INIT_SIG],
		   dc.d[RWX_CNT_INIT_BVEC], dc.d[RWX_CNT_ERR_EAGAIN],
		   env->samples, env->churn_rounds,
		   ktime_ms_delta(ktime_get(), start));
	rwx_counts_check(test, &dc, "the workers");
	rwx_counts_check(test, &nodev, "the workers");
	rwx_counts_check(test, &total, "the workers and the second device");
	rwx_smp_pools_check(test, env, &pools);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, env->dev, &f), 0);
	KUNIT_EXPECT_EQ(test, f.live, 0LL);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, NULL, &f), 0);
	KUNIT_EXPECT_EQ(test, f.live, 0LL);

	if (env->tdev) {
		/* The workers' device goes: its counters first. */
		rdma_rwx_stats_forget_device(env->dev);
		KUNIT_EXPECT_EQ(test, rdma_rwx_dev_counter(env->dev, RWX_CNT_DESTROY),
				U64_MAX);
		rwx_counts_check(test, &total, "the device retired");
		KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, NULL, &f), 0);
		KUNIT_EXPECT_EQ(test, f.live, 0LL);
	}
}

/*
 * The same load with the counters reset through their files meanwhile
 * (rwx_smp_resetter_fn() says what is exact then); once every context is
 * gone, contexts_live is 0 in the device's file and in the global one,
 * and after one more reset every count of the device is 0.
 */
static void rwx_smp_stress_reset(struct kunit *test,
				 const struct rwx_test_dev *dev)
{
	struct rwx_smp_pools pools;
	struct rwx_smp_env *env;
	struct rwx_dbg_file f;
	ktime_t start = ktime_get();
	u32 i;

	env = rwx_smp_setup(test, dev);
	env->live_min = S64_MAX;
	env->live_max = S64_MIN;
	rwx_smp_pools_read(env, &pools);
	KUNIT_ASSERT_EQ(test, rwx_dbg_open(&env->dbg), 0);

	rwx_smp_run(test, env, rwx_smp_resetter_fn, env->tdev);
	KUNIT_EXPECT_GT(test, env->samples, 0U);
	rwx_smp_pools_check(test, env, &pools);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, env->dev, &f), 0);
	KUNIT_EXPECT_EQ(test, f.live, 0LL);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, NULL, &f), 0);
	KUNIT_EXPECT_EQ(test, f.live, 0LL);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_reset(&env->dbg, env->dev), 0);
	KUNIT_ASSERT_EQ(test, rwx_dbg_counters_read(&env->dbg, env->dev, &f), 0);
	KUNIT_EXPECT_EQ(test, f.live, 0LL);
	for (i = 0; i < RWX_CNT_NR; i++) {
		KUNIT_EXPECT_EQ_MSG(test, f.v[i], 0ULL, "%s after a reset",
				    rdma_rwx_dev_counter_name(i));
		KUNIT_EXPECT_EQ_MSG(test, rdma_rwx_dev_counter(env->dev, i), 0ULL,
				    "%s after a reset",
				    rdma_rwx_dev_counter_name(i));
	}
	kunit_info(test, "%u resets, contexts_live %lld to %lld; %lld ms",
		   env->samples, env->live_min, env->live_max,
		   ktime_ms_delta(ktime_get(), start));
}

/* Move the calling thread to @cpu: 0, or the error. */
static int rwx_smp_move_to(int cpu)
{
	int ret = set_cpus_allowed_ptr(current, cpumask_of(cpu));

	if (!ret && raw_smp_processor_id() != cpu)
		ret = -EAGAIN;
	return ret;
}

/*
 * A small multi-entry context set up on one CPU and destroyed on the
 * other, over and over, while a thread bound to each CPU runs small
 * contexts of its own: buffers taken from one CPU's cache go back to the
 * other's, and the counters count each context's init on one CPU and its
 * destroy on the other.
 *
 * rwx_bufcache.c takes and gives back a buffer without a preemption
 * window: the hot slot is swapped with one this_cpu_xchg() or
 * this_cpu_cmpxchg() (on x86 a %gs-relative read and cmpxchg, the
 * cmpxchg checking the value again on whichever CPU it runs; elsewhere
 * with preemption and interrupts off around it), so a task preempted and
 * migrated in the middle works on the one CPU's slot it ends on; the stack behind
 * the slot is touched only under local_lock_irqsave(), which keeps the
 * task on its CPU (interrupts off) until it has found this_cpu_ptr()'s
 * stack and let go.  A buffer carries no trace of the CPU it came from,
 * so giving it back elsewhere is as good as here.
 */
static void rwx_smp_migrate(struct kunit *test,
			    const struct rwx_test_dev *dev)
{
	struct rwx_smp_worker *m;
	struct rwx_smp_pools pools;
	struct rwx_smp_env *env;
	struct rwx_smp_list l;
	struct rdma_rw_ctx rw;
	struct rwx_counts dc;
	ktime_t start = ktime_get();
	int cpu[2], ret = 0;
	void *buf = NULL;
	u32 i, n = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online: nothing to migrate to");
	env = rwx_smp_setup(test, dev);
	env->kinds = rwx_smp_small_kinds;
	env->nr_kinds = ARRAY_SIZE(rwx_smp_small_kinds);
	m = &env->workers[env->nr_workers];	/* this thread's */
	cpu[0] = cpumask_first(cpu_online_mask);
	cpu[1] = cpumask_next(cpu[0], cpu_online_mask);
	rwx_smp_pools_read(env, &pools);
	rwx_counts_start(test, &dc, env->dev);

	for (i = 0; i < 2; i++) {
		env->workers[i].iters = 0;	/* until stopped */
		KUNIT_EXPECT_EQ(test, rwx_smp_start(&env->workers[i],
						    rwx_smp_worker_fn, cpu[i],
						    NULL), 0);
	}
	for (i = 0; i < RWX_SMP_MIGRATIONS && !m->err; i++) {
		int from = cpu[i & 1], to = cpu[!(i & 1)];
		u32 seed = (m->id << 20) | i;

		ret = rwx_smp_move_to(from);
		if (ret) {
			rwx_smp_fail(m, ret, "to CPU %d: %d", from, ret);
			break;
		}
		rwx_smp_list(m, RWX_SMP_SMALL, i, &l);
		rwx_smp_fill(m, &l, seed);
		ret = rwx_smp_init(m, &rw, &l, DMA_TO_DEVICE);
		if (ret <= 0) {
			rwx_smp_fail(m, ret, "init on CPU %d: %d", from, ret);
			break;
		}
		rwx_smp_tally_init(m, &rw, &l, DMA_TO_DEVICE);
		if (!env->caps.force_mr && rw.type != (RDMA_RWX_CTX_MULTI | RDMA_RWX_CTX_CACHED))
			rwx_smp_fail(m, -EINVAL, "a small context of type %#x",
				     rw.type);
		if (i % 4 == 0) {	/* every fourth one moves its data */
			ret = rwx_smp_post(m, &rw, env->qp, env->port);
			if (ret == -ETIMEDOUT) {
				rwx_smp_fail(m, ret, "WRITE timed out");
				break;
			}
			if (ret)
				rwx_smp_fail(m, ret, "WRITE: %d", ret);
			else
				rwx_smp_check(m, &l, seed,
					      page_address(env->fx->remote) +
					      m->remote_off, "migrated WRITE");
		}
		ret = rwx_smp_move_to(to);
		if (ret)
			rwx_smp_fail(m, ret, "to CPU %d: %d", to, ret);
		else
			n++;
		rwx_smp_destroy(m, &rw, &l, DMA_TO_DEVICE);
	}
	WRITE_ONCE(env->stop, true);
	for (i = 0; i < 2; i++)
		rwx_smp_join(env, &env->workers[i]);
	WRITE_ONCE(env->stop, false);
	rwx_smp_expect_ok(test, m, "migrating thread");
	for (i = 0; i < 2; i++) {
		rwx_smp_expect_ok(test, &env->workers[i], "worker");
		KUNIT_EXPECT_GT(test, env->workers[i].ran, 0U);
		rwx_smp_add(&dc, &env->workers[i], NULL);
	}
	KUNIT_EXPECT_EQ(test, n, (u32)RWX_SMP_MIGRATIONS);

	/*
	 * Quiet now: the buffer a context takes on one CPU goes, once it is
	 * destroyed on the other, to that CPU's slot (emptied first), and
	 * the next context there takes it.
	 */
	if (!env->caps.force_mr) {
		rwx_smp_list(m, RWX_SMP_SMALL, 0, &l);
		KUNIT_ASSERT_EQ(test, rwx_smp_move_to(cpu[0]), 0);
		KUNIT_ASSERT_GT(test, rwx_smp_init(m, &rw, &l, DMA_TO_DEVICE), 0);
		rwx_smp_tally_init(m, &rw, &l, DMA_TO_DEVICE);
		buf = rw.map.wrs;
		/* no ASSERT: the context must be destroyed whatever happens */
		KUNIT_EXPECT_EQ(test, rwx_smp_move_to(cpu[1]), 0);
		migrate_disable();
		rdma_rwx_buf_cache_empty_local();
		rwx_smp_destroy(m, &rw, &l, DMA_TO_DEVICE);
		ret = rwx_smp_init(m, &rw, &l, DMA_TO_DEVICE);
		if (ret > 0) {
			rwx_smp_tally_init(m, &rw, &l, DMA_TO_DEVICE);
			KUNIT_EXPECT_PTR_EQ(test, (void *)rw.map.wrs, buf);
			rwx_smp_destroy(m, &rw, &l, DMA_TO_DEVICE);
		}
		migrate_enable();
		KUNIT_EXPECT_GT(test, ret, 0);
	}
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, cpu_possible_mask), 0);
	rwx_smp_add(&dc, m, NULL);
	rwx_counts_check(test, &dc, "migrated contexts");
	rwx_smp_pools_check(test, env, &pools);
	kunit_info(test, "%u contexts moved between CPUs %d and %d; %lld ms",
		   n, cpu[0], cpu[1],
		   ktime_ms_delta(ktime_get(), start));
}

#ifdef CONFIG_HOTPLUG_CPU
/*
 * Quiet (the workers stopped): a small context set up and destroyed on
 * CPU 1 leaves its buffer in CPU 1's cache; once CPU 1 is offline, its
 * cache holds nothing (rwx_bufcache.c's CPU-hotplug callback freed it).
 */
static void rwx_smp_hotplug_frees_cache(struct kunit *test,
					struct rwx_smp_worker *m)
{
	struct rwx_smp_list l;
	struct rdma_rw_ctx rw;

	rwx_smp_list(m, RWX_SMP_SMALL, 0, &l);
	KUNIT_ASSERT_EQ(test, rwx_smp_move_to(1), 0);
	KUNIT_ASSERT_GT(test, rwx_smp_init(m, &rw, &l, DMA_TO_DEVICE), 0);
	rwx_smp_tally_init(m, &rw, &l, DMA_TO_DEVICE);
	rwx_smp_destroy(m, &rw, &l, DMA_TO_DEVICE);
	KUNIT_EXPECT_GE(test, rdma_rwx_buf_cache_held(1), 1U);
	KUNIT_ASSERT_EQ(test, rwx_smp_move_to(0), 0);
	KUNIT_ASSERT_EQ(test, remove_cpu(1), 0);
	KUNIT_EXPECT_EQ(test, rdma_rwx_buf_cache_held(1), 0U);
	KUNIT_EXPECT_EQ(test, add_cpu(1), 0);
	KUNIT_EXPECT_EQ(test, set_cpus_allowed_ptr(current, cpu_possible_mask), 0);
}

#endif

/*
 * CPU 1 taken offline and back, again and again, while unbound threads
 * run contexts (the scheduler moves them off it each time): the counters
 * balance exactly and the pools are full.  Then, quiet, CPU 1's cached
 * buffers are freed when it goes offline (rwx_smp_hotplug_frees_cache()).
 */
static void rwx_smp_hotplug(struct kunit *test,
			    const struct rwx_test_dev *dev)
{
#ifdef CONFIG_HOTPLUG_CPU
	struct rwx_smp_pools pools;
	struct rwx_smp_env *env;
	struct rwx_counts dc;
	ktime_t start = ktime_get();
	u32 i, rounds = 0;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU online: none to take offline");
	KUNIT_ASSERT_TRUE_MSG(test, cpu_online(1), "CPU 1 is not online");
	env = rwx_smp_setup(test, dev);
	rwx_smp_pools_read(env, &pools);
	rwx_counts_start(test, &dc, env->dev);
	for (i = 0; i < 2; i++) {
		env->workers[i].iters = 0;
		KUNIT_EXPECT_EQ(test, rwx_smp_start(&env->workers[i],
						    rwx_smp_worker_fn, -1,
						    "hotplug"), 0);
	}
	for (i = 0; i < RWX_SMP_HOTPLUG_ROUNDS; i++) {
		msleep(100);
		ret = remove_cpu(1);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "round %u: CPU 1 offline", i);
		if (ret)
			break;
		KUNIT_EXPECT_FALSE(test, cpu_online(1));
		msleep(100);
		ret = add_cpu(1);
		KUNIT_EXPECT_EQ_MSG(test, ret, 0, "round %u: CPU 1 online", i);
		if (ret)
			break;
		rounds++;
	}
	msleep(100);
	WRITE_ONCE(env->stop, true);
	for (i = 0; i < 2; i++)
		rwx_smp_join(env, &env->workers[i]);
	if (!cpu_online(1))
		KUNIT_EXPECT_EQ(test, add_cpu(1), 0);
	KUNIT_EXPECT_TRUE(test, cpu_online(1));
	KUNIT_EXPECT_EQ(test, rounds, (u32)RWX_SMP_HOTPLUG_ROUNDS);
	for (i = 0; i < 2; i++) {
		rwx_smp_expect_ok(test, &env->workers[i], "worker");
		KUNIT_EXPECT_GT(test, env->workers[i].ran, 0U);
		rwx_smp_add(&dc, &env->workers[i], NULL);
	}
	rwx_smp_hotplug_frees_cache(test, &env->workers[env->nr_workers]);
	rwx_smp_add(&dc, &env->workers[env->nr_workers], NULL);
	KUNIT_EXPECT_EQ(test, dc.d[RWX_CNT_DESTROY],
			dc.d[RWX_CNT_INIT_SGE_SINGLE] + dc.d[RWX_CNT_INIT_SGE_MULTI] +
			dc.d[RWX_CNT_INIT_MR] + dc.d[RWX_CNT_INIT_SIG]);
	rwx_counts_check(test, &dc, "contexts across CPU hotplug");
	rwx_smp_pools_check(test, env, &pools);
	kunit_info(test, "%u rounds, %u + %u iterations; %lld ms", rounds,
		   env->workers[0].ran, env->workers[1].ran,
		   ktime_ms_delta(ktime_get(), start));
#else
	kunit_skip(test, "needs CONFIG_HOTPLUG_CPU");
#endif
}

/*
 * One device per case, as its one parameter (the suite's init connects on
 * the parameter's device): 6.1's KUnit keeps only the last parameter's
 * lines in a case's log, so the results of any other would not reach the
 * KTAP.  The stress runs on the test device and on rxe0; the rest on the
 * test device.
 */
static const void *rwx_smp_one_param(const void *prev, char *desc,
				     const struct rwx_test_dev *dev)
{
	if (prev)
		return NULL;
	rwx_test_dev_desc(dev, desc);
	return dev;
}

static const void *rwx_smp_tdev_param(const void *prev, char *desc)
{
	return rwx_smp_one_param(prev, desc, &rwx_smp_tdev);
}

static const void *rwx_smp_rxe_param(const void *prev, char *desc)
{
	return rwx_smp_one_param(prev, desc, &rwx_test_devs[0]);
}

static void rwx_smp_stress_tdev(struct kunit *test)
{
	rwx_smp_stress(test, test->param_value);
}

static void rwx_smp_stress_rxe(struct kunit *test)
{
	rwx_smp_stress(test, test->param_value);
}

static void rwx_smp_stress_reset_tdev(struct kunit *test)
{
	rwx_smp_stress_reset(test, test->param_value);
}

static void rwx_smp_stress_reset_rxe(struct kunit *test)
{
	rwx_smp_stress_reset(test, test->param_value);
}

static void rwx_smp_migrate_tdev(struct kunit *test)
{
	rwx_smp_migrate(test, test->param_value);
}

static void rwx_smp_hotplug_tdev(struct kunit *test)
{
	rwx_smp_hotplug(test, test->param_value);
}

static struct kunit_case rwx_smp_cases[] = {
	KUNIT_CASE_PARAM(rwx_smp_stress_tdev, rwx_smp_tdev_param),
	KUNIT_CASE_PARAM(rwx_smp_stress_rxe, rwx_smp_rxe_param),
	KUNIT_CASE_PARAM(rwx_smp_stress_reset_tdev, rwx_smp_tdev_param),
	KUNIT_CASE_PARAM(rwx_smp_stress_reset_rxe, rwx_smp_rxe_param),
	KUNIT_CASE_PARAM(rwx_smp_migrate_tdev, rwx_smp_tdev_param),
	KUNIT_CASE_PARAM(rwx_smp_hotplug_tdev, rwx_smp_tdev_param),
	{}
};

static struct kunit_suite rwx_smp_suite = {
	.name = "rwx_smp",
	.init = rwx_smp_suite_init,
	.exit = rwx_smp_suite_exit,
	.test_cases = rwx_smp_cases,
};

kunit_test_suite(rwx_smp_suite);

MODULE_DESCRIPTION("KUnit: rdma_rwx on every CPU at once, migrating, across CPU hotplug");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
MODULE_IMPORT_NS(RDMA_RWX_TESTING);
