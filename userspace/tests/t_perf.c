// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rwx_perf's option parsing and arithmetic. */
#include <math.h>

#include "rwx_test.h"
#include "rwx_perf.h"

#define ARGV(...) (char *[]){ "rwx_perf", __VA_ARGS__, NULL }
#define ARGC(...) ((int)(sizeof((char *[]){ "rwx_perf", __VA_ARGS__ }) / \
			 sizeof(char *)))
#define PARSE(o, ...) rwx_perf_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), \
				     (o), err, sizeof(err))

static char err[256];

static void perf_defaults_server(void)
{
	struct rwx_perf_opts o;
	char *argv[] = { "rwx_perf", NULL };

	CHECK_EQ(rwx_perf_parse(1, argv, &o, err, sizeof(err)), 0);
	CHECK(o.host == NULL);
	CHECK(strcmp(o.port, "18515") == 0);
	CHECK_EQ(o.op, PERF_WRITE);
	CHECK_EQ(o.size, 65536);
	CHECK_EQ(o.all, 0);
	CHECK_EQ(o.tx_depth, 128);
	CHECK_EQ(o.rx_depth, 512);
	CHECK_EQ(o.cq_mod, 64);
	CHECK_EQ(o.no_peak, 0);
}

static void perf_client_flags(void)
{
	struct rwx_perf_opts o;

	CHECK_EQ(PARSE(&o, "-p", "9999", "-s", "4096", "-n", "50", "-t",
		       "32", "--op", "read", "10.0.0.1"), 0);
	CHECK(o.host && strcmp(o.host, "10.0.0.1") == 0);
	CHECK(strcmp(o.port, "9999") == 0);
	CHECK_EQ(o.size, 4096);
	CHECK_EQ(o.iters, 50);
	CHECK_EQ(o.tx_depth, 32);
	CHECK_EQ(o.cq_mod, 32);	/* clamped to tx depth */
	CHECK_EQ(o.op, PERF_READ);
	/* long forms, options after the address (GNU permutation) */
	CHECK_EQ(PARSE(&o, "host", "--size=8", "--iters=3", "--op=send",
		       "--tx-depth=4", "-a", "--rx-depth=64"), 0);
	CHECK_EQ(o.op, PERF_SEND);
	CHECK_EQ(o.rx_depth, 64);
	CHECK_EQ(o.size, 8);
	CHECK_EQ(o.all, 1);
	CHECK_EQ(PARSE(&o, "-r", "8192"), 0);
	CHECK_EQ(o.rx_depth, 8192);
	CHECK_EQ(PARSE(&o, "--help"), 1);
}

/* The settings make bench matches with perftest's -Q and -N. */
static void perf_cq_mod_no_peak(void)
{
	struct rwx_perf_opts o;

	CHECK_EQ(PARSE(&o, "-Q", "16", "-N", "host"), 0);
	CHECK_EQ(o.cq_mod, 16);
	CHECK_EQ(o.no_peak, 1);
	CHECK(o.host && strcmp(o.host, "host") == 0);
	CHECK_EQ(PARSE(&o, "--cq-mod=1", "--no-peak"), 0);
	CHECK_EQ(o.cq_mod, 1);
	CHECK_EQ(o.no_peak, 1);
	CHECK_EQ(PARSE(&o, "-t", "8", "-Q", "100"), 0);
	CHECK_EQ(o.cq_mod, 8);	/* clamped to tx depth */
	CHECK_EQ(o.no_peak, 0);
	CHECK_EQ(PARSE(&o, "-Q", "0"), -1);
	CHECK_EQ(PARSE(&o, "-Q", "8193"), -1);
	CHECK_EQ(PARSE(&o, "--no-peak=1"), -1);
}

/* perftest's --use_new_send: the ibv_wr_* path. */
static void perf_new_send(void)
{
	struct rwx_perf_opts o;

	CHECK_EQ(PARSE(&o, "host"), 0);
	CHECK_EQ(o.new_send, 0);
	CHECK_EQ(PARSE(&o, "--new-send", "--op=read", "host"), 0);
	CHECK_EQ(o.new_send, 1);
	CHECK_EQ(o.op, PERF_READ);
	CHECK_EQ(PARSE(&o, "--new-send=1"), -1);
}

static void perf_bad_flags(void)
{
	struct rwx_perf_opts o;

	CHECK_EQ(PARSE(&o, "--op", "atomic"), -1);
	CHECK(strstr(err, "atomic") != NULL);
	CHECK_EQ(PARSE(&o, "-s", "0"), -1);
	CHECK_EQ(PARSE(&o, "-s", "-5"), -1);
	CHECK_EQ(PARSE(&o, "-p", "70000"), -1);
	CHECK_EQ(PARSE(&o, "-n", "12x"), -1);
	CHECK_EQ(PARSE(&o, "-t", "0"), -1);
	CHECK_EQ(PARSE(&o, "-r", "0"), -1);
	CHECK_EQ(PARSE(&o, "-r", "8193"), -1);
	CHECK_EQ(PARSE(&o, "--bogus"), -1);
	CHECK_EQ(PARSE(&o, "-s"), -1);
	CHECK_EQ(PARSE(&o, "a", "b"), -1);
}

static void perf_all_sizes(void)
{
	struct rwx_perf_opts o;
	uint32_t sizes[PERF_MAX_SIZES];
	int n, i;

	CHECK_EQ(PARSE(&o, "-a"), 0);
	n = rwx_perf_sizes(&o, sizes, PERF_MAX_SIZES);
	CHECK_EQ(n, 23);
	CHECK_EQ(sizes[0], 2);
	CHECK_EQ(sizes[22], 1u << 23);
	for (i = 1; i < n; i++)
		CHECK_EQ(sizes[i], sizes[i - 1] * 2);
	CHECK_EQ(rwx_perf_sizes(&o, sizes, 5), -1);
	CHECK_EQ(PARSE(&o, "-s", "100"), 0);
	CHECK_EQ(rwx_perf_sizes(&o, sizes, PERF_MAX_SIZES), 1);
	CHECK_EQ(sizes[0], 100);
}

static void perf_units(void)
{
	CHECK(fabs(rwx_perf_mbs(1 << 20, 1.0) - 1.0) < 1e-9);
	CHECK(fabs(rwx_perf_mbs(10 << 20, 0.5) - 20.0) < 1e-9);
	CHECK(fabs(rwx_perf_mpps(2000000, 2.0) - 1.0) < 1e-9);
	CHECK_EQ(rwx_perf_mbs(100, 0), 0);
}

void suite_perf(void)
{
	RUN(perf_defaults_server);
	RUN(perf_client_flags);
	RUN(perf_cq_mod_no_peak);
	RUN(perf_new_send);
	RUN(perf_bad_flags);
	RUN(perf_all_sizes);
	RUN(perf_units);
}
