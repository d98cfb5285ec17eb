/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side, from user space: checks that the kernel can run it, then
 * open -> set knobs -> load -> attach through the skeleton, and the ring
 * buffer of transitions. Nothing else in user space knows about BPF.
 */
#ifndef PTBPF_WATCH_H
#define PTBPF_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/ptbpf_types.h"

struct watch;

/* Called for each event, in ring-buffer order; non-zero stops consuming. */
typedef int (*watch_cb)(void *ctx, const struct ptbpf_event *e);

/*
 * Called with each crash record (@len bytes of it: the stack copy is cut
 * to what was read), before the fatal event it belongs to.
 */
typedef void (*watch_crash_cb)(void *ctx, const struct ptbpf_crash *c, size_t len);

/*
 * Checks privileges, BTF and the tracepoints, loads the program for thread
 * group @tgid and attaches it; with @follow the processes it creates, and
 * theirs, are traced too (PTBPF_EV_FORK tells of each). libbpf's messages
 * are shown when @verbose.
 * Returns NULL with errno set and one line in @err: EPERM (privileges),
 * ENOENT (no BTF, a tracepoint missing), or what libbpf returned.
 */
struct watch *watch_open(pid_t tgid, bool follow, bool verbose, watch_cb cb, void *ctx, char *err,
			 size_t errlen);

/*
 * What watch_open() checks first, for another loader of the program
 * (waitfor.c): privileges, BTF, the tracepoints; libbpf's messages then go
 * through say() when @verbose. *@btf gets the BTF file to load against,
 * NULL for the running kernel's. Returns 0 or -errno with one line in @err.
 */
int watch_check(bool verbose, const char **btf, char *err, size_t errlen);

/*
 * Registers the threads of the target that already exist (from
 * @proc/TGID/task) with their stopped/traced state, then arms process-level
 * reporting. Returns the initial state (PTBPF_PROC_RUNNING or
 * PTBPF_PROC_STOPPED), or -errno (-ESRCH when the target is gone).
 */
int watch_scan(struct watch *w, const char *proc);

/*
 * --unit: process @pid, which the target did not fork, is followed too:
 * its threads from @proc/PID/task with their states, its state in the
 * children map. A thread that starts or exits during the scan may be
 * counted wrong, as no event tells of it yet. Returns its state
 * (PTBPF_PROC_RUNNING or _STOPPED), -ESRCH (gone), -EEXIST (followed
 * already) or -EINVAL (no --follow, or the target itself).
 */
int watch_adopt(struct watch *w, const char *proc, pid_t pid);

/* The descriptor to poll for events. */
int watch_fd(const struct watch *w);

/* Delivers every event ready now to the callback. Returns the count or -errno. */
int watch_consume(struct watch *w);

/* Events the BPF program could not reserve ring-buffer space for, so far. */
uint64_t watch_lost(const struct watch *w);

/*
 * The process state as the BPF program holds it now (enum
 * ptbpf_proc_state); @seq (may be NULL) gets the number of the last
 * transition, the seq of its event.
 */
int watch_state(const struct watch *w, uint64_t *seq);

/*
 * True once the target took a fatal signal with its default action (the
 * kernel is ending it): a pause for a fatal event holds until its exit.
 */
bool watch_dying(const struct watch *w);

/*
 * As watch_state() and watch_dying(), for process @pid: the target or one
 * it follows. A followed process that is no longer in the BPF map has
 * exited (PTBPF_PROC_EXITED, @seq 0).
 */
int watch_proc_state(const struct watch *w, pid_t pid, uint64_t *seq);
bool watch_proc_dying(const struct watch *w, pid_t pid);

/*
 * --follow: the processes the BPF side follows besides the target, up to
 * @max into @pids. Returns how many.
 */
int watch_children(const struct watch *w, pid_t *pids, int max);

/* --follow: processes created that the BPF map had no room to follow. */
uint64_t watch_follow_full(const struct watch *w);

/*
 * Cgroup scope: the BPF side reports (PTBPF_EV_CGROUP_LEFT, once) a target
 * thread that runs outside the cgroup @cgroup_fd (and its descendants),
 * where the cgroup's perf events no longer record it. Returns 0 or -errno.
 */
int watch_cgroup(struct watch *w, int cgroup_fd);

/* Live and stopped thread counts, as the BPF program holds them. */
void watch_counts(const struct watch *w, int *live, int *stopped);

/*
 * Whether a thread of the target ran on @cpu since the last call for that
 * CPU, or runs there now; clears the mark. Every CPU counts as ran before
 * the first call (a thread may have been on it since before the attach).
 */
bool watch_cpu_take(struct watch *w, int cpu);

/*
 * --trigger-on: a uprobe on the file @path at file offset @offset, for
 * every process (the BPF side keeps the target's hits), whose events carry
 * @point. Returns 0, or -errno with one line in @err: -ENOSPC past
 * WATCH_MAX_HITPOINTS, else what the kernel refused.
 */
#define WATCH_MAX_HITPOINTS 64
int watch_hitpoint(struct watch *w, const char *path, uint64_t offset, unsigned int point,
		   char *err, size_t errlen);

/*
 * Detaches every --trigger-on uprobe (the run needs no more hits: its
 * limit is reached, or it ends): a hot function then stops trapping, in
 * the target and elsewhere, and stops filling the event ring. Safe on
 * NULL and when there are none.
 */
void watch_hitpoints_off(struct watch *w);

/* Detaches and unloads everything; safe on NULL. */
/*
 * Crash records: @stack bytes of the user stack each (at most
 * PTBPF_CRASH_STACK_MAX; 0: none), handed to @cb with the events' ctx.
 * Before the target runs.
 */
void watch_crashes(struct watch *w, unsigned int stack, watch_crash_cb cb);

/* Crash records the BPF side could not make (ring full, stack unreadable). */
uint64_t watch_crash_lost(const struct watch *w);

void watch_close(struct watch *w);

#endif /* PTBPF_WATCH_H */
