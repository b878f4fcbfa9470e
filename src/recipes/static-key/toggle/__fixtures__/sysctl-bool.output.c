// SPDX-License-Identifier: GPL-2.0
#include <linux/jump_label.h>
#include <linux/sysctl.h>

static DEFINE_STATIC_KEY_FALSE(demo_trace_key);

void demo_event(int what)
{
	if (static_branch_unlikely(&demo_trace_key) && what > 2)
		pr_info("demo: event %d\n", what);
}

/* proc_dobool() on the key's value: the same inputs, the same value read back. */
static int demo_trace_sysctl(const struct ctl_table *table, int write,
			void *buffer, size_t *lenp, loff_t *ppos)
{
	bool val = static_key_enabled(&demo_trace_key);
	struct ctl_table tmp = *table;
	int ret;

	tmp.data = &val;
	tmp.maxlen = sizeof(val);
	ret = proc_dobool(&tmp, write, buffer, lenp, ppos);
	if (write && !ret) {
		if (val)
			static_branch_enable(&demo_trace_key);
		else
			static_branch_disable(&demo_trace_key);
	}
	return ret;
}

static struct ctl_table demo_table[] = {
	{
		.procname	= "demo_trace",
		.maxlen		= sizeof(bool),
		.mode		= 0644,
		.proc_handler	= demo_trace_sysctl,
	},
};

static int __init demo_init(void)
{
	register_sysctl("kernel", demo_table);
	return 0;
}
late_initcall(demo_init);
