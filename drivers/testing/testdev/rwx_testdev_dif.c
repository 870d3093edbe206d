// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: T10-DIF in integrity MRs.
 *
 * Layout.  map_mr_sg_pi() maps the data list and, if given, the
 * protection (meta) list, each with ib_sg_to_pages() into a page list of
 * its own, and reads no signature attributes, as on mlx5: mr->iova = 0,
 * sig_attrs->meta_length = the protection list's bytes (0 without one),
 * mr->length = both lists' bytes.  It returns -ENOMEM when a list does not
 * fit the MR.  ULPs set the attributes after mapping (nvme-rdma and
 * ib_core's rdma_rw_ctx_signature_init() do): posting REG_MR_INTEGRITY
 * checks them against the lists and refuses (-EINVAL) attributes that are
 * malformed (neither domain T10-DIF, an interval or guard type T10 does
 * not define, intervals that differ), a meta list when memory is NONE or
 * whose length does not match the data, and data that is not a whole
 * number of intervals.  Let I be the protection interval of the T10-DIF
 * domain(s) (512 or 4096) and n the number of intervals:
 *
 *  - memory T10-DIF, meta list given: PI lives in the meta list, 8 bytes
 *    per interval; the data list holds n * I bytes and the meta list
 *    exactly n * 8;
 *  - memory T10-DIF, no meta list: PI is interleaved, each interval's 8
 *    bytes after its data, in a data list of n * (I + 8) bytes;
 *  - memory NONE: the data list holds n * I bytes, no meta list.
 *
 * The wire image of a transfer holds each interval's data followed, when
 * the wire domain is T10-DIF, by its 8-byte tuple: n * (I + 8) or n * I
 * bytes.  REG_MR_INTEGRITY takes both page lists and a copy of
 * mr->sig_attrs.  A local SGE naming the VALID MR must be the WR's only
 * SGE, start at 0 and be mr->length less meta_length when the wire domain
 * is NONE, as rdma_rw_ctx_signature_init() posts it; that is the wire
 * image's length but where PI is inserted on the wire (memory NONE: the
 * SGE is n * I) or interleaved PI stripped from it (n * (I + 8)), and the
 * wire image is what moves.  A remote access (an rkey) to a VALID
 * integrity MR takes its whole wire image, from 0: what an NVMe-oF target
 * does to its initiator's MR.  Where both ends are integrity MRs their
 * wire images must agree (interval, intervals, wire domain).
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

/*
 * The length of a local SGE naming a VALID integrity MR (see the top):
 * its lists' bytes, less the protection list when the wire has no PI.
 */
u64 rwx_td_pi_sge_len(const struct rwx_td_mr *mr)
{
	return mr->reg.length + (mr->reg_pi.wire_pi ? mr->reg_meta.length : 0);
}

/**
 * rwx_td_pi_reg_check() - whether an integrity MR can be registered
 * @mr: the MR, its lists mapped
 * @sig: the signature attributes the registration will take
 *
 * Return: 0, or -EINVAL when @sig and the lists do not make a layout.
 */
int rwx_td_pi_reg_check(const struct rwx_td_mr *mr,
			const struct ib_sig_attrs *sig)
{
	struct rwx_td_pi_layout layout;

	if (rwx_td_pi_layout(sig, mr->map.length, mr->meta_map.npages != 0,
			     mr->meta_map.length, &layout))
		return -EINVAL;
	return 0;
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

/*
 * One integrity MR's memory, walked interval by interval: its data list
 * and, where memory keeps PI apart, its protection list.
 */
struct rwx_td_pi_port {
	struct rwx_td_mr *mr;
	struct rwx_td_seg dseg, mseg;
	struct rwx_td_cursor data, meta;
};

static void rwx_td_pi_port_init(struct rwx_td_pi_port *port,
				struct rwx_td_mr *mr)
{
	port->mr = mr;
	rwx_td_pi_segs(mr, &port->dseg, &port->mseg);
	port->data = (struct rwx_td_cursor){ .segs = &port->dseg, .nsegs = 1 };
	port->meta = (struct rwx_td_cursor){ .segs = &port->mseg, .nsegs = 1 };
}

/* The cursor memory's PI tuples are read from or written to. */
static struct rwx_td_cursor *rwx_td_pi_tuples(struct rwx_td_pi_port *port)
{
	return port->mr->reg_pi.interleaved ? &port->data : &port->meta;
}

/*
 * Memory to wire: interval @i of @port's memory into @blk, checked against
 * the memory domain, and its wire tuple into @out (when the wire carries
 * PI: memory's passed, or one inserted).
 */
static int rwx_td_pi_out(struct rwx_td_pi_port *port, u32 i, u8 *blk,
			 struct t10_pi_tuple *out)
{
	struct rwx_td_mr *mr = port->mr;
	const struct ib_t10_dif_domain *mdif = &mr->reg_sig.mem.sig.dif;
	const struct ib_t10_dif_domain *wdif = &mr->reg_sig.wire.sig.dif;
	const struct rwx_td_pi_layout *l = &mr->reg_pi;
	struct t10_pi_tuple in;

	if (rwx_td_cursor_copy(&port->data, blk, l->interval, false))
		return -EFAULT;
	if (l->mem_pi) {
		if (rwx_td_cursor_copy(rwx_td_pi_tuples(port), &in,
				       sizeof(in), false))
			return -EFAULT;
		rwx_td_pi_check(mr, mdif, blk, &in, i);
	}
	if (!l->wire_pi)
		return 0;
	if (l->mem_pi)
		rwx_td_pi_pass(mdif, wdif, blk, &in, i, out);
	else
		rwx_td_pi_generate(wdif, blk, i, out);
	return 0;
}

/*
 * Wire to memory: interval @i's data @blk and wire tuple @in (when the
 * wire carries PI, checked against the wire domain) into @port's memory,
 * with memory's tuple (the wire's passed, or one generated).
 */
static int rwx_td_pi_in(struct rwx_td_pi_port *port, u32 i, u8 *blk,
			const struct t10_pi_tuple *in)
{
	struct rwx_td_mr *mr = port->mr;
	const struct ib_t10_dif_domain *mdif = &mr->reg_sig.mem.sig.dif;
	const struct ib_t10_dif_domain *wdif = &mr->reg_sig.wire.sig.dif;
	const struct rwx_td_pi_layout *l = &mr->reg_pi;
	struct t10_pi_tuple out;

	if (l->wire_pi)
		rwx_td_pi_check(mr, wdif, blk, in, i);
	if (rwx_td_cursor_copy(&port->data, blk, l->interval, true))
		return -EFAULT;
	if (!l->mem_pi)
		return 0;
	if (l->wire_pi)
		rwx_td_pi_pass(wdif, mdif, blk, in, i, &out);
	else
		rwx_td_pi_generate(mdif, blk, i, &out);
	return rwx_td_cursor_copy(rwx_td_pi_tuples(port), &out, sizeof(out),
				  true);
}

/*
 * Interval data @blk and, when the wire carries PI, its @tuple, out of
 * (or, @to_image, into) a wire image at @c.
 */
static int rwx_td_pi_image_copy(struct rwx_td_cursor *c,
				const struct rwx_td_pi_layout *l, u8 *blk,
				struct t10_pi_tuple *tuple, bool to_image)
{
	if (rwx_td_cursor_copy(c, blk, l->interval, to_image))
		return -EFAULT;
	if (l->wire_pi &&
	    rwx_td_cursor_copy(c, tuple, sizeof(*tuple), to_image))
		return -EFAULT;
	return 0;
}

/* Whether two integrity MRs' wire images are laid out alike. */
static bool rwx_td_pi_wires_match(const struct rwx_td_pi_layout *a,
				  const struct rwx_td_pi_layout *b)
{
	return a->interval == b->interval && a->nblocks == b->nblocks &&
	       a->wire_pi == b->wire_pi;
}

/**
 * rwx_td_pi_move() - a wire image from one side to the other
 * @tdev: the instance (its scratch block)
 * @src_mr: the VALID integrity MR the image is made through from memory,
 *	or NULL when @src holds the image itself
 * @src: the source's memory when @src_mr is NULL
 * @dst_mr: the VALID integrity MR the image goes to memory through, or
 *	NULL when @dst takes the image itself
 * @dst: the destination's memory when @dst_mr is NULL
 *
 * At least one side is an integrity MR; where both are (an initiator's and
 * a target's, as in NVMe-oF with PI), their wire images must agree.  The
 * image moves one interval at a time through the scratch block, where
 * RWX_TESTDEV_FAULT_PI_WIRE damages it.
 *
 * Return: 0, -EINVAL when the two wire images differ, -EFAULT when memory
 * cannot be reached.
 */
int rwx_td_pi_move(struct rwx_testdev *tdev, struct rwx_td_mr *src_mr,
		   struct rwx_td_cursor *src, struct rwx_td_mr *dst_mr,
		   struct rwx_td_cursor *dst)
{
	const struct rwx_td_pi_layout *l = src_mr ? &src_mr->reg_pi :
						    &dst_mr->reg_pi;
	struct rwx_td_pi_port in_port, out_port;
	struct t10_pi_tuple tuple;
	u8 *blk = tdev->blk;
	u32 i;
	int ret;

	if (src_mr && dst_mr && !rwx_td_pi_wires_match(l, &dst_mr->reg_pi))
		return -EINVAL;
	if (src_mr)
		rwx_td_pi_port_init(&out_port, src_mr);
	if (dst_mr)
		rwx_td_pi_port_init(&in_port, dst_mr);
	for (i = 0; i < l->nblocks; i++) {
		ret = src_mr ? rwx_td_pi_out(&out_port, i, blk, &tuple) :
			       rwx_td_pi_image_copy(src, l, blk, &tuple, false);
		if (ret)
			return ret;
		if (!i && l->wire_pi &&
		    rwx_td_fault(tdev, RWX_TESTDEV_FAULT_PI_WIRE, NULL))
			tuple.guard_tag ^= cpu_to_be16(0x8000);
		ret = dst_mr ? rwx_td_pi_in(&in_port, i, blk, &tuple) :
			       rwx_td_pi_image_copy(dst, l, blk, &tuple, true);
		if (ret)
			return ret;
	}
	return 0;
}
