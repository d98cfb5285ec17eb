/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run one function on every CPU of a set at once: one thread pinned to each
 * CPU, asleep on its own futex word until a call wakes it.
 *
 * Why: a perf event's ENABLE/DISABLE ioctl issued on the event's own CPU is
 * a direct function call in the kernel (~1.4 us on a quiet run of this
 * VM); from another CPU it is a synchronous cross-CPU call (~29 us). Toggling
 * N cores from one thread costs the sum of N-1 remote calls; toggling each
 * core from a thread on that core costs the slowest core plus the cost of
 * waking the threads.
 *
 * The price: a woken thread runs only when its CPU reaches a preemption
 * point, where a cross-CPU call interrupts whatever runs there. On a
 * PREEMPT_NONE kernel (this VM's) a CPU busy in the kernel delays the
 * worker until it leaves the kernel, so the tail of a call can be worse
 * than the serial ioctls' (tests/bench/toggle.c prints both p99s).
 *
 * The wake-up is a tree: the caller wakes tree positions 1..F (F =
 * CPURUN_FANOUT), each woken worker first wakes its own children
 * (positions F*p+1 .. F*p+F) and only then runs the function, so reaching
 * N workers takes about log_F(N) wake-up latencies, not N futex wakes in a
 * row. The caller is the root of the tree: when it is itself running on
 * one of the CPUs of the set, it runs that CPU's function inline instead
 * of waking the worker pinned there (same CPU: a wake-up would only switch
 * to that worker once the caller blocks, and with both SCHED_FIFO at one
 * priority not even earlier). Completion: an atomic count of the workers
 * still running; the one that brings it to zero stores the call's number
 * in a futex word and wakes it; the caller watches that word for up to
 * CPURUN_SPIN_NS before it sleeps on it.
 *
 * Errors: cpurun_start() returns NULL with errno set and one line in @err;
 * cpurun_call() returns what the functions returned.
 */
#ifndef PTBPF_CPURUN_H
#define PTBPF_CPURUN_H

#include <stddef.h>

/*
 * Children per tree node, the caller included. Each level costs one
 * wake-to-run latency plus a futex send per earlier sibling; for 256 CPUs
 * 4 beats 2 whenever a send costs less than a wake-to-run (always: the
 * latter includes the former), and 8 beats 4 only when a send is under a
 * ninth of it (tests/bench/toggle.c measures both; in this VM a send
 * costs 8-12 us, a wake-to-run 17-45 us, depending on the load).
 */
#define CPURUN_FANOUT 4

/*
 * How long cpurun_call() watches for completion before it sleeps on the
 * futex. Sleeping at once costs a second wake-up latency (the caller's CPU
 * went idle; 17-50 us in this VM, as much as waking a worker); 200 us covers
 * a tree of 256 CPUs projected from this VM's figures, and bounds what a
 * caller that migrated onto a woken worker's CPU can delay it.
 */
#define CPURUN_SPIN_NS 200000ULL

struct cpurun;

/*
 * The function run for index @idx of the set, on the CPU cpus[@idx] of
 * cpurun_start(). Returns 0 or a value cpurun_call() passes on (by
 * convention -errno).
 */
typedef int (*cpurun_fn)(void *ctx, unsigned int idx);

/*
 * Start one thread pinned to each of @cpus[0..@nr-1] (sched_setaffinity
 * from the thread itself, so it runs there before this returns). With
 * @rt_prio > 0 each thread runs SCHED_FIFO at @rt_prio with
 * SCHED_RESET_ON_FORK; where the kernel refuses (no CAP_SYS_NICE, an
 * RLIMIT_RTPRIO too low, RT throttling groups), it silently stays
 * SCHED_OTHER. Threads are always created with an explicit SCHED_OTHER
 * policy, so they never inherit a realtime policy of the caller, and with
 * every signal blocked (the caller's own mask is put back before this
 * returns), so no signal meant for the process is ever handled on them.
 *
 * Returns NULL with errno set and one line in @err (may be NULL): EINVAL
 * for a NULL @cpus, a zero @nr, a negative or repeated CPU, or @rt_prio
 * above the SCHED_FIFO maximum; EINVAL also, naming the CPU, when a CPU
 * does not exist or is offline (sched_setaffinity refused it); ENOMEM; or
 * the errno of pthread_create (EAGAIN: thread limit). Every thread started
 * so far is stopped and joined again.
 */
struct cpurun *cpurun_start(const int *cpus, unsigned int nr, int rt_prio, char *err,
			    size_t errlen);

/*
 * Run @fn(@ctx, i) for every i in [0, cpurun_count()), each on CPU
 * cpus[i], all at once, and return when every one has returned. Index i
 * runs on the worker pinned to cpus[i], or inline on the calling thread
 * when sched_getcpu() says the caller is on cpus[i] at the time of the
 * call (a caller that is not itself pinned can migrate while @fn runs:
 * the function then still runs, from another CPU; so does a worker whose
 * CPU went offline after cpurun_start(): the kernel moves it elsewhere).
 *
 * For the control path: no allocation, no I/O, no lock (futex wake/wait
 * and atomics only), so a writer thread holding a lock never delays it.
 * One call at a time per @r: it is not safe to call from two threads at
 * once, nor from @fn.
 *
 * Returns -EINVAL for a NULL @r or @fn, else the first non-zero result in
 * index order, or 0.
 */
int cpurun_call(struct cpurun *r, cpurun_fn fn, void *ctx);

/*
 * The wake-up tree, as cpurun_call() walks it, for tests and models: the
 * indices (into cpus[] of a set of @nr) that the runner of index @idx wakes
 * when the caller runs index @inline_idx itself (-1: the caller is on no
 * CPU of the set), in the order it wakes them, into @out. @idx -1 is the
 * caller (the same node as @inline_idx when that is not -1). Returns how
 * many were stored; 0 for a leaf, a NULL @out or arguments out of range.
 */
unsigned int cpurun_tree_children(unsigned int nr, int inline_idx, int idx,
				  unsigned int out[CPURUN_FANOUT]);

/* Number of CPUs in the set (0 for NULL). */
unsigned int cpurun_count(const struct cpurun *r);

/* Wake, stop and join every thread, and free @r; NULL is fine. */
void cpurun_stop(struct cpurun *r);

#endif /* PTBPF_CPURUN_H */
