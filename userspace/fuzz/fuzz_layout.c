// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libFuzzer target: rwx_rw_layout(), the RW context's planner, against
 * its contract - the count in closed form for any sizes; with spans, each
 * entry covered once in order, every WR but the last full, remote offsets
 * abutting, bytes summed, reserved space zeroed, nothing written past the
 * count or on an error.  A violation aborts (a crash for libFuzzer).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rwx_verbs.h>

#define MAX_ENTS 300

static void must(int cond)
{
	if (!cond)
		abort();
}

static uint32_t take32(const uint8_t **p, size_t *n)
{
	uint32_t v = 0;

	if (*n >= 4) {
		memcpy(&v, *p, 4);
		*p += 4;
		*n -= 4;
	}
	return v;
}

/* Any max_sge and nents: only the count, or EINVAL / EOVERFLOW. */
static void count_only(uint32_t max_sge, uint32_t nents)
{
	uint64_t want;
	int n;

	errno = 0;
	n = rwx_rw_layout(max_sge, nents, NULL, NULL, 0);
	if (!max_sge || !nents) {
		must(n == -1 && errno == EINVAL);
		return;
	}
	want = ((uint64_t)nents + max_sge - 1) / max_sge;
	if (want > INT_MAX)
		must(n == -1 && errno == EOVERFLOW);
	else
		must(n == (int)want);
}

static void with_spans(uint32_t max_sge, uint32_t nents, uint32_t max_spans,
		       const uint64_t *lens)
{
	static struct rwx_rw_span spans[MAX_ENTS + 1];
	struct rwx_rw_span poison;
	uint64_t want, off = 0;
	uint32_t i, j, next = 0;
	int n;

	memset(&poison, 0xa5, sizeof(poison));
	for (i = 0; i <= MAX_ENTS; i++)
		spans[i] = poison;
	errno = 0;
	n = rwx_rw_layout(max_sge, nents, lens, spans, max_spans);
	if (!max_sge || !nents) {
		must(n == -1 && errno == EINVAL);
		n = 0;
	} else {
		want = ((uint64_t)nents + max_sge - 1) / max_sge;
		if (want > max_spans) {
			must(n == -1 && errno == ENOSPC);
			n = 0;
		} else {
			must(n == (int)want);
		}
	}
	for (i = 0; i < (uint32_t)n; i++) {
		uint64_t bytes = 0;

		must(spans[i].first_sge == next);
		must(spans[i].nsge >= 1 && spans[i].nsge <= max_sge);
		must(i + 1 == (uint32_t)n || spans[i].nsge == max_sge);
		must(spans[i].remote_off == off);
		for (j = 0; lens && j < spans[i].nsge; j++)
			bytes += lens[spans[i].first_sge + j];
		must(spans[i].bytes == bytes);
		must(!spans[i].comp_mask && !spans[i].reserved);
		next += spans[i].nsge;
		off += bytes;
	}
	must(n == 0 || next == nents);
	for (i = (uint32_t)n; i <= MAX_ENTS; i++)
		must(!memcmp(&spans[i], &poison, sizeof(poison)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t lens[MAX_ENTS];
	uint32_t max_sge = take32(&data, &size);
	uint32_t nents = take32(&data, &size);
	uint32_t max_spans = take32(&data, &size);
	uint32_t i, k;

	count_only(max_sge, nents);
	/* With spans: at most MAX_ENTS entries, lengths from the input. */
	max_sge %= MAX_ENTS + 2;
	nents %= MAX_ENTS + 1;
	max_spans %= MAX_ENTS + 1;
	k = (uint32_t)(size / 8) < nents ? (uint32_t)(size / 8) : nents;
	for (i = 0; i < nents; i++)
		lens[i] = 0;
	if (k)
		memcpy(lens, data, (size_t)k * 8);
	with_spans(max_sge, nents, max_spans, (size % 2) ? NULL : lens);
	return 0;
}
