/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What must not outlive ptbpf: a --wait-for process held stopped, and the
 * leaf cgroup made for a command. ptbpf lets them go itself on every path
 * out it runs; SIGKILL, the OOM killer or a crash run none. The guardian
 * is a tiny process forked for that: it reads what ptbpf holds from a
 * pipe, and when the pipe's write end closes, which the kernel does
 * however ptbpf ends, it lets go of what is still held (SIGCONT through a
 * pidfd, the leaf's processes moved to its parent and the leaf removed)
 * and exits. A clean end tells it there is nothing left first.
 *
 * It is in a process group of its own (a Ctrl-C or kill of ptbpf's group
 * spares it), holds none of ptbpf's descriptors, and ignores the signals
 * that end ptbpf.
 */
#ifndef PTBPF_GUARDIAN_H
#define PTBPF_GUARDIAN_H

#include <sys/types.h>

struct guardian {
	int fd; /* the pipe's write end, -1 when not started */
	pid_t pid;
};

/* Not started: every call below is a no-op that returns 0. */
void guardian_init(struct guardian *g);

/* Forks the guardian once (later calls return 0). Returns 0 or -errno. */
int guardian_start(struct guardian *g);

/* @pid is held stopped: SIGCONT to it if ptbpf dies before release. */
int guardian_hold(struct guardian *g, pid_t pid);

/* ptbpf let the held process go itself. */
int guardian_release(struct guardian *g);

/* The leaf cgroup @path: removed if ptbpf dies before guardian_leaf_gone(). */
int guardian_leaf(struct guardian *g, const char *path);

/* ptbpf removed the leaf itself. */
int guardian_leaf_gone(struct guardian *g);

/* Nothing left to hold: ends the guardian and reaps it. */
void guardian_stop(struct guardian *g);

/*
 * Removes the leaf cgroup @path: its processes go to the parent cgroup
 * first. Retried for up to @wait_ms while processes fork into it. Uses no
 * malloc or stdio (the guardian runs it in a child of a threaded process).
 * Returns 0 or -errno of the last rmdir(2).
 */
int guardian_remove_leaf(const char *path, unsigned int wait_ms);

#endif /* PTBPF_GUARDIAN_H */
