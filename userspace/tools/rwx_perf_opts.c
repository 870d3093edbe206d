// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rwx_perf's command line, perftest style: no address means server, an
 * address means client; -p/--port, -s/--size, -n/--iters, -a, -t/--tx-depth,
 * -r/--rx-depth,
 * -Q/--cq-mod, -N/--no-peak, --new-send and --op write|read|send.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "rwx_perf.h"

void rwx_perf_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]            start a server\n"
		"       %s [options] <host>     connect to a server\n"
		"\n"
		"  -p, --port=<port>       rdma_cm port (default 18515)\n"
		"  -s, --size=<bytes>      message size (default 65536)\n"
		"  -n, --iters=<n>         iterations per size (default 1000)\n"
		"  -a, --all               all sizes 2..2^23 (powers of two)\n"
		"  -t, --tx-depth=<n>      outstanding WRs (default 128)\n"
		"  -r, --rx-depth=<n>      receives a SEND server keeps posted\n"
		"                          (default 512)\n"
		"  -Q, --cq-mod=<n>        signal every n-th WR (default 64)\n"
		"  -N, --no-peak           no peak bandwidth: no clock read\n"
		"                          per reaped batch (perftest's -N)\n"
		"      --new-send          this side's QP made by rwx_create_qp():\n"
		"                          posts through ibv_wr_* (perftest's\n"
		"                          --use_new_send)\n"
		"      --op=write|read|send  operation (default write)\n"
		"  -h, --help              this text\n"
		"\n"
		"Both sides must use the same --op, -s/-a and -n; the client\n"
		"sends its settings to the server when it connects.\n",
		prog, prog);
}

const char *rwx_perf_op_name(enum rwx_perf_op op)
{
	switch (op) {
	case PERF_WRITE: return "write";
	case PERF_READ: return "read";
	case PERF_SEND: return "send";
	}
	return "?";
}

static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_op(const char *s, enum rwx_perf_op *op)
{
	if (!strcmp(s, "write"))
		*op = PERF_WRITE;
	else if (!strcmp(s, "read"))
		*op = PERF_READ;
	else if (!strcmp(s, "send"))
		*op = PERF_SEND;
	else
		return -1;
	return 0;
}

static void defaults(struct rwx_perf_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->port = "18515";
	o->size = 65536;
	o->iters = 1000;
	o->tx_depth = 128;
	o->rx_depth = 512;
	o->cq_mod = 64;
	o->op = PERF_WRITE;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int rwx_perf_parse(int argc, char **argv, struct rwx_perf_opts *o,
		   char *err, size_t errlen)
{
	static const struct option lopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "all", no_argument, NULL, 'a' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "rx-depth", required_argument, NULL, 'r' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "no-peak", no_argument, NULL, 'N' },
		{ "new-send", no_argument, NULL, 'W' },
		{ "op", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint32_t port;
	int c;

	defaults(o);
	err[0] = 0;
	optind = 0;	/* GNU: full re-initialisation, so tests can re-parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:s:n:at:r:Q:Nh", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_u32(optarg, 1, 65535, &port))
				FAIL("bad port '%s'", optarg);
			o->port = optarg;
			break;
		case 's':
			if (parse_u32(optarg, 1, 1u << 31, &o->size))
				FAIL("bad size '%s' (1..2^31)", optarg);
			break;
		case 'n':
			if (parse_u32(optarg, 1, UINT32_MAX, &o->iters))
				FAIL("bad iteration count '%s'", optarg);
			break;
		case 'a':
			o->all = 1;
			break;
		case 't':
			if (parse_u32(optarg, 1, 8192, &o->tx_depth))
				FAIL("bad tx depth '%s' (1..8192)", optarg);
			break;
		case 'r':
			if (parse_u32(optarg, 1, 8192, &o->rx_depth))
				FAIL("bad rx depth '%s' (1..8192)", optarg);
			break;
		case 'Q':
			if (parse_u32(optarg, 1, 8192, &o->cq_mod))
				FAIL("bad cq moderation '%s'", optarg);
			break;
		case 'N':
			o->no_peak = 1;
			break;
		case 'W':
			o->new_send = 1;
			break;
		case 'O':
			if (parse_op(optarg, &o->op))
				FAIL("bad op '%s' (write, read or send)",
				     optarg);
			break;
		case 'h':
			return 1;
		default:
			FAIL("unknown or incomplete option '%s'",
			     argv[optind - 1]);
		}
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc)
		FAIL("unexpected argument '%s'", argv[optind]);
	/* Unsignaled WRs need a signaled one within every tx_depth WRs. */
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	return 0;
}

int rwx_perf_sizes(const struct rwx_perf_opts *o, uint32_t *sizes, int max)
{
	uint32_t s;
	int n = 0;

	if (!o->all) {
		if (max < 1)
			return -1;
		sizes[0] = o->size;
		return 1;
	}
	for (s = PERF_MIN_ALL_SIZE; s <= PERF_MAX_ALL_SIZE; s *= 2) {
		if (n >= max)
			return -1;
		sizes[n++] = s;
	}
	return n;
}

/* perftest's MB is 2^20 bytes. */
double rwx_perf_mbs(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / seconds / (1024.0 * 1024.0) : 0;
}

double rwx_perf_mpps(uint64_t msgs, double seconds)
{
	return seconds > 0 ? (double)msgs / seconds / 1e6 : 0;
}

void rwx_perf_header(FILE *f)
{
	fprintf(f, " %-10s %-12s %-18s %-20s %-14s\n", "#bytes", "#iterations",
		"BW peak[MB/sec]", "BW average[MB/sec]", "MsgRate[Mpps]");
}

void rwx_perf_line(FILE *f, uint32_t size, uint32_t iters, double peak,
		   double avg, double mpps)
{
	fprintf(f, " %-10u %-12u %-18.2f %-20.2f %-14.6f\n", size, iters,
		peak, avg, mpps);
}
