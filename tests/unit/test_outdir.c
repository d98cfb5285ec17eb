// SPDX-License-Identifier: GPL-2.0
/*
 * outdir.c: what a directory that can't be made is said to be, and which
 * symlinks on the way to it are followed.
 */
#include <errno.h>
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

#include "snapshot/outdir.h"

/* Missing parents: the user is told to make them. */
static void test_missing_parent(void **state)
{
	char dir[] = "/tmp/ptbpf-outdir-XXXXXX", path[128], want[256], err[512];

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/a/b/out", dir);
	assert_int_equal(outdir_open(path, -1, -1, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want),
		 "can't create output directory %s: %s/a/b does not exist (mkdir -p %s/a/b first)",
		 path, dir, dir);
	assert_string_equal(err, want);
	assert_int_equal(rmdir(dir), 0);
}

/* A parent that is there but takes no directory (procfs): no mkdir -p advice. */
static void test_parent_refuses(void **state)
{
	char err[512];

	assert_int_equal(outdir_open("/proc/ptbpf-out", -1, -1, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "can't create output directory /proc/ptbpf-out: /proc does not "
				 "take new directories (No such file or directory)");
	assert_null(strstr(err, "mkdir -p"));
}

/*
 * A tree for the symlink tests: DIR/elsewhere, and DIR/link pointing to
 * it, owned by @link_uid; DIR has @mode. Skips when not root (lchown).
 */
static void make_link_tree(char *dir, uid_t link_uid, mode_t mode)
{
	char path[128];

	if (geteuid())
		skip();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, mode), 0);
	snprintf(path, sizeof(path), "%s/elsewhere", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("elsewhere", path), 0);
	assert_int_equal(lchown(path, link_uid, link_uid), 0);
}

static void remove_link_tree(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/elsewhere/out", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/elsewhere", dir);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Another user's symlink in the parent path: refused, nothing made at its target. */
static void test_others_link_refused(void **state)
{
	char dir[] = "/tmp/ptbpf-outdir-XXXXXX", path[128], want[512], err[512];

	make_link_tree(dir, 65534, 0755);
	snprintf(path, sizeof(path), "%s/link/out", dir);
	assert_int_equal(outdir_open(path, -1, -1, err, sizeof(err)), -EPERM);
	snprintf(want, sizeof(want),
		 "output path %s: symlink %s/link is owned by uid 65534: refusing to follow it",
		 path, dir);
	assert_string_equal(err, want);
	/* nor for a sudo user who is not its owner either */
	assert_int_equal(outdir_open(path, 65533, 65533, err, sizeof(err)), -EPERM);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/elsewhere/out", dir);
	assert_int_equal(access(path, F_OK), -1);
	remove_link_tree(dir);
}

/*
 * Root's symlink where others can write (a hard link to it is all it
 * takes): refused for a sudo user; the sudo user's own symlink there is
 * followed, and the directory made at its target is theirs.
 */
static void test_link_in_open_dir(void **state)
{
	char dir[] = "/tmp/ptbpf-outdir-XXXXXX", path[128], want[512], err[512];
	struct stat st;
	int fd;

	make_link_tree(dir, 0, 01777);
	snprintf(path, sizeof(path), "%s/link/out", dir);
	assert_int_equal(outdir_open(path, 65534, 65534, err, sizeof(err)), -EPERM);
	snprintf(want, sizeof(want),
		 "output path %s: symlink %s/link is in a directory others can write to: "
		 "refusing to follow it",
		 path, dir);
	assert_string_equal(err, want);
	snprintf(path, sizeof(path), "%s/elsewhere/out", dir);
	assert_int_equal(access(path, F_OK), -1);

	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(lchown(path, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/link/out", dir);
	fd = outdir_open(path, 65534, 65534, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/elsewhere/out", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	remove_link_tree(dir);
}

/* Our own symlink, absolute or relative, ".." after it: followed as the kernel would. */
static void test_own_link_followed(void **state)
{
	char dir[] = "/tmp/ptbpf-outdir-XXXXXX", path[160], err[512];
	struct stat st;
	int fd;

	make_link_tree(dir, 0, 0700);
	snprintf(path, sizeof(path), "%s/link/../elsewhere/out/", dir);
	fd = outdir_open(path, -1, -1, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/elsewhere/out", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	remove_link_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_parent),	    cmocka_unit_test(test_parent_refuses),
		cmocka_unit_test(test_others_link_refused), cmocka_unit_test(test_link_in_open_dir),
		cmocka_unit_test(test_own_link_followed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
