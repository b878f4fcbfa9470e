// SPDX-License-Identifier: GPL-2.0
#include <linux/init.h>
#include <linux/sysctl.h>

static int demo_strict __read_mostly = 1;

int demo_check(int uid)
{
	if (!demo_strict)
		return 0;
	return uid ? -EPERM : 0;
}

#ifdef CONFIG_SYSCTL
static struct ctl_table demo_sysctls[] = {
	{
		.procname	= "demo_strict",
		.data		= &demo_strict,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init demo_sysctl_init(void)
{
	register_sysctl_init("fs", demo_sysctls);
	return 0;
}
fs_initcall(demo_sysctl_init);
#endif
