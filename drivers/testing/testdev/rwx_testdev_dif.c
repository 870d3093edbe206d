// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: T10-DIF in integrity MRs.
 *
 * Layout.  map_mr_sg_pi() reads mr->sig_attrs (the ULP or ib_core puts
 * them there before mapping) and maps the data list and, if given, the
 * protection (meta) list, each with ib_sg_to_pages() into a page list of
 * its own.  Let I be the protection interval of the T10-DIF domain(s)
 * (512 or 4096; when both domains are T10-DIF their intervals must match),
 * and n the number of intervals:
 *
 *  - memory T10-DIF, meta list given: PI lives in the meta list, 8 bytes
 *    per interval; the data list holds D = n * I bytes and the meta list
 *    exactly n * 8;
 *  - memory T10-DIF, no meta list: PI is interleaved, each interval's 8
 *    bytes after its data, in a data list of n * (I + 8) bytes;
 *  - memory NONE: the data list holds D = n * I bytes, no meta list.
 *
 * The MR then describes the protected region as interleaved data and PI,
 * zero-based: mr->iova = 0 (as on mlx5), sig_attrs->meta_length = n * 8
 * and mr->length = D + n * 8.  The wire image of a transfer is the whole
 * region when the wire domain is T10-DIF, and D bytes (the data alone)
 * when it is NONE: mr->length - meta_length, which is what ib_core's
 * rdma_rw_ctx_signature_init() posts.  This is the device's own model:
 * mlx5 reports meta_length as the bytes of the protection list (0 without
 * one) and mr->length as data list plus protection list, so for memory
 * NONE (insert) and for interleaved memory PI the length ib_core and the
 * engine post differ between the two devices; the engine only takes the
 * driver's figures, like ib_core.  map_mr_sg_pi() returns -ENOMEM
 * when a list does not fit the MR or the data is not a whole number of
 * intervals, -EINVAL for attributes that are malformed (neither domain
 * T10-DIF, an interval or guard type T10 does not define, intervals that
 * differ), for a meta list when memory is NONE, and for a meta list whose
 * length does not match the data.
 *
 * REG_MR_INTEGRITY takes both page lists and a copy of mr->sig_attrs.  A
 * local SGE naming the VALID MR must start at 0 and cover the wire image
 * exactly, and be the WR's only SGE.
 *
 * Memory to wire (RDMA WRITE source), per interval i: the data is read
 * from memory; if memory is T10-DIF its PI tuple (guard be16, application
 * tag be16, reference tag be32) is read and checked against the memory
 * domain.  The wire gets the data and, if the wire is T10-DIF, a tuple:
 * memory's, passed (the guard recomputed when the guard type or seed
 * differs, the reference tag moved from the memory domain's expected value
 * for the interval to the wire domain's), or, when memory is NONE, one
 * inserted: the guard over the data, the wire domain's application tag and
 * reference tag (+ i with ref_remap).
 *
 * Wire to memory (RDMA READ sink), per interval: the data and, if the wire
 * is T10-DIF, its tuple, checked against the wire domain; memory gets the
 * data and, if memory is T10-DIF, the wire's tuple passed the same way, or
 * one generated from the memory domain when the wire is NONE.
 *
 * Checks, under sig_attrs.check_mask: IB_SIG_CHECK_GUARD compares the
 * guard with crc_t10dif_update(bg, data, I) (IB_T10DIF_CRC) or the IP
 * checksum of the data as the kernel's t10-pi code computes it
 * (IB_T10DIF_CSUM); IB_SIG_CHECK_REFTAG the reference tag with ref_tag
 * (+ i with ref_remap); IB_SIG_CHECK_APPTAG the application tag with
 * app_tag under apptag_check_mask.  An application tag of 0xffff skips a
 * block's checks with app_escape, and so does it with a reference tag of
 * 0xffffffff with ref_escape; such a tuple is passed unchanged.  A failed
 * check does not fail the WR (as on mlx5): the data still moves, and the
 * MR keeps the first error since it was last asked (guard, then reference
 * tag, then application tag; expected and actual value, the failing
 * interval's offset i * (I + 8) in the protected region, the MR's key)
 * for check_mr_status(IB_MR_CHECK_SIG_STATUS), which reports and clears
 * it.
 */

#include <linux/crc-t10dif.h>
#include <linux/math64.h>
#include <linux/t10-pi.h>
#include <net/checksum.h>

#include "rwx_testdev_internal.h"

static bool rwx_td_dif_valid(const struct ib_t10_dif_domain *dif)
{
	return (dif->pi_interval == 512 || dif->pi_interval == 4096) &&
	       (dif->bg_type == IB_T10DIF_CRC || dif->bg_type == IB_T10DIF_CSUM);
}

static bool rwx_td_sig_type_valid(enum ib_signature_type type)
{
	return type == IB_SIG_TYPE_NONE || type == IB_SIG_TYPE_T10_DIF;
}

/**
 * rwx_td_pi_layout() - the layout of an integrity MR's lists
 * @sig: its signature attributes
 * @data_list_len: bytes of the data list
 * @meta_list: whether a protection list is given
 * @meta_list_len: its bytes
 * @layout: filled in
 *
 * Return: 0, -EINVAL for malformed attributes or a protection list that
 * does not match, -ENOMEM when the data is not a whole number of intervals.
 */
int rwx_td_pi_layout(const struct ib_sig_attrs *sig, u64 data_list_len,
		     bool meta_list, u64 meta_list_len,
		     struct rwx_td_pi_layout *layout)
{
	const struct ib_t10_dif_domain *mem = &sig->mem.sig.dif;
	const struct ib_t10_dif_domain *wire = &sig->wire.sig.dif;
	u32 interval, rem;
	u64 n;

	memset(layout, 0, sizeof(*layout));
	if (!rwx_td_sig_type_valid(sig->mem.sig_type) ||
	    !rwx_td_sig_type_valid(sig->wire.sig_type))
		return -EINVAL;
	layout->mem_pi = sig->mem.sig_type == IB_SIG_TYPE_T10_DIF;
	layout->wire_pi = sig->wire.sig_type == IB_SIG_TYPE_T10_DIF;
	if (!layout->mem_pi && !layout->wire_pi)
		return -EINVAL;
	if ((layout->mem_pi && !rwx_td_dif_valid(mem)) ||
	    (layout->wire_pi && !rwx_td_dif_valid(wire)))
		return -EINVAL;
	if (layout->mem_pi && layout->wire_pi &&
	    mem->pi_interval != wire->pi_interval)
		return -EINVAL;
	interval = layout->mem_pi ? mem->pi_interval : wire->pi_interval;

	if (layout->mem_pi && !meta_list) {
		layout->interleaved = true;
		n = div_u64_rem(data_list_len, interval + RWX_TD_PI_SIZE, &rem);
		if (rem)
			return -ENOMEM;
	} else {
		if (!layout->mem_pi && meta_list)
			return -EINVAL;
		n = div_u64_rem(data_list_len, interval, &rem);
		if (rem)
			return -ENOMEM;
		if (meta_list && meta_list_len != n * RWX_TD_PI_SIZE)
			return -EINVAL;
	}
	if (!n || n > U32_MAX)
		return -EINVAL;

	layout->interval = interval;
	layout->nblocks = n;
	layout->data_len = n * interval;
	layout->meta_length = n * RWX_TD_PI_SIZE;
	return 0;
}

/* Bytes of the wire image: with PI when the wire carries it. */
u64 rwx_td_pi_wire_len(const struct rwx_td_pi_layout *layout)
{
	return layout->data_len + (layout->wire_pi ? layout->meta_length : 0);
}

/* The registered data and protection lists as segments. */
void rwx_td_pi_segs(const struct rwx_td_mr *mr, struct rwx_td_seg *data,
		    struct rwx_td_seg *meta)
{
	data->map = &mr->reg;
	data->addr = mr->reg.iova;
	data->len = mr->reg.length;
	data->virt = mr->tdev->caps.virt_dma;
	memset(meta, 0, sizeof(*meta));
	meta->virt = data->virt;
	if (mr->reg_pi.mem_pi && !mr->reg_pi.interleaved) {
		meta->map = &mr->reg_meta;
		meta->addr = mr->reg_meta.iova;
		meta->len = mr->reg_meta.length;
	}
}

static u16 rwx_td_guard(const struct ib_t10_dif_domain *dif, const u8 *data)
{
	if (dif->bg_type == IB_T10DIF_CSUM)
		return be16_to_cpu((__force __be16)ip_compute_csum(data,
								   dif->pi_interval));
	return crc_t10dif_update(dif->bg, data, dif->pi_interval);
}

/* The reference tag interval @i carries in domain @dif. */
static u32 rwx_td_ref(const struct ib_t10_dif_domain *dif, u32 i)
{
	return dif->ref_tag + (dif->ref_remap ? i : 0);
}

static bool rwx_td_escaped(const struct ib_t10_dif_domain *dif,
			   const struct t10_pi_tuple *pi)
{
	if (pi->app_tag != cpu_to_be16(0xffff))
		return false;
	return dif->app_escape ||
	       (dif->ref_escape && pi->ref_tag == cpu_to_be32(0xffffffff));
}

static void rwx_td_pi_error(struct rwx_td_mr *mr, enum ib_sig_err_type type,
			    u32 expected, u32 actual, u32 i)
{
	unsigned long flags;

	spin_lock_irqsave(&mr->lock, flags);
	if (!mr->sig_err_set) {
		mr->sig_err_set = true;
		mr->sig_err.err_type = type;
		mr->sig_err.expected = expected;
		mr->sig_err.actual = actual;
		mr->sig_err.sig_err_offset = (u64)i * (mr->reg_pi.interval +
						       RWX_TD_PI_SIZE);
		mr->sig_err.key = mr->key;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
}

/* Checks interval @i's tuple against @dif; records the first failure. */
static void rwx_td_pi_check(struct rwx_td_mr *mr,
			    const struct ib_t10_dif_domain *dif,
			    const u8 *data, const struct t10_pi_tuple *pi,
			    u32 i)
{
	u8 mask = mr->reg_sig.check_mask;
	u16 app = be16_to_cpu(pi->app_tag);
	u16 guard = be16_to_cpu(pi->guard_tag);
	u32 ref = be32_to_cpu(pi->ref_tag);
	u32 want;

	if (rwx_td_escaped(dif, pi))
		return;
	if (mask & IB_SIG_CHECK_GUARD) {
		want = rwx_td_guard(dif, data);
		if (want != guard) {
			rwx_td_pi_error(mr, IB_SIG_BAD_GUARD, want, guard, i);
			return;
		}
	}
	if (mask & IB_SIG_CHECK_REFTAG) {
		want = rwx_td_ref(dif, i);
		if (want != ref) {
			rwx_td_pi_error(mr, IB_SIG_BAD_REFTAG, want, ref, i);
			return;
		}
	}
	if ((mask & IB_SIG_CHECK_APPTAG) &&
	    ((app ^ dif->app_tag) & dif->apptag_check_mask))
		rwx_td_pi_error(mr, IB_SIG_BAD_APPTAG, dif->app_tag, app, i);
}

/* A tuple for interval @i of @data, generated for domain @dif. */
static void rwx_td_pi_generate(const struct ib_t10_dif_domain *dif,
			       const u8 *data, u32 i, struct t10_pi_tuple *out)
{
	out->guard_tag = cpu_to_be16(rwx_td_guard(dif, data));
	out->app_tag = cpu_to_be16(dif->app_tag);
	out->ref_tag = cpu_to_be32(rwx_td_ref(dif, i));
}

/* Interval @i's tuple @in of domain @from, passed into domain @to. */
static void rwx_td_pi_pass(const struct ib_t10_dif_domain *from,
			   const struct ib_t10_dif_domain *to, const u8 *data,
			   const struct t10_pi_tuple *in, u32 i,
			   struct t10_pi_tuple *out)
{
	u32 ref;

	*out = *in;
	if (rwx_td_escaped(from, in))
		return;
	if (from->bg_type != to->bg_type ||
	    (to->bg_type == IB_T10DIF_CRC && from->bg != to->bg))
		out->guard_tag = cpu_to_be16(rwx_td_guard(to, data));
	ref = be32_to_cpu(in->ref_tag) - rwx_td_ref(from, i) + rwx_td_ref(to, i);
	out->ref_tag = cpu_to_be32(ref);
}

/**
 * rwx_td_pi_write() - memory to wire through a VALID integrity MR
 * @tdev: the instance (its scratch buffer)
 * @mr: the MR
 * @wire: where the wire image goes, rwx_td_pi_wire_len() bytes
 *
 * Return: 0, or -EFAULT when memory cannot be reached.
 */
int rwx_td_pi_write(struct rwx_testdev *tdev, struct rwx_td_mr *mr,
		    struct rwx_td_cursor *wire)
{
	const struct ib_t10_dif_domain *mdif = &mr->reg_sig.mem.sig.dif;
	const struct ib_t10_dif_domain *wdif = &mr->reg_sig.wire.sig.dif;
	const struct rwx_td_pi_layout *l = &mr->reg_pi;
	struct rwx_td_seg dseg, mseg;
	struct rwx_td_cursor data = { .segs = &dseg, .nsegs = 1 };
	struct rwx_td_cursor meta = { .segs = &mseg, .nsegs = 1 };
	struct rwx_td_cursor *pic = l->interleaved ? &data : &meta;
	struct t10_pi_tuple in, out;
	u8 *blk = tdev->blk;
	u32 i;

	rwx_td_pi_segs(mr, &dseg, &mseg);
	for (i = 0; i < l->nblocks; i++) {
		if (rwx_td_cursor_copy(&data, blk, l->interval, false))
			return -EFAULT;
		if (l->mem_pi) {
			if (rwx_td_cursor_copy(pic, &in, sizeof(in), false))
				return -EFAULT;
			rwx_td_pi_check(mr, mdif, blk, &in, i);
		}
		if (rwx_td_cursor_copy(wire, blk, l->interval, true))
			return -EFAULT;
		if (!l->wire_pi)
			continue;
		if (l->mem_pi)
			rwx_td_pi_pass(mdif, wdif, blk, &in, i, &out);
		else
			rwx_td_pi_generate(wdif, blk, i, &out);
		if (rwx_td_cursor_copy(wire, &out, sizeof(out), true))
			return -EFAULT;
	}
	return 0;
}

/**
 * rwx_td_pi_read() - wire to memory through a VALID integrity MR
 * @tdev: the instance (its scratch buffer)
 * @mr: the MR
 * @wire: the wire image, rwx_td_pi_wire_len() bytes
 *
 * Return: 0, or -EFAULT when memory cannot be reached.
 */
int rwx_td_pi_read(struct rwx_testdev *tdev, struct rwx_td_mr *mr,
		   struct rwx_td_cursor *wire)
{
	const struct ib_t10_dif_domain *mdif = &mr->reg_sig.mem.sig.dif;
	const struct ib_t10_dif_domain *wdif = &mr->reg_sig.wire.sig.dif;
	const struct rwx_td_pi_layout *l = &mr->reg_pi;
	struct rwx_td_seg dseg, mseg;
	struct rwx_td_cursor data = { .segs = &dseg, .nsegs = 1 };
	struct rwx_td_cursor meta = { .segs = &mseg, .nsegs = 1 };
	struct rwx_td_cursor *pic = l->interleaved ? &data : &meta;
	struct t10_pi_tuple in, out;
	u8 *blk = tdev->blk;
	u32 i;

	rwx_td_pi_segs(mr, &dseg, &mseg);
	for (i = 0; i < l->nblocks; i++) {
		if (rwx_td_cursor_copy(wire, blk, l->interval, false))
			return -EFAULT;
		if (l->wire_pi) {
			if (rwx_td_cursor_copy(wire, &in, sizeof(in), false))
				return -EFAULT;
			rwx_td_pi_check(mr, wdif, blk, &in, i);
		}
		if (rwx_td_cursor_copy(&data, blk, l->interval, true))
			return -EFAULT;
		if (!l->mem_pi)
			continue;
		if (l->wire_pi)
			rwx_td_pi_pass(wdif, mdif, blk, &in, i, &out);
		else
			rwx_td_pi_generate(mdif, blk, i, &out);
		if (rwx_td_cursor_copy(pic, &out, sizeof(out), true))
			return -EFAULT;
	}
	return 0;
}
