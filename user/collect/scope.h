/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collection scope: which tasks the per-core events count.
 *
 *   process  events bound to the target's threads (inherit=1, but not
 *            across fork: inherit_thread=1), so the kernel itself starts and
 *            stops them at the target's own context switches and the
 *            per-core buffers hold the target's execution and nothing else;
 *   cgroup   cgroup v2 events (the target's cgroup, a given one, or for a
 *            launched command a leaf cgroup made for it);
 *   cpu      everything on each CPU, paused by ptbpf while the target is
 *            stopped (LLDB's per-core design; the comparison).
 *
 * Pure logic: scope_plan() decides from counts what to open and why, so a
 * test reaches every branch without a kernel.
 */
#ifndef PTBPF_SCOPE_H
#define PTBPF_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/snapshot.h"

/*
 * Default cap on the perf events a process-scope --pid run may open
 * (threads x CPUs x 2: a data and a sideband event per thread and CPU);
 * each is a file descriptor.
 */
#define SCOPE_DEFAULT_MAX_EVENTS 16384
/* Events per thread and CPU: the data event and its sideband. */
#define SCOPE_EVENTS_PER_GROUP 2

/* "auto", "process", "cgroup", "cpu"; "?" for anything else. */
const char *scope_name(enum ptbpf_scope s);

/* Parses a name as scope_name() gives it. Returns -EINVAL when unknown. */
int scope_parse(const char *name, enum ptbpf_scope *out);

struct scope_request {
	enum ptbpf_scope scope; /* as asked: SCOPE_AUTO unless --scope/--cgroup */
	bool launch; /* -- COMMAND: one inherited event per CPU covers it */
	bool no_pause; /* --no-pause: only meaningful in cpu scope */
	unsigned int nr_threads; /* --pid: threads seen in /proc at attach */
	unsigned int nr_cpus; /* CPUs to trace */
	unsigned long max_events; /* 0: SCOPE_DEFAULT_MAX_EVENTS */
	/*
	 * The descriptor limit (RLIMIT_NOFILE, `ulimit -n`) the events are
	 * opened under, SCOPE_FD_RESERVE of it kept for the rest; 0: none.
	 * When it leaves less room than max_events, it is the limit named.
	 */
	uint64_t nofile;
};

/* Descriptors kept for everything but the per-thread events. */
#define SCOPE_FD_RESERVE 256

/*
 * Decide the scope for @req into *@out. With SCOPE_AUTO: process, unless
 * --no-pause asks for the old behaviour (cpu) or a --pid target has so
 * many threads that its events would pass the limit (cpu; @why then says
 * so, e.g. "cpu: 1100 threads x 64 CPUs x 2 needs 140800 events, over the
 * limit of 16384 (--max-events)", or "... over the 744 descriptors left by
 * the limit of 1000 open files (RLIMIT_NOFILE, ulimit -n)"); @why is ""
 * when nothing fell back.
 *
 * Returns -EINVAL with one line in @why when the request can't be met: an
 * explicit process scope over the limit, or --no-pause outside cpu scope.
 */
int scope_plan(const struct scope_request *req, enum ptbpf_scope *out, char *why, size_t whylen);

/* The events a process-scope run opens for @nr_threads x @nr_cpus. */
uint64_t scope_events(unsigned int nr_threads, unsigned int nr_cpus);

#endif /* PTBPF_SCOPE_H */
