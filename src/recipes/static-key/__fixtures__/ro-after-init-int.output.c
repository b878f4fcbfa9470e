// SPDX-License-Identifier: GPL-2.0
/* A fixture written for kseries: an int flag that starts true, tested many ways. */
#include <linux/slab.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include "local.h"

static DEFINE_STATIC_KEY_TRUE_RO(widget_checks);

static int __init widget_nochecks(char *str)
{
	static_branch_disable(&widget_checks);
	return 1;
}
__setup("widget_nochecks", widget_nochecks);

int widget_validate(const struct widget_descriptor *desc, unsigned long flags)
{
	if (!static_branch_likely(&widget_checks))
		return 0;
	if (!static_branch_unlikely(&widget_checks))
		return 0;
	if (desc->owner_has_a_rather_long_field_name &&
	    static_branch_likely(&widget_checks) && flags)
		return -EINVAL;
	while (!static_branch_likely(&widget_checks))
		cpu_relax();
	if (flags) {
		return 1;
	} else if (static_branch_likely(&widget_checks)) {
		return 2;
	}
	return 3;
}
