// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: memory regions.
 *
 * Every MR has a slot in the instance's table (an xarray indexed by the
 * upper 24 bits of its keys, from 1: index 0 is the local DMA lkey's).  A
 * new MR's key is its index shifted left by 8; ib_update_fast_reg_key()
 * changes the low byte, and a REG_MR WR naming the MR's index makes its
 * key current.
 *
 * DMA MRs cover all memory by DMA address with the access they were
 * created with.  Fast-registration MRs keep the page list map_mr_sg built
 * (ib_sg_to_pages() with a set_page of ours, so a list longer than the MR
 * maps fewer entries); REG_MR copies it into the registration, together
 * with mr->iova, mr->length and mr->page_size, and only the registration
 * is used for access.  Integrity MRs keep two page lists, data and
 * protection (see rwx_testdev_dif.c).
 *
 * Deregistering waits for the executor to be done with the MR.
 */

#include <linux/log2.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "rwx_testdev_internal.h"

static int rwx_td_map_init(struct rwx_td_map *map, u32 max_pages)
{
	map->max_pages = max_pages;
	if (!max_pages)
		return 0;
	map->pages = kcalloc(max_pages, sizeof(*map->pages), GFP_KERNEL);
	return map->pages ? 0 : -ENOMEM;
}

static void rwx_td_mr_free(struct rwx_td_mr *mr)
{
	kfree(mr->map.pages);
	kfree(mr->meta_map.pages);
	kfree(mr->reg.pages);
	kfree(mr->reg_meta.pages);
	kfree(mr);
}

static struct rwx_td_mr *rwx_td_mr_new(struct ib_pd *pd,
				       enum rwx_td_mr_kind kind,
				       u32 max_pages, u32 max_meta_pages)
{
	struct rwx_testdev *tdev = to_tdev(pd->device);
	struct rwx_td_mr *mr;
	u32 index;
	int ret;

	if (atomic_inc_return(&tdev->nr_mrs) > tdev->caps.max_mr) {
		atomic_dec(&tdev->nr_mrs);
		return ERR_PTR(-ENOMEM);
	}

	ret = -ENOMEM;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		goto out_count;
	mr->tdev = tdev;
	mr->kind = kind;
	spin_lock_init(&mr->lock);
	mr->sig_status_read = true;
	if (rwx_td_map_init(&mr->map, max_pages) ||
	    rwx_td_map_init(&mr->reg, max_pages) ||
	    rwx_td_map_init(&mr->meta_map, max_meta_pages) ||
	    rwx_td_map_init(&mr->reg_meta, max_meta_pages))
		goto out_free;

	/* Reserve the index; the executor sees the MR once it is complete. */
	ret = xa_alloc(&tdev->mrs, &index, NULL,
		       XA_LIMIT(1, RWX_TD_MR_INDEX_MAX), GFP_KERNEL);
	if (ret) {
		if (ret == -EBUSY)
			ret = -ENOMEM;
		goto out_free;
	}
	mr->index = index;
	mr->key = index << RWX_TD_KEY_SHIFT;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	xa_store(&tdev->mrs, index, mr, GFP_KERNEL);
	return mr;

out_free:
	rwx_td_mr_free(mr);
out_count:
	atomic_dec(&tdev->nr_mrs);
	return ERR_PTR(ret);
}

struct ib_mr *rwx_td_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rwx_td_mr *mr;

	mr = rwx_td_mr_new(pd, RWX_TD_MR_DMA, 0, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->access = access;
	mr->valid = true;
	return &mr->ibmr;
}

struct ib_mr *rwx_td_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				 u64 virt_addr, int access,
				 struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

struct ib_mr *rwx_td_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			      u32 max_num_sg)
{
	struct rwx_testdev *tdev = to_tdev(pd->device);
	struct rwx_td_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG ||
	    max_num_sg > tdev->caps.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	if (rwx_td_fault(tdev, RWX_TESTDEV_FAULT_ALLOC_MR, pd))
		return ERR_PTR(-ENOMEM);

	mr = rwx_td_mr_new(pd, RWX_TD_MR_FAST_REG, max(max_num_sg, 1U), 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	return &mr->ibmr;
}

struct ib_mr *rwx_td_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
					u32 max_num_meta_sg)
{
	struct rwx_testdev *tdev = to_tdev(pd->device);
	u32 max = tdev->caps.max_pi_fast_reg_page_list_len;
	struct rwx_td_mr *mr;

	if (!tdev->caps.integrity)
		return ERR_PTR(-EOPNOTSUPP);
	if (max_num_data_sg > max || max_num_meta_sg > max)
		return ERR_PTR(-EINVAL);
	if (rwx_td_fault(tdev, RWX_TESTDEV_FAULT_ALLOC_MR, pd))
		return ERR_PTR(-ENOMEM);

	mr = rwx_td_mr_new(pd, RWX_TD_MR_INTEGRITY, max(max_num_data_sg, 1U),
			   max(max_num_meta_sg, 1U));
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	return &mr->ibmr;
}

int rwx_td_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rwx_td_mr *mr = to_tdmr(ibmr);
	struct rwx_testdev *tdev = mr->tdev;

	xa_erase(&tdev->mrs, mr->index);
	/* The executor may be using it. */
	flush_workqueue(tdev->wq);
	if (mr->kind != RWX_TD_MR_DMA)
		rwx_td_mr_set_valid(mr, false);
	rwx_td_mr_free(mr);
	atomic_dec(&tdev->nr_mrs);
	return 0;
}

/* Moves a fast-reg or integrity MR between FREE and VALID (executor). */
void rwx_td_mr_set_valid(struct rwx_td_mr *mr, bool valid)
{
	if (mr->valid == valid)
		return;
	mr->valid = valid;
	if (valid)
		atomic_inc(&mr->tdev->nr_valid_mrs);
	else
		atomic_dec(&mr->tdev->nr_valid_mrs);
}

/*
 * The MR that @key names, in any state, or NULL (executor; the key's
 * variant is not checked here).
 */
struct rwx_td_mr *rwx_td_mr_lookup(struct rwx_testdev *tdev, u32 key)
{
	u32 index = RWX_TD_KEY_INDEX(key);

	if (!index)
		return NULL;
	return xa_load(&tdev->mrs, index);
}

/* Copies a page list (executor, at registration). */
void rwx_td_map_copy(struct rwx_td_map *to, const struct rwx_td_map *from)
{
	to->iova = from->iova;
	to->length = from->length;
	to->page_size = from->page_size;
	to->npages = min(from->npages, to->max_pages);
	if (to->npages)
		memcpy(to->pages, from->pages, to->npages * sizeof(*to->pages));
}

static int rwx_td_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rwx_td_map *map = to_tdmr(ibmr)->fill;

	if (map->npages == map->max_pages)
		return -ENOMEM;
	map->pages[map->npages++] = addr;
	return 0;
}

/* ib_sg_to_pages() into @map; its result, and @map describes it. */
static int rwx_td_map_list(struct rwx_td_mr *mr, struct rwx_td_map *map,
			   struct scatterlist *sg, int nents,
			   unsigned int *sg_offset)
{
	struct ib_mr *ibmr = &mr->ibmr;
	int ret;

	map->npages = 0;
	map->page_size = ibmr->page_size;
	mr->fill = map;
	ret = ib_sg_to_pages(ibmr, sg, nents, sg_offset, rwx_td_set_page);
	mr->fill = NULL;
	map->iova = ibmr->iova;
	map->length = ibmr->length;
	return ret;
}

static bool rwx_td_page_size_ok(u32 page_size)
{
	return is_power_of_2(page_size) && page_size >= SZ_4K;
}

int rwx_td_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		     unsigned int *sg_offset)
{
	struct rwx_td_mr *mr = to_tdmr(ibmr);
	struct rwx_testdev *tdev = mr->tdev;
	bool fail, short_map, nomem;

	if (mr->kind != RWX_TD_MR_FAST_REG ||
	    !rwx_td_page_size_ok(ibmr->page_size))
		return -EINVAL;
	fail = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_FAIL, ibmr->pd);
	short_map = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_SHORT, ibmr->pd);
	nomem = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_NOMEM, ibmr->pd);
	if (fail)
		return -EINVAL;
	if (nomem)
		return -ENOMEM;

	if (short_map && sg_nents > 0) {
		if (sg_nents == 1) {
			mr->map.npages = 0;
			mr->map.length = 0;
			ibmr->length = 0;
			return 0;
		}
		sg_nents--;
	}
	return rwx_td_map_list(mr, &mr->map, sg, sg_nents, sg_offset);
}

int rwx_td_map_mr_sg_pi(struct ib_mr *ibmr, struct scatterlist *data_sg,
			int data_sg_nents, unsigned int *data_sg_offset,
			struct scatterlist *meta_sg, int meta_sg_nents,
			unsigned int *meta_sg_offset)
{
	struct rwx_td_mr *mr = to_tdmr(ibmr);
	struct rwx_testdev *tdev = mr->tdev;
	bool fail, short_map, nomem;
	int n;

	if (mr->kind != RWX_TD_MR_INTEGRITY || !ibmr->sig_attrs ||
	    !rwx_td_page_size_ok(ibmr->page_size) || !data_sg ||
	    data_sg_nents <= 0 || meta_sg_nents < 0 ||
	    (meta_sg_nents && !meta_sg))
		return -EINVAL;
	fail = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_FAIL, ibmr->pd);
	short_map = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_SHORT, ibmr->pd);
	nomem = rwx_td_fault(tdev, RWX_TESTDEV_FAULT_MAP_NOMEM, ibmr->pd);
	if (fail)
		return -EINVAL;
	if (short_map || nomem)
		return -ENOMEM;

	n = rwx_td_map_list(mr, &mr->map, data_sg, data_sg_nents,
			    data_sg_offset);
	if (n < 0)
		return n;
	if (n < data_sg_nents)
		return -ENOMEM;

	mr->meta_map.npages = 0;
	mr->meta_map.length = 0;
	if (meta_sg && meta_sg_nents) {
		n = rwx_td_map_list(mr, &mr->meta_map, meta_sg, meta_sg_nents,
				    meta_sg_offset);
		if (n < 0)
			return n;
		if (n < meta_sg_nents)
			return -ENOMEM;
	}

	/* The attributes are the ULP's until REG_MR_INTEGRITY is posted. */
	ibmr->sig_attrs->meta_length = mr->meta_map.length;
	ibmr->iova = 0;
	ibmr->length = mr->map.length + mr->meta_map.length;
	return 0;
}

int rwx_td_check_mr_status(struct ib_mr *ibmr, u32 check_mask,
			   struct ib_mr_status *status)
{
	struct rwx_td_mr *mr = to_tdmr(ibmr);
	unsigned long flags;

	if (check_mask & ~IB_MR_CHECK_SIG_STATUS)
		return -EINVAL;
	if (mr->kind != RWX_TD_MR_INTEGRITY)
		return -EINVAL;

	memset(status, 0, sizeof(*status));
	if (!(check_mask & IB_MR_CHECK_SIG_STATUS))
		return 0;
	spin_lock_irqsave(&mr->lock, flags);
	mr->sig_status_read = true;
	if (mr->sig_err_set) {
		status->fail_status |= IB_MR_CHECK_SIG_STATUS;
		status->sig_err = mr->sig_err;
		mr->sig_err_set = false;
	}
	spin_unlock_irqrestore(&mr->lock, flags);
	return 0;
}
