/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-core traces: for each traced CPU a data event (the backend's, as
 * its row in backend.h says: a read-only AUX area and a small ring for
 * the event's own ITRACE_START, AUX and LOST records, or samples in a
 * write_backward data ring) and a context-switch sideband event in the
 * same group, so one PERF_IOC_FLAG_GROUP ioctl pauses or resumes both.
 *
 * The scope (scope.h) says what the events count. cpu: every task on the
 * CPU (pid -1); cgroup: a cgroup v2 (PERF_FLAG_PID_CGROUP); process: the
 * target's threads, one group per thread and CPU bound to that thread with
 * inherit=1 and inherit_thread=1, so threads it creates later are counted
 * and forked children are not. The first thread's group on each CPU owns
 * that CPU's rings; the others send their records there with
 * PERF_EVENT_IOC_SET_OUTPUT. In process scope the kernel itself switches the
 * events in and out with the target's threads.
 *
 * Each core has a collection state, Running or Paused, set at open time
 * through attr.disabled. Changing a core to the state it has is a no-op
 * with no system call; a failed ioctl leaves the recorded state as it was.
 * Reads pause the core for the memory copy only, so that the kernel does
 * not write what is being copied, and put the previous state back.
 *
 * Errors: functions return 0 or -errno; cores_open() returns NULL with
 * errno set. A message naming the call and the CPU goes to the caller's
 * buffer at open time, and to cores_last_error() afterwards. Informational
 * lines (backend chosen, size rounded, CPU skipped) go to the config's
 * report hook; this module prints nothing itself.
 */
#ifndef PTBPF_CORES_H
#define PTBPF_CORES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include <linux/perf_event.h>

#include "auxact.h"
#include "corecfg.h"
#include "perf_sys.h"
#include "base/snapshot.h"

enum core_state {
	CORE_PAUSED = 0,
	CORE_RUNNING = 1,
};

struct cores;

/*
 * Open one group of events per CPU of @cfg through @sys (NULL: the real
 * kernel), as coreplan_make() plans them (scope, backend, attrs, sizes).
 * CPUs that are offline (cpupresent.h, or perf_event_open fails with
 * ENODEV or ENOENT) are skipped and reported.
 *
 * Returns NULL with errno set, and a message in @err: EINVAL for a bad
 * argument or a buffer below the backend's least (one PSB period); ENOENT
 * when the backend asked for is missing here (its step's line says why);
 * E2BIG when all buffers together exceed the total limit (says what to
 * lower); ENODEV when no CPU could be traced; ENOMEM; else the errno of
 * the failing call. Everything opened so far is closed again.
 */
struct cores *cores_open(const struct cores_config *cfg, const struct perf_sys_ops *sys, char *err,
			 size_t errlen);

/* Close every descriptor and unmap every ring; NULL is fine. */
void cores_close(struct cores *c);

/* Number of traced cores (0 for NULL). */
unsigned int cores_count(const struct cores *c);
/* The backend in use, resolved (never BACKEND_AUTO); AUTO for NULL. */
enum ptbpf_backend cores_backend(const struct cores *c);
/*
 * Per-core trace and sideband sizes as chosen (0 for NULL). The sideband
 * size is what a read may return besides the trace: the switch ring, and
 * for an AUX backend the ring of the data event's own records after it.
 */
size_t cores_buffer_size(const struct cores *c);
size_t cores_sideband_size(const struct cores *c);
/* The attrs the events were opened with (NULL for NULL). */
const struct perf_event_attr *cores_data_attr(const struct cores *c);
const struct perf_event_attr *cores_sideband_attr(const struct cores *c);
/* The scope the events were opened in (SCOPE_CPU for NULL). */
enum ptbpf_scope cores_scope(const struct cores *c);
/*
 * Whether every AUX group holds the --trigger-on points with aux_pause: a
 * hit stops its CPU's trace in the kernel, at the hit.
 */
bool cores_aux_pause(const struct cores *c);

/* Perf events open (descriptors held), over all cores. */
unsigned long cores_event_count(const struct cores *c);

/*
 * Process scope: bind one more thread @tid (one found after the first scan)
 * on every core, its records going into that core's rings, in the core's
 * current state. Returns 0; -ESRCH when the thread is gone (nothing is
 * kept); -EINVAL outside process scope; else -errno (cores_last_error()
 * says which call).
 */
int cores_add_thread(struct cores *c, pid_t tid);

/*
 * Process scope: the target has no thread that can run (every one stopped,
 * or all exited). The kernel switched the events out with the threads, so
 * reads need no pause: head, barrier, copy. @off false undoes it. Without
 * effect in other scopes, where other tasks write.
 */
void cores_set_offcpu(struct cores *c, bool off);

/*
 * A backend whose records are samples: how long the sampling timers ran,
 * in ns summed over every data event ptbpf holds (the kernel's count of
 * each cpu-clock event, its inherited ones included), into *@ns: a timer
 * runs only while its event is scheduled in, so this is what the
 * collection cost the machine in interrupts, period by period. Returns
 * -ENOENT for a backend without samples, -EINVAL for NULL arguments, else
 * the first read's -errno.
 */
int cores_sample_ns(const struct cores *c, uint64_t *ns);

/*
 * A backend whose records are samples: sample at @hz from now on, on every
 * data event ptbpf holds (PERF_EVENT_IOC_PERIOD). Events the kernel copied
 * into threads that already exist (inherit) keep their period; threads
 * created later copy the new one. Returns -ENOENT for a backend without
 * samples, -EINVAL for a zero @hz, else the first ioctl's -errno
 * (cores_last_error() says which).
 */
int cores_set_rate(struct cores *c, unsigned int hz);

/*
 * How a sampling backend's events sample, for the start event and
 * ptbpf.json: "per-thread" (task-bound, process scope), "cgroup",
 * "per-cpu"; NULL for a backend without samples.
 */
const char *cores_sampling(const struct cores *c);

/* The last error message of a pause, resume or read; "" when none. */
const char *cores_last_error(const struct cores *c);

/*
 * The CPU number and the PERF_EVENT_IOC_ID ids of core @idx; @data_id and
 * @sb_id may be NULL. Returns -EINVAL for a NULL @c or @idx out of range.
 */
int cores_info(const struct cores *c, unsigned int idx, int *cpu, uint64_t *data_id,
	       uint64_t *sb_id);

/*
 * The TSC <-> perf time conversion of the first core's mmap page
 * (cap_user_time_zero: time_zero, time_mult, time_shift), read under the
 * page's seqlock. @conv->valid is false when the kernel does not offer it.
 * Returns -EINVAL for NULL arguments or a set of no core.
 */
int cores_tsc_conv(const struct cores *c, struct snap_tsc_conv *conv);

/*
 * The backend's parts of the CPU info into @info, as its step read them
 * when the cores were planned (backend_ops.cpu_info: the intel_pt PMU's,
 * pmu_cpu_info()), the other fields 0. Returns -ENOENT for a backend
 * without any (@info untouched), -EINVAL for NULL arguments.
 */
int cores_cpu_info(const struct cores *c, struct snap_cpu_info *info);

/*
 * What every snapshot of the run shares, as these cores decide it, into
 * @run: backend, scope, both attrs, the TSC conversion, and the CPU info
 * (the backend's parts, /proc/cpuinfo's processor, the CPU counts). The
 * caller's fields (pid, full, run_start_ns, scope_why) are left alone.
 * Returns -EINVAL for NULL arguments or a set of no core.
 */
int cores_describe(const struct cores *c, struct snap_run *run);

/* The recorded state of core @idx. Returns -EINVAL for bad arguments. */
int cores_state(const struct cores *c, unsigned int idx, enum core_state *state);

/*
 * Set core @idx to @state: one group ioctl, none when it already is.
 * Returns -EINVAL for bad arguments, else -errno of the ioctl (the state
 * is then unchanged and cores_last_error() says why).
 */
int cores_set_state(struct cores *c, unsigned int idx, enum core_state state);

/*
 * Pause (resume) every core: with @parallel, every core at once from its
 * own CPU, else one after the other. For the control path: no allocation,
 * no file I/O, no logging. Tries every core even when one fails. Stores in
 * *@done_ns (may be NULL) the CLOCK_MONOTONIC time after the last ioctl
 * returned. Returns 0, -EINVAL for a NULL @c, or the first ioctl's -errno
 * (cores_last_error() names its CPU).
 */
int cores_pause_all(struct cores *c, uint64_t *done_ns);
int cores_resume_all(struct cores *c, uint64_t *done_ns);

/*
 * Stage core @idx: remember its state, pause it, copy what was recorded
 * since the last read (everything with @full) into @trace_buf (@trace_cap
 * bytes; cores_buffer_size() always suffices) and the sideband records into
 * @sb_buf (@sb_cap bytes; cores_sideband_size() suffices), for an AUX
 * backend the data event's own records (ITRACE_START, AUX, LOST) after
 * them, put the state back. Fills every field of @out: trace, sideband and
 * ptrec point into the caller's buffers; head, wrapped, lost_bytes
 * describe the trace ring; start_pid/start_tid name the thread the CPU ran
 * when the window began (ptrecs.h), the aux_* counts what the records say
 * of it; tsc is "now" in the data event's clock (TSC where backend_ops.tsc,
 * else ns of its clockid); paused_ns is an upper bound of the pause (0 when
 * the core was paused already).
 *
 * Returns -EINVAL for NULL arguments or @idx out of range; -errno when the
 * pause failed (nothing read), or when the restore failed (@out is filled
 * all the same and the core stays paused).
 */
int cores_read(struct cores *c, unsigned int idx, bool full, struct snap_core *out,
	       uint8_t *trace_buf, size_t trace_cap, uint8_t *sb_buf, size_t sb_cap);

/*
 * Fill @out for core @idx as a read that found nothing new, without
 * touching the rings: for a process-scope core the target did not run on
 * since the last read (nothing else writes there). The next cores_read()
 * starts where the last one ended. Returns -EINVAL for bad arguments.
 */
int cores_read_unchanged(struct cores *c, unsigned int idx, struct snap_core *out,
			 uint8_t *trace_buf, uint8_t *sb_buf);

/*
 * An AUX backend: move the records the kernel wrote into each data event's
 * ring since the last drain into the core's store, which the next
 * cores_read() returns (ITRACE_START, LOST, AUX records with flags; plain
 * AUX records are passed over). The ring keeps the oldest records and
 * drops what does not fit, so between reads it is drained every
 * backend_ops.drain_ns; from the thread that reads the cores. Nothing to
 * do for a backend without a records ring. Returns -EINVAL for NULL.
 */
int cores_drain_records(struct cores *c);

#endif /* PTBPF_CORES_H */
