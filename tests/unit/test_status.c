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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/say.h"
#include "base/status.h"

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
	/*
	 * not our controlling terminal: no status line drawn, and the callers
	 * are told so: their own lines for the stop and the snapshot go out
	 */
	assert_false(status_target("pid 1 stopped", true));
	/* drawn for nobody: the loop looks again now and then (fg sends no SIGCONT) */
	assert_int_equal(status_poll_ms(), 500);
	assert_false(status_snapshot(2048, 4096, 1 << 20));
	status_say("ptbpf: a plain line");
	status_close();
	assert_false(status_on());
	assert_int_equal(status_poll_ms(), -1);
	assert_int_equal(say_stop(1000), 0);
	drain(m, buf, sizeof(buf));
	assert_null(strstr(buf, "\033[K"));
	assert_non_null(strstr(buf, "ptbpf: a plain line"));
	/* the last word, as a plain line */
	assert_non_null(strstr(buf, "ptbpf: 1 stop, 1 snapshot written"));
	close(s);
	close(m);
}

/* A made-up /proc/PID/fd: 1 and 2 are symlinks to @out and @err. */
static void fake_fds(const char *root, const char *out, const char *err)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/42", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/42/fd", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/42/fd/1", root);
	unlink(path);
	assert_int_equal(symlink(out, path), 0);
	snprintf(path, sizeof(path), "%s/42/fd/2", root);
	unlink(path);
	assert_int_equal(symlink(err, path), 0);
}

/*
 * A target whose stdout or stderr is our terminal writes there whenever it
 * likes: the status line would interleave with it (status_shared()).
 */
static void test_shared_terminal(void **state)
{
	char root[] = "/tmp/ptbpf-status-XXXXXX", cmd[64], file[64];
	int m, s, p[2];

	assert_non_null(mkdtemp(root));
	snprintf(file, sizeof(file), "%s/log", root);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	m = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(m >= 0);
	assert_int_equal(grantpt(m), 0);
	assert_int_equal(unlockpt(m), 0);
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(s >= 0);
	/* stdout on our terminal */
	fake_fds(root, ptsname(m), "/dev/null");
	assert_true(status_shared(s, root, 42));
	/* stderr on it */
	fake_fds(root, file, ptsname(m));
	assert_true(status_shared(s, root, 42));
	/* elsewhere: a file, /dev/null (a character device, not ours) */
	fake_fds(root, file, "/dev/null");
	assert_false(status_shared(s, root, 42));
	/* a process gone: nothing of it writes */
	assert_false(status_shared(s, root, 43));
	/* not a terminal: no status line to share anyway */
	assert_int_equal(pipe(p), 0);
	fake_fds(root, "/dev/null", "/dev/null");
	assert_false(status_shared(p[1], root, 42));
	close(p[0]);
	close(p[1]);
	close(s);
	close(m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipe_is_plain),
		cmocka_unit_test(test_terminal_not_ours),
		cmocka_unit_test(test_shared_terminal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
