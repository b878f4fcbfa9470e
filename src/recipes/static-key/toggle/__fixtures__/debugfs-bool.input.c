// SPDX-License-Identifier: GPL-2.0
#include <linux/debugfs.h>
#include <linux/init.h>

static bool demo_inject;

int demo_submit(int x)
{
	if (demo_inject)
		return -EIO;
	return x;
}

static int __init demo_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("demo", NULL);

	debugfs_create_bool("inject", 0600, dir, &demo_inject);
	return 0;
}
late_initcall(demo_debugfs_init);
