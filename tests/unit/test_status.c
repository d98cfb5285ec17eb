// SPDX-License-Identifier: GPL-2.0
/*
 * The status line: off on anything but a terminal; on a terminal whose
 * foreground is not ours (a shell's prompt is there) it draws nothing and
 * erases nothing, and plain lines still go out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "say.h"
#include "status.h"

/* What the master side of the pty shows now. */
static size_t drain(int fd, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	ssize_t r;

	while (n < len - 1 && poll(&p, 1, 200) > 0) {
		r = read(fd, buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += r;
	}
	buf[n] = 0;
	return n;
}

static void test_pipe_is_plain(void **state)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	assert_false(status_open(p[1], true));
	assert_false(status_on());
	status_close();
	close(p[0]);
	close(p[1]);
}

static void test_terminal_not_ours(void **state)
{
	char buf[1024];
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(s >= 0);
	assert_int_equal(say_start(s), 0);
	assert_false(status_open(s, false)); /* -q: never */
	assert_true(status_open(s, true));
	assert_true(status_on());
	/* not our controlling terminal: no status line drawn */
	status_target("pid 1 stopped", true);
	status_snapshot(2048, 4096, 1 << 20);
	status_say("ptbpf: a plain line");
	status_close();
	assert_false(status_on());
	assert_int_equal(say_stop(1000), 0);
	drain(m, buf, sizeof(buf));
	assert_null(strstr(buf, "\033[K"));
	assert_non_null(strstr(buf, "ptbpf: a plain line"));
	/* the last word, as a plain line */
	assert_non_null(strstr(buf, "ptbpf: 1 stop, 1 snapshot written"));
	close(s);
	close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_is_plain),
		cmocka_unit_test(test_terminal_not_ours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
