// SPDX-License-Identifier: GPL-2.0
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/sysctl.h>

static DEFINE_STATIC_KEY_TRUE(demo_strict_key);

int demo_check(int uid)
{
	if (!static_branch_likely(&demo_strict_key))
		return 0;
	return uid ? -EPERM : 0;
}

#ifdef CONFIG_SYSCTL
/* proc_dointvec_minmax() on the key's value: the same inputs, the same value read back. */
static int demo_strict_sysctl(const struct ctl_table *table, int write,
			void *buffer, size_t *lenp, loff_t *ppos)
{
	int val = static_key_enabled(&demo_strict_key);
	struct ctl_table tmp = *table;
	int ret;

	tmp.data = &val;
	tmp.maxlen = sizeof(val);
	ret = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (write && !ret) {
		if (val)
			static_branch_enable(&demo_strict_key);
		else
			static_branch_disable(&demo_strict_key);
	}
	return ret;
}

static struct ctl_table demo_sysctls[] = {
	{
		.procname	= "demo_strict",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= demo_strict_sysctl,
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
