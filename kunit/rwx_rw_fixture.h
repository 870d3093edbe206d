/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the suites that move data through the engine share: the WR chain
 * recorder of rwx_diff_kunit and rwx_bvec_kunit (a chain reduced to what
 * two builders of it must agree on, and two such records compared WR for
 * WR), and the fixture of rwx_engine_kunit and rwx_bvec_kunit (a
 * connected QP pair on a device of rwx_test_devs.h, 4 MiB of target
 * memory, lists built from a shape, contexts of them moved and waited
 * for).
 */
#ifndef _RWX_RW_FIXTURE_H
#define _RWX_RW_FIXTURE_H

#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/rwx.h>
#include "../drivers/rwx/rwx_internal.h"
#include "../drivers/rwx/rwx_stats.h"
#include "rwx_loopback.h"
#include "rwx_test_devs.h"

/* One WR of a chain, reduced to what must match. */
struct rwx_wr_rec {
	enum ib_wr_opcode opcode;
	bool signaled;
	bool has_cqe;		/* its wr_cqe is the completion asked for */
	u32 num_sge;
	u64 remote_addr;
	u32 rkey;
	u32 first_sge;		/* index into the chain's SGE records */
	/* REG_MR */
	int access;
	u64 mr_iova, mr_length;
	u32 key;
	/* LOCAL_INV, READ_WITH_INV */
	u32 invalidate_rkey;
};

struct rwx_sge_rec {
	u64 addr;
	u32 length;
	bool dma_lkey;		/* the PD's local DMA lkey */
	bool mr_lkey;		/* the lkey of the MR registered just before */
};

/* A recorded chain: its first max_wrs WRs and max_sges SGEs. */
struct rwx_chain {
	int ret;		/* what init returned */
	u32 nr_wrs, nr_inv, nr_sges;	/* nr_inv: LOCAL_INVs among the WRs */
	u32 max_wrs, max_sges;
	struct rwx_sge_rec *sge;	/* behind wr[] */
	struct rwx_wr_rec wr[];
};

/*
 * A record for the chains of lists of up to @entries entries (a LOCAL_INV,
 * a REG_MR and a READ/WRITE per entry at most, and one more); NULL when
 * there is no memory.  Free it with vfree().
 */
static inline struct rwx_chain *rwx_chain_alloc(u32 entries)
{
	u32 max_wrs = 3 * entries + 1;
	struct rwx_chain *c;

	c = vzalloc(struct_size(c, wr, max_wrs) + entries * sizeof(*c->sge));
	if (!c)
		return NULL;
	c->max_wrs = max_wrs;
	c->max_sges = entries;
	c->sge = (struct rwx_sge_rec *)&c->wr[max_wrs];
	return c;
}

/* Record the chain @first of @qp, which ends at NULL; @cqe: the one asked for. */
static inline void rwx_chain_record(struct rwx_chain *chain, struct ib_qp *qp,
				    struct ib_send_wr *first,
				    struct ib_cqe *cqe)
{
	u32 last_mr_lkey = 0, i;
	struct rwx_sge_rec *s;
	struct ib_send_wr *wr;

	chain->nr_wrs = 0;
	chain->nr_inv = 0;
	chain->nr_sges = 0;
	for (wr = first; wr && chain->nr_wrs < chain->max_wrs; wr = wr->next) {
		struct rwx_wr_rec *rec = &chain->wr[chain->nr_wrs++];

		memset(rec, 0, sizeof(*rec));
		rec->opcode = wr->opcode;
		rec->signaled = wr->send_flags & IB_SEND_SIGNALED;
		rec->has_cqe = wr->wr_cqe == cqe;
		rec->num_sge = wr->num_sge;
		rec->first_sge = chain->nr_sges;
		switch (wr->opcode) {
		case IB_WR_REG_MR:
			rec->access = reg_wr(wr)->access;
			rec->mr_iova = reg_wr(wr)->mr->iova;
			rec->mr_length = reg_wr(wr)->mr->length;
			rec->key = reg_wr(wr)->key;
			last_mr_lkey = reg_wr(wr)->mr->lkey;
			break;
		case IB_WR_LOCAL_INV:
			rec->invalidate_rkey = wr->ex.invalidate_rkey;
			chain->nr_inv++;
			break;
		case IB_WR_RDMA_READ_WITH_INV:
			rec->invalidate_rkey = wr->ex.invalidate_rkey;
			fallthrough;
		default:
			rec->remote_addr = rdma_wr(wr)->remote_addr;
			rec->rkey = rdma_wr(wr)->rkey;
			for (i = 0; i < wr->num_sge; i++) {
				if (chain->nr_sges == chain->max_sges)
					break;
				s = &chain->sge[chain->nr_sges++];
				s->addr = wr->sg_list[i].addr;
				s->length = wr->sg_list[i].length;
				s->dma_lkey = wr->sg_list[i].lkey ==
					      qp->pd->local_dma_lkey;
				s->mr_lkey = last_mr_lkey &&
					     wr->sg_list[i].lkey == last_mr_lkey;
			}
		}
	}
}

/* The first WR from @i on that is not a LOCAL_INV (nr_wrs: none). */
static inline u32 rwx_chain_skip_inv(const struct rwx_chain *c, u32 i)
{
	while (i < c->nr_wrs && c->wr[i].opcode == IB_WR_LOCAL_INV)
		i++;
	return i;
}

/*
 * Chains @a and @b WR for WR until either ends, without their LOCAL_INVs
 * (which depend on what the pool's MRs held before): opcodes, signaling
 * (with @cqe also which WR carries the completion asked for), SGEs
 * (addresses, lengths, lkey kinds), remote addresses and rkeys, REG_MR
 * access and extent; a READ with invalidate in @a names the key @a
 * registered just before it.  *@ai and *@bi: where each stopped.  @what
 * starts each message.
 */
static inline void rwx_chain_compare(struct kunit *test,
				     const struct rwx_chain *a,
				     const struct rwx_chain *b, bool cqe,
				     const char *what, u32 *ai, u32 *bi)
{
	u32 i = 0, j = 0, s, key = 0;

	for (;;) {
		const struct rwx_wr_rec *x, *y;

		i = rwx_chain_skip_inv(a, i);
		j = rwx_chain_skip_inv(b, j);
		if (i == a->nr_wrs || j == b->nr_wrs)
			break;
		x = &a->wr[i++];
		y = &b->wr[j++];
		KUNIT_ASSERT_EQ_MSG(test, x->opcode, y->opcode, "%s WR %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, x->signaled, y->signaled,
				    "%s WR %u", what, i);
		if (cqe)
			KUNIT_EXPECT_EQ_MSG(test, x->has_cqe && x->signaled,
					    y->has_cqe && y->signaled,
					    "%s WR %u", what, i);
		KUNIT_ASSERT_EQ_MSG(test, x->num_sge, y->num_sge, "%s WR %u", what, i);
		if (x->opcode == IB_WR_REG_MR) {
			KUNIT_EXPECT_EQ_MSG(test, x->access, y->access,
					    "%s WR %u", what, i);
			KUNIT_EXPECT_EQ_MSG(test, x->mr_length, y->mr_length,
					    "%s WR %u", what, i);
			KUNIT_EXPECT_EQ_MSG(test, x->mr_iova, y->mr_iova,
					    "%s WR %u", what, i);
			key = x->key;
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, x->remote_addr, y->remote_addr,
				    "%s WR %u", what, i);
		KUNIT_EXPECT_EQ_MSG(test, x->rkey, y->rkey, "%s WR %u", what, i);
		if (x->opcode == IB_WR_RDMA_READ_WITH_INV)
			KUNIT_EXPECT_EQ_MSG(test, x->invalidate_rkey, key,
					    "%s WR %u", what, i);
		for (s = 0; s < x->num_sge; s++) {
			const struct rwx_sge_rec *p = &a->sge[x->first_sge + s];
			const struct rwx_sge_rec *q = &b->sge[y->first_sge + s];

			KUNIT_EXPECT_EQ_MSG(test, p->addr, q->addr,
					    "%s WR %u SGE %u", what, i, s);
			KUNIT_EXPECT_EQ_MSG(test, p->length, q->length,
					    "%s WR %u SGE %u", what, i, s);
			KUNIT_EXPECT_EQ_MSG(test, p->dma_lkey, q->dma_lkey,
					    "%s WR %u SGE %u", what, i, s);
			KUNIT_EXPECT_EQ_MSG(test, p->mr_lkey, q->mr_lkey,
					    "%s WR %u SGE %u", what, i, s);
		}
	}
	*ai = i;
	*bi = j;
}

#define RWX_REMOTE_ORDER	10	/* 4 MiB of target memory */
#define RWX_REMOTE_LEN		(PAGE_SIZE << RWX_REMOTE_ORDER)
#define RWX_MAX_ENTRIES		1024
#define RWX_POOL		8	/* MRs in the QP's pool */

/*
 * The fixture: test->priv of the suites that use it.  The current list is
 * the nents entries of sgl or, in the bvec suites, the part of the
 * nr_bvec bvecs of bvecs that iter covers (sgl then holds its segments).
 */
struct rwx_rw_fixture {
	struct rwx_loopback conn;
	struct rwx_testdev *tdev;
	int setup_ret;
	struct page *remote;
	u64 remote_dma;
	struct scatterlist *sgl;	/* RWX_MAX_ENTRIES entries */
	u32 nents;
	struct bio_vec *bvecs;		/* bvec suites: RWX_MAX_ENTRIES */
	u32 nr_bvec;
	struct bvec_iter iter;
	struct rwx_chain *bvec_chain, *sg_chain;	/* bvec suites */
	struct ib_cqe cqe;
	struct page *allocs[RWX_MAX_ENTRIES];	/* behind the entries */
	u8 orders[RWX_MAX_ENTRIES];
	u32 nr_allocs;
};

/*
 * A suite's init: test->priv becomes a new fixture, connected on the
 * case's device (a case without a parameter has none); with @bvec it has
 * room for bvec arrays and a chain record for each path, and with
 * @virt_dma a test device maps as rxe does.  A failed connection is left
 * for rwx_rw_ready() to report.
 */
static inline int rwx_rw_fixture_open(struct kunit *test, bool bvec,
				      bool virt_dma)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_loopback_params params = {
		.max_send_wr = 256,
		.max_send_sge = 16,
		.max_rdma_ctxs = RWX_POOL,
	};
	struct rwx_rw_fixture *fx;

	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	test->priv = fx;
	fx->sgl = kunit_kcalloc(test, RWX_MAX_ENTRIES, sizeof(*fx->sgl),
				GFP_KERNEL);
	if (!fx->sgl)
		return -ENOMEM;
	if (bvec) {
		fx->bvecs = kunit_kcalloc(test, RWX_MAX_ENTRIES,
					  sizeof(*fx->bvecs), GFP_KERNEL);
		fx->bvec_chain = rwx_chain_alloc(RWX_MAX_ENTRIES);
		fx->sg_chain = rwx_chain_alloc(RWX_MAX_ENTRIES);
		if (!fx->bvecs || !fx->bvec_chain || !fx->sg_chain)
			return -ENOMEM;
	}
	if (!dev)
		return 0;
	if (dev->caps) {
		/*
		 * Test devices: room for a 4 MiB list of single pages on one
		 * SGE per WR, or over MRs of 8 pages (the smallest page list).
		 */
		params.max_send_wr = 1100;
		params.max_rdma_ctxs = 160;
	}
	fx->setup_ret = rwx_test_connect(dev, &fx->conn, &params, virt_dma,
					 &fx->tdev);
	return 0;
}

/* Drops the memory behind the list. */
static inline void rwx_rw_free_bufs(struct rwx_rw_fixture *fx)
{
	u32 i;

	for (i = 0; i < fx->nr_allocs; i++)
		__free_pages(fx->allocs[i], fx->orders[i]);
	fx->nr_allocs = 0;
	fx->nents = 0;
	fx->nr_bvec = 0;
}

/* A suite's exit: the remote buffer, the list, then the connection. */
static inline void rwx_rw_fixture_close(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;

	if (fx->remote_dma)
		ib_dma_unmap_page(fx->conn.device, fx->remote_dma,
				  RWX_REMOTE_LEN, DMA_BIDIRECTIONAL);
	if (fx->remote)
		__free_pages(fx->remote, RWX_REMOTE_ORDER);
	rwx_rw_free_bufs(fx);
	if (test->param_value)
		rwx_test_disconnect(&fx->conn, fx->tdev);
	vfree(fx->bvec_chain);
	vfree(fx->sg_chain);
}

static inline struct ib_qp *rwx_qp(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;

	return fx->conn.qp[RWX_CLIENT];
}

static inline u32 rwx_port(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;

	return fx->conn.port_num;
}

static inline u32 rwx_rkey(struct kunit *test)
{
	struct rwx_rw_fixture *fx = test->priv;

	return fx->conn.pd->unsafe_global_rkey;
}

/* Connected, on the right device, with 4 MiB of target memory. */
static inline void rwx_rw_ready(struct kunit *test)
{
	const struct rwx_test_dev *dev = test->param_value;
	struct rwx_rw_fixture *fx = test->priv;
	struct ib_device *device;

	KUNIT_ASSERT_EQ_MSG(test, fx->setup_ret, 0, "connect on %s: %s",
			    dev->name, fx->conn.error_what ?: "?");
	device = fx->conn.device;
	KUNIT_ASSERT_TRUE(test, rwx_test_on_dev(dev, device));
	fx->remote = alloc_pages(GFP_KERNEL, RWX_REMOTE_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, fx->remote);
	fx->remote_dma = ib_dma_map_page(device, fx->remote, 0,
					 RWX_REMOTE_LEN, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(device, fx->remote_dma)) {
		fx->remote_dma = 0;
		KUNIT_FAIL(test, "cannot map the remote buffer");
	}
}

/* Pages for @size bytes of the list, freed with it. */
static inline void *rwx_rw_alloc(struct kunit *test, size_t size)
{
	struct rwx_rw_fixture *fx = test->priv;
	unsigned int order = get_order(size);
	struct page *page;

	KUNIT_ASSERT_LT(test, fx->nr_allocs, RWX_MAX_ENTRIES);
	page = alloc_pages(GFP_KERNEL, order);
	KUNIT_ASSERT_NOT_NULL(test, page);
	fx->allocs[fx->nr_allocs] = page;
	fx->orders[fx->nr_allocs++] = order;
	return page_address(page);
}

/*
 * A list shape: @entries entries of @len bytes, moved from @offset on.
 * Each entry starts @lead bytes into pages of its own or, with @carve,
 * the entries follow one another in one buffer from @lead on, so that
 * neighbours share pages.  Bvec arrays only: the transfer leaves @tail
 * bytes at the end, and with @empty every third bvec is empty.
 */
struct rwx_shape {
	u32 entries, len, lead, offset, tail;
	bool carve, empty;
};

/* Fresh memory for a list of @s: the buffer to carve it from, or NULL. */
static inline u8 *rwx_rw_shape_start(struct kunit *test,
				     const struct rwx_shape *s)
{
	KUNIT_ASSERT_LE(test, s->entries, RWX_MAX_ENTRIES);
	rwx_rw_free_bufs(test->priv);
	if (!s->carve)
		return NULL;
	return rwx_rw_alloc(test, s->lead + (size_t)s->entries * s->len);
}

/* Where entry @i of @s starts: in @carved, or in pages of its own. */
static inline u8 *rwx_rw_shape_entry(struct kunit *test,
				     const struct rwx_shape *s, u8 *carved,
				     u32 i)
{
	u8 *p = carved ? carved + (size_t)i * s->len :
			 rwx_rw_alloc(test, s->lead + s->len);

	return p + s->lead;
}

/* A bvec of @len bytes at @p (6.1 has no bvec_set_virt()). */
static inline void rwx_bvec_set(struct bio_vec *bv, void *p, u32 len)
{
	bvec_set_page(bv, virt_to_page(p), len, offset_in_page(p));
}

/*
 * Compare the scatterlist, from @offset, with remote memory: returns the
 * number of leading bytes that match (the whole transfer when all do).
 */
static inline size_t rwx_rw_matching(struct rwx_rw_fixture *fx, u32 offset,
				     size_t len)
{
	const u8 *remote = page_address(fx->remote);
	struct scatterlist *sg;
	size_t pos = 0;
	u32 i;

	for_each_sg(fx->sgl, sg, fx->nents, i) {
		const u8 *local = sg_virt(sg);
		size_t n = sg->length;

		if (offset >= n) {
			offset -= n;
			continue;
		}
		local += offset;
		n = min(n - offset, len - pos);
		offset = 0;
		if (memcmp(local, remote + pos, n)) {
			while (local[0] == remote[pos]) {
				local++;
				pos++;
			}
			return pos;
		}
		pos += n;
		if (pos == len)
			break;
	}
	return pos;
}

/*
 * Bytes that differ with each position and each call, cheaply: a
 * xorshift64* stream from a random seed.  get_random_bytes() (ChaCha20,
 * every word access checked by KASAN) was a third of the data cases' own
 * time on the debug kernels under TCG; the tests need bytes that a
 * misplaced, short or stale transfer cannot match, not secret ones.
 */
static inline void rwx_rw_random(void *buf, size_t len)
{
	u64 x = get_random_u64() | 1;
	u8 *p = buf;

	while (len) {
		u64 r;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		r = x * 0x2545f4914f6cdd1dULL;
		if (len < sizeof(r)) {
			memcpy(p, &r, len);
			break;
		}
		memcpy(p, &r, sizeof(r));	/* one store */
		p += sizeof(r);
		len -= sizeof(r);
	}
}

/*
 * Random bytes or zeroes in the whole list: the bvec array when there is
 * one (so that bytes outside the transfer are known), else the
 * scatterlist.
 */
static inline void rwx_rw_fill_local(struct rwx_rw_fixture *fx, bool random)
{
	struct scatterlist *sg;
	u32 i;

	for (i = 0; i < fx->nr_bvec; i++) {
		if (random)
			rwx_rw_random(bvec_virt(&fx->bvecs[i]),
				      fx->bvecs[i].bv_len);
		else
			memset(bvec_virt(&fx->bvecs[i]), 0, fx->bvecs[i].bv_len);
	}
	if (fx->nr_bvec)
		return;
	for_each_sg(fx->sgl, sg, fx->nents, i) {
		if (random)
			rwx_rw_random(sg_virt(sg), sg->length);
		else
			memset(sg_virt(sg), 0, sg->length);
	}
}

/*
 * What one context moves: the @nents entries of @sgl from byte @offset on
 * or, with @bvecs, what @iter covers of its @nents bvecs.
 */
struct rwx_rw_list {
	struct scatterlist *sgl;
	struct bio_vec *bvecs;
	u32 nents, offset;
	struct bvec_iter iter;
};

/* The fixture's list: its scatterlist from @offset, or with @bvec its bvecs. */
static inline struct rwx_rw_list rwx_rw_list_of(struct rwx_rw_fixture *fx,
						bool bvec, u32 offset)
{
	if (bvec)
		return (struct rwx_rw_list){
			.bvecs = fx->bvecs, .nents = fx->nr_bvec,
			.iter = fx->iter,
		};
	return (struct rwx_rw_list){
		.sgl = fx->sgl, .nents = fx->nents, .offset = offset,
	};
}

/* rdma_rwx_ctx_init() or rdma_rwx_ctx_init_bvec() of @l. */
static inline int rwx_rw_init_to(struct kunit *test, struct rdma_rw_ctx *rw,
				 const struct rwx_rw_list *l, u64 raddr,
				 u32 rkey, enum dma_data_direction dir)
{
	if (l->bvecs)
		return rdma_rwx_ctx_init_bvec(rw, rwx_qp(test), rwx_port(test),
					      l->bvecs, l->nents, l->iter,
					      raddr, rkey, dir);
	return rdma_rwx_ctx_init(rw, rwx_qp(test), rwx_port(test), l->sgl,
				 l->nents, l->offset, raddr, rkey, dir);
}

/* The same to the remote buffer. */
static inline int rwx_rw_init(struct kunit *test, struct rdma_rw_ctx *rw,
			      const struct rwx_rw_list *l,
			      enum dma_data_direction dir)
{
	struct rwx_rw_fixture *fx = test->priv;

	return rwx_rw_init_to(test, rw, l, fx->remote_dma, rwx_rkey(test), dir);
}

static inline void rwx_rw_destroy(struct kunit *test, struct rdma_rw_ctx *rw,
				  const struct rwx_rw_list *l,
				  enum dma_data_direction dir)
{
	if (l->bvecs)
		rdma_rwx_ctx_destroy_bvec(rw, rwx_qp(test), rwx_port(test),
					  l->bvecs, l->nents, dir);
	else
		rdma_rwx_ctx_destroy(rw, rwx_qp(test), rwx_port(test), l->sgl,
				     l->nents, dir);
}

/*
 * One context of @l with the remote buffer, posted and waited for:
 * init + post + wait + destroy.  Returns init's WR count or an error.
 */
static inline int rwx_rw_run(struct kunit *test, const struct rwx_rw_list *l,
			     enum dma_data_direction dir)
{
	struct rwx_loopback_wait *wait;
	struct rdma_rw_ctx rw;
	int nr_wrs, ret;

	wait = kunit_kzalloc(test, sizeof(*wait), GFP_KERNEL);
	if (!wait)
		return -ENOMEM;
	nr_wrs = rwx_rw_init(test, &rw, l, dir);
	if (nr_wrs < 0)
		return nr_wrs;
	rwx_loopback_wait_init(wait);
	ret = rdma_rwx_ctx_post(&rw, rwx_qp(test), rwx_port(test), &wait->cqe,
				NULL);
	if (!ret)
		ret = rwx_loopback_wait_for(wait);
	if (ret == -ETIMEDOUT)
		return ret;	/* the WRs may still run: leave them mapped */
	rwx_rw_destroy(test, &rw, l, dir);
	return ret ?: nr_wrs;
}

/*
 * iWARP completes a WRITE once its data is handed to TCP, not once it is
 * placed in the peer's memory (siw on Debian's 6.1 completes first often
 * enough for a compare to see old bytes).  A READ on the same QP is
 * answered only after the peer has processed everything sent before it,
 * so its completion means the WRITE has landed: iWARP's READ-after-WRITE
 * flush, here one byte through the engine (an iWARP READ needs an MR),
 * from a bvec with @bvec.  InfiniBand and RoCE complete a WRITE only once
 * the peer acknowledged it.
 */
static inline int rwx_rw_fence(struct kunit *test, bool bvec)
{
	struct rwx_rw_fixture *fx = test->priv;
	struct rwx_rw_list l = { .nents = 1 };
	struct scatterlist sg;
	struct bio_vec bv;
	u8 *probe;
	int ret;

	if (!rdma_protocol_iwarp(fx->conn.device, rwx_port(test)))
		return 0;
	probe = kunit_kzalloc(test, SMP_CACHE_BYTES, GFP_KERNEL);
	if (!probe)
		return -ENOMEM;
	if (bvec) {
		rwx_bvec_set(&bv, probe, 1);
		l.bvecs = &bv;
		l.iter.bi_size = 1;
	} else {
		sg_init_one(&sg, probe, 1);
		l.sgl = &sg;
	}
	ret = rwx_rw_run(test, &l, DMA_FROM_DEVICE);
	return ret < 0 ? ret : 0;
}

/*
 * The fixture's list (rwx_rw_list_of()) moved by one context, then fenced
 * on iWARP; no MR may stay taken.  Returns init's WR count or an error.
 */
static inline int rwx_rw_move(struct kunit *test, bool bvec, u32 offset,
			      enum dma_data_direction dir)
{
	struct rwx_rw_list l = rwx_rw_list_of(test->priv, bvec, offset);
	int ret;

	ret = rwx_rw_run(test, &l, dir);
	if (ret > 0 && dir == DMA_TO_DEVICE) {
		int fenced = rwx_rw_fence(test, bvec);

		if (fenced)
			ret = fenced;
	}
	if (ret != -ETIMEDOUT)
		KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
	return ret;
}

/*
 * NVMe-oF's response SEND, appended to a WRITE chain through chain_wr,
 * and the receive the server posted for it.
 */
struct rwx_rw_send {
	struct rwx_loopback_wait *send_wait, *recv_wait;
	u8 *msg, *inbox;
	u64 msg_dma, inbox_dma;
	struct ib_sge send_sge, recv_sge;
	struct ib_send_wr send;
	struct ib_recv_wr recv;
};

/* The message, mapped, and the server's receive for it posted. */
static inline void rwx_rw_send_prepare(struct kunit *test,
				       struct rwx_rw_send *snd)
{
	struct rwx_rw_fixture *fx = test->priv;
	struct ib_device *dev = fx->conn.device;

	memset(snd, 0, sizeof(*snd));
	snd->send_wait = kunit_kzalloc(test, sizeof(*snd->send_wait),
				       GFP_KERNEL);
	snd->recv_wait = kunit_kzalloc(test, sizeof(*snd->recv_wait),
				       GFP_KERNEL);
	snd->msg = kunit_kzalloc(test, 64, GFP_KERNEL);
	snd->inbox = kunit_kzalloc(test, 64, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, snd->send_wait && snd->recv_wait && snd->msg &&
			  snd->inbox);
	strscpy(snd->msg, "nvme completion", 64);
	snd->msg_dma = ib_dma_map_single(dev, snd->msg, 64, DMA_TO_DEVICE);
	snd->inbox_dma = ib_dma_map_single(dev, snd->inbox, 64,
					   DMA_FROM_DEVICE);
	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(dev, snd->msg_dma) ||
			   ib_dma_mapping_error(dev, snd->inbox_dma));

	rwx_loopback_wait_init(snd->recv_wait);
	snd->recv_sge = (struct ib_sge){ snd->inbox_dma, 64,
					 fx->conn.pd->local_dma_lkey };
	snd->recv.wr_cqe = &snd->recv_wait->cqe;
	snd->recv.sg_list = &snd->recv_sge;
	snd->recv.num_sge = 1;
	KUNIT_ASSERT_EQ(test, ib_post_recv(fx->conn.qp[RWX_SERVER], &snd->recv,
					   NULL), 0);
}

/*
 * The chain of @rw, a WRITE context of @nr_wrs WRs, with the SEND
 * appended: nr_wrs unsignaled WRs (WRITEs, and REG_MR / LOCAL_INV on the
 * MR path), then the SEND; one post, and only the SEND completes.
 */
static inline void rwx_rw_send_chain(struct kunit *test,
				     struct rwx_rw_send *snd,
				     struct rdma_rw_ctx *rw, int nr_wrs)
{
	struct rwx_rw_fixture *fx = test->priv;
	struct ib_send_wr *first, *wr;
	int n;

	rwx_loopback_wait_init(snd->send_wait);
	snd->send_sge = (struct ib_sge){ snd->msg_dma, 16,
					 fx->conn.pd->local_dma_lkey };
	snd->send.opcode = IB_WR_SEND;
	snd->send.wr_cqe = &snd->send_wait->cqe;
	snd->send.send_flags = IB_SEND_SIGNALED;
	snd->send.sg_list = &snd->send_sge;
	snd->send.num_sge = 1;
	first = rdma_rwx_ctx_wrs(rw, rwx_qp(test), rwx_port(test), NULL,
				 &snd->send);
	KUNIT_ASSERT_NOT_NULL(test, first);
	for (wr = first, n = 0; wr && wr != &snd->send; wr = wr->next, n++) {
		KUNIT_EXPECT_TRUE(test, wr->opcode == IB_WR_RDMA_WRITE ||
				  wr->opcode == IB_WR_REG_MR ||
				  wr->opcode == IB_WR_LOCAL_INV);
		KUNIT_EXPECT_FALSE(test, wr->send_flags & IB_SEND_SIGNALED);
	}
	KUNIT_ASSERT_PTR_EQ(test, wr, &snd->send);
	KUNIT_EXPECT_EQ(test, n, nr_wrs);
	KUNIT_ASSERT_EQ(test, ib_post_send(rwx_qp(test), first, NULL), 0);
	KUNIT_EXPECT_EQ(test, rwx_loopback_wait_for(snd->send_wait), 0);
	KUNIT_EXPECT_EQ(test, snd->send_wait->opcode, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, rwx_loopback_wait_for(snd->recv_wait), 0);
}

/* The message arrived; its mappings go. */
static inline void rwx_rw_send_finish(struct kunit *test,
				      struct rwx_rw_send *snd)
{
	struct rwx_rw_fixture *fx = test->priv;

	KUNIT_EXPECT_STREQ(test, (char *)snd->inbox, "nvme completion");
	ib_dma_unmap_single(fx->conn.device, snd->msg_dma, 64, DMA_TO_DEVICE);
	ib_dma_unmap_single(fx->conn.device, snd->inbox_dma, 64,
			    DMA_FROM_DEVICE);
}

/* A READ of the fixture's list fails with @err on the MR path only. */
static inline void rwx_rw_expect_refused(struct kunit *test, bool bvec,
					 bool mr, int err)
{
	int ret = rwx_rw_move(test, bvec, 0, DMA_FROM_DEVICE);

	if (mr)
		KUNIT_EXPECT_EQ(test, ret, err);
	else
		KUNIT_EXPECT_GT(test, ret, 0);
}

/*
 * A test device mapping an MR of a READ of the fixture's list (@len
 * bytes) short: the engine then maps the span rdma_rwx_next_mr_span()
 * walks out instead, and the data still moves.  Short, and that mapping
 * refused: -EINVAL.  Only the MR path (@mr) maps MRs.
 */
static inline void rwx_rw_map_short(struct kunit *test, bool bvec, bool mr,
				    size_t len)
{
	struct rwx_rw_fixture *fx = test->priv;
	int ret;

	rwx_rw_random(page_address(fx->remote), len);
	rwx_rw_fill_local(fx, false);
	rwx_testdev_inject(fx->tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 1);
	ret = rwx_rw_move(test, bvec, 0, DMA_FROM_DEVICE);
	KUNIT_EXPECT_GT(test, ret, 0);
	if (ret > 0)
		KUNIT_EXPECT_EQ(test, rwx_rw_matching(fx, 0, len), len);
	KUNIT_EXPECT_EQ(test, rwx_testdev_fault_fired(fx->tdev,
						      RWX_TESTDEV_FAULT_MAP_SHORT),
			mr);

	/* Short, then refused when mapped again. */
	rwx_testdev_inject(fx->tdev, RWX_TESTDEV_FAULT_MAP_SHORT, 1);
	rwx_testdev_inject(fx->tdev, RWX_TESTDEV_FAULT_MAP_FAIL, 2);
	rwx_rw_expect_refused(test, bvec, mr, -EINVAL);
	KUNIT_EXPECT_EQ(test, rwx_testdev_fault_fired(fx->tdev,
						      RWX_TESTDEV_FAULT_MAP_FAIL),
			mr);
}

/*
 * The device refusing an MR's mapping at once (@fault): a READ of the
 * fixture's list fails with @err on the MR path only, and nothing stays
 * taken from the pool.
 */
static inline void rwx_rw_map_refused(struct kunit *test, bool bvec, bool mr,
				      enum rwx_testdev_fault fault, int err)
{
	struct rwx_rw_fixture *fx = test->priv;

	rwx_testdev_inject(fx->tdev, fault, 1);
	rwx_rw_expect_refused(test, bvec, mr, err);
	KUNIT_EXPECT_EQ(test, rwx_testdev_fault_fired(fx->tdev, fault), mr);
	rwx_testdev_inject(fx->tdev, fault, 0);
	KUNIT_EXPECT_EQ(test, rwx_qp(test)->mrs_used, 0);
}

/*
 * On a device that only prefers MRs (max_sgl_rd, neither iWARP nor
 * force_mr), a READ of the fixture's list (@len bytes, more entries than
 * max_sgl_rd) whose MR the device refuses (-EINVAL) or cannot map
 * (-ENOMEM): the engine falls back to the SGE path, counts it, and the
 * data still moves.
 */
static inline void rwx_rw_mr_fallback(struct kunit *test, bool bvec,
				      size_t len)
{
	static const enum rwx_testdev_fault faults[] = {
		RWX_TESTDEV_FAULT_MAP_FAIL, RWX_TESTDEV_FAULT_MAP_NOMEM,
	};
	struct rwx_rw_fixture *fx = test->priv;
	struct ib_device *dev = fx->conn.device;
	u64 before;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(faults); i++) {
		rwx_rw_random(page_address(fx->remote), len);
		rwx_rw_fill_local(fx, false);
		before = rdma_rwx_dev_counter(dev, RWX_CNT_SGE_FALLBACK);
		rwx_testdev_inject(fx->tdev, faults[i], 1);
		ret = rwx_rw_move(test, bvec, 0, DMA_FROM_DEVICE);
		KUNIT_EXPECT_TRUE_MSG(test, rwx_testdev_fault_fired(fx->tdev,
								    faults[i]),
				      "fault %d", faults[i]);
		rwx_testdev_inject(fx->tdev, faults[i], 0);
		KUNIT_EXPECT_GT_MSG(test, ret, 0, "fault %d", faults[i]);
		if (ret > 0)
			KUNIT_EXPECT_EQ(test, rwx_rw_matching(fx, 0, len), len);
		KUNIT_EXPECT_EQ(test,
				rdma_rwx_dev_counter(dev, RWX_CNT_SGE_FALLBACK),
				before + 1);
	}
}

#ifdef CONFIG_FAULT_INJECTION
/* The cases that fail calls through the task's fail_nth: nothing to skip. */
static inline void rwx_rw_need_fail_nth(struct kunit *test)
{
}

/*
 * Every fault-injectable call of an init of the fixture's list
 * (rwx_rw_list_of()), in each direction, failed in turn up to the
 * @max-th: the task's fail_nth fails its n-th such call (the guest sets
 * failslab to fail sleeping allocations), this CPU's buffer cache emptied
 * first so that small contexts allocate too.  Some of those calls are
 * kmemleak's metadata, whose failure kmemleak absorbs, so a context may
 * still be built; the walk ends when the n-th call comes after the last
 * one.  Each -ENOMEM must leave no MR taken (with @dead: and the context
 * dead).  Messages name shape @shape.  Returns how many calls were
 * failed.
 */
static inline u32 rwx_rw_fail_each(struct kunit *test, bool bvec, u32 offset,
				   u32 max, bool dead, u32 shape)
{
	struct rwx_rw_list l = rwx_rw_list_of(test->priv, bvec, offset);
	struct ib_qp *qp = rwx_qp(test);
	u32 d, n, left = 0, failed, injected = 0;
	struct rdma_rw_ctx rw;
	int ret;

	for (d = 0; d < 2; d++) {
		enum dma_data_direction dir = d ? DMA_FROM_DEVICE : DMA_TO_DEVICE;

		migrate_disable();
		for (n = 1, failed = 0; n <= max; n++) {
			rdma_rwx_buf_cache_empty_local();
			current->fail_nth = n;
			ret = rwx_rw_init(test, &rw, &l, dir);
			left = current->fail_nth;
			current->fail_nth = 0;
			if (ret == -ENOMEM) {
				KUNIT_EXPECT_EQ_MSG(test, qp->mrs_used, 0,
						    "shape %u dir %u: MRs kept after failure %u",
						    shape, d, n);
				if (dead)
					KUNIT_EXPECT_EQ(test, rw.type,
							RDMA_RWX_CTX_DEAD);
				failed++;
				continue;
			}
			KUNIT_EXPECT_GT_MSG(test, ret, 0,
					    "shape %u dir %u, call %u failed",
					    shape, d, n);
			if (ret <= 0)
				break;
			rwx_rw_destroy(test, &rw, &l, dir);
			KUNIT_EXPECT_EQ(test, qp->mrs_used, 0);
			if (left)	/* nothing was failed: all done */
				break;
		}
		migrate_enable();
		KUNIT_EXPECT_NE_MSG(test, left, 0U,
				    "shape %u dir %u: calls left after %u",
				    shape, d, n);
		KUNIT_EXPECT_GT_MSG(test, failed, 0U,
				    "shape %u dir %u: nothing failed", shape, d);
		injected += failed;
	}
	return injected;
}
#else
static inline void rwx_rw_need_fail_nth(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_FAULT_INJECTION");
}

static inline u32 rwx_rw_fail_each(struct kunit *test, bool bvec, u32 offset,
				   u32 max, bool dead, u32 shape)
{
	return 0;
}
#endif

/*
 * A KUnit resource rather than kunit_add_action(), which 6.1 lacks: the
 * device's max_sgl_rd goes back to 0 however the test ends.
 */
static inline int rwx_rw_sgl_rd_hold(struct kunit_resource *res, void *dev)
{
	res->data = dev;
	return 0;
}

static inline void rwx_rw_restore_sgl_rd(struct kunit_resource *res)
{
	struct ib_device *dev = res->data;

	dev->attrs.max_sgl_rd = 0;
}

/*
 * The device prefers MRs for READs of more than @n entries (no soft device
 * does) for the rest of the test.
 */
static inline void rwx_rw_set_sgl_rd(struct kunit *test,
				     struct ib_device *dev, u32 n)
{
	KUNIT_ASSERT_EQ(test, dev->attrs.max_sgl_rd, 0U);
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, rwx_rw_sgl_rd_hold,
							 rwx_rw_restore_sgl_rd,
							 GFP_KERNEL, dev));
	dev->attrs.max_sgl_rd = n;
}

#endif /* _RWX_RW_FIXTURE_H */
