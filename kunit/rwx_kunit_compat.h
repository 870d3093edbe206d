/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the suites use of KUnit that Debian 12's 6.1 kernel does not have
 * yet (added in 6.2 and 6.3), as the same checks in 6.1's terms.
 */
#ifndef _RWX_KUNIT_COMPAT_H
#define _RWX_KUNIT_COMPAT_H

#include <kunit/test.h>
#include <linux/string.h>

#ifndef KUNIT_EXPECT_MEMEQ
/* 6.1 reports only that the buffers differ, not the bytes. */
#define KUNIT_EXPECT_MEMEQ_MSG(test, left, right, size, fmt, ...)	\
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(left, right, size), fmt,	\
			      ##__VA_ARGS__)
#define KUNIT_EXPECT_MEMEQ(test, left, right, size)			\
	KUNIT_EXPECT_MEMEQ_MSG(test, left, right, size,			\
			       "%s and %s differ", #left, #right)
#endif

#ifndef KUNIT_FAIL_AND_ABORT
#define KUNIT_FAIL_AND_ABORT(test, fmt, ...)				\
	KUNIT_ASSERT_FAILURE(test, fmt, ##__VA_ARGS__)
#endif

#endif /* _RWX_KUNIT_COMPAT_H */
