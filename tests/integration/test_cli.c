// SPDX-License-Identifier: GPL-2.0
/*
 * Every bad input gets one clear line on stderr, a non-zero exit, and
 * leaves nothing behind: no BPF program, no output directory it made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pwd.h>
#include <sys/syscall.h>

#include "integ.h"

struct cli_case {
	const char *args; /* after ./ptbpf; %d is the fixture's pid */
	int status;
	const char *msg;
};

static char dir[64];

static int setup(void **state)
{
	char *d = make_tmpdir();

	if (!d)
		return -1;
	snprintf(dir, sizeof(dir), "%s", d);
	free(d);
	return 0;
}

static int teardown(void **state)
{
	rm_rf(dir);
	return 0;
}

/* Runs ptbpf with @args; checks status, the one stderr line and cleanup. */
static void check(const char *env, const char *args, int status,
		  const char *msg)
{
	char cmd[1024], err[4096];
	int st, lines = 0;
	char *p;

	snprintf(cmd, sizeof(cmd), "%s %s -o %s/out %s </dev/null",
		 env ? env : "", PTBPF_BIN, dir, args);
	st = run_capture(cmd, err, sizeof(err));
	for (p = err; *p; p++)
		lines += *p == '\n';
	if (st != status || !strstr(err, msg) || lines != 1 ||
	    strncmp(err, "ptbpf: ", 7))
		fail_msg(
			"'%s': status %d (want %d), stderr '%s' (want one line with '%s')",
			args, st, status, err, msg);
	assert_int_equal(loaded_ptbpf_progs(), 0);
}

static const struct cli_case usage_cases[] = {
	{ "", 2, "nothing to trace" },
	{ "--pid abc", 2, "invalid pid 'abc'" },
	{ "--pid 0", 2, "invalid pid '0'" },
	{ "--pid -3", 2, "invalid pid '-3'" },
	{ "--pid", 2, "needs a value" },
	{ "--frobnicate --pid 1", 2, "unknown option '--frobnicate'" },
	{ "--pid 1 -- /bin/true", 2, "not both" },
	{ "-b quantum --pid 1", 2, "unknown backend 'quantum'" },
};

static void test_usage_errors(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++)
		check(NULL, usage_cases[i].args, usage_cases[i].status,
		      usage_cases[i].msg);
}

static void test_bad_targets(void **state)
{
	char args[128], tid[300] = "";
	char *targv[] = { PROGS "spin", "2", NULL };
	pid_t gone, spin;
	struct dirent *de;
	char path[64];
	DIR *d;

	need_root();
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(args, sizeof(args), "--pid %d", gone);
	check(NULL, args, 1, "no such process");
	check(NULL, "--pid 2", 1, "kernel thread");

	spin = spawn(targv, NULL);
	msleep(50);
	snprintf(path, sizeof(path), "/proc/%d/task", spin);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (atoi(de->d_name) > 0 && atoi(de->d_name) != spin)
			snprintf(tid, sizeof(tid), "%s", de->d_name);
	if (d)
		closedir(d);
	snprintf(args, sizeof(args), "--pid %s", tid);
	check(NULL, args, 1, "is a thread of process");
	kill_wait(spin);
	/* nothing was made for a run that never started */
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_own_pid(void **state)
{
	char cmd[256], err[1024];

	need_root();
	snprintf(cmd, sizeof(cmd), "sh -c 'exec %s -o %s/out --pid $$'",
		 PTBPF_BIN, dir);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "is ptbpf itself"));
}

static void test_command_not_found(void **state)
{
	need_root();
	check(NULL, "-- /nonexistent/program", 127,
	      "can't run /nonexistent/program: No such file");
}

static void test_no_btf(void **state)
{
	need_root();
	check("PTBPF_BTF=/nonexistent/vmlinux", "-- /bin/true", 1,
	      "this kernel has no BTF");
}

/*
 * A kernel without one of the tracepoints: a BTF that holds only the types
 * the program's CO-RE relocations use (bpftool gen min_core_btf) has no
 * btf_trace_* typedefs at all.
 */
static void test_missing_tracepoint(void **state)
{
	char cmd[512], err[1024], env[128];

	need_root();
	snprintf(
		cmd, sizeof(cmd),
		"bpftool gen min_core_btf /sys/kernel/btf/vmlinux %s/min.btf .output/ptbpf.bpf.o",
		dir);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 0);
	snprintf(env, sizeof(env), "PTBPF_BTF=%s/min.btf", dir);
	check(env, "-- /bin/true", 1,
	      "this kernel has no sched_switch tracepoint");
}

static void test_not_root(void **state)
{
	char cmd[512], err[1024];

	need_root();
	snprintf(
		cmd, sizeof(cmd),
		"setpriv --reuid=65534 --regid=65534 --clear-groups %s -o /tmp --pid 1",
		PTBPF_BIN);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "not enough privileges"));
	assert_non_null(strstr(err, "CAP_BPF"));
}

/* -v: libbpf's lines once prefixed, and the start before its resume. */
static void test_verbose_lines(void **state)
{
	char cmd[512], err[1 << 16], *start, *resume;

	need_root();
	snprintf(cmd, sizeof(cmd), "%s -v -b sample -o %s/out -- /bin/true",
		 PTBPF_BIN, dir);
	/* run_capture keeps 64 KiB of stderr: the verifier's lines fit */
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "libbpf: "));
	assert_null(strstr(err, "libbpf: libbpf:"));
	start = strstr(err, " start ");
	resume = strstr(err, " resume ");
	assert_non_null(start);
	assert_non_null(resume);
	assert_true(start < resume);
}

static void test_bad_output(void **state)
{
	char path[128], args[256], err[1024], cmd[512];
	int fd;

	need_root();
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- /bin/true", PTBPF_BIN, path);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "not a directory"));

	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("/tmp", path), 0);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- /bin/true", PTBPF_BIN, path);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "symlink"));

	snprintf(path, sizeof(path), "%s/theirs", dir);
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- /bin/true", PTBPF_BIN, path);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "owned by uid 65534"));
	snprintf(args, sizeof(args), "%s/theirs/events.jsonl", dir);
	assert_int_equal(access(args, F_OK), -1);

	/* missing parents: named, with what to do; nothing made */
	snprintf(path, sizeof(path), "%s/a/b/out", dir);
	snprintf(cmd, sizeof(cmd), "%s -o %s -- /bin/true", PTBPF_BIN, path);
	assert_int_equal(run_capture(cmd, err, sizeof(err)), 1);
	snprintf(args, sizeof(args),
		 "%s/a/b does not exist (mkdir -p %s/a/b first)", dir, dir);
	assert_non_null(strstr(err, args));
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(loaded_ptbpf_progs(), 0);
}

/* Collection that can't be set up: one line, nothing made, nothing left. */
static void test_bad_collection(void **state)
{
	char args[128], path[128];

	need_root();
	snprintf(args, sizeof(args), "-C %ld -- /bin/true",
		 sysconf(_SC_NPROCESSORS_CONF) + 5);
	check(NULL, args, 1, "does not exist (--cpus");
	check(NULL, "-s 1G -- /bin/true", 1, "lower --buffer-size");
	check(NULL, "-b sample --format lldb -- /bin/true", 1,
	      "--format lldb needs the intel-pt backend");
	check(NULL, "--cgroup=/nonexistent/cg -- /bin/true", 1,
	      "can't open cgroup /nonexistent/cg");
	if (access("/sys/bus/event_source/devices/intel_pt", F_OK))
		check(NULL, "-b intel-pt -- /bin/true", 1,
		      "no Intel PT PMU: /sys/bus/event_source/devices/intel_pt not found");
	snprintf(path, sizeof(path), "%s/out", dir);
	assert_int_equal(access(path, F_OK), -1);
}

/* Run through sudo, the command runs as the invoking user. */
static void test_runs_as_sudo_user(void **state)
{
	char cmd[512], out[256];
	FILE *f;

	need_root();
	snprintf(
		cmd, sizeof(cmd),
		"SUDO_UID=65534 SUDO_GID=65534 %s -q -o %s/out -- /usr/bin/id -u",
		PTBPF_BIN, dir);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(out, sizeof(out), f));
	assert_int_equal(pclose(f), 0);
	assert_string_equal(out, "65534\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_usage_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_targets, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_own_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_not_found, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_tracepoint, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verbose_lines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_output, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_runs_as_sudo_user, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_collection, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
