/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * T10-DIF protection information computed by the tests themselves, bit by
 * bit, independently of the kernel's crc_t10dif() and of the test device:
 * the oracle the signature and test-device suites check PI against.  Each
 * suite also checks the oracle against the T10 check value and the
 * kernel (rwx_t10_oracle_check()).
 */
#ifndef _RWX_T10_ORACLE_H
#define _RWX_T10_ORACLE_H

#include <kunit/test.h>
#include <linux/crc-t10dif.h>
#include <linux/random.h>
#include <linux/t10-pi.h>
#include <net/checksum.h>
#include <rdma/signature.h>

/* CRC-16/T10-DIF (polynomial 0x8bb7), from @crc on. */
static inline u16 rwx_t10_crc(u16 crc, const u8 *p, size_t len)
{
	int bit;

	while (len--) {
		crc ^= (u16)*p++ << 8;
		for (bit = 0; bit < 8; bit++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x8bb7 : crc << 1;
	}
	return crc;
}

/* The IP checksum as a big-endian number: one's complement sum of words. */
static inline u16 rwx_t10_csum(const u8 *p, size_t len)
{
	u32 sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (u32)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* The guard of one interval of @data, as the domain defines it. */
static inline u16 rwx_t10_guard(const struct ib_t10_dif_domain *dif,
				const u8 *data)
{
	if (dif->bg_type == IB_T10DIF_CSUM)
		return rwx_t10_csum(data, dif->pi_interval);
	return rwx_t10_crc(dif->bg, data, dif->pi_interval);
}

/* The tuple of interval @block of a transfer, in @dif's domain. */
static inline void rwx_t10_tuple(const struct ib_t10_dif_domain *dif,
				 const u8 *data, u32 block,
				 struct t10_pi_tuple *pi)
{
	pi->guard_tag = cpu_to_be16(rwx_t10_guard(dif, data));
	pi->app_tag = cpu_to_be16(dif->app_tag);
	pi->ref_tag = cpu_to_be32(dif->ref_tag + (dif->ref_remap ? block : 0));
}

/* The oracle agrees with the T10-DIF check value and with the kernel. */
static inline void rwx_t10_oracle_check(struct kunit *test)
{
	static const u8 check[] = "123456789";
	u8 *buf;

	buf = kunit_kmalloc(test, 512, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, rwx_t10_crc(0, check, 9), 0xd0db);
	get_random_bytes(buf, 512);
	KUNIT_EXPECT_EQ(test, rwx_t10_crc(0, buf, 512), crc_t10dif(buf, 512));
	KUNIT_EXPECT_EQ(test, rwx_t10_csum(buf, 512),
			be16_to_cpu((__force __be16)ip_compute_csum(buf, 512)));
}

#endif /* _RWX_T10_ORACLE_H */
