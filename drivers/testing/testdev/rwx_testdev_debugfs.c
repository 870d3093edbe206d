// SPDX-License-Identifier: GPL-2.0-only
/*
 * rwx_testdev: instances made from user space, for tests that run the
 * kernel's own ULPs on a capability set no hardware here has.
 *
 *   echo "NAME SPEC" > /sys/kernel/debug/rwx_testdev/create
 *   echo "NAME FAULT NTH [OWNER]" > /sys/kernel/debug/rwx_testdev/inject
 *   echo NAME > /sys/kernel/debug/rwx_testdev/remove
 *
 * SPEC is a comma-separated list, applied in order: a named set (sge1,
 * sge3-rd2, sgl-rd4, iwarp, iwarp-pl8, mlx5-pi: rwx_testdev.h), a flag
 * (roce, iwarp, integrity, virt_dma, dma_merge) or FIELD=N (send_sge,
 * recv_sge, sge_rd, sgl_rd, pages, pi_pages, qp_wr, mr).  "sge1,roce" is
 * the one-SGE set on a RoCE port.  A bad SPEC fails the write with
 * -EINVAL, an unknown NAME to remove with -ENODEV; a failed create
 * returns rwx_testdev_create()'s error.  inject arms a fault of an
 * instance made here as rwx_testdev_inject() does: FAULT is post_send,
 * alloc_mr, map_short, map_fail, wr_error, map_nomem or pi_wire (enum
 * rwx_testdev_fault), NTH the event it fires at (1: the next; 0
 * disarms), OWNER the module whose PDs' events alone count (their
 * restrack name, e.g. nvmet_rdma: a target's fault, not its host's; not
 * for pi_wire); a bad line fails with -EINVAL, an unknown NAME with
 * -ENODEV.
 * Reading inject gives "NAME FAULT fired" for each fault of an instance
 * made here that fired since it was last armed, so that a test knows its
 * fault happened.
 * Only instances made here can be removed here; those left are destroyed
 * when the module goes.
 */

#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/lockdep.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "rwx_testdev_internal.h"

#define RWX_TD_SPEC_MAX		256

static struct dentry *rwx_td_debugfs_dir;

static const struct {
	const char *name;
	const struct rwx_testdev_caps *caps;
} rwx_td_named_sets[] = {
	{ "sge1", &rwx_testdev_sge1 },
	{ "sge3-rd2", &rwx_testdev_sge3_rd2 },
	{ "sgl-rd4", &rwx_testdev_sgl_rd4 },
	{ "iwarp", &rwx_testdev_iwarp },
	{ "iwarp-pl8", &rwx_testdev_iwarp_pl8 },
	{ "mlx5-pi", &rwx_testdev_mlx5_pi },
};

/* The capabilities a word sets: FIELD=N a u32 member, a flag a bool one. */
struct rwx_td_spec_member {
	const char *name;
	size_t offset;
	bool flag;
};

#define RWX_TD_FIELD(name, member) \
	{ name, offsetof(struct rwx_testdev_caps, member), false }
#define RWX_TD_FLAG(name, member) \
	{ name, offsetof(struct rwx_testdev_caps, member), true }

static const struct rwx_td_spec_member rwx_td_spec_members[] = {
	RWX_TD_FIELD("send_sge", max_send_sge),
	RWX_TD_FIELD("recv_sge", max_recv_sge),
	RWX_TD_FIELD("sge_rd", max_sge_rd),
	RWX_TD_FIELD("sgl_rd", max_sgl_rd),
	RWX_TD_FIELD("pages", max_fast_reg_page_list_len),
	RWX_TD_FIELD("pi_pages", max_pi_fast_reg_page_list_len),
	RWX_TD_FIELD("qp_wr", max_qp_wr),
	RWX_TD_FIELD("mr", max_mr),
	RWX_TD_FLAG("roce", roce),
	RWX_TD_FLAG("iwarp", iwarp),
	RWX_TD_FLAG("integrity", integrity),
	RWX_TD_FLAG("virt_dma", virt_dma),
	RWX_TD_FLAG("dma_merge", dma_merge),
};

/* A named set replaces what came before it but the flags roce and virt_dma. */
static bool rwx_td_spec_set(struct rwx_testdev_caps *caps, const char *word)
{
	bool roce = caps->roce, virt_dma = caps->virt_dma;
	int i;

	for (i = 0; i < ARRAY_SIZE(rwx_td_named_sets); i++) {
		if (!strcmp(word, rwx_td_named_sets[i].name)) {
			*caps = *rwx_td_named_sets[i].caps;
			caps->roce |= roce;
			caps->virt_dma |= virt_dma;
			return true;
		}
	}
	return false;
}

static int rwx_td_spec_word(struct rwx_testdev_caps *caps, char *word)
{
	char *value = strchr(word, '=');
	const struct rwx_td_spec_member *m;
	int i;

	if (value)
		*value++ = '\0';
	else if (rwx_td_spec_set(caps, word))
		return 0;
	for (i = 0; i < ARRAY_SIZE(rwx_td_spec_members); i++) {
		m = &rwx_td_spec_members[i];
		if (strcmp(word, m->name) || m->flag == !!value)
			continue;
		if (value)
			return kstrtou32(value, 0, (void *)caps + m->offset);
		*(bool *)((void *)caps + m->offset) = true;
		return 0;
	}
	return -EINVAL;
}

static int rwx_td_parse_spec(char *spec, struct rwx_testdev_caps *caps)
{
	char *word;
	int ret;

	memset(caps, 0, sizeof(*caps));
	while ((word = strsep(&spec, ",")) != NULL) {
		if (!*word)
			return -EINVAL;
		ret = rwx_td_spec_word(caps, word);
		if (ret)
			return ret;
	}
	return 0;
}

/* The user's line, NUL-terminated and without its newline. */
static char *rwx_td_user_line(const char __user *ubuf, size_t count)
{
	char *buf;

	if (!count || count >= RWX_TD_SPEC_MAX)
		return ERR_PTR(-EINVAL);
	buf = memdup_user_nul(ubuf, count);
	if (!IS_ERR(buf))
		strim(buf);
	return buf;
}

/* The instances made here, which only remove and module exit destroy. */
struct rwx_td_user_dev {
	struct list_head node;
	struct rwx_testdev *tdev;
};

static DEFINE_MUTEX(rwx_td_user_lock);
static LIST_HEAD(rwx_td_user_devs);

/* The instance made here named @name, or NULL; rwx_td_user_lock held. */
static struct rwx_td_user_dev *rwx_td_user_find(const char *name)
{
	struct rwx_td_user_dev *udev;

	lockdep_assert_held(&rwx_td_user_lock);
	list_for_each_entry(udev, &rwx_td_user_devs, node)
		if (!strcmp(dev_name(&udev->tdev->ibdev.dev), name))
			return udev;
	return NULL;
}

static ssize_t rwx_td_create_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rwx_td_user_dev *udev;
	struct rwx_testdev_caps caps;
	char *buf, *spec;
	int ret;

	buf = rwx_td_user_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	spec = buf;
	strsep(&spec, " ");
	ret = -EINVAL;
	if (*buf && spec)
		ret = rwx_td_parse_spec(strim(spec), &caps);
	udev = ret ? NULL : kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!ret && !udev)
		ret = -ENOMEM;
	if (!ret) {
		udev->tdev = rwx_testdev_create(buf, &caps);
		ret = PTR_ERR_OR_ZERO(udev->tdev);
	}
	if (!ret) {
		mutex_lock(&rwx_td_user_lock);
		list_add_tail(&udev->node, &rwx_td_user_devs);
		mutex_unlock(&rwx_td_user_lock);
		udev = NULL;
	}
	kfree(udev);
	kfree(buf);
	return ret ?: count;
}

static const char *const rwx_td_fault_names[RWX_TESTDEV_NR_FAULTS] = {
	[RWX_TESTDEV_FAULT_POST_SEND] = "post_send",
	[RWX_TESTDEV_FAULT_ALLOC_MR] = "alloc_mr",
	[RWX_TESTDEV_FAULT_MAP_SHORT] = "map_short",
	[RWX_TESTDEV_FAULT_MAP_FAIL] = "map_fail",
	[RWX_TESTDEV_FAULT_WR_ERROR] = "wr_error",
	[RWX_TESTDEV_FAULT_MAP_NOMEM] = "map_nomem",
	[RWX_TESTDEV_FAULT_PI_WIRE] = "pi_wire",
};

static ssize_t rwx_td_inject_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char *buf, *rest, *name, *nth_str, *owner;
	struct rwx_td_user_dev *udev;
	int fault, ret = -EINVAL;
	u32 nth;

	buf = rwx_td_user_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	rest = buf;
	strsep(&rest, " ");
	name = strsep(&rest, " ");
	nth_str = strsep(&rest, " ");
	owner = strsep(&rest, " ");
	fault = name ? match_string(rwx_td_fault_names,
				    ARRAY_SIZE(rwx_td_fault_names), name) :
		       -EINVAL;
	if (fault >= 0 && nth_str && !kstrtou32(nth_str, 0, &nth) && !rest &&
	    (!owner || *owner)) {
		ret = -ENODEV;
		mutex_lock(&rwx_td_user_lock);
		udev = rwx_td_user_find(buf);
		if (udev)
			ret = rwx_testdev_inject_owned(udev->tdev, fault, nth, owner);
		mutex_unlock(&rwx_td_user_lock);
	}
	kfree(buf);
	return ret ?: count;
}

static ssize_t rwx_td_remove_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct rwx_td_user_dev *found;
	char *buf;

	buf = rwx_td_user_line(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&rwx_td_user_lock);
	found = rwx_td_user_find(buf);
	if (found)
		list_del(&found->node);
	mutex_unlock(&rwx_td_user_lock);
	kfree(buf);
	if (!found)
		return -ENODEV;
	rwx_testdev_destroy(found->tdev);
	kfree(found);
	return count;
}

static const struct file_operations rwx_td_create_fops = {
	.owner = THIS_MODULE,
	.write = rwx_td_create_write,
};

static int rwx_td_inject_show(struct seq_file *m, void *unused)
{
	struct rwx_td_user_dev *udev;
	int fault;

	mutex_lock(&rwx_td_user_lock);
	list_for_each_entry(udev, &rwx_td_user_devs, node)
		for (fault = 0; fault < RWX_TESTDEV_NR_FAULTS; fault++)
			if (rwx_testdev_fault_fired(udev->tdev, fault))
				seq_printf(m, "%s %s fired\n",
					   dev_name(&udev->tdev->ibdev.dev),
					   rwx_td_fault_names[fault]);
	mutex_unlock(&rwx_td_user_lock);
	return 0;
}

static int rwx_td_inject_open(struct inode *inode, struct file *file)
{
	return single_open(file, rwx_td_inject_show, NULL);
}

static const struct file_operations rwx_td_inject_fops = {
	.owner = THIS_MODULE,
	.open = rwx_td_inject_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = rwx_td_inject_write,
};

static const struct file_operations rwx_td_remove_fops = {
	.owner = THIS_MODULE,
	.write = rwx_td_remove_write,
};

void rwx_td_debugfs_init(void)
{
	rwx_td_debugfs_dir = debugfs_create_dir("rwx_testdev", NULL);
	debugfs_create_file("create", 0200, rwx_td_debugfs_dir, NULL,
			    &rwx_td_create_fops);
	debugfs_create_file("inject", 0600, rwx_td_debugfs_dir, NULL,
			    &rwx_td_inject_fops);
	debugfs_create_file("remove", 0200, rwx_td_debugfs_dir, NULL,
			    &rwx_td_remove_fops);
}

void rwx_td_debugfs_exit(void)
{
	struct rwx_td_user_dev *udev, *tmp;

	debugfs_remove_recursive(rwx_td_debugfs_dir);
	list_for_each_entry_safe(udev, tmp, &rwx_td_user_devs, node) {
		list_del(&udev->node);
		rwx_testdev_destroy(udev->tdev);
		kfree(udev);
	}
}
