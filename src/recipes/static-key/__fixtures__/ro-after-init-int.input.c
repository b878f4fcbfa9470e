// SPDX-License-Identifier: GPL-2.0
/* A fixture written for kseries: an int flag that starts true, tested many ways. */
#include <linux/slab.h>
#include <linux/init.h>
#include "local.h"

static int widget_checks_enabled __ro_after_init = 1;

static int __init widget_nochecks(char *str)
{
	WRITE_ONCE(widget_checks_enabled, 0);
	return 1;
}
__setup("widget_nochecks", widget_nochecks);

int widget_validate(const struct widget_descriptor *desc, unsigned long flags)
{
	if (!widget_checks_enabled)
		return 0;
	if (likely(!READ_ONCE(widget_checks_enabled)))
		return 0;
	if (desc->owner_has_a_rather_long_field_name && widget_checks_enabled && flags)
		return -EINVAL;
	while (unlikely(!widget_checks_enabled))
		cpu_relax();
	if (flags) {
		return 1;
	} else if (likely(widget_checks_enabled)) {
		return 2;
	}
	return 3;
}
