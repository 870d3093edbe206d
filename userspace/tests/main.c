// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Test runner (the fake device: fake.c). */
#include <stdarg.h>
#include <stdlib.h>

#include "rwx_test.h"

static int cur_failed, cur_skipped;
static char cur_msg[512];
static int n_ok, n_fail, n_skip;
static const char *name_prefix = "";

void t_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	cur_failed = 1;
	n = snprintf(cur_msg, sizeof(cur_msg), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(cur_msg + n, sizeof(cur_msg) - (size_t)n, fmt, ap);
	va_end(ap);
}

int t_failed_now(void)
{
	return cur_failed;
}

void t_skip(const char *reason)
{
	cur_skipped = 1;
	snprintf(cur_msg, sizeof(cur_msg), "%s", reason);
}

void t_run(const char *name, void (*fn)(void))
{
	cur_failed = cur_skipped = 0;
	cur_msg[0] = 0;
	fn();
	if (cur_failed) {
		printf("FAIL %s%s: %s\n", name_prefix, name, cur_msg);
		n_fail++;
	} else if (cur_skipped) {
		printf("skip %s%s: %s\n", name_prefix, name, cur_msg);
		n_skip++;
	} else {
		printf("ok %s%s\n", name_prefix, name);
		n_ok++;
	}
	fflush(stdout);
	fake_teardown();	/* every test starts from a clean fake */
}

int main(void)
{
	suite_check();
	suite_post();
	suite_ext();
	suite_comp();
	suite_rw();
	suite_perf();
	suite_wr();
	/*
	 * The posting suites again on a QP with ibv_wr_* builders: every
	 * post, refusal and errno the same whichever way the WR goes.
	 */
	fake_wr_api = FAKE_WR_ALL;
	name_prefix = "wr/";
	suite_post();
	suite_ext();
	suite_rw();
	fake_wr_api = FAKE_WR_NONE;
	name_prefix = "";
	printf("# rwx_unit: %d passed, %d failed, %d skipped\n",
	       n_ok, n_fail, n_skip);
	return n_fail ? 1 : 0;
}
