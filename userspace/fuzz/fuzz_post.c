// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: the public post functions through the fake provider
 * (tests/fake.c), driven by a script the input encodes: each step picks a
 * call (the rdma_post_* family, the rwx_ extensions, receive and send
 * lists, an RW context's init, post and destroy) and its arguments
 * (lengths, offsets, SGE counts, flags), or changes the QP's limits with
 * or without the library's cache knowing (a destroyed and re-created
 * QP), on a QP posted to through ibv_post_send() or through ibv_wr_*
 * builders (which a re-created QP may lack).  ASan/UBSan watch the library; a call must return 0, or -1 with a
 * documented errno; an RW context built on the QP's own limits respects
 * them (WRs, SGEs, bytes a WR), covers its iovec exactly, and posts;
 * everything is freed (LeakSanitizer).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/rwx_test.h"

#define STEPS 16
#define NSGE 8

static char buf[4096] __attribute__((aligned(64)));

struct step {
	uint8_t call, nsge, flags, cached;
	uint16_t off, mr_off;
	uint32_t len, mr_len, caps;
	uint64_t remote;
};

static void must(int cond)
{
	if (!cond)
		abort();
}

static void must_ret(int ret)
{
	must(ret == 0 || (ret == -1 && (errno == EINVAL || errno == ENOMEM ||
					errno == ENOSPC || errno == EOVERFLOW)));
}

/*
 * The QP's limits, and whether the library's cache holds them too (else
 * it may hold a destroyed QP's).
 */
static struct rwxi_caps caps;
static int caps_cached;

/*
 * New QP limits from @v: 0-7 SGEs each way, 1-64 WRs, 0-255 inline,
 * max_msg_sz 1 to 512.
 */
static void set_caps(uint32_t v, int cached)
{
	caps = (struct rwxi_caps){
		.max_send_sge = v & 7,
		.max_recv_sge = (v >> 3) & 7,
		.max_sge_rd = (v >> 6) & 7,
		.max_send_wr = 1 + ((v >> 9) & 63),
		.max_inline_data = (v >> 15) & 255,
		.max_msg_sz = 1 + ((v >> 23) & 0x1ff),
	};
	caps_cached = cached;
	/* A new QP without the old one's ibv_wr_* builders (bit 31). */
	if (!cached && (v >> 31))
		memset((char *)&F.qpx + sizeof(F.qp), 0,
		       sizeof(F.qpx) - sizeof(F.qp));
	fake_qp_caps(&F.qp, &caps, cached);
	fake_srq_caps(&F.srq, caps.max_recv_sge, cached);
}

/*
 * A context built on the QP's own limits: at most max_send_wr WRs, each
 * of the direction's SGE limit and max_msg_sz bytes at most; the SGEs,
 * in order, are the iov's non-empty entries exactly; the remote
 * addresses abut.
 */
static void check_chain(const struct rwx_rw_ctx *ctx, const struct iovec *iov,
			int iovcnt, uint64_t remote, int read)
{
	uint32_t lim = caps.max_send_sge;
	uint64_t off = 0, used = 0;
	int i, j, e = 0;

	if (read && caps.max_sge_rd && caps.max_sge_rd < lim)
		lim = caps.max_sge_rd;
	must((uint32_t)ctx->nr_wrs <= caps.max_send_wr);
	for (i = 0; i < ctx->nr_wrs; i++) {
		const struct ibv_send_wr *wr = &ctx->wrs[i];
		uint64_t bytes = 0;

		must(wr->opcode == (read ? IBV_WR_RDMA_READ :
					   IBV_WR_RDMA_WRITE));
		must(wr->num_sge >= 1 && (uint32_t)wr->num_sge <= lim);
		must(wr->wr.rdma.remote_addr == remote + off);
		must(wr->next == (i + 1 < ctx->nr_wrs ? &ctx->wrs[i + 1] : NULL));
		for (j = 0; j < wr->num_sge; j++) {
			const struct ibv_sge *sge = &wr->sg_list[j];

			while (e < iovcnt && !iov[e].iov_len)
				e++;
			must(e < iovcnt && sge->lkey == 3);
			must(sge->addr == (uintptr_t)iov[e].iov_base + used);
			must(sge->length && used + sge->length <= iov[e].iov_len);
			used += sge->length;
			if (used == iov[e].iov_len) {
				e++;
				used = 0;
			}
			bytes += sge->length;
		}
		must(!caps.max_msg_sz || bytes <= caps.max_msg_sz);
		off += bytes;
	}
	while (e < iovcnt && !iov[e].iov_len)
		e++;
	must(e == iovcnt);
}

static int rw_ctx(const struct step *s, struct ibv_mr *mr, struct ibv_sge *sgl)
{
	int i, n, ret, read = s->flags & 1, iovcnt = 1 + s->nsge % NSGE;
	struct iovec iov[NSGE];
	struct ibv_mr *mrs = mr;
	struct rwx_rw_ctx ctx;

	for (i = 0; i < NSGE; i++) {
		iov[i].iov_base = (void *)(uintptr_t)sgl[i].addr;
		iov[i].iov_len = (s->cached >> (i % 8)) & 1 ? 0 : sgl[i].length;
	}
	n = rwx_rw_ctx_init(&ctx, &F.qp, iov, iovcnt, &mrs, 1, s->remote, 7,
			    read ? RWX_RW_READ : RWX_RW_WRITE);
	if (n < 0)
		return n;
	must(ctx.nr_wrs == n && n >= 1);
	if (caps_cached)
		check_chain(&ctx, iov, iovcnt, s->remote, read);
	ret = rwx_rw_ctx_post(&ctx, 9, NULL, NULL);
	/* Built on the QP's own limits, the device takes it. */
	must(!caps_cached || ret == 0);
	rwx_rw_ctx_destroy(&ctx);
	return ret;
}

static int lists(const struct step *s, struct ibv_sge *sgl)
{
	struct ibv_send_wr swr[3], *sbad;
	struct ibv_recv_wr rwr[3], *rbad;
	int i;

	memset(swr, 0, sizeof(swr));
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < 3; i++) {
		swr[i].opcode = (enum ibv_wr_opcode)((s->flags >> 2) % 12);
		swr[i].send_flags = s->flags & IBV_SEND_INLINE;
		swr[i].sg_list = sgl;
		swr[i].num_sge = (s->nsge >> i) & 7;
		swr[i].next = i < 2 ? &swr[i + 1] : NULL;
		rwr[i].sg_list = sgl;
		rwr[i].num_sge = swr[i].num_sge;
		rwr[i].next = i < 2 ? &rwr[i + 1] : NULL;
	}
	if (s->flags & 2)
		return rwx_post_recv_list(&F.id, rwr, &rbad);
	return rwx_post_list(&F.id, swr, &sbad);
}

static int one_step(const struct step *s)
{
	char *addr = buf + s->off % sizeof(buf);
	struct ibv_mr mr = fake_mr(buf + s->mr_off % sizeof(buf),
				   s->mr_len % (sizeof(buf) + 1), 3);
	struct ibv_mr *m = s->flags & 0x80 ? NULL : &mr;
	size_t len = s->len % (sizeof(buf) + 64);
	struct ibv_sge sgl[NSGE];
	int i, nsge = s->nsge % (NSGE + 1), fl = s->flags & 0x0f;

	for (i = 0; i < NSGE; i++)
		sgl[i] = (struct ibv_sge){ (uintptr_t)addr + 16 * i,
					   (uint32_t)len / (i + 1), 3 };
	switch (s->call % 16) {
	case 0: return rdma_post_send(&F.id, NULL, addr, len, m, fl);
	case 1: return rdma_post_recv(&F.id, NULL, addr, len, m);
	case 2: return rdma_post_read(&F.id, NULL, addr, len, m, fl,
				      s->remote, 5);
	case 3: return rdma_post_write(&F.id, NULL, addr, len, m, fl,
				       s->remote, 5);
	case 4: return rdma_post_sendv(&F.id, NULL, sgl, nsge, fl);
	case 5: return rdma_post_recvv(&F.id, NULL, sgl, nsge);
	case 6: return rdma_post_readv(&F.id, NULL, sgl, nsge, fl,
				       s->remote, 5);
	case 7: return rdma_post_writev(&F.id, NULL, sgl, nsge, fl,
					s->remote, 5);
	case 8: return rwx_post_send_imm(&F.id, NULL, addr, len, m, fl, 1);
	case 9: return rwx_post_write_imm(&F.id, NULL, addr, len, m, fl,
					  s->remote, 5, 2);
	case 10: return rwx_post_atomic_fadd(&F.id, NULL, addr, len, m, fl,
					     s->remote, 5, 1);
	case 11: return rwx_post_atomic_cswap(&F.id, NULL, addr, len, m, fl,
					      s->remote, 5, 1, 2);
	case 12: return rwx_post_ud_send_imm(&F.id, NULL, addr, len, m, fl,
					     s->flags & 0x40 ? NULL :
					     (struct ibv_ah *)buf, 3, 4, 5);
	case 13: return lists(s, sgl);
	case 14: return rw_ctx(s, &mr, sgl);
	default:
		set_caps(s->caps, s->cached & 1);
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct step s;
	int i;

	/* A QP with ibv_wr_* builders where the input says (bit 2). */
	fake_wr_api = size && (data[0] & 4) ? FAKE_WR_ALL : FAKE_WR_NONE;
	fake_setup(2, 2, 2);
	caps = (struct rwxi_caps){ 2, 2, 2, FAKE_SEND_WR, FAKE_INLINE,
				   FAKE_MSG, 0, 0 };
	caps_cached = 1;
	/* Receives to an SRQ (with or without a QP) where the input says. */
	if (size && (data[0] & 1))
		F.id.srq = &F.srq;
	if (size && (data[0] & 2) && F.id.srq)
		F.id.qp = NULL;
	for (i = 0; i < STEPS && size >= 1 + sizeof(s) * (i + 1); i++) {
		memcpy(&s, data + 1 + sizeof(s) * i, sizeof(s));
		F.nposted = 0;
		must_ret(one_step(&s));
	}
	fake_teardown();
	return 0;
}
