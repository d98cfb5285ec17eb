/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Human lines on stderr that never make their writer wait. A stderr that
 * blocks (a pipe nobody reads, `| less` that is not reading, a terminal
 * after Ctrl-S) must not hold up the control path (event -> ioctl) or the
 * snapshot writer: lines go into a fixed ring, one thread of their own
 * writes them out, and a line that does not fit is dropped and counted.
 *
 *	say_start(STDERR_FILENO);
 *	say("ptbpf: snapshot %d written\n", id);
 *	say_stop(500);
 */
#ifndef PTBPF_SAY_H
#define PTBPF_SAY_H

#include <stdarg.h>
#include <stdint.h>

/* Bytes of lines that may wait for a slow stderr. */
#define SAY_RING_SIZE (64 * 1024)
/*
 * say_limited(): a burst of SAY_BURST lines, then SAY_RATE a second; the
 * rest are folded into one "N lines folded" line (events.jsonl has them).
 */
#define SAY_BURST 50
#define SAY_RATE 10

/*
 * Starts the thread that writes the lines to @fd. Until it runs (or if it
 * cannot start) say() writes straight to @fd. Returns 0 or -errno.
 */
int say_start(int fd);

/*
 * Queues one line (printf format; the caller ends it with '\n'). Never
 * blocks on @fd: when the ring is full the whole line is dropped.
 */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say_v(const char *fmt, va_list ap);

/*
 * say() for the lines that come as often as the target makes them (stops,
 * runs, hits, snapshots, lost events): rate-limited (SAY_BURST,
 * SAY_RATE); the lines past the limit are folded and a line says how many,
 * before the next line that goes out, a second after, or at say_stop().
 */
void say_limited(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Another limit (tests): a burst of @burst lines, then @rate a second. */
void say_set_limit(unsigned int burst, unsigned int rate);

/* Lines say_limited() folded so far. */
uint64_t say_folded(void);

/*
 * The status line (status.h) below the lines, kept there: the writer
 * erases it before lines go out and draws @line again after them; NULL or
 * "" erases it for good. Only while our job has the terminal; no newline.
 */
void say_status(const char *line);

/*
 * Waits up to @wait_ms for the queued lines (and the status line's erase)
 * to be written; the thread goes on. Before ptbpf stops itself (Ctrl-Z):
 * its last words reach the terminal before the shell's prompt. Returns 0
 * when everything was written, -EAGAIN when lines were still waiting.
 */
int say_flush(unsigned int wait_ms);

/*
 * Lines dropped so far: stderr did not keep up (the ring was full), or a
 * write failed (EPIPE: the reader of a pipe exited) and they were lost.
 */
uint64_t say_dropped(void);

/*
 * Waits up to @wait_ms for the queued lines to be written, then stops the
 * thread if it is idle. A thread stuck in write(2) is left behind: the
 * process exit ends it. Returns 0 when everything was written, -EAGAIN
 * when lines were still waiting.
 */
int say_stop(unsigned int wait_ms);

#endif /* PTBPF_SAY_H */
