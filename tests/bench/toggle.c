// SPDX-License-Identifier: GPL-2.0
/*
 * toggle [ROUNDS [GAP_US]]: the cost of pausing and resuming per-core
 * collection, on the sample backend's real events (libptbpf's cores_*).
 * Pinned to CPU 0 and, where allowed, SCHED_FIFO at the lowest priority
 * with SCHED_RESET_ON_FORK (as ptbpf's control thread), it times:
 *
 * - serial: one cores_set_state() per core from this thread, today's
 *   cores_pause_all / cores_resume_all (every core but CPU 0's is a remote
 *   cross-call); and "all": cores_pause_all / cores_resume_all themselves,
 *   whatever they do now;
 * - parallel: each core's cores_set_state() run by cpurun_call() on the
 *   thread pinned to its own CPU (CPU 0's inline), so every ioctl is local;
 * - the per-core parts of both: one core's ioctl from its own CPU (local)
 *   and from CPU 0 (remote); the wake-to-run latency of one pinned worker
 *   (before cpurun_call() -> the worker in fn); the completion wake (the
 *   worker leaves fn -> cpurun_call() returns); the send cost of one
 *   FUTEX_WAKE that finds a sleeper on another CPU;
 *
 * each with the other CPUs idle and with a SCHED_OTHER spinner on every
 * CPU (a busy machine: the stopped target's cores run other work). Rounds
 * are GAP_US apart (default 200 us) so idle CPUs get to sleep, as between
 * real stops; serial and parallel rounds alternate, so both see the same
 * noise.
 *
 * From the per-core figures, projections to 16/64/256 cores: serial =
 * local + (N - 1) * remote; tree = the critical path of cpurun's wake tree
 * (a node wakes its children one futex send apart, each starts a
 * wake-to-run later, then runs a local ioctl; the last one out pays the
 * completion wake), walked with cpurun_tree_children(). The same model at
 * the measured core count is printed next to the measured figure, as its
 * check.
 *
 * Prints "name value" lines, ns unless named otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "collect/cores.h"
#include "collect/cpurun.h"

static int rounds = 2000;
static long gap_ns = 200000;
static int rt_prio; /* workers' and helpers' priority: the caller's */

struct pct {
	__u64 p50, p99;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void gap(void)
{
	struct timespec ts = { 0, gap_ns };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static int cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static struct pct pct(__u64 *v, int n)
{
	struct pct p = { 0, 0 };

	if (n <= 0)
		return p;
	qsort(v, n, sizeof(*v), cmp);
	p.p50 = v[n / 2];
	p.p99 = v[(long)n * 99 / 100];
	return p;
}

static void put(const char *name, const char *mode, struct pct p)
{
	printf("%s_%s_p50 %llu\n", name, mode, (unsigned long long)p.p50);
	printf("%s_%s_p99 %llu\n", name, mode, (unsigned long long)p.p99);
}

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* --- a spinner on every CPU: the busy machine --- */

struct spinners {
	pthread_t t[CPU_SETSIZE];
	unsigned int n;
	volatile int stop;
};

static void *spin_main(void *arg)
{
	struct spinners *s = arg;

	while (!s->stop)
		;
	return NULL;
}

static void spinners_start(struct spinners *s, const int *cpus, unsigned int n)
{
	struct sched_param sp = { 0 };
	pthread_attr_t a;
	cpu_set_t set;

	s->stop = 0;
	s->n = 0;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	for (unsigned int i = 0; i < n; i++) {
		CPU_ZERO(&set);
		CPU_SET(cpus[i], &set);
		pthread_attr_setaffinity_np(&a, sizeof(set), &set);
		if (!pthread_create(&s->t[s->n], &a, spin_main, s))
			s->n++;
	}
	pthread_attr_destroy(&a);
	usleep(20000);
}

static void spinners_stop(struct spinners *s)
{
	s->stop = 1;
	for (unsigned int i = 0; i < s->n; i++)
		pthread_join(s->t[i], NULL);
	s->n = 0;
}

/* --- cores through cpurun --- */

static const char *const dir_name[2] = { "resume", "pause" };

/* One parallel toggle, and when each core's ioctl ran within it. */
struct toggle {
	struct cores *c;
	enum core_state st;
	__u64 start[CPU_SETSIZE], end[CPU_SETSIZE];
};

static int set_one(void *ctx, unsigned int idx)
{
	struct toggle *t = ctx;
	int rc;

	t->start[idx] = now_ns();
	rc = cores_set_state(t->c, idx, t->st);
	t->end[idx] = now_ns();
	return rc;
}

/*
 * Today's serial path, spelt out: one cores_set_state() per core from
 * this thread, so the baseline stays serial whatever cores_pause_all()
 * becomes.
 */
static __u64 timed_serial(struct cores *c, int pause, unsigned int n)
{
	enum core_state st = pause ? CORE_PAUSED : CORE_RUNNING;
	__u64 t0 = now_ns();

	for (unsigned int i = 0; i < n; i++)
		cores_set_state(c, i, st);
	return now_ns() - t0;
}

/* What ptbpf itself calls. */
static __u64 timed_all(struct cores *c, int pause)
{
	__u64 t0 = now_ns();

	if (pause)
		cores_pause_all(c, NULL);
	else
		cores_resume_all(c, NULL);
	return now_ns() - t0;
}

/* The series of one direction: totals, and the last core's parts. */
enum { SER, ALL, PAR, PWAKE, PFN, PDONE, NSERIES };

static void timed_parallel(struct cpurun *r, struct cores *c, int pause, unsigned int n, __u64 **v,
			   int i)
{
	static struct toggle t;
	__u64 t0, t1, last = 0;

	t.c = c;
	t.st = pause ? CORE_PAUSED : CORE_RUNNING;
	t0 = now_ns();
	cpurun_call(r, set_one, &t);
	t1 = now_ns();
	for (unsigned int k = 1; k < n; k++)
		if (t.end[k] > last)
			last = t.end[k];
	v[PAR][i] = t1 - t0;
	/* Core n-1 is a worker's (the caller runs core 0 on CPU 0). */
	v[PWAKE][i] = t.start[n - 1] - t0;
	v[PFN][i] = t.end[n - 1] - t.start[n - 1];
	v[PDONE][i] = n > 1 && t1 > last ? t1 - last : 0;
}

/* Serial and parallel, both directions, alternating; ends paused. */
static void all_cores(struct cores *c, struct cpurun *r, unsigned int n, const char *mode,
		      __u64 **v[2], struct pct out[2][NSERIES])
{
	static const char *const name[NSERIES] = { "serial",   "all",	 "par",
						   "par_wake", "par_fn", "par_done" };
	char buf[64];

	for (int i = 0; i < rounds; i++) {
		for (int d = 0; d < 2; d++) {
			v[d][SER][i] = timed_serial(c, d, n);
			gap();
		}
		for (int d = 0; d < 2; d++) {
			v[d][ALL][i] = timed_all(c, d);
			gap();
		}
		for (int d = 0; d < 2; d++) {
			timed_parallel(r, c, d, n, v[d], i);
			gap();
		}
	}
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < NSERIES; k++) {
			if (k > PAR && n < 2)
				continue;
			out[d][k] = pct(v[d][k], rounds);
			snprintf(buf, sizeof(buf), "%s_%s", name[k], dir_name[d]);
			put(buf, mode, out[d][k]);
		}
}

/* One core's ioctl alone, in direction @pause, from wherever we are. */
static struct pct one_core(struct cores *c, unsigned int idx, int pause, __u64 *v)
{
	enum core_state from = pause ? CORE_RUNNING : CORE_PAUSED;
	enum core_state to = pause ? CORE_PAUSED : CORE_RUNNING;

	for (int i = 0; i < rounds; i++) {
		__u64 t0;

		cores_set_state(c, idx, from);
		gap();
		t0 = now_ns();
		cores_set_state(c, idx, to);
		v[i] = now_ns() - t0;
	}
	cores_set_state(c, idx, CORE_PAUSED);
	return pct(v, rounds);
}

/* --- one pinned worker: wake-to-run and completion --- */

/*
 * Per-core figures, medians, for the models: the caller's ioctl on its own
 * CPU (local) and on another (remote); one futex send; in a parallel
 * toggle, a worker's wake-to-run, its ioctl (fnl) and the completion wake
 * while the caller spins; the completion wake of a caller asleep.
 */
struct fig {
	__u64 local, remote, send, wake, fnl, done_spin, done_sleep;
};

struct stamp {
	__u64 run, end, hold_ns;
};

/* Stamps when it ran; holds the CPU for hold_ns first (done_sleep). */
static int stamp_fn(void *ctx, unsigned int idx __attribute__((unused)))
{
	struct stamp *s = ctx;
	__u64 until;

	s->run = now_ns();
	until = s->run + s->hold_ns;
	while (s->hold_ns && now_ns() < until)
		;
	s->end = now_ns();
	return 0;
}

/*
 * Caller on CPU 0, one worker on @remote: wake-to-run (before the call ->
 * in fn) and the completion wake (fn returns -> the call returns), once
 * with fn returning at once (the caller still spinning) and once with fn
 * holding its CPU past CPURUN_SPIN_NS (the caller asleep on the futex).
 */
static void wake_latency(int remote, const char *mode, struct fig *f, __u64 *v, __u64 *w)
{
	char err[256];
	struct cpurun *r = cpurun_start(&remote, 1, rt_prio, err, sizeof(err));
	struct stamp s = { 0 };

	if (!r) {
		fprintf(stderr, "toggle: %s\n", err);
		exit(1);
	}
	for (int pass = 0; pass < 2; pass++) {
		s.hold_ns = pass ? CPURUN_SPIN_NS * 3 / 2 : 0;
		for (int i = 0; i < rounds; i++) {
			__u64 t0, t1;

			gap();
			t0 = now_ns();
			cpurun_call(r, stamp_fn, &s);
			t1 = now_ns();
			v[i] = s.run - t0;
			w[i] = t1 - s.end;
		}
		if (!pass) {
			put("wake_run", mode, pct(v, rounds));
		}
		put(pass ? "done_sleep" : "done_spin", mode, pct(w, rounds));
		if (pass)
			f->done_sleep = pct(w, rounds).p50;
	}
	cpurun_stop(r);
}

/* --- the send cost of one FUTEX_WAKE to a sleeper on another CPU --- */

struct sleeper {
	int cpu;
	unsigned int word, ack;
	volatile int stop;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct sched_param sp = { .sched_priority = rt_prio };
	unsigned int seen = 0;

	pin_self(s->cpu);
	if (rt_prio)
		sched_setscheduler(0, SCHED_FIFO, &sp);
	while (!s->stop) {
		unsigned int v = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);

		if (v == seen) {
			syscall(SYS_futex, &s->word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
			continue;
		}
		seen = v;
		__atomic_store_n(&s->ack, v, __ATOMIC_RELEASE);
	}
	return NULL;
}

static struct pct futex_send(int remote, const char *mode, __u64 *v)
{
	struct sleeper s = { .cpu = remote };
	pthread_t t;
	int n = 0, tries = 0;

	if (pthread_create(&t, NULL, sleeper_main, &s))
		return (struct pct){ 0, 0 };
	while (n < rounds && tries++ < 4 * rounds) {
		unsigned int g = s.word + 1;
		__u64 t0, t1;
		long woken;

		gap();
		__atomic_store_n(&s.word, g, __ATOMIC_RELEASE);
		t0 = now_ns();
		woken = syscall(SYS_futex, &s.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		t1 = now_ns();
		/* Only a wake that found the sleeper asleep counts. */
		if (woken == 1)
			v[n++] = t1 - t0;
		while (__atomic_load_n(&s.ack, __ATOMIC_ACQUIRE) != g)
			;
	}
	s.stop = 1;
	__atomic_store_n(&s.word, s.word + 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &s.word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	put("futex_send", mode, pct(v, n));
	return pct(v, n);
}

/* --- the model --- */

/* The children of @node in a tree over @n CPUs; @fan for the heap only. */
typedef unsigned int (*kids_fn)(unsigned int n, unsigned int fan, unsigned int node,
				unsigned int *out);

/* cpurun's own tree, the caller on index 0 and running it inline. */
static unsigned int cpurun_kids(unsigned int n, unsigned int fan __attribute__((unused)),
				unsigned int node, unsigned int *out)
{
	return cpurun_tree_children(n, 0, (int)node, out);
}

/* The same heap shape with another fan-out, to compare fan-outs. */
static unsigned int heap_kids(unsigned int n, unsigned int fan, unsigned int node,
			      unsigned int *out)
{
	unsigned int k = 0;

	for (unsigned int c = fan * node + 1; c <= fan * node + fan && c < n; c++)
		out[k++] = c;
	return k;
}

/*
 * Critical path of a wake tree over @n CPUs, node 0 the caller: each node
 * starts at start[], wakes its children one send apart (each starting a
 * wake-to-run after its own send began), then runs a local ioctl. The
 * last worker to finish wakes the caller: done_spin while the caller is
 * still spinning (within CPURUN_SPIN_NS), done_sleep after.
 */
static __u64 tree_ns(unsigned int n, unsigned int fan, kids_fn kids, const struct fig *f)
{
	static __u64 start[CPU_SETSIZE];
	static unsigned int queue[CPU_SETSIZE];
	unsigned int head = 0, tail = 0, out[16];
	__u64 end_root = 0, last = 0;

	if (!n || n > CPU_SETSIZE || fan > 16)
		return 0;
	start[0] = 0;
	queue[tail++] = 0;
	while (head < tail) {
		unsigned int node = queue[head++];
		unsigned int k = kids(n, fan, node, out);
		__u64 end = start[node] + k * f->send + (node ? f->fnl : f->local);

		for (unsigned int j = 0; j < k; j++) {
			start[out[j]] = start[node] + j * f->send + f->wake;
			queue[tail++] = out[j];
		}
		if (node == 0)
			end_root = end;
		else if (end > last)
			last = end;
	}
	if (n > 1)
		last += last > CPURUN_SPIN_NS ? f->done_sleep : f->done_spin;
	return last > end_root ? last : end_root;
}

static void project(const char *mode, const char *dir, unsigned int ncores, const struct fig *f)
{
	static const unsigned int at[] = { 16, 64, 256 };

	/* The models at the measured size: their check. */
	printf("model%u_tree_%s_%s %llu\n", ncores, dir, mode,
	       (unsigned long long)tree_ns(ncores, 0, cpurun_kids, f));
	printf("model%u_serial_%s_%s %llu\n", ncores, dir, mode,
	       (unsigned long long)(f->local + (ncores - 1) * f->remote));
	for (unsigned int i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		printf("proj%u_serial_%s_%s %llu\n", at[i], dir, mode,
		       (unsigned long long)(f->local + (at[i] - 1) * f->remote));
		printf("proj%u_tree_%s_%s %llu\n", at[i], dir, mode,
		       (unsigned long long)tree_ns(at[i], 0, cpurun_kids, f));
	}
	for (unsigned int fan = 2; fan <= 16; fan *= 2)
		printf("proj256_tree_f%u_%s_%s %llu\n", fan, dir, mode,
		       (unsigned long long)tree_ns(256, fan, heap_kids, f));
}

static void measure(struct cores *c, struct cpurun *r, const int *cpus, unsigned int n,
		    const char *mode, __u64 **v[2])
{
	struct pct tot[2][NSERIES] = { 0 }, p;
	struct fig w = { 0 }, f;
	char buf[64];

	all_cores(c, r, n, mode, v, tot);
	if (n > 1) {
		wake_latency(cpus[n - 1], mode, &w, v[0][0], v[0][1]);
		w.send = futex_send(cpus[n - 1], mode, v[0][0]).p50;
	}
	for (int d = 0; d < 2; d++) {
		f = w;
		p = one_core(c, 0, d, v[0][0]);
		snprintf(buf, sizeof(buf), "ioctl_local_%s", dir_name[d]);
		put(buf, mode, p);
		f.local = p.p50;
		if (n > 1) {
			p = one_core(c, n - 1, d, v[0][0]);
			snprintf(buf, sizeof(buf), "ioctl_remote_%s", dir_name[d]);
			put(buf, mode, p);
			f.remote = p.p50;
		}
		f.wake = tot[d][PWAKE].p50;
		f.fnl = tot[d][PFN].p50;
		f.done_spin = tot[d][PDONE].p50;
		project(mode, dir_name[d], n, &f);
	}
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };
	struct spinners *spin = calloc(1, sizeof(*spin));
	int cpus[CPU_SETSIZE];
	struct cores_config cfg;
	struct cpurun *r;
	struct cores *c;
	unsigned int n;
	char err[256];
	__u64 *series[2][NSERIES], **v[2] = { series[0], series[1] };
	int bad = !spin;

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (argc > 2)
		gap_ns = atol(argv[2]) * 1000;
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < NSERIES; k++) {
			series[d][k] = calloc(rounds > 0 ? rounds : 1, sizeof(__u64));
			bad |= !series[d][k];
		}
	if (rounds <= 0 || gap_ns < 0 || bad)
		return 2;
	if (pin_self(0))
		return 2;
	/* ptbpf's control thread: lowest SCHED_FIFO priority, reset on fork. */
	if (!sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		rt_prio = sp.sched_priority;
	cores_config_init(&cfg);
	cfg.backend = BACKEND_SAMPLE;
	cfg.buffer_size = 64 << 10;
	c = cores_open(&cfg, NULL, err, sizeof(err));
	if (!c) {
		fprintf(stderr, "toggle: %s\n", err);
		return 1;
	}
	n = cores_count(c);
	for (unsigned int i = 0; i < n; i++)
		cores_info(c, i, &cpus[i], NULL, NULL);
	if (cpus[0] != 0) {
		fprintf(stderr, "toggle: the first core is cpu %d, not 0\n", cpus[0]);
		return 1;
	}
	r = cpurun_start(cpus, n, rt_prio, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "toggle: %s\n", err);
		return 1;
	}
	printf("cores %u\n", n);
	printf("rounds %d\n", rounds);
	printf("gap_us %ld\n", gap_ns / 1000);
	printf("caller_fifo %d\n", rt_prio);
	printf("fanout %d\n", CPURUN_FANOUT);
	printf("spin_ns %llu\n", (unsigned long long)CPURUN_SPIN_NS);
	measure(c, r, cpus, n, "idle", v);
	spinners_start(spin, cpus, n);
	measure(c, r, cpus, n, "busy", v);
	spinners_stop(spin);
	cpurun_stop(r);
	cores_close(c);
	for (int d = 0; d < 2; d++)
		for (int k = 0; k < NSERIES; k++)
			free(series[d][k]);
	free(spin);
	return 0;
}
