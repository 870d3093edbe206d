// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_postbench: the cost of one rdma_post_write() and rdma_post_send()
 * call, librdmarwx's exported function against librdmacm's static inline
 * helper (postbench_inline.c), on one connected RC QP with the same
 * arguments.  make bench runs it in a QEMU guest on Soft-RoCE.
 *
 *   rwx_postbench [-a addr] [-p port] [-s size] [-r rounds] [-n batches]
 *                 [-o write|send] [-i lib|inline] [-w]
 *
 * -w: the posting QP made by rwx_create_qp(), so that the library posts
 * through rxe's ibv_wr_* builders (the inline helper, ibv_post_send(),
 * on the same QP); its lines then name the API "wr", else "post".
 *
 * Both sides post batches of one shape: BATCH - 1 unsignaled WRs and a
 * signaled last one, whose completion (and for SEND the peer's receive
 * completions) is reaped outside the measured window, so that neither
 * queue overflows.  Each round runs n batches per operation and side,
 * the sides' order alternating from round to round.
 *
 * Two measurements from the same run:
 *  - instructions: run under valgrind --tool=callgrind with
 *    --collect-atstart=no and --toggle-collect= on the function measured
 *    (-o and -i select one: rdma_post_write, rdma_post_send,
 *    rdmacm_post_write or rdmacm_post_send).  After one warm-up batch
 *    (the library's first QP lookup) the counters are zeroed, so the
 *    count collected divided by the calls made ("calls" lines) is the
 *    user-space cost of one steady-state call, provider included, and
 *    callgrind's per-function split is that call's;
 *  - time: each batch's posts are timed with CLOCK_MONOTONIC, less the
 *    cost of an empty window; under QEMU -icount that is instructions
 *    too, the kernel's included (the provider's doorbell is a write(2)
 *    to the uverbs device), and whatever kernel work runs before the
 *    call returns.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <valgrind/callgrind.h>

#include <rdma/rwx_verbs.h>

#include "postbench.h"
#include "rwx_conn.h"

#define BATCH 16
#define QUEUE_DEPTH (2 * BATCH)
#define REAP_TIMEOUT_NS 60000000000ull	/* valgrind in TCG is slow */

enum op { OP_WRITE, OP_SEND, NR_OPS };
enum impl { IMPL_LIB, IMPL_INLINE, NR_IMPLS };

static const char *const op_name[NR_OPS] = { "write", "send" };
static const char *const impl_name[NR_IMPLS] = { "lib", "inline" };

typedef int (*write_fn)(struct rdma_cm_id *id, void *context, void *addr,
			size_t length, struct ibv_mr *mr, int flags,
			uint64_t remote_addr, uint32_t rkey);
typedef int (*send_fn)(struct rdma_cm_id *id, void *context, void *addr,
		       size_t length, struct ibv_mr *mr, int flags);

static const write_fn post_write[NR_IMPLS] = {
	rdma_post_write, rdmacm_post_write
};
static const send_fn post_send[NR_IMPLS] = {
	rdma_post_send, rdmacm_post_send
};

struct bench {
	struct rdma_cm_id *listen;
	struct rwx_conn active, passive;	/* poster, peer */
	size_t size;
};

struct options {
	const char *addr;
	const char *port;
	size_t size;
	unsigned int rounds;
	unsigned int batches;
	int ops[NR_OPS];	/* which to run */
	int impls[NR_IMPLS];
	int wr;			/* -w: the poster's QP of rwx_create_qp() */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fail(const char *what)
{
	fprintf(stderr, "rwx_postbench: %s: %s\n", what, strerror(errno));
	return -1;
}

/* Whether rwx_create_qp() gave @qp ibv_wr_* builders (else errno). */
static int has_builders(struct ibv_qp *qp)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

	if (x && x->wr_start && x->wr_rdma_write && x->wr_send)
		return 1;
	errno = EOPNOTSUPP;
	return 0;
}

/* Both ends of one RC connection in this process, through rdma_cm. */
static int bench_connect(struct bench *b, const struct options *o)
{
	struct rdma_addrinfo hints, *passive = NULL, *active = NULL;
	struct ibv_qp_init_attr attr;
	struct rwx_accept acc = { 0 };
	pthread_t th;
	int ret = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE | RAI_NUMERICHOST;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(o->addr, o->port, &hints, &passive))
		return fail("rdma_getaddrinfo (passive)");
	hints.ai_flags = RAI_NUMERICHOST;
	if (rdma_getaddrinfo(o->addr, o->port, &hints, &active)) {
		fail("rdma_getaddrinfo");
		goto out;
	}
	memset(&attr, 0, sizeof(attr));
	attr.cap.max_send_wr = QUEUE_DEPTH;
	attr.cap.max_recv_wr = QUEUE_DEPTH;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	if (rdma_create_ep(&b->listen, passive, NULL, &attr) ||
	    rdma_listen(b->listen, 1)) {
		fail("listen");
		goto out;
	}
	acc.listen = b->listen;
	if (pthread_create(&th, NULL, rwx_accept_one, &acc)) {
		fprintf(stderr, "rwx_postbench: pthread_create failed\n");
		goto out;
	}
	if (rdma_create_ep(&b->active.id, active, NULL, o->wr ? NULL : &attr) ||
	    (o->wr && rwx_create_qp(b->active.id, NULL, &attr)) ||
	    (o->wr && !has_builders(b->active.id->qp)) ||
	    rdma_connect(b->active.id, NULL)) {
		/* The acceptor would wait for ever: give up the process. */
		fail("connect");
		exit(1);
	}
	pthread_join(th, NULL);
	if (acc.ret) {
		errno = acc.err;
		fail("accept");
		goto out;
	}
	b->passive.id = acc.id;
	if (rwx_conn_buf(&b->active, b->size) ||
	    rwx_conn_buf(&b->passive, b->size))
		goto out;
	ret = 0;
out:
	rdma_freeaddrinfo(passive);
	if (active)
		rdma_freeaddrinfo(active);
	return ret;
}

static void bench_close(struct bench *b)
{
	rwx_conn_close(&b->passive);
	rwx_conn_close(&b->active);
	if (b->listen)
		rdma_destroy_ep(b->listen);
}

/* Busy-poll @want successful completions from @cq. */
static int reap(struct ibv_cq *cq, int want)
{
	uint64_t deadline = now_ns() + REAP_TIMEOUT_NS;
	struct ibv_wc wc[BATCH];
	int got = 0, n, i;

	while (got < want) {
		n = ibv_poll_cq(cq, want - got < BATCH ? want - got : BATCH,
				wc);
		if (n < 0) {
			fprintf(stderr, "rwx_postbench: ibv_poll_cq failed\n");
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "rwx_postbench: %s\n",
					ibv_wc_status_str(wc[i].status));
				return -1;
			}
		}
		got += n;
		if (!n && now_ns() > deadline) {
			fprintf(stderr, "rwx_postbench: no completion\n");
			return -1;
		}
	}
	return 0;
}

/* The peer's receives for one batch of SENDs, posted with plain verbs. */
static int post_receives(struct bench *b)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->passive.buf,
		.length = (uint32_t)b->size,
		.lkey = b->passive.mr->lkey,
	};
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < BATCH; i++) {
		errno = ibv_post_recv(b->passive.id->qp, &wr, &bad);
		if (errno)
			return fail("ibv_post_recv");
	}
	return 0;
}

/*
 * One batch through one side; returns its posts' window in ns, or -1.
 * The loop is the same for both sides: only the function pointer differs.
 */
static int64_t batch(struct bench *b, enum op op, enum impl impl)
{
	struct rwx_conn *a = &b->active;
	uint64_t raddr = (uintptr_t)b->passive.buf;
	uint32_t rkey = b->passive.mr->rkey;
	uint64_t t0, t1;
	int i, ret = 0;

	if (op == OP_SEND && post_receives(b))
		return -1;
	t0 = now_ns();
	for (i = 0; i < BATCH && !ret; i++) {
		int flags = i == BATCH - 1 ? IBV_SEND_SIGNALED : 0;
		void *ctx = (void *)(uintptr_t)i;

		if (op == OP_WRITE)
			ret = post_write[impl](a->id, ctx, a->buf, b->size,
					       a->mr, flags, raddr, rkey);
		else
			ret = post_send[impl](a->id, ctx, a->buf, b->size,
					      a->mr, flags);
	}
	t1 = now_ns();
	if (ret)
		return fail(op == OP_WRITE ? "rdma_post_write" :
			    "rdma_post_send");
	if (reap(a->id->send_cq, 1))
		return -1;
	if (op == OP_SEND && reap(b->passive.id->recv_cq, BATCH))
		return -1;
	return (int64_t)(t1 - t0);
}

/* The cheapest empty window: the clock's own share of every window. */
static uint64_t empty_window_ns(void)
{
	uint64_t best = UINT64_MAX, t0, t1;
	int i;

	for (i = 0; i < 1000; i++) {
		t0 = now_ns();
		t1 = now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

/* The posting API the library takes on the poster's QP. */
static const char *api_name(const struct options *o)
{
	return o->wr ? "wr" : "post";
}

static int run(struct bench *b, const struct options *o)
{
	uint64_t empty = empty_window_ns(), sum[NR_IMPLS];
	unsigned long calls[NR_OPS][NR_IMPLS] = { { 0 } };
	unsigned int r, n, k;
	int64_t ns;
	int op, impl;

	printf("postbench: size %zu B, batches of %d (the last signaled), "
	       "%u per operation and side in each of %u rounds\n",
	       b->size, BATCH, o->batches, o->rounds);
	printf("postbench: empty timing window %llu ns\n",
	       (unsigned long long)empty);
	for (op = 0; op < NR_OPS; op++)
		for (impl = 0; impl < NR_IMPLS; impl++)
			if (o->ops[op] && o->impls[impl] &&
			    batch(b, op, impl) < 0)
				return -1;
	CALLGRIND_ZERO_STATS;
	for (r = 1; r <= o->rounds; r++) {
		for (op = 0; op < NR_OPS; op++) {
			if (!o->ops[op])
				continue;
			for (k = 0; k < NR_IMPLS; k++) {
				/* Odd rounds the library first. */
				impl = (int)(k ^ !(r & 1));
				sum[impl] = 0;
				if (!o->impls[impl])
					continue;
				for (n = 0; n < o->batches; n++) {
					ns = batch(b, op, impl);
					if (ns < 0)
						return -1;
					sum[impl] += (uint64_t)ns > empty ?
						     (uint64_t)ns - empty : 0;
				}
				calls[op][impl] += (unsigned long)o->batches *
						   BATCH;
			}
			printf("postbench: time %s %s round %u lib %.1f inline "
			       "%.1f ns/call\n", api_name(o), op_name[op], r,
			       (double)sum[IMPL_LIB] / (o->batches * BATCH),
			       (double)sum[IMPL_INLINE] /
			       (o->batches * BATCH));
		}
	}
	for (op = 0; op < NR_OPS; op++)
		for (impl = 0; impl < NR_IMPLS; impl++)
			if (o->ops[op] && o->impls[impl])
				printf("postbench: calls %s %s %s %lu\n",
				       api_name(o), op_name[op], impl_name[impl],
				       calls[op][impl]);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rwx_postbench [-a addr] [-p port] [-s size] "
		"[-r rounds] [-n batches]\n"
		"                     [-o write|send] [-i lib|inline] [-w]\n"
		"  -a  address of a local RDMA device (default 192.0.2.1)\n"
		"  -p  rdma_cm port (default 19600)\n"
		"  -s  message size in bytes (default 64)\n"
		"  -r  rounds (default 15)\n"
		"  -n  batches of %d posts per operation and side in a round "
		"(default 32)\n"
		"  -o  only this operation, write or send (default both)\n"
		"  -i  only this side, lib or inline (default both)\n"
		"  -w  the posting QP made by rwx_create_qp(): the library\n"
		"      posts through its ibv_wr_* builders\n", BATCH);
}

static int parse_count(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	return (errno || *end || !*s || *s == '-' || !*v || *v > max) ?
	       -1 : 0;
}

_Static_assert(NR_OPS == 2 && NR_IMPLS == 2, "only_one() picks one of two");

/* -o and -i: @s names one of the two @names; select that one alone. */
static int only_one(const char *s, const char *const names[2], int sel[2])
{
	int i;

	for (i = 0; i < 2; i++)
		if (!strcmp(s, names[i])) {
			sel[i] = 1;
			sel[!i] = 0;
			return 0;
		}
	return -1;
}

static int parse(int argc, char **argv, struct options *o)
{
	unsigned long v;
	int c;

	*o = (struct options){ "192.0.2.1", "19600", 64, 15, 32,
			       { 1, 1 }, { 1, 1 }, 0 };
	while ((c = getopt(argc, argv, "a:p:s:r:n:o:i:wh")) != -1) {
		switch (c) {
		case 'w':
			o->wr = 1;
			break;
		case 'a':
			o->addr = optarg;
			break;
		case 'p':
			o->port = optarg;
			break;
		case 's':
			if (parse_count(optarg, 1u << 20, &v))
				return -1;
			o->size = v;
			break;
		case 'r':
			if (parse_count(optarg, 1000, &v))
				return -1;
			o->rounds = (unsigned int)v;
			break;
		case 'n':
			if (parse_count(optarg, 100000, &v))
				return -1;
			o->batches = (unsigned int)v;
			break;
		case 'o':
			if (only_one(optarg, op_name, o->ops))
				return -1;
			break;
		case 'i':
			if (only_one(optarg, impl_name, o->impls))
				return -1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	struct options o;
	int ret;

	if (parse(argc, argv, &o)) {
		usage(stderr);
		return 2;
	}
	b.size = o.size;
	ret = bench_connect(&b, &o);
	if (!ret)
		ret = run(&b, &o);
	bench_close(&b);
	return ret ? 1 : 0;
}
