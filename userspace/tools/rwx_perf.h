/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* rwx_perf: option parsing and report arithmetic (no device needed). */
#ifndef RWX_PERF_H
#define RWX_PERF_H

#include <stdint.h>
#include <stdio.h>

enum rwx_perf_op { PERF_WRITE, PERF_READ, PERF_SEND };

#define PERF_MIN_ALL_SIZE 2u
#define PERF_MAX_ALL_SIZE (1u << 23)
#define PERF_MAX_SIZES 23

struct rwx_perf_opts {
	const char *host;	/* NULL: server */
	const char *port;
	uint32_t size;
	uint32_t iters;
	uint32_t tx_depth;
	uint32_t rx_depth;	/* receives the SEND server keeps posted */
	uint32_t cq_mod;	/* signal one WR in cq_mod */
	int all;
	int no_peak;		/* no clock read per reaped batch */
	int new_send;		/* QP of rwx_create_qp(): ibv_wr_* posts */
	enum rwx_perf_op op;
};

/* 0: run; 1: help printed; -1: error (message in err). */
int rwx_perf_parse(int argc, char **argv, struct rwx_perf_opts *o,
		   char *err, size_t errlen);
void rwx_perf_usage(FILE *f, const char *prog);
const char *rwx_perf_op_name(enum rwx_perf_op op);
int rwx_perf_sizes(const struct rwx_perf_opts *o, uint32_t *sizes, int max);
double rwx_perf_mbs(uint64_t bytes, double seconds);
double rwx_perf_mpps(uint64_t msgs, double seconds);
void rwx_perf_header(FILE *f);
void rwx_perf_line(FILE *f, uint32_t size, uint32_t iters, double peak,
		   double avg, double mpps);

#endif
