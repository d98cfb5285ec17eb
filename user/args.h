/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line, turned into one config struct. No side effects: tests
 * call args_parse() with a made-up argv.
 */
#ifndef PTBPF_ARGS_H
#define PTBPF_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "control/control.h"
#include "base/snapshot.h"
#include "snapfmt.h"

#define ARGS_MAX_CPUS 4096

struct config {
	pid_t pid; /* 0 when a command is given */
	char **cmd; /* NULL-terminated argv of the command, or NULL */
	const char *wait_for; /* --wait-for: a program's name or path */
	const char *unit; /* --unit: a systemd unit, "NAME.service" */
	bool follow; /* --follow (--unit implies it) */
	const char *output;
	enum ptbpf_backend backend;
	size_t buffer_size; /* bytes asked for; 0: the default */
	int *cpus; /* sorted, unique; NULL: every online CPU */
	unsigned int nr_cpus;
	unsigned int triggers; /* enum trigger_bits */
	unsigned int max_snapshots; /* 0: keep all */
	uint64_t max_size; /* bytes of snapshots kept; 0: no limit */
	bool max_size_default; /* max_size is ARGS_MAX_SIZE_DEFAULT (or grown) */
	uint64_t min_interval_ns; /* 0: a snapshot per stop */
	unsigned int formats; /* SNAPWRITE_* (snapwrite.h) */
	bool full;
	bool no_pause;
	bool kernel;
	enum ptbpf_scope scope; /* --scope; --cgroup means SCOPE_CGROUP */
	unsigned long max_events; /* --max-events; 0: the default */
	bool cgroup; /* --cgroup given */
	const char *cgroup_path; /* NULL: the target's own cgroup */
	unsigned int grace_ms; /* --grace: SIGTERM to SIGKILL, for a command */
	unsigned int freq; /* -F: sample backend, Hz; 0: --overhead picks it */
	double overhead_pct; /* --overhead; 0: not given (the default budget) */
	enum ptbpf_callgraph call_graph; /* --call-graph; default fp */
	unsigned int stack_size; /* --call-graph dwarf,SIZE; 0: default */
	unsigned int crash_stack; /* --crash-stack: bytes of stack at a fault */
	/* --trigger-on SPEC, as given, in order (hitpoint.h parses them) */
	const char **hit_specs;
	unsigned int nr_hit_specs;
	uint64_t trigger_limit; /* --trigger-limit; 0: none */
	uint64_t duration_ns; /* --duration; 0: until the end */
	uint64_t min_history_ns; /* --min-history; 0: none */
	bool no_buildid_cache; /* -N: perf's $HOME/.debug left alone */
	int verbosity; /* -1 quiet, 0 normal, 1 verbose */
	bool help;
	bool version;
};

/*
 * Fills @cfg from @argc/@argv. On error writes one line (no prefix, no
 * newline) into @err and returns -EINVAL. --help and --version set their
 * flag and return 0 without checking the rest. @cfg->cpus and
 * @cfg->hit_specs are malloc'd: release with args_free().
 */
int args_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen);
void args_free(struct config *cfg);

/*
 * "4M", "64K", "1G", "4096": bytes into @out. Returns -EINVAL on a malformed
 * value, -ERANGE when it does not fit.
 */
int args_parse_size(const char *s, uint64_t *out);

/* The default --grace: how long a command has to end after SIGTERM. */
#define ARGS_GRACE_MS_DEFAULT 3000
/* --crash-stack: bpf/ptbpf.h's PTBPF_CRASH_STACK_DEFAULT and _MAX */
#define ARGS_CRASH_STACK_DEFAULT 32768
/*
 * --max-size when none is given: what the systemd unit keeps, so a run left
 * on fills no disk (grown to twice a larger --buffer-size).
 */
#define ARGS_MAX_SIZE_DEFAULT (1ULL << 30)
#define ARGS_CRASH_STACK_MAX 64512
#define ARGS_GRACE_MS_MAX (3600 * 1000)
#define ARGS_MIN_INTERVAL_MS_MAX (24 * 3600 * 1000ULL)
/* --duration and --min-history: at most a year, in ms */
#define ARGS_DURATION_MS_MAX (366 * 24 * 3600 * 1000ULL)
/* --trigger-on may be given this many times */
#define ARGS_MAX_TRIGGER_ON 64

/*
 * "3", "3s", "500ms", "2m", "0": milliseconds into @out (no unit: seconds).
 * Returns -EINVAL on a malformed value, -ERANGE above @max_ms.
 */
int args_parse_duration(const char *s, uint64_t max_ms, uint64_t *out);

/*
 * "0-3,8" into a sorted array without duplicates (malloc'd). Returns
 * -EINVAL on a malformed list or a CPU >= ARGS_MAX_CPUS, -ENOMEM.
 */
int args_parse_cpus(const char *s, int **cpus, unsigned int *nr);

/*
 * "fp", "dwarf", "dwarf,SIZE" (SIZE as args_parse_size(), a multiple of 8
 * up to 65528, what the kernel takes) or "none" into @mode and @stack (0
 * when not given). Returns -EINVAL when malformed or out of range.
 */
int args_parse_callgraph(const char *s, enum ptbpf_callgraph *mode, unsigned int *stack);

void args_usage(FILE *f);
#endif /* PTBPF_ARGS_H */
