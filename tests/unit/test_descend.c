// SPDX-License-Identifier: GPL-2.0
/*
 * descend.c over the real /proc: this test's child and grandchild are its
 * descendants, parent first; a child that exited (a zombie) is none; a
 * /proc that can't be read is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "target/descend.h"

/* The index of @pid in @v, or -1. */
static int index_of(const pid_t *v, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == pid)
			return i;
	return -1;
}

static void test_tree(void **state)
{
	int pfd[2], n;
	pid_t child, grandchild = 0, zombie, *v;

	assert_int_equal(pipe(pfd), 0);
	child = fork();
	if (child == 0) {
		pid_t g = fork();

		if (g == 0) {
			pause();
			_exit(0);
		}
		if (write(pfd[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	assert_int_equal(read(pfd[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	/* exited, not reaped yet */
	assert_int_equal(waitid(P_PID, zombie, &(siginfo_t){}, WEXITED | WNOWAIT), 0);

	n = descend_list("/proc", getpid(), &v);
	assert_true(n >= 2);
	assert_true(index_of(v, n, child) >= 0);
	assert_true(index_of(v, n, grandchild) > index_of(v, n, child));
	assert_int_equal(index_of(v, n, zombie), -1);
	assert_int_equal(index_of(v, n, getpid()), -1);
	free(v);
	/* the grandchild's own: none */
	assert_int_equal(descend_list("/proc", grandchild, &v), 0);
	free(v);

	kill(grandchild, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	waitpid(zombie, NULL, 0);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_no_proc(void **state)
{
	pid_t *v = (pid_t *)1;

	assert_int_equal(descend_list("/nonexistent-proc", 1, &v), -ENOENT);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_no_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
