// SPDX-License-Identifier: GPL-2.0-only
/*
 * insn-profile: a QEMU TCG plugin that counts the guest instructions
 * executed between pairs of markers, per translation block address, so
 * that a benchmark can say which functions its instructions went to.
 *
 * A marker is an instruction the guest executes for nothing else, a NOP
 * with a displacement of the plugin's (see the comment of marker[] below
 * and rwx_bench_mark() in drivers/bench/rwx_bench.c): the guest sends a
 * window's region id (11 bits) one bit marker at a time, high bit first,
 * then a start or an end marker.  Every instruction executed between a
 * start and the next end of the same region is added to that region's
 * counts (interrupts included: the benchmark's cheapest-round rule does
 * not apply here).  At exit the plugin writes
 * one line per region and translation block address:
 *	<id> <address in hex> <instructions> <executions>
 * and one per region: "windows <id> <number of windows>".
 *
 * Counts are per translation block, taken on entry: a block left early
 * (an exception) is counted whole, which the benchmark's loops do not do.
 * Needs single-threaded TCG (-icount gives it): nothing here is locked.
 *
 * usage: qemu-system-x86_64 ... -plugin insn-profile.so,out=FILE
 * QEMU 10.0's plugin API (version 4, the oldest it loads is 2); its header
 * is not packaged by Debian, so the few declarations used are here.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
size_t qemu_plugin_insn_data(const struct qemu_plugin_insn *insn, void *dest,
			     size_t len);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 4;

/*
 * A marker: "nopl 0x52574dNN(%rax)", bytes 0f 1f 80 NN 4d 57 52, where NN
 * is MARK_BIT0, MARK_BIT1, MARK_START or MARK_END.
 */
static const unsigned char marker[] = { 0x0f, 0x1f, 0x80, 0, 0x4d, 0x57, 0x52 };
enum { MARK_BIT0, MARK_BIT1, MARK_START, MARK_END };

#define REGIONS		2048

/* One translation of a block: on_block() adds 1 to count on every entry. */
struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;
	uint64_t at_start;	/* count when the open window began */
};

static struct block **blocks;
static size_t nr_blocks, max_blocks;

/* The open window, if any, and the region bits read since the last mark. */
static int open_region = -1;
static unsigned int bits;
static uint64_t windows[REGIONS];

/* (region, address) -> instructions, executions: open addressing. */
struct tally {
	uint64_t vaddr;
	uint64_t region;	/* region + 1; 0: an empty slot */
	uint64_t insns, execs;
};

static struct tally *tallies;
static size_t nr_tallies, max_tallies;
static const char *out_path;

static void oom(void)
{
	fputs("insn-profile: out of memory\n", stderr);
	abort();
}

static size_t slot(struct tally *t, size_t max, uint64_t vaddr,
		   uint64_t region)
{
	size_t i = ((vaddr ^ region << 52) * 0x9e3779b97f4a7c15ULL) >> 20 &
		   (max - 1);

	while (t[i].region && (t[i].region != region || t[i].vaddr != vaddr))
		i = (i + 1) & (max - 1);
	return i;
}

static void grow_tallies(void)
{
	size_t max = max_tallies ? max_tallies * 2 : 1 << 16, i;
	struct tally *t = calloc(max, sizeof(*t));

	if (!t)
		oom();
	for (i = 0; i < max_tallies; i++)
		if (tallies[i].region)
			t[slot(t, max, tallies[i].vaddr, tallies[i].region)] =
				tallies[i];
	free(tallies);
	tallies = t;
	max_tallies = max;
}

static void tally(int region, uint64_t vaddr, uint64_t insns, uint64_t execs)
{
	size_t i;

	if (2 * (nr_tallies + 1) > max_tallies)
		grow_tallies();
	i = slot(tallies, max_tallies, vaddr, region + 1);
	if (!tallies[i].region) {
		tallies[i].vaddr = vaddr;
		tallies[i].region = region + 1;
		nr_tallies++;
	}
	tallies[i].insns += insns;
	tallies[i].execs += execs;
}

static void window_start(int region)
{
	size_t i;

	for (i = 0; i < nr_blocks; i++)
		blocks[i]->at_start = blocks[i]->count;
	open_region = region;
}

static void window_end(int region)
{
	uint64_t d;
	size_t i;

	if (region != open_region)	/* an end without its start */
		return;
	for (i = 0; i < nr_blocks; i++) {
		d = blocks[i]->count - blocks[i]->at_start;
		if (d)
			tally(region, blocks[i]->vaddr, d * blocks[i]->insns, d);
	}
	windows[region]++;
	open_region = -1;
}

static void on_marker(unsigned int vcpu, void *userdata)
{
	uintptr_t code = (uintptr_t)userdata;

	(void)vcpu;
	switch (code) {
	case MARK_BIT0:
	case MARK_BIT1:
		bits = bits << 1 | (code == MARK_BIT1);
		return;
	case MARK_START:
		window_start(bits & (REGIONS - 1));
		break;
	case MARK_END:
		window_end(bits & (REGIONS - 1));
		break;
	}
	bits = 0;
}

static void on_block(unsigned int vcpu, void *userdata)
{
	struct block *b = userdata;

	(void)vcpu;
	b->count++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct qemu_plugin_insn *insn;
	unsigned char data[sizeof(marker)];
	struct block *b;

	(void)id;
	if (nr_blocks == max_blocks) {
		max_blocks = max_blocks ? max_blocks * 2 : 1 << 16;
		blocks = realloc(blocks, max_blocks * sizeof(*blocks));
		if (!blocks)
			oom();
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		oom();
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	blocks[nr_blocks++] = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS,
					     b);
	for (i = 0; i < n; i++) {
		insn = qemu_plugin_tb_get_insn(tb, i);
		if (qemu_plugin_insn_size(insn) != sizeof(marker) ||
		    qemu_plugin_insn_data(insn, data, sizeof(data)) != sizeof(data) ||
		    memcmp(data, marker, 3) || memcmp(data + 4, marker + 4, 3) ||
		    data[3] > MARK_END)
			continue;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_marker,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)(uintptr_t)data[3]);
	}
}

static void on_exit_write(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	size_t i;

	(void)id;
	(void)userdata;
	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < REGIONS; i++)
		if (windows[i])
			fprintf(f, "windows %zu %" PRIu64 "\n", i, windows[i]);
	for (i = 0; i < max_tallies; i++)
		if (tallies[i].region)
			fprintf(f, "%" PRIu64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				tallies[i].region - 1, tallies[i].vaddr,
				tallies[i].insns, tallies[i].execs);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fputs("insn-profile: out=FILE is required\n", stderr);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_exit_write, NULL);
	return 0;
}
