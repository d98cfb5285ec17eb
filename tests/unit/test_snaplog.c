// SPDX-License-Identifier: GPL-2.0
/*
 * What is said of a written snapshot (user/snapshot/snaplog.c): the
 * human line tells what the snapshot holds, a fatal one kept for its
 * crash record alone included (it was announced as 0.0 KiB).
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/eventlog.h"
#include "snapshot/snaplog.h"
#include "testio.h"

/* The stderr of snaplog_written() for @snap, as a string to free. */
static char *said(struct snapshot *snap)
{
	char dir[] = "/tmp/ptbpf-snaplog-XXXXXX", errpath[64];
	struct snaplog_books books = { 0 };
	struct eventlog log;
	int dfd, efd, saved;
	size_t len;
	char *out;

	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(eventlog_open(&log, dfd, -1, -1), 0);
	snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(efd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	snaplog_written(&log, snap, "out/snapshot-000007", 1000, &books, 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(efd);
	eventlog_close(&log);
	close(dfd);
	out = read_whole(errpath, &len);
	rm_tree(dir);
	return out;
}

static void test_fatal_crash_record_only(void **state)
{
	struct snapshot snap = { 0 };
	char *out;

	snap.id = 7;
	snap.run.pid = 42;
	snap.why.kind = SNAPCAUSE_FATAL;
	snap.crash.valid = true;
	snap.crash.stack_len = 8192;
	out = said(&snap);
	assert_non_null(out);
	if (!strstr(out, "snapshot 7 (fatal): out/snapshot-000007, 8.2 KiB") ||
	    strstr(out, " 0.0 KiB"))
		fail_msg(
			"expected the crash record's 8.2 KiB (8 KiB of stack and the registers), saw: %s",
			out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fatal_crash_record_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
