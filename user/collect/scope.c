// SPDX-License-Identifier: GPL-2.0
/* The collection scope: see scope.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scope.h"

static const char *const names[] = {
	[SCOPE_AUTO] = "auto",
	[SCOPE_PROCESS] = "process",
	[SCOPE_CGROUP] = "cgroup",
	[SCOPE_CPU] = "cpu",
};

const char *scope_name(enum ptbpf_scope s)
{
	if ((unsigned int)s >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[s];
}

int scope_parse(const char *name, enum ptbpf_scope *out)
{
	unsigned int i;

	if (!name || !out)
		return -EINVAL;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			*out = (enum ptbpf_scope)i;
			return 0;
		}
	}
	return -EINVAL;
}

uint64_t scope_events(unsigned int nr_threads, unsigned int nr_cpus)
{
	return (uint64_t)nr_threads * nr_cpus * SCOPE_EVENTS_PER_GROUP;
}

int scope_plan(const struct scope_request *req, enum ptbpf_scope *out, char *why, size_t whylen)
{
	uint64_t need, limit, room;
	unsigned int threads;
	char what[160];

	if (!req || !out || !why || !whylen)
		return -EINVAL;
	why[0] = '\0';
	limit = req->max_events ? req->max_events : SCOPE_DEFAULT_MAX_EVENTS;
	snprintf(what, sizeof(what), "the limit of %" PRIu64 " (--max-events)", limit);
	if (req->nofile) {
		/* each event is a descriptor: `ulimit -n` may be the bound */
		room = req->nofile > SCOPE_FD_RESERVE ? req->nofile - SCOPE_FD_RESERVE : 0;
		if (room < limit) {
			limit = room;
			snprintf(what, sizeof(what),
				 "the %" PRIu64 " descriptors left by the limit of %" PRIu64
				 " open files "
				 "(RLIMIT_NOFILE, ulimit -n; %d kept for the rest)",
				 room, req->nofile, SCOPE_FD_RESERVE);
		}
	}
	/* A launched command is one task when its events are opened. */
	threads = req->launch ? 1 : req->nr_threads;
	need = scope_events(threads ? threads : 1, req->nr_cpus);
	switch (req->scope) {
	case SCOPE_CPU:
		*out = SCOPE_CPU;
		return 0;
	case SCOPE_CGROUP:
	case SCOPE_PROCESS:
		if (req->no_pause) {
			snprintf(why, whylen,
				 "--no-pause only applies to --scope cpu: in "
				 "%s scope the kernel stops collection "
				 "with the target",
				 scope_name(req->scope));
			return -EINVAL;
		}
		if (req->scope == SCOPE_PROCESS && need > limit) {
			snprintf(why, whylen,
				 "--scope process: %u threads x %u CPUs x %d "
				 "needs %" PRIu64 " events, over %s",
				 threads, req->nr_cpus, SCOPE_EVENTS_PER_GROUP, need, what);
			return -EINVAL;
		}
		*out = req->scope;
		return 0;
	case SCOPE_AUTO:
		break;
	default:
		snprintf(why, whylen, "unknown scope %d", (int)req->scope);
		return -EINVAL;
	}
	if (req->no_pause) {
		*out = SCOPE_CPU;
		snprintf(why, whylen, "cpu: --no-pause asks for cpu scope");
		return 0;
	}
	if (need > limit) {
		*out = SCOPE_CPU;
		snprintf(why, whylen,
			 "cpu: %u threads x %u CPUs x %d needs %" PRIu64 " events, over %s",
			 threads, req->nr_cpus, SCOPE_EVENTS_PER_GROUP, need, what);
		return 0;
	}
	*out = SCOPE_PROCESS;
	return 0;
}
