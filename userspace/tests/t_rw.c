// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rwx_rw_layout() exhaustively over small shapes, and the RW context. */
#include <stdint.h>
#include <stdlib.h>

#include "rwx_test.h"

static char area[4096] __attribute__((aligned(64)));

/* Every entry covered exactly once, in order, remote offsets abutting. */
static void layout_one(uint32_t max_sge, uint32_t nents, uint64_t *lens,
		       struct rwx_rw_span *spans)
{
	uint64_t off = 0;
	uint32_t i, next = 0, want;
	int n;

	want = (nents + max_sge - 1) / max_sge;
	n = rwx_rw_layout(max_sge, nents, NULL, NULL, 0);
	CHECK_EQ(n, want);
	n = rwx_rw_layout(max_sge, nents, lens, spans, want);
	CHECK_EQ(n, want);
	for (i = 0; i < want; i++) {
		uint64_t bytes = 0;
		uint32_t j;

		CHECK_EQ(spans[i].first_sge, next);
		CHECK(spans[i].nsge >= 1 && spans[i].nsge <= max_sge);
		/* all WRs but the last are full */
		if (i + 1 < want)
			CHECK_EQ(spans[i].nsge, max_sge);
		CHECK_EQ(spans[i].remote_off, off);
		for (j = 0; j < spans[i].nsge; j++)
			bytes += lens[spans[i].first_sge + j];
		CHECK_EQ(spans[i].bytes, bytes);
		next += spans[i].nsge;
		off += bytes;
	}
	CHECK_EQ(next, nents);
}

static void rw_layout_many_shapes(void)
{
	uint64_t lens[70];
	struct rwx_rw_span spans[70];
	uint32_t max_sge, nents, i;

	for (i = 0; i < 70; i++)
		lens[i] = 1 + (i * 37) % 4099;	/* uneven sizes */
	for (max_sge = 1; max_sge <= 33; max_sge++) {
		for (nents = 1; nents <= 70; nents++) {
			layout_one(max_sge, nents, lens, spans);
			if (t_failed_now())
				return;
		}
	}
}

static void rw_layout_edges(void)
{
	struct rwx_rw_span spans[3];

	CHECK_ERR(rwx_rw_layout(0, 5, NULL, NULL, 0), EINVAL);
	CHECK_ERR(rwx_rw_layout(4, 0, NULL, NULL, 0), EINVAL);
	CHECK_ERR(rwx_rw_layout(2, 7, NULL, spans, 3), ENOSPC);
	memset(spans, 0xa5, sizeof(spans));
	CHECK_EQ(rwx_rw_layout(2, 6, NULL, spans, 3), 3);
	CHECK_EQ(spans[2].first_sge, 4);
	CHECK_EQ(spans[2].bytes, 0);	/* no lengths given */
	CHECK_EQ(spans[2].comp_mask, 0);	/* nothing optional filled in */
	CHECK_EQ(spans[2].reserved, 0);
	CHECK_EQ(rwx_rw_layout(UINT32_MAX, UINT32_MAX, NULL, NULL, 0), 1);
	CHECK_EQ(rwx_rw_layout(1, 1u << 30, NULL, NULL, 0), 1 << 30);
	CHECK_ERR(rwx_rw_layout(1, UINT32_MAX, NULL, NULL, 0), EOVERFLOW);
}

/* iov[i] = area[i*100, i*100 + len_i) */
static void mk_iov(struct iovec *iov, int n, const size_t *lens)
{
	int i;

	for (i = 0; i < n; i++) {
		iov[i].iov_base = area + i * 100;
		iov[i].iov_len = lens[i];
	}
}

static void rw_ctx_write_split(void)
{
	size_t lens[7] = { 10, 20, 30, 40, 50, 60, 70 };
	struct iovec iov[7];
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;
	uint64_t off = 0;
	int i, n;

	fake_setup(3, 1, 1);	/* WRITE ignores max_sge_rd */
	mr = fake_mr(area, sizeof(area), 0x42);
	mk_iov(iov, 7, lens);
	memset(&ctx, 0xa5, sizeof(ctx));
	n = rwx_rw_ctx_init(&ctx, &F.qp, iov, 7, &mrs, 1, 0x10000, 0x99,
			    RWX_RW_WRITE);
	CHECK_EQ(n, 3);
	CHECK_EQ(ctx.total_bytes, 280);
	CHECK_EQ(ctx.comp_mask, 0);	/* nothing optional filled in */
	CHECK_EQ(ctx.reserved[3], 0);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 1234, NULL, NULL), 0);
	CHECK_EQ(F.post_calls, 1);
	CHECK_EQ(F.nposted, 3);
	for (i = 0; i < 3; i++) {
		struct fake_wr *w = &F.posted[i];
		int j;

		CHECK_EQ(w->wr.opcode, IBV_WR_RDMA_WRITE);
		CHECK_EQ(w->wr.wr.rdma.rkey, 0x99);
		CHECK_EQ(w->wr.wr.rdma.remote_addr, 0x10000 + off);
		CHECK_EQ(w->wr.send_flags, i == 2 ? IBV_SEND_SIGNALED : 0);
		for (j = 0; j < w->wr.num_sge; j++) {
			CHECK_EQ(w->sge[j].lkey, 0x42);
			off += w->sge[j].length;
		}
	}
	CHECK_EQ(F.posted[2].wr.wr_id, 1234);
	CHECK_EQ(F.posted[2].wr.num_sge, 1);
	CHECK_EQ(F.posted[2].sge[0].addr, (uintptr_t)(area + 600));
	CHECK_EQ(off, 280);
	rwx_rw_ctx_destroy(&ctx);
	CHECK(ctx.wrs == NULL && ctx.nr_wrs == 0);
}

static void rw_ctx_read_uses_max_sge_rd(void)
{
	size_t lens[5] = { 8, 8, 8, 8, 8 };
	struct iovec iov[5];
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;

	fake_setup(16, 1, 2);
	mr = fake_mr(area, sizeof(area), 1);
	mk_iov(iov, 5, lens);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 5, &mrs, 1, 0, 1,
				 RWX_RW_READ), 3);
	CHECK_EQ(ctx.wrs[0].opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(ctx.wrs[0].num_sge, 2);
	CHECK_EQ(ctx.wrs[2].num_sge, 1);
	CHECK_EQ(ctx.wrs[2].wr.rdma.remote_addr, 32);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 5, &mrs, 1, 0, 1,
				 RWX_RW_WRITE), 1);
	rwx_rw_ctx_destroy(&ctx);
}

static void rw_ctx_per_entry_mrs(void)
{
	size_t lens[3] = { 16, 16, 16 };
	struct ibv_mr m[3], *mrs[3] = { &m[0], &m[1], &m[2] };
	struct iovec iov[3];
	struct rwx_rw_ctx ctx;

	fake_setup(4, 1, 4);
	mk_iov(iov, 3, lens);
	m[0] = fake_mr(area, 100, 10);
	m[1] = fake_mr(area + 100, 100, 11);
	m[2] = fake_mr(area + 200, 100, 12);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, mrs, 3, 0, 1,
				 RWX_RW_WRITE), 1);
	CHECK_EQ(ctx.sges[1].lkey, 11);
	CHECK_EQ(ctx.sges[2].lkey, 12);
	rwx_rw_ctx_destroy(&ctx);
	/* entry 2 outside its own MR */
	m[2] = fake_mr(area + 210, 100, 12);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, mrs, 3, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	/* mrs count neither 1 nor iovcnt */
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, mrs, 2, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	mrs[1] = NULL;
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, mrs, 3, 0, 1,
				  RWX_RW_WRITE), EINVAL);
}

static void rw_ctx_zero_length_entries_skipped(void)
{
	size_t lens[5] = { 0, 16, 0, 16, 0 };
	struct ibv_mr m[5], *mrs[5] = { NULL, &m[1], NULL, &m[3], NULL };
	struct iovec iov[5];
	struct rwx_rw_ctx ctx;

	fake_setup(1, 1, 1);
	mk_iov(iov, 5, lens);
	m[1] = fake_mr(area + 100, 16, 1);
	m[3] = fake_mr(area + 300, 16, 3);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 5, mrs, 5, 0x5000, 1,
				 RWX_RW_WRITE), 2);
	CHECK_EQ(ctx.nr_sges, 2);
	CHECK_EQ(ctx.sges[0].addr, (uintptr_t)(area + 100));
	CHECK_EQ(ctx.sges[1].lkey, 3);
	CHECK_EQ(ctx.wrs[1].wr.rdma.remote_addr, 0x5010);
	rwx_rw_ctx_destroy(&ctx);
	/* nothing but zero-length entries: nothing to do, rejected */
	lens[1] = lens[3] = 0;
	mk_iov(iov, 5, lens);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 5, mrs, 5, 0, 1,
				  RWX_RW_WRITE), EINVAL);
}

static void rw_ctx_bad_args(void)
{
	size_t lens[1] = { 16 };
	struct ibv_mr mr, *mrs = &mr;
	struct iovec iov[1];
	struct rwx_rw_ctx ctx;

	fake_setup(4, 1, 4);
	mk_iov(iov, 1, lens);
	mr = fake_mr(area, 16, 1);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 0, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, NULL, 1, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_init(NULL, &F.qp, iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, NULL, iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, NULL, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1, 0, 1,
				  (enum rwx_rw_dir)3), EINVAL);
	/* remote range wrapping past 2^64 */
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1,
				  UINT64_MAX - 8, 1, RWX_RW_WRITE), EINVAL);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1,
				 UINT64_MAX - 15, 1, RWX_RW_WRITE), 1);
	rwx_rw_ctx_destroy(&ctx);
	/* buffer outside the single MR */
	iov[0].iov_len = 17;
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	/* READ on a UD QP */
	iov[0].iov_len = 16;
	F.qp.qp_type = IBV_QPT_UD;
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_READ), EINVAL);
	/* XRC_SEND: no remote SRQ number for the context's WRs */
	F.qp.qp_type = IBV_QPT_XRC_SEND;
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK_ERR(rwx_rw_ctx_post(NULL, 1, NULL, NULL), EINVAL);
	rwx_rw_ctx_destroy(NULL);	/* harmless */
	CHECK_EQ(F.post_calls, 0);
}

/*
 * No WR moves more than its port's max_msg_sz: entries are cut at WR
 * boundaries, and the WRs' bytes fill each WR to the limit.  The fake
 * provider fails a WR over the limit, as a device would.
 */
static void rw_ctx_split_at_max_msg_sz(void)
{
	struct rwxi_caps caps = { 4, 1, 4, FAKE_SEND_WR, FAKE_INLINE, 100, 0, 0 };
	size_t lens[3] = { 60, 250, 30 };
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;
	struct iovec iov[3];
	uint64_t want[4] = { 100, 100, 100, 40 };
	int i, n;

	fake_setup(4, 1, 4);
	fake_qp_caps(&F.qp, &caps, 1);
	mr = fake_mr(area, sizeof(area), 5);
	mk_iov(iov, 3, lens);
	n = rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0x8000, 9,
			    RWX_RW_WRITE);
	CHECK_EQ(n, 4);
	CHECK_EQ(ctx.nr_sges, 6);	/* 60+40 | 100 | 100 | 10+30 */
	for (i = 0; i < n; i++) {
		uint64_t bytes = 0;
		int j;

		for (j = 0; j < ctx.wrs[i].num_sge; j++)
			bytes += ctx.wrs[i].sg_list[j].length;
		CHECK_EQ(bytes, want[i]);
		CHECK_EQ(ctx.wrs[i].wr.rdma.remote_addr, 0x8000 + 100 * i);
	}
	CHECK_EQ(ctx.sges[1].addr, (uintptr_t)(area + 100));	/* entry 1 */
	CHECK_EQ(ctx.sges[1].length, 40);
	CHECK_EQ(ctx.sges[2].addr, (uintptr_t)(area + 140));
	CHECK_EQ(ctx.sges[4].addr, (uintptr_t)(area + 340));
	CHECK_EQ(ctx.sges[4].length, 10);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 7, NULL, NULL), 0);
	CHECK_EQ(F.nposted, 4);
	rwx_rw_ctx_destroy(&ctx);

	/*
	 * Built on cached limits with no message limit (a destroyed QP's),
	 * the one WR the provider fails is over the limit queried now:
	 * EINVAL; built again, it is split.
	 */
	caps.max_msg_sz = 0;
	rwxi_caps_seed(&F.qp, &caps);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0, 9,
				 RWX_RW_WRITE), 1);
	CHECK_ERR(rwx_rw_ctx_post(&ctx, 8, NULL, NULL), EINVAL);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0, 9,
				 RWX_RW_WRITE), 4);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(F.nposted, 4);
}

/*
 * An entry over 4 GiB is cut into SGEs of at most 4 GiB - 1 (an SGE's
 * length is 32 bits); a port's max_msg_sz cuts it into WRs too.  The
 * memory is never touched: the fake provider only records the SGEs.
 */
static void rw_ctx_entry_over_4g(void)
{
	uint64_t len = 3 * (uint64_t)UINT32_MAX + 5, sum = 0;
	struct rwxi_caps caps = { 8, 1, 8, FAKE_SEND_WR, FAKE_INLINE, 0, 0, 0 };
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;
	struct iovec iov;
	int i;

	if (sizeof(size_t) < 8)
		return;
	fake_setup(8, 1, 8);
	caps.max_msg_sz = UINT32_MAX;
	fake_qp_caps(&F.qp, &caps, 1);
	mr = fake_mr(area, SIZE_MAX / 2, 1);
	iov.iov_base = area;
	iov.iov_len = (size_t)len;
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, &iov, 1, &mrs, 1, 0, 1,
				 RWX_RW_READ), 4);
	CHECK_EQ(ctx.nr_sges, 4);
	for (i = 0; i < ctx.nr_sges; i++) {
		CHECK_EQ(ctx.sges[i].addr,
			 (uintptr_t)area + (uint64_t)UINT32_MAX * i);
		sum += ctx.sges[i].length;
	}
	CHECK_EQ(ctx.sges[3].length, 5);
	CHECK_EQ(sum, len);
	CHECK_EQ(ctx.wrs[3].wr.rdma.remote_addr, 3 * (uint64_t)UINT32_MAX);
	rwx_rw_ctx_destroy(&ctx);
	/*
	 * An entry far longer than the send queue's WRs can carry is
	 * refused (ENOSPC) without walking all of it: 2^46 bytes at 2^31 a
	 * WR would be 32768 WRs.
	 */
	caps.max_msg_sz = 1u << 31;
	fake_qp_caps(&F.qp, &caps, 1);
	iov.iov_len = (size_t)1 << 46;
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, &iov, 1, &mrs, 1, 0, 1,
				  RWX_RW_READ), ENOSPC);
	iov.iov_len = (size_t)len;
	/* With no message limit below 2^32 they share WRs: 1 WR, 4 SGEs. */
	caps.max_msg_sz = 0;
	fake_qp_caps(&F.qp, &caps, 1);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, &iov, 1, &mrs, 1, 0, 1,
				 RWX_RW_READ), 1);
	CHECK_EQ(ctx.wrs[0].num_sge, 4);
	rwx_rw_ctx_destroy(&ctx);
}

/* A chain longer than the send queue is deep is refused, nothing kept. */
static void rw_ctx_chain_over_send_queue(void)
{
	size_t lens[3] = { 10, 20, 30 };
	struct rwxi_caps caps = { 1, 1, 1, 2, FAKE_INLINE, FAKE_MSG, 0, 0 };  /* 1 SGE a WR, 2 WRs */
	struct iovec iov[3];
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;

	fake_setup(1, 1, 1);
	fake_qp_caps(&F.qp, &caps, 1);
	mr = fake_mr(area, sizeof(area), 0x42);
	mk_iov(iov, 3, lens);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0x10000, 0x99,
				  RWX_RW_WRITE), ENOSPC);
	CHECK(ctx.wrs == NULL && ctx.sges == NULL);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 2, &mrs, 1, 0x10000, 0x99,
				 RWX_RW_WRITE), 2);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(F.post_calls, 0);
}

static void rw_ctx_chain_carries_signal(void)
{
	size_t lens[2] = { 16, 16 };
	struct ibv_mr mr, *mrs = &mr;
	struct iovec iov[2];
	struct rwx_rw_ctx ctx;
	struct ibv_send_wr send;

	fake_setup(1, 1, 1);
	mk_iov(iov, 2, lens);
	mr = fake_mr(area, sizeof(area), 1);
	memset(&send, 0, sizeof(send));
	send.opcode = IBV_WR_SEND;
	send.send_flags = IBV_SEND_SIGNALED;
	send.wr_id = 555;
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 2, &mrs, 1, 0, 1,
				 RWX_RW_WRITE), 2);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 9, &send, NULL), 0);
	CHECK_EQ(F.nposted, 3);
	CHECK_EQ(F.posted[1].wr.send_flags, 0);
	CHECK_EQ(F.posted[2].wr.wr_id, 555);
	/* re-post without the chain: the last RW WR is signaled again */
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 10, NULL, NULL), 0);
	CHECK_EQ(F.nposted, 5);
	CHECK_EQ(F.posted[4].wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[4].wr.wr_id, 10);
	rwx_rw_ctx_destroy(&ctx);
}

/*
 * Stale limits (caps.c, t_post.c): a chain refused on the destroyed QP's
 * limits is built on the new QP's; one built on them and failed by the
 * provider is EINVAL.
 */
static void rw_ctx_stale_limits(void)
{
	size_t lens[3] = { 10, 20, 30 };
	struct rwxi_caps shallow = { 1, 1, 1, 2, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps deep = { 1, 1, 1, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps three = { 3, 3, 3, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct iovec iov[3];
	struct ibv_mr mr, *mrs = &mr;
	struct rwx_rw_ctx ctx;

	fake_setup(1, 1, 1);
	fake_qp_caps(&F.qp, &shallow, 1);
	mr = fake_mr(area, sizeof(area), 0x42);
	mk_iov(iov, 3, lens);
	fake_qp_caps(&F.qp, &deep, 0);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0x10000, 0x99,
				 RWX_RW_WRITE), 3);
	rwx_rw_ctx_destroy(&ctx);
	fake_qp_caps(&F.qp, &three, 1);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0x10000, 0x99,
				 RWX_RW_WRITE), 1);
	fake_qp_caps(&F.qp, &deep, 0);
	CHECK_ERR(rwx_rw_ctx_post(&ctx, 1, NULL, NULL), EINVAL);
	CHECK_EQ(F.nposted, 0);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 3, &mrs, 1, 0x10000, 0x99,
				 RWX_RW_WRITE), 3);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 1, NULL, NULL), 0);
	CHECK_EQ(F.nposted, 3);
	rwx_rw_ctx_destroy(&ctx);
}

/*
 * On a QP created with sq_sig_all every WR of a chain would complete, each
 * with the one wr_id: the context refuses it (EINVAL), and decides a
 * refusal again on the QP's limits queried afresh (a stale entry said so).
 */
static void rw_ctx_sq_sig_all_refused(void)
{
	size_t lens[2] = { 16, 16 };
	struct rwxi_caps all = { 1, 1, 1, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 1, 0 };
	struct rwxi_caps one = { 1, 1, 1, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_mr mr, *mrs = &mr;
	struct iovec iov[2];
	struct rwx_rw_ctx ctx;

	fake_setup(1, 1, 1);
	mk_iov(iov, 2, lens);
	mr = fake_mr(area, sizeof(area), 1);
	fake_qp_caps(&F.qp, &all, 1);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 2, &mrs, 1, 0, 1,
				  RWX_RW_WRITE), EINVAL);
	CHECK(ctx.wrs == NULL && ctx.sges == NULL);
	CHECK_ERR(rwx_rw_ctx_init(&ctx, &F.qp, iov, 2, &mrs, 1, 0, 1,
				  RWX_RW_READ), EINVAL);
	fake_qp_caps(&F.qp, &all, 1);
	fake_qp_caps(&F.qp, &one, 0);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, iov, 2, &mrs, 1, 0, 1,
				 RWX_RW_WRITE), 2);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 3, NULL, NULL), 0);
	CHECK_EQ(F.nposted, 2);
	CHECK_EQ(F.posted[0].wr.send_flags, 0);
	CHECK_EQ(F.posted[1].wr.send_flags, IBV_SEND_SIGNALED);
	rwx_rw_ctx_destroy(&ctx);
	CHECK_EQ(F.post_calls, 1);
}

void suite_rw(void)
{
	RUN(rw_layout_many_shapes);
	RUN(rw_layout_edges);
	RUN(rw_ctx_write_split);
	RUN(rw_ctx_read_uses_max_sge_rd);
	RUN(rw_ctx_per_entry_mrs);
	RUN(rw_ctx_zero_length_entries_skipped);
	RUN(rw_ctx_bad_args);
	RUN(rw_ctx_split_at_max_msg_sz);
	RUN(rw_ctx_entry_over_4g);
	RUN(rw_ctx_chain_over_send_queue);
	RUN(rw_ctx_stale_limits);
	RUN(rw_ctx_chain_carries_signal);
	RUN(rw_ctx_sq_sig_all_refused);
}
