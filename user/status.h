/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The status line: while ptbpf runs with stderr on a terminal, one line at
 * the bottom, redrawn in place, says where the run stands (the target's
 * state, the stops seen, the snapshots written and their bytes, the disk
 * used against --max-size). The lines that say what happened (start, exec,
 * fatal, exit, end, errors) print above it. On anything but a terminal,
 * and whenever ptbpf's job is not in the terminal's foreground (a shell
 * prompt is there), no status line: plain lines, as always.
 *
 * The stderr writer (say.h) owns the terminal: it erases the status line
 * before lines go out and draws it again after them, and never waits on
 * the control path's behalf. This module keeps what the line says.
 */
#ifndef PTBPF_STATUS_H
#define PTBPF_STATUS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Turns the status line on when @fd (the one say_start() was given) is a
 * terminal and @wanted (not -q). Returns whether it is on.
 */
bool status_open(int fd, bool wanted);

/* True when the status line stands in for the per-stop lines. */
bool status_on(void);

/* A plain line (no newline in @line): above the status line when shown. */
void status_say(const char *line);

/* status_say() of a line that comes as often as the target makes it. */
void status_say_limited(const char *line);

/* status_say() of a printf-style line. */
void status_say_f(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The target's state now ("running", "stopped (SIGTSTP, group_stop)"). */
void status_target(const char *state, bool stop);

/* A snapshot was written: @bytes of it; @dir_used of @max_size (0: none). */
void status_snapshot(uint64_t bytes, uint64_t dir_used, uint64_t max_size);

/*
 * A redraw was held back (they come at most every 100 ms): the event loop
 * calls status_flush() within that time.
 */
bool status_pending(void);
void status_flush(void);

/* Clears the status line for good (the run is over). */
void status_close(void);

#endif /* PTBPF_STATUS_H */
