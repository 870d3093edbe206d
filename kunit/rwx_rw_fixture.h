/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the suites that move data through the engine share: the WR chain
 * recorder of rwx_diff_kunit and rwx_bvec_kunit (a chain reduced to what
 * two builders of it must agree on, and two such records compared WR for
 * WR).
 */
#ifndef _RWX_RW_FIXTURE_H
#define _RWX_RW_FIXTURE_H

#include <kunit/test.h>
#include <linux/overflow.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

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

#endif /* _RWX_RW_FIXTURE_H */
