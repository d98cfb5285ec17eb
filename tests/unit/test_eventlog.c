// SPDX-License-Identifier: GPL-2.0
/*
 * eventlog.c: a line that could not be written (a full disk) is not lost:
 * it waits and goes down, in order, before the next line or at close.
 * A non-blocking pipe nobody reads stands in for the full disk. And the
 * file is ours: a name taken by a hard link, a symlink or another user's
 * file is refused, never written to.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/eventlog.h"

static struct eventlog *new_log(int fd)
{
	struct eventlog *log = calloc(1, sizeof(*log));

	assert_non_null(log);
	log->fd = fd;
	return log;
}

static int line(struct eventlog *log, const char *event, uint64_t ts)
{
	eventlog_begin(log, event, ts, 42);
	return eventlog_end(log);
}

/* Fills the pipe's write end @fd: nothing more goes in until it is read. */
static void fill(int fd)
{
	char junk[4096];

	memset(junk, 'x', sizeof(junk));
	while (write(fd, junk, sizeof(junk)) > 0)
		;
	/* what may still fit is less than a page: fill it byte by byte */
	while (write(fd, junk, 1) > 0)
		;
}

/* Reads everything the pipe @fd holds into @buf; returns its length. */
static size_t drain(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;

	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	return len;
}

static void test_full_then_free(void **state)
{
	static char buf[1 << 20];
	struct eventlog *log;
	int p[2];
	size_t len;
	char *first;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	log = new_log(p[1]);
	fill(p[1]);
	/* nothing fits: both wait, in order */
	assert_int_equal(line(log, "stop", 1), -EAGAIN);
	assert_int_equal(line(log, "run", 2), -EAGAIN);
	assert_int_equal(log->err, -EAGAIN);
	len = drain(p[0], buf, sizeof(buf));
	assert_true(len >= 4096);
	assert_null(memmem(buf, len, "\"event\"", 7));
	/* room again: the waiting lines go first, then the new one */
	assert_int_equal(line(log, "stop", 3), 0);
	len = drain(p[0], buf, sizeof(buf) - 1);
	buf[len] = '\0';
	first = strstr(buf, "\"event\":\"stop\",\"ts\":1,");
	assert_non_null(first);
	assert_ptr_equal(first, buf + 1);
	assert_non_null(strstr(buf, "\"event\":\"run\",\"ts\":2,"));
	assert_true(strstr(buf, "\"ts\":2,") < strstr(buf, "\"ts\":3,"));
	assert_int_equal(log->pending_len, 0);
	assert_int_equal(log->dropped, 0);
	close(p[0]);
	close(p[1]);
	free(log);
}

/* What still waits at close is written then, if it can be. */
static void test_close_writes_pending(void **state)
{
	static char buf[1 << 20];
	struct eventlog *log;
	int p[2];
	size_t len;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	log = new_log(p[1]);
	fill(p[1]);
	assert_int_equal(line(log, "end", 7), -EAGAIN);
	drain(p[0], buf, sizeof(buf));
	eventlog_close(log);
	assert_int_equal(log->fd, -1);
	len = drain(p[0], buf, sizeof(buf) - 1);
	buf[len] = '\0';
	assert_non_null(strstr(buf, "\"event\":\"end\",\"ts\":7,"));
	close(p[0]);
	free(log);
}

/*
 * Room again, and no new line: eventlog_flush() writes what waits (the
 * loop calls it while lines wait; a stopped target sends no next event).
 */
static void test_flush_without_new_line(void **state)
{
	static char buf[1 << 20];
	struct eventlog *log;
	int p[2];
	size_t len;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	log = new_log(p[1]);
	assert_false(eventlog_waiting(log));
	assert_int_equal(eventlog_flush(log), 0);
	fill(p[1]);
	assert_int_equal(line(log, "stop", 5), -EAGAIN);
	assert_true(eventlog_waiting(log));
	/* still no room: it keeps waiting, whole */
	assert_int_equal(eventlog_flush(log), -EAGAIN);
	assert_true(eventlog_waiting(log));
	drain(p[0], buf, sizeof(buf));
	assert_int_equal(eventlog_flush(log), 0);
	assert_false(eventlog_waiting(log));
	len = drain(p[0], buf, sizeof(buf) - 1);
	buf[len] = '\0';
	assert_non_null(strstr(buf, "\"event\":\"stop\",\"ts\":5,"));
	close(p[0]);
	close(p[1]);
	free(log);
}

/* More than EVENTLOG_PENDING_MAX waiting: later lines are counted lost. */
static void test_pending_bounded(void **state)
{
	struct eventlog *log;
	int p[2], i;

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	log = new_log(p[1]);
	fill(p[1]);
	for (i = 0; i < 10000; i++)
		line(log, "stop", (uint64_t)i);
	assert_true(log->pending_len <= EVENTLOG_PENDING_MAX);
	assert_true(log->pending_len > EVENTLOG_PENDING_MAX - 200);
	assert_true(log->dropped > 0);
	close(p[0]);
	close(p[1]);
	free(log);
}

/* A directory of our own under /tmp, open; its path in @dir. */
static int tmp_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/ptbpf-evlog-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return open(dir, O_RDONLY | O_DIRECTORY);
}

static void rm_dir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * events.jsonl planted as a hard link to a file elsewhere: refused
 * (-EMLINK), and the file it links to neither written nor changed.
 */
static void test_hard_link_refused(void **state)
{
	char dir[64], other[96], name[96];
	struct eventlog *log = calloc(1, sizeof(*log));
	struct stat st;
	int dfd, fd;

	assert_non_null(log);
	dfd = tmp_dir(dir, sizeof(dir));
	assert_true(dfd >= 0);
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	snprintf(name, sizeof(name), "%s/events.jsonl", dir);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(link(other, name), 0);
	assert_int_equal(eventlog_open(log, dfd, -1, -1), -EMLINK);
	assert_int_equal(log->fd, -1);
	assert_non_null(eventlog_refusal(-EMLINK));
	assert_int_equal(stat(other, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* a symlink is refused too */
	assert_int_equal(unlink(name), 0);
	assert_int_equal(symlink(other, name), 0);
	assert_int_equal(eventlog_open(log, dfd, -1, -1), -ELOOP);
	close(dfd);
	rm_dir(dir);
	free(log);
}

/*
 * A new events.jsonl is made 0600; one an earlier run made (one link, ours)
 * is appended to, as it is.
 */
static void test_create_then_adopt(void **state)
{
	char dir[64], name[96], buf[256];
	struct eventlog *log = calloc(1, sizeof(*log));
	struct stat st;
	int dfd, fd;
	ssize_t n;

	assert_non_null(log);
	dfd = tmp_dir(dir, sizeof(dir));
	assert_true(dfd >= 0);
	snprintf(name, sizeof(name), "%s/events.jsonl", dir);
	assert_int_equal(eventlog_open(log, dfd, -1, -1), 0);
	assert_int_equal(line(log, "first", 1), 0);
	eventlog_close(log);
	assert_int_equal(stat(name, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(eventlog_open(log, dfd, -1, -1), 0);
	assert_int_equal(line(log, "second", 2), 0);
	eventlog_close(log);
	fd = open(name, O_RDONLY);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = 0;
	assert_non_null(strstr(buf, "\"first\""));
	assert_non_null(strstr(buf, "\"second\""));
	close(dfd);
	rm_dir(dir);
	free(log);
}

/*
 * --max-size: events.jsonl and events.jsonl.1 stay within their share,
 * whichever of two writers (the control's and the writer thread's) wrote
 * last; each rotation's new file begins by saying what was lost.
 */
static void test_rotation_bounded(void **state)
{
	struct eventlog *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char dir[64], name[96], old[96], head[256];
	struct eventlog_rot rot;
	struct stat s1, s2;
	int dfd, fd, i;
	ssize_t n;

	assert_non_null(a);
	assert_non_null(b);
	dfd = tmp_dir(dir, sizeof(dir));
	assert_true(dfd >= 0);
	snprintf(name, sizeof(name), "%s/events.jsonl", dir);
	snprintf(old, sizeof(old), "%s/events.jsonl.1", dir);
	assert_int_equal(eventlog_open(a, dfd, -1, -1), 0);
	assert_int_equal(eventlog_rot_init(&rot, a, dfd, -1, -1, 8192), 0);
	assert_int_equal(eventlog_open(b, dfd, -1, -1), 0);
	eventlog_rot_join(b, &rot);
	for (i = 0; i < 2000; i++) {
		assert_int_equal(line(i % 2 ? a : b, "stop", (uint64_t)i), 0);
		assert_int_equal(stat(name, &s1), 0);
		memset(&s2, 0, sizeof(s2));
		stat(old, &s2);
		/* the share, and the line that went past half of it */
		assert_true(s1.st_size + s2.st_size <= 8192 + 256);
		/* what is reserved past the ends too: a block each at most */
		assert_true((uint64_t)(s1.st_blocks + s2.st_blocks) * 512 <= 8192 + 2 * 4096);
	}
	assert_true(rot.gen > 10);
	assert_true(rot.lost_bytes > 2000 * 30 - 8192);
	fd = open(name, O_RDONLY);
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	assert_true(n > 0);
	head[n] = 0;
	assert_non_null(strstr(head, "{\"event\":\"warning\""));
	assert_non_null(strstr(head, "\"reason\":\"events_rotated\""));
	eventlog_close(a);
	eventlog_close(b);
	close(dfd);
	rm_dir(dir);
	free(a);
	free(b);
}

/* Bytes the file @fd has allocated on disk. */
static uint64_t allocated(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

/*
 * Room past the end stays allocated as lines come (a disk the snapshots
 * fill still takes the lines that say so), and eventlog_trim() gives it
 * back.
 */
static void test_reserve(void **state)
{
	struct eventlog *log = calloc(1, sizeof(*log));
	char dir[64];
	struct stat st;
	int dfd, i;

	assert_non_null(log);
	dfd = tmp_dir(dir, sizeof(dir));
	assert_true(dfd >= 0);
	assert_int_equal(eventlog_open(log, dfd, -1, -1), 0);
	assert_int_equal(line(log, "first", 1), 0);
	if (log->no_reserve)
		skip(); /* a filesystem without fallocate(2) */
	assert_true(allocated(log->fd) >= EVENTLOG_RESERVE);
	/* past half of it: renewed */
	for (i = 0; i < 2000; i++)
		assert_int_equal(line(log, "stop", (uint64_t)i), 0);
	assert_int_equal(fstat(log->fd, &st), 0);
	assert_true(st.st_size > EVENTLOG_RESERVE);
	assert_true(allocated(log->fd) >= (uint64_t)st.st_size + EVENTLOG_RESERVE / 2);
	eventlog_trim(log);
	assert_true(allocated(log->fd) < (uint64_t)st.st_size + 4096 * 2);
	/* the lines are all there */
	assert_int_equal(fstat(log->fd, &st), 0);
	assert_true(st.st_size > 2000 * 30);
	eventlog_close(log);
	close(dfd);
	rm_dir(dir);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_then_free),
		cmocka_unit_test(test_close_writes_pending),
		cmocka_unit_test(test_flush_without_new_line),
		cmocka_unit_test(test_pending_bounded),
		cmocka_unit_test(test_hard_link_refused),
		cmocka_unit_test(test_create_then_adopt),
		cmocka_unit_test(test_rotation_bounded),
		cmocka_unit_test(test_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
