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

/* Written by user space through the mmap'd .bss as well as here. */
__s32 nr_live = 0;
__s32 nr_stopped = 0;
__u64 proc_word = PTBPF_WORD(0, PTBPF_PROC_UNKNOWN);
__u64 lost_events = 0;
__s32 last_stop_sig = 0;
/*
 * A fatal signal reported at generation time, until delivered (then the
 * target is dying: fatal_dying) or found not fatal after all. User space
 * reads both to know whether a fatal pause should hold.
 */
__s32 fatal_reported = 0;
__u32 fatal_dying = 0;

/*
 * Process scope: the CPUs a target thread ran on since user space last
 * looked (set here, cleared by user space when it takes a snapshot), and
 * whether one is on that CPU now. A snapshot copies only those cores: no
 * other task writes into a process-scope buffer.
 */
__u8 cpu_ran[PTBPF_MAX_CPUS] = {};
__u8 cpu_on[PTBPF_MAX_CPUS] = {};
/*
 * sample_filter lets the target's samples through once this is set: by
 * user space for --pid, here at the exec of a launched command (its code
 * before the exec is ptbpf's).
 */
__u8 filter_open = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} threads SEC(".maps");

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

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

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

static __always_inline bool is_target(struct task_struct *t)
{
	return t->tgid == targ_tgid;
}

/*
 * A zeroed event with the common fields filled, or NULL when the ring is
 * full (counted: user space reports it as lost_events).
 */
static __always_inline struct ptbpf_event *reserve(__u32 kind,
						   struct task_struct *t)
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
	e->nr_threads = nr_live;
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

	if (!bpf_core_enum_value_exists(enum bpf_func_id,
					BPF_FUNC_task_pt_regs))
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
static __always_inline void stop_details(struct ptbpf_event *e,
					 struct task_struct *t, bool traced)
{
	kernel_siginfo_t *info;
	int code;

	e->ip = user_ip(t);
	if (!traced) {
		e->stop_kind = PTBPF_STOP_GROUP;
		e->sig = BPF_CORE_READ(t, jobctl) & JOBCTL_STOP_SIGMASK;
		if (!e->sig)
			e->sig = last_stop_sig;
		return;
	}
	code = BPF_CORE_READ(t, exit_code);
	if ((code >> 8) == PTRACE_EVENT_STOP) {
		e->sig = code & 0x7f;
		e->stop_kind = e->sig == SIGTRAP ? PTBPF_STOP_INTERRUPT :
						   PTBPF_STOP_GROUP;
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

static __always_inline void emit_seq(__u32 kind, struct task_struct *t,
				     __s32 sig, __u32 cause, __u64 seq)
{
	struct ptbpf_event *e = reserve(kind, t);

	if (!e)
		return;
	e->sig = sig;
	e->cause = cause;
	e->seq = seq;
	bpf_ringbuf_submit(e, 0);
}

static __always_inline void emit(__u32 kind, struct task_struct *t, __s32 sig,
				 __u32 cause)
{
	emit_seq(kind, t, sig, cause, 0);
}

#define ANY_LIVE_STATE 0xff /* flip() from running or stopped */

/*
 * Flips the process state from @from (or from any state but exited, for
 * ANY_LIVE_STATE) to @to and takes the next sequence number, in one
 * compare-and-swap. Returns that number, or 0 when the state was not
 * @from. A word changed under it by another CPU is read again; one that
 * keeps changing (never seen) counts as a lost event, so user space takes
 * the state from proc_word.
 */
static __always_inline __u64 flip(__u32 from, __u32 to)
{
	__u64 w, nw;
	int i;

	for (i = 0; i < 8; i++) {
		w = *(volatile __u64 *)&proc_word;
		if (from == ANY_LIVE_STATE ?
			    PTBPF_WORD_STATE(w) == PTBPF_PROC_EXITED ||
				    PTBPF_WORD_STATE(w) == PTBPF_PROC_UNKNOWN :
			    PTBPF_WORD_STATE(w) != from)
			return 0;
		nw = PTBPF_WORD(PTBPF_WORD_SEQ(w) + 1, to);
		if (__sync_val_compare_and_swap(&proc_word, w, nw) == w)
			return PTBPF_WORD_SEQ(nw);
	}
	__sync_fetch_and_add(&lost_events, 1);
	return 0;
}

/* The thread's state slot, created (as running) on first sight. */
static __always_inline __u32 *thread_slot(__u32 tid)
{
	__u32 *st = bpf_map_lookup_elem(&threads, &tid);
	__u32 running = PTBPF_THREAD_RUNNING;

	if (st)
		return st;
	if (!bpf_map_update_elem(&threads, &tid, &running, BPF_NOEXIST))
		__sync_fetch_and_add(&nr_live, 1);
	return bpf_map_lookup_elem(&threads, &tid);
}

/*
 * Every live thread is stopped: the process stops (once). @t is the thread
 * that stopped last; when it is current (a switch, not an exit) the stop
 * says what @t entered.
 */
static __always_inline void maybe_stop(struct task_struct *t, __u32 cause)
{
	struct ptbpf_event *e;
	__u64 seq;

	if (nr_live <= 0 || nr_stopped < nr_live)
		return;
	seq = flip(PTBPF_PROC_RUNNING, PTBPF_PROC_STOPPED);
	if (!seq)
		return;
	e = reserve(PTBPF_EV_STOP, t);
	if (e) {
		e->cause = cause;
		e->seq = seq;
		if (cause != PTBPF_CAUSE_EXIT)
			stop_details(e, t, cause == PTBPF_CAUSE_PTRACE);
		bpf_ringbuf_submit(e, 0);
	}
	/*
	 * A thread that ran again between the counters' check and the flip
	 * found the state still running and reported nothing: run again.
	 */
	if (nr_stopped < nr_live) {
		seq = flip(PTBPF_PROC_STOPPED, PTBPF_PROC_RUNNING);
		if (seq)
			emit_seq(PTBPF_EV_RUN, t, 0, PTBPF_CAUSE_NONE, seq);
	}
}

/* A thread our map says is stopped went on running: it is not stopped. */
static __always_inline void thread_runs(struct task_struct *t, __u32 *st,
					__u32 old, __s32 sig, __u32 cause)
{
	__u64 seq;

	if (__sync_val_compare_and_swap(st, old, PTBPF_THREAD_RUNNING) != old)
		return;
	__sync_fetch_and_add(&nr_stopped, -1);
	seq = flip(PTBPF_PROC_STOPPED, PTBPF_PROC_RUNNING);
	if (seq)
		emit_seq(PTBPF_EV_RUN, t, sig, cause, seq);
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
int BPF_PROG(handle_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	bool next_is_target = is_target(next);
	unsigned int state;
	__u32 *st, new, old;

	if (!is_target(prev)) {
		if (next_is_target)
			mark_cpu(1);
		return 0;
	}
	mark_cpu(next_is_target);
	/* prev is still current here: its cgroup is the one it ran in */
	if (watch_cgroup && !cgroup_left &&
	    bpf_current_task_under_cgroup(&targ_cgroup, 0) == 0 &&
	    __sync_val_compare_and_swap(&cgroup_left, 0, 1) == 0)
		emit(PTBPF_EV_CGROUP_LEFT, prev, 0, PTBPF_CAUSE_NONE);
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
			thread_runs(prev, st, old, 0, PTBPF_CAUSE_NONE);
		return 0;
	}
	st = thread_slot(BPF_CORE_READ(prev, pid));
	if (!st)
		return 0;
	if (__sync_val_compare_and_swap(st, PTBPF_THREAD_RUNNING, new) !=
	    PTBPF_THREAD_RUNNING)
		return 0;
	__sync_fetch_and_add(&nr_stopped, 1);
	maybe_stop(prev, new == PTBPF_THREAD_TRACED ? PTBPF_CAUSE_PTRACE :
						      PTBPF_CAUSE_SIGNAL);
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
	__u32 tid, *st, old;
	__s32 sig = 0;

	if (!is_target(p))
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
	thread_runs(p, st, old, sig,
		    old == PTBPF_THREAD_TRACED ? PTBPF_CAUSE_PTRACE :
						 PTBPF_CAUSE_SIGNAL);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(handle_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tid, running = PTBPF_THREAD_RUNNING;

	if (!is_target(child))
		return 0;
	tid = BPF_CORE_READ(child, pid);
	if (!bpf_map_update_elem(&threads, &tid, &running, BPF_NOEXIST))
		__sync_fetch_and_add(&nr_live, 1);
	emit(PTBPF_EV_THREAD_START, child, 0, PTBPF_CAUSE_NONE);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(handle_exit, struct task_struct *p)
{
	__u32 tid, *st, old = PTBPF_THREAD_RUNNING;
	struct ptbpf_event *e;
	bool group_dead;
	__u64 seq;

	if (!is_target(p))
		return 0;
	tid = BPF_CORE_READ(p, pid);
	st = bpf_map_lookup_elem(&threads, &tid);
	if (st)
		old = *st;
	/* whoever deletes the slot (this or the user-space scan) counts it */
	if (!bpf_map_delete_elem(&threads, &tid)) {
		if (old != PTBPF_THREAD_RUNNING)
			__sync_fetch_and_add(&nr_stopped, -1);
		__sync_fetch_and_add(&nr_live, -1);
	}
	/* signal->live is decremented before this tracepoint fires */
	group_dead = BPF_CORE_READ(p, signal, live.counter) == 0;
	if (!group_dead) {
		emit(PTBPF_EV_THREAD_EXIT, p, 0, PTBPF_CAUSE_NONE);
		maybe_stop(p, PTBPF_CAUSE_EXIT);
		return 0;
	}
	/*
	 * Threads that exit together on several CPUs can all see live == 0
	 * (each decrements it before its tracepoint): one of them reports.
	 */
	seq = flip(ANY_LIVE_STATE, PTBPF_PROC_EXITED);
	if (!seq)
		return 0;
	e = reserve(PTBPF_EV_EXIT, p);
	if (!e)
		return 0;
	e->seq = seq;
	/* a group exit leaves its code in signal->group_exit_code */
	e->exit_code = BPF_CORE_READ(p, signal, group_exit_code);
	if (!e->exit_code)
		e->exit_code = BPF_CORE_READ(p, exit_code);
	e->sig = e->exit_code & 0x7f;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * After exec only the calling thread is left (de_thread killed the rest
 * and their exits were counted), and it now has the tgid as its tid.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(handle_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tid, old = old_pid, running = PTBPF_THREAD_RUNNING;
	struct ptbpf_event *e;
	const char *fname;

	if (!is_target(p))
		return 0;
	tid = BPF_CORE_READ(p, pid);
	if (old != tid)
		bpf_map_delete_elem(&threads, &old);
	bpf_map_update_elem(&threads, &tid, &running, BPF_ANY);
	nr_live = 1;
	nr_stopped = 0;
	filter_open = 1;

	e = reserve(PTBPF_EV_EXEC, p);
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
	bpf_core_read(&handler, sizeof(handler),
		      &sh->action[idx].sa.sa_handler);
	return handler == NULL; /* SIG_DFL */
}

SEC("tp_btf/signal_generate")
int BPF_PROG(handle_signal_generate, int sig, struct kernel_siginfo *info,
	     struct task_struct *task, int group, int result)
{
	struct ptbpf_event *e;

	if (!is_target(task))
		return 0;
	if (result != TRACE_SIGNAL_DELIVERED || !fatal_by_default(sig, task))
		return 0;
	fatal_reported = sig;
	e = reserve(PTBPF_EV_FATAL, task);
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
			e->addr = (__u64)BPF_CORE_READ(
				info, _sifields._sigfault._addr);
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
int BPF_PROG(handle_signal_deliver, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (!is_target(cur))
		return 0;
	if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU)
		last_stop_sig = sig;
	if (!fatal_kind(sig, cur) || ka->sa.sa_handler != NULL)
		return 0;
	fatal_dying = 1;
	if (__sync_val_compare_and_swap(&fatal_reported, sig, 0) != sig)
		emit(PTBPF_EV_FATAL, cur, sig, PTBPF_CAUSE_SIGNAL);
	return 0;
}

/*
 * Process scope, sample backend: on each CPU's cpu-clock event (attached
 * with PERF_EVENT_IOC_SET_BPF, so it goes with the event). Returning 0
 * makes __perf_event_overflow() drop the sample, so the ring only ever
 * holds the target's: the cut of task-bound events, without their cost of
 * an hrtimer stopped and started at every context switch of the target.
 */
SEC("perf_event")
int sample_filter(struct bpf_perf_event_data *ctx)
{
	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != targ_tgid)
		return 0;
	return filter_open;
}

/*
 * --trigger-on: one uprobe link per point, attached to its file
 * for every process (pid -1), so that any process that is a target, by
 * whatever is_target() says, triggers; the others are dropped here. The
 * attach cookie is the point's index. The event's ts is the hit's kernel
 * time: a snapshot's data is cut there.
 */
SEC("uprobe")
int trigger_hit(struct pt_regs *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct ptbpf_event *e;

	if (!is_target(cur))
		return 0;
	e = reserve(PTBPF_EV_TRIGGER, cur);
	if (!e)
		return 0;
	e->ip = PT_REGS_IP(ctx);
	/* before 5.15 no cookie: the program still loads, every hit is point 0 */
	if (bpf_core_enum_value_exists(enum bpf_func_id,
				       BPF_FUNC_get_attach_cookie))
		e->point = (__u32)bpf_get_attach_cookie(ctx);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
