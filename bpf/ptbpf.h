/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types and constants shared by the BPF program and user space.
 *
 * Fixed-width fields, largest first, explicit padding: the same bytes mean
 * the same thing on both sides of the ring buffer.
 */
#ifndef PTBPF_H
#define PTBPF_H

#define PTBPF_COMM_LEN 16
#define PTBPF_FILENAME_LEN 128
/* Size of the per-CPU marks (cpu_ran, cpu_on): a power of two. */
#define PTBPF_MAX_CPUS 4096
/* --follow: how many processes besides the target may be followed at once */
#define PTBPF_MAX_FOLLOW 4096

/* Process-level transitions and per-thread notes sent to user space. */
enum ptbpf_event_kind {
	PTBPF_EV_RUN = 1, /* the first thread of a stopped target runs again */
	PTBPF_EV_STOP = 2, /* every live thread is stopped or ptrace-stopped */
	PTBPF_EV_FATAL = 3, /* a fatal signal was generated for the target */
	PTBPF_EV_EXEC = 4,
	PTBPF_EV_THREAD_START = 5,
	PTBPF_EV_THREAD_EXIT = 6,
	PTBPF_EV_EXIT = 7, /* the last thread of the thread group exited */
	/* cgroup scope: a thread of the target ran outside the cgroup */
	PTBPF_EV_CGROUP_LEFT = 8,
	/* --follow: a followed process created a process (pid: the new one) */
	PTBPF_EV_FORK = 9,
	/*
	 * --unit: a process not forked by a followed one execs in the
	 * traced cgroup (systemd forks it, moves it in, it execs): followed
	 */
	PTBPF_EV_JOIN = 10,
	/* --trigger-on: a target thread reached a traced function's entry */
	PTBPF_EV_HIT = 11,
	PTBPF_EV_MAX,
};

/* Why a stop or run happened. */
enum ptbpf_cause {
	PTBPF_CAUSE_NONE = 0,
	PTBPF_CAUSE_SIGNAL = 1, /* job control: SIGSTOP, SIGTSTP, SIGCONT... */
	PTBPF_CAUSE_PTRACE = 2, /* a tracer stopped or resumed the thread */
	PTBPF_CAUSE_EXIT = 3, /* a thread exit left only stopped threads */
};

/* Process state as the BPF program aggregates it (proc_state global). */
enum ptbpf_proc_state {
	PTBPF_PROC_UNKNOWN = 0, /* user space has not finished its scan */
	PTBPF_PROC_RUNNING = 1,
	PTBPF_PROC_STOPPED = 2,
	PTBPF_PROC_EXITED = 3,
};

/*
 * The process state and the number of transitions so far share one word
 * (proc_word), so one compare-and-swap both flips the state and takes the
 * transition's sequence number. Two CPUs may then put their records in the
 * ring in the other order; user space applies them by sequence number.
 */
#define PTBPF_WORD_STATE(w) ((__u32)((w)&0xff))
#define PTBPF_WORD_SEQ(w) ((__u64)(w) >> 8)
#define PTBPF_WORD(seq, state) (((__u64)(seq) << 8) | (__u64)(state))

/*
 * One traced process's aggregate state: the target's in the BPF program's
 * .bss (root), each followed process's (--follow) in the children map,
 * keyed by its tgid. The counters aggregate the threads map's slots of its
 * threads; word is PTBPF_WORD(seq, state), so each process numbers its own
 * transitions.
 */
struct ptbpf_proc {
	__u64 word;
	__s32 nr_live; /* live threads */
	__s32 nr_stopped; /* of them, stopped or ptrace-stopped */
	__s32 last_stop_sig; /* the job-control signal that stopped it last */
	/*
	 * A fatal signal reported at generation time, until delivered (then
	 * it is dying: fatal_dying) or found not fatal after all.
	 */
	__s32 fatal_reported;
	__u32 fatal_dying;
	__u32 ppid; /* followed: the tgid it was forked from; 0: the target */
};

/* Per-thread state kept in the threads map. */
enum ptbpf_thread_state {
	PTBPF_THREAD_RUNNING = 0,
	PTBPF_THREAD_STOPPED = 1, /* switched out in __TASK_STOPPED */
	PTBPF_THREAD_TRACED = 2, /* switched out in __TASK_TRACED */
};

/*
 * What kind of stop the thread that stopped last entered, as the kernel
 * tells it: the task's jobctl, exit_code and last_siginfo at the switch.
 */
enum ptbpf_stop_kind {
	PTBPF_STOP_UNKNOWN = 0, /* e.g. a thread exit left only stopped ones */
	PTBPF_STOP_GROUP = 1, /* group (job-control) stop, traced or not */
	PTBPF_STOP_SIGNAL = 2, /* ptrace signal-delivery stop */
	PTBPF_STOP_BREAKPOINT = 3, /* SIGTRAP of a software breakpoint */
	PTBPF_STOP_SINGLESTEP = 4, /* SIGTRAP of a single step (TRAP_TRACE) */
	PTBPF_STOP_HW_BREAKPOINT = 5, /* SIGTRAP of a debug register (TRAP_HWBKPT) */
	PTBPF_STOP_INTERRUPT = 6, /* PTRACE_INTERRUPT, PTRACE_SEIZE, LISTEN */
	PTBPF_STOP_PTRACE_EVENT = 7, /* PTRACE_EVENT_FORK/EXEC/CLONE/EXIT... */
	PTBPF_STOP_SYSCALL = 8, /* syscall-enter/exit stop */
	PTBPF_STOP_KIND_MAX,
};

/* ptbpf_event.flags */
#define PTBPF_F_ADDR 0x1 /* addr holds a fault address (0 is one too) */

struct ptbpf_event {
	__u64 ts; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 kind; /* enum ptbpf_event_kind */
	__u32 tgid;
	__u32 tid;
	__u32 cpu;
	__s32 sig; /* signal number, 0 when none */
	__u32 cause; /* enum ptbpf_cause */
	__s32 exit_code; /* task->exit_code: (status << 8) or signal */
	__u32 nr_threads; /* live threads after this event */
	__u32 old_tid; /* exec: the tid that called execve */
	union {
		__u32 ppid; /* fork, join: its parent process (pid: the new one) */
		__u32 point; /* hit: which --trigger-on (0, 1, ...) */
	};
	char comm[PTBPF_COMM_LEN];
	char filename[PTBPF_FILENAME_LEN]; /* exec: the new program */
	/* run, stop, exit: the transition's number (1, 2, ...); else 0 */
	__u64 seq;
	/*
	 * stop: the user-space IP of the thread that stopped last;
	 * fatal: the faulting instruction; hit: where the uprobe hit.
	 * 0 when unknown.
	 */
	__u64 ip;
	__u64 addr; /* fatal SIGSEGV/SIGBUS from a fault: si_addr */
	__s32 si_code; /* stop (signal-delivery) and fatal: the siginfo's */
	__u32 stop_kind; /* stop: enum ptbpf_stop_kind */
	__u32 ptrace_event; /* stop kind ptrace_event: PTRACE_EVENT_* */
	__u32 flags; /* PTBPF_F_* */
};

/*
 * The crash record: at a fatal signal, the registers and the top of the
 * user stack of the thread that faults (or takes the signal), as perf's
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER would hold them, so the
 * fatal snapshot can be unwound like a --call-graph dwarf sample. Sent on
 * its own ring (crashes) just before its fatal event.
 *
 * At most PTBPF_CRASH_STACK_MAX bytes of stack: a perf sample's size is 16
 * bits, and the record's other fields must fit beside the copy.
 */
#define PTBPF_CRASH_STACK_MAX 64512
#define PTBPF_CRASH_STACK_DEFAULT 32768
/* perf's x86-64 register numbers (asm/perf_regs.h), AX .. R15 */
#define PTBPF_CRASH_NR_REGS 24

enum ptbpf_crash_at {
	PTBPF_CRASH_AT_FAULT = 1, /* signal_generate, in the thread itself */
	PTBPF_CRASH_AT_DELIVERY = 2, /* signal_deliver: sent by another task */
};

struct ptbpf_crash {
	__u64 ts; /* bpf_ktime_get_ns(), as the fatal event's */
	__u32 tgid;
	__u32 tid;
	__s32 sig;
	__u32 at; /* enum ptbpf_crash_at */
	__u64 sp; /* where the stack copy starts */
	__u32 stack_len; /* bytes copied from sp up, until a page failed */
	__u32 stack_want; /* what the copy was asked for (crash_stack) */
	__u64 cost_ns; /* what the capture took, from its start to submit */
	/* perf_event_x86_regs order; DS, ES, FS, GS stay 0 */
	__u64 regs[PTBPF_CRASH_NR_REGS];
	__u8 stack[PTBPF_CRASH_STACK_MAX];
};

#endif /* PTBPF_H */
