// SPDX-License-Identifier: GPL-2.0
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>

static DEFINE_STATIC_KEY_FALSE(quiet_mode_key);

void demo_report(const char *what)
{
	if (static_branch_unlikely(&quiet_mode_key))
		return;
	pr_info("demo: %s\n", what);
}

/* As param_set_bool(): no value means "1", and kstrtobool() takes the rest. */
static int quiet_mode_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = kstrtobool(val ?: "1", &on);
	if (ret)
		return ret;
	if (on)
		static_branch_enable(&quiet_mode_key);
	else
		static_branch_disable(&quiet_mode_key);
	return 0;
}

/* As param_get_bool(). */
static int quiet_mode_get(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%c\n",
		       static_key_enabled(&quiet_mode_key) ? 'Y' : 'N');
}

static const struct kernel_param_ops quiet_mode_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,
	.set = quiet_mode_set,
	.get = quiet_mode_get,
};
module_param_cb(quiet, &quiet_mode_ops, NULL, 0644);
MODULE_PARM_DESC(quiet, "Do not report");
