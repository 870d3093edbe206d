// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_demo: a small ULP that moves a multi-segment buffer through the
 * rdma_rwx engine between two connected QPs on one device, by RDMA WRITE
 * and READ, and reports for each transfer the WR layout the engine chose,
 * the bytes verified and the throughput.  Everything happens at load
 * time; the module then stays loaded until removed.
 */

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <rdma/rwx.h>
#include "rwx_loopback.h"

static char *addr = "192.0.2.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the RDMA device's netdev");

static unsigned int iters = 32;
module_param(iters, uint, 0444);
MODULE_PARM_DESC(iters, "Transfers per direction for the throughput figure");

/*
 * Segment sizes in pages: uneven on purpose, 256 pages (1 MiB) in all, so
 * that one MR covers them on the MR path.
 */
static const unsigned int rwx_demo_seg_pages[] = {
	1, 3, 16, 2, 64, 8, 32, 4, 48, 6, 24, 12, 16, 7, 9, 4,
};

#define RWX_DEMO_SEGS		ARRAY_SIZE(rwx_demo_seg_pages)
#define RWX_DEMO_OFFSET		512	/* start inside the first segment */

struct rwx_demo {
	struct rwx_loopback conn;
	struct scatterlist sgl[RWX_DEMO_SEGS];
	size_t len;			/* bytes moved: all but the offset */
	struct page *remote;		/* target memory, reached by rkey */
	unsigned int remote_order;
	u64 remote_dma;
};

static void rwx_demo_free(struct rwx_demo *demo)
{
	int i;

	if (demo->remote_dma)
		ib_dma_unmap_page(demo->conn.device, demo->remote_dma,
				  PAGE_SIZE << demo->remote_order,
				  DMA_BIDIRECTIONAL);
	if (demo->remote)
		__free_pages(demo->remote, demo->remote_order);
	for (i = 0; i < RWX_DEMO_SEGS; i++)
		if (sg_page(&demo->sgl[i]))
			__free_pages(sg_page(&demo->sgl[i]),
				     get_order(demo->sgl[i].length));
}

static int rwx_demo_alloc(struct rwx_demo *demo)
{
	size_t total = 0;
	struct page *page;
	int i;

	sg_init_table(demo->sgl, RWX_DEMO_SEGS);
	for (i = 0; i < RWX_DEMO_SEGS; i++) {
		size_t len = rwx_demo_seg_pages[i] * PAGE_SIZE;

		page = alloc_pages(GFP_KERNEL, get_order(len));
		if (!page)
			return -ENOMEM;
		sg_set_page(&demo->sgl[i], page, len, 0);
		total += len;
	}
	demo->len = total - RWX_DEMO_OFFSET;
	demo->remote_order = get_order(demo->len);
	demo->remote = alloc_pages(GFP_KERNEL, demo->remote_order);
	if (!demo->remote)
		return -ENOMEM;
	demo->remote_dma = ib_dma_map_page(demo->conn.device, demo->remote, 0,
					   PAGE_SIZE << demo->remote_order,
					   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(demo->conn.device, demo->remote_dma)) {
		demo->remote_dma = 0;
		return -ENOMEM;
	}
	return 0;
}

/* The pattern byte at @pos of the transfer: repeats only every 256 pages. */
static u8 rwx_demo_byte(u8 seed, size_t pos)
{
	return seed + pos * 7 + (pos >> 12);
}

/*
 * Fill @len bytes at @p with the pattern from transfer offset @pos, or
 * compare them against it; returns false on a mismatch.
 */
static bool rwx_demo_pattern(u8 *p, size_t len, size_t pos, u8 seed,
			     bool fill)
{
	size_t j;

	for (j = 0; j < len; j++) {
		u8 want = rwx_demo_byte(seed, pos + j);

		if (fill)
			p[j] = want;
		else if (p[j] != want)
			return false;
	}
	return true;
}

/* The pattern over the local segments, from the offset into the first. */
static bool rwx_demo_local(struct rwx_demo *demo, u8 seed, bool fill)
{
	size_t pos = 0;
	int i;

	for (i = 0; i < RWX_DEMO_SEGS; i++) {
		size_t skip = i ? 0 : RWX_DEMO_OFFSET;
		size_t len = demo->sgl[i].length - skip;

		if (!rwx_demo_pattern(sg_virt(&demo->sgl[i]) + skip, len, pos,
				      seed, fill))
			return false;
		pos += len;
	}
	return true;
}

static bool rwx_demo_remote(struct rwx_demo *demo, u8 seed, bool fill)
{
	return rwx_demo_pattern(page_address(demo->remote), demo->len, 0,
				seed, fill);
}

/* One transfer through the engine: init, post, wait, destroy. */
static int rwx_demo_transfer(struct rwx_demo *demo, enum dma_data_direction dir)
{
	struct ib_qp *qp = demo->conn.qp[RWX_CLIENT];
	u32 port = demo->conn.port_num;
	struct rwx_loopback_wait wait;
	struct rdma_rw_ctx ctx;
	int ret;

	ret = rdma_rwx_ctx_init(&ctx, qp, port, demo->sgl, RWX_DEMO_SEGS,
				RWX_DEMO_OFFSET, demo->remote_dma,
				demo->conn.pd->unsafe_global_rkey, dir);
	if (ret < 0)
		return ret;
	rwx_loopback_wait_init(&wait);
	ret = rdma_rwx_ctx_post(&ctx, qp, port, &wait.cqe, NULL);
	if (!ret)
		ret = rwx_loopback_wait_for(&wait);
	/* On a timeout the WRs may still run: tearing down the QP stops them. */
	if (ret != -ETIMEDOUT)
		rdma_rwx_ctx_destroy(&ctx, qp, port, demo->sgl, RWX_DEMO_SEGS, dir);
	return ret;
}

static const char *rwx_demo_path_name(enum rdma_rwx_path path)
{
	return path == RDMA_RWX_PATH_MR ? "MR (REG_MR + RDMA op per MR)" :
					  "SGE (plain RDMA ops)";
}

/* The layout the engine will choose: it depends on the DMA mapping. */
static int rwx_demo_layout(struct rwx_demo *demo, enum dma_data_direction dir,
			   struct rdma_rwx_layout *layout)
{
	struct ib_device *dev = demo->conn.device;
	struct rdma_rwx_caps caps;
	struct rdma_rwx_pos pos;
	int ret;

	rdma_rwx_qp_caps(demo->conn.qp[RWX_CLIENT],
			 demo->conn.port_num, &caps);
	pos.nents = ib_dma_map_sg(dev, demo->sgl, RWX_DEMO_SEGS, dir);
	if (!pos.nents)
		return -ENOMEM;
	pos.sg = demo->sgl;
	pos.offset = RWX_DEMO_OFFSET;
	ret = rdma_rwx_sg_skip(&pos);
	if (!ret)
		ret = rdma_rwx_layout(&caps, dir, &pos, layout);
	ib_dma_unmap_sg(dev, demo->sgl, RWX_DEMO_SEGS, dir);
	return ret;
}

static int rwx_demo_run(struct rwx_demo *demo, enum dma_data_direction dir)
{
	bool write = dir == DMA_TO_DEVICE;
	const char *op = write ? "WRITE" : "READ";
	struct rdma_rwx_layout layout;
	u64 ns, mbps;
	unsigned int i;
	bool ok;
	int ret;

	ret = rwx_demo_layout(demo, dir, &layout);
	if (ret)
		return ret;

	/* Correctness: one transfer of a fresh pattern, checked byte by byte. */
	if (write) {
		rwx_demo_local(demo, 0x5a, true);
		memset(page_address(demo->remote), 0, demo->len);
	} else {
		rwx_demo_remote(demo, 0xa5, true);
		for (i = 0; i < RWX_DEMO_SEGS; i++)
			memset(sg_virt(&demo->sgl[i]), 0, demo->sgl[i].length);
	}
	ret = rwx_demo_transfer(demo, dir);
	if (ret) {
		pr_err("rwx_demo: RDMA %s failed: %d\n", op, ret);
		return ret;
	}
	ok = write ? rwx_demo_remote(demo, 0x5a, false) :
		     rwx_demo_local(demo, 0xa5, false);

	/* Throughput: iters more transfers, each a full init/post/destroy. */
	ns = ktime_get_ns();
	for (i = 0; i < iters && !ret; i++)
		ret = rwx_demo_transfer(demo, dir);
	ns = ktime_get_ns() - ns;
	if (ret)
		return ret;
	mbps = ns ? div64_u64((u64)demo->len * iters * 1000, ns) : 0;

	pr_info("rwx_demo: %s %s: %zu bytes in %zu segments (offset %u): path %s, %u WR(s) of up to %u %s, last %u; %s: %zu bytes %s; %llu MB/s over %u transfers\n",
		dev_name(&demo->conn.device->dev), op, demo->len,
		RWX_DEMO_SEGS, RWX_DEMO_OFFSET, rwx_demo_path_name(layout.path),
		layout.nr_ops, layout.per_op,
		layout.path == RDMA_RWX_PATH_MR ? "entries per MR" : "SGEs",
		layout.last_op, ok ? "verified" : "MISMATCH", demo->len,
		ok ? "match" : "differ", mbps, iters);
	return ok ? 0 : -EIO;
}

static int __init rwx_demo_init(void)
{
	struct rwx_loopback_params params = {
		.addr = addr,
		.max_send_wr = 256,
		.max_send_sge = 32,
		.max_rdma_ctxs = 4,
	};
	struct rwx_demo *demo;
	int ret;

	demo = kzalloc(sizeof(*demo), GFP_KERNEL);
	if (!demo)
		return -ENOMEM;
	ret = rwx_loopback_setup(&demo->conn, &params);
	if (ret) {
		pr_err("rwx_demo: cannot connect on %s: %s (%d)\n", addr,
		       demo->conn.error_what ?: "?", ret);
		goto out;
	}
	ret = rwx_demo_alloc(demo);
	if (!ret)
		ret = rwx_demo_run(demo, DMA_TO_DEVICE);
	if (!ret)
		ret = rwx_demo_run(demo, DMA_FROM_DEVICE);
out:
	rwx_demo_free(demo);
	rwx_loopback_teardown(&demo->conn);
	kfree(demo);
	return ret;
}

static void __exit rwx_demo_exit(void)
{
}

module_init(rwx_demo_init);
module_exit(rwx_demo_exit);

MODULE_DESCRIPTION("rdma_rwx demo ULP: RDMA WRITE and READ through the engine");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(RDMA_RWX);
MODULE_IMPORT_NS(RDMA_RWX_LOOPBACK);
