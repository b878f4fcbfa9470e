// SPDX-License-Identifier: GPL-2.0
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/jump_label.h>

static DEFINE_STATIC_KEY_FALSE(demo_inject_key);

int demo_submit(int x)
{
	if (static_branch_unlikely(&demo_inject_key))
		return -EIO;
	return x;
}

/* As debugfs_read_file_bool(). */
static ssize_t demo_inject_read(struct file *file, char __user *ubuf,
			size_t count, loff_t *ppos)
{
	char buf[2] = { 'N', '\n' };

	if (static_key_enabled(&demo_inject_key))
		buf[0] = 'Y';
	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

/* As debugfs_write_file_bool(). */
static ssize_t demo_inject_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	if (on)
		static_branch_enable(&demo_inject_key);
	else
		static_branch_disable(&demo_inject_key);
	return count;
}

static const struct file_operations demo_inject_fops = {
	.read = demo_inject_read,
	.write = demo_inject_write,
	.open = simple_open,
	.llseek = default_llseek,
};

static int __init demo_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("demo", NULL);

	debugfs_create_file("inject", 0600, dir, NULL, &demo_inject_fops);
	return 0;
}
late_initcall(demo_debugfs_init);
