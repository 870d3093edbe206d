// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RDMA READ/WRITE context: one local iovec against one contiguous remote
 * range, as a chain of READ or WRITE WRs posted with one ibv_post_send().
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

int rwx_rw_layout(uint32_t max_sge, uint32_t nents, const uint64_t *lens,
		  struct rwx_rw_span *spans, uint32_t max_spans)
{
	uint64_t nwr, off = 0;
	uint32_t i, j;

	if (!max_sge || !nents) {
		errno = EINVAL;
		return -1;
	}
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
	for (i = 0; i < nwr; i++) {
		struct rwx_rw_span *s = &spans[i];

		memset(s, 0, sizeof(*s));
		s->first_sge = i * max_sge;
		s->nsge = nents - s->first_sge < max_sge ?
			  nents - s->first_sge : max_sge;
		s->remote_off = off;
		for (j = 0; lens && j < s->nsge; j++)
			s->bytes += lens[s->first_sge + j];
		off += s->bytes;
	}
	return (int)nwr;
}

static struct ibv_mr *mr_of(struct ibv_mr **mrs, int nmrs, int i)
{
	return nmrs == 1 ? mrs[0] : mrs[i];
}

/*
 * Check every non-empty entry against its MR and count them and their
 * bytes.  Returns 0 or a positive errno.
 */
static int scan_iov(const struct iovec *iov, int iovcnt, struct ibv_mr **mrs,
		    int nmrs, uint32_t *nents, uint64_t *total)
{
	int i, ret;

	*nents = 0;
	*total = 0;
	for (i = 0; i < iovcnt; i++) {
		const struct ibv_mr *mr = mr_of(mrs, nmrs, i);

		if (!iov[i].iov_len)
			continue;
		if (!mr)
			return EINVAL;
		ret = rwxi_check_buf((uintptr_t)iov[i].iov_base,
				     iov[i].iov_len, 1, (uintptr_t)mr->addr,
				     mr->length, 0);
		if (ret)
			return ret;
		if (*total > UINT64_MAX - iov[i].iov_len)
			return EINVAL;
		*total += iov[i].iov_len;
		(*nents)++;
	}
	return *nents ? 0 : EINVAL;
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

/* Compact the non-empty entries into SGEs, remembering their lengths. */
static void fill_sges(struct ibv_sge *sges, uint64_t *lens,
		      const struct iovec *iov, int iovcnt,
		      struct ibv_mr **mrs, int nmrs)
{
	int i, k = 0;

	for (i = 0; i < iovcnt; i++) {
		if (!iov[i].iov_len)
			continue;
		sges[k].addr = (uint64_t)(uintptr_t)iov[i].iov_base;
		sges[k].length = (uint32_t)iov[i].iov_len;
		sges[k].lkey = mr_of(mrs, nmrs, i)->lkey;
		lens[k++] = iov[i].iov_len;
	}
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

static int build(struct rwx_rw_ctx *ctx, const struct iovec *iov, int iovcnt,
		 struct ibv_mr **mrs, int nmrs, uint32_t nents,
		 const struct rwxi_caps *caps, uint64_t remote_addr,
		 uint32_t rkey, enum rwx_rw_dir dir)
{
	uint32_t max_sge = rwxi_rw_max_sge(caps, dir);
	struct rwx_rw_span *spans = NULL;
	uint64_t *lens = NULL;
	int nwr = rwx_rw_layout(max_sge, nents, NULL, NULL, 0);

	if (nwr < 0)
		return errno;
	/* A chain the send queue cannot hold could never be posted whole. */
	if ((uint32_t)nwr > caps->max_send_wr)
		return ENOSPC;
	ctx->sges = calloc(nents, sizeof(*ctx->sges));
	ctx->wrs = calloc((size_t)nwr, sizeof(*ctx->wrs));
	lens = calloc(nents, sizeof(*lens));
	spans = calloc((size_t)nwr, sizeof(*spans));
	if (!ctx->sges || !ctx->wrs || !lens || !spans)
		goto nomem;
	fill_sges(ctx->sges, lens, iov, iovcnt, mrs, nmrs);
	if (rwx_rw_layout(max_sge, nents, lens, spans, (uint32_t)nwr) != nwr)
		goto nomem;	/* cannot happen: sized above */
	ctx->nr_wrs = nwr;
	ctx->nr_sges = (int)nents;
	fill_wrs(ctx, spans, remote_addr, rkey, dir);
	free(lens);
	free(spans);
	return 0;
nomem:
	free(lens);
	free(spans);
	free(ctx->sges);
	free(ctx->wrs);
	return ENOMEM;
}

/* build() on @caps, which must give the direction an SGE. */
static int build_on(struct rwx_rw_ctx *ctx, const struct iovec *iov,
		    int iovcnt, struct ibv_mr **mrs, int nmrs, uint32_t nents,
		    const struct rwxi_caps *caps, uint64_t remote_addr,
		    uint32_t rkey, enum rwx_rw_dir dir)
{
	if (!rwxi_rw_max_sge(caps, dir))
		return EINVAL;
	return build(ctx, iov, iovcnt, mrs, nmrs, nents, caps, remote_addr,
		     rkey, dir);
}

/*
 * Whether @ctx's chain, built on limits since found stale, still fits
 * @caps: EINVAL if a WR has more SGEs than the QP takes, ENOSPC if the
 * chain is longer than its send queue, else 0.
 */
static int chain_fits(const struct rwx_rw_ctx *ctx,
		      const struct rwxi_caps *caps)
{
	enum rwx_rw_dir dir = ctx->wrs[0].opcode == IBV_WR_RDMA_READ ?
			      RWX_RW_READ : RWX_RW_WRITE;
	uint32_t max_sge = rwxi_rw_max_sge(caps, dir);
	int i;

	for (i = 0; i < ctx->nr_wrs; i++)
		if ((uint32_t)ctx->wrs[i].num_sge > max_sge)
			return EINVAL;
	return (uint32_t)ctx->nr_wrs > caps->max_send_wr ? ENOSPC : 0;
}

int rwx_rw_ctx_init(struct rwx_rw_ctx *ctx, struct ibv_qp *qp,
		    const struct iovec *iov, int iovcnt, struct ibv_mr **mrs,
		    int nmrs, uint64_t remote_addr, uint32_t rkey,
		    enum rwx_rw_dir dir)
{
	struct rwxi_caps caps;
	uint32_t nents = 0;
	uint64_t total = 0;
	int ret;

	ret = check_args(ctx, qp, iov, iovcnt, mrs, nmrs, dir);
	if (!ret)
		ret = scan_iov(iov, iovcnt, mrs, nmrs, &nents, &total);
	/* The remote range must not wrap around the 64-bit space. */
	if (!ret && total - 1 > UINT64_MAX - remote_addr)
		ret = EINVAL;
	if (ret)
		return rdma_seterrno(ret);

	memset(ctx, 0, sizeof(*ctx));
	ctx->qp = qp;
	ctx->total_bytes = total;
	ret = rwxi_qp_caps(qp, &caps) ?:
	      build_on(ctx, iov, iovcnt, mrs, nmrs, nents, &caps, remote_addr,
		       rkey, dir);
	/* The cached limits are a hint (caps.c): a refusal is decided again. */
	if (ret == EINVAL || ret == ENOSPC)
		ret = rwxi_qp_caps_fresh(qp, &caps) ?:
		      build_on(ctx, iov, iovcnt, mrs, nmrs, nents, &caps,
			       remote_addr, rkey, dir);
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
