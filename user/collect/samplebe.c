// SPDX-License-Identifier: GPL-2.0
/* The sample backend's own steps. See samplebe.h. */
#include <errno.h>

#include "base/errbuf.h"
#include "evattr.h"
#include "samplebe.h"

int samplebe_data_attr(const struct cores_config *cfg, struct perf_event_attr *attr, size_t *psb,
		       struct snap_cpu_info *info, char *err, size_t errlen)
{
	unsigned int freq;
	int rc;

	(void)info;
	if (!cfg || !attr || !psb)
		return -EINVAL;
	*psb = 0;
	if (evattr_sample_freq(cfg->sample_freq, NULL, &freq) > 0)
		corecfg_report(cfg, "sampling at %u Hz, not %u: kernel.perf_event_max_sample_rate",
			       freq, cfg->sample_freq ? cfg->sample_freq : EVATTR_SAMPLE_FREQ);
	rc = evattr_sample(attr, cfg->kernel, !cfg->start_running, freq);
	if (!rc)
		rc = evattr_sample_callgraph(attr, cfg->call_graph, cfg->stack_size, cfg->kernel);
	if (rc)
		return errbuf_set(err, errlen, rc, "--call-graph: %s",
				  rc == -EOPNOTSUPP ? "dwarf is not known on this architecture" :
						      "invalid stack size");
	return 0;
}

bool samplebe_present(const char *sysfs_root)
{
	(void)sysfs_root;
	return true;
}
