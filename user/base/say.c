// SPDX-License-Identifier: GPL-2.0
/* Human lines that never block their writer: see say.h. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "say.h"
#include "textesc.h"

/* One line at most this long; a longer one is cut with "...\n". */
#define SAY_LINE_MAX 8192

/*
 * The ring is static: the thread may still be inside write(2) with a
 * pointer into it when the process exits, so it is never freed.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* data queued, or stopping; or drained */
	char ring[SAY_RING_SIZE];
	size_t head, len; /* bytes queued: ring[head..head+len) mod size */
	bool running, stopping, busy;
	/*
	 * The status line (status.h): the newest text to draw below the
	 * lines, whether it is drawn now, and a redraw or an erase asked.
	 */
	char status[512];
	bool status_shown, status_dirty;
	int fd;
	uint64_t dropped;
	/*
	 * say_limited(): a token bucket of @burst lines, refilled at @rate a
	 * second; lines past it are folded, counted in @folded until a
	 * notice says how many (@folded_total: all of them).
	 */
	double tokens;
	unsigned int burst, rate;
	struct timespec refilled, first_fold;
	uint64_t folded, folded_total;
	pthread_t thread;
} q = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.fd = 2,
	.tokens = SAY_BURST,
	.burst = SAY_BURST,
	.rate = SAY_RATE,
};

/*
 * Lines ended in @n bytes of @p: a line whose end was not written is lost,
 * counted once even when the writer's chunk cut it in two.
 */
static uint64_t lines_in(const char *p, size_t n)
{
	uint64_t lines = 0;
	size_t i;

	for (i = 0; i < n; i++)
		lines += p[i] == '\n';
	return lines;
}

/*
 * Writes @n bytes of @p to @fd. Returns how many lines of them were lost
 * (EPIPE: the reader of a pipe exited; EBADF...): nobody can hear them,
 * but say_dropped() counts them, so that the "end" event tells.
 */
static uint64_t write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return lines_in(p, n);
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Our job has the terminal: a shell's prompt is not on the last line. */
static bool foreground(int fd)
{
	return tcgetpgrp(fd) == getpgrp();
}

/*
 * Draws (or, with an empty text, erases) the status line after the lines:
 * "\r\033[K" goes back to the start of the line and clears it. Nothing
 * while the shell has the terminal. Called with the lock held; writes
 * without it.
 */
static void status_out(void)
{
	char line[sizeof(q.status) + 8];
	bool shown = q.status_shown, fg;
	int n;

	q.status_dirty = false;
	n = snprintf(line, sizeof(line), "%s%s", shown ? "\r\033[K" : "", q.status);
	q.busy = true;
	pthread_mutex_unlock(&q.lock);
	fg = foreground(q.fd);
	if (fg && n > 0)
		write_all(q.fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	pthread_mutex_lock(&q.lock);
	q.busy = false;
	q.status_shown = fg && q.status[0];
	pthread_cond_broadcast(&q.cond);
}

/* Before lines go out under a drawn status line: erase it first. */
static void status_erase(void)
{
	bool shown = q.status_shown;

	q.status_shown = false;
	if (!shown)
		return;
	pthread_mutex_unlock(&q.lock);
	if (foreground(q.fd))
		write_all(q.fd, "\r\033[K", 4);
	pthread_mutex_lock(&q.lock);
	q.status_dirty = q.status[0] != 0; /* drawn again after them */
}

static double since_s(const struct timespec *t, const struct timespec *now)
{
	return (now->tv_sec - t->tv_sec) + (now->tv_nsec - t->tv_nsec) / 1e9;
}

/* Queues @n bytes of @line whole, or drops them. Called with the lock. */
static void enqueue(const char *line, size_t n)
{
	size_t tail, first;

	if (SAY_RING_SIZE - q.len < n) {
		q.dropped++;
		return;
	}
	tail = (q.head + q.len) % SAY_RING_SIZE;
	first = SAY_RING_SIZE - tail < n ? SAY_RING_SIZE - tail : n;
	memcpy(q.ring + tail, line, first);
	memcpy(q.ring, line + first, n - first);
	q.len += n;
	pthread_cond_broadcast(&q.cond);
}

/*
 * The lines folded since the last notice, said before the next line goes
 * out (or a second after the first of them, by the thread). With the lock.
 */
static void fold_notice(void)
{
	char line[256];
	int n;

	if (!q.folded)
		return;
	n = snprintf(line, sizeof(line),
		     "ptbpf: %" PRIu64 " line%s folded (more than %u a second; events.jsonl has "
		     "every event)\n",
		     q.folded, q.folded == 1 ? "" : "s", q.rate);
	q.folded_total += q.folded;
	q.folded = 0;
	if (q.running)
		enqueue(line, (size_t)n);
	else
		q.dropped += write_all(q.fd, line, (size_t)n);
}

/* A second after the first folded line, the notice is due. With the lock. */
static bool fold_due(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return since_s(&q.first_fold, &now) >= 1.0;
}

/* Waits for a line, or until the folded lines' notice is due. */
static void wait_fold(void)
{
	struct timespec end;

	/* the cond's clock is CLOCK_REALTIME: a second from now is near enough */
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 1;
	pthread_cond_timedwait(&q.cond, &q.lock, &end);
}

static void *say_main(void *arg)
{
	static char chunk[4096];
	size_t n, first;
	uint64_t lost;

	pthread_mutex_lock(&q.lock);
	for (;;) {
		while (!q.len && !q.status_dirty && !q.stopping) {
			if (q.folded && fold_due()) {
				fold_notice();
				continue;
			}
			if (q.folded)
				wait_fold();
			else
				pthread_cond_wait(&q.cond, &q.lock);
		}
		if (!q.len && q.status_dirty) {
			status_out();
			continue;
		}
		if (!q.len)
			break;
		status_erase();
		n = q.len < sizeof(chunk) ? q.len : sizeof(chunk);
		first = SAY_RING_SIZE - q.head < n ? SAY_RING_SIZE - q.head : n;
		memcpy(chunk, q.ring + q.head, first);
		memcpy(chunk + first, q.ring, n - first);
		q.head = (q.head + n) % SAY_RING_SIZE;
		q.len -= n;
		q.busy = true;
		pthread_mutex_unlock(&q.lock);
		lost = write_all(q.fd, chunk, n); /* may block: nobody waits on it */
		pthread_mutex_lock(&q.lock);
		q.dropped += lost;
		q.busy = false;
		pthread_cond_broadcast(&q.cond);
	}
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

int say_start(int fd)
{
	sigset_t all, old;
	int ret;

	/* signals are the control thread's (signalfd): never this one's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_mutex_lock(&q.lock);
	q.fd = fd;
	q.stopping = false;
	ret = q.running ? 0 : -pthread_create(&q.thread, NULL, say_main, NULL);
	if (!ret)
		q.running = true;
	pthread_mutex_unlock(&q.lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void put(const char *fmt, va_list ap, bool limited)
{
	char raw[SAY_LINE_MAX], esc[TEXTESC_SIZE(SAY_LINE_MAX)], *line = raw;
	struct timespec now;
	size_t n;
	int len;

	len = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (len < 0)
		return;
	n = (size_t)len;
	if (n >= sizeof(raw)) {
		n = sizeof(raw) - 1;
		memcpy(raw + n - 4, "...\n", 4);
	}
	/*
	 * The last net under the callers' own escaping (status_say()): no
	 * byte a terminal acts on goes out, whatever a line carries of the
	 * target (textesc.h); an escaped line passes unchanged.
	 */
	if (textesc_needed(raw, n, TEXTESC_LINES)) {
		line = textesc(esc, sizeof(esc), raw, n, TEXTESC_LINES);
		n = strlen(line);
	}
	pthread_mutex_lock(&q.lock);
	if (limited) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		q.tokens += since_s(&q.refilled, &now) * q.rate;
		if (q.tokens > q.burst)
			q.tokens = q.burst;
		q.refilled = now;
		if (q.tokens < 1) {
			if (!q.folded++)
				q.first_fold = now;
			pthread_cond_broadcast(&q.cond); /* the thread says it in time */
			pthread_mutex_unlock(&q.lock);
			return;
		}
		q.tokens -= 1;
	}
	fold_notice();
	if (!q.running) {
		uint64_t lost;

		pthread_mutex_unlock(&q.lock);
		lost = write_all(q.fd, line, n); /* before say_start: setup */
		pthread_mutex_lock(&q.lock);
		q.dropped += lost;
		pthread_mutex_unlock(&q.lock);
		return;
	}
	enqueue(line, n);
	pthread_mutex_unlock(&q.lock);
}

void say_v(const char *fmt, va_list ap)
{
	put(fmt, ap, false);
}

void say_limited(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put(fmt, ap, true);
	va_end(ap);
}

void say_set_limit(unsigned int burst, unsigned int rate)
{
	pthread_mutex_lock(&q.lock);
	q.burst = burst ? burst : 1;
	q.rate = rate ? rate : 1;
	q.tokens = q.burst;
	clock_gettime(CLOCK_MONOTONIC, &q.refilled);
	pthread_mutex_unlock(&q.lock);
}

uint64_t say_folded(void)
{
	uint64_t n;

	pthread_mutex_lock(&q.lock);
	n = q.folded_total + q.folded;
	pthread_mutex_unlock(&q.lock);
	return n;
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
}

void say_status(const char *line)
{
	pthread_mutex_lock(&q.lock);
	textesc_str(q.status, sizeof(q.status), line); /* one line, shown, never sent */
	q.status_dirty = q.running && (q.status[0] || q.status_shown);
	pthread_cond_broadcast(&q.cond);
	pthread_mutex_unlock(&q.lock);
}

uint64_t say_dropped(void)
{
	uint64_t n;

	pthread_mutex_lock(&q.lock);
	n = q.dropped;
	pthread_mutex_unlock(&q.lock);
	return n;
}

/* Waits (lock held) up to @wait_ms for the writer to be idle; returns whether it is. */
static bool wait_idle(unsigned int wait_ms)
{
	struct timespec end;

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += wait_ms / 1000;
	end.tv_nsec += (long)(wait_ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	fold_notice(); /* the count of the last ones folded goes out too */
	while (q.running && (q.len || q.busy || q.status_dirty))
		if (pthread_cond_timedwait(&q.cond, &q.lock, &end) == ETIMEDOUT)
			break;
	return !q.len && !q.busy && !q.status_dirty;
}

int say_flush(unsigned int wait_ms)
{
	bool idle;

	pthread_mutex_lock(&q.lock);
	idle = wait_idle(wait_ms);
	pthread_mutex_unlock(&q.lock);
	return idle ? 0 : -EAGAIN;
}

int say_stop(unsigned int wait_ms)
{
	bool idle;

	pthread_mutex_lock(&q.lock);
	idle = wait_idle(wait_ms);
	if (q.running && idle) {
		q.stopping = true;
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
		pthread_join(q.thread, NULL);
		pthread_mutex_lock(&q.lock);
		q.running = false;
	}
	pthread_mutex_unlock(&q.lock);
	return idle ? 0 : -EAGAIN;
}
