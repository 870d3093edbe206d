/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rwx_testdev internals: the objects of an instance and what the files of
 * the module share.  See rwx_testdev_main.c for the overview.
 */
#ifndef _RWX_TESTDEV_INTERNAL_H
#define _RWX_TESTDEV_INTERNAL_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/signature.h>

#include "rwx_testdev.h"

struct uverbs_attr_bundle;

/* Key = MR index << 8 | variant; index 0 holds the local DMA lkey only. */
#define RWX_TD_KEY_SHIFT	8
#define RWX_TD_KEY_INDEX(key)	((key) >> RWX_TD_KEY_SHIFT)
#define RWX_TD_MR_INDEX_MAX	0xffffff
#define RWX_TD_LOCAL_DMA_LKEY	0x000000d1

/* Defaults for zero capability fields, and fixed limits. */
#define RWX_TD_DEF_SGE		32
#define RWX_TD_DEF_PAGES	256
#define RWX_TD_DEF_QP_WR	4096
#define RWX_TD_DEF_MR		4096
#define RWX_TD_MAX_OBJ		4096	/* PDs, CQs, QPs */
#define RWX_TD_MAX_CQE		65536
#define RWX_TD_RD_ATOM		16
#define RWX_TD_GSI_QPN		1
#define RWX_TD_GSI_SGES		2	/* a GSI QP's SGEs, at least */
#define RWX_TD_FIRST_QPN	2	/* 0 and 1 are the special QPs */
#define RWX_TD_ROCE_GIDS	16	/* GID table entries of a RoCE port */
#define RWX_TD_MAX_QPN		0xffffff

#define RWX_TD_PI_SIZE		8	/* one T10-DIF tuple */
#define RWX_TD_MAX_INTERVAL	4096

/**
 * struct rwx_td_map - a page list, as ib_sg_to_pages() leaves it
 * @iova: first byte
 * @length: bytes mapped
 * @page_size: size of each page
 * @npages: pages in @pages
 * @max_pages: room in @pages
 * @pages: DMA addresses of the pages, each aligned to @page_size
 */
struct rwx_td_map {
	u64 iova;
	u64 length;
	u32 page_size;
	u32 npages;
	u32 max_pages;
	u64 *pages;
};

/**
 * struct rwx_td_pi_layout - how an integrity MR's bytes are laid out
 * @interval: bytes of data per protection interval (512 or 4096)
 * @nblocks: protection intervals mapped
 * @mem_pi: the memory domain is T10-DIF
 * @wire_pi: the wire domain is T10-DIF
 * @interleaved: memory PI follows each interval in the data list
 * @data_len: data bytes (@nblocks * @interval)
 * @meta_length: PI bytes of the protected region (@nblocks * 8 when a
 *	domain is T10-DIF, else 0)
 */
struct rwx_td_pi_layout {
	u32 interval;
	u32 nblocks;
	bool mem_pi;
	bool wire_pi;
	bool interleaved;
	u64 data_len;
	u64 meta_length;
};

enum rwx_td_mr_kind {
	RWX_TD_MR_DMA,
	RWX_TD_MR_FAST_REG,
	RWX_TD_MR_INTEGRITY,
};

/**
 * struct rwx_td_mr - a memory region
 * @ibmr: the verbs object
 * @tdev: its instance
 * @kind: DMA, fast registration or integrity
 * @index: its slot in the instance's MR table (the key's upper 24 bits)
 * @map: the data page list map_mr_sg{,_pi} built (ULP context)
 * @meta_map: the protection page list map_mr_sg_pi built
 * @fill: the list set_page is filling
 * @valid: VALID state (executor; DMA MRs always)
 * @key: the current key (executor)
 * @access: access flags of the registration, or of a DMA MR
 * @reg: the data page list the registration took (executor)
 * @reg_meta: the protection page list the registration took (executor)
 * @reg_sig: the signature attributes the registration took (executor)
 * @reg_pi: their layout (executor)
 * @lock: protects @sig_err_set, @sig_err and @sig_status_read
 * @sig_err_set: a signature error is waiting for check_mr_status
 * @sig_err: the first signature error since the last check
 * @sig_status_read: check_mr_status ran since the last REG_MR_INTEGRITY
 *	was posted; as on mlx5, another one is refused at post until it has
 */
struct rwx_td_mr {
	struct ib_mr ibmr;
	struct rwx_testdev *tdev;
	enum rwx_td_mr_kind kind;
	u32 index;
	struct rwx_td_map map;
	struct rwx_td_map meta_map;
	struct rwx_td_map *fill;
	bool valid;
	u32 key;
	int access;
	struct rwx_td_map reg;
	struct rwx_td_map reg_meta;
	struct ib_sig_attrs reg_sig;
	struct rwx_td_pi_layout reg_pi;
	spinlock_t lock;		/* sig_err_set, sig_err */
	bool sig_err_set;
	struct ib_sig_err sig_err;
	bool sig_status_read;
};

/**
 * struct rwx_td_pd - a protection domain
 * @ibpd: the verbs object
 */
struct rwx_td_pd {
	struct ib_pd ibpd;
};

/**
 * struct rwx_td_cq - a completion queue: a ring of work completions
 * @ibcq: the verbs object
 * @lock: protects everything below
 * @ring: @size entries
 * @size: entries in @ring
 * @head: the oldest entry
 * @count: entries held
 * @armed: 0, IB_CQ_SOLICITED or IB_CQ_NEXT_COMP
 */
struct rwx_td_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* the ring, armed */
	struct ib_wc *ring;
	u32 size;
	u32 head;
	u32 count;
	u32 armed;
};

/**
 * struct rwx_td_qp - a queue pair: RC, or a RoCE port's GSI QP
 * @ibqp: the verbs object
 * @tdev: its instance
 * @type: IB_QPT_RC or IB_QPT_GSI
 * @lock: protects the state, the counters and the receive queue
 * @state: its state
 * @qkey: GSI QP: the Q_Key datagrams to it must carry
 * @integrity: created with IB_QP_CREATE_INTEGRITY_EN
 * @sig_all: IB_SIGNAL_ALL_WR
 * @cap: its queue sizes
 * @dest_qp_num: the peer, from RTR on
 * @access_flags: remote access the QP allows
 * @port_num: its port
 * @pkey_index: its P_Key index
 * @path_mtu: path MTU
 * @max_rd_atomic: outstanding RDMA READs as requester
 * @max_dest_rd_atomic: outstanding RDMA READs as responder
 * @min_rnr_timer: RNR NAK timer
 * @timeout: local ACK timeout
 * @retry_cnt: retry count
 * @rnr_retry: RNR retry count
 * @sq_psn: send PSN
 * @rq_psn: receive PSN
 * @sq_used: send queue slots in use: WRs posted and not yet executed,
 *	and executed ones no completion has covered yet
 * @sq_unsignaled: executed unsignaled WRs whose slots wait for the next
 *	completion of the QP (as on hardware, which frees send queue
 *	slots only as completions report them)
 * @rq: posted receive WRs (struct rwx_td_rwqe), oldest first
 * @rq_used: entries in @rq
 * @iw_conn: iWARP: its connection (rwx_testdev_iwcm.c), if any
 * @iw_refs: iWARP: iw_cm's references and its own
 * @iw_released: iWARP: @iw_refs reached zero
 */
struct rwx_td_qp {
	struct ib_qp ibqp;
	struct rwx_testdev *tdev;
	enum ib_qp_type type;
	spinlock_t lock;		/* state, counters, rq */
	enum ib_qp_state state;
	u32 qkey;
	bool integrity;
	bool sig_all;
	struct ib_qp_cap cap;
	u32 dest_qp_num;
	int access_flags;
	u32 port_num;
	u16 pkey_index;
	enum ib_mtu path_mtu;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u32 sq_psn;
	u32 rq_psn;
	u32 sq_used;
	u32 sq_unsignaled;
	struct list_head rq;
	u32 rq_used;
	struct rwx_td_iw_conn *iw_conn;
	refcount_t iw_refs;
	struct completion iw_released;
};

/**
 * struct rwx_td_swqe - a send WR, copied at post time
 * @node: in the instance's pending list
 * @qp: the QP it was posted on
 * @wr_id: its wr_id (or wr_cqe)
 * @opcode: its opcode
 * @send_flags: its flags
 * @ex: immediate data or the key to invalidate
 * @remote_addr: RDMA: the remote address
 * @rkey: RDMA: the remote key
 * @reg_index: REG_MR{,_INTEGRITY}: the MR's table index
 * @reg_key: REG_MR{,_INTEGRITY}: the key to register
 * @reg_access: REG_MR{,_INTEGRITY}: the access to register
 * @ud_qpn: GSI QP: the destination QP
 * @ud_qkey: GSI QP: the Q_Key the datagram carries
 * @ud_sgid: GSI QP: its source GID (its address handle's)
 * @ud_dgid: GSI QP: its destination GID
 * @num_sge: entries in @sge
 * @sge: its SGEs
 */
struct rwx_td_swqe {
	struct list_head node;
	struct rwx_td_qp *qp;
	u64 wr_id;
	enum ib_wr_opcode opcode;
	int send_flags;
	u32 ex;
	u64 remote_addr;
	u32 rkey;
	u32 reg_index;
	u32 reg_key;
	int reg_access;
	u32 ud_qpn;
	u32 ud_qkey;
	union ib_gid ud_sgid;
	union ib_gid ud_dgid;
	int num_sge;
	struct ib_sge sge[] __counted_by(num_sge);
};

/* An address handle: the GIDs a datagram sent with it carries. */
struct rwx_td_ah {
	struct ib_ah ibah;
	union ib_gid sgid;
	union ib_gid dgid;
};

/**
 * struct rwx_td_rwqe - a receive WR, copied at post time
 * @node: in its QP's receive queue
 * @wr_id: its wr_id (or wr_cqe)
 * @num_sge: entries in @sge
 * @sge: its SGEs
 */
struct rwx_td_rwqe {
	struct list_head node;
	u64 wr_id;
	int num_sge;
	struct ib_sge sge[] __counted_by(num_sge);
};

/**
 * struct rwx_td_seg - one stretch of memory a WR touches
 * @map: the page list that translates it, or NULL for DMA addresses
 * @addr: its first byte (an iova of @map, or a DMA address)
 * @len: its bytes
 * @virt: its DMA addresses are kernel virtual ones (caps.virt_dma)
 */
struct rwx_td_seg {
	const struct rwx_td_map *map;
	u64 addr;
	u64 len;
	bool virt;
};

/**
 * struct rwx_td_cursor - a position in a list of segments
 * @segs: the segments
 * @nsegs: entries in @segs
 * @i: the current segment
 * @off: the offset in it
 */
struct rwx_td_cursor {
	const struct rwx_td_seg *segs;
	u32 nsegs;
	u32 i;
	u64 off;
};

/**
 * struct rwx_testdev - one instance
 * @ibdev: the registered device (first: ib_alloc_device() wants it so)
 * @caps: its capabilities, defaults filled in
 * @id: a number of its own, for names
 * @pdev: the platform device that is its DMA device
 * @ndev: iWARP and RoCE: the net device the port reports
 * @node: in the module's list of instances
 * @wq: the executor's ordered workqueue
 * @exec_work: the executor
 * @sq_lock: protects @sq_pending
 * @sq_pending: posted send WRs, in post order, not yet executed
 * @qps: QPs by number
 * @mrs: MRs by index
 * @nr_pds: live PDs
 * @nr_cqs: live CQs
 * @nr_qps: live QPs
 * @nr_mrs: live MRs
 * @nr_valid_mrs: fast-reg and integrity MRs in VALID state
 * @nr_ahs: live address handles
 * @iw_lock: protects the iWARP listeners and connections
 * @iw_listeners: iWARP: listening cm_ids (rwx_testdev_iwcm.c)
 * @iw_conns: iWARP: connections from their request until they close
 * @lock: protects the faults and the recording
 * @fault_left: events until each armed fault fires (0: disarmed)
 * @fault_fired: whether each fault fired since it was armed
 * @fault_owner: the module whose PDs each armed fault counts events in
 *	(their restrack kern_name, e.g. "nvmet_rdma"); "" counts all
 * @recording: recording is on
 * @rec_count: WRs posted since recording started
 * @recs: the first RWX_TESTDEV_REC_MAX of them
 * @src_segs: executor scratch: segments read
 * @dst_segs: executor scratch: segments written
 * @max_segs: entries in each
 * @blk: executor scratch: one protection interval and its PI
 */
struct rwx_testdev {
	struct ib_device ibdev;
	struct rwx_testdev_caps caps;
	u32 id;
	struct platform_device *pdev;
	struct net_device *ndev;
	struct list_head node;

	struct workqueue_struct *wq;
	struct work_struct exec_work;
	spinlock_t sq_lock;		/* sq_pending */
	struct list_head sq_pending;

	struct xarray qps;
	struct xarray mrs;
	atomic_t nr_pds;
	atomic_t nr_cqs;
	atomic_t nr_qps;
	atomic_t nr_mrs;
	atomic_t nr_valid_mrs;
	atomic_t nr_ahs;

	struct mutex iw_lock;		/* iw_listeners, iw_conns */
	struct list_head iw_listeners;
	struct list_head iw_conns;

	spinlock_t lock;		/* faults, recording */
	u32 fault_left[RWX_TESTDEV_NR_FAULTS];
	bool fault_fired[RWX_TESTDEV_NR_FAULTS];
	char fault_owner[RWX_TESTDEV_NR_FAULTS][MODULE_NAME_LEN];
	bool recording;
	u32 rec_count;
	struct rwx_testdev_wr_rec *recs;

	struct rwx_td_seg *src_segs;
	struct rwx_td_seg *dst_segs;
	u32 max_segs;
	u8 *blk;
};

static inline struct rwx_testdev *to_tdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct rwx_testdev, ibdev);
}

static inline struct rwx_td_mr *to_tdmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct rwx_td_mr, ibmr);
}

static inline struct rwx_td_cq *to_tdcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct rwx_td_cq, ibcq);
}

static inline struct rwx_td_qp *to_tdqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct rwx_td_qp, ibqp);
}

static inline struct rwx_td_ah *to_tdah(struct ib_ah *ibah)
{
	return container_of(ibah, struct rwx_td_ah, ibah);
}

/* rwx_testdev_main.c */
bool rwx_td_fault(struct rwx_testdev *tdev, enum rwx_testdev_fault fault,
		  const struct ib_pd *pd);

void rwx_td_record(struct rwx_testdev *tdev, struct rwx_td_qp *qp,
		   const struct ib_send_wr *wr);

/* rwx_testdev_dma.c */
int rwx_td_dma_merge(struct device *dev);

/* rwx_testdev_qp.c */
int rwx_td_create_cq_bundle(struct ib_cq *ibcq,
			    const struct ib_cq_init_attr *attr,
			    struct uverbs_attr_bundle *attrs);
int rwx_td_create_cq_udata(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct ib_udata *udata);
int rwx_td_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rwx_td_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int rwx_td_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rwx_td_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		     struct ib_udata *udata);
int rwx_td_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int mask, struct ib_udata *udata);
int rwx_td_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_qp_init_attr *init);
int rwx_td_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int rwx_td_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		     const struct ib_send_wr **bad_wr);
int rwx_td_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
void rwx_td_qp_set_error(struct rwx_td_qp *qp);

/* rwx_testdev_mr.c */
struct ib_mr *rwx_td_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *rwx_td_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 virt_addr, int access,
				 struct ib_udata *udata);
struct ib_mr *rwx_td_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg);
struct ib_mr *rwx_td_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
					u32 max_num_meta_sg);
int rwx_td_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset);
int rwx_td_map_mr_sg_pi(struct ib_mr *ibmr, struct scatterlist *data_sg,
			int data_sg_nents, unsigned int *data_sg_offset,
			struct scatterlist *meta_sg, int meta_sg_nents,
			unsigned int *meta_sg_offset);
int rwx_td_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int rwx_td_check_mr_status(struct ib_mr *ibmr, u32 check_mask,
			   struct ib_mr_status *status);
struct rwx_td_mr *rwx_td_mr_lookup(struct rwx_testdev *tdev, u32 key);
void rwx_td_mr_set_valid(struct rwx_td_mr *mr, bool valid);
void rwx_td_map_copy(struct rwx_td_map *to, const struct rwx_td_map *from);

/* rwx_testdev_roce.c */
enum rdma_link_layer rwx_td_get_link_layer(struct ib_device *ibdev,
					   u32 port_num);
int rwx_td_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		     struct ib_udata *udata);
int rwx_td_destroy_ah(struct ib_ah *ibah, u32 flags);
int rwx_td_check_ud_wr(struct rwx_td_qp *qp, const struct ib_send_wr *wr);
void rwx_td_copy_ud_wr(struct rwx_td_swqe *swqe, const struct ib_send_wr *wr);
bool rwx_td_roce_gid_is_ours(struct rwx_testdev *tdev,
			     const union ib_gid *gid);
void rwx_td_roce_hdr(union rdma_network_hdr *hdr, const union ib_gid *sgid,
		     const union ib_gid *dgid, u64 payload);
void rwx_td_roce_wc(struct ib_wc *wc, const union ib_gid *sgid);

/* rwx_testdev_debugfs.c */
void rwx_td_debugfs_init(void);
void rwx_td_debugfs_exit(void);

/* rwx_testdev_exec.c */
void rwx_td_exec_work(struct work_struct *work);
void rwx_td_kick(struct rwx_testdev *tdev);
u8 *rwx_td_cursor_next(struct rwx_td_cursor *c, u64 max, u64 *len);
int rwx_td_cursor_copy(struct rwx_td_cursor *c, void *buf, u64 len,
		       bool to_mem);
int rwx_td_segs_check(const struct rwx_td_seg *segs, u32 nsegs);

/* rwx_testdev_dif.c */
int rwx_td_pi_layout(const struct ib_sig_attrs *sig, u64 data_list_len,
		     bool meta_list, u64 meta_list_len,
		     struct rwx_td_pi_layout *layout);
u64 rwx_td_pi_wire_len(const struct rwx_td_pi_layout *layout);
u64 rwx_td_pi_sge_len(const struct rwx_td_mr *mr);
int rwx_td_pi_reg_check(const struct rwx_td_mr *mr,
			const struct ib_sig_attrs *sig);
void rwx_td_pi_segs(const struct rwx_td_mr *mr, struct rwx_td_seg *data,
		    struct rwx_td_seg *meta);
int rwx_td_pi_move(struct rwx_testdev *tdev, struct rwx_td_mr *src_mr,
		   struct rwx_td_cursor *src, struct rwx_td_mr *dst_mr,
		   struct rwx_td_cursor *dst);

/* rwx_testdev_iwcm.c: the iWARP connection manager */
struct iw_cm_id;
struct iw_cm_conn_param;
void rwx_td_iw_add_ref(struct ib_qp *ibqp);
void rwx_td_iw_rem_ref(struct ib_qp *ibqp);
struct ib_qp *rwx_td_iw_get_qp(struct ib_device *ibdev, int qpn);
int rwx_td_iw_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int rwx_td_iw_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
int rwx_td_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len);
int rwx_td_iw_create_listen(struct iw_cm_id *cm_id, int backlog);
int rwx_td_iw_destroy_listen(struct iw_cm_id *cm_id);
void rwx_td_iw_close(struct rwx_td_qp *qp);
void rwx_td_iw_exit(struct rwx_testdev *tdev);

#endif /* _RWX_TESTDEV_INTERNAL_H */
