/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process scope with --pid: the target's threads (and, with --follow, its
 * descendants' threads) that get events of their own, as perf record -p
 * binds them. A thread created after its creator's events are open
 * inherits them; one created between the first /proc scan and that open
 * is found by scanning again until a scan finds none new.
 *
 * Errors are -errno; the ones from the cores come with their line in the
 * caller's buffer.
 */
#ifndef PTBPF_THREADBIND_H
#define PTBPF_THREADBIND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cores;

struct threadbind {
	pid_t *tids; /* the threads bound so far, the first one's first */
	unsigned int nr_tids;
};

/*
 * The threads to open events on at the start: @pid alone for a launched
 * command (@launch; its threads all come later and inherit), else every
 * thread of process @pid under @proc ("/proc").
 *
 * Returns 0.
 * Returns -ESRCH (with @err) when the process has no live thread.
 * Returns -ENOMEM, or what reading @proc gave.
 */
int threadbind_start(struct threadbind *tb, const char *proc, pid_t pid, bool launch, char *err,
		     size_t errlen);

/*
 * Binds, through cores_add_thread(), every thread of @pid that appeared
 * since threadbind_start(), scanning until a scan finds none new (64 at
 * most). A thread gone meanwhile is skipped; so is a process gone (the
 * watcher reports its exit).
 *
 * Returns 0, -ENOMEM, or the cores' error with its line in @err.
 */
int threadbind_late(struct threadbind *tb, struct cores *cores, const char *proc, pid_t pid,
		    char *err, size_t errlen);

/*
 * --follow with --pid: every thread of @pid's descendants from before the
 * attach gets events as the target's own threads do (what they fork
 * later inherits them).
 *
 * Returns 0 or the cores' error with its line in @err.
 */
int threadbind_descendants(struct cores *cores, const char *proc, pid_t pid, char *err,
			   size_t errlen);

/*
 * Raises the soft RLIMIT_NOFILE to the hard one (each perf event is a
 * descriptor) and returns it, for scope_plan() to name when it is what
 * bounds the events; 0 when unknown or unlimited.
 */
uint64_t threadbind_nofile(void);

/* Releases the list. */
void threadbind_free(struct threadbind *tb);

#endif /* PTBPF_THREADBIND_H */
