/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the end-to-end tests do outside their process, failing the test
 * when it goes wrong: run a command (perf, lldb-19, python3) for its
 * output, read back a file the code under test wrote, remove a test's
 * temporary directory.
 */
#ifndef PTBPF_TESTS_TESTIO_H
#define PTBPF_TESTS_TESTIO_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

/* A real child of this process that waits to be killed: /proc has it. */
static inline pid_t paused_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	return pid;
}

/*
 * Runs @cmd and returns its stdout (up to 64 KiB, NUL-terminated,
 * malloc'd); fails the test, with what it printed, on a non-zero exit.
 */
static inline char *run_cmd(const char *cmd)
{
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);
	FILE *p = popen(cmd, "r");

	assert_non_null(out);
	assert_non_null(p);
	while ((n = fread(out + len, 1, cap - 1 - len, p)) > 0)
		len += n;
	out[len] = '\0';
	if (pclose(p))
		fail_msg("`%s` failed; it printed:\n%s", cmd, out);
	return out;
}

/*
 * Reads the whole file at @path into a malloc'd buffer, NUL-terminated
 * (not counted in @len), or fails the test.
 */
static inline void *read_whole(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		fail_msg("%s: %s", path, strerror(errno));
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static inline int testio_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

/* Removes @dir and all below it, links not followed; best effort. */
static inline void rm_tree(const char *dir)
{
	nftw(dir, testio_rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

#endif /* PTBPF_TESTS_TESTIO_H */
