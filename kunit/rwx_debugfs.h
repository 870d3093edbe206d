/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KUnit helpers: the engine's counters files in debugfs, read and reset
 * from a kernel thread as an admin would through the files.
 */
#ifndef _RWX_DEBUGFS_H
#define _RWX_DEBUGFS_H

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/path.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <rdma/ib_verbs.h>
#include "../drivers/rwx/rwx_stats.h"

/* A kernel mount of debugfs. */
struct rwx_dbg {
	struct file_system_type *fs;
	struct vfsmount *mnt;
};

static inline int rwx_dbg_open(struct rwx_dbg *d)
{
	d->fs = get_fs_type("debugfs");
	if (!d->fs)
		return -ENODEV;
	d->mnt = kern_mount(d->fs);
	if (IS_ERR(d->mnt)) {
		int ret = PTR_ERR(d->mnt);

		d->mnt = NULL;
		return ret;
	}
	return 0;
}

static inline void rwx_dbg_close(struct rwx_dbg *d)
{
	if (d->mnt)
		kern_unmount(d->mnt);
	d->mnt = NULL;
	if (d->fs)
		module_put(d->fs->owner);	/* put_filesystem() */
	d->fs = NULL;
}

static inline struct dentry *rwx_dbg_lookup(const char *name,
					    struct dentry *parent)
{
	struct dentry *d = debugfs_lookup(name, parent);

	return IS_ERR(d) ? NULL : d;
}

/*
 * <debugfs>/rdma_rwx/counters, or with @dev devices/<dev>/counters, open
 * for reading and writing: looked up in debugfs and opened on a kernel
 * mount of it (a kernel thread's root need not see where user space
 * mounted it).
 */
static inline struct file *rwx_dbg_counters_file(struct rwx_dbg *d,
						 struct ib_device *dev)
{
	struct dentry *top, *devs = NULL, *dir = NULL, *f = NULL;
	struct file *file = ERR_PTR(-ENOENT);

	top = rwx_dbg_lookup("rdma_rwx", NULL);
	if (!top)
		return file;
	dir = top;
	if (dev) {
		devs = rwx_dbg_lookup("devices", top);
		dir = devs ? rwx_dbg_lookup(dev_name(&dev->dev), devs) : NULL;
	}
	if (dir)
		f = rwx_dbg_lookup("counters", dir);
	if (f) {
		struct path path = { .mnt = d->mnt, .dentry = f };

		file = dentry_open(&path, O_RDWR, current_cred());
	}
	dput(f);
	if (dir != top)
		dput(dir);
	dput(devs);
	dput(top);
	return file;
}

/*
 * Zero a counters file's event counts, as "echo > counters" does.  Through
 * the file's own write (kernel_write() wants write_iter, which debugfs'
 * proxy has not); the engine's reset takes any write and reads none of
 * its bytes, so the kernel buffer is never copied from (and would only
 * fail the copy, not fault, if it were).
 */
static inline int rwx_dbg_counters_reset(struct rwx_dbg *d,
					 struct ib_device *dev)
{
	struct file *file = rwx_dbg_counters_file(d, dev);
	static const char one[] = "1\n";
	loff_t pos = 0;
	ssize_t n;

	if (IS_ERR(file))
		return PTR_ERR(file);
	n = file->f_op->write(file, (__force const char __user *)one, 2, &pos);
	__fput_sync(file);
	return n == 2 ? 0 : n < 0 ? n : -EIO;
}

/* One counters file: its counts since the last reset, and contexts_live. */
struct rwx_dbg_file {
	u64 v[RWX_CNT_NR];
	s64 live;
};

static inline int rwx_dbg_counters_read(struct rwx_dbg *d,
					struct ib_device *dev,
					struct rwx_dbg_file *out)
{
	struct file *file = rwx_dbg_counters_file(d, dev);
	u32 found = 0, want = (1U << RWX_CNT_NR) - 1, i;
	char *buf, *line, *next;
	struct iov_iter to;
	struct kiocb kiocb;
	bool live = false;
	struct kvec kv;
	ssize_t n;

	if (IS_ERR(file))
		return PTR_ERR(file);
	buf = kzalloc(2048, GFP_KERNEL);
	if (!buf) {
		__fput_sync(file);
		return -ENOMEM;
	}
	kv.iov_base = buf;
	kv.iov_len = 2047;
	/* The file's seq_file, read into a kernel buffer (see above). */
	iov_iter_kvec(&to, READ, &kv, 1, 2047);
	init_sync_kiocb(&kiocb, file);
	kiocb.ki_pos = 0;
	n = seq_read_iter(&kiocb, &to);
	__fput_sync(file);
	for (line = buf; n > 0 && line && *line; line = next) {
		char name[32];
		long long val;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%31s %lld", name, &val) != 2)
			continue;
		if (!strcmp(name, "contexts_live")) {
			out->live = val;
			live = true;
			continue;
		}
		for (i = 0; i < RWX_CNT_NR; i++) {
			if (!strcmp(name, rdma_rwx_dev_counter_name(i))) {
				out->v[i] = (u64)val;
				found |= 1U << i;
			}
		}
	}
	kfree(buf);
	if (n < 0)
		return n;
	return found == want && live ? 0 : -EPROTO;
}

#endif /* _RWX_DEBUGFS_H */
