/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one snapshot holds once it is staged: the bytes each core recorded,
 * and everything a writer needs to turn them into perf.data, trace.json and
 * ptbpf.json. Filled by the collection side (cores.c, procinfo.c) with memory
 * copies only; read by the writers (perfdata.c, bundle.c) on the writer
 * thread. No pointer in here points into a live perf mmap. The tracer's
 * own: the reader has its view of a snapshot in tools/dump/snap.h.
 */
#ifndef PTBPF_SNAPSHOT_H
#define PTBPF_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "snapdata.h"
#include "snapcause.h"

struct vdso_image;

/*
 * How the sample backend records call stacks. The zero value is the
 * default: user call chains walked by the kernel through frame pointers.
 */
enum ptbpf_callgraph {
	CALLGRAPH_FP = 0, /* PERF_SAMPLE_CALLCHAIN, user space only */
	CALLGRAPH_DWARF, /* PERF_SAMPLE_REGS_USER|STACK_USER: unwound later */
	CALLGRAPH_NONE, /* the IP alone */
};

/*
 * Which tasks the per-core events count (scope.h): the target's own
 * threads (task-bound events), a cgroup v2, or everything on the CPU.
 */
enum ptbpf_scope {
	SCOPE_AUTO = 0,
	SCOPE_PROCESS,
	SCOPE_CGROUP,
	SCOPE_CPU,
};

/* One traced core's staged bytes. */
struct snap_core {
	int cpu;
	/*
	 * intel-pt: raw PT packets from the AUX area, oldest first.
	 * sample: perf records (PERF_RECORD_SAMPLE ...) from the data ring,
	 * oldest first, as the kernel wrote them.
	 */
	uint8_t *trace;
	size_t trace_len;
	/* perf records of the context-switch sideband event, oldest first */
	uint8_t *sideband;
	size_t sideband_len;
	bool wrapped; /* the ring overwrote data not yet snapshotted */
	uint64_t lost_bytes; /* bytes known to be lost since the last snapshot */
	uint64_t head; /* aux_head (intel-pt) or data_head at the read */
	uint64_t tsc; /* TSC (or perf clock) at the read: AUXTRACE reference */
	uint64_t data_id; /* PERF_EVENT_IOC_ID of the data event */
	uint64_t sb_id; /* PERF_EVENT_IOC_ID of the sideband event */
	/*
	 * Process scope, --pid: other threads' events write here too
	 * (SET_OUTPUT), each record with its own event's id; a writer must
	 * put data_id/sb_id in every record.
	 */
	bool mixed_ids;
	uint64_t paused_ns; /* how long the core was paused for this copy */
	uint64_t copy_ns; /* how long the copy of its rings took */
	/* not read: the target did not run on this CPU since the last read */
	bool unchanged;
	/* the sideband ring overwrote switch records not yet snapshotted */
	bool sb_wrapped;
	uint64_t sb_lost_bytes;
	/*
	 * intel-pt: the PT event's own records since the last read
	 * (ITRACE_START, AUX, LOST), oldest first, in the caller's sideband
	 * buffer after the switch records.
	 */
	uint8_t *ptrec;
	size_t ptrec_len;
	/*
	 * The thread on this CPU when the window began, as the records read
	 * before it tell (ptrecs.h): the writer names it at the window's
	 * start. start_tid 0: none of interest, or not known.
	 */
	uint32_t start_pid, start_tid;
	/*
	 * What the window's AUX records say: PT sessions the kernel marked
	 * truncated (data lost), collided (another user of the AUX area) or
	 * partial (cut short, e.g. by VMX); and records of the PT event the
	 * kernel dropped for want of room (their facts are unknown).
	 */
	uint32_t aux_truncated, aux_collision, aux_partial;
	uint64_t ptrec_lost;
};

struct snap_thread {
	uint32_t tid;
	char comm[16];
};

struct snap_map {
	uint64_t start, len, pgoff;
	uint32_t prot; /* PROT_* */
	uint32_t maj, min;
	uint64_t ino;
	char *path; /* NULL for anonymous mappings */
};

/*
 * What a process's [vdso] mapping is: none, the image ptbpf saves with a
 * snapshot (a 64-bit x86-64 program: vdso.h), another ABI's (a 32-bit or
 * x32 program), not saved, or unknown: its executable could not be read
 * (a process that died as it was read) and nothing else told.
 */
enum snap_vdso {
	SNAP_VDSO_NONE = 0,
	SNAP_VDSO_NATIVE,
	SNAP_VDSO_OTHER,
	SNAP_VDSO_UNKNOWN,
};

/* The target as /proc showed it at snapshot time. */
struct snap_process {
	uint32_t pid;
	char comm[16];
	char *exe; /* /proc/PID/exe, NULL when gone */
	unsigned int nr_threads;
	struct snap_thread *threads;
	unsigned int nr_maps;
	struct snap_map *maps; /* executable file mappings */
	enum snap_vdso vdso;
};

/*
 * What asked for a snapshot, its cause: a transition or a hit, as the BPF
 * program reported it, or a request. Strings are static.
 */
struct snap_cause {
	enum snap_cause_kind kind;
	uint64_t ts; /* CLOCK_MONOTONIC ns of the transition */
	int sig; /* 0 when none */
	uint32_t tid; /* the thread that stopped last or faulted; 0: none */
	const char *stop_kind; /* "breakpoint", "group_stop"...; NULL: none */
	bool has_si_code;
	int si_code;
	uint64_t ip; /* user-space IP at the stop, or the faulting one; 0: none */
	bool has_addr;
	uint64_t addr; /* the fault address (SIGSEGV, SIGBUS), when has_addr */
	unsigned int folded; /* earlier stops whose bytes this one holds */
	unsigned int folded_hits; /* earlier --trigger-on hits, the same way */
	/* --follow: the process it happened in; 0: the target */
	uint32_t pid;
	/*
	 * --trigger-on: the point as given (NULL for other causes) and its
	 * index. @ts is the hit's kernel time: the data is cut there.
	 */
	const char *spec;
	const char *symbol; /* the function's name; NULL for an address */
	const char *object; /* the file the point is in */
	unsigned int point;
};

/*
 * How a --trigger-on snapshot's data was made to end at the hit. "time":
 * the records stamped after it were left out when it was written (sample
 * backend); "kernel": the hardware trace of the hit's CPU was paused by the
 * kernel at the hit (intel-pt with aux-action); "staged": taken as soon as
 * the event arrived, so the data goes on past the hit (by at most
 * after_hit_ns).
 */
struct snap_cut {
	const char *how; /* NULL: not a --trigger-on snapshot */
	uint64_t after_hit_ns; /* how far past the hit the data went, before the cut */
	uint64_t records; /* records left out ("time") */
	uint64_t bytes; /* their bytes */
};

/*
 * The crash record of a fatal snapshot: the registers and the top of the
 * user stack of the thread that faulted (or took the signal), captured by
 * the BPF program at the fault. perf.data holds it as one sample with
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER, which perf unwinds.
 */
#define SNAP_CRASH_NR_REGS 24 /* perf_event_x86_regs: AX .. R15 */

struct snap_crash {
	bool valid;
	uint32_t pid, tid;
	int sig;
	const char *at; /* "fault" (in the thread itself) or "delivery" */
	/* ns of the capture: CLOCK_MONOTONIC, or for intel-pt the perf clock */
	uint64_t ts;
	uint64_t regs[SNAP_CRASH_NR_REGS]; /* by perf register number */
	uint64_t sp; /* where the stack copy starts */
	uint32_t stack_len, stack_want; /* bytes copied, bytes asked for */
	uint64_t cost_ns; /* what the capture cost at the fault (BPF) */
	uint8_t *stack; /* stack_len bytes; owned by the staging buffer */
};

/*
 * The sample backend's sampling, as the run chose it (user/collect/sampling.h):
 * the kernel's mechanism, the rate, and what one sample costs here.
 */
struct snap_sampling {
	/* "per-thread", "cgroup", "per-cpu"; NULL: none */
	const char *how;
	unsigned int hz;
	const char *why; /* "budget", "fixed", "lowered" */
	uint64_t sample_ns; /* one sample's cost, measured at start; 0: unknown */
	double cost_pct; /* the target's estimated cost at hz; < 0: unknown */
	double budget_pct; /* --overhead; 0 with -F */
};

/*
 * What every snapshot of a run shares, known once the per-core events are
 * open: given to the stager at setup (snapstage.h), copied into each
 * snapshot it stages.
 */
struct snap_run {
	enum ptbpf_backend backend;
	enum ptbpf_scope scope;
	const char *scope_why; /* why auto fell back; NULL or "" when not */
	struct snap_sampling sampling; /* sample backend */
	uint32_t pid;
	bool full; /* --full: whole buffers, not only new data */
	uint64_t run_start_ns; /* CLOCK_MONOTONIC of the run's start; 0: unknown */
	struct perf_event_attr data_attr; /* intel_pt or cpu-clock */
	struct perf_event_attr sb_attr; /* dummy, context_switch=1 */
	struct snap_tsc_conv conv;
	struct snap_cpu_info cpu_info;
	/* ptbpf's own vDSO (vdso.h), written with every snapshot of a
	 * process whose [vdso] it is; NULL: none could be read */
	const struct vdso_image *vdso;
};

struct snapshot {
	uint64_t id; /* 1, 2, ... in the order taken */
	struct snap_run run; /* the run's facts */
	struct snap_cause why; /* what asked for it */
	struct snap_cut cut;
	/* CLOCK_REALTIME and CLOCK_MONOTONIC ns, read together at staging */
	uint64_t realtime_ns, monotonic_ns;

	/* this snapshot's bytes, core by core, and /proc at writing time */
	unsigned int nr_cores;
	struct snap_core *cores;
	struct snap_process proc;
	/* --follow: the other processes followed, live or gone, as last read */
	unsigned int nr_more;
	struct snap_process *more;
	/* a fatal snapshot's crash record; valid false when none */
	struct snap_crash crash;
};

#endif /* PTBPF_SNAPSHOT_H */
