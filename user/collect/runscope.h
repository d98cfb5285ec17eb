/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scope of one run, between the options and the cores: planned
 * (scope_plan()) from what was asked, the target's threads and the CPUs;
 * in cgroup scope its cgroup opened, or for a launched command a leaf made
 * for it (the guardian removes it if ptbpf is killed), and given to the
 * BPF side; in process scope the threads bound once the cores are open;
 * and what is said of it at start.
 *
 *	runscope_init(&s);
 *	runscope_plan(&s, &req, err, len);
 *	cc.scope = s.kind; cc.tids = s.threads.tids; ...; cores_open(&cc, ...);
 *	runscope_bind(&s, cores, err, len);
 *	runscope_report(&s, cores, report, ctx);
 *	runscope_close(&s);
 *
 * Errors: -errno with one line in the caller's buffer.
 */
#ifndef PTBPF_RUNSCOPE_H
#define PTBPF_RUNSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cores.h"
#include "threadbind.h"
#include "base/snapshot.h"

struct guardian;
struct watch;

/* What the scope is planned from. */
struct runscope_req {
	enum ptbpf_scope scope; /* as asked: --scope, --cgroup, --unit */
	pid_t pid; /* the target */
	bool launch; /* a command ptbpf started, held before its exec */
	bool no_pause; /* --no-pause: only cpu scope has it */
	/* --pid --follow: the processes it forked before the attach too */
	bool descendants;
	const int *cpus; /* --cpus; NULL: every CPU */
	unsigned int nr_cpus;
	unsigned long max_events; /* --max-events; 0: SCOPE_DEFAULT_MAX_EVENTS */
	const char *cgroup_path; /* --cgroup=PATH or --unit's; NULL: the target's */
	struct guardian *guard; /* removes a leaf made for a command */
	struct watch *watch; /* told the cgroup, in cgroup scope */
};

struct runscope {
	enum ptbpf_scope kind; /* planned: process, cgroup or cpu */
	char why[256]; /* why auto fell back, "" when it did not */
	int cgroup_fd; /* cgroup scope: the cgroup's directory; else -1 */
	char leaf[4096]; /* the cgroup made for the command, "" when none */
	struct threadbind threads; /* process scope: the threads bound */
	/* from the request, for what comes after the plan */
	pid_t pid;
	bool launch, descendants;
	const char *cgroup_path;
};

/* Nothing planned: runscope_close() is safe. */
void runscope_init(struct runscope *s);

/*
 * Plans the scope for @req into @s (s->kind, s->why) and, in cgroup
 * scope, opens the cgroup (or makes the command's leaf) and has the BPF
 * side watch for threads that leave it.
 * Returns 0 or -errno with one line in @err: -ESRCH (the target has no live
 * thread), -EINVAL (the scope asked can't be met: scope_plan()), what
 * opening or making the cgroup returned, or what watch_cgroup() returned.
 */
int runscope_plan(struct runscope *s, const struct runscope_req *req, char *err, size_t errlen);

/*
 * The cores are open: in process scope, with --pid, the target's threads
 * that appeared since the plan get events too, and with --follow those of
 * the processes it forked before the attach (a launched command's threads
 * all inherit them). Returns 0 or the cores' -errno with its line in @err.
 */
int runscope_bind(struct runscope *s, struct cores *cores, char *err, size_t errlen);

/*
 * What is said of the scope at start, one line each to @report (with
 * @ctx): the scope in force (in process scope with @cores' event count),
 * and why auto fell back, if it did.
 */
void runscope_report(const struct runscope *s, const struct cores *cores, cores_report_fn report,
		     void *ctx);

/* Closes the cgroup, removes the leaf made for the command, frees @s. */
void runscope_close(struct runscope *s);

#endif /* PTBPF_RUNSCOPE_H */
