// SPDX-License-Identifier: GPL-2.0
/*
 * say.c: human lines to a stderr that does not read never block their
 * writer; what does not fit is dropped whole and counted; what is written
 * arrives whole and in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/say.h"

/* 10,000 lines into a pipe nobody reads: all return, most are dropped. */
static void test_stalled_reader(void **state)
{
	char *buf = malloc(1 << 20), *line, *save;
	unsigned long long dropped;
	int p[2], i, n = 0, last = -1;
	size_t len = 0;
	ssize_t r;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(say_start(p[1]), 0);
	for (i = 0; i < 10000; i++)
		say("ptbpf: line %d of a run whose stderr is not read\n", i);
	/* the pipe (64 KiB) and the ring (64 KiB) hold what they can */
	dropped = say_dropped();
	assert_true(dropped > 0);
	assert_true(dropped < 10000);
	/* the reader wakes up: everything not dropped arrives */
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	for (i = 0; i < 200; i++) {
		while ((r = read(p[0], buf + len, (1 << 20) - 1 - len)) > 0)
			len += (size_t)r;
		if (say_stop(10) == 0)
			break;
	}
	while ((r = read(p[0], buf + len, (1 << 20) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int k;

		/* whole lines, in order, none twice */
		assert_int_equal(sscanf(line, "ptbpf: line %d of a run", &k), 1);
		assert_true(k > last);
		last = k;
		n++;
	}
	assert_int_equal(n + dropped, 10000);
	close(p[0]);
	close(p[1]);
	free(buf);
}

/* A line longer than the longest kept is cut, and says so. */
static void test_long_line(void **state)
{
	char *big = malloc(20000), buf[16384];
	int p[2];
	ssize_t n;

	memset(big, 'x', 19999);
	big[19999] = 0;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(say_start(p[1]), 0);
	say("%s\n", big);
	assert_int_equal(say_stop(5000), 0);
	n = read(p[0], buf, sizeof(buf));
	assert_true(n > 4000);
	assert_memory_equal(buf + n - 4, "...\n", 4);
	close(p[0]);
	close(p[1]);
	free(big);
}

/*
 * A flood of rate-limited lines (a debugger's stops): a burst goes out,
 * the rest are folded, and "N lines folded" lines account for every one of
 * them; a line that is not limited (the end) still goes out, after the
 * count. The limit (a burst of 20, 1 a second) leaves room for a loaded
 * machine: 2,000 lines in less than ~1,980 s fold some.
 */
static void test_flood_folded(void **state)
{
	char *buf = malloc(1 << 20), *line, *save;
	unsigned long long folded = 0, k, dropped = say_dropped();
	int p[2], i, shown = 0, notices = 0, end = 0;
	size_t len = 0;
	ssize_t r;

	assert_non_null(buf);
	assert_int_equal(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	say_set_limit(20, 1);
	assert_int_equal(say_start(p[1]), 0);
	for (i = 0; i < 2000; i++) {
		say_limited("ptbpf: stop %d\n", i);
		while ((r = read(p[0], buf + len, (1 << 20) - 1 - len)) > 0)
			len += (size_t)r;
	}
	say("ptbpf: end\n");
	assert_int_equal(say_stop(10000), 0);
	while ((r = read(p[0], buf + len, (1 << 20) - 1 - len)) > 0)
		len += (size_t)r;
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "ptbpf: stop ", 12)) {
			assert_int_equal(end, 0);
			shown++;
		} else if (sscanf(line, "ptbpf: %llu line", &k) == 1 && strstr(line, "folded")) {
			assert_int_equal(end, 0);
			folded += k;
			notices++;
		} else {
			assert_string_equal(line, "ptbpf: end");
			end++;
		}
	}
	print_message("%d shown, %llu folded in %d notices\n", shown, folded, notices);
	assert_int_equal(end, 1);
	assert_true(notices >= 1);
	assert_true(shown >= 20);
	assert_int_equal(shown + folded, 2000);
	assert_int_equal(say_folded(), folded);
	assert_int_equal(say_dropped(), dropped); /* the reader kept up */
	close(p[0]);
	close(p[1]);
	free(buf);
}

/*
 * say_flush(): before ptbpf stops itself (Ctrl-Z) its last line is out,
 * and the writer goes on afterwards.
 */
static void test_flush(void **state)
{
	char buf[256];
	int p[2];
	ssize_t r;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(say_start(p[1]), 0);
	say("ptbpf: stopped\n");
	assert_int_equal(say_flush(5000), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	r = read(p[0], buf, sizeof(buf) - 1);
	assert_int_equal(r, (ssize_t)strlen("ptbpf: stopped\n"));
	buf[r] = 0;
	assert_string_equal(buf, "ptbpf: stopped\n");
	say("ptbpf: continued\n");
	assert_int_equal(say_stop(5000), 0);
	r = read(p[0], buf, sizeof(buf) - 1);
	assert_int_equal(r, (ssize_t)strlen("ptbpf: continued\n"));
	close(p[0]);
	close(p[1]);
}

/*
 * A stderr pipe whose reader exited (EPIPE): the lines said after it are
 * lost, and counted as dropped, so that the "end" event tells.
 */
static void test_closed_pipe(void **state)
{
	unsigned long long dropped = say_dropped();
	int p[2], i;

	signal(SIGPIPE, SIG_IGN); /* as ptbpf's loop does */
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	assert_int_equal(say_start(p[1]), 0);
	for (i = 0; i < 5; i++)
		say("ptbpf: line %d nobody reads\n", i);
	say_stop(1000);
	assert_int_equal(say_dropped() - dropped, 5);
	/* before say_start() too: written straight, and lost */
	say("ptbpf: one more\n");
	assert_int_equal(say_dropped() - dropped, 6);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stalled_reader), cmocka_unit_test(test_flush),
		cmocka_unit_test(test_long_line),      cmocka_unit_test(test_flood_folded),
		cmocka_unit_test(test_closed_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
