// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rwx_ extensions: immediate, invalidate, atomics, WR lists. */
#include <arpa/inet.h>
#include <stdint.h>

#include "rwx_test.h"

static uint64_t words[8] __attribute__((aligned(64)));
static char *wbuf = (char *)words;

static void ext_send_imm_fields(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_EQ(rwx_post_send_imm(&F.id, NULL, wbuf, 16, &mr, 0,
				   htonl(0xdeadbeef)), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_EQ(ntohl(F.posted[0].wr.imm_data), 0xdeadbeef);
	CHECK_ERR(rwx_post_send_imm(NULL, NULL, wbuf, 16, &mr, 0, 0), EINVAL);
	CHECK_ERR(rwx_post_send_imm(&F.id, NULL, wbuf, 16, NULL, 0, 0),
		  EINVAL);
}

/* UD sends: the caller's AH, QP number and qkey, and the immediate. */
static void ext_ud_send_fields(void)
{
	struct ibv_ah *ah = (struct ibv_ah *)0x5a;
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	F.qp.qp_type = IBV_QPT_UD;
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_EQ(rwx_post_ud_send_qkey(&F.id, (void *)1, wbuf, 16, &mr, 0, ah,
				       0x12, 0x1111), 0);
	CHECK_EQ(rwx_post_ud_send_imm(&F.id, (void *)2, wbuf, 16, &mr, 0, ah,
				      0x13, 0x2222, htonl(7)), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_SEND);
	CHECK(F.posted[0].wr.wr.ud.ah == ah);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qpn, 0x12);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qkey, 0x1111);
	CHECK_EQ(F.posted[0].sge[0].length, 16);
	CHECK_EQ(F.posted[1].wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_EQ(ntohl(F.posted[1].wr.imm_data), 7);
	CHECK_EQ(F.posted[1].wr.wr.ud.remote_qpn, 0x13);
	CHECK_EQ(F.posted[1].wr.wr.ud.remote_qkey, 0x2222);
	/* No AH, no id, a buffer outside its MR: nothing posted. */
	CHECK_ERR(rwx_post_ud_send_qkey(&F.id, NULL, wbuf, 16, &mr, 0, NULL,
					0x12, 1), EINVAL);
	CHECK_ERR(rwx_post_ud_send_imm(&F.id, NULL, wbuf, 16, &mr, 0, NULL,
				       0x12, 1, 0), EINVAL);
	CHECK_ERR(rwx_post_ud_send_imm(NULL, NULL, wbuf, 16, &mr, 0, ah,
				       0x12, 1, 0), EINVAL);
	CHECK_ERR(rwx_post_ud_send_qkey(&F.id, NULL, wbuf + 8, sizeof(words),
					&mr, 0, ah, 0x12, 1), EINVAL);
	CHECK_EQ(F.nposted, 2);
}

static void ext_write_imm_fields(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	/* zero-length write with immediate: a pure notification */
	CHECK_EQ(rwx_post_write_imm(&F.id, NULL, NULL, 0, NULL, 0, 0x1000, 7,
				    htonl(42)), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	CHECK_EQ(F.posted[0].wr.num_sge, 0);
	CHECK_EQ(F.posted[0].wr.wr.rdma.remote_addr, 0x1000);
	CHECK_EQ(F.posted[0].wr.wr.rdma.rkey, 7);
	CHECK_EQ(ntohl(F.posted[0].wr.imm_data), 42);
	CHECK_ERR(rwx_post_write_imm(&F.id, NULL, wbuf, sizeof(words) + 1,
				     &mr, 0, 0, 7, 0), EINVAL);
}

static void ext_send_inv_fields(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_EQ(rwx_post_send_inv(&F.id, NULL, wbuf, 8, &mr, 0, 0x777), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(F.posted[0].wr.invalidate_rkey, 0x777);
	F.id.qp = NULL;
	CHECK_ERR(rwx_post_send_inv(&F.id, NULL, wbuf, 8, &mr, 0, 1), EINVAL);
}

static void ext_atomic_alignment(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf + 4, 8, &mr, 0,
				       0x1000, 1, 1), EINVAL);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf, 8, &mr, 0,
				       0x1001, 1, 1), EINVAL);
	CHECK_ERR(rwx_post_atomic_cswap(&F.id, NULL, wbuf + 1, 8, &mr, 0,
					0x1000, 1, 1, 2), EINVAL);
	CHECK_ERR(rwx_post_atomic_cswap(&F.id, NULL, wbuf, 8, &mr, 0,
					0x1004, 1, 1, 2), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

static void ext_atomic_length_and_mr(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf, 4, &mr, 0, 0x1000,
				       1, 1), EINVAL);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf, 16, &mr, 0, 0x1000,
				       1, 1), EINVAL);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf, 8, NULL,
				       IBV_SEND_INLINE, 0x1000, 1, 1), EINVAL);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf, 8, &mr,
				       IBV_SEND_INLINE, 0x1000, 1, 1), EINVAL);
	/* aligned, but the last word's end is outside the MR */
	mr = fake_mr(wbuf, 60, 3);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, wbuf + 56, 8, &mr, 0,
				       0x1000, 1, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

static void ext_atomic_fields(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(wbuf, sizeof(words), 3);
	CHECK_EQ(rwx_post_atomic_fadd(&F.id, NULL, wbuf + 8, 8, &mr,
				      IBV_SEND_SIGNALED, 0x2008, 11, 5), 0);
	CHECK_EQ(rwx_post_atomic_cswap(&F.id, NULL, wbuf + 16, 8, &mr, 0,
				       0x2010, 12, 100, 200), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	CHECK_EQ(F.posted[0].wr.wr.atomic.remote_addr, 0x2008);
	CHECK_EQ(F.posted[0].wr.wr.atomic.rkey, 11);
	CHECK_EQ(F.posted[0].wr.wr.atomic.compare_add, 5);
	CHECK_EQ(F.posted[0].sge[0].length, 8);
	CHECK_EQ(F.posted[1].wr.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	CHECK_EQ(F.posted[1].wr.wr.atomic.compare_add, 100);
	CHECK_EQ(F.posted[1].wr.wr.atomic.swap, 200);
}

/* n SGEs of 8 bytes, one for each of words[]. */
static void make_sges(struct ibv_sge *sges, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sges[i] = (struct ibv_sge){ (uintptr_t)&words[i], 8, 3 };
}

static void make_list(struct ibv_send_wr *wrs, struct ibv_sge *sges, int n)
{
	int i;

	memset(wrs, 0, sizeof(*wrs) * (size_t)n);
	make_sges(sges, n);
	for (i = 0; i < n; i++) {
		wrs[i].wr_id = (uint64_t)i;
		wrs[i].opcode = IBV_WR_RDMA_WRITE;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
}

static void ext_post_list_all_good(void)
{
	struct ibv_send_wr wrs[4], *bad = (struct ibv_send_wr *)1;
	struct ibv_sge sges[4];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 4);
	CHECK_EQ(rwx_post_list(&F.id, wrs, &bad), 0);
	CHECK(bad == NULL);
	CHECK_EQ(F.post_calls, 1);	/* one ibv_post_send for all */
	CHECK_EQ(F.nposted, 4);
	CHECK_EQ(F.posted[3].wr.wr_id, 3);
}

/*
 * *bad_wr is, as ibv_post_send's, the first WR not posted: after a failed
 * check, when nothing was posted, the list's head.
 */
static void ext_post_list_reports_bad_wr(void)
{
	struct ibv_send_wr wrs[4], *bad = NULL;
	struct ibv_sge sges[4];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 4);
	wrs[2].num_sge = 2;	/* over the QP's limit of 1 */
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	CHECK_EQ(F.post_calls, 0);	/* nothing posted, not even wrs[0] */

	make_list(wrs, sges, 4);
	wrs[1].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wrs[1].wr.atomic.remote_addr = 0x1003;
	bad = NULL;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);

	make_list(wrs, sges, 4);
	wrs[0].sg_list = NULL;
	CHECK_ERR(rwx_post_list(&F.id, wrs, NULL), EINVAL);
	CHECK_ERR(rwx_post_list(&F.id, NULL, &bad), EINVAL);
	CHECK_ERR(rwx_post_list(NULL, wrs, &bad), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

/*
 * The opcodes that move no SGE list of their own kind: LOCAL_INV and
 * BIND_MW without SGEs (BIND_MW with its window), TSO on a UD QP with a
 * segment size and its header; each broken one refused, nothing posted;
 * ATOMIC_WRITE and DRIVER1 refused.
 */
static void ext_post_list_other_opcodes(void)
{
	struct ibv_send_wr wrs[3], *bad = NULL;
	struct ibv_sge sges[3];
	struct ibv_mw mw;
	char hdr[16];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 3);
	wrs[0].opcode = IBV_WR_LOCAL_INV;
	wrs[0].num_sge = 0;
	wrs[0].invalidate_rkey = 0x77;
	wrs[1].opcode = IBV_WR_BIND_MW;
	wrs[1].num_sge = 0;
	wrs[1].bind_mw.mw = &mw;
	CHECK_EQ(rwx_post_list(&F.id, wrs, &bad), 0);
	CHECK_EQ(F.nposted, 3);
	CHECK_EQ(F.posted[0].wr.invalidate_rkey, 0x77);

	wrs[0].num_sge = 1;	/* an SGE on LOCAL_INV */
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	wrs[0].num_sge = 0;
	wrs[1].bind_mw.mw = NULL;	/* no window to bind */
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	wrs[1].bind_mw.mw = &mw;
	wrs[2].opcode = IBV_WR_TSO;	/* on an RC QP */
	wrs[2].tso.hdr = hdr;
	wrs[2].tso.hdr_sz = sizeof(hdr);
	wrs[2].tso.mss = 1024;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	CHECK_EQ(F.nposted, 3);

	F.qp.qp_type = IBV_QPT_UD;
	CHECK_EQ(rwx_post_list(&F.id, &wrs[2], &bad), 0);
	CHECK_EQ(F.nposted, 4);
	wrs[2].tso.hdr = NULL;	/* a header size and no header */
	CHECK_ERR(rwx_post_list(&F.id, &wrs[2], &bad), EINVAL);
	wrs[2].tso.hdr = hdr;
	wrs[2].tso.mss = 0;
	CHECK_ERR(rwx_post_list(&F.id, &wrs[2], &bad), EINVAL);

	F.qp.qp_type = IBV_QPT_RC;
	make_list(wrs, sges, 1);
	wrs[0].opcode = IBV_WR_ATOMIC_WRITE;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	wrs[0].opcode = IBV_WR_DRIVER1;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK_EQ(F.nposted, 4);
}

static void ext_post_list_cycle_fails(void)
{
	struct ibv_send_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 2);
	wrs[1].next = &wrs[0];
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad != NULL);
	CHECK_EQ(F.post_calls, 0);
}

static void ext_post_list_provider_bad_wr(void)
{
	struct ibv_send_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 2);
	F.post_ret = ENOMEM;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), ENOMEM);
	CHECK(bad == &wrs[0]);
}

/*
 * Stale limits (caps.c, t_post.c): a list refused on the destroyed QP's
 * limits is posted on the new QP's; one posted on them and failed by the
 * provider is EINVAL, *bad_wr the provider's.
 */
static void ext_post_list_stale_limits(void)
{
	struct rwxi_caps one = { 1, 1, 1, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps two = { 2, 2, 2, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_send_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 2);
	wrs[1].sg_list = sges;
	wrs[1].num_sge = 2;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	fake_qp_caps(&F.qp, &two, 0);
	CHECK_EQ(rwx_post_list(&F.id, wrs, &bad), 0);
	CHECK(bad == NULL);
	CHECK_EQ(F.nposted, 2);
	fake_qp_caps(&F.qp, &one, 0);
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[1]);
	CHECK_EQ(F.nposted, 3);	/* the provider posted the first */
}

/* An inline WR over max_inline_data: EINVAL, *bad_wr that WR. */
static void ext_post_list_inline_over_max(void)
{
	static char data[FAKE_INLINE + 1];
	struct ibv_sge big = { (uintptr_t)data, sizeof(data), 0 };
	struct ibv_send_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	make_list(wrs, sges, 2);
	wrs[1].sg_list = &big;
	wrs[1].send_flags = IBV_SEND_INLINE;
	CHECK_ERR(rwx_post_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[1]);
	big.length = FAKE_INLINE;
	CHECK_EQ(rwx_post_list(&F.id, wrs, &bad), 0);
	CHECK_EQ(F.nposted, 3);
}

/* n receive WRs of one 8-byte SGE each, linked in order. */
static void make_recv_list(struct ibv_recv_wr *wrs, struct ibv_sge *sges,
			   int n)
{
	int i;

	memset(wrs, 0, sizeof(*wrs) * (size_t)n);
	make_sges(sges, n);
	for (i = 0; i < n; i++) {
		wrs[i].wr_id = (uint64_t)i + 10;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
}

static void ext_recv_list_to_qp(void)
{
	struct ibv_recv_wr wrs[3], *bad = (struct ibv_recv_wr *)1;
	struct ibv_sge sges[3];

	fake_setup(1, 1, 1);
	make_recv_list(wrs, sges, 3);
	CHECK_EQ(rwx_post_recv_list(&F.id, wrs, &bad), 0);
	CHECK(bad == NULL);
	CHECK_EQ(F.post_calls, 1);	/* one ibv_post_recv for all */
	CHECK_EQ(F.nposted, 3);
	CHECK(F.posted[2].was_recv && !F.posted[2].to_srq);
	CHECK_EQ(F.posted[2].wr.wr_id, 12);
	CHECK_EQ(F.posted[2].sge[0].length, 8);
	/* An empty receive (no SGE) is one too. */
	make_recv_list(wrs, sges, 1);
	wrs[0].sg_list = NULL;
	wrs[0].num_sge = 0;
	CHECK_EQ(rwx_post_recv_list(&F.id, wrs, NULL), 0);
	CHECK_EQ(F.nposted, 4);
}

/* To the id's SRQ, on the SRQ's limit, with or without a QP. */
static void ext_recv_list_to_srq(void)
{
	struct ibv_recv_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	F.id.srq = &F.srq;
	fake_srq_caps(&F.srq, 2, 1);
	make_recv_list(wrs, sges, 2);
	wrs[1].sg_list = sges;
	wrs[1].num_sge = 2;	/* over the QP's 1, within the SRQ's 2 */
	CHECK_EQ(rwx_post_recv_list(&F.id, wrs, &bad), 0);
	CHECK(F.posted[0].to_srq && F.posted[1].to_srq);
	F.id.qp = NULL;
	CHECK_EQ(rwx_post_recv_list(&F.id, wrs, &bad), 0);
	CHECK_EQ(F.nposted, 4);
	wrs[1].num_sge = 3;
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	CHECK_EQ(F.nposted, 4);
}

/* A failed check posts nothing; *bad_wr is the list's head. */
static void ext_recv_list_refusals(void)
{
	struct ibv_recv_wr wrs[3], *bad = NULL;
	struct ibv_sge sges[3];

	fake_setup(1, 1, 1);
	make_recv_list(wrs, sges, 3);
	wrs[2].num_sge = 2;
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	make_recv_list(wrs, sges, 3);
	wrs[1].num_sge = -1;
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	make_recv_list(wrs, sges, 3);
	wrs[1].sg_list = NULL;
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	make_recv_list(wrs, sges, 3);
	wrs[2].next = &wrs[0];	/* cyclic */
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	make_recv_list(wrs, sges, 3);
	CHECK_ERR(rwx_post_recv_list(&F.id, NULL, &bad), EINVAL);
	CHECK(bad == NULL);
	CHECK_ERR(rwx_post_recv_list(NULL, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[0]);
	F.id.qp = NULL;	/* neither QP nor SRQ */
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, NULL), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

/*
 * Stale limits: refused on the destroyed QP's cached limit, posted on the
 * new one's; posted on them and failed by the provider, EINVAL with the
 * provider's *bad_wr, the WRs before it posted.
 */
static void ext_recv_list_stale_limits(void)
{
	struct rwxi_caps one = { 1, 1, 1, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps two = { 2, 2, 2, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_recv_wr wrs[2], *bad = NULL;
	struct ibv_sge sges[2];

	fake_setup(1, 1, 1);
	make_recv_list(wrs, sges, 2);
	wrs[1].sg_list = sges;
	wrs[1].num_sge = 2;
	fake_qp_caps(&F.qp, &two, 0);
	CHECK_EQ(rwx_post_recv_list(&F.id, wrs, &bad), 0);
	CHECK(bad == NULL);
	CHECK_EQ(F.nposted, 2);
	fake_qp_caps(&F.qp, &one, 0);
	CHECK_ERR(rwx_post_recv_list(&F.id, wrs, &bad), EINVAL);
	CHECK(bad == &wrs[1]);
	CHECK_EQ(F.nposted, 3);	/* the provider posted the first */
}

void suite_ext(void)
{
	RUN(ext_recv_list_to_qp);
	RUN(ext_recv_list_to_srq);
	RUN(ext_recv_list_refusals);
	RUN(ext_recv_list_stale_limits);
	RUN(ext_send_imm_fields);
	RUN(ext_write_imm_fields);
	RUN(ext_ud_send_fields);
	RUN(ext_send_inv_fields);
	RUN(ext_atomic_alignment);
	RUN(ext_atomic_length_and_mr);
	RUN(ext_atomic_fields);
	RUN(ext_post_list_all_good);
	RUN(ext_post_list_reports_bad_wr);
	RUN(ext_post_list_other_opcodes);
	RUN(ext_post_list_cycle_fails);
	RUN(ext_post_list_provider_bad_wr);
	RUN(ext_post_list_stale_limits);
	RUN(ext_post_list_inline_over_max);
}
