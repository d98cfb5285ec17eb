// SPDX-License-Identifier: GPL-2.0
/* The status line on a terminal: see status.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "say.h"
#include "textesc.h"
#include "status.h"

/* At most this often: a debugger's stops come by the thousand. */
#define REDRAW_NS 100000000ULL

static struct {
	pthread_mutex_t lock;
	bool on, dirty; /* dirty: a redraw was held back */
	bool hidden; /* last drawn while the shell had the terminal */
	int fd;
	char state[160];
	uint64_t stops, snaps, bytes, dir_used, max_size;
	uint64_t drawn_ns;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool shown(void);

/* The line, handed to the stderr writer (say.h), which owns the terminal. */
static void draw(bool force)
{
	char line[256];
	uint64_t now = mono_ns();
	int n;

	if (!st.on)
		return;
	if (!force && now - st.drawn_ns < REDRAW_NS) {
		st.dirty = true;
		return;
	}
	st.dirty = false;
	st.drawn_ns = now;
	n = snprintf(line, sizeof(line),
		     "ptbpf: %s | %" PRIu64 " stop%s | %" PRIu64 " snapshot%s, %.1f MiB",
		     st.state[0] ? st.state : "starting", st.stops, st.stops == 1 ? "" : "s",
		     st.snaps, st.snaps == 1 ? "" : "s", st.bytes / 1048576.0);
	if (st.max_size && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, " | disk %.1f of %.1f MiB",
			 st.dir_used / 1048576.0, st.max_size / 1048576.0);
	say_status(line);
	st.hidden = !shown();
}

bool status_open(int fd, bool wanted)
{
	pthread_mutex_lock(&st.lock);
	st.on = wanted && isatty(fd);
	st.fd = fd;
	pthread_mutex_unlock(&st.lock);
	return st.on;
}

/* The terminal (a character device) @path is, or 0. */
static dev_t tty_of(const char *path)
{
	struct stat s;

	return !stat(path, &s) && S_ISCHR(s.st_mode) ? s.st_rdev : 0;
}

bool status_shared(int fd, const char *proc, pid_t pid)
{
	char path[PATH_MAX];
	struct stat s;
	int i;

	if (!isatty(fd) || fstat(fd, &s))
		return false;
	for (i = 1; i <= 2; i++) {
		snprintf(path, sizeof(path), "%s/%d/fd/%d", proc, pid, i);
		if (access(path, F_OK) && errno != ENOENT)
			return true; /* can't tell */
		if (tty_of(path) == s.st_rdev)
			return true;
	}
	return false;
}

bool status_on(void)
{
	return st.on;
}

/* Drawn now: on, and our job has the terminal (no shell prompt below). */
static bool shown(void)
{
	return st.on && tcgetpgrp(st.fd) == getpgrp();
}

void status_say(const char *line)
{
	char shown[TEXTESC_SIZE(PATH_MAX + 256)];

	/*
	 * One line: a comm, an exec's file name or a path of the target's
	 * in it is shown, never sent (textesc.h), its newlines included.
	 * The writer erases the status line before it and draws it after.
	 */
	say("%s\n", textesc_str(shown, sizeof(shown), line));
}

void status_say_limited(const char *line)
{
	char shown[TEXTESC_SIZE(PATH_MAX + 256)];

	/*
	 * As status_say(): an exec's file name or a snapshot's path with a
	 * newline in it would make a line of its own in the journal.
	 */
	say_limited("%s\n", textesc_str(shown, sizeof(shown), line));
}

void status_say_f(const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	status_say(line);
}

bool status_target(const char *state, bool stop)
{
	bool ret;

	pthread_mutex_lock(&st.lock);
	snprintf(st.state, sizeof(st.state), "%s", state);
	st.stops += stop;
	draw(false);
	ret = shown();
	pthread_mutex_unlock(&st.lock);
	return ret;
}

bool status_snapshot(uint64_t bytes, uint64_t dir_used, uint64_t max_size)
{
	bool ret;

	pthread_mutex_lock(&st.lock);
	st.snaps++;
	st.bytes += bytes;
	st.dir_used = dir_used;
	st.max_size = max_size;
	draw(false);
	ret = shown();
	pthread_mutex_unlock(&st.lock);
	return ret;
}

void status_suspend(void)
{
	pthread_mutex_lock(&st.lock);
	if (st.on)
		say_status(NULL);
	pthread_mutex_unlock(&st.lock);
}

void status_redraw(void)
{
	pthread_mutex_lock(&st.lock);
	draw(true);
	pthread_mutex_unlock(&st.lock);
}

int status_poll_ms(void)
{
	if (!st.on)
		return -1;
	return st.dirty ? 100 : st.hidden ? 500 : -1;
}

void status_flush(void)
{
	pthread_mutex_lock(&st.lock);
	if (st.dirty)
		draw(false);
	else if (st.hidden && shown())
		draw(true); /* the terminal is ours again */
	pthread_mutex_unlock(&st.lock);
}

void status_close(void)
{
	pthread_mutex_lock(&st.lock);
	if (st.on) {
		/* what the status line said, for good, as a plain line */
		say_status(NULL);
		say("ptbpf: %" PRIu64 " stop%s, %" PRIu64 " snapshot%s written (%.1f MiB)\n",
		    st.stops, st.stops == 1 ? "" : "s", st.snaps, st.snaps == 1 ? "" : "s",
		    st.bytes / 1048576.0);
	}
	st.on = false;
	pthread_mutex_unlock(&st.lock);
}
