// SPDX-License-Identifier: GPL-2.0
/* The scope of one run, between the options and the cores (runscope.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runscope.h"
#include "scope.h"
#include "base/errbuf.h"
#include "target/cgroup.h"
#include "target/guardian.h"
#include "watch/watch.h"

void runscope_init(struct runscope *s)
{
	memset(s, 0, sizeof(*s));
	s->cgroup_fd = -1;
}

/* Cgroup scope: the cgroup asked, the target's, or a leaf for the command. */
static int open_cgroup(struct runscope *s, struct guardian *guard, char *err, size_t errlen)
{
	if (s->launch && !s->cgroup_path) {
		/* before the leaf exists: a killed ptbpf must not leave it */
		guardian_start(guard);
		s->cgroup_fd =
			cgroup_make_leaf("/proc", s->pid, s->leaf, sizeof(s->leaf), err, errlen);
		if (s->cgroup_fd < 0)
			s->leaf[0] = '\0';
		else
			guardian_leaf(guard, s->leaf);
	} else {
		s->cgroup_fd = cgroup_open(NULL, "/proc", s->pid, s->cgroup_path, err, errlen);
	}
	return s->cgroup_fd < 0 ? s->cgroup_fd : 0;
}

int runscope_plan(struct runscope *s, const struct runscope_req *req, char *err, size_t errlen)
{
	struct scope_request sr = {
		.scope = req->scope,
		.launch = req->launch,
		.no_pause = req->no_pause,
		.nr_cpus = req->cpus ? req->nr_cpus : (unsigned int)sysconf(_SC_NPROCESSORS_CONF),
		.max_events = req->max_events ? req->max_events : SCOPE_DEFAULT_MAX_EVENTS,
		.nofile = threadbind_nofile(),
	};
	int ret;

	s->pid = req->pid;
	s->launch = req->launch;
	s->descendants = req->descendants;
	s->cgroup_path = req->cgroup_path;
	ret = threadbind_start(&s->threads, "/proc", req->pid, req->launch, err, errlen);
	if (ret)
		return ret;
	/* a launched command has one thread yet: its others inherit */
	if (!req->launch)
		sr.nr_threads = s->threads.nr_tids;
	ret = scope_plan(&sr, &s->kind, s->why, sizeof(s->why));
	if (ret)
		return errbuf_set(err, errlen, ret, "%s", s->why);
	if (s->kind != SCOPE_CGROUP)
		return 0;
	ret = open_cgroup(s, req->guard, err, errlen);
	if (ret)
		return ret;
	ret = watch_cgroup(req->watch, s->cgroup_fd);
	if (ret)
		return errbuf_set(err, errlen, ret, "can't watch the target's cgroup: %s",
				  strerror(-ret));
	return 0;
}

int runscope_bind(struct runscope *s, struct cores *cores, char *err, size_t errlen)
{
	int ret;

	if (s->kind != SCOPE_PROCESS || s->launch)
		return 0;
	ret = threadbind_late(&s->threads, cores, "/proc", s->pid, err, errlen);
	if (!ret && s->descendants)
		ret = threadbind_descendants(cores, "/proc", s->pid, err, errlen);
	return ret;
}

void runscope_report(const struct runscope *s, const struct cores *cores, cores_report_fn report,
		     void *ctx)
{
	char msg[4200];

	if (s->kind == SCOPE_PROCESS)
		snprintf(msg, sizeof(msg),
			 "scope: process (%lu perf events on the target's "
			 "threads; the kernel switches them with it)",
			 cores_event_count(cores));
	else if (s->kind == SCOPE_CGROUP)
		snprintf(msg, sizeof(msg), "scope: cgroup %s",
			 s->leaf[0]	? s->leaf :
			 s->cgroup_path ? s->cgroup_path :
					  "(the target's)");
	else
		snprintf(msg, sizeof(msg), "scope: cpu (every task on each traced CPU)");
	report(ctx, msg);
	if (s->why[0]) {
		snprintf(msg, sizeof(msg), "scope fell back to %s", s->why);
		report(ctx, msg);
	}
}

void runscope_close(struct runscope *s)
{
	if (s->cgroup_fd >= 0)
		close(s->cgroup_fd);
	s->cgroup_fd = -1;
	if (s->leaf[0])
		cgroup_remove_leaf(s->leaf);
	s->leaf[0] = '\0';
	threadbind_free(&s->threads);
}
