/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the run asks of the per-core collection (struct cores_config), and
 * the hook its informational lines go to. Below the plan (coreplan.h), the
 * cores (cores.h) and each backend's own steps (backend.h's rows), which
 * all read it: none of them needs a module above it to know what was
 * asked.
 */
#ifndef PTBPF_CORECFG_H
#define PTBPF_CORECFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "base/snapshot.h"

struct hitpoint;

#define CORES_DEFAULT_BUFFER (4UL << 20) /* per-core trace buffer */
/*
 * Per-core switch records: 48 bytes each; a core that switches 5,000 times
 * a second (a target that sleeps often) fills 1 MiB in about 4 s.
 */
#define CORES_DEFAULT_SIDEBAND (1UL << 20)
/* Across all cores; LLDB's default process trace size limit is 500 MiB. */
#define CORES_DEFAULT_TOTAL_LIMIT (512ULL << 20)

typedef void (*cores_report_fn)(void *ctx, const char *msg);

struct cores_config {
	/* AUTO: the first backend of the table this machine has (backend.h) */
	enum ptbpf_backend backend;
	const int *cpus; /* CPUs to trace; NULL: every configured CPU */
	unsigned int nr_cpus;
	size_t buffer_size; /* per-core trace bytes requested; 0: default */
	size_t sideband_size; /* per-core sideband bytes; 0: default */
	uint64_t total_limit; /* all buffers of all cores; 0: default */
	bool start_running; /* initial state; false: paused */
	bool kernel; /* trace kernel space too */
	int cgroup_fd; /* cgroup v2 directory fd, or -1 */
	/* PROCESS needs @tids; AUTO: CGROUP with a cgroup_fd, else CPU */
	enum ptbpf_scope scope;
	const pid_t *tids; /* process scope: the threads to bind to */
	unsigned int nr_tids;
	/*
	 * Process scope, a command held before its exec: the events are armed
	 * with enable_on_exec, so its first instruction is the first recorded
	 * and none of the pre-exec code is; the core counts as running.
	 */
	bool enable_on_exec;
	/*
	 * Process scope, --follow: the events are inherited by the processes
	 * the target forks too (inherit without inherit_thread), and write
	 * into the same rings.
	 */
	bool follow;
	/*
	 * cpu and cgroup scope: pause and resume every core at once, each
	 * from a thread pinned to its CPU (cpurun.h), at SCHED_FIFO
	 * @parallel_rt_prio when > 0. false: serial, from the caller (the
	 * simulated PMU of the tests is single-threaded).
	 */
	bool parallel;
	int parallel_rt_prio;
	/* a backend whose records are samples: Hz; 0: EVATTR_SAMPLE_FREQ */
	unsigned int sample_freq;
	enum ptbpf_callgraph call_graph; /* samples' call stacks; default FP */
	/* CALLGRAPH_DWARF bytes; 0: EVATTR_STACK_USER_DEFAULT */
	__u32 stack_size;
	/*
	 * A backend with an AUX area, process scope: --trigger-on points that
	 * the kernel cuts the trace at (auxact.h), in every group. Where the
	 * kernel or the PMU has no aux-action there are none (reported, not
	 * an error). The points must outlive the cores.
	 */
	const struct hitpoint *pause_points;
	unsigned int nr_pause_points;
	const char *sysfs_root; /* NULL: "/sys" */
	cores_report_fn report; /* may be NULL */
	void *report_ctx;
};

/* Defaults: backend auto, all CPUs, paused, no cgroup (cgroup_fd -1). */
void cores_config_init(struct cores_config *cfg);

/*
 * One informational line (backend chosen, size rounded) to @cfg's report
 * hook, printf-style; nothing without one (or without @cfg).
 */
void corecfg_report(const struct cores_config *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* PTBPF_CORECFG_H */
