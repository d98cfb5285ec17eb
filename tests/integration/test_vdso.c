// SPDX-License-Identifier: GPL-2.0
/*
 * The target's [vdso] in real snapshots (sample backend, real kernel):
 * ticker spends its time in clock_gettime(), most of it in the vDSO. A
 * stop snapshot holds the vDSO image as vdso.so, byte for byte the one
 * this test maps (one image per ABI and kernel), as ptbpf.json says; and
 * ptbpf-dump names the vDSO's functions (__vdso_clock_gettime) for the
 * samples taken there, by that file. Needs root; skipped without it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/auxv.h>

#include "integ.h"
#include "jsondoc.h"

#define DUMP_BIN "./ptbpf-dump"

struct fx {
	char *dir;
	char out[PATH_MAX + 64]; /* ptbpf -o */
	char log[600]; /* ptbpf's stderr */
	pid_t target, ptbpf;
	struct held held; /* what this test's ptbpf held, by id */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), f->log, sizeof(f->log));
	*state = f;
	return f->dir ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	fx_show_log(f->log);
	fx_end_ptbpf(f->ptbpf);
	kill_wait(f->target);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* The size ptbpf.json of snapshot @snap gives the image; -1: none. */
static long long json_vdso_bytes(const char *snap, char *proc_vdso, size_t len)
{
	struct json_object *root = NULL, *v;
	struct jsondoc_err e;
	char path[PATH_MAX];
	const char *str;
	uint64_t bytes = 0;
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/ptbpf.json", snap);
	text = slurp(path);
	assert_non_null(text);
	assert_int_equal(jsondoc_parse(text, strlen(text), &root, &e), 0);
	free(text);
	v = jsondoc_get(root, "vdso");
	ret = v ? jsondoc_get_u64(v, "bytes", &bytes) : -1;
	proc_vdso[0] = '\0';
	v = jsondoc_get(root, "process");
	if (v && !jsondoc_get_str(v, "vdso", &str))
		snprintf(proc_vdso, len, "%s", str);
	jsondoc_free(root);
	return ret ? -1 : (long long)bytes;
}

/*
 * Snapshot @snap holds vdso.so as ptbpf.json says: the image this test
 * process maps, to the byte.
 */
static void check_image(const char *snap)
{
	const unsigned char *own = (const void *)getauxval(AT_SYSINFO_EHDR);
	char path[PATH_MAX], word[96];
	unsigned char buf[65536];
	long long bytes;
	ssize_t n;
	int fd;

	assert_non_null(own);
	bytes = json_vdso_bytes(snap, word, sizeof(word));
	assert_true(bytes > 0);
	assert_string_equal(word, "vdso.so");
	snprintf(path, sizeof(path), "%s/vdso.so", snap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, bytes);
	assert_memory_equal(buf, "\177ELF", 4);
	assert_memory_equal(buf, own, (size_t)n);
}

/*
 * A line of the dump's hottest functions that is a named function of
 * [vdso]: "  14.0%  __vdso_clock_gettime   [vdso]".
 */
static bool names_vdso_function(const char *o)
{
	const char *line, *end;

	for (line = o; line && *line; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (memmem(line, (size_t)(end - line), "__vdso_", 7) &&
		    memmem(line, (size_t)(end - line), "[vdso]", 6) &&
		    memmem(line, (size_t)(end - line), "%", 1))
			return true;
		if (!*end)
			break;
	}
	return false;
}

static void test_vdso_named(void **state)
{
	struct fx *f = *state;
	char *argv[] = { PTBPF_BIN, "-o",   f->out, "-b",	    "sample",
			 "-F",	    "4000", "--",   PROGS "ticker", NULL };
	char snap[PATH_MAX + 96], cmd[2 * PATH_MAX], *o = NULL;
	bool named = false;
	double deadline;
	int i, st;

	need_root();
	f->ptbpf = spawn(argv, f->log);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("ptbpf did not start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	f->target = (pid_t)event_field(f->out, "start", 0, "pid");
	assert_true(f->target > 0);
	/*
	 * Stop snapshots until one's samples include the vDSO's named code:
	 * how many fall there depends on the machine, so the test waits for
	 * it (a snapshot at a time), never counts them.
	 */
	deadline = mono_s() + 180;
	for (i = 0; !named && mono_s() < deadline; i++) {
		assert_true(wait_cpu(f->target, 300, 60));
		assert_int_equal(kill(f->target, SIGSTOP), 0);
		if (!wait_stopped(f->target, 1, 60))
			fail_msg("cycle %d: target did not stop", i);
		if (!wait_events(f->out, "snapshot", i + 1, 60))
			fail_msg("cycle %d: no snapshot: %s", i, slurp(f->log));
		snprintf(snap, sizeof(snap), "%s/snapshot-%06lld", f->out,
			 event_field(f->out, "snapshot", i, "snapshot"));
		check_image(snap);
		snprintf(cmd, sizeof(cmd), "%s %s 2>&1", DUMP_BIN, snap);
		free(o);
		o = run_out(cmd, &st);
		assert_non_null(o);
		if (st != 0)
			fail_msg("ptbpf-dump exited %d: %s", st, o);
		named = names_vdso_function(o);
		assert_int_equal(kill(f->target, SIGCONT), 0);
		if (!wait_events(f->out, "run", i + 1, 30))
			fail_msg("cycle %d: no run event", i);
	}
	if (!named)
		fail_msg("no vDSO function named in %d snapshots; the last: %s", i, o);
	free(o);
	kill(f->ptbpf, SIGINT);
	st = wait_exit(f->ptbpf, 60);
	f->ptbpf = 0;
	assert_true(st >= 0);
	assert_int_equal(held_left(&f->held), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vdso_named, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
