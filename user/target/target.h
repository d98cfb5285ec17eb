/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced process: checking a --pid, or starting a command held before
 * its exec, and the pidfd that says, authoritatively, when it is gone (a
 * pid number can be reused; a pidfd cannot).
 */
#ifndef PTBPF_TARGET_H
#define PTBPF_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct target {
	pid_t pid;
	int pidfd; /* -1 when none */
	bool child; /* started by us: we reap it */
	int go_fd; /* child: write end of the pipe it waits on, or -1 */
	int err_fd; /* child: read end that reports a failed exec, or -1 */
	const char *name; /* child: the command, as given (argv[0]) */
	int killed_by; /* child, once reaped: the signal it died of; 0: exited */
};

/* No process yet: every descriptor -1, so target_close() is safe. */
void target_init(struct target *t);

/*
 * Checks that @pid names a live user-space process that is not ourselves,
 * and opens its pidfd. @proc is the proc root ("/proc"). On error writes one
 * line into @err and returns: -ESRCH (no such process, or a zombie), -EPERM
 * (kernel thread, ourselves), -EINVAL (a thread id, not a process id).
 */
int target_attach(struct target *t, pid_t pid, const char *proc, char *err, size_t errlen);

/*
 * Forks a child that waits, before its exec, until target_release(). When
 * @uid is not -1 the child drops to @uid/@gid (the user who ran sudo) before
 * exec. Returns 0 or -errno with @err filled.
 */
int target_spawn(struct target *t, char **argv, int uid, int gid, char *err, size_t errlen);

/*
 * Lets a spawned child exec. Returns 0, or -errno of a failed exec (e.g.
 * -ENOENT) with @err filled; the child has then exited with status 127.
 */
int target_release(struct target *t, char *err, size_t errlen);

/*
 * Reaps a spawned child and returns its status as a shell would: the exit
 * code, or 128 + signal. Returns -errno on failure.
 */
int target_reap(struct target *t);

/*
 * Sends @sig to a spawned child not yet reaped (until then its pid can't
 * name another process). Returns 0, -ECHILD when @t has no such child, or
 * -errno of kill(2).
 */
int target_signal(const struct target *t, int sig);

/* Kills (SIGKILL) and reaps a spawned child that never got to run. */
void target_abort(struct target *t);
void target_close(struct target *t);

/* What ptbpf reads of a /proc stat file. */
struct target_stat {
	char state; /* 'R', 'S', 'T', 't', 'Z', 'X', ... */
	pid_t ppid;
	unsigned long flags; /* PF_* */
};

/*
 * Reads the stat file @path (@proc/PID/stat or @proc/PID/task/TID/stat)
 * into @st. The comm field may hold any byte, spaces and ')' too, so the
 * fields are taken after the last ')'.
 *
 * Returns 0, -errno when it cannot be opened or read, -ESRCH when it is empty and
 * -EINVAL when its fields are not there.
 */
int target_read_stat(const char *path, struct target_stat *st);

/*
 * The state letter of thread @tid (a decimal string) of process @pid in
 * @proc/PID/task/TID/stat: 'R', 'S', 'T' (job-control stop), 't' (ptrace
 * stop), 'Z' or 'X' (exited; a leader that called pthread_exit() stays a
 * zombie while its other threads run on) ...; 0 when it is not there.
 */
char target_thread_state(const char *proc, pid_t pid, const char *tid);

/*
 * Whether thread @tid of process @pid has begun to exit (PF_EXITING, set
 * before the kernel's sched_process_exit tracepoint), has exited, or is
 * not in @proc at all.
 */
bool target_thread_exiting(const char *proc, pid_t pid, const char *tid);

/*
 * The live threads of process @pid from @proc/PID/task (zombie threads,
 * e.g. a leader that called pthread_exit(), are left out: perf can't bind
 * to them), into a malloc'd array. Returns the count (0 when none is
 * live), or -errno (-ESRCH when the process is gone, -ENOMEM).
 */
int target_threads(const char *proc, pid_t pid, pid_t **tids);

/* SUDO_UID/SUDO_GID when run through sudo as root, else -1/-1. */
void target_invoking_user(int *uid, int *gid);

#endif /* PTBPF_TARGET_H */
