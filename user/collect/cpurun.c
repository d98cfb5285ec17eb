// SPDX-License-Identifier: GPL-2.0
/*
 * One pinned thread per CPU, woken as a tree. See cpurun.h.
 *
 * Tree positions: 0 is the caller. When the caller runs index k inline,
 * positions are 0..nr-1 with k and 0 swapped (position p holds index p,
 * except position 0 holds k and position k holds 0); otherwise position p
 * holds index p - 1 and there are nr + 1 positions. Position p wakes
 * positions F*p+1 .. F*p+F.
 *
 * Memory order: the caller writes fn, ctx, inline_idx and pending, then
 * publishes them with a release store to each child's futex word; each
 * worker reads its word with acquire before it reads them or stores its
 * children's words, so the chain carries them to every level. A worker
 * writes its result before its acq_rel decrement of pending; the last
 * decrement release-stores the call's generation into done, which the
 * caller reads with acquire before it reads the results.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "cpurun.h"
#include "base/errbuf.h"
#include "base/clock.h"

/* CPU numbers above this are refused before anything is sized by them. */
#define CPURUN_MAX_CPU 65535
/* fn runs toggles and formats an error line at most. */
#define CPURUN_STACK (128UL << 10)
#define CACHELINE 64

struct worker {
	unsigned int go; /* futex word: generation of the call to run */
	int result;
	int cpu;
	unsigned int idx;
	int start_err; /* errno of the thread's own set-up, 0 when running */
	bool created;
	pthread_t thread;
	struct cpurun *r;
	int rt_prio;
} __attribute__((aligned(CACHELINE)));

struct cpurun {
	/* Written by the caller before each call's wake-ups. */
	cpurun_fn fn;
	void *ctx;
	int inline_idx; /* index the caller runs itself, or -1 */
	bool stop;
	unsigned int nr;
	unsigned int gen; /* caller only: generation of the last call */
	int max_cpu;
	int *idx_of; /* CPU number -> index, -1 when not in the set */
	struct worker *w;
	/* Workers write these: a line of their own, away from the above. */
	unsigned int pending __attribute__((aligned(CACHELINE)));
	unsigned int done; /* futex word: generation of the last finished call */
	unsigned int ready; /* futex word: threads through their set-up */
};

static void futex_wait(unsigned int *word, unsigned int val)
{
	/* EAGAIN (word changed), EINTR: the callers loop on the word. */
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(unsigned int *word, int nr)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, nr, NULL, NULL, 0);
}

/* Watch *@word for @val for up to CPURUN_SPIN_NS (why: cpurun.h). */
static bool spin_for(const unsigned int *word, unsigned int val)
{
	uint64_t end = 0;
	unsigned int n = 0;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != val) {
		/* The clock every 64 rounds: it costs more than a load. */
		if (!(n++ & 63)) {
			uint64_t t = clock_now_ns();

			if (!end)
				end = t + CPURUN_SPIN_NS;
			else if (t > end)
				return false;
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	return true;
}

/* The index at tree position @p (@p > 0), and the position of index @i. */
static unsigned int idx_at(int k, unsigned int p)
{
	if (k < 0)
		return p - 1;
	return p == (unsigned int)k ? 0 : p;
}

static unsigned int pos_of(int k, unsigned int i)
{
	if (k < 0)
		return i + 1;
	if (i == (unsigned int)k)
		return 0;
	return i == 0 ? (unsigned int)k : i;
}

/* The indices tree position @p wakes, in the order it wakes them. */
static unsigned int children(unsigned int nr, int k, unsigned int p,
			     unsigned int out[CPURUN_FANOUT])
{
	unsigned int n = nr + (k < 0), c, end, i = 0;

	/* The first child has the biggest subtree: woken first. */
	c = CPURUN_FANOUT * p + 1;
	end = c + CPURUN_FANOUT;
	for (; c < end && c < n; c++)
		out[i++] = idx_at(k, c);
	return i;
}

unsigned int cpurun_tree_children(unsigned int nr, int inline_idx, int idx,
				  unsigned int out[CPURUN_FANOUT])
{
	if (!out || inline_idx < -1 || inline_idx >= (int)nr || idx < -1 || idx >= (int)nr)
		return 0;
	/* The caller is position 0, and so is the index it runs inline. */
	return children(nr, inline_idx, idx < 0 ? 0 : pos_of(inline_idx, idx), out);
}

static void wake_children(struct cpurun *r, unsigned int p, unsigned int gen)
{
	unsigned int kids[CPURUN_FANOUT], n, i;

	n = children(r->nr, r->inline_idx, p, kids);
	for (i = 0; i < n; i++) {
		struct worker *w = &r->w[kids[i]];

		__atomic_store_n(&w->go, gen, __ATOMIC_RELEASE);
		futex_wake(&w->go, 1);
	}
}

/* Pin, name and (maybe) make realtime the calling worker thread. */
static int worker_setup(struct worker *w)
{
	struct sched_param sp = { .sched_priority = w->rt_prio };
	size_t size = CPU_ALLOC_SIZE(w->cpu + 1);
	cpu_set_t *set = CPU_ALLOC(w->cpu + 1);
	char name[16];
	int rc = 0;

	if (!set)
		return ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S(w->cpu, size, set);
	/* Moves this thread there before it returns. */
	if (sched_setaffinity(0, size, set))
		rc = errno;
	CPU_FREE(set);
	if (!rc && sched_getcpu() != w->cpu)
		rc = EINVAL;
	if (rc)
		return rc;
	snprintf(name, sizeof(name), "ptbpf-cpu%d", w->cpu);
	prctl(PR_SET_NAME, name);
	/* Refused without CAP_SYS_NICE: stay SCHED_OTHER, as documented. */
	if (w->rt_prio > 0)
		sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	return 0;
}

static void worker_run(struct worker *w)
{
	struct cpurun *r = w->r;
	unsigned int seen = 0, gen;

	for (;;) {
		gen = __atomic_load_n(&w->go, __ATOMIC_ACQUIRE);
		if (gen == seen) {
			futex_wait(&w->go, seen);
			continue;
		}
		seen = gen;
		if (__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
			return;
		/* Children first: their wake-up latency overlaps our fn. */
		wake_children(r, pos_of(r->inline_idx, w->idx), gen);
		w->result = r->fn(r->ctx, w->idx);
		if (__atomic_sub_fetch(&r->pending, 1, __ATOMIC_ACQ_REL) == 0) {
			__atomic_store_n(&r->done, gen, __ATOMIC_RELEASE);
			futex_wake(&r->done, 1);
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cpurun *r = w->r;

	w->start_err = worker_setup(w);
	__atomic_add_fetch(&r->ready, 1, __ATOMIC_RELEASE);
	futex_wake(&r->ready, INT_MAX);
	if (!w->start_err)
		worker_run(w);
	return NULL;
}

static int check_cpus(struct cpurun *r, const int *cpus, unsigned int nr, char *err, size_t errlen)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (cpus[i] < 0 || cpus[i] > CPURUN_MAX_CPU)
			return errbuf_set(err, errlen, -EINVAL, "cpu %d does not exist", cpus[i]);
		if (cpus[i] > r->max_cpu)
			r->max_cpu = cpus[i];
	}
	r->idx_of = malloc((r->max_cpu + 1) * sizeof(*r->idx_of));
	if (!r->idx_of)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i <= (unsigned int)r->max_cpu; i++)
		r->idx_of[i] = -1;
	for (i = 0; i < nr; i++) {
		if (r->idx_of[cpus[i]] >= 0)
			return errbuf_set(err, errlen, -EINVAL, "cpu %d is listed twice", cpus[i]);
		r->idx_of[cpus[i]] = i;
	}
	return 0;
}

/*
 * Create the threads with every signal blocked (they inherit the mask) and
 * an explicit SCHED_OTHER policy (never the caller's realtime one).
 */
static int create_all(struct cpurun *r, int rt_prio, char *err, size_t errlen)
{
	struct sched_param sp = { .sched_priority = 0 };
	sigset_t all, old;
	pthread_attr_t a;
	unsigned int i;
	int rc;

	rc = pthread_attr_init(&a);
	if (rc)
		return errbuf_set(err, errlen, -rc, "can't create threads: %s", strerror(rc));
	pthread_attr_setstacksize(&a, CPURUN_STACK);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_OTHER);
	pthread_attr_setschedparam(&a, &sp);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < r->nr && !rc; i++) {
		struct worker *w = &r->w[i];

		w->rt_prio = rt_prio;
		rc = pthread_create(&w->thread, &a, worker_main, w);
		if (rc)
			errbuf_set(err, errlen, 0, "can't create the thread for cpu %d: %s", w->cpu,
				   strerror(rc));
		else
			w->created = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	return -rc;
}

/*
 * Wait until every created thread is through worker_setup(); -errno of the
 * first that failed it.
 */
static int wait_ready(struct cpurun *r, char *err, size_t errlen)
{
	unsigned int i, n = 0, v;

	for (i = 0; i < r->nr; i++)
		n += r->w[i].created;
	while ((v = __atomic_load_n(&r->ready, __ATOMIC_ACQUIRE)) != n)
		futex_wait(&r->ready, v);
	for (i = 0; i < r->nr; i++) {
		struct worker *w = &r->w[i];

		if (!w->created || !w->start_err)
			continue;
		return errbuf_set(err, errlen, -w->start_err,
				  "can't pin a thread to cpu %d (not present, "
				  "offline, or outside this process's CPU set): %s",
				  w->cpu, strerror(w->start_err));
	}
	return 0;
}

struct cpurun *cpurun_start(const int *cpus, unsigned int nr, int rt_prio, char *err, size_t errlen)
{
	struct cpurun *r;
	unsigned int i;
	int rc;

	if (!cpus || !nr) {
		errbuf_set(err, errlen, 0, "no CPU to run on");
		errno = EINVAL;
		return NULL;
	}
	if (rt_prio > sched_get_priority_max(SCHED_FIFO)) {
		errbuf_set(err, errlen, 0, "realtime priority %d is above the maximum of %d",
			   rt_prio, sched_get_priority_max(SCHED_FIFO));
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->w = aligned_alloc(CACHELINE, nr * sizeof(*r->w));
	if (!r || !r->w) {
		free(r);
		errbuf_set(err, errlen, 0, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	memset(r->w, 0, nr * sizeof(*r->w));
	r->nr = nr;
	r->max_cpu = -1;
	r->inline_idx = -1;
	for (i = 0; i < nr; i++) {
		r->w[i].cpu = cpus[i];
		r->w[i].idx = i;
		r->w[i].r = r;
	}
	rc = check_cpus(r, cpus, nr, err, errlen);
	if (!rc)
		rc = create_all(r, rt_prio, err, errlen);
	/* Even after a failed create: the threads made so far must be set up
	 * before they can be stopped, and their own errors come second. */
	if (!rc)
		rc = wait_ready(r, err, errlen);
	else
		wait_ready(r, NULL, 0);
	if (rc) {
		cpurun_stop(r);
		errno = -rc;
		return NULL;
	}
	return r;
}

int cpurun_call(struct cpurun *r, cpurun_fn fn, void *ctx)
{
	unsigned int i, gen, workers, v;
	int cpu, k = -1;

	if (!r || !fn)
		return -EINVAL;
	cpu = sched_getcpu();
	if (cpu >= 0 && cpu <= r->max_cpu)
		k = r->idx_of[cpu];
	gen = ++r->gen;
	r->fn = fn;
	r->ctx = ctx;
	r->inline_idx = k;
	workers = r->nr - (k >= 0);
	__atomic_store_n(&r->pending, workers, __ATOMIC_RELAXED);
	/* Published to the workers by the release stores of their words. */
	wake_children(r, 0, gen);
	if (k >= 0)
		r->w[k].result = fn(ctx, k);
	if (workers && !spin_for(&r->done, gen))
		while ((v = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) != gen)
			futex_wait(&r->done, v);
	for (i = 0; i < r->nr; i++)
		if (r->w[i].result)
			return r->w[i].result;
	return 0;
}

unsigned int cpurun_count(const struct cpurun *r)
{
	return r ? r->nr : 0;
}

void cpurun_stop(struct cpurun *r)
{
	unsigned int i;

	if (!r)
		return;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	for (i = 0; i < r->nr; i++) {
		struct worker *w = &r->w[i];

		if (!w->created)
			continue;
		/* Not through the tree: a worker that failed its set-up is
		 * gone already and would wake no children. */
		__atomic_add_fetch(&w->go, 1, __ATOMIC_RELEASE);
		futex_wake(&w->go, 1);
		pthread_join(w->thread, NULL);
	}
	free(r->idx_of);
	free(r->w);
	free(r);
}
