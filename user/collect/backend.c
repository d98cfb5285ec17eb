// SPDX-License-Identifier: GPL-2.0
/* The backends' ops: one row each. See backend.h. */
#include <time.h>

#include "backend.h"
#include "perffile.h"
#include "ptbe.h"
#include "samplebe.h"

/* In --backend auto's order: intel-pt where the CPU has it. */
static const struct backend_ops table[] = {
	{
		.id = BACKEND_INTEL_PT,
		.perf_event = "intel_pt//",
		.perf_pmu_event = true,
		.aux = true,
		.rec_pages = PTBE_RECORD_PAGES,
		.drain_ns = PTBE_DRAIN_NS,
		.auxtrace_type = PERFFILE_AUXTRACE_INTEL_PT,
		.auxtrace_priv = ptbe_auxtrace_priv,
		.tsc = true,
		.clockid = -1,
		.lldb = true,
		.cpu_info = true,
		.data_attr = ptbe_data_attr,
		.present = ptbe_present,
	},
	{
		.id = BACKEND_SAMPLE,
		.perf_event = "cpu-clock",
		.samples = true,
		.clockid = CLOCK_MONOTONIC,
		.data_attr = samplebe_data_attr,
		.present = samplebe_present,
	},
};

static const struct backend_ops unresolved = { .id = BACKEND_AUTO, .clockid = -1 };

const struct backend_ops *backend_ops(enum ptbpf_backend b)
{
	unsigned int i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].id == b)
			return &table[i];
	return &unresolved;
}

bool backend_known(enum ptbpf_backend b)
{
	return backend_ops(b) != &unresolved;
}

const struct backend_ops *backend_nth(unsigned int i)
{
	return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

enum ptbpf_backend backend_pick(enum ptbpf_backend asked, const char *sysfs_root)
{
	const struct backend_ops *be;
	unsigned int i;

	if (asked != BACKEND_AUTO)
		return asked;
	for (i = 0; (be = backend_nth(i)); i++)
		if (be->present(sysfs_root))
			return be->id;
	return BACKEND_AUTO;
}
