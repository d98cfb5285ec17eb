// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf: follow one thread group's run/stop transitions from the scheduler
 * and signal tracepoints, and tell user space about process-level changes.
 *
 * Per-thread state lives in the threads map; two counters (live threads,
 * stopped threads) aggregate it so a transition costs O(1). The process
 * state flips with compare-and-swap on a word that also counts the
 * transitions (PTBPF_WORD), so when two threads stop at once on two CPUs
 * exactly one of them reports the process stop, and every report carries
 * its place in the order the flips happened.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ptbpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Task state bits: macros in include/linux/sched.h, not in BTF. They have
 * kept these values since 2.6.
 */
#define TASK_STOPPED_BIT 0x0004 /* __TASK_STOPPED */
#define TASK_TRACED_BIT 0x0008 /* __TASK_TRACED */

#define SIGKILL 9
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGSEGV 11
#define SIGILL 4
#define SIGSYS 31
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22

/* include/trace/events/signal.h: the signal was queued for delivery */
#define TRACE_SIGNAL_DELIVERED 0

/* include/linux/sched/jobctl.h: the stop signal, kept after the stop */
#define JOBCTL_STOP_SIGMASK 0xffff
/* include/uapi/linux/ptrace.h: exit_code >> 8 of a PTRACE_LISTEN-able stop */
#define PTRACE_EVENT_STOP 128
/* include/uapi/asm-generic/siginfo.h */
#define SI_KERNEL 0x80
#define TRAP_BRKPT 1
#define TRAP_TRACE 2
#define TRAP_HWBKPT 4
/* kernel/signal.c: SEND_SIG_NOINFO and SEND_SIG_PRIV are not pointers */
#define SEND_SIG_PRIV_VAL 1

const volatile __u32 targ_tgid = 0;
/*
 * --follow: the processes a followed one creates (fork, vfork, clone
 * without CLONE_THREAD) are followed too. Off, the verifier drops every
 * look-up in the children map: the filter stays one compare.
 */
const volatile bool follow = false;

/*
 * The target's state (struct ptbpf_proc). Written by user space through
 * the mmap'd .bss as well as here: its scan counts the threads that
 * existed before the attach, then arms process-level reporting.
 */
struct ptbpf_proc root = {};
/*
 * Set by user space once every program is attached. The skeleton attaches
 * them one by one: a thread created after handle_fork's attach but gone
 * before handle_exit's would keep a live slot for good, and its process
 * would never be seen stopped again. Until then none of them acts.
 */
bool armed = false;
__u64 lost_events = 0;
/* --follow: processes in the children map, and forks it had no room for */
__s32 nr_children = 0;
__u64 follow_full = 0;

/*
 * Process scope: the CPUs a target thread ran on since user space last
 * looked (set here, cleared by user space when it takes a snapshot), and
 * whether one is on that CPU now. A snapshot copies only those cores: no
 * other task writes into a process-scope buffer.
 */
__u8 cpu_ran[PTBPF_MAX_CPUS] = {};
__u8 cpu_on[PTBPF_MAX_CPUS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} threads SEC(".maps");

/* --follow: tgid -> its state, from its fork (or user space's scan) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTBPF_MAX_FOLLOW);
	__type(key, __u32);
	__type(value, struct ptbpf_proc);
} children SEC(".maps");

/*
 * Cgroup scope: the cgroup whose perf events count the target (slot 0,
 * set by user space with watch_cgroup). A target thread seen running
 * outside it (a write to another cgroup.procs) is reported once: its
 * execution is no longer recorded, and the user must hear of it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} targ_cgroup SEC(".maps");

__u32 watch_cgroup = 0;
__u32 cgroup_left = 0;

/*
 * About 4,400 events: a target that starts and ends a thread every
 * millisecond (two events each) fills it in two seconds in which the
 * control path does not run, as on a host loaded far beyond its CPUs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);
} events SEC(".maps");

/*
 * Crash records (struct ptbpf_crash), each submitted just before its fatal
 * event: room for three of the largest.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} crashes SEC(".maps");

/*
 * How much of the user stack a crash record copies (--crash-stack; 0: no
 * record), set by user space before the target runs; bounded here.
 */
__u32 crash_stack = PTBPF_CRASH_STACK_DEFAULT;
/* crash records the ring had no room for, or whose stack could not be read */
__u64 crash_lost = 0;

/* Before 5.14 the field was called state (and was a long). */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/*
 * tp_btf arguments are BTF pointers: plain loads (still CO-RE relocated)
 * instead of bpf_probe_read_kernel() calls, on the path every context
 * switch of the machine takes.
 */
static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___pre514 *)t)->state;
}

/* The state of the traced process @tgid, or NULL when it is not traced. */
static __always_inline struct ptbpf_proc *proc_by_tgid(__u32 tgid)
{
	if (tgid == targ_tgid)
		return armed ? &root : NULL;
	/* the common case of a follow run with no child yet: no look-up */
	if (!follow || !nr_children)
		return NULL;
	return bpf_map_lookup_elem(&children, &tgid);
}

static __always_inline struct ptbpf_proc *proc_of(struct task_struct *t)
{
	return proc_by_tgid(t->tgid);
}

/* @t belongs to a traced process: the target, or one it is following. */
static __always_inline bool is_target(struct task_struct *t)
{
	return proc_of(t) != NULL;
}

/*
 * A zeroed event with the common fields filled, or NULL when the ring is
 * full (counted: user space reports it as lost_events).
 */
static __always_inline struct ptbpf_event *reserve(__u32 kind, struct task_struct *t,
						   struct ptbpf_proc *p)
{
	struct ptbpf_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return NULL;
	}
	/* every byte, padding included, is written before it leaves */
	__builtin_memset(e, 0, sizeof(*e));
	e->ts = bpf_ktime_get_ns();
	e->kind = kind;
	e->tgid = BPF_CORE_READ(t, tgid);
	e->tid = BPF_CORE_READ(t, pid);
	e->cpu = bpf_get_smp_processor_id();
	e->nr_threads = p->nr_live;
	BPF_CORE_READ_STR_INTO(&e->comm, t, comm);
	return e;
}

/*
 * The user-space IP of @t from the registers saved on entry to the kernel
 * (task_pt_regs). bpf_task_pt_regs() came in 5.15; without it: 0.
 */
static __always_inline __u64 user_ip(struct task_struct *t)
{
	struct pt_regs *regs;

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return 0;
	return PT_REGS_IP_CORE(regs);
}

/*
 * What stop @t (current, switching out stopped or traced) entered.
 * ptrace_stop() sets exit_code and last_siginfo before it schedules:
 * exit_code is the signal of a signal-delivery stop, SIGTRAP | 0x80 for a
 * syscall stop, SIGTRAP | event << 8 for a ptrace event, and
 * sig | PTRACE_EVENT_STOP << 8 for a seized group stop or (with SIGTRAP)
 * an interrupt; an unseized traced group stop has no siginfo at all.
 */
static __always_inline void stop_details(struct ptbpf_event *e, struct task_struct *t,
					 struct ptbpf_proc *p, bool traced)
{
	kernel_siginfo_t *info;
	int code;

	e->ip = user_ip(t);
	if (!traced) {
		e->stop_kind = PTBPF_STOP_GROUP;
		e->sig = BPF_CORE_READ(t, jobctl) & JOBCTL_STOP_SIGMASK;
		if (!e->sig)
			e->sig = p->last_stop_sig;
		return;
	}
	code = BPF_CORE_READ(t, exit_code);
	if ((code >> 8) == PTRACE_EVENT_STOP) {
		e->sig = code & 0x7f;
		e->stop_kind = e->sig == SIGTRAP ? PTBPF_STOP_INTERRUPT : PTBPF_STOP_GROUP;
		return;
	}
	if (code >> 8) {
		e->sig = SIGTRAP;
		e->stop_kind = PTBPF_STOP_PTRACE_EVENT;
		e->ptrace_event = code >> 8;
		return;
	}
	if (code == (SIGTRAP | 0x80)) {
		e->sig = SIGTRAP;
		e->stop_kind = PTBPF_STOP_SYSCALL;
		return;
	}
	e->sig = code & 0x7f;
	info = BPF_CORE_READ(t, last_siginfo);
	if (!info) {
		e->stop_kind = PTBPF_STOP_GROUP;
		return;
	}
	e->si_code = BPF_CORE_READ(info, si_code);
	e->stop_kind = PTBPF_STOP_SIGNAL;
	if (e->sig != SIGTRAP)
		return;
	/* x86 reports int3 as SI_KERNEL, other architectures TRAP_BRKPT */
	if (e->si_code == TRAP_BRKPT || e->si_code == SI_KERNEL)
		e->stop_kind = PTBPF_STOP_BREAKPOINT;
	else if (e->si_code == TRAP_TRACE)
		e->stop_kind = PTBPF_STOP_SINGLESTEP;
	else if (e->si_code == TRAP_HWBKPT)
		e->stop_kind = PTBPF_STOP_HW_BREAKPOINT;
}

static __always_inline void emit_seq(__u32 kind, struct task_struct *t, struct ptbpf_proc *p,
				     __s32 sig, __u32 cause, __u64 seq)
{
	struct ptbpf_event *e = reserve(kind, t, p);

	if (!e)
		return;
	e->sig = sig;
	e->cause = cause;
	e->seq = seq;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void emit(__u32 kind, struct task_struct *t, struct ptbpf_proc *p, __s32 sig,
				 __u32 cause)
{
	emit_seq(kind, t, p, sig, cause, 0);
}

#define ANY_LIVE_STATE 0xff /* flip() from running or stopped */

/*
 * Flips the process state from @from (or from any state but exited, for
 * ANY_LIVE_STATE) to @to and takes the next sequence number, in one
 * compare-and-swap. Returns that number, or 0 when the state was not
 * @from. A word changed under it by another CPU is read again; one that
 * keeps changing (never seen) counts as a lost event, so user space takes
 * the state from the word.
 */
static __always_inline __u64 flip(struct ptbpf_proc *p, __u32 from, __u32 to)
{
	__u64 w, nw;
	int i;

	for (i = 0; i < 8; i++) {
		w = *(volatile __u64 *)&p->word;
		if (from == ANY_LIVE_STATE ? PTBPF_WORD_STATE(w) == PTBPF_PROC_EXITED ||
						     PTBPF_WORD_STATE(w) == PTBPF_PROC_UNKNOWN :
					     PTBPF_WORD_STATE(w) != from)
			return 0;
		nw = PTBPF_WORD(PTBPF_WORD_SEQ(w) + 1, to);
		if (__sync_val_compare_and_swap(&p->word, w, nw) == w)
			return PTBPF_WORD_SEQ(nw);
	}
	__sync_fetch_and_add(&lost_events, 1);
	return 0;
}

/* The thread's state slot, created (as running) on first sight. */
static __always_inline __u32 *thread_slot(struct ptbpf_proc *p, __u32 tid)
{
	__u32 *st = bpf_map_lookup_elem(&threads, &tid);
	__u32 running = PTBPF_THREAD_RUNNING;

	if (st)
		return st;
	if (!bpf_map_update_elem(&threads, &tid, &running, BPF_NOEXIST))
		__sync_fetch_and_add(&p->nr_live, 1);
	return bpf_map_lookup_elem(&threads, &tid);
}

/*
 * Every live thread is stopped: the process stops (once). @t is the thread
 * that stopped last; when it is current (a switch, not an exit) the stop
 * says what @t entered.
 */
static __always_inline void maybe_stop(struct ptbpf_proc *p, struct task_struct *t, __u32 cause)
{
	struct ptbpf_event *e;
	__u64 seq;

	if (p->nr_live <= 0 || p->nr_stopped < p->nr_live)
		return;
	seq = flip(p, PTBPF_PROC_RUNNING, PTBPF_PROC_STOPPED);
	if (!seq)
		return;
	e = reserve(PTBPF_EV_STOP, t, p);
	if (e) {
		e->cause = cause;
		e->seq = seq;
		if (cause != PTBPF_CAUSE_EXIT)
			stop_details(e, t, p, cause == PTBPF_CAUSE_PTRACE);
		bpf_ringbuf_submit(e, 0);
	}
	/*
	 * A thread that ran again between the counters' check and the flip
	 * found the state still running and reported nothing: run again.
	 */
	if (p->nr_stopped < p->nr_live) {
		seq = flip(p, PTBPF_PROC_STOPPED, PTBPF_PROC_RUNNING);
		if (seq)
			emit_seq(PTBPF_EV_RUN, t, p, 0, PTBPF_CAUSE_NONE, seq);
	}
}

/* A thread our map says is stopped went on running: it is not stopped. */
static __always_inline void thread_runs(struct ptbpf_proc *p, struct task_struct *t, __u32 *st,
					__u32 old, __s32 sig, __u32 cause)
{
	__u64 seq;

	if (__sync_val_compare_and_swap(st, old, PTBPF_THREAD_RUNNING) != old)
		return;
	__sync_fetch_and_add(&p->nr_stopped, -1);
	seq = flip(p, PTBPF_PROC_STOPPED, PTBPF_PROC_RUNNING);
	if (seq)
		emit_seq(PTBPF_EV_RUN, t, p, sig, cause, seq);
}

/*
 * A thread is stopped once it switches out in __TASK_STOPPED or
 * __TASK_TRACED. That includes being preempted between setting the state
 * and calling schedule(): /proc already shows it stopped, it runs no more
 * user code, and a SIGCONT that comes meanwhile wakes it (sched_waking).
 */
static __always_inline void mark_cpu(__u8 on)
{
	__u32 cpu = bpf_get_smp_processor_id() & (PTBPF_MAX_CPUS - 1);

	/* a store only when it changes: no cache line bouncing per switch */
	if (!cpu_ran[cpu])
		cpu_ran[cpu] = 1;
	if (cpu_on[cpu] != on)
		cpu_on[cpu] = on;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(handle_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	/*
	 * --follow: no look-up of next, on the path every switch of the
	 * machine takes; user space then reads every core (no cpu_ran).
	 */
	bool next_is_target = !follow && is_target(next);
	struct ptbpf_proc *p = proc_of(prev);
	unsigned int state;
	__u32 *st, new, old;

	if (!p) {
		if (next_is_target)
			mark_cpu(1);
		return 0;
	}
	mark_cpu(next_is_target);
	/* prev is still current here: its cgroup is the one it ran in */
	if (watch_cgroup && !cgroup_left && bpf_current_task_under_cgroup(&targ_cgroup, 0) == 0 &&
	    __sync_val_compare_and_swap(&cgroup_left, 0, 1) == 0)
		emit(PTBPF_EV_CGROUP_LEFT, prev, p, 0, PTBPF_CAUSE_NONE);
	state = task_state(prev);
	if (state & TASK_TRACED_BIT)
		new = PTBPF_THREAD_TRACED;
	else if (state & TASK_STOPPED_BIT)
		new = PTBPF_THREAD_STOPPED;
	else
		new = PTBPF_THREAD_RUNNING;

	if (new == PTBPF_THREAD_RUNNING) {
		/* never creates a slot: a dead thread's last switch lands here */
		__u32 tid = BPF_CORE_READ(prev, pid);

		/*
		 * A thread marked stopped counted itself in nr_stopped when it
		 * switched out, before it could run again: none counted, none
		 * marked, and a switch-heavy target pays no look-up.
		 */
		if (!p->nr_stopped)
			return 0;
		st = bpf_map_lookup_elem(&threads, &tid);
		if (!st)
			return 0;
		old = *st;
		/*
		 * Switching out in another state means it ran: a stop it
		 * began was abandoned (e.g. ptrace_stop() with the tracer
		 * gone) without a wakeup to tell us.
		 */
		if (old != PTBPF_THREAD_RUNNING)
			thread_runs(p, prev, st, old, 0, PTBPF_CAUSE_NONE);
		return 0;
	}
	st = thread_slot(p, BPF_CORE_READ(prev, pid));
	if (!st)
		return 0;
	if (__sync_val_compare_and_swap(st, PTBPF_THREAD_RUNNING, new) != PTBPF_THREAD_RUNNING)
		return 0;
	__sync_fetch_and_add(&p->nr_stopped, 1);
	maybe_stop(p, prev, new == PTBPF_THREAD_TRACED ? PTBPF_CAUSE_PTRACE : PTBPF_CAUSE_SIGNAL);
	return 0;
}

/*
 * A stopped task is woken by SIGCONT, by SIGKILL (TASK_WAKEKILL) or, when
 * traced, by its tracer. sched_waking runs before the state is set to
 * TASK_RUNNING, in the waker's context.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(handle_waking, struct task_struct *p)
{
	struct ptbpf_proc *pr = proc_of(p);
	__u32 tid, *st, old;
	__s32 sig = 0;

	if (!pr)
		return 0;
	/*
	 * A thread marked stopped switched out in a stopped or traced state
	 * and has not run since (a switch in any other state unmarks it), so
	 * it still is in that state here: any other wakeup (a pipe, a futex)
	 * is not ours, and pays no look-up.
	 */
	if (!(task_state(p) & (TASK_STOPPED_BIT | TASK_TRACED_BIT)))
		return 0;
	tid = BPF_CORE_READ(p, pid);
	st = bpf_map_lookup_elem(&threads, &tid);
	if (!st)
		return 0;
	old = *st;
	if (old == PTBPF_THREAD_RUNNING)
		return 0;
	if (old == PTBPF_THREAD_STOPPED) {
		/* SIGKILL is queued before the wakeup; SIGCONT is not */
		__u64 pending = BPF_CORE_READ(p, pending.signal.sig[0]);

		sig = pending & (1ULL << (SIGKILL - 1)) ? SIGKILL : SIGCONT;
	}
	thread_runs(pr, p, st, old, sig,
		    old == PTBPF_THREAD_TRACED ? PTBPF_CAUSE_PTRACE : PTBPF_CAUSE_SIGNAL);
	return 0;
}

/*
 * --follow: @child (one thread) is followed from now on, its parent
 * process @ppid. Returns its event of @kind reserved, for the caller to
 * fill and submit, or NULL (the map or the ring full).
 */
static __always_inline struct ptbpf_event *follow_new(struct task_struct *child, __u32 ppid,
						      __u32 kind)
{
	__u32 tgid = child->tgid, tid = child->pid;
	__u32 running = PTBPF_THREAD_RUNNING;
	struct ptbpf_proc init = {}, *p;
	struct ptbpf_event *e;

	init.word = PTBPF_WORD(0, PTBPF_PROC_RUNNING);
	init.nr_live = 1;
	init.ppid = ppid;
	if (bpf_map_update_elem(&children, &tgid, &init, BPF_NOEXIST)) {
		/* counted: user space says which forks were not followed */
		__sync_fetch_and_add(&follow_full, 1);
		return NULL;
	}
	__sync_fetch_and_add(&nr_children, 1);
	bpf_map_update_elem(&threads, &tid, &running, BPF_ANY);
	p = bpf_map_lookup_elem(&children, &tgid);
	if (!p)
		return NULL;
	e = reserve(kind, child, p);
	if (e)
		e->ppid = ppid;
	return e;
}

/*
 * @child is a new process of a followed one. The tracepoint fires before
 * wake_up_new_task(), so its state exists before it first runs.
 */
static __always_inline int follow_child(struct task_struct *parent, struct task_struct *child)
{
	struct ptbpf_event *e;

	e = follow_new(child, parent->tgid, PTBPF_EV_FORK);
	if (e)
		bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * --unit: @p, not forked by a followed process, execs in the traced
 * cgroup: it is one of the unit's processes now (systemd forks them from
 * PID 1 and moves them in before their exec). It has one thread.
 */
static __always_inline int follow_exec(struct task_struct *p, struct linux_binprm *bprm)
{
	struct ptbpf_event *e;
	const char *fname;

	if (!follow || !watch_cgroup || bpf_current_task_under_cgroup(&targ_cgroup, 0) != 1)
		return 0;
	e = follow_new(p, BPF_CORE_READ(p, real_parent, tgid), PTBPF_EV_JOIN);
	if (!e)
		return 0;
	fname = BPF_CORE_READ(bprm, filename);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), fname);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
	struct ptbpf_proc *p = proc_of(child);
	__u32 tid, running = PTBPF_THREAD_RUNNING;

	if (!p) {
		/* a process (not a thread) created by a followed one */
		if (follow && child->tgid != parent->tgid && proc_of(parent))
			return follow_child(parent, child);
		return 0;
	}
	tid = BPF_CORE_READ(child, pid);
	if (!bpf_map_update_elem(&threads, &tid, &running, BPF_NOEXIST))
		__sync_fetch_and_add(&p->nr_live, 1);
	emit(PTBPF_EV_THREAD_START, child, p, 0, PTBPF_CAUSE_NONE);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *p)
{
	struct ptbpf_proc *pr = proc_of(p);
	__u32 tid, tgid, *st, old = PTBPF_THREAD_RUNNING;
	struct ptbpf_event *e;
	bool group_dead;
	__u64 seq;

	if (!pr)
		return 0;
	tid = BPF_CORE_READ(p, pid);
	st = bpf_map_lookup_elem(&threads, &tid);
	if (st)
		old = *st;
	/* whoever deletes the slot (this or the user-space scan) counts it */
	if (!bpf_map_delete_elem(&threads, &tid)) {
		if (old != PTBPF_THREAD_RUNNING)
			__sync_fetch_and_add(&pr->nr_stopped, -1);
		__sync_fetch_and_add(&pr->nr_live, -1);
	}
	/* signal->live is decremented before this tracepoint fires */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	if (!group_dead) {
		emit(PTBPF_EV_THREAD_EXIT, p, pr, 0, PTBPF_CAUSE_NONE);
		maybe_stop(pr, p, PTBPF_CAUSE_EXIT);
		return 0;
	}
	/*
	 * Threads that exit together on several CPUs can all see live == 0
	 * (each decrements it before its tracepoint): one of them reports.
	 */
	seq = flip(pr, ANY_LIVE_STATE, PTBPF_PROC_EXITED);
	if (!seq)
		return 0;
	e = reserve(PTBPF_EV_EXIT, p, pr);
	if (e) {
		e->seq = seq;
		/* a group exit leaves its code in signal->group_exit_code */
		e->exit_code = BPF_CORE_READ(p, signal, group_exit_code);
		if (!e->exit_code)
			e->exit_code = BPF_CORE_READ(p, exit_code);
		e->sig = e->exit_code & 0x7f;
		bpf_ringbuf_submit(e, 0);
	}
	/*
	 * A followed process is forgotten once gone (its tgid may be
	 * reused), after the last read of its state: a deleted element may
	 * be handed to the next insert at once.
	 */
	tgid = BPF_CORE_READ(p, tgid);
	if (tgid != targ_tgid && !bpf_map_delete_elem(&children, &tgid))
		__sync_fetch_and_add(&nr_children, -1);
	return 0;
}

/*
 * After exec only the calling thread is left (de_thread killed the rest
 * and their exits were counted), and it now has the tgid as its tid.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tid, old = old_pid, running = PTBPF_THREAD_RUNNING;
	struct ptbpf_proc *pr = proc_of(p);
	struct ptbpf_event *e;
	const char *fname;

	if (!pr)
		return follow_exec(p, bprm);
	tid = BPF_CORE_READ(p, pid);
	if (old != tid)
		bpf_map_delete_elem(&threads, &old);
	bpf_map_update_elem(&threads, &tid, &running, BPF_ANY);
	pr->nr_live = 1;
	pr->nr_stopped = 0;

	e = reserve(PTBPF_EV_EXEC, p, pr);
	if (!e)
		return 0;
	e->old_tid = old;
	fname = BPF_CORE_READ(bprm, filename);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), fname);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* A signal whose default action ends the process with a core dump. */
static __always_inline bool fatal_kind(int sig, struct task_struct *t)
{
	switch (sig) {
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGABRT:
	case SIGSYS:
		break;
	case SIGTRAP:
		/* under a debugger a trap is the debugger's business */
		return !BPF_CORE_READ(t, ptrace);
	default:
		return false;
	}
	return true;
}

/*
 * Fatal now: a fatal kind with the default action that the task does not
 * block. A blocked signal stays pending while the task runs on (it is
 * reported when it is delivered, if ever), and an ignored one (SIG_IGN) is
 * dropped. A fault (force_sig_info) unblocks and resets its signal before
 * this tracepoint, so a real crash always counts.
 */
static __always_inline bool fatal_by_default(int sig, struct task_struct *t)
{
	struct sighand_struct *sh;
	void *handler = NULL;
	unsigned int idx;
	__u64 blocked;

	if (!fatal_kind(sig, t))
		return false;
	idx = (unsigned int)(sig - 1) & 63;
	blocked = BPF_CORE_READ(t, blocked.sig[0]);
	if (blocked & (1ULL << idx))
		return false;
	sh = BPF_CORE_READ(t, sighand);
	if (!sh)
		return false;
	bpf_core_read(&handler, sizeof(handler), &sh->action[idx].sa.sa_handler);
	return handler == NULL; /* SIG_DFL */
}

#define PAGE_SZ 4096

/*
 * The crash record of current, the thread that faults or takes a fatal
 * signal: its user registers (saved on entry to the kernel) and the top of
 * its user stack, read page by page from the stack pointer up until the
 * copy is as long as asked or a page can't be read (the end of the stack,
 * or one not in memory: this context can't fault pages in). Submitted
 * before the fatal event, so user space holds it when that event comes.
 */
static __always_inline void crash_record(struct task_struct *t, int sig, __u32 at)
{
	__u64 start = bpf_ktime_get_ns(), sp, off = 0, want, len;
	struct ptbpf_crash *c;
	struct pt_regs *r;
	int i;

	want = crash_stack;
	if (!want)
		return;
	if (want > PTBPF_CRASH_STACK_MAX)
		want = PTBPF_CRASH_STACK_MAX;
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs))
		return;
	r = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!r)
		return;
	/* a page of slack past the copy: the verifier bounds off and len apart */
	c = bpf_ringbuf_reserve(&crashes, sizeof(*c) + PAGE_SZ, 0);
	if (!c) {
		__sync_fetch_and_add(&crash_lost, 1);
		return;
	}
	c->ts = start;
	c->tgid = BPF_CORE_READ(t, tgid);
	c->tid = BPF_CORE_READ(t, pid);
	c->sig = sig;
	c->at = at;
	c->stack_want = (__u32)want;
	/* perf_event_x86_regs: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
	c->regs[0] = BPF_CORE_READ(r, ax);
	c->regs[1] = BPF_CORE_READ(r, bx);
	c->regs[2] = BPF_CORE_READ(r, cx);
	c->regs[3] = BPF_CORE_READ(r, dx);
	c->regs[4] = BPF_CORE_READ(r, si);
	c->regs[5] = BPF_CORE_READ(r, di);
	c->regs[6] = BPF_CORE_READ(r, bp);
	c->regs[7] = BPF_CORE_READ(r, sp);
	c->regs[8] = BPF_CORE_READ(r, ip);
	c->regs[9] = BPF_CORE_READ(r, flags);
	c->regs[10] = BPF_CORE_READ(r, cs);
	c->regs[11] = BPF_CORE_READ(r, ss);
	c->regs[12] = c->regs[13] = c->regs[14] = c->regs[15] = 0;
	c->regs[16] = BPF_CORE_READ(r, r8);
	c->regs[17] = BPF_CORE_READ(r, r9);
	c->regs[18] = BPF_CORE_READ(r, r10);
	c->regs[19] = BPF_CORE_READ(r, r11);
	c->regs[20] = BPF_CORE_READ(r, r12);
	c->regs[21] = BPF_CORE_READ(r, r13);
	c->regs[22] = BPF_CORE_READ(r, r14);
	c->regs[23] = BPF_CORE_READ(r, r15);
	sp = c->regs[7];
	c->sp = sp;
	/* the first piece up to the page's end, then whole pages */
	for (i = 0; i < PTBPF_CRASH_STACK_MAX / PAGE_SZ + 1; i++) {
		if (off >= want)
			break;
		len = PAGE_SZ - ((sp + off) & (PAGE_SZ - 1));
		if (len > want - off)
			len = want - off;
		if (off > PTBPF_CRASH_STACK_MAX - 1 || len > PAGE_SZ)
			break;
		if (bpf_probe_read_user(c->stack + off, len, (void *)(sp + off)))
			break;
		off += len;
	}
	c->stack_len = (__u32)off;
	if (!off)
		__sync_fetch_and_add(&crash_lost, 1);
	c->cost_ns = bpf_ktime_get_ns() - start;
	bpf_ringbuf_submit(c, 0);
}

SEC("tp_btf/signal_generate")
int BPF_PROG(handle_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct ptbpf_proc *p = proc_of(task);
	struct ptbpf_event *e;

	if (!p)
		return 0;
	if (result != TRACE_SIGNAL_DELIVERED || !fatal_by_default(sig, task))
		return 0;
	/*
	 * Sent by another task (kill -SEGV, pthread_kill): reported when a
	 * thread takes it, with that thread's stack (signal_deliver). A fault
	 * or a raise() is generated in the thread itself.
	 */
	if (task != bpf_get_current_task_btf())
		return 0;
	p->fatal_reported = sig;
	crash_record(task, sig, PTBPF_CRASH_AT_FAULT);
	e = reserve(PTBPF_EV_FATAL, task, p);
	if (!e)
		return 0;
	e->sig = sig;
	e->cause = PTBPF_CAUSE_SIGNAL;
	/* a fault is raised in the faulting thread: its saved registers */
	e->ip = user_ip(task);
	if ((unsigned long)info > SEND_SIG_PRIV_VAL) {
		e->si_code = BPF_CORE_READ(info, si_code);
		/* si_code > 0: sent by the kernel, so si_addr is the fault's */
		if ((sig == SIGSEGV || sig == SIGBUS) && e->si_code > 0) {
			e->addr = (__u64)BPF_CORE_READ(info, _sifields._sigfault._addr);
			e->flags |= PTBPF_F_ADDR;
		}
	}
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * Remembers which job-control signal stopped the group, for the stop event.
 * A fatal signal taken with its default action means the target is dying
 * now; if it was not reported when generated (blocked then, or sent to a
 * thread that blocks it and taken by another) it is reported here, still
 * before the kernel acts on it.
 */
SEC("tp_btf/signal_deliver")
int BPF_PROG(handle_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ptbpf_proc *p = proc_of(cur);
	struct ptbpf_event *e;

	if (!p)
		return 0;
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		p->last_stop_sig = sig;
	if (!fatal_kind(sig, cur) || ka->sa.sa_handler != NULL)
		return 0;
	p->fatal_dying = 1;
	if (__sync_val_compare_and_swap(&p->fatal_reported, sig, 0) == sig)
		return 0;
	crash_record(cur, sig, PTBPF_CRASH_AT_DELIVERY);
	e = reserve(PTBPF_EV_FATAL, cur, p);
	if (!e)
		return 0;
	e->sig = sig;
	e->cause = PTBPF_CAUSE_SIGNAL;
	e->ip = user_ip(cur);
	if ((unsigned long)info > SEND_SIG_PRIV_VAL)
		e->si_code = BPF_CORE_READ(info, si_code);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * --wait-for: before there is a target, the one program loaded. The first
 * process to exec the program (by its file, when waitfor_ino is set, else
 * by its name as the kernel keeps it: comm, 15 characters) is sent SIGSTOP
 * here, after the exec's point of no return: the signal is taken on the
 * way back to user space, before the program's first instruction, and
 * holds it there until user space has set everything up.
 */
const volatile char waitfor_comm[PTBPF_COMM_LEN] = {};
const volatile __u64 waitfor_ino = 0;
const volatile __u32 waitfor_dev = 0; /* the kernel's dev_t: major << 20 */
__u32 waitfor_pid = 0;

static __always_inline bool comm_is(struct task_struct *t)
{
	char comm[PTBPF_COMM_LEN];
	int i;

	BPF_CORE_READ_STR_INTO(&comm, t, comm);
	for (i = 0; i < PTBPF_COMM_LEN; i++) {
		if (comm[i] != waitfor_comm[i])
			return false;
		if (!comm[i])
			return true;
	}
	return true;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_waitfor, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct ptbpf_event *e;
	const char *fname;
	__u32 tgid;

	if (waitfor_ino) {
		struct inode *ino = BPF_CORE_READ(bprm, file, f_inode);

		if (BPF_CORE_READ(ino, i_ino) != waitfor_ino ||
		    BPF_CORE_READ(ino, i_sb, s_dev) != waitfor_dev)
			return 0;
	} else if (!comm_is(p)) {
		return 0;
	}
	tgid = BPF_CORE_READ(p, tgid);
	/* the first one only: it becomes the target */
	if (__sync_val_compare_and_swap(&waitfor_pid, 0, tgid) != 0)
		return 0;
	bpf_send_signal(SIGSTOP);
	e = reserve(PTBPF_EV_EXEC, p, &root);
	if (!e)
		return 0; /* user space reads waitfor_pid too */
	e->old_tid = old_pid;
	fname = BPF_CORE_READ(bprm, filename);
	bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), fname);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * --trigger-on: one uprobe link per point, attached to its file
 * for every process (pid -1), so that any process that is a target, by
 * whatever is_target() says, makes a hit; the others are dropped here. The
 * attach cookie is the point's index. The event's ts is the hit's kernel
 * time: a snapshot's data is cut there. The program is a hit's, but keeps
 * the name it was loaded under: bpftool, the kernel's symbols and
 * libbpf's lines under -v show it.
 */
SEC("uprobe")
int trigger_hit(struct pt_regs *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ptbpf_proc *p = proc_of(cur); /* is_target(cur) */
	struct ptbpf_event *e;

	if (!p)
		return 0;
	e = reserve(PTBPF_EV_HIT, cur, p);
	if (!e)
		return 0;
	e->ip = PT_REGS_IP(ctx);
	/* before 5.15 no cookie: the program still loads, every hit is point 0 */
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_attach_cookie))
		e->point = (__u32)bpf_get_attach_cookie(ctx);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
