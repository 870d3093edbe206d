// SPDX-License-Identifier: GPL-2.0-only
/*
 * Harness self-test: a KUnit suite with one passing and one failing case.
 * The harness must report the failing one by name.
 */

#include <kunit/test.h>
#include <linux/module.h>

static void rwx_selftest_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void rwx_selftest_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "deliberate failure");
}

static struct kunit_case rwx_selftest_cases[] = {
	KUNIT_CASE(rwx_selftest_passes),
	KUNIT_CASE(rwx_selftest_fails),
	{}
};

static struct kunit_suite rwx_selftest_suite = {
	.name = "rwx_harness_selftest",
	.test_cases = rwx_selftest_cases,
};

kunit_test_suite(rwx_selftest_suite);

MODULE_DESCRIPTION("rdma-rwx harness self-test: a failing KUnit case");
MODULE_LICENSE("GPL");
