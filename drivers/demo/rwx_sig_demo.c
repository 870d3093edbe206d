// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_sig_demo: one signature (T10-PI) transfer through the engine, on the
 * test device (rwx_testdev), whose integrity MRs do a HCA's T10-DIF work.
 * Data with its protection information in a list of its own goes out by
 * RDMA WRITE and must arrive as the wire format (each 512-byte block
 * followed by its 8 PI bytes), comes back by RDMA READ and must land as
 * data and PI again; then one block is corrupted on the far side, and the
 * READ of it must be reported by ib_check_mr_status() as a bad guard in
 * that block.  Everything happens at load time; loading fails if anything
 * is not as it must be.
 */

#include <linux/crc-t10dif.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/t10-pi.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include <rdma/signature.h>
#include "rwx_loopback.h"
#include "rwx_testdev.h"

#define RWX_SIG_DEMO_BLOCK	512
#define RWX_SIG_DEMO_BLOCKS	32	/* 16 KiB of data */
#define RWX_SIG_DEMO_SEGS	4	/* in 4 pages */
#define RWX_SIG_DEMO_PI		((u32)sizeof(struct t10_pi_tuple))
#define RWX_SIG_DEMO_DATA	(RWX_SIG_DEMO_BLOCK * RWX_SIG_DEMO_BLOCKS)
#define RWX_SIG_DEMO_PROT	(RWX_SIG_DEMO_PI * RWX_SIG_DEMO_BLOCKS)
#define RWX_SIG_DEMO_WIRE	(RWX_SIG_DEMO_DATA + RWX_SIG_DEMO_PROT)
#define RWX_SIG_DEMO_ORDER	3	/* remote memory: 32 KiB */
#define RWX_SIG_DEMO_BAD	7	/* the block corrupted at the end */
#define RWX_SIG_DEMO_REF	1000

static const struct rwx_testdev_caps rwx_sig_demo_caps = {
	.integrity = true,
	.max_send_sge = 4,
	.max_sge_rd = 4,
	.max_pi_fast_reg_page_list_len = 16,
};

struct rwx_sig_demo {
	struct rwx_testdev *tdev;
	struct rwx_loopback conn;
	struct ib_sig_attrs attrs;
	struct scatterlist data_sg[RWX_SIG_DEMO_SEGS];
	struct scatterlist prot_sg[1];
	u8 *data, *prot, *remote, *want;
	u64 remote_dma;
};

static void rwx_sig_demo_domain(struct ib_sig_domain *domain)
{
	domain->sig_type = IB_SIG_TYPE_T10_DIF;
	domain->sig.dif.bg_type = IB_T10DIF_CRC;
	domain->sig.dif.pi_interval = RWX_SIG_DEMO_BLOCK;
	domain->sig.dif.app_tag = 0x0042;
	domain->sig.dif.ref_tag = RWX_SIG_DEMO_REF;
	domain->sig.dif.ref_remap = true;
	domain->sig.dif.apptag_check_mask = 0xffff;
}

static void rwx_sig_demo_tuple(const u8 *block, u32 i, struct t10_pi_tuple *pi)
{
	pi->guard_tag = cpu_to_be16(crc_t10dif(block, RWX_SIG_DEMO_BLOCK));
	pi->app_tag = cpu_to_be16(0x0042);
	pi->ref_tag = cpu_to_be32(RWX_SIG_DEMO_REF + i);
}

static u8 rwx_sig_demo_byte(u32 pos)
{
	return pos * 13 + (pos >> 9);
}

/* Whether memory holds the data and its PI, as a READ must leave it. */
static bool rwx_sig_demo_check_local(struct rwx_sig_demo *demo)
{
	struct t10_pi_tuple pi;
	u32 i;

	for (i = 0; i < RWX_SIG_DEMO_DATA; i++)
		if (demo->data[i] != rwx_sig_demo_byte(i))
			return false;
	for (i = 0; i < RWX_SIG_DEMO_BLOCKS; i++) {
		rwx_sig_demo_tuple(demo->data + i * RWX_SIG_DEMO_BLOCK, i, &pi);
		if (memcmp(&pi, demo->prot + i * RWX_SIG_DEMO_PI, sizeof(pi)))
			return false;
	}
	return true;
}

/* Data with its PI in memory, and the wire image it must become. */
static void rwx_sig_demo_fill(struct rwx_sig_demo *demo)
{
	u8 *wire = demo->want;
	u32 i, j;

	for (i = 0; i < RWX_SIG_DEMO_DATA; i++)
		demo->data[i] = rwx_sig_demo_byte(i);
	for (i = 0; i < RWX_SIG_DEMO_BLOCKS; i++) {
		const u8 *block = demo->data + i * RWX_SIG_DEMO_BLOCK;
		struct t10_pi_tuple *pi = (struct t10_pi_tuple *)demo->prot + i;

		rwx_sig_demo_tuple(block, i, pi);
		for (j = 0; j < RWX_SIG_DEMO_BLOCK; j++)
			*wire++ = block[j];
		memcpy(wire, pi, RWX_SIG_DEMO_PI);
		wire += RWX_SIG_DEMO_PI;
	}
}

/* One signature context: init, post, wait, check the MR, destroy. */
static int rwx_sig_demo_transfer(struct rwx_sig_demo *demo,
				 enum dma_data_direction dir, int *nr_wrs,
				 struct ib_mr_status *st)
{
	struct ib_qp *qp = demo->conn.qp[RWX_CLIENT];
	struct rwx_loopback_wait wait;
	struct rdma_rw_ctx ctx;
	int ret;

	*nr_wrs = rdma_rwx_ctx_signature_init(&ctx, qp, 1, demo->data_sg,
					      RWX_SIG_DEMO_SEGS, demo->prot_sg,
					      1, &demo->attrs, demo->remote_dma,
					      demo->conn.pd->unsafe_global_rkey,
					      dir);
	if (*nr_wrs < 0)
		return *nr_wrs;
	rwx_loopback_wait_init(&wait);
	ret = rdma_rwx_ctx_post(&ctx, qp, 1, &wait.cqe, NULL);
	if (!ret)
		ret = rwx_loopback_wait_for(&wait);
	if (ret == -ETIMEDOUT)
		return ret;	/* the WRs may still run: tearing down stops them */
	if (!ret)
		ret = ib_check_mr_status(ctx.reg->mr, IB_MR_CHECK_SIG_STATUS, st);
	rdma_rwx_ctx_destroy_signature(&ctx, qp, 1, demo->data_sg,
				       RWX_SIG_DEMO_SEGS, demo->prot_sg, 1, dir);
	return ret;
}

/* A chain of three starts by invalidating the MR's last registration. */
static const char *rwx_sig_demo_inv(int nr_wrs)
{
	return nr_wrs == 3 ? "LOCAL_INV + " : "";
}

static const char *rwx_sig_demo_err(enum ib_sig_err_type type)
{
	switch (type) {
	case IB_SIG_BAD_GUARD:
		return "bad guard";
	case IB_SIG_BAD_REFTAG:
		return "bad reference tag";
	default:
		return "bad application tag";
	}
}

static int rwx_sig_demo_run(struct rwx_sig_demo *demo)
{
	const char *dev = dev_name(&demo->conn.device->dev);
	struct ib_mr_status st;
	u8 *block;
	int ret, nr;
	bool ok;

	/* WRITE: memory (data + PI list) to the interleaved wire format. */
	rwx_sig_demo_fill(demo);
	memset(demo->remote, 0, RWX_SIG_DEMO_WIRE);
	ret = rwx_sig_demo_transfer(demo, DMA_TO_DEVICE, &nr, &st);
	if (ret)
		return ret;
	ok = !memcmp(demo->remote, demo->want, RWX_SIG_DEMO_WIRE) &&
	     !st.fail_status;
	pr_info("rwx_sig_demo: %s WRITE, T10-DIF CRC in memory and on the wire, %u B blocks: %u data + %u PI bytes from %u segments and a PI list -> %u wire bytes, %d WRs (%sREG_MR_INTEGRITY + RDMA WRITE); wire image %s, PI checks %s\n",
		dev, RWX_SIG_DEMO_BLOCK, RWX_SIG_DEMO_DATA, RWX_SIG_DEMO_PROT,
		RWX_SIG_DEMO_SEGS, RWX_SIG_DEMO_WIRE, nr, rwx_sig_demo_inv(nr),
		ok ? "verified" : "MISMATCH",
		st.fail_status ? "FAILED" : "passed");
	if (!ok)
		return -EIO;

	/* READ: the wire format back into zeroed memory, data and PI. */
	memset(demo->data, 0, RWX_SIG_DEMO_DATA);
	memset(demo->prot, 0, RWX_SIG_DEMO_PROT);
	ret = rwx_sig_demo_transfer(demo, DMA_FROM_DEVICE, &nr, &st);
	if (ret)
		return ret;
	ok = rwx_sig_demo_check_local(demo) && !st.fail_status;
	pr_info("rwx_sig_demo: %s READ: %u wire bytes -> data and PI in memory, %d WRs (%sREG_MR_INTEGRITY + RDMA READ); data and PI %s, PI checks %s\n",
		dev, RWX_SIG_DEMO_WIRE, nr, rwx_sig_demo_inv(nr),
		ok ? "verified" : "MISMATCH",
		st.fail_status ? "FAILED" : "passed");
	if (!ok)
		return -EIO;

	/* One data byte of one block corrupted on the far side. */
	block = demo->remote + RWX_SIG_DEMO_BAD *
		(RWX_SIG_DEMO_BLOCK + RWX_SIG_DEMO_PI);
	block[100] ^= 0x01;
	ret = rwx_sig_demo_transfer(demo, DMA_FROM_DEVICE, &nr, &st);
	if (ret)
		return ret;
	ok = (st.fail_status & IB_MR_CHECK_SIG_STATUS) &&
	     st.sig_err.err_type == IB_SIG_BAD_GUARD &&
	     st.sig_err.sig_err_offset ==
		RWX_SIG_DEMO_BAD * (RWX_SIG_DEMO_BLOCK + RWX_SIG_DEMO_PI);
	pr_info("rwx_sig_demo: %s READ of block %u with one byte flipped on the far side: %s, block %llu (offset %llu), guard expected %#x, found %#x; %s\n",
		dev, RWX_SIG_DEMO_BAD,
		st.fail_status ? rwx_sig_demo_err(st.sig_err.err_type) :
				 "NOT DETECTED",
		div_u64(st.sig_err.sig_err_offset,
			RWX_SIG_DEMO_BLOCK + RWX_SIG_DEMO_PI),
		st.sig_err.sig_err_offset, st.sig_err.expected,
		st.sig_err.actual, ok ? "detected" : "WRONG");
	return ok ? 0 : -EIO;
}

static int rwx_sig_demo_alloc(struct rwx_sig_demo *demo)
{
	struct ib_device *dev = demo->conn.device;
	u32 i;

	demo->data = kmalloc(RWX_SIG_DEMO_DATA, GFP_KERNEL);
	demo->prot = kmalloc(RWX_SIG_DEMO_PROT, GFP_KERNEL);
	demo->want = kmalloc(RWX_SIG_DEMO_WIRE, GFP_KERNEL);
	demo->remote = (u8 *)__get_free_pages(GFP_KERNEL, RWX_SIG_DEMO_ORDER);
	if (!demo->data || !demo->prot || !demo->want || !demo->remote)
		return -ENOMEM;
	sg_init_table(demo->data_sg, RWX_SIG_DEMO_SEGS);
	for (i = 0; i < RWX_SIG_DEMO_SEGS; i++)
		sg_set_buf(&demo->data_sg[i],
			   demo->data + i * RWX_SIG_DEMO_DATA / RWX_SIG_DEMO_SEGS,
			   RWX_SIG_DEMO_DATA / RWX_SIG_DEMO_SEGS);
	sg_init_one(demo->prot_sg, demo->prot, RWX_SIG_DEMO_PROT);
	demo->remote_dma = ib_dma_map_single(dev, demo->remote,
					     PAGE_SIZE << RWX_SIG_DEMO_ORDER,
					     DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, demo->remote_dma)) {
		demo->remote_dma = 0;
		return -ENOMEM;
	}
	rwx_sig_demo_domain(&demo->attrs.mem);
	rwx_sig_demo_domain(&demo->attrs.wire);
	demo->attrs.check_mask = IB_SIG_CHECK_GUARD | IB_SIG_CHECK_APPTAG |
				 IB_SIG_CHECK_REFTAG;
	return 0;
}

static void rwx_sig_demo_free(struct rwx_sig_demo *demo)
{
	if (demo->remote_dma)
		ib_dma_unmap_single(demo->conn.device, demo->remote_dma,
				    PAGE_SIZE << RWX_SIG_DEMO_ORDER,
				    DMA_BIDIRECTIONAL);
	free_pages((unsigned long)demo->remote, RWX_SIG_DEMO_ORDER);
	kfree(demo->want);
	kfree(demo->prot);
	kfree(demo->data);
}

static int __init rwx_sig_demo_init(void)
{
	struct rwx_loopback_params params = {
		.max_send_wr = 16,
		.max_send_sge = 4,
		.max_rdma_ctxs = 2,
		.create_flags = IB_QP_CREATE_INTEGRITY_EN,
	};
	struct rwx_sig_demo *demo;
	int ret;

	demo = kzalloc(sizeof(*demo), GFP_KERNEL);
	if (!demo)
		return -ENOMEM;
	demo->tdev = rwx_testdev_create("rwxsig0", &rwx_sig_demo_caps);
	if (IS_ERR(demo->tdev)) {
		ret = PTR_ERR(demo->tdev);
		pr_err("rwx_sig_demo: cannot create the test device: %d\n", ret);
		kfree(demo);
		return ret;
	}
	ret = rwx_loopback_setup_direct(&demo->conn, &params,
					rwx_testdev_ibdev(demo->tdev),
					rwx_testdev_connect);
	if (ret)
		pr_err("rwx_sig_demo: cannot connect: %s (%d)\n",
		       demo->conn.error_what ?: "?", ret);
	if (!ret)
		ret = rwx_sig_demo_alloc(demo);
	if (!ret)
		ret = rwx_sig_demo_run(demo);
	rwx_sig_demo_free(demo);
	rwx_loopback_teardown(&demo->conn);
	rwx_testdev_destroy(demo->tdev);
	kfree(demo);
	return ret;
}

static void __exit rwx_sig_demo_exit(void)
{
}

module_init(rwx_sig_demo_init);
module_exit(rwx_sig_demo_exit);

MODULE_DESCRIPTION("rdma_rwx demo: a T10-PI signature transfer on the test device");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
MODULE_IMPORT_NS(RWX_TESTDEV);
