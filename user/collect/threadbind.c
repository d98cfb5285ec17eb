// SPDX-License-Identifier: GPL-2.0
/* Binding a --pid target's threads: see threadbind.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cores.h"
#include "target/descend.h"
#include "base/errbuf.h"
#include "target/target.h"
#include "threadbind.h"

int threadbind_start(struct threadbind *tb, const char *proc, pid_t pid, bool launch, char *err,
		     size_t errlen)
{
	int n;

	tb->tids = NULL;
	tb->nr_tids = 0;
	if (launch) {
		tb->tids = malloc(sizeof(*tb->tids));
		if (!tb->tids)
			return -ENOMEM;
		tb->tids[0] = pid;
		tb->nr_tids = 1;
		return 0;
	}
	n = target_threads(proc, pid, &tb->tids);
	if (n <= 0)
		return errbuf_set(err, errlen, n < 0 ? n : -ESRCH,
				  "process %d has no live thread to trace", pid);
	tb->nr_tids = (unsigned int)n;
	return 0;
}

static bool known(const struct threadbind *tb, pid_t tid)
{
	unsigned int i;

	for (i = 0; i < tb->nr_tids; i++)
		if (tb->tids[i] == tid)
			return true;
	return false;
}

/* Binds one new thread and remembers it; -ESRCH when it is gone. */
static int bind_one(struct threadbind *tb, struct cores *cores, pid_t tid, char *err, size_t errlen)
{
	pid_t *grown;
	int ret;

	ret = cores_add_thread(cores, tid);
	if (ret == -ESRCH)
		return ret;
	if (ret)
		return errbuf_set(err, errlen, ret, "%s", cores_last_error(cores));
	grown = realloc(tb->tids, (tb->nr_tids + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	tb->tids = grown;
	tb->tids[tb->nr_tids++] = tid;
	return 0;
}

int threadbind_late(struct threadbind *tb, struct cores *cores, const char *proc, pid_t pid,
		    char *err, size_t errlen)
{
	unsigned int round, i, added;
	pid_t *now;
	int n, ret;

	for (round = 0; round < 64; round++) {
		n = target_threads(proc, pid, &now);
		if (n < 0)
			return 0; /* gone: the watcher reports the exit */
		added = 0;
		for (i = 0; i < (unsigned int)n; i++) {
			if (known(tb, now[i]))
				continue;
			ret = bind_one(tb, cores, now[i], err, errlen);
			if (ret == -ESRCH)
				continue;
			if (ret) {
				free(now);
				return ret;
			}
			added++;
		}
		free(now);
		if (!added)
			return 0;
	}
	return 0;
}

int threadbind_descendants(struct cores *cores, const char *proc, pid_t pid, char *err,
			   size_t errlen)
{
	pid_t *pids, *tids;
	int n, i, k, nt, ret = 0;

	n = descend_list(proc, pid, &pids);
	for (i = 0; i < n && !ret; i++) {
		tids = NULL;
		nt = target_threads(proc, pids[i], &tids);
		for (k = 0; k < nt && !ret; k++) {
			ret = cores_add_thread(cores, tids[k]);
			if (ret == -ESRCH)
				ret = 0; /* gone: nothing to record */
			else if (ret)
				errbuf_set(err, errlen, ret, "%s", cores_last_error(cores));
		}
		free(tids);
	}
	free(pids);
	return ret;
}

uint64_t threadbind_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t)rl.rlim_cur;
}

void threadbind_free(struct threadbind *tb)
{
	free(tb->tids);
	tb->tids = NULL;
	tb->nr_tids = 0;
}
