// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The ibv_wr_* path: which posts take the QP's builders, which take
 * ibv_post_send(), and what a builder-posted WR carries.  (main.c also
 * runs the posting suites whole on a QP with builders.)
 */
#include <arpa/inet.h>

#include "rwx_test.h"

static char buf[4096] __attribute__((aligned(64)));

/*
 * Which way each posted WR went, in order: 'w' through the builders, 'p'
 * through post_send.  A CHECK of its result returns from the test.
 */
static int paths_are(const char *want)
{
	int i, n = (int)strlen(want);

	if (F.nposted != n)
		return 0;
	for (i = 0; i < n; i++)
		if (F.posted[i].via_wr != (want[i] == 'w'))
			return 0;
	return 1;
}

/* fake_setup() with the QP @api says; the caller's setting is restored. */
static void setup_wr(enum fake_wr_api api)
{
	enum fake_wr_api was = fake_wr_api;

	fake_wr_api = api;
	fake_setup(4, 4, 4);
	fake_wr_api = was;
}

/*
 * Every single-WR post of one SGE or none takes the builders, on the
 * slow path (the first post to a QP) and the fast one (the next), with
 * the fields ibv_post_send() would have been given.
 */
static void wr_single_posts_use_builders(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 16, 9 };
	struct ibv_mr mr;
	int i;

	setup_wr(FAKE_WR_ALL);
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_send(&F.id, (void *)1, buf, 32, &mr,
				IBV_SEND_SIGNALED), 0);
	CHECK_EQ(rdma_post_send(&F.id, (void *)2, buf + 8, 24, &mr, 0), 0);
	CHECK_EQ(rdma_post_write(&F.id, (void *)3, buf, 64, &mr, 0,
				 0xabc000, 0x77), 0);
	CHECK_EQ(rdma_post_read(&F.id, (void *)4, buf, 64, &mr,
				IBV_SEND_SIGNALED, 0xabc040, 0x78), 0);
	CHECK_EQ(rdma_post_send(&F.id, (void *)5, buf, 16, NULL,
				IBV_SEND_INLINE), 0);
	CHECK_EQ(rdma_post_send(&F.id, (void *)6, NULL, 0, NULL, 0), 0);
	CHECK_EQ(rdma_post_sendv(&F.id, (void *)7, &sge, 1, 0), 0);
	CHECK_EQ(rdma_post_writev(&F.id, (void *)8, &sge, 1, 0, 0xd00, 5), 0);
	CHECK_EQ(rwx_post_send_imm(&F.id, (void *)9, buf, 8, &mr, 0,
				   htonl(42)), 0);
	CHECK_EQ(rwx_post_write_imm(&F.id, (void *)10, buf, 8, &mr, 0, 0xe00,
				    6, htonl(43)), 0);
	CHECK_EQ(rwx_post_send_inv(&F.id, (void *)11, buf, 8, &mr, 0, 0x99),
		 0);
	CHECK_EQ(rwx_post_atomic_fadd(&F.id, (void *)12, buf, 8, &mr, 0,
				      0xf00, 7, 3), 0);
	CHECK_EQ(rwx_post_atomic_cswap(&F.id, (void *)13, buf, 8, &mr, 0,
				       0xf08, 8, 4, 5), 0);
	CHECK(paths_are("wwwwwwwwwwwww"));
	CHECK_EQ(F.wr_completes, 13);
	for (i = 0; i < 13; i++)
		CHECK_EQ(F.posted[i].wr.wr_id, i + 1);
	CHECK_EQ(F.posted[0].wr.opcode, IBV_WR_SEND);
	CHECK_EQ(F.posted[0].wr.send_flags, IBV_SEND_SIGNALED);
	CHECK_EQ(F.posted[0].wr.num_sge, 1);
	CHECK_EQ(F.posted[0].sge[0].addr, (uintptr_t)buf);
	CHECK_EQ(F.posted[0].sge[0].length, 32);
	CHECK_EQ(F.posted[0].sge[0].lkey, 9);
	CHECK_EQ(F.posted[1].sge[0].addr, (uintptr_t)(buf + 8));
	CHECK_EQ(F.posted[1].wr.send_flags, 0);
	CHECK_EQ(F.posted[2].wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[2].wr.wr.rdma.remote_addr, 0xabc000);
	CHECK_EQ(F.posted[2].wr.wr.rdma.rkey, 0x77);
	CHECK_EQ(F.posted[3].wr.opcode, IBV_WR_RDMA_READ);
	CHECK_EQ(F.posted[3].wr.wr.rdma.remote_addr, 0xabc040);
	CHECK_EQ(F.posted[3].wr.wr.rdma.rkey, 0x78);
	CHECK_EQ(F.posted[3].wr.send_flags, IBV_SEND_SIGNALED);
	/* Inline data: through ibv_wr_set_inline_data(), the flag kept. */
	CHECK_EQ(F.posted[4].wr_inline, 1);
	CHECK_EQ(F.posted[0].wr_inline, 0);
	CHECK_EQ(F.posted[4].wr.send_flags, IBV_SEND_INLINE);
	CHECK_EQ(F.posted[4].sge[0].addr, (uintptr_t)buf);
	CHECK_EQ(F.posted[4].sge[0].length, 16);
	CHECK_EQ(F.posted[5].wr.num_sge, 0);
	CHECK_EQ(F.posted[6].sge[0].length, 16);
	CHECK_EQ(F.posted[7].wr.opcode, IBV_WR_RDMA_WRITE);
	CHECK_EQ(F.posted[7].wr.wr.rdma.rkey, 5);
	CHECK_EQ(F.posted[8].wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_EQ(ntohl(F.posted[8].wr.imm_data), 42);
	CHECK_EQ(F.posted[9].wr.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
	CHECK_EQ(ntohl(F.posted[9].wr.imm_data), 43);
	CHECK_EQ(F.posted[9].wr.wr.rdma.remote_addr, 0xe00);
	CHECK_EQ(F.posted[10].wr.opcode, IBV_WR_SEND_WITH_INV);
	CHECK_EQ(F.posted[10].wr.invalidate_rkey, 0x99);
	CHECK_EQ(F.posted[11].wr.opcode, IBV_WR_ATOMIC_FETCH_AND_ADD);
	CHECK_EQ(F.posted[11].wr.wr.atomic.remote_addr, 0xf00);
	CHECK_EQ(F.posted[11].wr.wr.atomic.rkey, 7);
	CHECK_EQ(F.posted[11].wr.wr.atomic.compare_add, 3);
	CHECK_EQ(F.posted[12].wr.opcode, IBV_WR_ATOMIC_CMP_AND_SWP);
	CHECK_EQ(F.posted[12].wr.wr.atomic.compare_add, 4);
	CHECK_EQ(F.posted[12].wr.wr.atomic.swap, 5);
}

/* UD: the address through ibv_wr_set_ud_addr(). */
static void wr_ud_sets_address(void)
{
	struct ibv_ah *ah = (struct ibv_ah *)buf;	/* never dereferenced */
	struct ibv_mr mr;

	setup_wr(FAKE_WR_ALL);
	F.qp.qp_type = F.id.qp_type = IBV_QPT_UD;
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_ud_send(&F.id, NULL, buf, 8, &mr, 0, ah, 5), 0);
	CHECK_EQ(rwx_post_ud_send_imm(&F.id, NULL, buf, 8, &mr, 0, ah, 6,
				      0x1234, htonl(1)), 0);
	CHECK_EQ(F.wr_completes, 2);
	CHECK_EQ(F.posted[0].via_wr, 1);
	CHECK(F.posted[0].wr.wr.ud.ah == ah);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qpn, 5);
	CHECK_EQ(F.posted[0].wr.wr.ud.remote_qkey, RDMA_UDP_QKEY);
	CHECK_EQ(F.posted[1].wr.opcode, IBV_WR_SEND_WITH_IMM);
	CHECK_EQ(F.posted[1].wr.wr.ud.remote_qkey, 0x1234);
}

/*
 * ibv_post_send() where the builders cannot carry the WR: more than one
 * SGE (rxe before rdma-core v64 miscounts an SGE list's bytes), caller
 * lists, RW context chains.
 */
static void wr_lists_use_post_send(void)
{
	struct ibv_sge sgl[2] = { { (uintptr_t)buf, 100, 9 },
				  { (uintptr_t)buf + 100, 4, 9 } };
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND, .sg_list = sgl,
				  .num_sge = 1 }, *bad;
	struct iovec iov = { buf, 2048 };
	struct ibv_mr mr, *mrs[1] = { &mr };
	struct rwx_rw_ctx ctx;

	setup_wr(FAKE_WR_ALL);
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_sendv(&F.id, NULL, sgl, 2, 0), 0);
	CHECK_EQ(rdma_post_writev(&F.id, NULL, sgl, 2, 0, 0x1000, 1), 0);
	CHECK_EQ(rwx_post_list(&F.id, &wr, &bad), 0);
	CHECK_EQ(rwx_rw_ctx_init(&ctx, &F.qp, &iov, 1, mrs, 1, 0x2000, 3,
				 RWX_RW_WRITE), 1);
	CHECK_EQ(rwx_rw_ctx_post(&ctx, 77, NULL, &bad), 0);
	rwx_rw_ctx_destroy(&ctx);
	CHECK(paths_are("pppp"));
	CHECK_EQ(F.wr_completes, 0);
	CHECK_EQ(F.posted[0].wr.num_sge, 2);
}

/*
 * An ibv_qp_ex without builders (rxe gives rdma_cm's QPs one): all goes
 * through ibv_post_send(), fast path included.
 */
static void wr_bare_qp_ex_uses_post_send(void)
{
	struct ibv_mr mr;

	setup_wr(FAKE_WR_BARE);
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rwx_post_send_imm(&F.id, NULL, buf, 8, &mr, 0, 0), 0);
	CHECK(paths_are("pppp"));
	CHECK_EQ(F.wr_completes, 0);
	CHECK_EQ(F.post_calls, 4);
}

/*
 * Builders for some opcodes only (send_ops_flags asked for SEND): the
 * others go through ibv_post_send().
 */
static void wr_opcode_without_builder(void)
{
	struct ibv_mr mr;

	setup_wr(FAKE_WR_ALL);
	F.qpx.wr_rdma_write = NULL;
	F.qpx.wr_rdma_read = NULL;
	rwxi_caps_forget(&F.qp);	/* as if the QP were queried so */
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rdma_post_read(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK(paths_are("pwppw"));
}

/*
 * The cached wr_ops are a destroyed QP's: the new QP at the same address,
 * handle and number has no builders.  No NULL builder is called; the
 * posts go through ibv_post_send().
 */
static void wr_stale_builders_not_called(void)
{
	struct ibv_mr mr;

	setup_wr(FAKE_WR_ALL);
	mr = fake_mr(buf, sizeof(buf), 9);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK_EQ(F.posted[0].via_wr, 1);
	/* The QP destroyed and made again without send_ops_flags. */
	memset((char *)&F.qpx + sizeof(F.qp), 0,
	       sizeof(F.qpx) - sizeof(F.qp));
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), 0);
	CHECK_EQ(rdma_post_write(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rdma_post_read(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1), 0);
	CHECK_EQ(rwx_post_send_imm(&F.id, NULL, buf, 8, &mr, 0, 0), 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, NULL, 0, NULL, 0), 0);
	CHECK(paths_are("wppppp"));
	CHECK_EQ(F.wr_completes, 1);
}

/*
 * ibv_wr_complete() failing: nothing posted; the provider's errno, but
 * ENOMEM for a full send queue (rxe's builders say ENOSPC, ibv_post_send
 * ENOMEM), and EINVAL where the QP's limits refuse the WR (inline data
 * over max_inline_data: the fake, as mlx5, says ENOMEM).
 */
static void wr_complete_failure(void)
{
	struct ibv_mr mr;

	setup_wr(FAKE_WR_ALL);
	mr = fake_mr(buf, sizeof(buf), 9);
	F.post_ret = ENOSPC;
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), ENOMEM);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), ENOMEM);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 32, &mr, 0, 0x100, 1),
		  ENOMEM);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, buf, 8, &mr, 0, 0x100, 1,
				       1), ENOMEM);
	F.post_ret = EIO;
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 32, &mr, 0), EIO);
	CHECK_ERR(rdma_post_sendv(&F.id, NULL, NULL, 0, 0), EIO);
	CHECK_EQ(F.wr_completes, 6);
	CHECK_EQ(F.nposted, 0);
	F.post_ret = 0;
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE + 1, NULL,
				 IBV_SEND_INLINE), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, FAKE_INLINE + 1, &mr,
				  IBV_SEND_INLINE, 0x100, 1), EINVAL);
	CHECK_EQ(F.nposted, 0);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, FAKE_INLINE, NULL,
				IBV_SEND_INLINE), 0);
	CHECK_EQ(F.nposted, 1);
}

/* Refusals on a builder QP leave no region open and nothing posted. */
static void wr_refusals_open_no_region(void)
{
	struct ibv_mr mr;

	setup_wr(FAKE_WR_ALL);
	mr = fake_mr(buf, 64, 9);
	CHECK_EQ(rdma_post_send(&F.id, NULL, buf, 8, &mr, 0), 0);
	CHECK_ERR(rdma_post_send(&F.id, NULL, buf, 65, &mr, 0), EINVAL);
	CHECK_ERR(rdma_post_read(&F.id, NULL, buf, 8, &mr, IBV_SEND_INLINE,
				 0x100, 1), EINVAL);
	CHECK_ERR(rdma_post_write(&F.id, NULL, buf, 8, NULL, 0, 0x100, 1),
		  EINVAL);
	CHECK_ERR(rwx_post_atomic_fadd(&F.id, NULL, buf + 4, 8, &mr, 0, 0x100,
				       1, 1), EINVAL);
	CHECK_EQ(F.nposted, 1);
	CHECK_EQ(F.wr_completes, 1);
}

/* A provider's own create_qp_ex: in the same object as its post_send. */
static struct ibv_qp *own_create_qp_ex(struct ibv_context *ctx,
				       struct ibv_qp_init_attr_ex *attr)
{
	(void)ctx;
	(void)attr;
	return NULL;
}

/*
 * ibv_qp_to_qp_ex() reads past a struct ibv_qp: the library asks it only
 * of QPs whose provider has a create_qp_ex of its own (and so allocates
 * struct verbs_qp), never of a bare ibv_qp such as siw's, followed here by
 * bytes that would read as an ibv_qp_ex with builders.
 */
static void wr_qp_ex_only_where_provider_has_it(void)
{
	static union {
		struct ibv_qp qp;
		unsigned char bytes[1024];
	} q;
	static struct verbs_context v;

	fake_setup(4, 4, 4);
	memset(&q, 0xff, sizeof(q));
	memset(&q.qp, 0, sizeof(q.qp));
	q.qp.qp_type = IBV_QPT_RC;
	/* A context of the old ABI: no create_qp_ex at all. */
	q.qp.context = &F.ctx;
	CHECK(rwxi_qp_ex_of(&q.qp) == NULL);
	/* libibverbs' placeholder where the provider has none. */
	memset(&v, 0, sizeof(v));
	v.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v.sz = sizeof(v);
	v.context.ops.post_send = F.ctx.ops.post_send;
	v.create_qp_ex = (struct ibv_qp *(*)(struct ibv_context *,
					     struct ibv_qp_init_attr_ex *))
			 (void (*)(void))ibv_qp_to_qp_ex;
	q.qp.context = &v.context;
	CHECK(rwxi_qp_ex_of(&q.qp) == NULL);
	rwxi_qp_to_qp_ex = rwxi_qp_ex_of;
	CHECK_EQ(rwxi_wr_ops(&q.qp), 0);
	/* The provider's own: its QPs are verbs_qp, asked. */
	v.create_qp_ex = own_create_qp_ex;
	CHECK(rwxi_qp_ex_of(&q.qp) == (struct ibv_qp_ex *)&q.qp);
}

void suite_wr(void)
{
	RUN(wr_single_posts_use_builders);
	RUN(wr_ud_sets_address);
	RUN(wr_lists_use_post_send);
	RUN(wr_bare_qp_ex_uses_post_send);
	RUN(wr_opcode_without_builder);
	RUN(wr_stale_builders_not_called);
	RUN(wr_complete_failure);
	RUN(wr_refusals_open_no_region);
	RUN(wr_qp_ex_only_where_provider_has_it);
}
