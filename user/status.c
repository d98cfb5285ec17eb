// SPDX-License-Identifier: GPL-2.0
/* The status line on a terminal: see status.h. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "status.h"

/* At most this often: a debugger's stops come by the thousand. */
#define REDRAW_NS 100000000ULL

static struct {
	pthread_mutex_t lock;
	int fd;
	bool on, shown, dirty; /* dirty: a redraw was held back */
	char state[96];
	unsigned long long stops, snaps, bytes, dir_used, max_size;
	uint64_t drawn_ns;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void put(const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(st.fd, s, len);

		if (n <= 0)
			return;
		s += n;
		len -= n;
	}
}

/* Our job has the terminal: nothing of the shell's is on the last line. */
static bool foreground(void)
{
	return tcgetpgrp(st.fd) == getpgrp();
}

/*
 * "\r\033[K": back to the line's start, erase it. Under the lock. Not
 * when the shell has the terminal: its prompt is on that line now.
 */
static void erase(void)
{
	if (st.shown && foreground())
		put("\r\033[K", 4);
	st.shown = false;
}

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
	if (!foreground()) {
		st.shown = false;
		return;
	}
	n = snprintf(
		line, sizeof(line),
		"\r\033[Kptbpf: %s | %llu stop%s | %llu snapshot%s, %.1f MiB",
		st.state[0] ? st.state : "starting", st.stops,
		st.stops == 1 ? "" : "s", st.snaps, st.snaps == 1 ? "" : "s",
		st.bytes / 1048576.0);
	if (st.max_size && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n,
			      " | disk %.1f of %.1f MiB",
			      st.dir_used / 1048576.0, st.max_size / 1048576.0);
	if (n > 0)
		put(line,
		    (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	st.shown = true;
	st.drawn_ns = now;
}

bool status_open(int fd, bool wanted)
{
	pthread_mutex_lock(&st.lock);
	st.fd = fd;
	st.on = wanted && isatty(fd);
	pthread_mutex_unlock(&st.lock);
	return st.on;
}

bool status_on(void)
{
	return st.on;
}

void status_say(const char *line)
{
	pthread_mutex_lock(&st.lock);
	if (!st.on) {
		pthread_mutex_unlock(&st.lock);
		fprintf(stderr, "%s\n", line);
		return;
	}
	erase();
	put(line, strlen(line));
	put("\n", 1);
	draw(true);
	pthread_mutex_unlock(&st.lock);
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

void status_target(const char *state, bool stop)
{
	pthread_mutex_lock(&st.lock);
	snprintf(st.state, sizeof(st.state), "%s", state);
	st.stops += stop;
	draw(false);
	pthread_mutex_unlock(&st.lock);
}

void status_snapshot(uint64_t bytes, uint64_t dir_used, uint64_t max_size)
{
	pthread_mutex_lock(&st.lock);
	st.snaps++;
	st.bytes += bytes;
	st.dir_used = dir_used;
	st.max_size = max_size;
	draw(false);
	pthread_mutex_unlock(&st.lock);
}

bool status_pending(void)
{
	return st.on && st.dirty;
}

void status_flush(void)
{
	pthread_mutex_lock(&st.lock);
	if (st.dirty)
		draw(false);
	pthread_mutex_unlock(&st.lock);
}

void status_close(void)
{
	char line[160];

	pthread_mutex_lock(&st.lock);
	if (st.on) {
		/* what the status line said, for good, as a plain line */
		erase();
		snprintf(
			line, sizeof(line),
			"ptbpf: %llu stop%s, %llu snapshot%s written (%.1f MiB)\n",
			st.stops, st.stops == 1 ? "" : "s", st.snaps,
			st.snaps == 1 ? "" : "s", st.bytes / 1048576.0);
		put(line, strlen(line));
	}
	st.on = false;
	pthread_mutex_unlock(&st.lock);
}
