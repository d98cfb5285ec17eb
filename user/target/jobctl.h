/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Launch mode at a terminal: the command gets the terminal's job control,
 * as it would alone.
 *
 * The command runs in ptbpf's process group, the shell's job, so the
 * terminal's Ctrl-C, Ctrl-\ and Ctrl-Z reach it directly. The shell waits
 * for ptbpf's process and stops or continues the job; but recording must
 * go on while the command is stopped (that stop is what the user wants to
 * see). So at a terminal ptbpf splits in two at the start, before anything
 * is loaded:
 *
 *   front     the process the shell started: holds nothing, stops with
 *             the job on Ctrl-Z (or SIGTTIN, SIGTTOU) and continues with it
 *             on fg or bg, passes SIGINT/SIGTERM/SIGHUP/SIGUSR2 that a
 *             process sent it on to the recorder, and exits with the
 *             recorder's status (or dies of the same signal).
 *   recorder  its child: everything else. It ignores the job-control
 *             signals, and the terminal's own SIGINT and SIGQUIT, which
 *             are the command's: the command ends as it would alone, and
 *             the recorder follows it.
 *
 * Without a terminal in the foreground (CI, pipes, `ptbpf ... &`) none of
 * this happens: one process, as before.
 */
#ifndef PTBPF_JOBCTL_H
#define PTBPF_JOBCTL_H

#include <stdbool.h>
#include <sys/types.h>

struct jobctl {
	bool on; /* this is the recorder of a run at a terminal */
};

/*
 * When standard input is a terminal and this process is in its foreground
 * process group, forks the recorder. The front never returns from here: it
 * relays until the recorder exits and then exits with its status. In the
 * recorder, and in every other case, returns 0 with @jc set (@jc->on says
 * which); -errno when the fork failed.
 */
int jobctl_split(struct jobctl *jc);

/*
 * True when a signal with this si_code came from the terminal (the tty
 * driver sends SI_KERNEL) to a recorder: it was the command's to act on.
 */
bool jobctl_terminal_signal(const struct jobctl *jc, int si_code);

#endif /* PTBPF_JOBCTL_H */
