// SPDX-License-Identifier: GPL-2.0
/* What the run asks of the collection, and its report hook. See corecfg.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "corecfg.h"

void cores_config_init(struct cores_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = BACKEND_AUTO;
	cfg->cgroup_fd = -1;
}

void corecfg_report(const struct cores_config *cfg, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!cfg || !cfg->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg->report(cfg->report_ctx, msg);
}
