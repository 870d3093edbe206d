// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: the executor.
 *
 * One work item per instance, on its ordered workqueue, takes the posted
 * send WRs in post order and runs each to completion in process context:
 *
 *  - RDMA WRITE: the local SGEs are gathered and scattered to the peer's
 *    memory at remote_addr under rkey (remote WRITE access); WRITE with
 *    immediate then consumes the peer's next receive.
 *  - RDMA READ: the peer's memory at remote_addr under rkey (remote READ
 *    access) is scattered into the local SGEs (local WRITE access).  On an
 *    iWARP instance a READ sink must be an MR with remote WRITE access
 *    (not the local DMA lkey); READ with invalidate, iWARP only,
 *    invalidates its key after the data has landed.
 *  - SEND (with immediate, with invalidate): into the peer's next posted
 *    receive; none posted fails the sender with IB_WC_RNR_RETRY_EXC_ERR.
 *  - LOCAL_INV, REG_MR, REG_MR_INTEGRITY: MR state changes.
 *
 * Every access is checked first: key, VALID state, PD, access rights,
 * range, and that each page is in the linear map.  A local failure
 * completes the WR with IB_WC_LOC_PROT_ERR, a remote one with
 * IB_WC_REM_ACCESS_ERR; a peer that is missing or not ready fails it with
 * IB_WC_RETRY_EXC_ERR.  REG_MR on a VALID MR, or with a key of another
 * MR, fails with IB_WC_MW_BIND_ERR; LOCAL_INV needs the MR's current key.
 * A failing WR always completes (signaled or not), its QP goes to the
 * error state, and its later send WRs and all its receives complete with
 * IB_WC_WR_FLUSH_ERR.  A successful send WR completes when signaled (or
 * on an IB_SIGNAL_ALL_WR QP).
 *
 * Data moves page by page through the linear map (memmove: a WR may
 * read and write the same memory); integrity MRs go a protection
 * interval at a time through the instance's scratch buffer
 * (rwx_testdev_dif.c).  Completions go into the CQ rings; an armed CQ's
 * handler is called, with bottom halves off as from an interrupt.
 */

#include <linux/mm.h>
#include <linux/slab.h>

#include <rdma/ib_mad.h>

#include "rwx_testdev_internal.h"

/* What a WR does with a local SGE list. */
enum rwx_td_use {
	RWX_TD_SRC,		/* reads it */
	RWX_TD_SINK,		/* writes it: a receive */
	RWX_TD_READ_SINK,	/* writes it: an RDMA READ */
};

/* One WR being executed. */
struct rwx_td_exec {
	struct rwx_testdev *tdev;
	struct rwx_td_qp *qp;
	const struct rwx_td_swqe *swqe;
	u64 byte_len;
};

void rwx_td_kick(struct rwx_testdev *tdev)
{
	queue_work(tdev->wq, &tdev->exec_work);
}

/*
 * The linear-map address of DMA address @dma, or NULL when it has none.
 * With @virt the DMA address is the kernel virtual one (virt_dma).
 */
static u8 *rwx_td_kaddr(u64 dma, bool virt)
{
	phys_addr_t phys = dma;
	void *va;

	if (virt) {
		va = (void *)(uintptr_t)dma;
	} else {
		if ((u64)phys != dma || !pfn_valid(PHYS_PFN(phys)))
			return NULL;
		va = phys_to_virt(phys);
	}
	return virt_addr_valid(va) ? va : NULL;
}

/**
 * rwx_td_cursor_next() - the next contiguous run of a segment list
 * @c: the cursor, advanced past the run
 * @max: bytes wanted at most
 * @len: set to the run's length
 *
 * A run stays within one page of the page list and one page of memory.
 *
 * Return: its kernel address, or NULL at the end of the list or when the
 * memory is not in the linear map.
 */
u8 *rwx_td_cursor_next(struct rwx_td_cursor *c, u64 max, u64 *len)
{
	const struct rwx_td_seg *seg;
	u64 addr, run, dma;
	u8 *p;

	while (c->i < c->nsegs && c->off >= c->segs[c->i].len) {
		c->i++;
		c->off = 0;
	}
	if (c->i == c->nsegs || !max)
		return NULL;

	seg = &c->segs[c->i];
	addr = seg->addr + c->off;
	run = seg->len - c->off;
	if (seg->map) {
		const struct rwx_td_map *map = seg->map;
		u64 x, in, idx;

		if (!map->npages)
			return NULL;
		x = (map->iova & (map->page_size - 1)) + (addr - map->iova);
		idx = x >> ilog2(map->page_size);
		in = x & (map->page_size - 1);
		if (idx >= map->npages)
			return NULL;
		dma = map->pages[idx] + in;
		run = min(run, map->page_size - in);
	} else {
		dma = addr;
	}
	run = min3(run, max, PAGE_SIZE - (dma & ~PAGE_MASK));

	p = rwx_td_kaddr(dma, seg->virt);
	if (!p)
		return NULL;
	c->off += run;
	*len = run;
	return p;
}

/**
 * rwx_td_cursor_copy() - copy between a buffer and a segment list
 * @c: the cursor, advanced past what was copied
 * @buf: the buffer
 * @len: bytes to copy
 * @to_mem: from @buf into the list (else from the list into @buf)
 *
 * Return: 0, or -EFAULT when the list ends early or leaves memory.
 */
int rwx_td_cursor_copy(struct rwx_td_cursor *c, void *buf, u64 len,
		       bool to_mem)
{
	u8 *b = buf, *p;
	u64 n;

	while (len) {
		p = rwx_td_cursor_next(c, len, &n);
		if (!p)
			return -EFAULT;
		if (to_mem)
			memmove(p, b, n);
		else
			memmove(b, p, n);
		b += n;
		len -= n;
	}
	return 0;
}

/**
 * rwx_td_segs_check() - whether every byte of segments is reachable
 * @segs: the segments
 * @nsegs: how many
 *
 * Return: 0, or -EFAULT.
 */
int rwx_td_segs_check(const struct rwx_td_seg *segs, u32 nsegs)
{
	struct rwx_td_cursor c = { .segs = segs, .nsegs = nsegs };
	u64 left = 0, len;
	u32 i;

	for (i = 0; i < nsegs; i++)
		left += segs[i].len;
	while (left) {
		if (!rwx_td_cursor_next(&c, left, &len))
			return -EFAULT;
		left -= len;
	}
	return 0;
}

static int rwx_td_copy(struct rwx_td_cursor *src, struct rwx_td_cursor *dst,
		       u64 len)
{
	u64 n;
	u8 *p;

	while (len) {
		p = rwx_td_cursor_next(src, len, &n);
		if (!p || rwx_td_cursor_copy(dst, p, n, true))
			return -EFAULT;
		len -= n;
	}
	return 0;
}

static void rwx_td_cq_add(struct rwx_td_cq *cq, const struct ib_wc *wc,
			  bool solicited)
{
	struct ib_cq *ibcq = &cq->ibcq;
	bool notify = false, overflow = false;
	unsigned long flags;
	u32 tail;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->size) {
		overflow = true;
	} else {
		tail = cq->head + cq->count;
		if (tail >= cq->size)
			tail -= cq->size;
		cq->ring[tail] = *wc;
		cq->count++;
		if (cq->armed == IB_CQ_NEXT_COMP ||
		    (cq->armed == IB_CQ_SOLICITED &&
		     (solicited || wc->status != IB_WC_SUCCESS))) {
			cq->armed = 0;
			notify = true;
		}
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow) {
		struct ib_event ev = {
			.device = ibcq->device,
			.element.cq = ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		pr_err_ratelimited("%s: CQ overflow, a completion is lost\n",
				   dev_name(&ibcq->device->dev));
		if (ibcq->event_handler)
			ibcq->event_handler(&ev, ibcq->cq_context);
		return;
	}
	if (notify && ibcq->comp_handler) {
		local_bh_disable();
		ibcq->comp_handler(ibcq, ibcq->cq_context);
		local_bh_enable();
	}
}

/* Completes @qp's receives with IB_WC_WR_FLUSH_ERR while it is in error. */
static void rwx_td_flush_rq(struct rwx_td_qp *qp)
{
	struct rwx_td_rwqe *rwqe;
	unsigned long flags;
	struct ib_wc wc;

	for (;;) {
		spin_lock_irqsave(&qp->lock, flags);
		rwqe = NULL;
		if (qp->state == IB_QPS_ERR) {
			rwqe = list_first_entry_or_null(&qp->rq,
							struct rwx_td_rwqe,
							node);
			if (rwqe) {
				list_del(&rwqe->node);
				qp->rq_used--;
			}
		}
		spin_unlock_irqrestore(&qp->lock, flags);
		if (!rwqe)
			return;

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = rwqe->wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.opcode = IB_WC_RECV;
		wc.qp = &qp->ibqp;
		wc.port_num = 1;
		kfree(rwqe);
		rwx_td_cq_add(to_tdcq(qp->ibqp.recv_cq), &wc, false);
	}
}

/* Whether a QP in @state takes incoming traffic. */
static bool rwx_td_state_receives(enum ib_qp_state state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD;
}

/* The peer of @qp if it can take traffic, and its remote access. */
static struct rwx_td_qp *rwx_td_peer(struct rwx_td_qp *qp, int *access)
{
	struct rwx_td_qp *peer;
	unsigned long flags;
	bool ready;
	u32 dest;

	spin_lock_irqsave(&qp->lock, flags);
	dest = qp->dest_qp_num;
	spin_unlock_irqrestore(&qp->lock, flags);

	/* Destroying a QP takes it out, then waits for the executor. */
	peer = xa_load(&qp->tdev->qps, dest);
	if (!peer)
		return NULL;
	spin_lock_irqsave(&peer->lock, flags);
	ready = rwx_td_state_receives(peer->state);
	*access = peer->access_flags;
	spin_unlock_irqrestore(&peer->lock, flags);
	return ready ? peer : NULL;
}

static bool rwx_td_dma_seg(const struct rwx_testdev *tdev, u64 addr, u64 len,
			   struct rwx_td_seg *seg)
{
	if (addr + len < addr)
		return false;
	seg->map = NULL;
	seg->addr = addr;
	seg->len = len;
	seg->virt = tdev->caps.virt_dma;
	return true;
}

/* [@addr, + @len) of a DMA or fast-reg MR, range-checked. */
static bool rwx_td_mr_seg(const struct rwx_td_mr *mr, u64 addr, u64 len,
			  struct rwx_td_seg *seg)
{
	const struct rwx_td_map *reg = &mr->reg;

	switch (mr->kind) {
	case RWX_TD_MR_DMA:
		return rwx_td_dma_seg(mr->tdev, addr, len, seg);
	case RWX_TD_MR_FAST_REG:
		if (addr < reg->iova || len > reg->length ||
		    addr - reg->iova > reg->length - len)
			return false;
		seg->map = reg;
		seg->addr = addr;
		seg->len = len;
		seg->virt = mr->tdev->caps.virt_dma;
		return true;
	default:
		return false;
	}
}

/*
 * A local SGE naming a VALID integrity MR: from its start, as long as
 * rdma_rw_ctx_signature_init() makes it; *@total is the wire image's
 * length, what moves (rwx_testdev_dif.c).
 */
static enum ib_wc_status rwx_td_pi_local(const struct rwx_td_mr *mr,
					 const struct ib_sge *sge, u64 *total)
{
	struct rwx_td_seg data, meta;

	if (sge->addr || sge->length != rwx_td_pi_sge_len(mr))
		return IB_WC_LOC_PROT_ERR;
	rwx_td_pi_segs(mr, &data, &meta);
	if (rwx_td_segs_check(&data, 1) || rwx_td_segs_check(&meta, 1))
		return IB_WC_LOC_PROT_ERR;
	*total = rwx_td_pi_wire_len(&mr->reg_pi);
	return IB_WC_SUCCESS;
}

static enum ib_wc_status rwx_td_local_sge(struct rwx_td_qp *qp,
					  const struct ib_sge *sge,
					  enum rwx_td_use use,
					  struct rwx_td_seg *seg,
					  struct rwx_td_mr **pi_mr)
{
	bool iwarp_sink = use == RWX_TD_READ_SINK && qp->tdev->caps.iwarp;
	struct rwx_td_mr *mr;

	if (sge->lkey == RWX_TD_LOCAL_DMA_LKEY) {
		/* iWARP writes a READ's data under an rkey of the sink. */
		if (iwarp_sink)
			return IB_WC_LOC_PROT_ERR;
		return rwx_td_dma_seg(qp->tdev, sge->addr, sge->length, seg) ?
		       IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
	}

	mr = rwx_td_mr_lookup(qp->tdev, sge->lkey);
	if (!mr || !mr->valid || mr->key != sge->lkey ||
	    mr->ibmr.pd != qp->ibqp.pd)
		return IB_WC_LOC_PROT_ERR;
	if (use != RWX_TD_SRC && !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return IB_WC_LOC_PROT_ERR;
	if (iwarp_sink && !(mr->access & IB_ACCESS_REMOTE_WRITE))
		return IB_WC_LOC_PROT_ERR;
	if (mr->kind == RWX_TD_MR_INTEGRITY) {
		*pi_mr = mr;
		return IB_WC_SUCCESS;
	}
	return rwx_td_mr_seg(mr, sge->addr, sge->length, seg) ?
	       IB_WC_SUCCESS : IB_WC_LOC_PROT_ERR;
}

/*
 * Resolves a local SGE list into @segs (or *@pi_mr, when it names an
 * integrity MR, which must then be its only SGE) and checks every byte.
 */
static enum ib_wc_status rwx_td_local_segs(struct rwx_td_qp *qp,
					   const struct ib_sge *sge,
					   int num_sge, enum rwx_td_use use,
					   struct rwx_td_seg *segs, u64 *total,
					   struct rwx_td_mr **pi_mr)
{
	enum ib_wc_status st;
	int i;

	*total = 0;
	*pi_mr = NULL;
	for (i = 0; i < num_sge; i++) {
		st = rwx_td_local_sge(qp, &sge[i], use, &segs[i], pi_mr);
		if (st)
			return st;
		if (*pi_mr) {
			if (num_sge != 1 || use == RWX_TD_SINK)
				return IB_WC_LOC_PROT_ERR;
			return rwx_td_pi_local(*pi_mr, &sge[0], total);
		}
		*total += sge[i].length;
	}
	if (rwx_td_segs_check(segs, num_sge))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

/*
 * The peer's memory that @rkey names, checked as @access requires: a range
 * of a DMA or fast-reg MR into @seg, or a VALID integrity MR (*@pi_mr),
 * whose whole wire image, from 0, @len must be.
 */
static bool rwx_td_remote_seg(struct rwx_td_qp *peer, int peer_access,
			      u32 rkey, u64 addr, u64 len, int access,
			      struct rwx_td_seg *seg, struct rwx_td_mr **pi_mr)
{
	struct rwx_td_mr *mr;

	*pi_mr = NULL;
	mr = rwx_td_mr_lookup(peer->tdev, rkey);
	if (!mr || !mr->valid || mr->key != rkey ||
	    mr->ibmr.pd != peer->ibqp.pd)
		return false;
	if (!(mr->access & access) || !(peer_access & access))
		return false;
	if (mr->kind == RWX_TD_MR_INTEGRITY) {
		*pi_mr = mr;
		return !addr && len == rwx_td_pi_wire_len(&mr->reg_pi);
	}
	return rwx_td_mr_seg(mr, addr, len, seg) && !rwx_td_segs_check(seg, 1);
}

/*
 * @len bytes from @src to @dst, through the integrity MRs on either side
 * where there are (then the wire image of @len bytes).
 */
static int rwx_td_move(struct rwx_testdev *tdev, struct rwx_td_mr *src_mr,
		       struct rwx_td_cursor *src, struct rwx_td_mr *dst_mr,
		       struct rwx_td_cursor *dst, u64 len)
{
	if (src_mr || dst_mr)
		return rwx_td_pi_move(tdev, src_mr, src, dst_mr, dst);
	return rwx_td_copy(src, dst, len);
}

/* Invalidates the fast-reg or integrity MR @key names in @pd. */
static bool rwx_td_invalidate(struct rwx_testdev *tdev, struct ib_pd *pd,
			      u32 key)
{
	struct rwx_td_mr *mr = rwx_td_mr_lookup(tdev, key);

	if (!mr || mr->kind == RWX_TD_MR_DMA || mr->key != key ||
	    mr->ibmr.pd != pd)
		return false;
	rwx_td_mr_set_valid(mr, false);
	return true;
}

static struct rwx_td_rwqe *rwx_td_take_recv(struct rwx_td_qp *peer)
{
	struct rwx_td_rwqe *rwqe;
	unsigned long flags;

	spin_lock_irqsave(&peer->lock, flags);
	rwqe = list_first_entry_or_null(&peer->rq, struct rwx_td_rwqe, node);
	if (rwqe) {
		list_del(&rwqe->node);
		peer->rq_used--;
	}
	spin_unlock_irqrestore(&peer->lock, flags);
	return rwqe;
}

/* Completes a receive of @peer (consuming @rwqe) sent by @ex's WR. */
static void rwx_td_recv_done(struct rwx_td_exec *ex, struct rwx_td_qp *peer,
			     struct rwx_td_rwqe *rwqe, enum ib_wc_status st)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct ib_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rwqe->wr_id;
	wc.status = st;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = ex->byte_len;
	wc.qp = &peer->ibqp;
	wc.src_qp = ex->qp->ibqp.qp_num;
	wc.port_num = 1;
	if (peer->type == IB_QPT_GSI)
		rwx_td_roce_wc(&wc, &swqe->ud_sgid);
	switch (swqe->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		fallthrough;
	case IB_WR_SEND_WITH_IMM:
		wc.wc_flags = IB_WC_WITH_IMM;
		wc.ex.imm_data = (__force __be32)swqe->ex;
		break;
	case IB_WR_SEND_WITH_INV:
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = swqe->ex;
		break;
	default:
		break;
	}
	kfree(rwqe);

	if (st != IB_WC_SUCCESS)
		rwx_td_qp_set_error(peer);
	rwx_td_cq_add(to_tdcq(peer->ibqp.recv_cq), &wc,
		      swqe->send_flags & IB_SEND_SOLICITED);
	if (st != IB_WC_SUCCESS)
		rwx_td_flush_rq(peer);
}

static enum ib_wc_status rwx_td_do_write(struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct rwx_testdev *tdev = ex->tdev;
	struct rwx_td_cursor src = { .segs = tdev->src_segs };
	struct rwx_td_cursor dst = { .segs = tdev->dst_segs, .nsegs = 1 };
	struct rwx_td_rwqe *rwqe;
	enum ib_wc_status st;
	struct rwx_td_mr *pi_mr, *remote_pi_mr;
	struct rwx_td_qp *peer;
	int peer_access;
	u64 total;

	st = rwx_td_local_segs(ex->qp, swqe->sge, swqe->num_sge, RWX_TD_SRC,
			       tdev->src_segs, &total, &pi_mr);
	if (st)
		return st;
	src.nsegs = swqe->num_sge;
	peer = rwx_td_peer(ex->qp, &peer_access);
	if (!peer)
		return IB_WC_RETRY_EXC_ERR;
	if (!rwx_td_remote_seg(peer, peer_access, swqe->rkey, swqe->remote_addr,
			       total, IB_ACCESS_REMOTE_WRITE, tdev->dst_segs,
			       &remote_pi_mr))
		return IB_WC_REM_ACCESS_ERR;

	if (rwx_td_move(tdev, pi_mr, &src, remote_pi_mr, &dst, total))
		return IB_WC_LOC_PROT_ERR;
	ex->byte_len = total;

	if (swqe->opcode != IB_WR_RDMA_WRITE_WITH_IMM)
		return IB_WC_SUCCESS;
	rwqe = rwx_td_take_recv(peer);
	if (!rwqe)
		return IB_WC_RNR_RETRY_EXC_ERR;
	rwx_td_recv_done(ex, peer, rwqe, IB_WC_SUCCESS);
	return IB_WC_SUCCESS;
}

static enum ib_wc_status rwx_td_do_read(struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct rwx_testdev *tdev = ex->tdev;
	struct rwx_td_cursor src = { .segs = tdev->src_segs, .nsegs = 1 };
	struct rwx_td_cursor dst = { .segs = tdev->dst_segs };
	struct rwx_td_mr *pi_mr, *remote_pi_mr;
	enum ib_wc_status st;
	struct rwx_td_qp *peer;
	int peer_access;
	u64 total;

	if (swqe->opcode == IB_WR_RDMA_READ_WITH_INV && !tdev->caps.iwarp)
		return IB_WC_LOC_QP_OP_ERR;

	st = rwx_td_local_segs(ex->qp, swqe->sge, swqe->num_sge,
			       RWX_TD_READ_SINK, tdev->dst_segs, &total,
			       &pi_mr);
	if (st)
		return st;
	dst.nsegs = swqe->num_sge;
	peer = rwx_td_peer(ex->qp, &peer_access);
	if (!peer)
		return IB_WC_RETRY_EXC_ERR;
	if (!rwx_td_remote_seg(peer, peer_access, swqe->rkey, swqe->remote_addr,
			       total, IB_ACCESS_REMOTE_READ, tdev->src_segs,
			       &remote_pi_mr))
		return IB_WC_REM_ACCESS_ERR;

	if (rwx_td_move(tdev, remote_pi_mr, &src, pi_mr, &dst, total))
		return IB_WC_LOC_PROT_ERR;
	ex->byte_len = total;

	/*
	 * siw, cxgb4 and irdma retire the sink's key (sg_list[0].lkey), not
	 * ex.invalidate_rkey: ib_core's rw.c names the key from init there,
	 * one behind the key it registers (Documentation/takeover.rst, D10).
	 */
	if (swqe->opcode == IB_WR_RDMA_READ_WITH_INV &&
	    (!swqe->num_sge ||
	     !rwx_td_invalidate(tdev, ex->qp->ibqp.pd, swqe->sge[0].lkey)))
		return IB_WC_LOC_PROT_ERR;
	return IB_WC_SUCCESS;
}

/* The data a send WR of @ex's carries: its SGEs, no integrity MR. */
static enum ib_wc_status rwx_td_send_src(struct rwx_td_exec *ex,
					 struct rwx_td_cursor *src, u64 *total)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct rwx_td_mr *pi_mr;
	enum ib_wc_status st;

	st = rwx_td_local_segs(ex->qp, swqe->sge, swqe->num_sge, RWX_TD_SRC,
			       ex->tdev->src_segs, total, &pi_mr);
	if (st)
		return st;
	if (pi_mr)
		return IB_WC_LOC_PROT_ERR;
	*src = (struct rwx_td_cursor){ .segs = ex->tdev->src_segs,
				       .nsegs = swqe->num_sge };
	return IB_WC_SUCCESS;
}

static enum ib_wc_status rwx_td_do_send(struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct rwx_testdev *tdev = ex->tdev;
	struct rwx_td_cursor dst = { .segs = tdev->dst_segs };
	struct rwx_td_cursor src;
	struct rwx_td_rwqe *rwqe;
	struct rwx_td_qp *peer;
	struct rwx_td_mr *pi_mr;
	enum ib_wc_status st;
	u64 total, room;
	int peer_access;

	st = rwx_td_send_src(ex, &src, &total);
	if (st)
		return st;
	peer = rwx_td_peer(ex->qp, &peer_access);
	if (!peer)
		return IB_WC_RETRY_EXC_ERR;
	rwqe = rwx_td_take_recv(peer);
	if (!rwqe)
		return IB_WC_RNR_RETRY_EXC_ERR;
	ex->byte_len = total;

	/* The receiver's failures: its receive and the sender's WR fail. */
	st = rwx_td_local_segs(peer, rwqe->sge, rwqe->num_sge, RWX_TD_SINK,
			       tdev->dst_segs, &room, &pi_mr);
	if (st) {
		rwx_td_recv_done(ex, peer, rwqe, st);
		return IB_WC_REM_OP_ERR;
	}
	if (total > room) {
		rwx_td_recv_done(ex, peer, rwqe, IB_WC_LOC_LEN_ERR);
		return IB_WC_REM_INV_REQ_ERR;
	}
	if (swqe->opcode == IB_WR_SEND_WITH_INV &&
	    !rwx_td_invalidate(tdev, peer->ibqp.pd, swqe->ex)) {
		rwx_td_recv_done(ex, peer, rwqe, IB_WC_LOC_PROT_ERR);
		return IB_WC_REM_OP_ERR;
	}
	dst.nsegs = rwqe->num_sge;
	if (rwx_td_copy(&src, &dst, total)) {
		rwx_td_recv_done(ex, peer, rwqe, IB_WC_LOC_PROT_ERR);
		return IB_WC_LOC_PROT_ERR;
	}
	rwx_td_recv_done(ex, peer, rwqe, IB_WC_SUCCESS);
	return IB_WC_SUCCESS;
}

/*
 * The QP a datagram of @ex's goes to: a GSI QP of this instance that is
 * ready, with the Q_Key the datagram carries (the sending QP's own when
 * the WR's has its high bit set, as ib_mad's do); NULL when none (it is
 * dropped).
 */
static struct rwx_td_qp *rwx_td_ud_peer(const struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	u32 qkey = swqe->ud_qkey;
	struct rwx_td_qp *peer;
	unsigned long flags;
	bool ready;

	if (!rwx_td_roce_gid_is_ours(ex->tdev, &swqe->ud_dgid))
		return NULL;
	if (qkey & IB_QP_SET_QKEY) {
		spin_lock_irqsave(&ex->qp->lock, flags);
		qkey = ex->qp->qkey;
		spin_unlock_irqrestore(&ex->qp->lock, flags);
	}
	peer = xa_load(&ex->tdev->qps, swqe->ud_qpn);
	if (!peer || peer->type != IB_QPT_GSI)
		return NULL;
	spin_lock_irqsave(&peer->lock, flags);
	ready = rwx_td_state_receives(peer->state) && peer->qkey == qkey;
	spin_unlock_irqrestore(&peer->lock, flags);
	return ready ? peer : NULL;
}

/*
 * A datagram from the GSI QP: the receiver's buffer gets the network
 * header, then the payload.  Delivered or dropped, the send succeeds, as
 * on a wire; a receive too small for it fails the receive alone.
 */
static enum ib_wc_status rwx_td_do_ud_send(struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	struct rwx_testdev *tdev = ex->tdev;
	struct rwx_td_cursor dst = { .segs = tdev->dst_segs };
	union rdma_network_hdr hdr;
	struct rwx_td_cursor src;
	struct rwx_td_rwqe *rwqe;
	struct rwx_td_qp *peer;
	struct rwx_td_mr *pi_mr;
	enum ib_wc_status st;
	u64 total, room;

	st = rwx_td_send_src(ex, &src, &total);
	if (st)
		return st;
	ex->byte_len = total;
	peer = rwx_td_ud_peer(ex);
	rwqe = peer ? rwx_td_take_recv(peer) : NULL;
	if (!rwqe)
		return IB_WC_SUCCESS;

	st = rwx_td_local_segs(peer, rwqe->sge, rwqe->num_sge, RWX_TD_SINK,
			       tdev->dst_segs, &room, &pi_mr);
	if (!st && total + sizeof(hdr) > room)
		st = IB_WC_LOC_LEN_ERR;
	if (!st) {
		dst.nsegs = rwqe->num_sge;
		rwx_td_roce_hdr(&hdr, &swqe->ud_sgid, &swqe->ud_dgid, total);
		if (rwx_td_cursor_copy(&dst, &hdr, sizeof(hdr), true) ||
		    rwx_td_copy(&src, &dst, total))
			st = IB_WC_LOC_PROT_ERR;
	}
	rwx_td_recv_done(ex, peer, rwqe, st);
	return IB_WC_SUCCESS;
}

static enum ib_wc_status rwx_td_do_reg(struct rwx_td_exec *ex)
{
	const struct rwx_td_swqe *swqe = ex->swqe;
	enum rwx_td_mr_kind kind = swqe->opcode == IB_WR_REG_MR ?
				   RWX_TD_MR_FAST_REG : RWX_TD_MR_INTEGRITY;
	struct rwx_td_mr *mr;
	struct ib_mr *ibmr;

	mr = xa_load(&ex->tdev->mrs, swqe->reg_index);
	if (!mr || mr->kind != kind)
		return IB_WC_MW_BIND_ERR;
	ibmr = &mr->ibmr;
	if (ibmr->pd != ex->qp->ibqp.pd)
		return IB_WC_LOC_PROT_ERR;
	/* Registering needs a FREE MR, and a key of this MR. */
	if (mr->valid || RWX_TD_KEY_INDEX(swqe->reg_key) != mr->index)
		return IB_WC_MW_BIND_ERR;

	if (kind == RWX_TD_MR_FAST_REG) {
		rwx_td_map_copy(&mr->reg, &mr->map);
		/* What the MR says when the WR runs, as hardware reads it. */
		mr->reg.iova = ibmr->iova;
		mr->reg.length = ibmr->length;
		mr->reg.page_size = ibmr->page_size;
	} else {
		rwx_td_map_copy(&mr->reg, &mr->map);
		rwx_td_map_copy(&mr->reg_meta, &mr->meta_map);
		mr->reg_sig = *ibmr->sig_attrs;
		if (rwx_td_pi_layout(&mr->reg_sig, mr->reg.length,
				     mr->reg_meta.npages != 0,
				     mr->reg_meta.length,
				     &mr->reg_pi))
			return IB_WC_MW_BIND_ERR;
	}
	mr->key = swqe->reg_key;
	mr->access = swqe->reg_access;
	rwx_td_mr_set_valid(mr, true);
	return IB_WC_SUCCESS;
}

static enum ib_wc_status rwx_td_execute(struct rwx_td_exec *ex)
{
	switch (ex->swqe->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return rwx_td_do_write(ex);
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return rwx_td_do_read(ex);
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		if (ex->qp->type == IB_QPT_GSI)
			return rwx_td_do_ud_send(ex);
		return rwx_td_do_send(ex);
	case IB_WR_LOCAL_INV:
		if (!rwx_td_invalidate(ex->tdev, ex->qp->ibqp.pd, ex->swqe->ex))
			return IB_WC_LOC_PROT_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:
		return rwx_td_do_reg(ex);
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
}

static enum ib_wc_opcode rwx_td_wc_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
	case IB_WR_RDMA_READ_WITH_INV:
		return IB_WC_RDMA_READ;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

static void rwx_td_exec_swqe(struct rwx_testdev *tdev,
			     const struct rwx_td_swqe *swqe)
{
	struct rwx_td_qp *qp = swqe->qp;
	struct rwx_td_exec ex = { .tdev = tdev, .qp = qp, .swqe = swqe };
	enum ib_qp_state state;
	enum ib_wc_status st;
	unsigned long flags;
	bool failed, completes;
	struct ib_wc wc;

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (state == IB_QPS_RESET)	/* reset or destroyed since */
		st = IB_WC_WR_FLUSH_ERR;
	else if (state == IB_QPS_ERR)
		st = IB_WC_WR_FLUSH_ERR;
	else if (rwx_td_fault(tdev, RWX_TESTDEV_FAULT_WR_ERROR, qp->ibqp.pd))
		st = IB_WC_GENERAL_ERR;
	else
		st = rwx_td_execute(&ex);
	failed = st != IB_WC_SUCCESS && st != IB_WC_WR_FLUSH_ERR;
	completes = st != IB_WC_SUCCESS ||
		    (swqe->send_flags & IB_SEND_SIGNALED) || qp->sig_all;

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	if (state != IB_QPS_RESET) {	/* else reset freed the slots */
		if (completes) {
			qp->sq_used -= qp->sq_unsignaled + 1;
			qp->sq_unsignaled = 0;
		} else {
			qp->sq_unsignaled++;
		}
	}
	if (failed && state != IB_QPS_RESET)
		qp->state = IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (state == IB_QPS_RESET || !completes)
		return;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = swqe->wr_id;
	wc.status = st;
	wc.opcode = rwx_td_wc_opcode(swqe->opcode);
	wc.byte_len = ex.byte_len;
	wc.qp = &qp->ibqp;
	wc.port_num = 1;
	rwx_td_cq_add(to_tdcq(qp->ibqp.send_cq), &wc, false);
	if (failed)
		rwx_td_flush_rq(qp);
}

/**
 * rwx_td_exec_work() - the executor
 * @work: the instance's exec_work
 *
 * Runs the pending send WRs in post order, then flushes the receive
 * queues of QPs in the error state.
 */
void rwx_td_exec_work(struct work_struct *work)
{
	struct rwx_testdev *tdev = container_of(work, struct rwx_testdev,
						exec_work);
	struct rwx_td_swqe *swqe;
	struct rwx_td_qp *qp;
	unsigned long flags;
	unsigned long qpn;

	for (;;) {
		spin_lock_irqsave(&tdev->sq_lock, flags);
		swqe = list_first_entry_or_null(&tdev->sq_pending,
						struct rwx_td_swqe, node);
		if (swqe)
			list_del(&swqe->node);
		spin_unlock_irqrestore(&tdev->sq_lock, flags);
		if (!swqe)
			break;
		rwx_td_exec_swqe(tdev, swqe);
		kfree(swqe);
		cond_resched();
	}

	xa_for_each(&tdev->qps, qpn, qp)
		rwx_td_flush_rq(qp);
}
