// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include <linux/moduleparam.h>

static bool quiet_mode;

void demo_report(const char *what)
{
	if (unlikely(quiet_mode))
		return;
	pr_info("demo: %s\n", what);
}

module_param_named(quiet, quiet_mode, bool, 0644);
MODULE_PARM_DESC(quiet, "Do not report");
