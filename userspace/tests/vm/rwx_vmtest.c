// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_vmtest: librdmarwx against a real provider (Soft-RoCE in the VM).
 *
 * Both ends live in this process: a helper thread accepts (rdma_get_request
 * + rdma_accept), the main thread connects, and from then on the main
 * thread drives the server id and the client id alike.  Every data
 * transfer is checked byte for byte; every wait has a deadline, and an
 * alarm() watchdog ends the run if a blocking call (rdma_get_*_comp,
 * rdma_connect) never returns.
 *
 * Output: one line per check, "ok NAME", "FAIL NAME: detail" or
 * "skip NAME: why", then "N passed, N failed, N skipped".  Exit status 0
 * only if nothing failed.
 *
 *   rwx_vmtest [-a ADDR]                 the suite (ADDR default 192.0.2.1)
 *   rwx_vmtest -S PORT                   rdma_server-compatible server
 *   rwx_vmtest -C PORT [-a ADDR]         rdma_client-compatible client
 *
 * -S / -C speak the protocol of librdmacm's rdma_server / rdma_client
 * examples (16-byte message each way, the client sends first) so that
 * either side can be run against the rdmacm-utils binaries.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rwx_verbs.h>

#include "rwx_conn.h"

#define ARENA		(1u << 20)	/* per side and connection */
#define TMO		10000		/* ms: any single completion wait */
#define CONN_TMO	60		/* s: connection setup watchdog */
#define GRH		40		/* UD receive header */
#define UDP_QKEY	0x01234567u	/* RDMA_UDP_QKEY of rdma_cm */
#define RXE_KERNEL_WITH_INV (1u << 2)	/* IB_WC_WITH_INVALIDATE, see t_inv */

static const char *addr = "192.0.2.1";
static int port_next = 20000;
static int npass, nfail, nskip;
static const char *volatile cur_check = "start";
static const char *name_prefix = "";	/* "wr: " on builder QPs */

/* ---- reporting --------------------------------------------------------- */

static void summary(void)
{
	printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
	fflush(stdout);
}

static void ok(const char *name)
{
	printf("ok %s%s\n", name_prefix, name);
	npass++;
}

static void __attribute__((format(printf, 2, 3)))
failf(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s%s: ", name_prefix, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nfail++;
}

static void __attribute__((format(printf, 2, 3)))
skipf(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("skip %s%s: ", name_prefix, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nskip++;
}

/* Detail buffer filled by the helpers that can fail. */
static char why[512];

static void __attribute__((format(printf, 1, 2))) setwhy(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

/* Check: pass if cond, else fail with the current detail text. */
static int expect(const char *name, int cond)
{
	if (cond)
		ok(name);
	else
		failf(name, "%s", why[0] ? why : "condition false");
	why[0] = 0;
	return cond;
}

/* A call that must fail with -1/EINVAL. */
static int expect_einval(const char *name, int ret)
{
	int e = errno;

	if (ret == -1 && e == EINVAL) {
		ok(name);
		return 1;
	}
	failf(name, "returned %d errno %d (%s), want -1/EINVAL", ret, e,
	      strerror(e));
	return 0;
}

/* Watchdog: a blocking call that never returns ends the run as a FAIL. */
static void on_alarm(int sig)
{
	char buf[256];
	int n;

	(void)sig;
	n = snprintf(buf, sizeof(buf),
		     "FAIL %s: watchdog: blocked too long\n"
		     "%d passed, %d failed, %d skipped\n",
		     cur_check, npass, nfail + 1, nskip);
	if (n > 0 && write(1, buf, (size_t)n) < 0)
		_exit(3);
	_exit(1);
}

static void watch(const char *name, unsigned s)
{
	cur_check = name;
	alarm(s);
}

/* The group watchdog, re-armed after each shorter, named one. */
static const char *group = "start";

static void rewatch(void)
{
	watch(group, 180);
}

static void begin(const char *g)
{
	group = g;
	rewatch();
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8) + 1);
}

/* First differing offset, or -1. */
static long diff_at(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return (long)i;
	return -1;
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/* ---- completions --------------------------------------------------------- */

/* Collect exactly n completions within timeout_ms; 0 on success. */
static int reap(struct rdma_cm_id *id, enum rwx_cq_sel which,
		struct ibv_wc *wc, int n, int timeout_ms)
{
	double end = now_s() + timeout_ms / 1000.0;
	int got = 0;

	while (got < n) {
		int left = (int)((end - now_s()) * 1000);
		int r;

		if (left <= 0) {
			setwhy("%d of %d completions within %d ms", got, n,
			       timeout_ms);
			return -1;
		}
		r = rwx_wait_comp(id, which, wc + got, n - got, left);
		if (r < 0) {
			setwhy("rwx_wait_comp: %s after %d of %d completions",
			       strerror(errno), got, n);
			return -1;
		}
		got += r;
	}
	return 0;
}

static const char *wc_str(const struct ibv_wc *wc)
{
	static char b[160];

	snprintf(b, sizeof(b), "wr_id %#" PRIx64 " status %d (%s) opcode %d "
		 "byte_len %u flags %#x", wc->wr_id, wc->status,
		 ibv_wc_status_str(wc->status), wc->opcode, wc->byte_len,
		 wc->wc_flags);
	return b;
}

/* One successful completion with the given opcode and wr_id. */
static int wc_is(const struct ibv_wc *wc, enum ibv_wc_opcode op,
		 uint64_t wr_id)
{
	if (wc->status == IBV_WC_SUCCESS && wc->opcode == op &&
	    wc->wr_id == wr_id)
		return 1;
	setwhy("got %s; want opcode %d wr_id %#" PRIx64, wc_str(wc), op,
	       wr_id);
	return 0;
}

/* Wait for one completion and check it. */
static int one(struct rdma_cm_id *id, enum rwx_cq_sel which,
	       struct ibv_wc *wc, enum ibv_wc_opcode op, uint64_t wr_id)
{
	memset(wc, 0, sizeof(*wc));
	if (reap(id, which, wc, 1, TMO))
		return 0;
	return wc_is(wc, op, wr_id);
}

/* Nothing must complete within ms (the post was rejected). */
static int quiet(struct rdma_cm_id *id, enum rwx_cq_sel which, int ms)
{
	struct ibv_wc wc;
	int r = rwx_wait_comp(id, which, &wc, 1, ms);

	if (r == -1 && errno == ETIMEDOUT)
		return 1;
	if (r > 0)
		setwhy("unexpected completion: %s", wc_str(&wc));
	else
		setwhy("rwx_wait_comp: %d/%s", r, strerror(errno));
	return 0;
}

/* ---- connections --------------------------------------------------------- */

struct conn {
	struct rdma_cm_id *lid, *srv, *cli;
	uint8_t *sbuf, *cbuf;		/* server / client arenas */
	struct ibv_mr *smr, *cmr;	/* whole arenas, all access */
	struct ibv_qp_cap ccap, scap;	/* queried caps */
	int ud;
};

struct conn_opt {
	uint32_t send_sge, recv_sge;
	int ud;
	int srq;		/* client receives through an SRQ (max_sge 2) */
	int sig_all;		/* QPs created with sq_sig_all */
	int wr;			/* QPs of rwx_create_qp(): ibv_wr_* builders */
};

static int getai(int passive, int ud, int port, struct rdma_addrinfo **res)
{
	struct rdma_addrinfo hints;
	char ps[16];
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_NUMERICHOST | (passive ? RAI_PASSIVE : 0);
	hints.ai_port_space = ud ? RDMA_PS_UDP : RDMA_PS_TCP;
	hints.ai_qp_type = ud ? IBV_QPT_UD : IBV_QPT_RC;
	snprintf(ps, sizeof(ps), "%d", port);
	ret = rdma_getaddrinfo(addr, ps, &hints, res);
	if (ret)
		setwhy("rdma_getaddrinfo %s:%s: %s (%s)", addr, ps,
		       gai_strerror(ret), strerror(errno));
	return ret ? -1 : 0;
}

static void init_attr(struct ibv_qp_init_attr *a, const struct conn_opt *o)
{
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = 64;
	a->cap.max_recv_wr = 64;
	a->cap.max_send_sge = o->send_sge;
	a->cap.max_recv_sge = o->recv_sge;
	a->cap.max_inline_data = 0;	/* rxe widens SGEs for inline room */
	a->qp_type = o->ud ? IBV_QPT_UD : IBV_QPT_RC;
	a->sq_sig_all = o->sig_all;
}

static int query_cap(struct rdma_cm_id *id, struct ibv_qp_cap *cap)
{
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr ia;

	memset(&qa, 0, sizeof(qa));
	memset(&ia, 0, sizeof(ia));
	if (ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &ia)) {
		setwhy("ibv_query_qp: %s", strerror(errno));
		return -1;
	}
	*cap = qa.cap;
	return 0;
}

static struct ibv_mr *reg_all(struct rdma_cm_id *id, void *buf, size_t len)
{
	return ibv_reg_mr(id->pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC);
}

/* Client side of an SRQ connection: id, SRQ (max_sge 2), then the QP. */
static int make_srq_client(struct rdma_cm_id **cli, struct rdma_addrinfo *res,
			   const struct conn_opt *o)
{
	struct ibv_srq_init_attr sa;
	struct ibv_qp_init_attr qa;

	if (rdma_create_ep(cli, res, NULL, NULL)) {
		setwhy("rdma_create_ep (no QP): %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 2;
	if (rdma_create_srq(*cli, NULL, &sa)) {
		setwhy("rdma_create_srq: %s", strerror(errno));
		return -1;
	}
	init_attr(&qa, o);
	qa.srq = (*cli)->srq;
	if (rdma_create_qp(*cli, NULL, &qa)) {
		setwhy("rdma_create_qp with SRQ: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void conn_close(struct conn *c)
{
	/*
	 * No rdma_disconnect(): on a synchronous id it waits for the
	 * DISCONNECTED event; rdma_destroy_ep() tears the connection down.
	 */
	watch("teardown: dereg", CONN_TMO);
	if (c->smr)
		ibv_dereg_mr(c->smr);
	if (c->cmr)
		ibv_dereg_mr(c->cmr);
	watch("teardown: destroy server ep", CONN_TMO);
	if (c->srv)
		rdma_destroy_ep(c->srv);
	watch("teardown: destroy client ep", CONN_TMO);
	if (c->cli)
		rdma_destroy_ep(c->cli);
	watch("teardown: destroy listen ep", CONN_TMO);
	if (c->lid)
		rdma_destroy_ep(c->lid);
	free(c->sbuf);
	free(c->cbuf);
	memset(c, 0, sizeof(*c));
	rewatch();
}

/*
 * Whether @qp has the ibv_wr_* builders rwx_create_qp() asks for, so that
 * the library's posts to it take that path (checked by the unit tests).
 */
static int has_builders(struct ibv_qp *qp, const struct conn_opt *o)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	return x && x->wr_start && x->wr_send && x->wr_send_imm &&
	       (o->ud || (x->wr_rdma_write && x->wr_rdma_read &&
			  x->wr_atomic_fetch_add));
}

/*
 * Regions the library opened with the provider's ibv_wr_start() on QPs of
 * rwx_create_qp(): each such QP's wr_start is wrapped to count them, so
 * that a group run on them shows its posts went through the builders.
 */
static unsigned long wr_regions;
static void (*provider_wr_start)(struct ibv_qp_ex *qp);

static void counting_wr_start(struct ibv_qp_ex *qp)
{
	wr_regions++;
	provider_wr_start(qp);
}

static void count_regions(struct ibv_qp *qp)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	if (x->wr_start != counting_wr_start) {
		provider_wr_start = x->wr_start;
		x->wr_start = counting_wr_start;
	}
}

/* After a group on QPs of rwx_create_qp(): it posted through builders. */
static void expect_regions(const char *what, unsigned long before)
{
	char name[128];

	snprintf(name, sizeof(name),
		 "%s: posts went through the ibv_wr_* builders", what);
	setwhy("%lu regions", wr_regions - before);
	expect(name, wr_regions > before);
}

/*
 * Connect a client id to a server id through rdma_cm, both in this
 * process.  On failure reports "FAIL setup TAG" and returns -1.
 */
static int conn_open(struct conn *c, const char *tag, const struct conn_opt *o)
{
	struct rdma_addrinfo *sres = NULL, *cres = NULL;
	struct ibv_qp_init_attr attr, wr_attr;
	struct rwx_accept acc;
	pthread_t th;
	int port = port_next++, started = 0;
	char name[96];

	snprintf(name, sizeof(name), "setup %s", tag);
	memset(c, 0, sizeof(*c));
	memset(&acc, 0, sizeof(acc));
	c->ud = o->ud;
	why[0] = 0;
	watch(name, CONN_TMO);
	if (getai(1, o->ud, port, &sres) || getai(0, o->ud, port, &cres))
		goto fail;
	init_attr(&attr, o);
	init_attr(&wr_attr, o);
	acc.wr_qp = o->wr ? &wr_attr : NULL;	/* made on accepting */
	if (rdma_create_ep(&c->lid, sres, NULL, o->wr ? NULL : &attr)) {
		setwhy("rdma_create_ep (passive): %s", strerror(errno));
		goto fail;
	}
	if (rdma_listen(c->lid, 4)) {
		setwhy("rdma_listen: %s", strerror(errno));
		goto fail;
	}
	acc.listen = c->lid;
	if (pthread_create(&th, NULL, rwx_accept_one, &acc)) {
		setwhy("pthread_create failed");
		goto fail;
	}
	started = 1;
	if (o->srq) {
		if (make_srq_client(&c->cli, cres, o))
			goto fail;
	} else {
		init_attr(&attr, o);
		if (rdma_create_ep(&c->cli, cres, NULL, o->wr ? NULL : &attr)) {
			setwhy("rdma_create_ep (active): %s", strerror(errno));
			goto fail;
		}
		if (o->wr && rwx_create_qp(c->cli, NULL, &attr)) {
			setwhy("rwx_create_qp: %s", strerror(errno));
			goto fail;
		}
	}
	if (rdma_connect(c->cli, NULL)) {
		setwhy("rdma_connect: %s", strerror(errno));
		goto fail;
	}
	pthread_join(th, NULL);
	started = 0;
	if (acc.ret) {
		setwhy("rdma_get_request/accept: %s", strerror(acc.err));
		goto fail;
	}
	c->srv = acc.id;
	if (query_cap(c->cli, &c->ccap) || query_cap(c->srv, &c->scap))
		goto fail;
	if (o->wr && !(has_builders(c->cli->qp, o) &&
		       has_builders(c->srv->qp, o))) {
		setwhy("a QP of rwx_create_qp() has no ibv_wr_* builders");
		goto fail;
	}
	if (o->wr) {
		count_regions(c->cli->qp);
		count_regions(c->srv->qp);
	}
	if (posix_memalign((void **)&c->sbuf, 4096, ARENA) ||
	    posix_memalign((void **)&c->cbuf, 4096, ARENA)) {
		setwhy("out of memory");
		goto fail;
	}
	memset(c->sbuf, 0, ARENA);
	memset(c->cbuf, 0, ARENA);
	c->smr = reg_all(c->srv, c->sbuf, ARENA);
	c->cmr = reg_all(c->cli, c->cbuf, ARENA);
	if (!c->smr || !c->cmr) {
		setwhy("ibv_reg_mr: %s", strerror(errno));
		goto fail;
	}
	rdma_freeaddrinfo(sres);
	rdma_freeaddrinfo(cres);
	rewatch();
	return 0;
fail:
	/* A blocked acceptor cannot be stopped cleanly: give up the run. */
	failf(name, "%s", why);
	why[0] = 0;
	if (started) {
		printf("# acceptor still blocked; ending the run\n");
		summary();
		exit(1);
	}
	if (sres)
		rdma_freeaddrinfo(sres);
	if (cres)
		rdma_freeaddrinfo(cres);
	conn_close(c);
	return -1;
}

/* ---- item 3 / 5: basic send/recv, SGE limits, get_*_comp ---------------- */

static void t_sendrecv(struct conn *c)
{
	uint8_t *s = c->sbuf, *cl = c->cbuf;
	struct ibv_wc wc;
	struct ibv_sge ss[3], rs[3];
	int r, arrived;

	why[0] = 0;
	setwhy("client cap send_sge %u recv_sge %u, server recv_sge %u",
	       c->ccap.max_send_sge, c->ccap.max_recv_sge,
	       c->scap.max_recv_sge);
	expect("ibv_query_qp caps: max_send_sge 2, max_recv_sge 2",
	       c->ccap.max_send_sge == 2 && c->ccap.max_recv_sge == 2 &&
	       c->scap.max_recv_sge == 2);

	/* rdma_post_recv / rdma_post_send and the blocking get_*_comp. */
	memset(s, 0xAB, 512);
	fill(cl, 100, 1);
	r = rdma_post_recv(c->srv, (void *)0x11, s, 256, c->smr);
	if (!expect("rdma_post_recv", r == 0 || (setwhy("%s", strerror(errno)), 0)))
		return;
	r = rdma_post_send(c->cli, (void *)0x22, cl, 100, c->cmr,
			   IBV_SEND_SIGNALED);
	if (!expect("rdma_post_send", r == 0 || (setwhy("%s", strerror(errno)), 0)))
		return;
	watch("rdma_get_send_comp", 20);
	memset(&wc, 0, sizeof(wc));
	r = rdma_get_send_comp(c->cli, &wc);
	if (r != 1)
		setwhy("returned %d (%s)", r, strerror(errno));
	expect("rdma_get_send_comp: one IBV_WC_SEND, wr_id 0x22",
	       r == 1 && wc_is(&wc, IBV_WC_SEND, 0x22));
	watch("rdma_get_recv_comp", 20);
	memset(&wc, 0, sizeof(wc));
	r = rdma_get_recv_comp(c->srv, &wc);
	rewatch();
	if (r != 1)
		setwhy("returned %d (%s)", r, strerror(errno));
	else if (wc_is(&wc, IBV_WC_RECV, 0x11) && wc.byte_len != 100)
		setwhy("byte_len %u, want 100", wc.byte_len);
	expect("rdma_get_recv_comp: one IBV_WC_RECV, wr_id 0x11, 100 bytes",
	       r == 1 && wc.status == IBV_WC_SUCCESS &&
	       wc.opcode == IBV_WC_RECV && wc.wr_id == 0x11 &&
	       wc.byte_len == 100);
	arrived = r == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == 0x11;
	if (arrived)	/* else the buffer says nothing */
		setwhy("payload differs at %ld", diff_at(s, cl, 100));
	expect("send/recv payload byte-exact, rest of buffer untouched",
	       arrived && !memcmp(s, cl, 100) && all_bytes(s + 100, 412, 0xAB));

	/* Inline send without an MR (rxe gives room = SGE bytes). */
	if (c->ccap.max_inline_data >= 16) {
		uint8_t msg[16];

		fill(msg, 16, 2);
		memset(s, 0, 64);
		r = rdma_post_recv(c->srv, (void *)0x12, s, 64, c->smr);
		r = r ? r : rdma_post_send(c->cli, (void *)0x23, msg, 16, NULL,
					   IBV_SEND_INLINE | IBV_SEND_SIGNALED);
		if (r)
			setwhy("post: %s", strerror(errno));
		expect("rdma_post_send IBV_SEND_INLINE, mr NULL: delivered",
		       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x23) &&
		       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x12) &&
		       (wc.byte_len == 16 || (setwhy("byte_len %u", wc.byte_len), 0)) &&
		       (!memcmp(s, msg, 16) || (setwhy("payload differs"), 0)));
	} else {
		skipf("rdma_post_send IBV_SEND_INLINE",
		      "max_inline_data %u < 16", c->ccap.max_inline_data);
	}

	/* Vectors: 2 send SGEs scattered into 2 receive SGEs of other sizes. */
	memset(s, 0xAB, 512);
	fill(cl, 20, 3);
	fill(cl + 300, 12, 4);
	rs[0] = (struct ibv_sge){ (uintptr_t)s, 5, c->smr->lkey };
	rs[1] = (struct ibv_sge){ (uintptr_t)(s + 100), 27, c->smr->lkey };
	ss[0] = (struct ibv_sge){ (uintptr_t)cl, 20, c->cmr->lkey };
	ss[1] = (struct ibv_sge){ (uintptr_t)(cl + 300), 12, c->cmr->lkey };
	r = rdma_post_recvv(c->srv, (void *)0x31, rs, 2);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_recvv nsge 2 (= max_recv_sge)", r == 0);
	r = rdma_post_sendv(c->cli, (void *)0x32, ss, 2, IBV_SEND_SIGNALED);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_sendv nsge 2 (= max_send_sge)", r == 0);
	if (!r) {
		uint8_t want[32], got[32];

		/* Read the receive buffer only once its completion is in. */
		arrived = one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x32) &&
			  one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x31);
		memcpy(want, cl, 20);
		memcpy(want + 20, cl + 300, 12);
		memcpy(got, s, 5);
		memcpy(got + 5, s + 100, 27);
		expect("sendv/recvv: completions, 32 bytes split 5+27 byte-exact",
		       arrived &&
		       (wc.byte_len == 32 || (setwhy("byte_len %u", wc.byte_len), 0)) &&
		       (!memcmp(want, got, 32) || (setwhy("payload differs at %ld",
				diff_at(want, got, 32)), 0)) &&
		       (all_bytes(s + 5, 95, 0xAB) || (setwhy("gap written"), 0)));
	}

	/* Over the limit: EINVAL, and nothing reaches the provider. */
	ss[2] = (struct ibv_sge){ (uintptr_t)(cl + 400), 4, c->cmr->lkey };
	rs[2] = (struct ibv_sge){ (uintptr_t)(s + 200), 4, c->smr->lkey };
	expect_einval("rdma_post_sendv nsge 3 > max_send_sge 2: EINVAL",
		      rdma_post_sendv(c->cli, (void *)0x33, ss, 3,
				      IBV_SEND_SIGNALED));
	expect("rdma_post_sendv nsge 3: nothing posted",
	       quiet(c->cli, RWX_SEND_CQ, 100));
	expect_einval("rdma_post_recvv nsge 3 > max_recv_sge 2: EINVAL",
		      rdma_post_recvv(c->srv, (void *)0x34, rs, 3));
	/* A receive that slipped through would swallow this send. */
	memset(s, 0, 64);
	fill(cl, 8, 5);
	r = rdma_post_recv(c->srv, (void *)0x35, s + 32, 8, c->smr);
	r = r ? r : rdma_post_send(c->cli, (void *)0x36, cl, 8, c->cmr,
				   IBV_SEND_SIGNALED);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rdma_post_recvv nsge 3: nothing posted (next recv gets next send)",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x36) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x35) &&
	       (!memcmp(s + 32, cl, 8) || (setwhy("payload differs"), 0)));
}

/* ---- RDMA READ / WRITE, single and vectored ----------------------------- */

static void t_readwrite(struct conn *c)
{
	uint8_t *wbuf = c->sbuf + 0x10000, *rbuf = c->sbuf + 0x20000;
	uint8_t *cl = c->cbuf;
	struct ibv_mr *wmr, *rmr;
	struct ibv_sge sg[3];
	struct ibv_wc wc;
	int r;

	wmr = rdma_reg_write(c->srv, wbuf, 4096);
	rmr = rdma_reg_read(c->srv, rbuf, 4096);
	if (!wmr || !rmr) {
		failf("rdma_reg_write/rdma_reg_read", "%s", strerror(errno));
		goto out;
	}
	ok("rdma_reg_write/rdma_reg_read");

	memset(wbuf, 0xEE, 4096);
	fill(cl, 300, 6);
	r = rdma_post_write(c->cli, (void *)0x41, cl, 300, c->cmr,
			    IBV_SEND_SIGNALED, (uintptr_t)(wbuf + 7), wmr->rkey);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_write 300 B: IBV_WC_RDMA_WRITE, data byte-exact",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, 0x41) &&
	       (!memcmp(wbuf + 7, cl, 300) ||
		(setwhy("differs at %ld", diff_at(wbuf + 7, cl, 300)), 0)) &&
	       ((all_bytes(wbuf, 7, 0xEE) && all_bytes(wbuf + 307, 100, 0xEE)) ||
		(setwhy("bytes outside the target written"), 0)));

	fill(rbuf, 4096, 7);
	memset(cl + 1000, 0xCC, 600);
	r = rdma_post_read(c->cli, (void *)0x42, cl + 1001, 513, c->cmr,
			   IBV_SEND_SIGNALED, (uintptr_t)(rbuf + 3), rmr->rkey);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_read 513 B: IBV_WC_RDMA_READ, data byte-exact",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_READ, 0x42) &&
	       (!memcmp(cl + 1001, rbuf + 3, 513) ||
		(setwhy("differs at %ld", diff_at(cl + 1001, rbuf + 3, 513)), 0)) &&
	       ((cl[1000] == 0xCC && all_bytes(cl + 1514, 50, 0xCC)) ||
		(setwhy("bytes outside the target written"), 0)));

	/* writev: two local pieces land back to back remotely. */
	memset(wbuf, 0xEE, 4096);
	fill(cl + 2000, 33, 8);
	fill(cl + 3000, 77, 9);
	sg[0] = (struct ibv_sge){ (uintptr_t)(cl + 2000), 33, c->cmr->lkey };
	sg[1] = (struct ibv_sge){ (uintptr_t)(cl + 3000), 77, c->cmr->lkey };
	r = rdma_post_writev(c->cli, (void *)0x43, sg, 2, IBV_SEND_SIGNALED,
			     (uintptr_t)(wbuf + 64), wmr->rkey);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_writev nsge 2: data byte-exact",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, 0x43) &&
	       ((!memcmp(wbuf + 64, cl + 2000, 33) &&
		!memcmp(wbuf + 97, cl + 3000, 77)) ||
		(setwhy("data differs"), 0)) &&
	       (all_bytes(wbuf + 174, 64, 0xEE) || (setwhy("overrun"), 0)));

	/* readv: one remote range scattered into two local pieces. */
	memset(cl + 4000, 0xCC, 512);
	sg[0] = (struct ibv_sge){ (uintptr_t)(cl + 4000), 10, c->cmr->lkey };
	sg[1] = (struct ibv_sge){ (uintptr_t)(cl + 4100), 90, c->cmr->lkey };
	r = rdma_post_readv(c->cli, (void *)0x44, sg, 2, IBV_SEND_SIGNALED,
			    (uintptr_t)(rbuf + 1000), rmr->rkey);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_readv nsge 2: data byte-exact",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_READ, 0x44) &&
	       ((!memcmp(cl + 4000, rbuf + 1000, 10) &&
		!memcmp(cl + 4100, rbuf + 1010, 90)) ||
		(setwhy("data differs"), 0)) &&
	       ((all_bytes(cl + 4010, 90, 0xCC) &&
		all_bytes(cl + 4190, 64, 0xCC)) || (setwhy("overrun"), 0)));

	sg[2] = (struct ibv_sge){ (uintptr_t)(cl + 5000), 8, c->cmr->lkey };
	expect_einval("rdma_post_writev nsge 3 > max_send_sge: EINVAL",
		      rdma_post_writev(c->cli, (void *)0x45, sg, 3,
				       IBV_SEND_SIGNALED,
				       (uintptr_t)wbuf, wmr->rkey));
	expect_einval("rdma_post_readv nsge 3 > max_send_sge: EINVAL",
		      rdma_post_readv(c->cli, (void *)0x46, sg, 3,
				      IBV_SEND_SIGNALED,
				      (uintptr_t)rbuf, rmr->rkey));
	expect("writev/readv nsge 3: nothing posted",
	       quiet(c->cli, RWX_SEND_CQ, 100));
out:
	if (wmr)
		rdma_dereg_mr(wmr);
	if (rmr)
		rdma_dereg_mr(rmr);
}

/* ---- item 8: immediates -------------------------------------------------- */

static void t_imm(struct conn *c)
{
	uint8_t *s = c->sbuf, *cl = c->cbuf;
	struct ibv_wc wc;
	int r;

	memset(s, 0, 256);
	fill(cl, 40, 10);
	r = rdma_post_recv(c->srv, (void *)0x51, s, 64, c->smr);
	r = r ? r : rwx_post_send_imm(c->cli, (void *)0x52, cl, 40, c->cmr,
				      IBV_SEND_SIGNALED, htonl(0xDEADBEEF));
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_send_imm: IBV_WC_WITH_IMM, imm 0xdeadbeef, data",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x52) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x51) &&
	       (((wc.wc_flags & IBV_WC_WITH_IMM) &&
		ntohl(wc.imm_data) == 0xDEADBEEF) ||
		(setwhy("flags %#x imm %#x", wc.wc_flags, ntohl(wc.imm_data)), 0)) &&
	       ((wc.byte_len == 40 && !memcmp(s, cl, 40)) ||
		(setwhy("byte_len %u / payload", wc.byte_len), 0)));

	/* WRITE with immediate: data lands remotely, a receive is consumed. */
	memset(s + 0x1000, 0xEE, 256);
	memset(s + 0x2000, 0x5A, 64);
	fill(cl + 512, 100, 11);
	r = rdma_post_recv(c->srv, (void *)0x53, s + 0x2000, 64, c->smr);
	r = r ? r : rwx_post_write_imm(c->cli, (void *)0x54, cl + 512, 100,
				       c->cmr, IBV_SEND_SIGNALED,
				       (uintptr_t)(s + 0x1001), c->smr->rkey,
				       htonl(0x12345678));
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_write_imm 100 B: RECV_RDMA_WITH_IMM, imm, data",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, 0x54) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV_RDMA_WITH_IMM, 0x53) &&
	       (((wc.wc_flags & IBV_WC_WITH_IMM) &&
		ntohl(wc.imm_data) == 0x12345678) ||
		(setwhy("flags %#x imm %#x", wc.wc_flags, ntohl(wc.imm_data)), 0)) &&
	       (wc.byte_len == 100 || (setwhy("byte_len %u", wc.byte_len), 0)) &&
	       ((!memcmp(s + 0x1001, cl + 512, 100) &&
		s[0x1000] == 0xEE && s[0x1065] == 0xEE) ||
		(setwhy("remote data differs"), 0)) &&
	       (all_bytes(s + 0x2000, 64, 0x5A) ||
		(setwhy("receive buffer written"), 0)));

	/* Zero-length WRITE with immediate: no SGE, no MR. */
	r = rdma_post_recv(c->srv, (void *)0x55, s + 0x2000, 64, c->smr);
	r = r ? r : rwx_post_write_imm(c->cli, (void *)0x56, NULL, 0, NULL,
				       IBV_SEND_SIGNALED,
				       (uintptr_t)(s + 0x1001), c->smr->rkey,
				       htonl(7));
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_write_imm 0 B: consumes a recv, RECV_RDMA_WITH_IMM, imm 7",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, 0x56) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV_RDMA_WITH_IMM, 0x55) &&
	       (((wc.wc_flags & IBV_WC_WITH_IMM) && ntohl(wc.imm_data) == 7 &&
		wc.byte_len == 0) ||
		(setwhy("flags %#x imm %#x byte_len %u", wc.wc_flags,
			ntohl(wc.imm_data), wc.byte_len), 0)) &&
	       ((!memcmp(s + 0x1001, cl + 512, 100) &&
		all_bytes(s + 0x2000, 64, 0x5A)) ||
		(setwhy("memory changed"), 0)));

	/* Zero-length SEND with immediate. */
	r = rdma_post_recv(c->srv, (void *)0x57, s + 0x2000, 64, c->smr);
	r = r ? r : rwx_post_send_imm(c->cli, (void *)0x58, NULL, 0, NULL,
				      IBV_SEND_SIGNALED, htonl(0xFFFFFFFE));
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_send_imm 0 B: imm 0xfffffffe, byte_len 0",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x58) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x57) &&
	       (((wc.wc_flags & IBV_WC_WITH_IMM) &&
		ntohl(wc.imm_data) == 0xFFFFFFFE && wc.byte_len == 0) ||
		(setwhy("flags %#x imm %#x byte_len %u", wc.wc_flags,
			ntohl(wc.imm_data), wc.byte_len), 0)));
}

/* ---- item 10: atomics ---------------------------------------------------- */

static void t_atomic(struct conn *c)
{
	volatile uint64_t *rem = (volatile uint64_t *)(void *)(c->sbuf + 0x80000);
	uint64_t *res = (uint64_t *)(void *)(c->cbuf + 0x80000);
	uint64_t raddr = (uintptr_t)rem;
	uint32_t rkey = c->smr->rkey;
	struct ibv_wc wc;
	int r;

	*rem = 0;
	*res = UINT64_MAX;
	r = rwx_post_atomic_fadd(c->cli, (void *)0x61, res, 8, c->cmr,
				 IBV_SEND_SIGNALED, raddr, rkey, 5);
	if (r)
		setwhy("post: %s", strerror(errno));
	if (!expect("rwx_post_atomic_fadd 5 on 0: returns 0, remote 5",
		    !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_FETCH_ADD, 0x61) &&
		    ((*res == 0 && *rem == 5) ||
		     (setwhy("local %#" PRIx64 " remote %#" PRIx64, *res,
			     (uint64_t)*rem), 0))))
		return;

	*res = UINT64_MAX;
	r = rwx_post_atomic_cswap(c->cli, (void *)0x62, res, 8, c->cmr,
				  IBV_SEND_SIGNALED, raddr, rkey, 5, 9);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_atomic_cswap 5->9: returns 5, remote 9",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_COMP_SWAP, 0x62) &&
	       ((*res == 5 && *rem == 9) ||
		(setwhy("local %#" PRIx64 " remote %#" PRIx64, *res,
			(uint64_t)*rem), 0)));

	*res = UINT64_MAX;
	r = rwx_post_atomic_cswap(c->cli, (void *)0x63, res, 8, c->cmr,
				  IBV_SEND_SIGNALED, raddr, rkey, 5, 1);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_atomic_cswap mismatch: returns 9, remote stays 9",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_COMP_SWAP, 0x63) &&
	       ((*res == 9 && *rem == 9) ||
		(setwhy("local %#" PRIx64 " remote %#" PRIx64, *res,
			(uint64_t)*rem), 0)));

	/* A large add that carries across 32 bits. */
	*rem = 0xFFFFFFFFull;
	*res = 0;
	r = rwx_post_atomic_fadd(c->cli, (void *)0x64, res, 8, c->cmr,
				 IBV_SEND_SIGNALED, raddr, rkey,
				 0x100000001ull);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_atomic_fadd 64-bit carry",
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_FETCH_ADD, 0x64) &&
	       ((*res == 0xFFFFFFFFull && *rem == 0x200000000ull) ||
		(setwhy("local %#" PRIx64 " remote %#" PRIx64, *res,
			(uint64_t)*rem), 0)));

	*rem = 9;
	expect_einval("atomic fadd misaligned local address: EINVAL",
		      rwx_post_atomic_fadd(c->cli, (void *)0x65,
					   (uint8_t *)res + 4, 8, c->cmr,
					   IBV_SEND_SIGNALED, raddr, rkey, 1));
	expect_einval("atomic cswap misaligned remote address: EINVAL",
		      rwx_post_atomic_cswap(c->cli, (void *)0x66, res, 8,
					    c->cmr, IBV_SEND_SIGNALED,
					    raddr + 4, rkey, 9, 1));
	expect_einval("atomic fadd length 4: EINVAL",
		      rwx_post_atomic_fadd(c->cli, (void *)0x67, res, 4,
					   c->cmr, IBV_SEND_SIGNALED, raddr,
					   rkey, 1));
	expect("rejected atomics: nothing posted, remote unchanged",
	       quiet(c->cli, RWX_SEND_CQ, 100) &&
	       (*rem == 9 || (setwhy("remote %#" PRIx64, (uint64_t)*rem), 0)));
}

/* ---- item 11: rwx_post_list --------------------------------------------- */

static void t_list(struct conn *c)
{
	uint8_t *dst = c->sbuf + 0x30000, *src = c->cbuf + 0x30000;
	struct ibv_send_wr wr[8], *bad = (void *)1;
	struct ibv_sge sg[8], sg3[3];
	struct ibv_wc wc[8];
	int i, r, seen = 0, okd = 1;

	memset(dst, 0xEE, 8 * 64 + 64);
	fill(src, 8 * 64, 12);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 8; i++) {
		sg[i] = (struct ibv_sge){ (uintptr_t)(src + 64 * (7 - i)), 64,
					  c->cmr->lkey };
		wr[i].wr_id = 0x700 + (uint64_t)i;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)(dst + 64 * i);
		wr[i].wr.rdma.rkey = c->smr->rkey;
		wr[i].next = i < 7 ? &wr[i + 1] : NULL;
	}
	r = rwx_post_list(c->cli, wr, &bad);
	if (r)
		setwhy("%s", strerror(errno));
	if (!expect("rwx_post_list 8 WRITEs: accepted, bad_wr NULL",
		    !r && (bad == NULL || (setwhy("bad_wr %p", (void *)bad), 0))))
		return;
	if (reap(c->cli, RWX_SEND_CQ, wc, 8, TMO)) {
		failf("rwx_post_list 8 WRITEs complete", "%s", why);
		why[0] = 0;
		return;
	}
	for (i = 0; i < 8; i++) {
		if (wc[i].status != IBV_WC_SUCCESS ||
		    wc[i].opcode != IBV_WC_RDMA_WRITE ||
		    wc[i].wr_id < 0x700 || wc[i].wr_id > 0x707) {
			setwhy("%s", wc_str(&wc[i]));
			okd = 0;
		} else {
			seen |= 1 << (wc[i].wr_id - 0x700);
		}
	}
	expect("rwx_post_list 8 WRITEs: 8 completions, each wr_id once",
	       okd && (seen == 0xFF || (setwhy("wr_id mask %#x", seen), 0)));
	for (i = 0; i < 8; i++)
		if (memcmp(dst + 64 * i, src + 64 * (7 - i), 64))
			break;
	setwhy("block %d differs", i);
	expect("rwx_post_list 8 WRITEs: remote data byte-exact",
	       i == 8 && (all_bytes(dst + 512, 64, 0xEE) ||
			  (setwhy("overrun"), 0)));

	/*
	 * One bad WR in three: nothing posted, and bad_wr is, as
	 * ibv_post_send's, the first WR not posted: the list's head.
	 */
	memset(dst, 0xEE, 8 * 64);
	for (i = 0; i < 3; i++)
		sg3[i] = (struct ibv_sge){ (uintptr_t)(src + 8 * i), 8,
					   c->cmr->lkey };
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	wr[2].next = NULL;
	wr[1].sg_list = sg3;
	wr[1].num_sge = (int)c->ccap.max_send_sge + 1;
	bad = NULL;
	errno = 0;
	r = rwx_post_list(c->cli, wr, &bad);
	expect_einval("rwx_post_list with num_sge > max_send_sge: EINVAL", r);
	setwhy("bad_wr %p, want %p", (void *)bad, (void *)&wr[0]);
	expect("rwx_post_list bad list: bad_wr is the list's head",
	       bad == &wr[0]);
	expect("rwx_post_list bad list: nothing posted, remote untouched",
	       quiet(c->cli, RWX_SEND_CQ, 200) &&
	       (all_bytes(dst, 3 * 64, 0xEE) || (setwhy("remote written"), 0)));
}

/*
 * rwx_post_recv_list: 4 receives in one call (one of two SGEs) take the
 * next 4 sends in order; a list with a WR over max_recv_sge posts nothing
 * (the next send lands in a receive posted after it).
 */
static void t_recv_list(struct conn *c)
{
	uint8_t *rb = c->sbuf + 0x34000, *sb = c->cbuf + 0x34000;
	struct ibv_recv_wr wr[4], *bad = (void *)1;
	struct ibv_sge sg[4], two[2], next;
	struct ibv_wc wc[4];
	int i, r, okd = 1;

	memset(rb, 0, 5 * 32);
	fill(sb, 5 * 32, 44);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		sg[i] = (struct ibv_sge){ (uintptr_t)(rb + 32 * i), 32,
					  c->smr->lkey };
		wr[i].wr_id = 0xB00 + (uint64_t)i;
		wr[i].sg_list = &sg[i];
		wr[i].num_sge = 1;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	/* WR 1 scatters its 32 bytes over two SGEs. */
	two[0] = (struct ibv_sge){ (uintptr_t)(rb + 32), 16, c->smr->lkey };
	two[1] = (struct ibv_sge){ (uintptr_t)(rb + 48), 16, c->smr->lkey };
	wr[1].sg_list = two;
	wr[1].num_sge = 2;
	r = rwx_post_recv_list(c->srv, wr, &bad);
	if (r)
		setwhy("%s", strerror(errno));
	if (!expect("rwx_post_recv_list 4 receives: accepted, bad_wr NULL",
		    !r && (bad == NULL || (setwhy("bad_wr %p", (void *)bad), 0))))
		return;
	for (i = 0; i < 4; i++)
		if (rdma_post_send(c->cli, (void *)(uintptr_t)(0xB10 + i),
				   sb + 32 * i, 32, c->cmr, 0)) {
			failf("rwx_post_recv_list sends", "%s", strerror(errno));
			return;
		}
	if (reap(c->srv, RWX_RECV_CQ, wc, 4, TMO)) {
		failf("rwx_post_recv_list 4 receives complete", "%s", why);
		why[0] = 0;
		return;
	}
	for (i = 0; i < 4 && okd; i++)
		okd = wc_is(&wc[i], IBV_WC_RECV, 0xB00 + (uint64_t)i) &&
		      (wc[i].byte_len == 32 ||
		       (setwhy("byte_len %u", wc[i].byte_len), 0));
	expect("rwx_post_recv_list: the sends land in list order", okd);
	setwhy("received data differs");
	expect("rwx_post_recv_list: data byte-exact, two SGEs included",
	       !memcmp(rb, sb, 4 * 32));

	wr[1].num_sge = (int)c->scap.max_recv_sge + 1;
	bad = NULL;
	errno = 0;
	r = rwx_post_recv_list(c->srv, wr, &bad);
	expect_einval("rwx_post_recv_list with num_sge > max_recv_sge: EINVAL",
		      r);
	setwhy("bad_wr %p, want %p", (void *)bad, (void *)&wr[0]);
	expect("rwx_post_recv_list bad list: bad_wr is the list's head",
	       bad == &wr[0]);
	next = (struct ibv_sge){ (uintptr_t)(rb + 128), 32, c->smr->lkey };
	if (rdma_post_recvv(c->srv, (void *)0xB20, &next, 1) ||
	    rdma_post_send(c->cli, (void *)0xB21, sb + 128, 32, c->cmr, 0)) {
		failf("rwx_post_recv_list bad list: nothing posted", "%s",
		      strerror(errno));
		return;
	}
	expect("rwx_post_recv_list bad list: nothing posted (the next send "
	       "takes the receive posted after it)",
	       one(c->srv, RWX_RECV_CQ, wc, IBV_WC_RECV, 0xB20));
}

/* ---- item 7: rwx_get_comps ---------------------------------------------- */

static void t_get_comps(struct conn *c)
{
	uint8_t *rb = c->sbuf + 0x40000, *sb = c->cbuf + 0x40000;
	struct ibv_wc wc[16];
	uint64_t seen = 0;
	int i, r, total = 0, calls = 0, max = 0, bad = 0;
	double end;

	memset(rb, 0, 32 * 32);
	for (i = 0; i < 32; i++) {
		fill(sb + 32 * i, 32, 100 + (unsigned)i);
		if (rdma_post_recv(c->srv, (void *)(uintptr_t)(0x900 + i),
				   rb + 32 * i, 32, c->smr)) {
			failf("rwx_get_comps setup", "post_recv %d: %s", i,
			      strerror(errno));
			return;
		}
	}
	for (i = 0; i < 32; i++)
		if (rdma_post_send(c->cli, (void *)(uintptr_t)(0x800 + i),
				   sb + 32 * i, 32, c->cmr, IBV_SEND_SIGNALED)) {
			failf("rwx_get_comps setup", "post_send %d: %s", i,
			      strerror(errno));
			return;
		}
	end = now_s() + TMO / 1000.0;
	while (total < 32 && now_s() < end) {
		r = rwx_get_comps(c->cli, RWX_SEND_CQ, wc, 16);
		if (r < 0) {
			setwhy("rwx_get_comps: %s", strerror(errno));
			bad = 1;
			break;
		}
		if (r == 0) {
			usleep(1000);
			continue;
		}
		calls++;
		if (r > max)
			max = r;
		for (i = 0; i < r; i++) {
			uint64_t k = wc[i].wr_id - 0x800;

			if (wc[i].status || wc[i].opcode != IBV_WC_SEND ||
			    k >= 32 || (seen >> k & 1)) {
				setwhy("%s", wc_str(&wc[i]));
				bad = 1;
			}
			seen |= 1ull << (k & 63);
		}
		total += r;
	}
	if (!bad)
		setwhy("reaped %d in %d calls, max per call %d, mask %#" PRIx64,
		       total, calls, max, seen);
	expect("rwx_get_comps nwc 16 after 32 sends: <= 16 per call, all 32 once",
	       !bad && total == 32 && max <= 16 && seen == UINT32_MAX);
	printf("# rwx_get_comps: %d calls, at most %d per call\n", calls, max);

	/* The 32 receives, in posting order, each with its payload. */
	total = 0;
	bad = 0;
	end = now_s() + TMO / 1000.0;
	while (total < 32 && now_s() < end && !bad) {
		r = rwx_get_comps(c->srv, RWX_RECV_CQ, wc, 16);
		if (r < 0) {
			setwhy("%s", strerror(errno));
			bad = 1;
		}
		for (i = 0; i < r; i++, total++)
			if (!wc_is(&wc[i], IBV_WC_RECV, 0x900 + (uint64_t)total) ||
			    wc[i].byte_len != 32) {
				bad = 1;
				break;
			}
		if (r == 0)
			usleep(1000);
	}
	if (!bad && total != 32)
		setwhy("%d of 32 receives", total);
	else if (!bad && memcmp(rb, sb, 32 * 32))
		setwhy("payload differs at %ld", diff_at(rb, sb, 32 * 32));
	expect("rwx_get_comps on the recv CQ: 32 in order, payloads byte-exact",
	       !bad && total == 32 && !memcmp(rb, sb, 32 * 32));
	expect_einval("rwx_get_comps nwc 0: EINVAL",
		      rwx_get_comps(c->cli, RWX_SEND_CQ, wc, 0));
	expect_einval("rwx_get_comps bad selector: EINVAL",
		      rwx_get_comps(c->cli, (enum rwx_cq_sel)7, wc, 1));
}

/* ---- item 6: rwx_wait_comp and rwx_comp_fd ------------------------------- */

struct late_send {
	struct conn *c;
	int delay_ms, ret;
};

static void *late_sender(void *p)
{
	struct late_send *l = p;

	usleep((useconds_t)l->delay_ms * 1000);
	l->ret = rdma_post_send(l->c->cli, (void *)0xA2, l->c->cbuf + 0x50000,
				48, l->c->cmr, IBV_SEND_SIGNALED);
	return NULL;
}

static void t_wait(struct conn *c)
{
	uint8_t *rb = c->sbuf + 0x50000, *sb = c->cbuf + 0x50000;
	struct late_send ls = { c, 300, -1 };
	struct ibv_cq *ev_cq = NULL;
	struct ibv_wc wc;
	struct pollfd pfd;
	pthread_t th;
	void *ev_ctx;
	double t0, dt;
	int r, e, fd;

	t0 = now_s();
	r = rwx_wait_comp(c->cli, RWX_SEND_CQ, &wc, 1, 100);
	e = errno;
	dt = now_s() - t0;
	setwhy("returned %d errno %s after %.1f ms", r, strerror(e), dt * 1e3);
	expect("rwx_wait_comp 100 ms, idle CQ: -1/ETIMEDOUT after >= 100 ms",
	       r == -1 && e == ETIMEDOUT && dt >= 0.100);
	printf("# rwx_wait_comp(100): returned after %.2f ms\n", dt * 1e3);

	t0 = now_s();
	r = rwx_wait_comp(c->srv, RWX_RECV_CQ, &wc, 4, 0);
	e = errno;
	setwhy("returned %d errno %s", r, strerror(e));
	expect("rwx_wait_comp 0 ms, idle CQ: -1/ETIMEDOUT", r == -1 &&
	       e == ETIMEDOUT);

	/* A completion that arrives during a long wait ends the wait. */
	fill(sb, 48, 13);
	memset(rb, 0, 64);
	if (rdma_post_recv(c->srv, (void *)0xA1, rb, 64, c->smr)) {
		failf("rwx_wait_comp wakeup", "post_recv: %s", strerror(errno));
		return;
	}
	if (pthread_create(&th, NULL, late_sender, &ls)) {
		failf("rwx_wait_comp wakeup", "pthread_create");
		return;
	}
	t0 = now_s();
	memset(&wc, 0, sizeof(wc));
	r = rwx_wait_comp(c->srv, RWX_RECV_CQ, &wc, 1, 20000);
	e = errno;
	dt = now_s() - t0;
	pthread_join(th, NULL);
	if (r != 1)
		setwhy("returned %d errno %s after %.1f ms", r, strerror(e),
		       dt * 1e3);
	/* Had the event not woken it, the 20 s wait would end in ETIMEDOUT. */
	expect("rwx_wait_comp 20 s: send posted 300 ms in returns the recv",
	       ls.ret == 0 && r == 1 && wc_is(&wc, IBV_WC_RECV, 0xA1) &&
	       ((wc.byte_len == 48 && !memcmp(rb, sb, 48)) ||
		(setwhy("byte_len %u / payload", wc.byte_len), 0)));
	printf("# rwx_wait_comp(20000) woke after %.1f ms\n", dt * 1e3);
	expect("rwx_wait_comp on the send CQ: the late send's completion",
	       one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xA2));

	/* rwx_comp_fd + poll(2) + ibv_get_cq_event, as documented. */
	fd = rwx_comp_fd(c->srv, RWX_RECV_CQ);
	setwhy("fd %d, channel fd %d", fd, c->srv->recv_cq_channel->fd);
	expect("rwx_comp_fd: the recv CQ channel's fd",
	       fd >= 0 && fd == c->srv->recv_cq_channel->fd);
	/* Earlier waits may have left an event behind (armed, then polled). */
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 0) == 1 &&
	       !ibv_get_cq_event(c->srv->recv_cq_channel, &ev_cq, &ev_ctx))
		ibv_ack_cq_events(ev_cq, 1);
	fill(sb, 48, 14);
	memset(rb, 0, 64);
	r = ibv_req_notify_cq(c->srv->recv_cq, 0);
	r = r ? r : rdma_post_recv(c->srv, (void *)0xA3, rb, 64, c->smr);
	r = r ? r : rdma_post_send(c->cli, (void *)0xA4, sb, 48, c->cmr,
				   IBV_SEND_SIGNALED);
	if (r) {
		failf("rwx_comp_fd + poll", "arm/post: %s", strerror(errno));
		return;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	r = poll(&pfd, 1, TMO);
	setwhy("poll returned %d revents %#x", r, pfd.revents);
	if (!expect("rwx_comp_fd: poll(2) reports POLLIN after a completion",
		    r == 1 && (pfd.revents & POLLIN)))
		return;
	r = ibv_get_cq_event(c->srv->recv_cq_channel, &ev_cq, &ev_ctx);
	setwhy("ibv_get_cq_event %d, cq %p want %p", r, (void *)ev_cq,
	       (void *)c->srv->recv_cq);
	if (!expect("rwx_comp_fd: ibv_get_cq_event names the recv CQ",
		    r == 0 && ev_cq == c->srv->recv_cq))
		return;
	ibv_ack_cq_events(ev_cq, 1);
	r = ibv_poll_cq(c->srv->recv_cq, 1, &wc);
	if (r != 1)
		setwhy("ibv_poll_cq %d", r);
	expect("rwx_comp_fd: the completion is there, payload byte-exact",
	       r == 1 && wc_is(&wc, IBV_WC_RECV, 0xA3) &&
	       (!memcmp(rb, sb, 48) || (setwhy("payload"), 0)));
	expect("rwx_comp_fd test: the send completes",
	       one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xA4));
}

/* ---- item 5 (second half): caller-supplied CQs --------------------------- */

static void t_own_cqs(void)
{
	struct rdma_addrinfo *res = NULL;
	struct rdma_cm_id *id = NULL;
	struct ibv_cq *scq = NULL, *rcq = NULL;
	struct ibv_qp_init_attr qa;
	struct ibv_wc wc;
	int qp = 0;

	watch("caller-supplied CQs", 30);
	if (getai(0, 0, port_next++, &res)) {
		failf("caller-supplied CQs setup", "%s", why);
		goto out;
	}
	if (rdma_create_ep(&id, res, NULL, NULL)) {
		failf("caller-supplied CQs setup", "rdma_create_ep: %s",
		      strerror(errno));
		goto out;
	}
	scq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	rcq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	qa.qp_type = IBV_QPT_RC;
	if (!scq || !rcq || rdma_create_qp(id, NULL, &qa)) {
		failf("caller-supplied CQs setup", "cq/qp: %s",
		      strerror(errno));
		goto out;
	}
	qp = 1;
	setwhy("id->send_cq_channel %p", (void *)id->send_cq_channel);
	expect("caller-supplied CQs: id has no completion channel",
	       id->send_cq_channel == NULL && id->recv_cq_channel == NULL);
	expect_einval("rdma_get_send_comp, caller-supplied CQs: EINVAL",
		      rdma_get_send_comp(id, &wc));
	expect_einval("rdma_get_recv_comp, caller-supplied CQs: EINVAL",
		      rdma_get_recv_comp(id, &wc));
	expect_einval("rwx_wait_comp, caller-supplied CQs: EINVAL",
		      rwx_wait_comp(id, RWX_SEND_CQ, &wc, 1, 10));
	expect_einval("rwx_comp_fd, caller-supplied CQs: EINVAL",
		      rwx_comp_fd(id, RWX_RECV_CQ));
out:
	if (qp)
		rdma_destroy_qp(id);
	if (scq)
		ibv_destroy_cq(scq);
	if (rcq)
		ibv_destroy_cq(rcq);
	if (id)
		rdma_destroy_ep(id);
	if (res)
		rdma_freeaddrinfo(res);
	rewatch();
}

/* ---- item 3 (SRQ) ------------------------------------------------------- */

static void t_srq(void)
{
	struct conn_opt o = { .send_sge = 1, .recv_sge = 1, .srq = 1 };
	struct ibv_sge rs[3];
	struct ibv_srq_attr sa;
	struct ibv_wc wc;
	struct conn c;
	uint8_t *s, *cl;
	int r;

	if (conn_open(&c, "srq", &o))
		return;
	s = c.sbuf;
	cl = c.cbuf;
	memset(&sa, 0, sizeof(sa));
	r = ibv_query_srq(c.cli->srq, &sa);
	setwhy("ibv_query_srq %d, max_sge %u", r, sa.max_sge);
	expect("SRQ: created through rdma_create_srq, max_sge 2",
	       r == 0 && sa.max_sge == 2 && c.cli->qp->srq == c.cli->srq);

	memset(cl, 0xAB, 512);
	fill(s, 48, 20);
	rs[0] = (struct ibv_sge){ (uintptr_t)cl, 16, c.cmr->lkey };
	rs[1] = (struct ibv_sge){ (uintptr_t)(cl + 256), 64, c.cmr->lkey };
	rs[2] = (struct ibv_sge){ (uintptr_t)(cl + 400), 8, c.cmr->lkey };
	expect_einval("rdma_post_recvv on SRQ id, nsge 3 > SRQ max_sge 2: EINVAL",
		      rdma_post_recvv(c.cli, (void *)0xB0, rs, 3));
	r = rdma_post_recvv(c.cli, (void *)0xB1, rs, 2);
	if (r)
		setwhy("%s", strerror(errno));
	expect("rdma_post_recvv on SRQ id, nsge 2: accepted", r == 0);
	r = r ? r : rdma_post_send(c.srv, (void *)0xB2, s, 48, c.smr,
				   IBV_SEND_SIGNALED);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("SRQ receive: completion, 48 bytes split 16+32 byte-exact",
	       !r && one(c.srv, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xB2) &&
	       one(c.cli, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0xB1) &&
	       (wc.byte_len == 48 || (setwhy("byte_len %u", wc.byte_len), 0)) &&
	       ((!memcmp(cl, s, 16) && !memcmp(cl + 256, s + 16, 32)) ||
		(setwhy("payload differs"), 0)) &&
	       ((all_bytes(cl + 16, 240, 0xAB) && all_bytes(cl + 288, 32, 0xAB)) ||
		(setwhy("bytes outside the SGEs written"), 0)));
	/* The rejected 3-SGE receive must not be in the SRQ. */
	r = rdma_post_send(c.srv, (void *)0xB3, s, 8, c.smr, IBV_SEND_SIGNALED);
	r = r ? r : rdma_post_recv(c.cli, (void *)0xB4, cl + 1024, 8, c.cmr);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("SRQ: rejected recv was not queued (next recv takes next send)",
	       !r && one(c.cli, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0xB4) &&
	       one(c.srv, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xB3));
	conn_close(&c);
}

/* ---- item 4: caps cache across QP destruction -------------------------- */

static void *qp_a_addr;

static int rw_count(struct conn *c, int n, enum rwx_rw_dir dir)
{
	struct iovec iov[8];
	struct ibv_mr *mr = c->cmr;
	struct rwx_rw_ctx ctx;
	int i, r;

	for (i = 0; i < n; i++) {
		iov[i].iov_base = c->cbuf + 64 * i;
		iov[i].iov_len = 16;
	}
	r = rwx_rw_ctx_init(&ctx, c->cli->qp, iov, n, &mr, 1,
			    (uintptr_t)c->sbuf, c->smr->rkey, dir);
	if (r > 0)
		rwx_rw_ctx_destroy(&ctx);
	return r;
}

static void t_cache(void)
{
	struct conn_opt oa = { .send_sge = 4, .recv_sge = 4 };
	struct conn_opt ob = { .send_sge = 1, .recv_sge = 1 };
	struct ibv_sge sg[4], rs[4];
	struct ibv_wc wc;
	struct conn c;
	int i, r;

	if (conn_open(&c, "cache QP A", &oa))
		return;
	qp_a_addr = c.cli->qp;
	for (i = 0; i < 4; i++) {
		fill(c.cbuf + 100 * i, 10, 30 + (unsigned)i);
		sg[i] = (struct ibv_sge){ (uintptr_t)(c.cbuf + 100 * i), 10,
					  c.cmr->lkey };
		rs[i] = (struct ibv_sge){ (uintptr_t)(c.sbuf + 10 * i), 10,
					  c.smr->lkey };
	}
	r = rdma_post_recvv(c.srv, (void *)0xC1, rs, 4);
	r = r ? r : rdma_post_sendv(c.cli, (void *)0xC2, sg, 4,
				    IBV_SEND_SIGNALED);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("cache: QP A (max_send_sge 4) sendv nsge 4 delivered",
	       !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xC2) &&
	       one(c.srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0xC1) &&
	       ((!memcmp(c.sbuf, c.cbuf, 10) && !memcmp(c.sbuf + 30, c.cbuf + 300, 10)) ||
		(setwhy("payload"), 0)));
	r = rw_count(&c, 4, RWX_RW_WRITE);
	setwhy("rwx_rw_ctx_init returned %d", r);
	expect("cache: QP A rw ctx of 4 entries is 1 WR", r == 1);
	conn_close(&c);

	if (conn_open(&c, "cache QP B", &ob))
		return;
	printf("# cache: QP A was at %p, QP B is at %p%s\n", qp_a_addr,
	       (void *)c.cli->qp,
	       qp_a_addr == (void *)c.cli->qp ? " (same address)" : "");
	for (i = 0; i < 4; i++)
		sg[i] = (struct ibv_sge){ (uintptr_t)(c.cbuf + 100 * i), 10,
					  c.cmr->lkey };
	expect_einval("cache: QP B (max_send_sge 1) sendv nsge 2: EINVAL",
		      rdma_post_sendv(c.cli, (void *)0xC3, sg, 2,
				      IBV_SEND_SIGNALED));
	/* The provider rejects nsge 2 too; the WR count is the library's own. */
	r = rw_count(&c, 4, RWX_RW_WRITE);
	setwhy("rwx_rw_ctx_init returned %d (stale cache would give 1)", r);
	expect("cache: QP B rw ctx of 4 entries is 4 WRs", r == 4);
	expect("cache: QP B nothing posted", quiet(c.cli, RWX_SEND_CQ, 100));
	conn_close(&c);
}

/*
 * A QP created with sq_sig_all, as the device reports it through
 * ibv_query_qp(): the RW context, which promises one completion, refuses it.
 */
static void t_rw_sig_all(void)
{
	struct conn_opt o = { .send_sge = 4, .recv_sge = 4, .sig_all = 1 };
	struct conn c;

	if (conn_open(&c, "rw ctx sq_sig_all", &o))
		return;
	expect_einval("rw ctx on an sq_sig_all QP: EINVAL",
		      rw_count(&c, 2, RWX_RW_WRITE));
	expect("rw ctx sq_sig_all: nothing posted",
	       quiet(c.cli, RWX_SEND_CQ, 100));
	conn_close(&c);
}

/* ---- item 12: the RW context ------------------------------------------- */

/* Lay out n entries of the given lengths at base with gaps; returns bytes. */
static size_t layout(uint8_t *base, const size_t *lens, int n,
		     struct iovec *iov, size_t gap)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		iov[i].iov_base = base + off;
		iov[i].iov_len = lens[i];
		off += lens[i] + gap;
	}
	return off;
}

static size_t iov_total(const struct iovec *iov, int n, int *nonzero)
{
	size_t t = 0;
	int i;

	*nonzero = 0;
	for (i = 0; i < n; i++) {
		t += iov[i].iov_len;
		*nonzero += iov[i].iov_len != 0;
	}
	return t;
}

/* Compare the concatenation of iov with buf. */
static long iov_cmp(const struct iovec *iov, int n, const uint8_t *buf)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		long d = diff_at(iov[i].iov_base, buf + off, iov[i].iov_len);

		if (d >= 0)
			return (long)off + d;
		off += iov[i].iov_len;
	}
	return -1;
}

/* Split total into a differently-shaped iovec (with zero-length holes). */
static int reshape(uint8_t *base, size_t total, struct iovec *iov, int max)
{
	static const size_t pat[] = { 5, 0, 999, 1, 4096, 0, 333, 17, 2048 };
	size_t off = 0, left = total;
	int n = 0;

	while (left && n < max) {
		size_t l = pat[n % 9];

		if (l > left || n == max - 1)
			l = left;
		iov[n].iov_base = base + off;
		iov[n].iov_len = l;
		off += l + 3;
		left -= l;
		n++;
	}
	return n;
}

static int div_up(int a, int b)
{
	return (a + b - 1) / b;
}

struct rw_env {
	struct conn *c;
	uint32_t sge, sge_rd;
	char tag[48];
};

/*
 * WRITE the iovec into the remote buffer, then READ it back into another
 * shape; checks WR count, one completion, data and guards.
 */
static void rw_roundtrip(struct rw_env *e, const char *shape,
			 const struct iovec *iov, int n, struct ibv_mr **mrs,
			 int nmrs, uint64_t wr_id)
{
	struct conn *c = e->c;
	uint8_t *rem = c->sbuf + 0x1000;
	uint8_t *rd = c->cbuf + 0x80000, *flat = c->cbuf + 0xC0000;
	struct iovec riov[30];
	struct ibv_mr *mr = c->cmr;
	struct rwx_rw_ctx ctx;
	struct ibv_wc wc;
	char name[160];
	size_t total;
	int nz, rn, rnz, r, want, i;

	total = iov_total(iov, n, &nz);
	/* Source data and the flat copy to compare against. */
	for (i = 0, r = 0; i < n; i++) {
		fill(iov[i].iov_base, iov[i].iov_len, (unsigned)(wr_id + i));
		memcpy(flat + r, iov[i].iov_base, iov[i].iov_len);
		r += (int)iov[i].iov_len;
	}
	memset(rem, 0xEE, total + 256);

	snprintf(name, sizeof(name), "rw %s %s WRITE: %d WRs, 1 completion, data",
		 e->tag, shape, div_up(nz, (int)e->sge));
	r = rwx_rw_ctx_init(&ctx, c->cli->qp, iov, n, mrs, nmrs,
			    (uintptr_t)rem, c->smr->rkey, RWX_RW_WRITE);
	if (r < 0) {
		failf(name, "rwx_rw_ctx_init: %s", strerror(errno));
		return;
	}
	want = div_up(nz, (int)e->sge);
	if (r != want || ctx.nr_wrs != want || ctx.total_bytes != total) {
		failf(name, "init returned %d nr_wrs %d total %" PRIu64
		      ", want %d WRs %zu bytes", r, ctx.nr_wrs,
		      ctx.total_bytes, want, total);
		rwx_rw_ctx_destroy(&ctx);
		return;
	}
	r = rwx_rw_ctx_post(&ctx, wr_id, NULL, NULL);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect(name,
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, wr_id) &&
	       ((r = rwx_get_comps(c->cli, RWX_SEND_CQ, &wc, 1)) == 0 ||
		(setwhy("extra completion(s): %d", r), 0)) &&
	       (!memcmp(rem, flat, total) ||
		(setwhy("remote differs at %ld", diff_at(rem, flat, total)), 0)) &&
	       (all_bytes(rem + total, 256, 0xEE) || (setwhy("overrun"), 0)));
	rwx_rw_ctx_destroy(&ctx);

	/* Read back into another shape, one MR. */
	memset(rd, 0xCC, total + 30 * 3 + 256);
	rn = reshape(rd, total, riov, 30);
	iov_total(riov, rn, &rnz);
	want = div_up(rnz, (int)(e->sge < e->sge_rd || !e->sge_rd ? e->sge : e->sge_rd));
	snprintf(name, sizeof(name), "rw %s %s READ back into %d entries: "
		 "%d WRs, 1 completion, data", e->tag, shape, rn, want);
	r = rwx_rw_ctx_init(&ctx, c->cli->qp, riov, rn, &mr, 1,
			    (uintptr_t)rem, c->smr->rkey, RWX_RW_READ);
	if (r != want) {
		failf(name, "rwx_rw_ctx_init returned %d (%s), want %d", r,
		      r < 0 ? strerror(errno) : "", want);
		if (r > 0)
			rwx_rw_ctx_destroy(&ctx);
		return;
	}
	r = rwx_rw_ctx_post(&ctx, wr_id + 1, NULL, NULL);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect(name,
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_READ, wr_id + 1) &&
	       ((r = rwx_get_comps(c->cli, RWX_SEND_CQ, &wc, 1)) == 0 ||
		(setwhy("extra completion(s): %d", r), 0)) &&
	       (iov_cmp(riov, rn, flat) < 0 ||
		(setwhy("local differs at %ld", iov_cmp(riov, rn, flat)), 0)));
	rwx_rw_ctx_destroy(&ctx);
}

/* WRITE (or READ) chained with a SEND: the SEND carries the completion. */
static void rw_chain(struct rw_env *e, const struct iovec *iov, int n,
		     enum rwx_rw_dir dir)
{
	struct conn *c = e->c;
	uint8_t *rem = c->sbuf + 0x1000, *rx = c->sbuf + 0xF0000;
	uint8_t *msg = c->cbuf + 0xF0000, *flat = c->cbuf + 0xC0000;
	struct ibv_mr *mr = c->cmr;
	struct ibv_send_wr send, *bad = NULL;
	struct ibv_sge sg;
	struct rwx_rw_ctx ctx;
	struct ibv_wc wc;
	char name[160];
	size_t total;
	int nz, r, i, off;

	total = iov_total(iov, n, &nz);
	if (dir == RWX_RW_WRITE) {
		for (i = 0, off = 0; i < n; i++) {
			fill(iov[i].iov_base, iov[i].iov_len, 77 + (unsigned)i);
			memcpy(flat + off, iov[i].iov_base, iov[i].iov_len);
			off += (int)iov[i].iov_len;
		}
		memset(rem, 0xEE, total + 64);
	} else {
		fill(rem, total, 88);
		memcpy(flat, rem, total);
		for (i = 0; i < n; i++)
			memset(iov[i].iov_base, 0xCC, iov[i].iov_len);
	}
	snprintf(name, sizeof(name), "rw %s %s + chain_wr SEND: only the "
		 "SEND completes, data in place", e->tag,
		 dir == RWX_RW_WRITE ? "WRITE" : "READ");
	fill(msg, 24, 99);
	memset(rx, 0, 64);
	if (rdma_post_recv(c->srv, (void *)0xD1, rx, 64, c->smr)) {
		failf(name, "post_recv: %s", strerror(errno));
		return;
	}
	r = rwx_rw_ctx_init(&ctx, c->cli->qp, iov, n, &mr, 1, (uintptr_t)rem,
			    c->smr->rkey, dir);
	if (r <= 0) {
		failf(name, "rwx_rw_ctx_init: %s", strerror(errno));
		return;
	}
	sg = (struct ibv_sge){ (uintptr_t)msg, 24, c->cmr->lkey };
	memset(&send, 0, sizeof(send));
	send.wr_id = 0xD2;
	send.sg_list = &sg;
	send.num_sge = 1;
	send.opcode = IBV_WR_SEND;
	send.send_flags = IBV_SEND_SIGNALED;
	r = rwx_rw_ctx_post(&ctx, 0xD3, &send, &bad);
	if (r)
		setwhy("post: %s (bad_wr %p)", strerror(errno), (void *)bad);
	expect(name,
	       !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xD2) &&
	       ((r = rwx_get_comps(c->cli, RWX_SEND_CQ, &wc, 1)) == 0 ||
		(setwhy("extra completion: %s", wc_str(&wc)), 0)) &&
	       one(c->srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0xD1) &&
	       (!memcmp(rx, msg, 24) || (setwhy("SEND payload"), 0)) &&
	       ((dir == RWX_RW_WRITE ?
		 (!memcmp(rem, flat, total) &&
		  all_bytes(rem + total, 64, 0xEE)) :
		 iov_cmp(iov, n, flat) < 0) ||
		(setwhy("RW data not in place"), 0)));
	rwx_rw_ctx_destroy(&ctx);
}

/* Re-post one context: new wr_id, new data, same WRs. */
static void rw_repost(struct rw_env *e, const struct iovec *iov, int n)
{
	struct conn *c = e->c;
	uint8_t *rem = c->sbuf + 0x1000, *flat = c->cbuf + 0xC0000;
	struct ibv_mr *mr = c->cmr;
	struct rwx_rw_ctx ctx;
	struct ibv_wc wc;
	char name[128];
	size_t total;
	int nz, r, i, round, okd = 1, off;

	total = iov_total(iov, n, &nz);
	snprintf(name, sizeof(name), "rw %s WRITE context posted twice: "
		 "wr_ids and data of each post", e->tag);
	r = rwx_rw_ctx_init(&ctx, c->cli->qp, iov, n, &mr, 1, (uintptr_t)rem,
			    c->smr->rkey, RWX_RW_WRITE);
	if (r <= 0) {
		failf(name, "init: %s", strerror(errno));
		return;
	}
	for (round = 0; round < 2 && okd; round++) {
		for (i = 0, off = 0; i < n; i++) {
			fill(iov[i].iov_base, iov[i].iov_len,
			     200 + (unsigned)(round * 10 + i));
			memcpy(flat + off, iov[i].iov_base, iov[i].iov_len);
			off += (int)iov[i].iov_len;
		}
		r = rwx_rw_ctx_post(&ctx, 0xE0 + (uint64_t)round, NULL, NULL);
		if (r)
			setwhy("post %d: %s", round, strerror(errno));
		okd = !r && one(c->cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE,
				0xE0 + (uint64_t)round) &&
		      (!memcmp(rem, flat, total) ||
		       (setwhy("round %d data", round), 0));
	}
	expect(name, okd);
	rwx_rw_ctx_destroy(&ctx);
}

static void t_rw(uint32_t sge)
{
	static const size_t a_lens[7] = { 1, 0, 4099, 17, 0, 255, 8192 };
	struct conn_opt o = { .send_sge = sge, .recv_sge = 1 };
	struct ibv_device_attr da;
	struct iovec iov[24];
	struct ibv_mr *mrs[24];
	size_t b_lens[20];
	struct rw_env e;
	struct conn c;
	char tag[48];
	int i, nm;

	snprintf(tag, sizeof(tag), "max_send_sge %u", sge);
	if (conn_open(&c, tag, &o))
		return;
	memset(&e, 0, sizeof(e));
	e.c = &c;
	e.sge = c.ccap.max_send_sge;
	snprintf(e.tag, sizeof(e.tag), "sge%u", sge);
	memset(&da, 0, sizeof(da));
	if (!ibv_query_device(c.cli->verbs, &da))
		e.sge_rd = (uint32_t)da.max_sge_rd;
	setwhy("queried max_send_sge %u", c.ccap.max_send_sge);
	expect(tag, c.ccap.max_send_sge == sge);
	printf("# %s: device max_sge %d max_sge_rd %d\n", tag, da.max_sge,
	       da.max_sge_rd);

	/* Shape A: 7 entries, 2 of them empty, odd sizes and alignments. */
	layout(c.cbuf + 1, a_lens, 7, iov, 13);
	rw_roundtrip(&e, "7-entry", iov, 7, &c.cmr, 1, 0x100);
	/* Shape B: 20 entries, 2 empty. */
	for (i = 0; i < 20; i++)
		b_lens[i] = (i == 5 || i == 13) ? 0 : (size_t)(i * 37 + 1);
	layout(c.cbuf + 0x10000, b_lens, 20, iov, 5);
	rw_roundtrip(&e, "20-entry", iov, 20, &c.cmr, 1, 0x200);
	/* Shape C: one 70000-byte entry. */
	iov[0].iov_base = c.cbuf + 0x20000;
	iov[0].iov_len = 70000;
	rw_roundtrip(&e, "1-entry 70000 B", iov, 1, &c.cmr, 1, 0x300);
	/* Shape A with one MR per entry (NULL for the empty ones). */
	layout(c.cbuf + 0x40000, a_lens, 7, iov, 64);
	for (i = 0, nm = 0; i < 7; i++) {
		mrs[i] = NULL;
		if (!iov[i].iov_len)
			continue;
		mrs[i] = ibv_reg_mr(c.cli->pd, iov[i].iov_base, iov[i].iov_len,
				    IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[i])
			break;
		nm++;
	}
	if (i == 7)
		rw_roundtrip(&e, "7-entry, 5 MRs", iov, 7, mrs, 7, 0x400);
	else
		failf("rw per-entry MRs", "ibv_reg_mr: %s", strerror(errno));
	for (i = 0; i < 7; i++)
		if (mrs[i])
			ibv_dereg_mr(mrs[i]);
	(void)nm;

	layout(c.cbuf + 1, a_lens, 7, iov, 13);
	rw_chain(&e, iov, 7, RWX_RW_WRITE);
	rw_chain(&e, iov, 7, RWX_RW_READ);
	rw_repost(&e, iov, 7);
	conn_close(&c);
}

/* ---- item 9: send with invalidate -------------------------------------- */

static void t_inv(void)
{
	struct conn_opt o = { .send_sge = 1, .recv_sge = 1 };
	struct ibv_send_wr bw, *bad = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_mr *bmr = NULL;
	struct ibv_wc wc;
	struct conn c;
	uint32_t rkey;
	int r;

	if (conn_open(&c, "send_inv", &o))
		return;
	/* A type 2 memory window on the server, bound by a WR on its QP. */
	bmr = ibv_reg_mr(c.srv->pd, c.sbuf + 0x60000, 4096,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_MW_BIND);
	mw = bmr ? ibv_alloc_mw(c.srv->pd, IBV_MW_TYPE_2) : NULL;
	if (!mw) {
		skipf("rwx_post_send_inv: IBV_WC_WITH_INV",
		      "no type 2 memory window on this device: %s",
		      strerror(errno));
		goto accepted_only;
	}
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&bw, 0, sizeof(bw));
	bw.wr_id = 0xF1;
	bw.opcode = IBV_WR_BIND_MW;
	bw.send_flags = IBV_SEND_SIGNALED;
	bw.bind_mw.mw = mw;
	bw.bind_mw.rkey = rkey;
	bw.bind_mw.bind_info.mr = bmr;
	bw.bind_mw.bind_info.addr = (uintptr_t)(c.sbuf + 0x60000);
	bw.bind_mw.bind_info.length = 4096;
	bw.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	r = ibv_post_send(c.srv->qp, &bw, &bad);
	if (r || !one(c.srv, RWX_SEND_CQ, &wc, IBV_WC_BIND_MW, 0xF1)) {
		skipf("rwx_post_send_inv: IBV_WC_WITH_INV",
		      "binding a type 2 MW failed (%s): %s",
		      r ? strerror(r) : "completion", why);
		why[0] = 0;
		goto accepted_only;
	}
	mw->rkey = rkey;
	ok("type 2 MW bound on the server QP (setup for send_inv)");

	/* The window works: a WRITE through it lands. */
	fill(c.cbuf, 64, 40);
	memset(c.sbuf + 0x60000, 0, 128);
	r = rdma_post_write(c.cli, (void *)0xF2, c.cbuf, 64, c.cmr,
			    IBV_SEND_SIGNALED, (uintptr_t)(c.sbuf + 0x60000),
			    rkey);
	expect("WRITE through the MW before invalidation",
	       !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_RDMA_WRITE, 0xF2) &&
	       (!memcmp(c.sbuf + 0x60000, c.cbuf, 64) || (setwhy("data"), 0)));

	memset(c.sbuf, 0, 64);
	fill(c.cbuf + 256, 32, 41);
	r = rdma_post_recv(c.srv, (void *)0xF3, c.sbuf, 64, c.smr);
	r = r ? r : rwx_post_send_inv(c.cli, (void *)0xF4, c.cbuf + 256, 32,
				      c.cmr, IBV_SEND_SIGNALED, rkey);
	if (r)
		setwhy("post: %s", strerror(errno));
	/*
	 * rxe hands userspace the kernel's wc_flags values, in which
	 * IB_WC_WITH_INVALIDATE is 1 << 2 (IBV_WC_IP_CSUM_OK in verbs.h)
	 * instead of IBV_WC_WITH_INV (1 << 3); accept either bit, say which.
	 */
	expect("rwx_post_send_inv: receiver gets WITH_INV, the rkey, data",
	       !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0xF4) &&
	       one(c.srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0xF3) &&
	       ((wc.wc_flags & (IBV_WC_WITH_INV | RXE_KERNEL_WITH_INV) &&
		 wc.invalidated_rkey == rkey) ||
		(setwhy("flags %#x invalidated_rkey %#x want %#x", wc.wc_flags,
			wc.invalidated_rkey, rkey), 0)) &&
	       ((wc.byte_len == 32 && !memcmp(c.sbuf, c.cbuf + 256, 32)) ||
		(setwhy("payload"), 0)));

	if (wc.wc_flags & RXE_KERNEL_WITH_INV && !(wc.wc_flags & IBV_WC_WITH_INV))
		printf("# send_inv: wc_flags %#x: the provider set bit 1<<2 "
		       "(kernel IB_WC_WITH_INVALIDATE), not IBV_WC_WITH_INV\n",
		       wc.wc_flags);
	/* The window is gone: a WRITE through it fails (and breaks the QP). */
	r = rdma_post_write(c.cli, (void *)0xF5, c.cbuf, 64, c.cmr,
			    IBV_SEND_SIGNALED, (uintptr_t)(c.sbuf + 0x60000),
			    rkey);
	memset(&wc, 0, sizeof(wc));
	if (!r && !reap(c.cli, RWX_SEND_CQ, &wc, 1, TMO) &&
	    wc.status == IBV_WC_SUCCESS)
		setwhy("WRITE through the invalidated rkey succeeded");
	expect("after send_inv the rkey is invalid (WRITE fails remotely)",
	       !r && wc.wr_id == 0xF5 && wc.status != IBV_WC_SUCCESS);
	goto out;

accepted_only:
	skipf("rwx_post_send_inv accepted", "see above");
out:
	if (mw)
		ibv_dealloc_mw(mw);
	if (bmr)
		ibv_dereg_mr(bmr);
	conn_close(&c);
}

/* ---- UD: rdma_post_ud_send ---------------------------------------------- */

static void t_ud(int wr)
{
	struct conn_opt o = { .send_sge = 1, .recv_sge = 1, .ud = 1, .wr = wr };
	struct ibv_ah *ah = NULL, *ah2 = NULL;
	struct rdma_cm_event *ev;
	struct ibv_wc wc;
	struct conn c;
	uint32_t qpn;
	int r;

	if (conn_open(&c, "UD (rdma_cm SIDR)", &o))
		return;
	ev = c.cli->event;
	if (!ev || ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		failf("UD: client has the ESTABLISHED event with UD params",
		      "event %p type %d", (void *)ev, ev ? (int)ev->event : -1);
		goto out;
	}
	qpn = ev->param.ud.qp_num;
	setwhy("qp_num %#x want %#x, qkey %#x", qpn, c.srv->qp->qp_num,
	       ev->param.ud.qkey);
	expect("UD: SIDR reply names the server QP and the rdma_cm qkey",
	       qpn == c.srv->qp->qp_num && ev->param.ud.qkey == UDP_QKEY);
	ah = ibv_create_ah(c.cli->pd, &ev->param.ud.ah_attr);
	if (!ah) {
		failf("UD: ibv_create_ah", "%s", strerror(errno));
		goto out;
	}
	expect_einval("rdma_post_ud_send ah NULL: EINVAL",
		      rdma_post_ud_send(c.cli, NULL, c.cbuf, 8, c.cmr,
					IBV_SEND_SIGNALED, NULL, qpn));
	memset(c.sbuf, 0, 256);
	fill(c.cbuf, 100, 50);
	r = rdma_post_recv(c.srv, (void *)0x1A1, c.sbuf, GRH + 128, c.smr);
	r = r ? r : rdma_post_ud_send(c.cli, (void *)0x1A2, c.cbuf, 100, c.cmr,
				      IBV_SEND_SIGNALED, ah, qpn);
	if (r)
		setwhy("post: %s", strerror(errno));
	if (!expect("rdma_post_ud_send 100 B: received after the GRH, src_qp",
		    !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x1A2) &&
		    one(c.srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x1A1) &&
		    ((wc.byte_len == GRH + 100 && wc.src_qp == c.cli->qp->qp_num) ||
		     (setwhy("byte_len %u src_qp %#x", wc.byte_len, wc.src_qp), 0)) &&
		    (!memcmp(c.sbuf + GRH, c.cbuf, 100) ||
		     (setwhy("payload differs"), 0))))
		goto out;

	/*
	 * rwx_post_ud_send_imm/_qkey: the immediate arrives; a datagram to
	 * another qkey is dropped by the receiver (the receive it would have
	 * taken takes the next one, to the right qkey).
	 */
	memset(c.sbuf, 0, 256);
	r = rdma_post_recv(c.srv, (void *)0x1B1, c.sbuf, GRH + 128, c.smr);
	r = r ? r : rwx_post_ud_send_imm(c.cli, (void *)0x1B2, c.cbuf, 100,
					 c.cmr, IBV_SEND_SIGNALED, ah, qpn,
					 UDP_QKEY, htonl(0x5eed));
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_ud_send_imm: received with its immediate",
	       !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x1B2) &&
	       one(c.srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x1B1) &&
	       (((wc.wc_flags & IBV_WC_WITH_IMM) &&
		 ntohl(wc.imm_data) == 0x5eed && wc.byte_len == GRH + 100) ||
		(setwhy("%s imm %#x", wc_str(&wc), ntohl(wc.imm_data)), 0)));
	fill(c.cbuf + 0x200, 40, 52);
	r = rdma_post_recv(c.srv, (void *)0x1B3, c.sbuf, GRH + 128, c.smr);
	r = r ? r : rwx_post_ud_send_qkey(c.cli, (void *)0x1B4, c.cbuf, 100,
					  c.cmr, IBV_SEND_SIGNALED, ah, qpn,
					  UDP_QKEY ^ 0x10);
	r = r ? r : rwx_post_ud_send_qkey(c.cli, (void *)0x1B5,
					  c.cbuf + 0x200, 40, c.cmr,
					  IBV_SEND_SIGNALED, ah, qpn,
					  UDP_QKEY);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rwx_post_ud_send_qkey: another qkey dropped, its own received",
	       !r && one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x1B4) &&
	       one(c.cli, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x1B5) &&
	       one(c.srv, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x1B3) &&
	       ((wc.byte_len == GRH + 40 &&
		 !memcmp(c.sbuf + GRH, c.cbuf + 0x200, 40)) ||
		(setwhy("byte_len %u / payload", wc.byte_len), 0)) &&
	       quiet(c.srv, RWX_RECV_CQ, 200));

	/* Reply through an AH built from the received completion. */
	ah2 = ibv_create_ah_from_wc(c.srv->pd, &wc, (void *)c.sbuf,
				    c.srv->port_num);
	if (!ah2) {
		skipf("rdma_post_ud_send reply", "ibv_create_ah_from_wc: %s",
		      strerror(errno));
		goto out;
	}
	memset(c.cbuf + 0x1000, 0, 256);
	fill(c.sbuf + 0x1000, 60, 51);
	r = rdma_post_recv(c.cli, (void *)0x1A3, c.cbuf + 0x1000, GRH + 64,
			   c.cmr);
	r = r ? r : rdma_post_ud_send(c.srv, (void *)0x1A4, c.sbuf + 0x1000,
				      60, c.smr, IBV_SEND_SIGNALED, ah2,
				      wc.src_qp);
	if (r)
		setwhy("post: %s", strerror(errno));
	expect("rdma_post_ud_send reply (AH from wc): client receives 60 B",
	       !r && one(c.srv, RWX_SEND_CQ, &wc, IBV_WC_SEND, 0x1A4) &&
	       one(c.cli, RWX_RECV_CQ, &wc, IBV_WC_RECV, 0x1A3) &&
	       ((wc.byte_len == GRH + 60 &&
		!memcmp(c.cbuf + 0x1000 + GRH, c.sbuf + 0x1000, 60)) ||
		(setwhy("byte_len %u / payload", wc.byte_len), 0)));
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (ah2)
		ibv_destroy_ah(ah2);
	conn_close(&c);
}

/* ---- interop with rdma_server / rdma_client ------------------------------ */

/*
 * The examples' protocol: 16-byte messages, client posts a receive,
 * connects, sends; the server receives, then replies; both use
 * sq_sig_all and, where possible, inline sends.
 */
static int interop(int server, const char *port)
{
	struct rdma_addrinfo hints, *res;
	struct ibv_qp_init_attr attr;
	struct rdma_cm_id *lid = NULL, *id = NULL;
	struct ibv_mr *rmr = NULL, *smr = NULL;
	uint8_t sendb[16], recvb[16];
	struct ibv_wc wc;
	const char *who = server ? "interop server" : "interop client";
	char name[128];
	int r, flags = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	watch(who, 60);
	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	r = rdma_getaddrinfo(server ? NULL : addr, port, &hints, &res);
	if (r) {
		failf(who, "rdma_getaddrinfo: %s", gai_strerror(r));
		goto done;
	}
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = attr.cap.max_recv_sge = 1;
	attr.cap.max_inline_data = 16;
	attr.sq_sig_all = 1;
	r = rdma_create_ep(server ? &lid : &id, res, NULL, &attr);
	rdma_freeaddrinfo(res);
	if (r) {
		failf(who, "rdma_create_ep: %s", strerror(errno));
		goto done;
	}
	if (server) {
		if (rdma_listen(lid, 0) || rdma_get_request(lid, &id)) {
			failf(who, "listen/get_request: %s", strerror(errno));
			goto done;
		}
		memset(&attr, 0, sizeof(attr));
		{
			struct ibv_qp_attr qa;

			if (!ibv_query_qp(id->qp, &qa, IBV_QP_CAP, &attr))
				attr.cap = qa.cap;
		}
	}
	if (attr.cap.max_inline_data >= 16)
		flags = IBV_SEND_INLINE;
	fill(sendb, 16, server ? 61 : 62);
	memset(recvb, 0xAB, 16);
	rmr = rdma_reg_msgs(id, recvb, 16);
	if (!flags)
		smr = rdma_reg_msgs(id, sendb, 16);
	if (!rmr || (!flags && !smr)) {
		failf(who, "rdma_reg_msgs: %s", strerror(errno));
		goto done;
	}
	if (rdma_post_recv(id, NULL, recvb, 16, rmr)) {
		failf(who, "rdma_post_recv: %s", strerror(errno));
		goto done;
	}
	if (server ? rdma_accept(id, NULL) : rdma_connect(id, NULL)) {
		failf(who, "%s: %s", server ? "rdma_accept" : "rdma_connect",
		      strerror(errno));
		goto done;
	}
	snprintf(name, sizeof(name), "%s: connected", who);
	ok(name);
	if (server) {
		snprintf(name, sizeof(name), "%s: received the client's 16 bytes",
			 who);
		r = rdma_get_recv_comp(id, &wc);
		setwhy("get_recv_comp %d, %s", r, wc_str(&wc));
		/* rdma_client sends its zero-initialised static buffer. */
		expect(name, r == 1 && wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_RECV && wc.byte_len == 16 &&
		       (!all_bytes(recvb, 16, 0xAB) ||
			(setwhy("receive buffer not written"), 0)));
		printf("# %s: message %02x%02x%02x%02x...\n", who, recvb[0],
		       recvb[1], recvb[2], recvb[3]);
	}
	r = rdma_post_send(id, NULL, sendb, 16, smr, flags);
	if (r) {
		failf(who, "rdma_post_send: %s", strerror(errno));
		goto done;
	}
	r = rdma_get_send_comp(id, &wc);
	snprintf(name, sizeof(name), "%s: send completed", who);
	setwhy("get_send_comp %d, %s", r, wc_str(&wc));
	expect(name, r == 1 && wc.status == IBV_WC_SUCCESS &&
	       wc.opcode == IBV_WC_SEND);
	if (!server) {
		snprintf(name, sizeof(name), "%s: received the server's reply",
			 who);
		r = rdma_get_recv_comp(id, &wc);
		setwhy("get_recv_comp %d, %s", r, wc_str(&wc));
		expect(name, r == 1 && wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_RECV && wc.byte_len == 16 &&
		       (!all_bytes(recvb, 16, 0xAB) ||
			(setwhy("receive buffer not written"), 0)));
		printf("# %s: reply %02x%02x%02x%02x...\n", who, recvb[0],
		       recvb[1], recvb[2], recvb[3]);
		/* rdma_server sent last: it disconnects first (rwx_conn.c). */
		snprintf(name, sizeof(name),
			 "%s: rdma_server disconnects after its reply", who);
		r = rwx_conn_await_disconnect(id, 30000);
		setwhy("%s", strerror(errno));
		expect(name, r == 0);
	} else {
		rdma_disconnect(id);
	}
done:
	if (rmr)
		rdma_dereg_mr(rmr);
	if (smr)
		rdma_dereg_mr(smr);
	if (id)
		rdma_destroy_ep(id);
	if (lid)
		rdma_destroy_ep(lid);
	alarm(0);
	summary();
	return nfail ? 1 : 0;
}

/* ---- main --------------------------------------------------------------- */

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-a ADDR] [-S PORT | -C PORT]\n", argv0);
	exit(2);
}

/* The groups run again on QPs of rwx_create_qp() (main()). */
static const struct {
	const char *name;
	void (*run)(struct conn *c);
} wr_groups[] = {
	{ "send/recv", t_sendrecv },
	{ "read/write", t_readwrite },
	{ "immediates", t_imm },
	{ "atomics", t_atomic },
	{ "get_comps", t_get_comps },
};

int main(int argc, char **argv)
{
	struct conn_opt o2 = { .send_sge = 2, .recv_sge = 2 };
	struct conn_opt o2wr = { .send_sge = 2, .recv_sge = 2, .wr = 1 };
	static const uint32_t sges[] = { 1, 2, 3, 16 };
	const char *sport = NULL, *cport = NULL;
	struct conn c;
	unsigned long n;
	unsigned i;
	int op;

	while ((op = getopt(argc, argv, "a:S:C:")) != -1) {
		switch (op) {
		case 'a': addr = optarg; break;
		case 'S': sport = optarg; break;
		case 'C': cport = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (optind != argc || (sport && cport))
		usage(argv[0]);
	if (sport || cport)
		return interop(sport != NULL, sport ? sport : cport);

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	port_next = 20000 + (int)(getpid() % 1000) * 20;
	printf("# rwx_vmtest: librdmarwx %s on %s\n", RWX_VERSION_STRING, addr);

	begin("basic connection");
	if (!conn_open(&c, "basic (max_send_sge 2, max_recv_sge 2)", &o2)) {
		begin("send/recv");
		t_sendrecv(&c);
		begin("read/write");
		t_readwrite(&c);
		begin("immediates");
		t_imm(&c);
		begin("atomics");
		t_atomic(&c);
		begin("post_list");
		t_list(&c);
		begin("post_recv_list");
		t_recv_list(&c);
		begin("get_comps");
		t_get_comps(&c);
		begin("wait_comp");
		t_wait(&c);
		conn_close(&c);
	}
	begin("caller-supplied CQs");
	t_own_cqs();
	begin("srq");
	t_srq();
	begin("caps cache");
	t_cache();
	begin("rw ctx sq_sig_all");
	t_rw_sig_all();
	for (i = 0; i < sizeof(sges) / sizeof(sges[0]); i++) {
		begin("rw ctx");
		t_rw(sges[i]);
	}
	begin("send_inv");
	t_inv();
	begin("ud");
	t_ud(0);
	/*
	 * Again on QPs of rwx_create_qp(), whose single-WR posts go
	 * through rxe's ibv_wr_* builders.
	 */
	name_prefix = "wr: ";
	begin("ibv_wr_* connection");
	if (!conn_open(&c, "basic (max_send_sge 2, max_recv_sge 2)", &o2wr)) {
		ok("setup: both QPs have the ibv_wr_* builders");
		for (i = 0; i < sizeof(wr_groups) / sizeof(wr_groups[0]); i++) {
			begin(wr_groups[i].name);
			n = wr_regions;
			wr_groups[i].run(&c);
			expect_regions(wr_groups[i].name, n);
		}
		conn_close(&c);
	}
	begin("ud");
	n = wr_regions;
	t_ud(1);
	expect_regions("ud", n);
	name_prefix = "";
	alarm(0);
	summary();
	return nfail ? 1 : 0;
}
