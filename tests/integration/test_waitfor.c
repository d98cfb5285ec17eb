// SPDX-License-Identifier: GPL-2.0
/*
 * --wait-for and --unit on a real kernel, sample backend. --wait-for: a
 * program started 2 s after ptbpf is held at its exec (the run starts with
 * it stopped) and its first work is in the first snapshot; only the exec
 * hook is loaded while ptbpf waits. --unit without systemd: the unit's
 * cgroup is one the test makes, and `systemctl show` is answered by a
 * script (PTBPF_SYSTEMCTL), so everything after the name's resolution is
 * the path a real unit takes: processes already in the cgroup, their
 * children, and a process that execs in it later are all followed.
 * Needs root, as every integration test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "integ.h"

#define CGROUP2 "/sys/fs/cgroup/unified"

struct fx {
	char *dir;
	char out[128], log[128], cg[256], unit[300];
	pid_t ptbpf, procs[4];
	struct held held;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->dir = fx_dir(f->out, sizeof(f->out), f->log, sizeof(f->log));
	if (!f->dir)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	unsigned int i;

	fx_show_log(f->log);
	if (f->ptbpf > 0)
		kill_wait(f->ptbpf);
	for (i = 0; i < 4; i++)
		kill_wait(f->procs[i]);
	unsetenv("PTBPF_SYSTEMCTL");
	if (f->unit[0] && rmdir(f->unit))
		fprintf(stderr, "can't remove cgroup %s: %m\n", f->unit);
	if (f->cg[0] && rmdir(f->cg))
		fprintf(stderr, "can't remove cgroup %s: %m\n", f->cg);
	fx_dir_remove(f->dir);
	free(f);
	return 0;
}

/* ptbpf -q -b sample -o OUT @a [@b]: started, nothing waited for. */
static void start_ptbpf(struct fx *f, const char *a, const char *b)
{
	char *argv[] = { PTBPF_BIN, "-q", "-b", "sample", "-o", f->out, (char *)a, (char *)b, NULL };

	f->ptbpf = spawn(argv, f->log);
	assert_true(f->ptbpf > 0);
}

/* Whether ptbpf's stderr (its log) has @what yet. */
static bool log_has(const struct fx *f, const char *what)
{
	char *log = slurp(f->log);
	bool has = log && strstr(log, what);

	free(log);
	return has;
}

/* Lines of `perf script` (call chains included) of snapshot @n with @sym. */
static long lines_with(const struct fx *f, int n, const char *sym)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s/snapshot-%06d/perf.data 2>/dev/null | "
		 "grep -c -- '%s'",
		 f->out, n, sym);
	return run_count(cmd);
}

/*
 * Waits for ptbpf to be held in the wait (it has loaded its exec hook),
 * then checks it: one program, and no run begun.
 */
static void wait_waiting(struct fx *f)
{
	double end = mono_s() + 60;

	while (mono_s() < end) {
		memset(&f->held, 0, sizeof(f->held));
		if (held_add(&f->held, f->ptbpf) > 0 && f->held.n[HELD_PROG])
			break;
		msleep(20);
	}
	/* only the exec hook while it waits */
	assert_int_equal(f->held.n[HELD_PROG], 1);
	assert_int_equal(count_events(f->out, "start"), 0);
}

/*
 * The common part: `startup 150` execs 2 s after ptbpf began waiting (a
 * process that execs another program meanwhile is not taken); the run
 * starts with it held, its first work is in the first snapshot.
 */
static void check_held_start(struct fx *f, char *const prog[])
{
	char *other[] = { "/bin/true", NULL };
	char state[32];
	pid_t pid;

	wait_waiting(f);
	msleep(2000);
	assert_int_equal(wait_exit(spawn(other, NULL), 60), 0);
	assert_int_equal(count_events(f->out, "start"), 0);
	pid = f->procs[0] = spawn(prog, NULL);
	assert_true(pid > 0);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("no start: %s", slurp(f->log));
	assert_int_equal(event_field(f->out, "start", 0, "pid"), pid);
	/* held at its exec: the run begins with it stopped, then lets it go */
	assert_int_equal(event_str(f->out, "start", 0, "state", state, sizeof(state)), 0);
	assert_string_equal(state, "stopped");
	assert_int_equal(wait_exit(pid, 30), 0);
	f->procs[0] = 0;
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	assert_int_equal(held_left(&f->held), 0);
	assert_int_equal(event_field(f->out, "run", 0, "pid"), pid);
	assert_int_equal(event_str(f->out, "run", 0, "signal", state, sizeof(state)), 0);
	assert_string_equal(state, "SIGCONT");
	/* its first 150 ms of work, in the first snapshot */
	print_message("snapshot 1: %ld lines in first_work, %ld in "
		      "later_work\n",
		      lines_with(f, 1, "first_work"), lines_with(f, 1, "later_work"));
	assert_true(lines_with(f, 1, "first_work") > 0);
}

/* --wait-for NAME: a bare name is the process's name (comm). */
static void test_wait_for_name(void **state)
{
	struct fx *f = *state;
	char path[300], name[32], cmd[700];
	char *prog[] = { path, "150", NULL };

	need_root();
	/*
	 * a name of this test's own: the hook takes the first exec of that
	 * name on the machine, and another run of these tests may be
	 * starting its "startup" meanwhile
	 */
	snprintf(name, sizeof(name), "su-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	snprintf(cmd, sizeof(cmd), "cp %s '%s'", PROGS "startup", path);
	assert_int_equal(system(cmd), 0);
	start_ptbpf(f, "--wait-for", name);
	check_held_start(f, prog);
}

/* --wait-for PATH: the file, whatever name the exec uses (a symlink). */
static void test_wait_for_path(void **state)
{
	struct fx *f = *state;
	char abs[PATH_MAX], link[256];
	char *prog[] = { link, "150", NULL };

	need_root();
	assert_non_null(realpath(PROGS "startup", abs));
	snprintf(link, sizeof(link), "%s/another-name", f->dir);
	assert_int_equal(symlink(abs, link), 0);
	start_ptbpf(f, "--wait-for", abs);
	check_held_start(f, prog);
}

/* SIGINT while waiting: one line, status 130 (128 + SIGINT), nothing held after. */
static void test_wait_for_interrupted(void **state)
{
	struct fx *f = *state;
	char *log;

	need_root();
	start_ptbpf(f, "--wait-for", "no-such-program-ever");
	wait_waiting(f);
	kill(f->ptbpf, SIGINT);
	assert_int_equal(wait_exit(f->ptbpf, 60), 128 + SIGINT);
	f->ptbpf = 0;
	assert_int_equal(held_left(&f->held), 0);
	log = slurp(f->log);
	assert_non_null(log);
	assert_non_null(strstr(log, "ptbpf: interrupted while waiting for no-such"));
	free(log);
}

/* A path that is no program is refused before anything is loaded. */
static void test_wait_for_bad_path(void **state)
{
	struct fx *f = *state;
	char *log;

	need_root();
	start_ptbpf(f, "--wait-for", "/nonexistent/prog");
	assert_int_equal(wait_exit(f->ptbpf, 60), 1);
	f->ptbpf = 0;
	log = slurp(f->log);
	assert_non_null(log);
	assert_string_equal(log, "ptbpf: --wait-for /nonexistent/prog: No such file or "
				 "directory\n");
	free(log);
}

/* Forks and execs @argv inside cgroup @cg (moved in before the exec). */
static pid_t spawn_in(const char *cg, char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		char path[300], me[16];
		int fd, null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		snprintf(me, sizeof(me), "%d", getpid());
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, me, strlen(me)) < 0)
			_exit(126);
		close(fd);
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	/*
	 * The parent sets the group too: the caller signals it at once, and
	 * on a loaded machine the child may not have run its setpgid() yet
	 * (kill(-pid) then fails with ESRCH). After the exec this one fails
	 * harmlessly: the child's own call came first.
	 */
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

/* The first child of process @pid, once it has one; 0 at the deadline. */
static pid_t first_child(pid_t pid, double secs)
{
	double end = mono_s() + secs;
	char path[64], buf[64];
	FILE *f;
	int child;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	do {
		f = fopen(path, "r");
		child = 0;
		if (f && fgets(buf, sizeof(buf), f))
			child = atoi(buf);
		if (f)
			fclose(f);
		if (child > 0)
			return child;
		msleep(10);
	} while (mono_s() < end);
	return 0;
}

/*
 * --unit over a cgroup the test makes: two unrelated processes in it
 * (one forks a worker), a third that execs in it once the run began.
 * Each is followed; the run ends after the last exit.
 */
static void test_unit_cgroup(void **state)
{
	struct fx *f = *state;
	char *a[] = { PROGS "startup", "600", NULL };
	char *b[] = { PROGS "forkserver", "1", "600", NULL };
	char *c[] = { PROGS "startup", "200", NULL };
	char script[256], body[512], opt[64];
	pid_t pids[3], worker = 0;
	long n[3];
	int i;
	FILE *s;

	need_root();
	if (access(CGROUP2 "/cgroup.procs", F_OK))
		fail_msg("no cgroup v2 at " CGROUP2);
	snprintf(f->cg, sizeof(f->cg), CGROUP2 "/ptbpf-test-%d", getpid());
	assert_int_equal(mkdir(f->cg, 0755), 0);
	snprintf(f->unit, sizeof(f->unit), "%s/fake-%d.service", f->cg, getpid());
	assert_int_equal(mkdir(f->unit, 0755), 0);
	/* what `systemctl show` says of a running service */
	snprintf(script, sizeof(script), "%s/systemctl", f->dir);
	snprintf(body, sizeof(body), "#!/bin/sh\necho MainPID=0\necho ControlGroup=%s\n",
		 f->unit + strlen(CGROUP2));
	s = fopen(script, "w");
	assert_non_null(s);
	fputs(body, s);
	fclose(s);
	assert_int_equal(chmod(script, 0700), 0);
	setenv("PTBPF_SYSTEMCTL", script, 1);

	f->procs[0] = spawn_in(f->unit, a);
	f->procs[1] = spawn_in(f->unit, b);
	/*
	 * a, b and b's worker wait stopped (each spawn is its own process
	 * group) until ptbpf has started: one done before ptbpf's start (its
	 * calibration and attach take long on a loaded machine) would have no
	 * exit in the run to see.
	 */
	worker = first_child(f->procs[1], 60);
	assert_true(worker > 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(kill(-f->procs[i], SIGSTOP), 0);
	assert_true(wait_stopped(f->procs[0], 1, 60));
	assert_true(wait_stopped(f->procs[1], 1, 60));
	assert_true(wait_stopped(worker, 1, 60));
	f->procs[3] = worker; /* not left stopped if the test fails */
	worker = 0;
	snprintf(opt, sizeof(opt), "fake-%d.service", getpid());
	start_ptbpf(f, "--unit", opt);
	if (!wait_events(f->out, "start", 1, 60))
		fail_msg("no start: %s", slurp(f->log));
	assert_true(held_add(&f->held, f->ptbpf) > 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(kill(-f->procs[i], SIGCONT), 0);
	f->procs[3] = 0; /* b's: b reaps it */
	f->procs[2] = spawn_in(f->unit, c);
	for (i = 0; i < 3; i++) {
		pids[i] = f->procs[i];
		assert_int_equal(wait_exit(f->procs[i], 30), 0);
		f->procs[i] = 0;
	}
	assert_int_equal(wait_exit(f->ptbpf, 60), 0);
	f->ptbpf = 0;
	assert_int_equal(held_left(&f->held), 0);
	/* a, b, b's worker (forked before the run: adopted) and c */
	assert_int_equal(count_events(f->out, "exit"), 4);
	assert_int_equal(count_events(f->out, "fork"), 0);
	assert_int_equal(count_events(f->out, "join"), 1);
	assert_int_equal(event_field(f->out, "join", 0, "pid"), pids[2]);
	for (i = 0; i < 4; i++) {
		pid_t p = (pid_t)event_field(f->out, "exit", i, "pid");

		if (p != pids[0] && p != pids[1] && p != pids[2])
			worker = p;
	}
	assert_true(worker > 0);
	/* each one's work, whichever of them the run is rooted at */
	n[0] = samples_with(f->out, pids[0], "spin");
	n[1] = samples_with(f->out, worker, "worker_spin");
	n[2] = samples_with(f->out, pids[2], "spin");
	print_message("--unit: a %ld, b's worker %ld, c %ld samples\n", n[0], n[1], n[2]);
	for (i = 0; i < 3; i++)
		assert_true(n[i] > 0);
}

/*
 * --unit without an answer: no systemd here is one clear line; with
 * systemd a unit that is not running is another.
 */
static void test_unit_unresolved(void **state)
{
	struct fx *f = *state;
	char *log;

	need_root();
	unsetenv("PTBPF_SYSTEMCTL");
	start_ptbpf(f, "--unit", "ptbpf-no-such-unit.service");
	assert_int_equal(wait_exit(f->ptbpf, 60), 1);
	f->ptbpf = 0;
	log = slurp(f->log);
	assert_non_null(log);
	if (access("/run/systemd/system", F_OK))
		assert_non_null(strstr(log, "ptbpf: --unit needs systemd, and "
					    "it is not running here"));
	else
		assert_non_null(strstr(log, "has no cgroup: it is not running"));
	/* one line, nothing else */
	assert_ptr_equal(strchr(log, '\n'), log + strlen(log) - 1);
	free(log);
}

/*
 * kill -9 of ptbpf while it holds the program it waited for (stopped at
 * its exec, until collection runs): the guardian lets it go (SIGCONT).
 */
static void test_wait_for_kill9(void **state)
{
	struct fx *f = *state;
	char prog[300], cmd[700];
	char *argv[] = { prog, NULL };
	double end;
	char st = 0;
	pid_t pid;

	need_root();
	/* a file of its own: its device and inode are what is waited for */
	snprintf(prog, sizeof(prog), "%s/held-spin", f->dir);
	snprintf(cmd, sizeof(cmd), "cp %s '%s'", PROGS "spin", prog);
	assert_int_equal(system(cmd), 0);
	/* -v: it says when the guardian knows of the hold */
	f->ptbpf = spawn((char *[]){ PTBPF_BIN, "-v", "-b", "sample", "-o", f->out, "--wait-for",
				     prog, NULL },
			 f->log);
	assert_true(f->ptbpf > 0);
	wait_waiting(f);
	pid = f->procs[0] = spawn(argv, NULL);
	assert_true(pid > 0);
	for (end = mono_s() + 60; mono_s() < end; usleep(100)) {
		st = task_state(pid, pid);
		if (st == 'T' || st == 'Z' || st == 0)
			break;
	}
	if (st != 'T')
		fail_msg("the program was not held (state %c)", st ? st : '-');
	/* the guardian knows of the hold once -v says so; the SIGKILL comes after */
	for (end = mono_s() + 60; mono_s() < end && !log_has(f, "the guardian lets it go");)
		msleep(10);
	if (!log_has(f, "the guardian lets it go"))
		fail_msg("no hold said: %s", slurp(f->log));
	/* still held by ptbpf (its setup takes far longer than this look) */
	assert_int_equal(task_state(pid, pid), 'T');
	kill(f->ptbpf, SIGKILL);
	waitpid(f->ptbpf, NULL, 0);
	f->ptbpf = 0;
	for (end = mono_s() + 60; mono_s() < end && task_state(pid, pid) == 'T';)
		msleep(10);
	st = task_state(pid, pid);
	if (st == 'T')
		fail_msg("the program is still stopped after ptbpf's SIGKILL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_for_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_interrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_kill9, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_bad_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_cgroup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_unresolved, setup, teardown),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
