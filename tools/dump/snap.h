/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptbpf-dump's view of one snapshot directory, read back from the files
 * ptbpf wrote: ptbpf.json (always), perf.data (every backend unless
 * --format lldb), trace.json and cpus/ (intel-pt unless --format perf).
 *
 * Every file is untrusted input. Loading never stops at the first problem:
 * each one is reported through a struct dump_log, naming the file (and the
 * byte offset where it applies), and what could be read is kept, so the
 * summary still shows the rest. A loaded snapshot owns all its memory.
 *
 * This is the model and its files' reading; which files are read is
 * load.h's, ptbpf.json's and trace.json's parsing snapparse.h's: those ask
 * the backends' table (dumpbe.h), whose parts of the outputs read this
 * model, so the model asks nothing of it.
 */
#ifndef PTBPF_DUMP_SNAP_H
#define PTBPF_DUMP_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "snapdata.h"
#include "snapcause.h"

struct dump_uwctx;

/* Where problems go: "ptbpf-dump: FILE: offset 0xN: why" lines, counted. */
struct dump_log {
	FILE *err; /* NULL: count only */
	unsigned int nr_errors;
};

/*
 * Reports one problem with @file (NULL: none) at byte offset @off (-1:
 * none) to @log, printf-style, and counts it.
 */
void snap_error(struct dump_log *log, const char *file, int64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A context switch on one core, reduced to who runs after it. */
struct dump_switch {
	uint64_t time; /* perf clock ns */
	int32_t pid, tid; /* the task on the core after the switch; -1: unknown */
	bool out; /* PERF_RECORD_MISC_SWITCH_OUT */
	/* an ITRACE_START: the thread PT started in, not a switch */
	bool start;
};

struct dump_sample {
	uint64_t ip, time;
	uint32_t pid, tid;
	/*
	 * PERF_SAMPLE_CALLCHAIN as the kernel wrote it (context markers
	 * included), inside the snapshot's perf_buf: read it through
	 * perfread_sample_stack(). NULL when the sample has none.
	 */
	const uint8_t *chain;
	uint32_t nr_chain;
	/*
	 * PERF_SAMPLE_REGS_USER and STACK_USER (--call-graph dwarf, the crash
	 * record), inside perf_buf: the registers in the bit order of
	 * regs_mask (perf's numbering), and the stack bytes copied from the
	 * stack pointer up. NULL when the sample has none.
	 */
	const uint8_t *regs;
	uint64_t regs_mask;
	const uint8_t *stack;
	uint64_t stack_len;
	struct dump_uwctx *uw; /* its snapshot's unwinder (unwind.h) */
};

struct dump_module {
	char *path;
	uint64_t load; /* address of file offset 0 */
};

/* An executable mapping without a file: "[vdso]", "[uprobes]" */
struct dump_range {
	uint64_t start, end;
	char name[16];
};

struct dump_core {
	int cpu;
	uint64_t bytes, sideband_bytes, lost_bytes; /* as ptbpf.json says */
	bool wrapped;
	bool sb_wrapped; /* switch records were overwritten */
	uint64_t sb_lost_bytes;
	/*
	 * intel-pt, ptbpf.json's "aux": PT sessions of the window the kernel
	 * marked truncated, collided, partial; PT records it dropped.
	 */
	uint64_t aux_truncated, aux_collision, aux_partial, aux_records_lost;
	bool in_meta; /* ptbpf.json lists this core */
	const uint8_t *trace; /* intel-pt: the PT bytes */
	size_t trace_len;
	char trace_file[64]; /* where they came from, for messages */
	uint64_t trace_off; /* their offset in that file */
	uint8_t *trace_own; /* when read from cpus/, mapped here */
	size_t trace_own_len;
	struct dump_switch *sw; /* in time order */
	size_t nr_sw;
	size_t nr_starts; /* of them, ITRACE_STARTs */
	struct dump_sample *samples;
	size_t nr_samples;
};

struct dump_thread {
	uint32_t tid;
	char comm[16];
};

/*
 * One process of the run as the snapshot holds it: the target
 * (ptbpf.json's "process") or one it followed ("followed"), with its
 * threads, and the code its MMAP2 records in perf.data map (or trace.json
 * for the process the snapshot is read as): each process's own, since a
 * followed process may run another program, or the same at other
 * addresses.
 */
struct dump_proc {
	uint32_t pid;
	char comm[16];
	struct dump_thread *threads;
	unsigned int nr_threads;
	struct dump_module *modules;
	unsigned int nr_modules;
	struct dump_range *ranges;
	unsigned int nr_ranges;
	/*
	 * ptbpf.json's word on its [vdso]: SNAPFMT_VDSO when the snapshot's
	 * image is it, else why none is (a 32-bit program's); "": nothing said
	 * (no [vdso], or an older ptbpf).
	 */
	char vdso[96];
};

struct dump_snap {
	char *dir;
	uint64_t id;
	enum ptbpf_backend backend;
	/* the cause as named (a newer ptbpf's unknown kind is still shown) */
	char cause[16], signal[16];
	enum snap_cause_kind cause_kind; /* read from @cause once, compared */
	uint64_t cause_ts;
	/* what the cause was; absent (0, "") in older ptbpf.json files */
	char stop_kind[24];
	uint32_t cause_tid;
	bool has_si_code;
	int si_code;
	uint64_t ip; /* the stop's user IP, or the faulting one; 0: none */
	bool has_addr;
	uint64_t addr; /* the fault address, when has_addr */
	uint64_t folded_stops;
	uint64_t folded_hits; /* --trigger-on hits folded in */
	uint64_t realtime_ns, monotonic_ns; /* the clock pair; 0: none */
	uint64_t run_start_ns; /* CLOCK_MONOTONIC of the run's start; 0: none */
	/*
	 * The process the snapshot is read as: the cause's (cause_pid)
	 * in a --follow run, else the run's target (run_pid); followed: the
	 * other processes the run followed, whose samples are not "others".
	 */
	uint32_t pid;
	char comm[16];
	uint32_t run_pid;
	uint32_t *followed;
	unsigned int nr_followed;
	uint32_t cause_pid; /* ptbpf.json's, 0 when it has none */
	struct snap_tsc_conv conv;
	struct snap_cpu_info cpu;
	uint64_t pt_config; /* the intel_pt attr config */
	uint64_t sample_period; /* from perf.data's attr; 0: unknown */
	bool sample_freq; /* sample_period is a frequency (attr.freq) */
	bool has_perf, has_lldb; /* perf.data / trace.json were read */
	bool full; /* ptbpf.json "full": whole buffers, not a stream */
	/* perf.data CLOCK_DATA: the data clock next to the time of day */
	bool has_tod;
	uint64_t tod_ns, tod_clock_ns;
	unsigned int nr_cores;
	struct dump_core *cores;
	/* every process of the run the snapshot knows of, in file order */
	unsigned int nr_procs;
	struct dump_proc *procs;
	/*
	 * Those of the process read as (pid): views of its procs[] entry,
	 * never owned (snap_read_as() points them at another's).
	 */
	unsigned int nr_threads;
	struct dump_thread *threads;
	unsigned int nr_modules;
	struct dump_module *modules;
	unsigned int nr_ranges;
	struct dump_range *ranges;
	const char *vdso; /* its dump_proc's vdso; "" when none */
	/*
	 * The vDSO image the snapshot holds (SNAPFMT_VDSO), for the [vdso] of
	 * each process whose it is: ptbpf.json's "vdso" says it is there and
	 * its size (vdso_saved); vdso_path is set once the file was found so
	 * (NULL: none, as in older snapshots).
	 */
	bool vdso_saved;
	uint64_t vdso_bytes;
	char *vdso_path;
	/*
	 * A fatal snapshot's crash record: perf.data's sample of the crash
	 * event (registers and stack at the fault), and ptbpf.json's facts
	 * about it. has_crash false when there is none.
	 */
	bool has_crash;
	/*
	 * The unwinder of the samples with registers (unwind.h), made by
	 * perfread.c at the first one, and the function that releases it:
	 * snap_free() calls that, so the snapshot owns its unwinder without
	 * depending on unwind.c, which depends on it.
	 */
	struct dump_uwctx *uw;
	void (*uw_free)(struct dump_uwctx *uw);
	struct dump_sample crash;
	char crash_at[16]; /* "fault" or "delivery" */
	uint64_t crash_capture_ns, crash_stack_asked;
	uint8_t *perf_buf; /* perf.data, which cores' traces point into */
	size_t perf_len;
	bool perf_mapped; /* snap_map_file()'s, else malloc'd */
};

/* Whether process @pid was traced in @s's run (the target, or followed). */
bool snap_followed(const struct dump_snap *s, uint32_t pid);

/* Releases what @s owns and zeroes it; NULL is fine. */
void snap_free(struct dump_snap *s);

/* Process @pid of @s, or NULL when @s knows nothing of it. */
const struct dump_proc *snap_proc_find(const struct dump_snap *s, uint32_t pid);

/* Process @pid of @s, added (empty) when missing; NULL when out of memory. */
struct dump_proc *snap_proc_get(struct dump_snap *s, uint32_t pid);

/*
 * Reads @s as process @pid from now on: its samples are the target's,
 * its name, threads, modules and ranges those of @s (empty when @s knows
 * nothing of it). A copy of @s (a struct assignment) may be read as
 * another process than @s itself: the views are the only change, and
 * the copy is not to be freed.
 */
void snap_read_as(struct dump_snap *s, uint32_t pid);

/* Core @cpu of @s, added when missing; NULL when out of memory. */
struct dump_core *snap_find_core(struct dump_snap *s, int cpu);

/* perf time (ns) of TSC @tsc with @c; @tsc itself when @c is not valid. */
uint64_t snap_tsc_to_ns(const struct snap_tsc_conv *c, uint64_t tsc);

/*
 * The task running on @core at perf time @t, from its switch records:
 * sets *@pid and *@tid (-1 when unknown: before the first record).
 */
void snap_core_task(const struct dump_core *core, uint64_t t, int32_t *pid, int32_t *tid);

/* The comm of thread @tid of the target, or "" when unknown. */
const char *snap_thread_comm(const struct dump_snap *s, uint32_t tid);

/*
 * The most the reader takes of a file, by kind: a snapshot's JSON
 * (ptbpf.json, trace.json: a few KiB per thread and module), an output
 * directory's events.jsonl, and the binary files (perf.data, cpus/),
 * which are mapped, not read. A larger file is refused with one line.
 */
#define SNAP_JSON_MAX (64ULL << 20)
#define SNAP_EVENTS_MAX (1ULL << 30)
#define SNAP_DATA_MAX (1ULL << 40)

/* Past every errno: "not a regular file" (a FIFO, a socket, a device) */
#define SNAP_ENOTREG 4096

/*
 * Reads the whole file @path, a regular file of at most @max bytes, into a
 * malloc'd buffer (*@buf, *@len); a NUL follows the bytes (not counted).
 * Neither a FIFO nor a device is opened for long (O_NONBLOCK) or read.
 *
 * Returns 0, -SNAP_ENOTREG when @path is not a regular file, -EISDIR, -EFBIG
 * when it is larger than @max, -ENOMEM, or the -errno of open or read.
 */
int snap_read_file(const char *path, uint64_t max, uint8_t **buf, size_t *len);

/*
 * As snap_read_file(), mapped read-only instead (no NUL; NULL and 0 for an
 * empty file): only the pages read cost memory. Release with
 * snap_unmap_file().
 */
int snap_map_file(const char *path, uint64_t max, uint8_t **buf, size_t *len);
void snap_unmap_file(uint8_t *buf, size_t len);

/* What a snap_read_file() or snap_map_file() error says, for a message. */
const char *snap_file_error(int ret);

#endif /* PTBPF_DUMP_SNAP_H */
