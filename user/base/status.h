/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status line: while ptbpf runs with stderr on a terminal that it
 * alone writes to, one line at the bottom, redrawn in place, says where
 * the run stands (the target's state, the stops seen, the snapshots
 * written and their bytes, the disk used against --max-size). The lines
 * that say what happened (start, exec, fatal, exit, end, errors) print
 * above it. On anything but a terminal, and whenever ptbpf's job is not in
 * the terminal's foreground (a shell prompt is there), no status line:
 * plain lines, as always, a line for every stop and snapshot.
 *
 * Only where nothing else writes: a target whose stdout or stderr is the
 * same terminal (a launched command always, it inherits ptbpf's) writes
 * whenever it likes, and no redraw can keep its lines from running into
 * ours, nor erase ours before its own (the terminal tells nobody). So then
 * plain lines only (status_shared()).
 *
 * The stderr writer (say.h) owns the terminal: it erases the status line
 * before lines go out and draws it again after them, and never waits on
 * the control path's behalf. This module keeps what the line says.
 */
#ifndef PTBPF_STATUS_H
#define PTBPF_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Turns the status line on when @fd (the one say_start() was given) is a
 * terminal and @wanted (not -q). Returns whether it is on.
 */
bool status_open(int fd, bool wanted);

/*
 * Whether process @pid (under the proc root @proc) has the terminal @fd is
 * on as its stdout or stderr: then the status line would interleave with
 * its output. False when @fd is no terminal; true when @pid's descriptors
 * can't be read (we can't tell: plain lines are the safe side).
 */
bool status_shared(int fd, const char *proc, pid_t pid);

/* True while the status line is on (it may not be drawn: see below). */
bool status_on(void);

/*
 * A plain line (no newline in @line): above the status line when shown.
 * Every byte of @line that a terminal would act on, a newline included,
 * is shown escaped (textesc.h): ptbpf's own words have none, so what is
 * escaped is the values that come from outside (paths, comm, a program's
 * arguments), and one of them never makes a line of its own on stderr.
 */
void status_say(const char *line);

/*
 * status_say() of a line that comes as often as the target makes it:
 * escaped the same way, then rate-limited (say_limited()).
 */
void status_say_limited(const char *line);

/* status_say() of a printf-style line. */
void status_say_f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The target's state now ("running", "stopped (SIGTSTP, group_stop)").
 * Returns true when the status line shows it now (on, and our job has the
 * terminal): the caller's own line for it may be left out.
 */
bool status_target(const char *state, bool stop);

/*
 * A snapshot was written: @bytes of it; @dir_used of @max_size (0: none).
 * Returns true when the status line shows it now (as status_target()).
 */
bool status_snapshot(uint64_t bytes, uint64_t dir_used, uint64_t max_size);

/* ptbpf stops (Ctrl-Z): the line is erased, not left for the shell's. */
void status_suspend(void);

/* Draws the line again now (continued: fg, bg), if our job has the terminal. */
void status_redraw(void);

/*
 * Within how many ms the event loop calls status_flush(), or -1: 100 when
 * a redraw was held back (they come at most every 100 ms); 500 while the
 * line was last drawn with the shell at the terminal (bg): `fg` of a job
 * that runs sends no SIGCONT, so the loop looks whether it is ours again.
 */
int status_poll_ms(void);
void status_flush(void);

/* Clears the status line for good (the run is over). */
void status_close(void);

#endif /* PTBPF_STATUS_H */
