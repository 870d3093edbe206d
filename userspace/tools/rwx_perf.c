// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_perf: bandwidth and message rate over rdma_cm, built on librdmarwx.
 *
 *   server:  rwx_perf [--op write|read|send] [-s N | -a] [-n N]
 *   client:  rwx_perf [same options] <server address>
 *
 * The client sends its settings in the connect private data; the server
 * answers with its buffer's address and rkey in the accept private data.
 * For WRITE/READ the server is passive and waits for a final zero-length
 * SEND; for SEND it keeps receives posted until all messages arrived.
 * The client, which sends last, disconnects first (rwx_conn.c says why).
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <rdma/rwx_verbs.h>

#include "rwx_conn.h"
#include "rwx_perf.h"

/* ms the server waits for the client to disconnect after the last message */
#define PERF_CLOSE_WAIT_MS	60000

struct wire_cfg {		/* client -> server, network order */
	uint32_t op, all, size, iters, tx_depth;
};

struct wire_buf {		/* server -> client */
	uint64_t addr;
	uint32_t rkey, pad;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int die(const char *what)
{
	fprintf(stderr, "rwx_perf: %s: %s\n", what, strerror(errno));
	return -1;
}

static uint32_t max_size(const struct rwx_perf_opts *o)
{
	return o->all ? PERF_MAX_ALL_SIZE : o->size;
}

static void qp_attr(struct ibv_qp_init_attr *a, const struct rwx_perf_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->cap.max_send_wr = o->tx_depth + 1;
	a->cap.max_recv_wr = (o->rx_depth > o->tx_depth ? o->rx_depth :
			      o->tx_depth) + 1;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
	a->qp_type = IBV_QPT_RC;
	a->sq_sig_all = 0;
}

/*
 * @id's QP, as rdma_create_qp() makes it or, with --new-send, as
 * rwx_create_qp() does (with the ibv_wr_* builders the library then
 * posts through: refused if the provider gave it none).
 */
static int create_qp(struct rdma_cm_id *id, const struct rwx_perf_opts *o)
{
	struct ibv_qp_init_attr attr;
	struct ibv_qp_ex *x;

	qp_attr(&attr, o);
	if (!o->new_send)
		return rdma_create_qp(id, NULL, &attr) ?
		       die("rdma_create_qp") : 0;
	if (rwx_create_qp(id, NULL, &attr))
		return die("rwx_create_qp");
	x = ibv_qp_to_qp_ex(id->qp);
	if (!x || !x->wr_start) {
		errno = EOPNOTSUPP;
		return die("--new-send: no ibv_wr_* builders on this QP");
	}
	return 0;
}

/* One completion, busy-polled like perftest; fails on a bad status. */
static int reap(struct rwx_conn *c, enum rwx_cq_sel which, struct ibv_wc *wc,
		int n)
{
	int got, i;

	do {
		got = rwx_get_comps(c->id, which, wc, n);
	} while (got == 0);
	if (got < 0)
		return die("rwx_get_comps");
	for (i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "rwx_perf: completion error: %s\n",
				ibv_wc_status_str(wc[i].status));
			return -1;
		}
	}
	return got;
}

static int post_one(struct rwx_conn *c, const struct rwx_perf_opts *o,
		    uint32_t size, uint64_t i, int flags,
		    const struct wire_buf *rb)
{
	void *ctx = (void *)(uintptr_t)i;

	switch (o->op) {
	case PERF_WRITE:
		return rdma_post_write(c->id, ctx, c->buf, size, c->mr, flags,
				       rb->addr, rb->rkey);
	case PERF_READ:
		return rdma_post_read(c->id, ctx, c->buf, size, c->mr, flags,
				      rb->addr, rb->rkey);
	case PERF_SEND:
		return rdma_post_send(c->id, ctx, c->buf, size, c->mr, flags);
	}
	errno = EINVAL;
	return -1;
}

/*
 * Keep up to tx_depth WRs in flight; every cq_mod-th WR (and the last) is
 * signaled, and its completion retires all WRs up to it (a send queue
 * completes in order).  Peak bandwidth is the best such batch; with
 * --no-peak it is not computed (reported as 0, as perftest's -N does).
 */
static int run_size(struct rwx_conn *c, const struct rwx_perf_opts *o,
		    uint32_t size, const struct wire_buf *rb)
{
	uint64_t posted = 0, done = 0, last_done = 0;
	double t0, t_last, t, bw, peak = 0, el;
	struct ibv_wc wc[16];
	int n;

	t0 = t_last = now_s();
	while (done < o->iters) {
		while (posted < o->iters && posted - done < o->tx_depth) {
			int sig = (posted + 1) % o->cq_mod == 0 ||
				  posted + 1 == o->iters;

			if (post_one(c, o, size, posted,
				     sig ? IBV_SEND_SIGNALED : 0, rb))
				return die("post");
			posted++;
		}
		n = reap(c, RWX_SEND_CQ, wc, 16);
		if (n < 0)
			return -1;
		/* The newest completion retires every WR before it. */
		done = wc[n - 1].wr_id + 1;
		if (o->no_peak)
			continue;
		t = now_s();
		bw = rwx_perf_mbs((done - last_done) * size, t - t_last);
		if (bw > peak)
			peak = bw;
		t_last = t;
		last_done = done;
	}
	el = now_s() - t0;
	rwx_perf_line(stdout, size, o->iters, peak,
		      rwx_perf_mbs((uint64_t)o->iters * size, el),
		      rwx_perf_mpps(o->iters, el));
	return 0;
}

static int client(const struct rwx_perf_opts *o)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct rdma_conn_param cp;
	struct wire_cfg cfg;
	struct wire_buf rb;
	struct rwx_conn c = { 0 };
	uint32_t sizes[PERF_MAX_SIZES];
	struct ibv_wc wc;
	int i, n, ret = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(o->host, o->port, &hints, &res))
		return die("rdma_getaddrinfo");
	if (rdma_create_ep(&c.id, res, NULL, NULL)) {
		rdma_freeaddrinfo(res);
		return die("rdma_create_ep");
	}
	rdma_freeaddrinfo(res);
	if (create_qp(c.id, o) || rwx_conn_buf(&c, max_size(o)))
		goto out;

	cfg.op = htonl(o->op);
	cfg.all = htonl((uint32_t)o->all);
	cfg.size = htonl(o->size);
	cfg.iters = htonl(o->iters);
	cfg.tx_depth = htonl(o->tx_depth);
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &cfg;
	cp.private_data_len = sizeof(cfg);
	cp.responder_resources = cp.initiator_depth = 16;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;	/* infinite: SEND may outrun the receiver */
	if (rdma_connect(c.id, &cp)) {
		die("rdma_connect");
		goto out;
	}
	if (!c.id->event || c.id->event->param.conn.private_data_len <
	    sizeof(rb)) {
		fprintf(stderr, "rwx_perf: server sent no buffer info\n");
		goto out;
	}
	memcpy(&rb, c.id->event->param.conn.private_data, sizeof(rb));
	rb.addr = be64toh(rb.addr);
	rb.rkey = ntohl(rb.rkey);

	printf("# rwx_perf %s, tx depth %u, cq mod %u\n",
	       rwx_perf_op_name(o->op), o->tx_depth, o->cq_mod);
	rwx_perf_header(stdout);
	n = rwx_perf_sizes(o, sizes, PERF_MAX_SIZES);
	for (i = 0; i < n; i++)
		if (run_size(&c, o, sizes[i], &rb))
			goto out;
	if (o->op != PERF_SEND) {	/* tell the passive server we are done */
		if (rdma_post_send(c.id, NULL, NULL, 0, NULL,
				   IBV_SEND_SIGNALED) ||
		    rdma_get_send_comp(c.id, &wc) < 0) {
			die("final send");
			goto out;
		}
	}
	ret = 0;
	rdma_disconnect(c.id);
out:
	rwx_conn_close(&c);
	return ret;
}

static int cfg_from_wire(struct rdma_cm_id *id, struct rwx_perf_opts *o)
{
	struct wire_cfg cfg;

	if (!id->event || id->event->param.conn.private_data_len <
	    sizeof(cfg)) {
		fprintf(stderr, "rwx_perf: client sent no settings\n");
		return -1;
	}
	memcpy(&cfg, id->event->param.conn.private_data, sizeof(cfg));
	o->op = (enum rwx_perf_op)ntohl(cfg.op);
	o->all = (int)ntohl(cfg.all);
	o->size = ntohl(cfg.size);
	o->iters = ntohl(cfg.iters);
	o->tx_depth = ntohl(cfg.tx_depth);
	if (o->op > PERF_SEND || !o->size || !o->iters || !o->tx_depth ||
	    o->tx_depth > 8192 || o->size > (1u << 31)) {
		fprintf(stderr, "rwx_perf: bad settings from client\n");
		return -1;
	}
	return 0;
}

/*
 * rdma_cm leaves the responder's RNR NAK timer at 0, which encodes the
 * longest wait, 655 ms: a SEND that finds no receive posted would stall
 * the sender that long.  Ask for 0.64 ms (encoding 12) instead.
 */
static void fast_rnr_retry(struct rdma_cm_id *id)
{
	struct ibv_qp_attr attr = { .min_rnr_timer = 12 };

	if (ibv_modify_qp(id->qp, &attr, IBV_QP_MIN_RNR_TIMER))
		fprintf(stderr, "rwx_perf: cannot shorten the RNR timer: %s\n",
			strerror(errno));
}

/* SEND: keep receives posted until every message has arrived. */
static int serve_sends(struct rwx_conn *c, const struct rwx_perf_opts *o,
		       uint64_t total, uint64_t preposted)
{
	uint64_t got = 0, posted = preposted;
	struct ibv_wc wc[16];
	int n;

	while (got < total) {
		n = reap(c, RWX_RECV_CQ, wc, 16);
		if (n < 0)
			return -1;
		got += (uint64_t)n;
		for (; posted < total && posted - got < o->rx_depth; posted++)
			if (rdma_post_recv(c->id, NULL, c->buf, c->buf_len,
					   c->mr))
				return die("rdma_post_recv");
	}
	return 0;
}

static int serve_one(struct rdma_cm_id *id, struct rwx_perf_opts *o)
{
	struct rdma_conn_param cp;
	struct rwx_conn c = { .id = id };
	struct wire_buf wb;
	struct ibv_wc wc;
	uint32_t sizes[PERF_MAX_SIZES];
	uint64_t total, pre, i;
	int ret = -1;

	if (cfg_from_wire(id, o))
		goto out;
	if (create_qp(id, o) || rwx_conn_buf(&c, max_size(o)))
		goto out;
	total = o->op == PERF_SEND ?
		(uint64_t)o->iters * (uint64_t)rwx_perf_sizes(o, sizes,
							     PERF_MAX_SIZES) :
		1;
	pre = total < o->rx_depth ? total : o->rx_depth;
	for (i = 0; i < pre; i++)
		if (rdma_post_recv(id, NULL, c.buf, c.buf_len, c.mr)) {
			die("rdma_post_recv");
			goto out;
		}

	wb.addr = htobe64((uint64_t)(uintptr_t)c.buf);
	wb.rkey = htonl(c.mr->rkey);
	wb.pad = 0;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &wb;
	cp.private_data_len = sizeof(wb);
	cp.responder_resources = cp.initiator_depth = 16;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp)) {
		die("rdma_accept");
		goto out;
	}
	if (o->op == PERF_SEND) {
		fast_rnr_retry(id);
		ret = serve_sends(&c, o, total, pre);
	} else {
		ret = rdma_get_recv_comp(id, &wc) < 0 ? die("wait") : 0;
	}
	printf("rwx_perf: %s test with client %s\n", rwx_perf_op_name(o->op),
	       ret ? "failed" : "done");
	/* The client sent last: it disconnects once its sends completed. */
	if (ret)
		rdma_disconnect(id);
	else if (rwx_conn_await_disconnect(id, PERF_CLOSE_WAIT_MS))
		ret = die("waiting for the client to disconnect");
out:
	rwx_conn_close(&c);
	return ret;
}

static int server(const struct rwx_perf_opts *opts)
{
	struct rdma_addrinfo hints, *res = NULL;
	struct rdma_cm_id *listen_id = NULL, *id = NULL;
	struct rwx_perf_opts o = *opts;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = RAI_PASSIVE;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(NULL, o.port, &hints, &res))
		return die("rdma_getaddrinfo");
	ret = rdma_create_ep(&listen_id, res, NULL, NULL);
	rdma_freeaddrinfo(res);
	if (ret)
		return die("rdma_create_ep");
	printf("rwx_perf: waiting on port %s\n", o.port);
	fflush(stdout);
	if (rdma_listen(listen_id, 1) || rdma_get_request(listen_id, &id)) {
		ret = die("listen");
		rdma_destroy_ep(listen_id);
		return ret;
	}
	ret = serve_one(id, &o);
	rdma_destroy_ep(listen_id);
	return ret;
}

int main(int argc, char **argv)
{
	struct rwx_perf_opts o;
	char err[256];
	int ret = rwx_perf_parse(argc, argv, &o, err, sizeof(err));

	if (ret == 1) {
		rwx_perf_usage(stdout, argv[0]);
		return 0;
	}
	if (ret < 0) {
		fprintf(stderr, "rwx_perf: %s\n", err);
		rwx_perf_usage(stderr, argv[0]);
		return 2;
	}
	ret = o.host ? client(&o) : server(&o);
	return ret ? 1 : 0;
}
