// SPDX-License-Identifier: GPL-2.0
/*
 * cpurun.c on the real scheduler: each function runs on its own CPU, all
 * at once, results come back first-by-index, 10,000 calls lose no wake-up,
 * a CPU that does not exist is one error line, stop leaves no thread, and
 * the threads block every signal and take a realtime policy only when
 * asked. Every call goes through a helper thread the test waits for with
 * a timeout, so a lost wake-up fails the test instead of hanging it.
 *
 * The realtime cases need root (CAP_SYS_NICE) and are skipped without it.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "collect/cpurun.h"

#define MAX_CPUS 1024
#define GARBAGE 0x5a
#define CALL_TIMEOUT_S 60
#define REPEATS 10000

static int cpus[MAX_CPUS];
static unsigned int ncpus;

/* What each function call saw, by index. */
struct seen {
	int cpu[MAX_CPUS];
	int pinned[MAX_CPUS]; /* the one CPU the thread may run on, or -1 */
	pid_t tid[MAX_CPUS];
	int policy[MAX_CPUS];
	int prio[MAX_CPUS];
	int all_blocked[MAX_CPUS];
	unsigned int runs[MAX_CPUS];
	/* barrier: how many are inside fn, and how long to wait for all */
	unsigned int inside, want;
	uint64_t patience_ns;
	int fail_from; /* indices >= this fail with -(idx + 1); -1: none */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The only CPU in the calling thread's affinity mask, or -1. */
static int pinned_to(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return -1;
	for (i = 0; !CPU_ISSET(i, &set); i++)
		;
	return i;
}

static int record(void *ctx, unsigned int idx)
{
	struct seen *s = ctx;
	struct sched_param sp;
	sigset_t cur;

	s->cpu[idx] = sched_getcpu();
	s->pinned[idx] = pinned_to();
	s->tid[idx] = gettid();
	s->policy[idx] = sched_getscheduler(0);
	s->prio[idx] = sched_getparam(0, &sp) ? -1 : sp.sched_priority;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	s->all_blocked[idx] = sigismember(&cur, SIGINT) && sigismember(&cur, SIGTERM) &&
			      sigismember(&cur, SIGUSR2) && sigismember(&cur, SIGCHLD) &&
			      sigismember(&cur, SIGRTMIN);
	s->runs[idx]++;
	if (s->fail_from >= 0 && idx >= (unsigned int)s->fail_from)
		return -(int)(idx + 1);
	return 0;
}

/* Returns 0 only when all s->want calls were inside at the same time. */
static int barrier(void *ctx, unsigned int idx)
{
	struct seen *s = ctx;
	uint64_t end = now_ns() + s->patience_ns;

	__atomic_add_fetch(&s->inside, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&s->inside, __ATOMIC_ACQUIRE) < s->want)
		if (now_ns() > end)
			return -ETIMEDOUT;
	s->runs[idx]++;
	return 0;
}

static int count_runs(void *ctx, unsigned int idx)
{
	struct seen *s = ctx;

	s->runs[idx]++;
	return 0;
}

/* Index 1 (a worker's, the caller pinned to cpus[0]) outlasts the spin. */
static int count_slow(void *ctx, unsigned int idx)
{
	struct seen *s = ctx;
	uint64_t until = now_ns() + CPURUN_SPIN_NS + 50000;

	while (idx == 1 && now_ns() < until)
		;
	s->runs[idx]++;
	return 0;
}

/* The calling side, on a thread of its own so the test can time it out. */
struct caller {
	struct cpurun *r;
	cpurun_fn fn;
	void *ctx;
	int pin; /* CPU the caller pins itself to, or -1 */
	unsigned int calls;
	unsigned int done_calls;
	int first_rc;
	pid_t tid;
	sem_t finished;
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	unsigned int i;
	cpu_set_t set;
	int rc;

	c->tid = gettid();
	if (c->pin >= 0) {
		CPU_ZERO(&set);
		CPU_SET(c->pin, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			c->first_rc = -errno;
	}
	for (i = 0; i < c->calls && !c->first_rc; i++) {
		rc = cpurun_call(c->r, c->fn, c->ctx);
		if (rc && !c->first_rc)
			c->first_rc = rc;
		__atomic_store_n(&c->done_calls, i + 1, __ATOMIC_RELEASE);
	}
	sem_post(&c->finished);
	return NULL;
}

/* cpurun_call() @calls times from a thread pinned to @pin (-1: not). */
static int call_timed(struct cpurun *r, cpurun_fn fn, void *ctx, int pin, unsigned int calls,
		      pid_t *caller_tid)
{
	/* On the heap: a hung caller keeps it, the test fails and goes on. */
	struct caller *c = calloc(1, sizeof(*c));
	struct timespec until;
	pthread_t t;
	int rc;

	assert_non_null(c);
	c->r = r;
	c->fn = fn;
	c->ctx = ctx;
	c->pin = pin;
	c->calls = calls;
	assert_int_equal(sem_init(&c->finished, 0, 0), 0);
	assert_int_equal(pthread_create(&t, NULL, caller_main, c), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += CALL_TIMEOUT_S;
	while ((rc = sem_timedwait(&c->finished, &until)) && errno == EINTR)
		;
	if (rc)
		fail_msg("cpurun_call hung: %u of %u calls returned in %d s",
			 __atomic_load_n(&c->done_calls, __ATOMIC_ACQUIRE), calls, CALL_TIMEOUT_S);
	pthread_join(t, NULL);
	sem_destroy(&c->finished);
	if (caller_tid)
		*caller_tid = c->tid;
	rc = c->first_rc;
	free(c);
	return rc;
}

static unsigned int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * The thread count once it is @want, or whatever it is after 2 s: a joined
 * thread may stay listed in /proc/self/task for a moment after its join.
 */
static unsigned int wait_tasks(unsigned int want)
{
	unsigned int n = count_tasks(), i;

	for (i = 0; i < 200 && n != want; i++) {
		usleep(10000);
		n = count_tasks();
	}
	return n;
}

static struct seen *new_seen(void)
{
	struct seen *s = malloc(sizeof(*s));

	assert_non_null(s);
	memset(s, GARBAGE, sizeof(*s));
	memset(s->runs, 0, sizeof(s->runs));
	s->inside = 0;
	s->fail_from = -1;
	return s;
}

static struct cpurun *start_ok(const int *set, unsigned int n, int rt)
{
	char err[256] = "";
	struct cpurun *r = cpurun_start(set, n, rt, err, sizeof(err));

	if (!r)
		fail_msg("cpurun_start: %s", err);
	assert_int_equal(cpurun_count(r), n);
	return r;
}

static void test_bad_arguments(void **state)
{
	static const struct {
		const char *name;
		int cpus[2];
		unsigned int nr;
		int rt;
		const char *says;
	} cases[] = {
		{ "no CPU", { 0 }, 0, 0, "no CPU" },
		{ "negative CPU", { 0, -1 }, 2, 0, "cpu -1 does not exist" },
		{ "CPU listed twice", { 0, 0 }, 2, 0, "cpu 0 is listed twice" },
		{ "priority too high", { 0 }, 1, 100, "priority 100 is above the maximum of 99" },
	};
	char err[256];
	size_t i;
	unsigned int before = count_tasks();

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("cpurun_start: %s\n", cases[i].name);
		memset(err, GARBAGE, sizeof(err));
		errno = 0;
		assert_null(
			cpurun_start(cases[i].cpus, cases[i].nr, cases[i].rt, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_non_null(strstr(err, cases[i].says));
	}
	errno = 0;
	assert_null(cpurun_start(NULL, 1, 0, NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(cpurun_call(NULL, record, NULL), -EINVAL);
	assert_int_equal(cpurun_count(NULL), 0);
	cpurun_stop(NULL);
	assert_int_equal(count_tasks(), before);
}

static void test_null_fn(void **state)
{
	struct cpurun *r = start_ok(cpus, 1, 0);

	assert_int_equal(cpurun_call(r, NULL, NULL), -EINVAL);
	cpurun_stop(r);
}

/* A CPU past the last configured one: refused, named, nothing left. */
static void test_no_such_cpu(void **state)
{
	int set[2] = { cpus[0], (int)sysconf(_SC_NPROCESSORS_CONF) + 3 };
	unsigned int before = count_tasks();
	char err[256], want[32];

	memset(err, GARBAGE, sizeof(err));
	errno = 0;
	assert_null(cpurun_start(set, 2, 0, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	snprintf(want, sizeof(want), "cpu %d", set[1]);
	print_message("error line: %s\n", err);
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
	assert_int_equal(count_tasks(), before);
}

/*
 * Caller pinned to cpus[0]: index 0 runs inline on the caller, every other
 * index on a thread of its own on its own CPU. Caller on a CPU outside the
 * set: every index on a worker.
 */
static void test_own_cpu(void **state)
{
	struct seen *s = new_seen();
	struct cpurun *r = start_ok(cpus, ncpus, 0);
	unsigned int i;
	pid_t caller;

	assert_int_equal(call_timed(r, record, s, cpus[0], 1, &caller), 0);
	for (i = 0; i < ncpus; i++) {
		assert_int_equal(s->runs[i], 1);
		assert_int_equal(s->cpu[i], cpus[i]);
		assert_int_equal(s->pinned[i], cpus[i]);
		if (i == 0)
			assert_int_equal(s->tid[i], caller);
		else
			assert_int_not_equal(s->tid[i], caller);
	}
	cpurun_stop(r);
	free(s);
	if (ncpus < 2)
		return;
	/* The set without the caller's CPU. */
	s = new_seen();
	r = start_ok(cpus + 1, ncpus - 1, 0);
	assert_int_equal(call_timed(r, record, s, cpus[0], 1, &caller), 0);
	for (i = 0; i < ncpus - 1; i++) {
		assert_int_equal(s->runs[i], 1);
		assert_int_equal(s->cpu[i], cpus[i + 1]);
		assert_int_equal(s->pinned[i], cpus[i + 1]);
		assert_int_not_equal(s->tid[i], caller);
	}
	cpurun_stop(r);
	free(s);
}

/*
 * The barrier completes only when every index is inside fn at once; run
 * one after another (the same fn called in a loop) it times out, which is
 * what shows the check can fail.
 */
static void test_concurrent(void **state)
{
	struct seen *s = new_seen();
	struct cpurun *r = start_ok(cpus, ncpus, 0);
	unsigned int i;

	s->want = ncpus;
	s->patience_ns = 10ULL * 1000000000ULL;
	assert_int_equal(call_timed(r, barrier, s, cpus[0], 1, NULL), 0);
	assert_int_equal(s->inside, ncpus);
	for (i = 0; i < ncpus; i++)
		assert_int_equal(s->runs[i], 1);
	/* Twenty calls in a row, caller not pinned. */
	for (i = 0; i < 20; i++) {
		s->inside = 0;
		assert_int_equal(call_timed(r, barrier, s, -1, 1, NULL), 0);
	}
	cpurun_stop(r);
	if (ncpus >= 2) {
		s->inside = 0;
		s->patience_ns = 20 * 1000000ULL;
		assert_int_equal(barrier(s, 0), -ETIMEDOUT);
	}
	free(s);
}

/* Every index runs even when some fail; the lowest failing one wins. */
static void test_first_error(void **state)
{
	struct cpurun *r = start_ok(cpus, ncpus, 0);
	struct seen *s = new_seen();
	unsigned int i, from;

	for (from = 0; from <= ncpus; from++) {
		memset(s->runs, 0, sizeof(s->runs));
		s->fail_from = from == ncpus ? -1 : (int)from;
		print_message("indices >= %u fail\n", from);
		assert_int_equal(call_timed(r, record, s, -1, 1, NULL),
				 from == ncpus ? 0 : -(int)(from + 1));
		for (i = 0; i < ncpus; i++)
			assert_int_equal(s->runs[i], 1);
	}
	/* Only the last index fails: its error comes back, from a worker too. */
	s->fail_from = ncpus - 1;
	assert_int_equal(call_timed(r, record, s, cpus[0], 1, NULL), -(int)ncpus);
	cpurun_stop(r);
	free(s);
}

/*
 * 10,000 calls each from a pinned and an unpinned caller, and 1,000 where
 * a worker outlasts the caller's spin (so the caller sleeps on the futex
 * and the last worker's wake is what brings it back): none lost.
 */
static void test_repeated(void **state)
{
	struct cpurun *r = start_ok(cpus, ncpus, 0);
	struct seen *s = new_seen();
	unsigned int i;

	assert_int_equal(call_timed(r, count_runs, s, cpus[0], REPEATS, NULL), 0);
	assert_int_equal(call_timed(r, count_runs, s, -1, REPEATS, NULL), 0);
	for (i = 0; i < ncpus; i++)
		assert_int_equal(s->runs[i], 2 * REPEATS);
	memset(s->runs, 0, sizeof(s->runs));
	assert_int_equal(call_timed(r, count_slow, s, cpus[0], REPEATS / 10, NULL), 0);
	for (i = 0; i < ncpus; i++)
		assert_int_equal(s->runs[i], REPEATS / 10);
	cpurun_stop(r);
	free(s);
}

/* One thread per CPU while started, none after stop. */
static void test_stop_joins(void **state)
{
	/* the test's own thread alone, once earlier tests' threads are gone */
	unsigned int before = wait_tasks(1), i;
	struct cpurun *r;

	for (i = 0; i < 3; i++) {
		r = start_ok(cpus, ncpus, 0);
		assert_int_equal(count_tasks(), before + ncpus);
		cpurun_stop(r);
		assert_int_equal(wait_tasks(before), before);
	}
	/* Stopped without ever being called. */
	r = start_ok(cpus, ncpus, 0);
	cpurun_stop(r);
	assert_int_equal(wait_tasks(before), before);
}

/*
 * Workers block every signal; the caller's mask is what it was. (With one
 * CPU the only index runs inline on the caller: the workers' mask can't be
 * seen, the caller's still is.)
 */
static void test_signals(void **state)
{
	struct seen *s = new_seen();
	sigset_t mine, after;
	struct cpurun *r;
	unsigned int i;

	sigemptyset(&mine);
	sigaddset(&mine, SIGUSR1);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &mine, NULL), 0);
	r = start_ok(cpus, ncpus, 0);
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	assert_true(sigismember(&after, SIGUSR1));
	assert_false(sigismember(&after, SIGINT));
	assert_false(sigismember(&after, SIGUSR2));
	cpurun_stop(r);
	/* A caller on a CPU outside the set: every index on a worker. */
	if (ncpus >= 2) {
		r = start_ok(cpus + 1, ncpus - 1, 0);
		assert_int_equal(call_timed(r, record, s, cpus[0], 1, NULL), 0);
		for (i = 0; i < ncpus - 1; i++)
			assert_true(s->all_blocked[i]);
		cpurun_stop(r);
	}
	sigemptyset(&mine);
	pthread_sigmask(SIG_SETMASK, &mine, NULL);
	free(s);
}

/*
 * A SCHED_FIFO caller (without SCHED_RESET_ON_FORK, the worst case) gets
 * SCHED_OTHER workers unless it asks; asked, the workers are SCHED_FIFO at
 * that priority with SCHED_RESET_ON_FORK.
 */
static void test_realtime(void **state)
{
	struct sched_param fifo = { .sched_priority = 10 };
	struct seen *s = new_seen();
	struct cpurun *r;
	unsigned int i;
	pid_t caller;

	if (sched_setscheduler(0, SCHED_FIFO, &fifo)) {
		free(s);
		skip();
	}
	r = start_ok(cpus, ncpus, 0);
	/* The caller (SCHED_FIFO too) runs its own CPU's index inline. */
	assert_int_equal(call_timed(r, record, s, cpus[0], 1, &caller), 0);
	assert_int_equal(s->tid[0], caller);
	assert_int_equal(s->policy[0], SCHED_FIFO);
	for (i = 1; i < ncpus; i++)
		assert_int_equal(s->policy[i], SCHED_OTHER);
	cpurun_stop(r);
	r = start_ok(cpus, ncpus, 5);
	assert_int_equal(call_timed(r, record, s, cpus[0], 1, NULL), 0);
	/* Index 0 ran inline on the helper caller; the rest on workers. */
	for (i = 1; i < ncpus; i++) {
		assert_int_equal(s->policy[i], SCHED_FIFO | SCHED_RESET_ON_FORK);
		assert_int_equal(s->prio[i], 5);
	}
	cpurun_stop(r);
	free(s);
}

/* Put the test process back to SCHED_OTHER, passed or failed. */
static int back_to_other(void **state)
{
	struct sched_param other = { 0 };

	return sched_setscheduler(0, SCHED_OTHER, &other);
}

/*
 * Where the kernel refuses SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0),
 * start succeeds all the same with SCHED_OTHER workers. Run in a child
 * that drops the capability, so the test process keeps its own.
 */
static int refused_child(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	struct rlimit rl = { 0, 0 };
	struct sched_param sp = { .sched_priority = 1 };
	struct seen *s = new_seen();
	struct cpurun *r;
	char err[256];
	unsigned int i;

	if (syscall(SYS_capget, &h, d))
		return 10;
	d[CAP_SYS_NICE / 32].effective &= ~(1U << (CAP_SYS_NICE % 32));
	d[CAP_SYS_NICE / 32].permitted &= ~(1U << (CAP_SYS_NICE % 32));
	if (syscall(SYS_capset, &h, d) || setrlimit(RLIMIT_RTPRIO, &rl))
		return 11;
	/* Proof that the kernel now refuses. */
	if (!sched_setscheduler(0, SCHED_FIFO, &sp))
		return 12;
	r = cpurun_start(cpus, ncpus, 5, err, sizeof(err));
	if (!r)
		return 13;
	if (cpurun_call(r, record, s))
		return 14;
	for (i = 0; i < ncpus; i++)
		if (s->runs[i] != 1 || s->policy[i] != SCHED_OTHER)
			return 15;
	cpurun_stop(r);
	return 0;
}

static void test_realtime_refused(void **state)
{
	int st;
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(refused_child());
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * The wake tree for every size up to 300 and several inline choices: each
 * index is woken exactly once (the inline one never: the caller runs it),
 * by a node woken before it, no node wakes more than CPURUN_FANOUT, and
 * the depth is the least a tree of that fan-out allows.
 */
static void check_tree(unsigned int nr, int k)
{
	static unsigned int woken[400], depth[400], queue[400];
	unsigned int head = 0, tail = 0, out[CPURUN_FANOUT], n, i, max = 0;
	unsigned int positions = nr + (k < 0), level = 1, want = 0;

	memset(woken, 0, sizeof(woken));
	/* -1 is the caller; the queue holds index + 1. */
	queue[tail++] = 0;
	depth[0] = 0;
	while (head < tail) {
		unsigned int node = queue[head++];
		int idx = node ? (int)node - 1 : -1;
		unsigned int d = node ? depth[node] : 0;

		memset(out, GARBAGE, sizeof(out));
		n = cpurun_tree_children(nr, k, idx, out);
		assert_true(n <= CPURUN_FANOUT);
		for (i = 0; i < n; i++) {
			assert_true(out[i] < nr);
			assert_int_not_equal((int)out[i], k);
			woken[out[i]]++;
			assert_int_equal(woken[out[i]], 1);
			depth[out[i] + 1] = d + 1;
			if (d + 1 > max)
				max = d + 1;
			queue[tail++] = out[i] + 1;
		}
	}
	for (i = 0; i < nr; i++)
		assert_int_equal(woken[i], (int)i == k ? 0 : 1);
	/* Least depth: levels of 1, F, F^2... until they hold every position. */
	for (unsigned int held = 1; held < positions; want++) {
		level *= CPURUN_FANOUT;
		held += level;
	}
	assert_int_equal(max, want);
}

static void test_tree(void **state)
{
	unsigned int out[CPURUN_FANOUT], nr;

	for (nr = 1; nr <= 300; nr++) {
		int ks[] = { -1, 0, 1, (int)nr / 2, (int)nr - 1 };

		for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++)
			if (ks[j] < (int)nr)
				check_tree(nr, ks[j]);
	}
	/* The caller and its inline index are one node. */
	assert_int_equal(cpurun_tree_children(10, 3, -1, out), CPURUN_FANOUT);
	memset(out, GARBAGE, sizeof(out));
	assert_int_equal(cpurun_tree_children(10, 3, 3, out), CPURUN_FANOUT);
	assert_int_equal(out[0], 1);
	/* Out of range, or nowhere to write: nothing written. */
	memset(out, GARBAGE, sizeof(out));
	assert_int_equal(cpurun_tree_children(4, 4, -1, out), 0);
	assert_int_equal(cpurun_tree_children(4, -2, -1, out), 0);
	assert_int_equal(cpurun_tree_children(4, -1, 4, out), 0);
	assert_int_equal(cpurun_tree_children(4, -1, -2, out), 0);
	assert_int_equal(out[0], 0x5a5a5a5a);
	assert_int_equal(cpurun_tree_children(4, -1, -1, NULL), 0);
}

static int setup(void **state)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE && ncpus < MAX_CPUS; i++)
		if (CPU_ISSET(i, &set))
			cpus[ncpus++] = i;
	print_message("CPUs in this process's set: %u\n", ncpus);
	return ncpus ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_null_fn),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_no_such_cpu),
		cmocka_unit_test(test_own_cpu),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_first_error),
		cmocka_unit_test(test_repeated),
		cmocka_unit_test(test_stop_joins),
		cmocka_unit_test(test_signals),
		cmocka_unit_test_teardown(test_realtime, back_to_other),
		cmocka_unit_test(test_realtime_refused),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
