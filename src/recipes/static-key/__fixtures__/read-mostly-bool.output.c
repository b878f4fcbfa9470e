// SPDX-License-Identifier: GPL-2.0
/*
 * A fixture written for kseries: a tracing-style flag tested on a hot path.
 */
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/spinlock.h>

struct sample_dev {
	bool tracing;
	int count;
};

/* Set when "sample_trace" is on the command line. */
static DEFINE_STATIC_KEY_FALSE(sample_tracing_key);

static void sample_slow_path(struct sample_dev *dev)
{
	pr_info("sample: %d events\n", dev->count);
}

void sample_event(struct sample_dev *dev)
{
	dev->count++;
	if (static_branch_unlikely(&sample_tracing_key))
		sample_slow_path(dev);
	/* dev->tracing is a member of the same name, not the flag */
	if (dev->tracing)
		dev->count--;
}

static int __init sample_trace_setup(char *str)
{
	static_branch_enable(&sample_tracing_key);
	return 1;
}
__setup("sample_trace", sample_trace_setup);

void sample_trace_stop(void)
{
	static_branch_disable(&sample_tracing_key);
}
