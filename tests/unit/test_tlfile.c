// SPDX-License-Identifier: GPL-2.0
/*
 * tlfile.c: --timeline's FILE is written only when it is new or a regular
 * file of ours with one link; a symlink at it is never written through.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tlfile.h"

static char dir[] = "/tmp/ptbpf-tlfile-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* @path's content, up to 63 bytes ("" when it can't be read). */
static const char *content(const char *path)
{
	static char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* A file @name in dir holding "secret\n", owned by @uid. */
static void make_victim(const char *name, uid_t uid, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "secret\n", 7), 7);
	close(fd);
	assert_int_equal(chown(path, uid, uid), 0);
}

/* A new path, and our own file (emptied first): written. */
static void test_new_and_own(void **state)
{
	char path[128], err[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/new.json", dir);
	f = tlfile_open(path, err, sizeof(err));
	assert_non_null(f);
	fputs("{}\n", f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(content(path), "{}\n");

	make_victim("own.json", geteuid(), path, sizeof(path));
	f = tlfile_open(path, err, sizeof(err));
	assert_non_null(f);
	fputs("[]\n", f);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(content(path), "[]\n");
}

/* Another user's symlink to another user's file: not written through. */
static void test_symlink(void **state)
{
	char victim[128], path[128], want[256], err[256];

	if (geteuid())
		skip(); /* chown */
	make_victim("victim", 65534, victim, sizeof(victim));
	snprintf(path, sizeof(path), "%s/tl.json", dir);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(lchown(path, 65534, 65534), 0);
	assert_null(tlfile_open(path, err, sizeof(err)));
	assert_int_equal(errno, ELOOP);
	snprintf(want, sizeof(want), "%s: is a symlink: refusing to write through it", path);
	assert_string_equal(err, want);
	assert_string_equal(content(victim), "secret\n");
}

/* Another user's file, a hard link, a FIFO: refused, unchanged, at once. */
static void test_not_ours(void **state)
{
	char victim[128], path[128], want[256], err[256];

	if (geteuid())
		skip(); /* chown */
	make_victim("theirs", 65534, victim, sizeof(victim));
	assert_null(tlfile_open(victim, err, sizeof(err)));
	assert_int_equal(errno, EPERM);
	snprintf(want, sizeof(want), "%s: is owned by uid 65534: refusing to write to it", victim);
	assert_string_equal(err, want);
	assert_string_equal(content(victim), "secret\n");

	make_victim("rootfile", geteuid(), victim, sizeof(victim));
	snprintf(path, sizeof(path), "%s/hard", dir);
	assert_int_equal(link(victim, path), 0);
	assert_null(tlfile_open(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: has more than one link: refusing to write to it", path);
	assert_string_equal(err, want);
	assert_string_equal(content(victim), "secret\n");

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_null(tlfile_open(path, err, sizeof(err)));
	snprintf(want, sizeof(want), "%s: is not a regular file: refusing to write to it", path);
	assert_string_equal(err, want);
}

/* Any other failure: "FILE: strerror", as fopen(3)'s was said. */
static void test_open_error(void **state)
{
	char path[128], want[256], err[256];

	snprintf(path, sizeof(path), "%s/no/such", dir);
	assert_null(tlfile_open(path, err, sizeof(err)));
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_own),
		cmocka_unit_test(test_symlink),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_open_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
