// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RDMA READ/WRITE context: one local iovec against one contiguous remote
 * range, as a chain of READ or WRITE WRs posted with one ibv_post_send().
 * No WR carries more SGEs than the QP (and for READs the device) takes,
 * nor more bytes than its port's max_msg_sz.
 *
 * Zero-length iovec entries are skipped (they move no data and need no
 * MR); an iovec with no data at all is rejected with EINVAL, as is an
 * empty one.  Only the last WR is signaled, so one completion reports the
 * whole transfer (a QP orders the WRs of its send queue).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rwx_internal.h"

/*
 * The planner: entries in order, each cut into SGEs of at most max_piece
 * bytes, packed into WRs of at most max_sge SGEs and max_wr_bytes bytes
 * (a limit of 0: none), consecutive in the remote range.  With spans or
 * sges NULL it only counts.  rwx_rw_layout() walks it with no byte limits
 * (an SGE an entry); the context with the SGE's 32-bit length and the
 * port's max_msg_sz.
 */
struct walk {
	uint32_t max_sge;
	uint64_t max_wr_bytes;
	uint64_t max_piece;
	uint64_t max_wrs;	/* a walk past it stops there (0: none) */
	struct rwx_rw_span *spans;
	struct ibv_sge *sges;
	uint64_t nsge, nwr;	/* so far */
	uint64_t off;		/* remote offset of the next byte */
	uint32_t wr_sges;	/* the open WR's SGEs and bytes */
	uint64_t wr_bytes;
};

/* Open a WR unless the open one has room for another SGE. */
static void walk_open(struct walk *w)
{
	if (w->nwr && w->wr_sges < w->max_sge &&
	    (!w->max_wr_bytes || w->wr_bytes < w->max_wr_bytes))
		return;
	if (w->spans) {
		struct rwx_rw_span *s = &w->spans[w->nwr];

		memset(s, 0, sizeof(*s));
		s->first_sge = (uint32_t)w->nsge;
		s->remote_off = w->off;
	}
	w->nwr++;
	w->wr_sges = 0;
	w->wr_bytes = 0;
}

/*
 * One entry of @len bytes at @addr: the SGEs the limits cut it into, or
 * as many as fit before the walk passes max_wrs (an entry an MR covers
 * may be huge: an implicit ODP MR covers everything).
 */
static void walk_entry(struct walk *w, uint64_t addr, uint64_t len,
		       uint32_t lkey)
{
	do {
		uint64_t n = len;

		walk_open(w);
		if (w->max_wrs && w->nwr > w->max_wrs)
			return;
		if (w->max_piece && n > w->max_piece)
			n = w->max_piece;
		if (w->max_wr_bytes && n > w->max_wr_bytes - w->wr_bytes)
			n = w->max_wr_bytes - w->wr_bytes;
		if (w->sges)
			w->sges[w->nsge] = (struct ibv_sge){
				.addr = addr, .length = (uint32_t)n,
				.lkey = lkey };
		if (w->spans) {
			w->spans[w->nwr - 1].nsge++;
			w->spans[w->nwr - 1].bytes += n;
		}
		w->nsge++;
		w->wr_sges++;
		w->wr_bytes += n;
		w->off += n;
		addr += n;
		len -= n;
	} while (len);
}

int rwx_rw_layout(uint32_t max_sge, uint32_t nents, const uint64_t *lens,
		  struct rwx_rw_span *spans, uint32_t max_spans)
{
	struct walk w = { .max_sge = max_sge, .spans = spans };
	uint64_t nwr;
	uint32_t i;

	if (!max_sge || !nents) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * The walk's count in closed form: with no byte limit nothing is
	 * cut, and every WR but the last is full.
	 */
	nwr = ((uint64_t)nents + max_sge - 1) / max_sge;
	if (nwr > INT_MAX) {	/* the count is returned as an int */
		errno = EOVERFLOW;
		return -1;
	}
	if (!spans)
		return (int)nwr;
	if (nwr > max_spans) {
		errno = ENOSPC;
		return -1;
	}
	for (i = 0; i < nents; i++)
		walk_entry(&w, 0, lens ? lens[i] : 0, 0);
	return (int)nwr;
}

static struct ibv_mr *mr_of(struct ibv_mr **mrs, int nmrs, int i)
{
	return nmrs == 1 ? mrs[0] : mrs[i];
}

/*
 * Check every non-empty entry against its MR (an entry may be longer than
 * an SGE can describe: the walk cuts it) and sum their bytes.  Returns 0
 * or a positive errno.
 */
static int scan_iov(const struct iovec *iov, int iovcnt, struct ibv_mr **mrs,
		    int nmrs, uint64_t *total)
{
	int i, ret;

	*total = 0;
	for (i = 0; i < iovcnt; i++) {
		const struct ibv_mr *mr = mr_of(mrs, nmrs, i);

		if (!iov[i].iov_len)
			continue;
		if (!mr)
			return EINVAL;
		ret = rwxi_check_range((uintptr_t)iov[i].iov_base,
				       iov[i].iov_len, (uintptr_t)mr->addr,
				       mr->length);
		if (ret)
			return ret;
		if (*total > UINT64_MAX - iov[i].iov_len)
			return EINVAL;
		*total += iov[i].iov_len;
	}
	return *total ? 0 : EINVAL;
}

static int check_args(const struct rwx_rw_ctx *ctx, const struct ibv_qp *qp,
		      const struct iovec *iov, int iovcnt,
		      struct ibv_mr **mrs, int nmrs, enum rwx_rw_dir dir)
{
	if (!ctx || !qp || !iov || iovcnt <= 0 || !mrs)
		return EINVAL;
	if (nmrs != 1 && nmrs != iovcnt)
		return EINVAL;
	return rwxi_check_rw_qp(qp->qp_type, dir);
}

/* The walk over @iov's non-empty entries. */
static void walk_iov(struct walk *w, const struct iovec *iov, int iovcnt,
		     struct ibv_mr **mrs, int nmrs)
{
	int i;

	for (i = 0; i < iovcnt && !(w->max_wrs && w->nwr > w->max_wrs); i++)
		if (iov[i].iov_len)
			walk_entry(w, (uintptr_t)iov[i].iov_base,
				   iov[i].iov_len, mr_of(mrs, nmrs, i)->lkey);
}

static void fill_wrs(struct rwx_rw_ctx *ctx, const struct rwx_rw_span *spans,
		     uint64_t remote_addr, uint32_t rkey, enum rwx_rw_dir dir)
{
	int i;

	for (i = 0; i < ctx->nr_wrs; i++) {
		struct ibv_send_wr *wr = &ctx->wrs[i];

		memset(wr, 0, sizeof(*wr));
		wr->opcode = dir == RWX_RW_READ ? IBV_WR_RDMA_READ :
						  IBV_WR_RDMA_WRITE;
		wr->sg_list = &ctx->sges[spans[i].first_sge];
		wr->num_sge = (int)spans[i].nsge;
		wr->wr.rdma.remote_addr = remote_addr + spans[i].remote_off;
		wr->wr.rdma.rkey = rkey;
		wr->next = i + 1 < ctx->nr_wrs ? &ctx->wrs[i + 1] : NULL;
	}
}

/*
 * The chain: WRs of at most the direction's SGE limit and the port's
 * max_msg_sz bytes, SGEs of at most 4 GiB - 1 (counted by one walk, then
 * built by a second).
 */
static int build(struct rwx_rw_ctx *ctx, const struct iovec *iov, int iovcnt,
		 struct ibv_mr **mrs, int nmrs, const struct rwxi_caps *caps,
		 uint64_t remote_addr, uint32_t rkey, enum rwx_rw_dir dir)
{
	/* A chain the send queue cannot hold could never be posted whole. */
	const struct walk limits = {
		.max_sge = rwxi_rw_max_sge(caps, dir),
		.max_wr_bytes = caps->max_msg_sz,
		.max_piece = UINT32_MAX,
		.max_wrs = caps->max_send_wr,
	};
	struct rwx_rw_span *spans;
	struct walk w = limits;

	walk_iov(&w, iov, iovcnt, mrs, nmrs);
	if (w.nwr > caps->max_send_wr)
		return ENOSPC;
	if (w.nwr > INT_MAX || w.nsge > INT_MAX)
		return EOVERFLOW;
	ctx->sges = calloc(w.nsge, sizeof(*ctx->sges));
	ctx->wrs = calloc(w.nwr, sizeof(*ctx->wrs));
	spans = calloc(w.nwr, sizeof(*spans));
	if (!ctx->sges || !ctx->wrs || !spans) {
		free(spans);
		free(ctx->sges);
		free(ctx->wrs);
		return ENOMEM;
	}
	w = limits;
	w.sges = ctx->sges;
	w.spans = spans;
	walk_iov(&w, iov, iovcnt, mrs, nmrs);
	ctx->nr_wrs = (int)w.nwr;
	ctx->nr_sges = (int)w.nsge;
	fill_wrs(ctx, spans, remote_addr, rkey, dir);
	free(spans);
	return 0;
}

/*
 * build() on @caps, which must give the direction an SGE and must not
 * signal every WR: on a QP created with sq_sig_all each WR of the chain
 * would complete, all with one wr_id, where the context promises one
 * completion.
 */
static int build_on(struct rwx_rw_ctx *ctx, const struct iovec *iov,
		    int iovcnt, struct ibv_mr **mrs, int nmrs,
		    const struct rwxi_caps *caps, uint64_t remote_addr,
		    uint32_t rkey, enum rwx_rw_dir dir)
{
	if (!rwxi_rw_max_sge(caps, dir) || caps->sq_sig_all)
		return EINVAL;
	return build(ctx, iov, iovcnt, mrs, nmrs, caps, remote_addr, rkey,
		     dir);
}

/*
 * Whether @ctx's chain, built on limits since found stale, still fits
 * @caps: EINVAL if a WR has more SGEs than the QP takes or more bytes
 * than its port's max_msg_sz, ENOSPC if the chain is longer than its send
 * queue, else 0.
 */
static int chain_fits(const struct rwx_rw_ctx *ctx,
		      const struct rwxi_caps *caps)
{
	enum rwx_rw_dir dir = ctx->wrs[0].opcode == IBV_WR_RDMA_READ ?
			      RWX_RW_READ : RWX_RW_WRITE;
	uint32_t max_sge = rwxi_rw_max_sge(caps, dir);
	int i, j;

	for (i = 0; i < ctx->nr_wrs; i++) {
		const struct ibv_send_wr *wr = &ctx->wrs[i];
		uint64_t bytes = 0;

		if ((uint32_t)wr->num_sge > max_sge)
			return EINVAL;
		for (j = 0; j < wr->num_sge; j++)
			bytes += wr->sg_list[j].length;
		if (caps->max_msg_sz && bytes > caps->max_msg_sz)
			return EINVAL;
	}
	return (uint32_t)ctx->nr_wrs > caps->max_send_wr ? ENOSPC : 0;
}

int rwx_rw_ctx_init(struct rwx_rw_ctx *ctx, struct ibv_qp *qp,
		    const struct iovec *iov, int iovcnt, struct ibv_mr **mrs,
		    int nmrs, uint64_t remote_addr, uint32_t rkey,
		    enum rwx_rw_dir dir)
{
	struct rwxi_caps caps;
	uint64_t total = 0;
	int ret;

	ret = check_args(ctx, qp, iov, iovcnt, mrs, nmrs, dir);
	if (!ret)
		ret = scan_iov(iov, iovcnt, mrs, nmrs, &total);
	/* The remote range must not wrap around the 64-bit space. */
	if (!ret && total - 1 > UINT64_MAX - remote_addr)
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);

	memset(ctx, 0, sizeof(*ctx));
	ctx->qp = qp;
	ctx->total_bytes = total;
	ret = rwxi_qp_caps(qp, &caps) ?:
	      build_on(ctx, iov, iovcnt, mrs, nmrs, &caps, remote_addr, rkey,
		       dir);
	/* The cached limits are a hint (caps.c): a refusal is decided again. */
	if (ret == EINVAL || ret == ENOSPC)
		ret = rwxi_qp_caps_fresh(qp, &caps) ?:
		      build_on(ctx, iov, iovcnt, mrs, nmrs, &caps, remote_addr,
			       rkey, dir);
	if (ret) {
		memset(ctx, 0, sizeof(*ctx));
		return rdma_seterrno(ret);
	}
	return ctx->nr_wrs;
}

/*
 * The flags are rewritten on every post so that a context can be posted
 * again (with another wr_id or chain) after its previous completion.
 */
int rwx_rw_ctx_post(struct rwx_rw_ctx *ctx, uint64_t wr_id,
		    struct ibv_send_wr *chain_wr, struct ibv_send_wr **bad_wr)
{
	struct ibv_send_wr *last, *bad = NULL;
	int i, ret;

	if (bad_wr)
		*bad_wr = NULL;
	if (!ctx || !ctx->qp || ctx->nr_wrs <= 0 || !ctx->wrs)
		return rdma_seterrno(EINVAL);
	for (i = 0; i < ctx->nr_wrs; i++) {
		ctx->wrs[i].wr_id = wr_id;
		ctx->wrs[i].send_flags = 0;
	}
	last = &ctx->wrs[ctx->nr_wrs - 1];
	/* With a chained WR, that WR carries the completion instead. */
	last->next = chain_wr;
	if (!chain_wr)
		last->send_flags = IBV_SEND_SIGNALED;
	ret = ibv_post_send(ctx->qp, ctx->wrs, &bad);
	/* A chain the QP's limits queried now refuse: built on stale ones. */
	if (ret) {
		struct rwxi_caps caps;

		if (!rwxi_qp_caps_fresh(ctx->qp, &caps))
			ret = chain_fits(ctx, &caps) ?: ret;
		if (bad_wr)
			*bad_wr = bad;
	}
	return rdma_seterrno(ret);
}

void rwx_rw_ctx_destroy(struct rwx_rw_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->wrs);
	free(ctx->sges);
	memset(ctx, 0, sizeof(*ctx));
}
