// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The rdma_* replacements through their public entry points, on the fake
 * device: every bad input must give -1/EINVAL and reach no "hardware";
 * good input must produce exactly librdmacm's WR.
 */
#include <pthread.h>
#include <stdint.h>

#include "rwx_test.h"

static char buf[256] __attribute__((aligned(64)));
#define BIG ((size_t)UINT32_MAX + 1)

static void post_null_id(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	CHECK_ERR(rdma_post_recv(NULL, NULL, buf, 8, &mr), EINVAL);
	CHECK_ERR(rdma_post_send(NULL, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_read(NULL, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_write(NULL, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_recvv(NULL, NULL, &sge, 1), EINVAL);
	CHECK_ERR(rdma_post_sendv(NULL, NULL, &sge, 1, 0), EINVAL);
	CHECK_ERR(rdma_post_readv(NULL, NULL, &sge, 1, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_writev(NULL, NULL, &sge, 1, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_ud_send(NULL, NULL, buf, 8, &mr, 0,
				    (struct ibv_ah *)buf, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

static void post_id_without_qp(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	F.id.qp = NULL;
	CHECK_ERR(rdma_post_recv(&F.id, NULL, buf, 8, &mr), EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, &sge, 1), EINVAL);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, &sge, 1, 0), EINVAL);
	CHECK_ERR(rdma_post_readv(&F.id, NULL, &sge, 1, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_writev(&F.id, NULL, &sge, 1, 0, 0, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

/* librdmacm would post (uint32_t)length: 4 GiB + 1 becomes 1 byte. */
static void post_length_over_u32(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, SIZE_MAX / 2, 1);	/* MR "covers" everything */
	CHECK_ERR(rdma_post_recv(&F.id, NULL, buf, BIG, &mr), EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, BIG, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, BIG + 1, NULL,
				 IBV_SEND_INLINE), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, BIG, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, BIG, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_ud_send(&F.id, NULL, buf, BIG, &mr, 0,
				    (struct ibv_ah *)buf, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
	/* the largest legal length still goes through */
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, UINT32_MAX, &mr, 0), 0);
	CHECK_EQ(F.posted[0].sge[0].length, UINT32_MAX);
}

/* @n SGEs of 8 bytes each, one after the other in buf. */
static void sgl_in_buf(struct ibv_sge *sgl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		sgl[i].addr = (uintptr_t)buf + 8 * (unsigned)i;
		sgl[i].length = 8;
		sgl[i].lkey = 1;
	}
}

static void post_nsge_over_qp_max(void)
{
	struct ibv_sge sgl[4];

	fake_setup(2, 3, 2);
	sgl_in_buf(sgl, 4);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EINVAL);
	CHECK_ERR(rdma_post_writev(&F.id, NULL, sgl, 3, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_readv(&F.id, NULL, sgl, 3, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, sgl, 4), EINVAL);
	CHECK_EQ(F.post_calls, 0);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 2, 0), 0);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 3), 0);
	CHECK_EQ(F.nposted, 2);
	CHECK_EQ(F.posted[0].wr.num_sge, 2);
	CHECK_EQ(F.posted[1].wr.num_sge, 3);
	CHECK(F.posted[1].was_recv);
}

static void post_nsge_negative_or_null_sgl(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };

	fake_setup(4, 4, 4);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, &sge, -1, 0), EINVAL);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, &sge, -1), EINVAL);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, NULL, 1, 0), EINVAL);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, NULL, 1), EINVAL);
	CHECK_ERR(rdma_post_writev(&F.id, NULL, NULL, 2, 0, 0, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
	/* an empty list is fine: a zero-length message */
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, NULL, 0, 0), 0);
	CHECK_EQ(F.posted[0].wr.num_sge, 0);
}

static void post_no_mr_needs_inline(void)
{
	fake_setup(4, 4, 4);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, NULL, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, NULL, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_ud_send(&F.id, NULL, buf, 8, NULL, 0,
				    (struct ibv_ah *)buf, 1), EINVAL);
	/* READ and RECV write local memory: never without an MR */
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, NULL, IBV_SEND_INLINE,
				 0, 1), EINVAL);
	CHECK_ERR(rdma_post_recv(&F.id, NULL, buf, 8, NULL), EINVAL);
	CHECK_EQ(F.post_calls, 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, NULL, IBV_SEND_INLINE),
		 0);
	CHECK_EQ(F.posted[0].sge[0].lkey, 0);
	CHECK_EQ(F.posted[0].wr.send_flags, IBV_SEND_INLINE);
}

static void post_buffer_outside_mr(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf + 64, 64, 1);	/* covers buf[64, 128) */
	CHECK_ERR(rdma_post_recv(&F.id, NULL, buf + 63, 8, &mr), EINVAL);
	CHECK_ERR(rdma_post_recv(&F.id, NULL, buf + 121, 8, &mr), EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf + 64, 65, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf + 128, 1, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_ud_send(&F.id, NULL, buf + 127, 2, &mr, 0,
				    (struct ibv_ah *)buf, 1), EINVAL);
	/* inline does not excuse an MR that does not cover the buffer */
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, IBV_SEND_INLINE),
		  EINVAL);
	CHECK_EQ(F.post_calls, 0);
	CHECK_EQ(rdma_post_recv(&F.id, NULL, buf + 120, 8, &mr), 0);
	CHECK_EQ(rdma_post_read(&F.id, NULL, buf + 64, 64, &mr, 0, 0, 1), 0);
	CHECK_EQ(F.nposted, 2);
}

static void post_send_builds_librdmacm_wr(void)
{
	struct ibv_mr mr;
	int ctx_tag;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 0x55);
	CHECK_EQ(rdma_post_send(&F.id, &ctx_tag, buf + 16, 32, &mr,
				IBV_SEND_SIGNALED), 0);
	CHECK_EQ(F.nposted, 1);
	CHECK_EQ(F.posted[0].wr.wr_id, (uintptr_t)&ctx_tag);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_SEND);
	CHECK_EQ(F.posted[0].wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[0].wr.num_sge, 1);
	CHECK_EQ(F.posted[0].sge[0].addr, (uintptr_t)(buf + 16));
	CHECK_EQ(F.posted[0].sge[0].length, 32);
	CHECK_EQ(F.posted[0].sge[0].lkey, 0x55);
}

static void post_rdma_builds_remote_fields(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 64, &mr, 0,
				 0xabcdef000ULL, 0x1234), 0);
	CHECK_EQ(rdma_post_read(&F.id, NULL, buf, 64, &mr, 0,
				0xabcdef040ULL, 0x4321), 0);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[0].wr.wr.rdma.remote_addr, 0xabcdef000ULL);
	CHECK_EQ(F.posted[0].wr.wr.rdma.rkey, 0x1234);
	CHECK_EQ(F.posted[1].wr.opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(F.posted[1].wr.wr.rdma.remote_addr, 0xabcdef040ULL);
	CHECK_EQ(F.posted[1].wr.wr.rdma.rkey, 0x4321);
}

static void post_ud_send_fields(void)
{
	struct ibv_ah *ah = (struct ibv_ah *)buf;	/* never dereferenced */
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	F.qp.qp_type = F.id.qp_type = IBV_QPT_UD;
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_ERR(rdma_post_ud_send(&F.id, NULL, buf, 8, &mr, 0, NULL, 5),
		  EINVAL);
	CHECK_EQ(rdma_post_ud_send(&F.id, NULL, buf, 8, &mr, 0, ah, 5), 0);
	CHECK(F.posted[0].wr.wr.ud.ah == ah);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qpn, 5);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qkey, RDMA_UDP_QKEY);
}

/*
 * A SEND on a UD QP needs an address handle: rdma_post_send() and the
 * other sends without one are refused (the provider would follow
 * whatever the WR held there), fast path and slow; rdma_post_ud_send()
 * posts.
 */
static void post_send_on_ud_needs_ah(void)
{
	struct ibv_ah *ah = (struct ibv_ah *)buf;	/* never dereferenced */
	struct ibv_sge sge = { (uintptr_t)buf, 8, 9 };
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	F.qp.qp_type = F.id.qp_type = IBV_QPT_UD;
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, &sge, 1, 0), EINVAL);
	CHECK_ERR(rwx_post_send_imm(&F.id, NULL, buf, 8, &mr, 0, 1), EINVAL);
	CHECK_EQ(F.nposted, 0);
	CHECK_EQ(rdma_post_ud_send(&F.id, NULL, buf, 8, &mr, 0, ah, 5), 0);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_EQ(F.nposted, 1);
	CHECK(F.posted[0].wr.wr.ud.ah == ah);
}

static void post_zero_length_needs_no_mr(void)
{
	fake_setup(4, 4, 4);
	CHECK_EQ(rdma_post_send(&F.id, NULL, NULL, 0, NULL, 0), 0);
	CHECK_EQ(rdma_post_write(&F.id, NULL, NULL, 0, NULL, 0, 0, 1), 0);
	CHECK_EQ(F.posted[0].wr.num_sge, 0);
	CHECK_EQ(F.posted[1].wr.num_sge, 0);
}

static void post_recv_goes_to_srq(void)
{
	struct ibv_sge sgl[3] = { { (uintptr_t)buf, 8, 1 },
				  { (uintptr_t)buf + 8, 8, 1 },
				  { (uintptr_t)buf + 16, 8, 1 } };

	fake_setup(4, 4, 4);
	F.id.srq = &F.srq;
	fake_srq_caps(&F.srq, 2, 1);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, sgl, 3), EINVAL);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 2), 0);
	CHECK(F.posted[0].to_srq);
}

/* librdmacm posts receives on an id with an SRQ and no QP; so do we. */
static void post_recv_srq_without_qp(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 9);
	F.id.srq = &F.srq;
	F.id.qp = NULL;
	fake_srq_caps(&F.srq, 2, 1);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, &sge, 1), 0);
	CHECK_EQ(rdma_post_recv(&F.id, NULL, buf, 8, &mr), 0);
	CHECK(F.posted[0].to_srq);
	CHECK(F.posted[1].to_srq);
	F.id.srq = NULL;
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, &sge, 1), EINVAL);
}

/*
 * An XRC_SEND QP needs a remote SRQ number that these calls cannot take
 * (librdmacm's helpers leave it unset): refused, nothing posted; a list
 * of the caller's own WRs can carry it and is posted.
 */
static void post_xrc_send_refused(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 8, 1 };
	struct ibv_send_wr wr, *bad;
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	F.qp.qp_type = IBV_QPT_XRC_SEND;
	mr = fake_mr(buf, sizeof(buf), 1);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0x1000, 5), EINVAL);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, &sge, 1, 0), EINVAL);
	CHECK_EQ(F.nposted, 0);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.qp_type.xrc.remote_srqn = 3;
	CHECK_EQ(rwx_post_list(&F.id, &wr, &bad), 0);
	CHECK_EQ(F.nposted, 1);
}

static void post_provider_error_sets_errno(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 9);
	F.post_ret = ENOMEM;
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), ENOMEM);
	CHECK_EQ(F.post_calls, 1);
}

/* A single-buffer post's one SGE counts against the QP's limit too. */
static void post_single_sge_limit(void)
{
	struct ibv_ah *ah = (struct ibv_ah *)buf;	/* never dereferenced */
	struct ibv_mr mr;

	fake_setup(0, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_ud_send(&F.id, NULL, buf, 8, &mr, 0, ah, 1),
		  EINVAL);
	CHECK_EQ(F.post_calls, 0);
	/* no data, no SGE */
	CHECK_EQ(rdma_post_send(&F.id, NULL, NULL, 0, NULL, 0), 0);
	CHECK_EQ(F.posted[0].wr.num_sge, 0);
}

/* A READ gathers nothing to send: inline is refused even with an MR. */
static void post_read_refuses_inline(void)
{
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, &mr, IBV_SEND_INLINE,
				 0, 1), EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

/*
 * Each thread keeps the send limit of the QP it posted to last: posts
 * alternating between two QPs must each meet their own QP's limit.  The
 * two QPs are 16-byte steps apart in one page, so that they never share
 * a slot of the cache behind it (the fake device cannot be queried).
 */
static struct ibv_qp two_qps[2] __attribute__((aligned(4096)));

static void post_alternating_qps(void)
{
	struct rwxi_caps one = { 1, 4, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 },
			 none = { 0, 4, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rdma_cm_id id_a, id_b;
	struct ibv_mr mr;
	int i;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	two_qps[0] = two_qps[1] = F.qp;
	two_qps[1].qp_num = F.qp.qp_num + 1000;
	id_a = id_b = F.id;
	id_a.qp = &two_qps[0];
	id_b.qp = &two_qps[1];
	fake_qp_caps(&two_qps[0], &one, 1);
	fake_qp_caps(&two_qps[1], &none, 1);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(rdma_post_send(&id_a, NULL, buf, 8, &mr, 0), 0);
		CHECK_ERR(rdma_post_write(&id_b, NULL, buf, 8, &mr, 0, 0, 1),
			  EINVAL);
	}
	CHECK_EQ(F.post_calls, 3);
	rwxi_caps_forget(&two_qps[0]);
	rwxi_caps_forget(&two_qps[1]);
}

/* New limits seeded for the QP posted to last take effect at once. */
static void post_seed_replaces_last_qp(void)
{
	struct rwxi_caps two = { 2, 4, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_sge sgl[3];

	fake_setup(4, 4, 4);
	sgl_in_buf(sgl, 3);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), 0);
	fake_qp_caps(&F.qp, &two, 1);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EINVAL);
	CHECK_EQ(F.post_calls, 1);
}

/*
 * The single-buffer posts check the common case on a fast path, taken
 * only for this thread's last QP: the bad inputs above again, each after
 * a good post to the same QP, so that they meet the fast path's checks.
 */
static void post_fast_path_rejects(void)
{
	struct ibv_mr mr, big;
	int calls;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf + 64, 64, 1);	/* covers buf[64, 128) */
	big = fake_mr(buf, SIZE_MAX / 2, 1);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf + 64, 8, &mr, 0), 0);
	calls = F.post_calls;
	/* outside the MR: below it, across its end, past it */
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf + 63, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf + 121, 8, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf + 64, 65, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf + 128, 1, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, IBV_SEND_INLINE),
		  EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf + 63, 0, &mr, 0), EINVAL);
	/* over 32 bits */
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, BIG, &big, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, BIG, &big, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, BIG, &big, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, BIG + 1, NULL,
				 IBV_SEND_INLINE), EINVAL);
	/* no MR without inline; a READ inline */
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, NULL, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, NULL, 0, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf + 64, 8, &mr,
				 IBV_SEND_INLINE, 0, 1), EINVAL);
	/* no id, an id without its QP */
	CHECK_ERR(rdma_post_send(NULL, NULL, buf + 64, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_write(NULL, NULL, buf + 64, 8, &mr, 0, 0, 1),
		  EINVAL);
	F.id.qp = NULL;
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf + 64, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf + 64, 8, &mr, 0, 0, 1),
		  EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf + 64, 8, &mr, 0, 0, 1),
		  EINVAL);
	F.id.qp = &F.qp;
	CHECK_EQ(F.post_calls, calls);
	/* and what is good still goes through, as librdmacm's WR */
	CHECK_EQ(rdma_post_write(&F.id, (void *)7, buf + 120, 8, &mr,
				 IBV_SEND_SIGNALED, 0xabc, 0x12), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf + 128, 0, &mr, 0), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, UINT32_MAX, &big, 0), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, NULL, IBV_SEND_INLINE),
		 0);
	CHECK_EQ(rdma_post_read(&F.id, NULL, buf + 64, 64, &mr, 0, 0xdef,
				0x34), 0);
	CHECK_EQ(F.nposted, 6);
	CHECK_EQ(F.posted[1].wr.wr_id, 7);
	CHECK(F.posted[1].wr.next == NULL);
	CHECK_EQ(F.posted[1].wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[1].wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[1].wr.imm_data, 0);
	CHECK_EQ(F.posted[1].wr.num_sge, 1);
	CHECK_EQ(F.posted[1].wr.wr.rdma.remote_addr, 0xabc);
	CHECK_EQ(F.posted[1].wr.wr.rdma.rkey, 0x12);
	CHECK_EQ(F.posted[1].sge[0].addr, (uintptr_t)(buf + 120));
	CHECK_EQ(F.posted[1].sge[0].length, 8);
	CHECK_EQ(F.posted[1].sge[0].lkey, 1);
	CHECK_EQ(F.posted[2].wr.num_sge, 0);
	CHECK(F.posted[2].wr.sg_list == NULL);
	CHECK_EQ(F.posted[3].sge[0].length, UINT32_MAX);
	CHECK_EQ(F.posted[4].sge[0].lkey, 0);
	CHECK_EQ(F.posted[4].wr.send_flags, IBV_SEND_INLINE);
	CHECK_EQ(F.posted[5].wr.opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(F.posted[5].wr.wr.rdma.remote_addr, 0xdef);
	CHECK_EQ(F.posted[5].wr.wr.rdma.rkey, 0x34);
}

/*
 * "Inside the MR" is mr->addr <= addr and addr + length <= mr->addr +
 * mr->length, as integers: no sum may wrap past the top of the address
 * space, on either path (the second round is on the fast path).
 */
static void post_range_does_not_wrap(void)
{
	struct ibv_mr all, top;
	int i;

	fake_setup(4, 4, 4);
	all = fake_mr(NULL, SIZE_MAX, 1);			/* [0, 2^64 - 1) */
	top = fake_mr((void *)(UINTPTR_MAX - 4095), 8192, 1);	/* wraps */
	for (i = 0; i < 2; i++) {
		/* addr + length wraps to 8 */
		CHECK_ERR(rdma_post_send(&F.id, NULL,
					 (void *)(UINTPTR_MAX - 7), 16, &all,
					 0), EINVAL);
		/* below mr->addr, inside what the MR's end wraps to */
		CHECK_ERR(rdma_post_send(&F.id, NULL, (void *)16, 8, &top, 0),
			  EINVAL);
		CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, &all, 0), 0);
	}
	CHECK_EQ(F.post_calls, 2);
}

/* A thread's first post, to an id without a QP. */
struct first_post {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	int ret[2], err[2];
};

static void *first_post_fn(void *arg)
{
	struct first_post *p = arg;

	errno = 0;
	p->ret[0] = rdma_post_send(p->id, NULL, buf, 8, p->mr, 0);
	p->err[0] = errno;
	errno = 0;
	p->ret[1] = rdma_post_write(p->id, NULL, buf, 8, p->mr, 0, 0, 1);
	p->err[1] = errno;
	return NULL;
}

/* A new thread has no last QP: nothing, NULL included, matches it. */
static void post_new_thread_null_qp(void)
{
	struct first_post p;
	struct ibv_mr mr;
	pthread_t th;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	F.id.qp = NULL;
	p = (struct first_post){ .id = &F.id, .mr = &mr };
	CHECK_EQ(pthread_create(&th, NULL, first_post_fn, &p), 0);
	CHECK_EQ(pthread_join(th, NULL), 0);
	CHECK_EQ(p.ret[0], -1);
	CHECK_EQ(p.err[0], EINVAL);
	CHECK_EQ(p.ret[1], -1);
	CHECK_EQ(p.err[1], EINVAL);
	CHECK_EQ(F.post_calls, 0);
}

static void *seed_fn(void *arg)
{
	struct rwxi_caps none = { 0, 4, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };

	fake_qp_caps(arg, &none, 1);
	return NULL;
}

/*
 * This thread's last QP is destroyed and a QP with no send SGEs is
 * created at the same address, with another QP number, handle or
 * context (on another device the number and handle can be the same):
 * the next post must find the new QP's limit, not the old one's.  The
 * new limit is seeded from another thread, which leaves this thread's
 * last QP as it was.
 */
static void post_last_qp_reused_address(void)
{
	struct ibv_context ctx2;
	struct ibv_mr mr;
	pthread_t th;
	int i;

	for (i = 0; i < 3; i++) {
		fake_setup(4, 4, 4);
		mr = fake_mr(buf, sizeof(buf), 1);
		CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), 0);
		CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1),
			 0);
		if (i == 0) {
			F.qp.qp_num++;
		} else if (i == 1) {
			F.qp.handle++;
		} else {
			ctx2 = F.ctx;
			F.qp.context = &ctx2;
		}
		CHECK_EQ(pthread_create(&th, NULL, seed_fn, &F.qp), 0);
		CHECK_EQ(pthread_join(th, NULL), 0);
		CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
		CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1),
			  EINVAL);
		CHECK_EQ(rdma_post_send(&F.id, NULL, NULL, 0, NULL, 0), 0);
		CHECK_EQ(F.post_calls, 3);
		CHECK_EQ(F.posted[2].wr.num_sge, 0);
		rwxi_caps_forget(&F.qp);
	}
}

static void reg_and_dereg_reject_null(void)
{
	struct rdma_cm_id id;

	memset(&id, 0, sizeof(id));
	errno = 0;
	CHECK(rdma_reg_msgs(NULL, buf, 8) == NULL);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(rdma_reg_read(&id, buf, 8) == NULL);	/* no PD */
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK(rdma_reg_write(&id, buf, 8) == NULL);
	CHECK_EQ(errno, EINVAL);
	CHECK_ERR(rdma_dereg_mr(NULL), EINVAL);
}

/*
 * Stale limits (caps.c): the QP posted to is destroyed and a new one made
 * with the same address, handle and number (siw and uverbs hand out the
 * lowest free), so the cache still holds the old QP's limits.
 */

/* The old QP took fewer SGEs: the new one's post must not be refused. */
static void post_stale_limits_refuse_nothing(void)
{
	struct rwxi_caps none = { 0, 1, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps four = { 4, 4, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_sge sgl[3];
	struct ibv_mr mr;

	fake_setup(2, 1, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	sgl_in_buf(sgl, 3);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EINVAL);
	fake_qp_caps(&F.qp, &four, 0);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), 0);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 3), 0);
	/* the single-buffer fast path: a QP without send SGEs before */
	fake_qp_caps(&F.qp, &none, 1);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	fake_qp_caps(&F.qp, &four, 0);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 8, &mr, 0, 0, 1), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), 0);
	CHECK_EQ(F.post_calls, 4);
}

/*
 * The old QP took more SGEs: the provider fails the post (ENOMEM, as
 * mlx5), and the library says EINVAL, as for any post over the QP's
 * limits; then it knows the new limits and refuses without posting.
 */
static void post_stale_limits_say_einval(void)
{
	struct rwxi_caps none = { 0, 1, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct rwxi_caps two = { 2, 2, 4, FAKE_SEND_WR, FAKE_INLINE, FAKE_MSG, 0, 0 };
	struct ibv_sge sgl[3];
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	sgl_in_buf(sgl, 3);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), 0);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 3), 0);
	fake_qp_caps(&F.qp, &two, 0);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EINVAL);
	CHECK_EQ(F.post_calls, 3);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EINVAL);
	CHECK_EQ(F.post_calls, 3);
	fake_qp_caps(&F.qp, &two, 0);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, sgl, 3), EINVAL);
	CHECK_EQ(F.post_calls, 3);
	/* the fast path: one SGE on the old QP, none on the new */
	fake_qp_caps(&F.qp, &two, 1);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), 0);
	fake_qp_caps(&F.qp, &none, 0);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, &mr, 0, 0, 1), EINVAL);
	CHECK_EQ(F.post_calls, 5);
	CHECK_EQ(F.nposted, 3);
}

/* SRQs the same (their cache key has no number at all). */
static void post_stale_srq_limits(void)
{
	struct ibv_sge sgl[3];

	fake_setup(4, 4, 4);
	sgl_in_buf(sgl, 3);
	F.id.srq = &F.srq;
	fake_srq_caps(&F.srq, 2, 1);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, sgl, 3), EINVAL);
	fake_srq_caps(&F.srq, 4, 0);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 3), 0);
	fake_srq_caps(&F.srq, 2, 0);
	CHECK_ERR(rdma_post_recvv(&F.id, NULL, sgl, 3), EINVAL);
	CHECK_EQ(rdma_post_recvv(&F.id, NULL, sgl, 2), 0);
	CHECK_EQ(F.nposted, 2);
	CHECK(F.posted[0].to_srq && F.posted[1].to_srq);
}

/* A provider's failure that the limits do not explain stays its own. */
static void post_provider_errno_kept(void)
{
	struct ibv_sge sgl[3];
	int queries;

	fake_setup(4, 4, 4);
	sgl_in_buf(sgl, 3);
	F.post_ret = EAGAIN;
	queries = F.queries;
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 3, 0), EAGAIN);
	CHECK_EQ(F.queries, queries + 1);
}

/*
 * Inline data over the QP's max_inline_data: EINVAL, whatever the
 * provider says (the fake, as mlx5, ENOMEM), on the slow and fast paths.
 */
static void post_inline_over_max(void)
{
	struct ibv_sge sgl[2] = { { (uintptr_t)buf, 40, 0 },
				  { (uintptr_t)buf + 40, 40, 0 } };
	struct ibv_mr mr;

	fake_setup(4, 4, 4);
	mr = fake_mr(buf, sizeof(buf), 1);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE + 1, NULL,
				 IBV_SEND_INLINE), EINVAL);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE, NULL,
				IBV_SEND_INLINE), 0);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE + 1, NULL,
				 IBV_SEND_INLINE), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, FAKE_INLINE + 1, &mr,
				  IBV_SEND_INLINE, 0, 1), EINVAL);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, sgl, 2, IBV_SEND_INLINE),
		  EINVAL);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 1, IBV_SEND_INLINE), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE + 1, &mr, 0),
		 0);
	CHECK_EQ(F.nposted, 3);
}

void suite_post(void)
{
	RUN(post_null_id);
	RUN(post_id_without_qp);
	RUN(post_length_over_u32);
	RUN(post_nsge_over_qp_max);
	RUN(post_nsge_negative_or_null_sgl);
	RUN(post_no_mr_needs_inline);
	RUN(post_buffer_outside_mr);
	RUN(post_send_builds_librdmacm_wr);
	RUN(post_rdma_builds_remote_fields);
	RUN(post_ud_send_fields);
	RUN(post_send_on_ud_needs_ah);
	RUN(post_zero_length_needs_no_mr);
	RUN(post_recv_goes_to_srq);
	RUN(post_recv_srq_without_qp);
	RUN(post_xrc_send_refused);
	RUN(post_provider_error_sets_errno);
	RUN(post_single_sge_limit);
	RUN(post_read_refuses_inline);
	RUN(post_alternating_qps);
	RUN(post_seed_replaces_last_qp);
	RUN(post_fast_path_rejects);
	RUN(post_range_does_not_wrap);
	RUN(post_new_thread_null_qp);
	RUN(post_last_qp_reused_address);
	RUN(post_stale_limits_refuse_nothing);
	RUN(post_stale_limits_say_einval);
	RUN(post_stale_srq_limits);
	RUN(post_provider_errno_kept);
	RUN(post_inline_over_max);
	RUN(reg_and_dereg_reject_null);
}
