/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rdma_rwx trace events: rwx:rwx_ctx_init, rwx:rwx_ctx_post and
 * rwx:rwx_ctx_destroy, one per context operation, with the device, port,
 * path, direction, entries, WRs, bytes and result (fields and examples in
 * Documentation/rdma_rwx.rst, "Trace events").  Disabled, each costs the
 * hot path a static branch (a NOP); the fields are computed only when the
 * event is on.  rwx_trace.c defines them (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rwx

#if !defined(_RWX_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RWX_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include "rwx_stats.h"

#ifndef _RWX_TRACE_HELPERS
#define _RWX_TRACE_HELPERS
static inline const char *rwx_dev_name(const struct ib_device *dev)
{
	return dev ? dev->name : "-";
}
#endif

/*
 * __assign_str() takes its source from __string() since 6.10 (Kbuild
 * sets RWX_ASSIGN_STR_IMPLIED there); both events name the device.
 */
#ifdef RWX_ASSIGN_STR_IMPLIED
#define rwx_assign_device() __assign_str(device)
#else
#define rwx_assign_device() __assign_str(device, rwx_dev_name(dev))
#endif

/* enum rdma_rwx_stat_path (rwx_stats.h), by name */
#define rwx_show_path(path)						\
	__print_symbolic(path, { 0, "none" }, { 1, "sge_single" },	\
			 { 2, "sge_multi" }, { 3, "mr" }, { 4, "sig" })

/*
 * The DMA directions are enum constants: without these the events' format
 * files name them (DMA_TO_DEVICE ...), which libtraceevent cannot resolve,
 * so trace-cmd report and perf script printed dir=0x1 for write.
 */
TRACE_DEFINE_ENUM(DMA_BIDIRECTIONAL);
TRACE_DEFINE_ENUM(DMA_TO_DEVICE);
TRACE_DEFINE_ENUM(DMA_FROM_DEVICE);
TRACE_DEFINE_ENUM(DMA_NONE);

#define rwx_show_dir(dir)						\
	__print_symbolic(dir, { DMA_TO_DEVICE, "write" },		\
			 { DMA_FROM_DEVICE, "read" }, { DMA_NONE, "none" },	\
			 { DMA_BIDIRECTIONAL, "bidi" })

/*
 * ret is what the init returns: WRs (then path, wrs and bytes are read
 * back from the context), or -errno (result; path none).
 */
TRACE_EVENT(rwx_ctx_init,
	    TP_PROTO(const struct ib_device *dev, u32 port,
		     const struct rdma_rw_ctx *ctx, u32 entries, u8 dir,
		     int ret, bool bvec),
	    TP_ARGS(dev, port, ctx, entries, dir, ret, bvec),
	    TP_STRUCT__entry(__string(device, rwx_dev_name(dev))
			     __field(u32, port)
			     __field(u8, path)
			     __field(u8, dir)
			     __field(u8, bvec)
			     __field(u32, entries)
			     __field(u32, wrs)
			     __field(u64, bytes)
			     __field(int, result)),
	    TP_fast_assign(struct rdma_rwx_ctx_info info;

			   rdma_rwx_ctx_info(ret >= 0 ? ctx : NULL, &info);
			   rwx_assign_device();
			   __entry->port = port;
			   __entry->path = info.path;
			   __entry->dir = dir;
			   __entry->bvec = bvec;
			   __entry->entries = entries;
			   __entry->wrs = ret > 0 ? ret : 0;
			   __entry->bytes = info.bytes;
			   __entry->result = ret < 0 ? ret : 0;),
	    TP_printk("device=%s port=%u path=%s dir=%s entries=%u wrs=%u bytes=%llu result=%d bvec=%u",
		      __get_str(device), __entry->port,
		      rwx_show_path(__entry->path), rwx_show_dir(__entry->dir),
		      __entry->entries, __entry->wrs, __entry->bytes,
		      __entry->result, __entry->bvec)
);

/*
 * A post or a destroy: path, dir, wrs and bytes as rdma_rwx_ctx_info()
 * read them from the context's WRs (before the post, which may see the
 * context completed, destroyed and freed before it returns; before the
 * destroy frees them), entries as the operation gives them.
 */
DECLARE_EVENT_CLASS(rwx_ctx_op,
		    TP_PROTO(const struct ib_device *dev, u32 port,
			     const struct rdma_rwx_ctx_info *info, u32 entries,
			     int result),
		    TP_ARGS(dev, port, info, entries, result),
		    TP_STRUCT__entry(__string(device, rwx_dev_name(dev))
				     __field(u32, port)
				     __field(u8, path)
				     __field(u8, dir)
				     __field(u32, entries)
				     __field(u32, wrs)
				     __field(u64, bytes)
				     __field(int, result)),
		    TP_fast_assign(rwx_assign_device();
				   __entry->port = port;
				   __entry->path = info->path;
				   __entry->dir = info->dir;
				   __entry->entries = entries;
				   __entry->wrs = info->wrs;
				   __entry->bytes = info->bytes;
				   __entry->result = result;),
		    TP_printk("device=%s port=%u path=%s dir=%s entries=%u wrs=%u bytes=%llu result=%d",
			      __get_str(device), __entry->port,
			      rwx_show_path(__entry->path),
			      rwx_show_dir(__entry->dir), __entry->entries,
			      __entry->wrs, __entry->bytes, __entry->result)
);

/* entries: the SGEs of the READ/WRITE WRs (the post is not given the list) */
DEFINE_EVENT(rwx_ctx_op, rwx_ctx_post,
	     TP_PROTO(const struct ib_device *dev, u32 port,
		      const struct rdma_rwx_ctx_info *info, u32 entries,
		      int result),
	     TP_ARGS(dev, port, info, entries, result)
);

/* entries: sg_cnt (nr_bvec) as passed to the destroy */
DEFINE_EVENT(rwx_ctx_op, rwx_ctx_destroy,
	     TP_PROTO(const struct ib_device *dev, u32 port,
		      const struct rdma_rwx_ctx_info *info, u32 entries,
		      int result),
	     TP_ARGS(dev, port, info, entries, result)
);

#endif /* _RWX_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE rwx_trace
#include <trace/define_trace.h>
