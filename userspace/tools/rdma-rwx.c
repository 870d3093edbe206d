// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * rdma-rwx: the admin's view of the rdma_rwx engine and its live takeover
 * of ib_core's rdma_rw API, in the style of iproute2's rdma(8).
 *
 *   rdma-rwx [-j] status
 *   rdma-rwx takeover on [-m FILE.ko] [-t SECONDS] | off [-t SECONDS]
 *   rdma-rwx [-j] stat [-d DEV] [INTERVAL [COUNT]]
 *
 * Everything it knows comes from sysfs and the engine's debugfs counters
 * (rwx_stats.c); --root DIR reads them under DIR instead of /, for tests.
 * Exit status: 0 done, 1 failed (the reason on stderr), 2 usage.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KLP_DIR		"/sys/kernel/livepatch/rdma_rwx_takeover"
#define ENGINE_DIR	"/sys/module/rdma_rwx"
#define TAKEOVER_MOD	"rdma_rwx_takeover"
#define COUNTERS_DIR	"/sys/kernel/debug/rdma_rwx"
#define MAX_COUNTERS	48
#define MAX_DEVICES	64
#define NAME_LEN	64

extern char **environ;

static const char *root = "";
static bool json;

/* The in-tree users of the rdma_rw API. */
static const char *const rw_ulps[] = {
	"nvmet_rdma", "ib_isert", "ib_srpt", "rpcrdma", "ksmbd",
};

struct counters {
	int n;
	char name[MAX_COUNTERS][NAME_LEN];
	unsigned long long val[MAX_COUNTERS];
};

enum takeover_state {
	TAKEOVER_ABSENT,	/* no patch, module not loaded */
	TAKEOVER_UNLOADING,	/* patch gone, module still loaded */
	TAKEOVER_OFF,		/* patch disabled, being removed */
	TAKEOVER_ENABLING,
	TAKEOVER_DISABLING,
	TAKEOVER_ON,
};

static const char *const takeover_names[] = {
	[TAKEOVER_ABSENT] = "off",
	[TAKEOVER_UNLOADING] = "off (module still loaded)",
	[TAKEOVER_OFF] = "off (patch not enabled)",
	[TAKEOVER_ENABLING] = "switching on",
	[TAKEOVER_DISABLING] = "switching off",
	[TAKEOVER_ON] = "on",
};

static __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("rdma-rwx: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ROOT then FMT in BUF (main() keeps ROOT short enough to leave room). */
static __attribute__((format(printf, 3, 4)))
const char *path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t n = strlen(root);

	if (n >= len)
		n = len - 1;
	memcpy(buf, root, n);
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	return buf;
}

static bool exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* The first line of a sysfs file, without its newline; -errno if none. */
static int read_line(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

static int read_int(const char *p, int *out)
{
	char buf[32];
	int err = read_line(p, buf, sizeof(buf));

	if (!err)
		*out = atoi(buf);
	return err;
}

/* A counters file: one "name value" line per counter. */
static int read_counters(const char *p, struct counters *c)
{
	FILE *f = fopen(p, "r");
	char name[NAME_LEN];
	unsigned long long v;

	c->n = 0;
	if (!f)
		return -errno;
	while (c->n < MAX_COUNTERS && fscanf(f, "%63s %llu", name, &v) == 2) {
		strcpy(c->name[c->n], name);
		c->val[c->n++] = v;
	}
	fclose(f);
	return 0;
}

static unsigned long long counter(const struct counters *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->val[i];
	return 0;
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static enum takeover_state takeover_state(void)
{
	char p[512];
	int enabled, transition;

	if (read_int(path(p, sizeof(p), KLP_DIR "/enabled"), &enabled) ||
	    read_int(path(p, sizeof(p), KLP_DIR "/transition"), &transition))
		return exists(path(p, sizeof(p), "/sys/module/" TAKEOVER_MOD)) ?
		       TAKEOVER_UNLOADING : TAKEOVER_ABSENT;
	if (transition)
		return enabled ? TAKEOVER_ENABLING : TAKEOVER_DISABLING;
	return enabled ? TAKEOVER_ON : TAKEOVER_OFF;
}

static bool engine_loaded(void)
{
	char p[512];

	return exists(path(p, sizeof(p), ENGINE_DIR "/initstate"));
}

/* How a loaded ULP reaches rdma_rw, or NULL when it is not loaded. */
static const char *ulp_route(const char *ulp, enum takeover_state t)
{
	char p[512];

	if (!exists(path(p, sizeof(p), "/sys/module/%s", ulp)))
		return NULL;
	if (exists(path(p, sizeof(p), ENGINE_DIR "/holders/%s", ulp)))
		return "engine (rebuilt)";
	switch (t) {
	case TAKEOVER_ON:
		return "engine (taken over)";
	case TAKEOVER_ENABLING:
	case TAKEOVER_DISABLING:
		return "switching";
	default:
		return "ib_core";
	}
}

/*
 * Contexts the engine set up in ib_core's encoding and has not destroyed:
 * about as many live, since ib_core may have destroyed some (after the
 * takeover went off) without the engine seeing it.
 */
static long long shared_live_approx(const struct counters *c)
{
	return (long long)(counter(c, "shared") - counter(c, "shared_destroyed"));
}

static void print_status_text(enum takeover_state t, const char *version,
			      const struct counters *c, int counters_err)
{
	const char *route;
	size_t i;

	if (version)
		printf("engine: loaded, version %s\n", version);
	else
		printf("engine: not loaded\n");
	printf("takeover: %s\n", takeover_names[t]);
	for (i = 0; i < sizeof(rw_ulps) / sizeof(rw_ulps[0]); i++) {
		route = ulp_route(rw_ulps[i], t);
		if (route)
			printf("ulp %s: %s\n", rw_ulps[i], route);
	}
	if (!version)
		return;
	if (counters_err) {
		printf("contexts: unknown (%s: %s)\n", COUNTERS_DIR "/counters",
		       strerror(-counters_err));
		return;
	}
	printf("contexts live: engine %llu, in ib_core's encoding about %lld, ib_core's own not counted\n",
	       counter(c, "contexts_live"), shared_live_approx(c));
}

static void print_status_json(enum takeover_state t, const char *version,
			      const struct counters *c, int counters_err)
{
	const char *route, *sep = "";
	size_t i;

	printf("{\"engine\":{\"loaded\":%s", version ? "true" : "false");
	if (version) {
		printf(",\"version\":");
		json_string(version);
	}
	printf("},\"takeover\":");
	json_string(takeover_names[t]);
	printf(",\"ulps\":[");
	for (i = 0; i < sizeof(rw_ulps) / sizeof(rw_ulps[0]); i++) {
		route = ulp_route(rw_ulps[i], t);
		if (!route)
			continue;
		printf("%s{\"module\":\"%s\",\"route\":", sep, rw_ulps[i]);
		json_string(route);
		putchar('}');
		sep = ",";
	}
	printf("]");
	if (version && !counters_err)
		printf(",\"contexts_live\":{\"engine\":%llu,\"ib_core_encoding_approx\":%lld}",
		       counter(c, "contexts_live"), shared_live_approx(c));
	printf("}\n");
}

static int cmd_status(void)
{
	char p[512], version[64];
	struct counters c = { 0 };
	enum takeover_state t = takeover_state();
	bool loaded = engine_loaded();
	int err = 0;

	if (loaded) {
		if (read_line(path(p, sizeof(p), ENGINE_DIR "/version"), version,
			      sizeof(version)))
			strcpy(version, "unknown");
		err = read_counters(path(p, sizeof(p), COUNTERS_DIR "/counters"), &c);
	}
	if (json)
		print_status_json(t, loaded ? version : NULL, &c, err);
	else
		print_status_text(t, loaded ? version : NULL, &c, err);
	return 0;
}

/* Runs ARGV (searched in PATH) and waits: 0 when it exited 0. */
static int run(char *const argv[])
{
	pid_t pid;
	int status, err;

	err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (err) {
		fail("cannot run %s: %s", argv[0], strerror(err));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0) {
		fail("waiting for %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fail("%s %s failed (see the kernel log: dmesg)", argv[0], argv[1]);
		return -1;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool takeover_is_on(void)
{
	return takeover_state() == TAKEOVER_ON;
}

static bool patch_gone(void)
{
	enum takeover_state t = takeover_state();

	return t == TAKEOVER_UNLOADING || t == TAKEOVER_ABSENT;
}

/* The patch let the module go: its sysfs directory goes before that. */
static bool module_free(void)
{
	char p[512];
	int refcnt;

	return read_int(path(p, sizeof(p), "/sys/module/" TAKEOVER_MOD "/refcnt"),
			&refcnt) || refcnt == 0;
}

/*
 * Polls every 100 ms until DONE() or TIMEOUT seconds after START (taken
 * before the switch began: loading the module can take most of it).
 */
static int wait_for(bool (*done)(void), double start, int timeout)
{
	while (!done()) {
		if (now() - start > timeout)
			return -1;
		usleep(100000);
	}
	return 0;
}

/* rmmod of the takeover once its patch has let it go, if still loaded. */
static int unload_takeover(double start, int timeout)
{
	char *rmmod[] = { "rmmod", TAKEOVER_MOD, NULL };
	char p[512];

	if (wait_for(module_free, start, timeout)) {
		fail("%s still in use %d s later", TAKEOVER_MOD, timeout);
		return -1;
	}
	if (!exists(path(p, sizeof(p), "/sys/module/" TAKEOVER_MOD)))
		return 0;
	return run(rmmod);
}

static int takeover_on(const char *module, int timeout)
{
	enum takeover_state t = takeover_state();
	char *modprobe[] = { "modprobe", TAKEOVER_MOD, NULL };
	char *insmod[] = { "insmod", (char *)module, NULL };
	double start = now();

	if (t == TAKEOVER_ON) {
		printf("takeover: already on\n");
		return 0;
	}
	if (t != TAKEOVER_ABSENT && t != TAKEOVER_UNLOADING) {
		fail("takeover is %s: wait for it to end, then try again",
		     takeover_names[t]);
		return 1;
	}
	if (module && !engine_loaded()) {
		fail("the engine (rdma_rwx) is not loaded: load it first");
		return 1;
	}
	/* A disabled livepatch cannot be enabled again, only reloaded. */
	if (t == TAKEOVER_UNLOADING && unload_takeover(start, timeout))
		return 1;
	if (run(module ? insmod : modprobe))
		return 1;
	if (wait_for(takeover_is_on, start, timeout)) {
		fail("takeover not on %d s later (state: %s; tasks that have not switched yet are in the kernel log after echo w > /proc/sysrq-trigger)",
		     timeout, takeover_names[takeover_state()]);
		return 1;
	}
	printf("takeover: on (switch took %.1f s)\n", now() - start);
	return 0;
}

static int takeover_off(int timeout)
{
	enum takeover_state t = takeover_state();
	double start = now();
	bool written;
	char p[512];
	FILE *f;

	if (t == TAKEOVER_ABSENT) {
		printf("takeover: already off\n");
		return 0;
	}
	if (t == TAKEOVER_ON || t == TAKEOVER_ENABLING) {
		f = fopen(path(p, sizeof(p), KLP_DIR "/enabled"), "w");
		written = f && fputs("0", f) >= 0;
		if (!f || fclose(f) || !written) {
			fail("cannot disable the takeover (%s): %s", p,
			     strerror(errno));
			return 1;
		}
	}
	if (wait_for(patch_gone, start, timeout)) {
		fail("takeover not off %d s later (state: %s)", timeout,
		     takeover_names[takeover_state()]);
		return 1;
	}
	if (unload_takeover(start, timeout))
		return 1;
	printf("takeover: off (switch took %.1f s)\n", now() - start);
	return 0;
}

static int parse_positive(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v <= 0 || v > 86400)
		return -1;
	*out = (int)v;
	return 0;
}

static int cmd_takeover(int argc, char **argv)
{
	const char *module = NULL;
	int timeout = 180, opt;

	if (argc < 2)
		return 2;
	/* "on" or "off" first, then its options. */
	argc--;
	argv++;
	optind = 0;	/* glibc: start afresh after main()'s getopt_long */
	while ((opt = getopt(argc, argv, "+m:t:")) != -1) {
		switch (opt) {
		case 'm':
			module = optarg;
			break;
		case 't':
			if (parse_positive(optarg, &timeout))
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc)
		return 2;
	if (!strcmp(argv[0], "on"))
		return takeover_on(module, timeout);
	if (!strcmp(argv[0], "off") && !module)
		return takeover_off(timeout);
	return 2;
}

/* One device's counters at one time. */
struct sample {
	char dev[256];	/* a directory entry's name */
	struct counters c;
};

static int device_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sample *)a)->dev,
		      ((const struct sample *)b)->dev);
}

/* Every device's counters (or DEV's alone); the number read or -1. */
static int read_devices(const char *dev, struct sample *s)
{
	char p[512];
	struct dirent *e;
	DIR *d;
	int n = 0;

	d = opendir(path(p, sizeof(p), COUNTERS_DIR "/devices"));
	if (!d) {
		fail("no engine counters at %s: %s (is rdma_rwx loaded and debugfs mounted?)",
		     p, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && n < MAX_DEVICES) {
		if (e->d_name[0] == '.' || (dev && strcmp(dev, e->d_name)))
			continue;
		snprintf(s[n].dev, sizeof(s[n].dev), "%s", e->d_name);
		if (!read_counters(path(p, sizeof(p), COUNTERS_DIR "/devices/%s/counters",
					e->d_name), &s[n].c))
			n++;
	}
	closedir(d);
	if (dev && !n) {
		fail("no engine counters for device %s", dev);
		return -1;
	}
	qsort(s, n, sizeof(*s), device_cmp);
	return n;
}

/* What stat reports of a device: counts between two samples. */
struct report {
	double contexts, sge, mr, sig, rd_bytes, wr_bytes, fallbacks, errors;
	unsigned long long live;
};

/* A counter's change since B; one that went down was reset meanwhile. */
static double delta(const struct counters *a, const struct counters *b,
		    const char *name)
{
	unsigned long long now_v = counter(a, name);
	unsigned long long before = b ? counter(b, name) : 0;

	return (double)(now_v >= before ? now_v - before : now_v);
}

static void make_report(const struct counters *now_c,
			const struct counters *before, struct report *r)
{
	int i;

	r->sge = delta(now_c, before, "init_sge_single") +
		 delta(now_c, before, "init_sge_multi");
	r->mr = delta(now_c, before, "init_mr");
	r->sig = delta(now_c, before, "init_sig");
	r->contexts = r->sge + r->mr + r->sig;
	r->rd_bytes = delta(now_c, before, "bytes_read");
	r->wr_bytes = delta(now_c, before, "bytes_write");
	r->fallbacks = delta(now_c, before, "sge_fallback");
	/* Every err_* line: failed calls by cause, whatever causes the engine counts. */
	r->errors = 0;
	for (i = 0; i < now_c->n; i++)
		if (!strncmp(now_c->name[i], "err_", 4))
			r->errors += delta(now_c, before, now_c->name[i]);
	r->live = counter(now_c, "contexts_live");
}

static double pct(double part, double whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static void print_header(bool rates)
{
	if (rates)
		printf("%-12s %10s %11s %11s %6s %6s %6s %10s %8s %8s\n", "DEV",
		       "ctx/s", "rd_MiB/s", "wr_MiB/s", "sge%", "mr%", "sig%",
		       "fallbk/s", "err/s", "live");
	else
		printf("%-12s %10s %14s %14s %6s %6s %6s %10s %8s %8s\n", "DEV",
		       "contexts", "rd_bytes", "wr_bytes", "sge%", "mr%", "sig%",
		       "fallbacks", "errors", "live");
}

static void print_text(const char *dev, const struct report *r, double secs)
{
	const double mb = 1024.0 * 1024.0;

	if (secs)
		printf("%-12s %10.1f %11.2f %11.2f %6.1f %6.1f %6.1f %10.1f %8.1f %8llu\n",
		       dev, r->contexts / secs, r->rd_bytes / mb / secs,
		       r->wr_bytes / mb / secs, pct(r->sge, r->contexts),
		       pct(r->mr, r->contexts), pct(r->sig, r->contexts),
		       r->fallbacks / secs, r->errors / secs, r->live);
	else
		printf("%-12s %10.0f %14.0f %14.0f %6.1f %6.1f %6.1f %10.0f %8.0f %8llu\n",
		       dev, r->contexts, r->rd_bytes, r->wr_bytes,
		       pct(r->sge, r->contexts), pct(r->mr, r->contexts),
		       pct(r->sig, r->contexts), r->fallbacks, r->errors, r->live);
}

static void print_json(const char *dev, const struct report *r, double secs)
{
	printf("{\"dev\":");
	json_string(dev);
	if (secs)
		printf(",\"contexts_per_s\":%.1f,\"read_bytes_per_s\":%.0f,"
		       "\"write_bytes_per_s\":%.0f,\"fallbacks_per_s\":%.1f,"
		       "\"errors_per_s\":%.1f", r->contexts / secs,
		       r->rd_bytes / secs, r->wr_bytes / secs,
		       r->fallbacks / secs, r->errors / secs);
	else
		printf(",\"contexts\":%.0f,\"read_bytes\":%.0f,\"write_bytes\":%.0f,"
		       "\"fallbacks\":%.0f,\"errors\":%.0f", r->contexts,
		       r->rd_bytes, r->wr_bytes, r->fallbacks, r->errors);
	printf(",\"sge_pct\":%.1f,\"mr_pct\":%.1f,\"sig_pct\":%.1f,\"live\":%llu}",
	       pct(r->sge, r->contexts), pct(r->mr, r->contexts),
	       pct(r->sig, r->contexts), r->live);
}

/* One report: AFTER against BEFORE (NULL: the totals) over SECS. */
static void print_report(const struct sample *after, int n,
			 const struct sample *before, int nb, double secs)
{
	const struct counters *prev;
	const char *sep = "";
	struct report r;
	int i, j;

	if (json && secs)
		printf("{\"interval_s\":%.3f,\"devices\":[", secs);
	else if (json)
		printf("{\"devices\":[");
	else
		print_header(secs != 0);
	for (i = 0; i < n; i++) {
		prev = NULL;
		for (j = 0; before && j < nb; j++)
			if (!strcmp(before[j].dev, after[i].dev))
				prev = &before[j].c;
		/* A device that appeared meanwhile: from its next report. */
		if (before && !prev)
			continue;
		make_report(&after[i].c, prev, &r);
		if (json) {
			printf("%s", sep);
			print_json(after[i].dev, &r, secs);
			sep = ",";
		} else {
			print_text(after[i].dev, &r, secs);
		}
	}
	printf(json ? "]}\n" : "\n");
	fflush(stdout);
}

static int cmd_stat(int argc, char **argv)
{
	static struct sample a[MAX_DEVICES], b[MAX_DEVICES];
	struct sample *before = a, *after = b, *tmp;
	const char *dev = NULL;
	int interval = 0, count = -1, n, nb, opt;
	double t0, t1;

	optind = 0;
	while ((opt = getopt(argc, argv, "+d:")) != -1) {
		if (opt != 'd')
			return 2;
		dev = optarg;
	}
	if (argc - optind > 2 ||
	    (argc - optind >= 1 && parse_positive(argv[optind], &interval)) ||
	    (argc - optind == 2 && parse_positive(argv[optind + 1], &count)))
		return 2;
	nb = read_devices(dev, before);
	if (nb < 0)
		return 1;
	if (!interval) {
		print_report(before, nb, NULL, 0, 0);
		return 0;
	}
	t0 = now();
	while (count < 0 || count--) {
		sleep(interval);
		n = read_devices(dev, after);
		if (n < 0)
			return 1;
		t1 = now();
		print_report(after, n, before, nb, t1 - t0);
		tmp = before;
		before = after;
		after = tmp;
		nb = n;
		t0 = t1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: rdma-rwx [-j] [--root DIR] status\n"
	      "       rdma-rwx takeover on [-m FILE.ko] [-t SECONDS]\n"
	      "       rdma-rwx takeover off [-t SECONDS]\n"
	      "       rdma-rwx [-j] [--root DIR] stat [-d DEV] [INTERVAL [COUNT]]\n"
	      "\n"
	      "  -j, --json     JSON output (stat: one object per report)\n"
	      "      --root DIR read sysfs and debugfs under DIR (tests)\n"
	      "  -h, --help     this text\n", f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc = 2;

	while ((opt = getopt_long(argc, argv, "+jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'r':
			root = optarg;
			if (strlen(root) > 256) {
				fail("--root: at most 256 characters");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[0], "status") && argc == 1)
		rc = cmd_status();
	else if (!strcmp(argv[0], "takeover"))
		rc = cmd_takeover(argc, argv);
	else if (!strcmp(argv[0], "stat"))
		rc = cmd_stat(argc, argv);
	if (rc == 2)
		usage(stderr);
	return rc;
}
