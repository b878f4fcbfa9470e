// SPDX-License-Identifier: GPL-2.0
#include <linux/sysctl.h>

static bool demo_trace;

void demo_event(int what)
{
	if (demo_trace && what > 2)
		pr_info("demo: event %d\n", what);
}

static struct ctl_table demo_table[] = {
	{
		.procname	= "demo_trace",
		.data		= &demo_trace,
		.maxlen		= sizeof(demo_trace),
		.mode		= 0644,
		.proc_handler	= proc_dobool,
	},
};

static int __init demo_init(void)
{
	register_sysctl("kernel", demo_table);
	return 0;
}
late_initcall(demo_init);
