/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A simulated kernel behind struct perf_sys_ops, for tests of cores.c.
 *
 * perf_event_open returns fake descriptors (>= SIM_FD_BASE, never real
 * ones); mmap returns ordinary zeroed memory laid out like the kernel's
 * metadata page, data ring and AUX area. Three kinds of event exist:
 *
 * - intel_pt (attr.type == the type given to sim_pmu_new): sim_pmu_tick()
 *   "runs" its CPU: while the event is enabled it writes real PT packets,
 *   made with libipt's encoder, into the AUX ring at the hardware's own
 *   position, wrapping around; aux_head moves only when the event is
 *   disabled, as the kernel publishes it only then. Overwrite mode only.
 * - cpu-clock (software): sim_pmu_sample() writes a PERF_RECORD_SAMPLE.
 * - dummy with context_switch: sim_pmu_switch() writes a
 *   PERF_RECORD_SWITCH_CPU_WIDE.
 * Records go into write_backward rings as the kernel writes them: data_head
 * counts down, each record is stored below the previous one; other rings
 * are written forward. A ring mapped writable, in either direction, keeps
 * what the reader has not consumed (data_tail) and one byte more free
 * (ring_buffer_has_space()): a record that does not fit is dropped and
 * counted, and a PERF_RECORD_LOST of the count goes before the next one
 * that fits; a read-only ring overwrites. Side-band records of tasks
 * (MMAP, MMAP2, FORK, EXIT, COMM) are described with sim_pmu_mmap() below.
 *
 * Group ioctls (PERF_IOC_FLAG_GROUP) switch the leader and its members; a
 * member counts (writes samples and trace) only while it and its leader
 * are enabled, but side-band records (switches, and those of
 * sim_pmu_mmap()) reach every enabled event, whatever its leader's state.
 * Any call can be made to fail once with sim_pmu_fail(). Every call is
 * counted.
 *
 * Events opened with pid -1 (or a cgroup) are CPU-wide and behave as above.
 * Events opened with a pid > 0 are bound to a simulated task (made with
 * sim_pmu_task() or sim_pmu_clone(); an unknown pid is -ESRCH, as in the
 * kernel) and count only while that task is on their CPU
 * (sim_pmu_sched_in/out), like the kernel's task contexts:
 *
 * - a task-bound intel_pt event is what sim_pmu_tick()/sim_pmu_emit() write
 *   through while its task is on the CPU and it is enabled; at sched-out the
 *   kernel's pt_event_del() -> perf_aux_output_end() publishes aux_head, so
 *   aux_head moves at sched-out as well as at disable;
 * - the intel_pt event's own records go into its ring (after SET_OUTPUT,
 *   the output's), as the kernel writes them: PERF_RECORD_ITRACE_START
 *   at each schedule-in (a task-bound event's task coming on its CPU while
 *   it is enabled, a CPU-wide event's enable) until PT first started
 *   (perf_log_itrace_start(): PERF_ATTACH_ITRACE, checked on an inherited
 *   event's parent, set by pt_config() on the event itself, never
 *   cleared), so at every schedule-in while no AUX area is mapped, where
 *   PT can't start (pt_event_start(): the event writes no trace and ends
 *   no session); PERF_RECORD_AUX at each stop of a started event
 *   (pt_event_stop() -> perf_aux_output_end(), overwrite mode): its offset
 *   the new aux_head (the hardware's position inside the AUX area), its
 *   size the whole AUX area's, whatever the session wrote (none too), its
 *   flags OVERWRITE plus what sim_pmu_aux_flags() set; aux_head is
 *   published after it. Each has the event's sample ID; a ring of no data
 *   pages drops them all, uncounted (rb->paused);
 * - a task-bound context_switch event (enabled, its leader or not) writes
 *   PERF_RECORD_SWITCH (header and sample id only, no next/prev fields) at
 *   its own task's sched-in and sched-out; CPU-wide ones write
 *   PERF_RECORD_SWITCH_CPU_WIDE at every sched-in/out of the CPU, two each
 *   time: the switch-out of the task going and the switch-in of the one
 *   coming, one side idle (pid/tid 0);
 * - records carry the primary id: an inherited event's parent's;
 * - PERF_EVENT_IOC_SET_OUTPUT sends an event's records and AUX data into
 *   another event's rings: -EINVAL unless both are on one CPU, write in the
 *   same direction with the same clock, and the target has a ring; -EBUSY
 *   when the event is mapped itself;
 * - sim_pmu_clone() copies the parent task's inherit events to the child
 *   (with groups and state, each child event writing into its parent
 *   event's rings) only for a thread, or when inherit_thread is 0;
 *   ENABLE/DISABLE of an event also switch the events inherited from it;
 * - sim_pmu_exec() enables the task's enable_on_exec events.
 *
 * aux-action (sim_pmu_set_uprobe()): uprobe events (the uprobe PMU's type,
 * config1 the path, config2 the file offset) and software context-switches
 * events. An event with aux_pause or aux_resume must be in an intel_pt
 * event's group (else -EINVAL, as are both at once, and any aux_action
 * bit on a kernel that predates them). sim_pmu_uprobe_hit() is a hit on a
 * CPU: each uprobe event counting there at that place overflows, and one
 * with aux_pause pauses its PT leader, which then writes nothing (through
 * disable, enable and sched-out: hw.aux_paused) until an aux_resume
 * sibling overflows; context-switches events overflow at their task's
 * sched-out, before the switch-out records (never with exclude_kernel: the
 * kernel counts a switch with kernel registers).
 */
#ifndef PTBPF_SIM_PMU_H
#define PTBPF_SIM_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "collect/perf_sys.h"

#define SIM_FD_BASE 1000
#define SIM_MAX_CPUS 64
#define SIM_MAX_EVENTS 256
#define SIM_MAX_TASKS 64

enum sim_call {
	SIM_OPEN,
	SIM_MMAP,
	SIM_MUNMAP,
	SIM_IOCTL,
	SIM_CLOSE,
	SIM_SET_OUTPUT, /* PERF_EVENT_IOC_SET_OUTPUT */
	SIM_NR_CALLS,
};

struct sim_pmu;

/* A simulated machine of @nr_cpus CPUs whose intel_pt PMU has @pt_type. */
struct sim_pmu *sim_pmu_new(unsigned int nr_cpus, __u32 pt_type);
void sim_pmu_free(struct sim_pmu *sim);
/* The ops table to hand to cores_open(). */
const struct perf_sys_ops *sim_pmu_ops(struct sim_pmu *sim);

/* perf_event_open on @cpu fails with ENODEV, as for an offline CPU. */
void sim_pmu_set_offline(struct sim_pmu *sim, int cpu);
/* A PSB+ every @bytes of trace (default 256). */
void sim_pmu_set_psb_every(struct sim_pmu *sim, size_t bytes);

/*
 * Make the (@skip + 1)-th next @call on @cpu (-1: any CPU) fail with
 * -@err, once. For SIM_IOCTL only ENABLE/DISABLE calls count.
 */
void sim_pmu_fail(struct sim_pmu *sim, enum sim_call call, int cpu, unsigned int skip, int err);

/* Calls made so far, and the descriptors and mappings still open. */
unsigned long sim_pmu_calls(const struct sim_pmu *sim, enum sim_call call);
unsigned int sim_pmu_open_fds(const struct sim_pmu *sim);
unsigned int sim_pmu_mappings(const struct sim_pmu *sim);

/* The pid and flags the last perf_event_open was given. */
void sim_pmu_last_open(const struct sim_pmu *sim, int *pid, unsigned long *flags);

/*
 * Whether @cpu's intel_pt (or cpu-clock) event, the one that owns the
 * rings, is enabled: a CPU-wide one writes now, a task-bound one writes
 * while one of its tasks is on @cpu.
 */
bool sim_pmu_running(const struct sim_pmu *sim, int cpu);

/*
 * Simulated tasks. sim_pmu_task() makes thread @tid of process @pid (a
 * task that events can be bound to; its parent is unknown: 0).
 * sim_pmu_clone() makes @child_tid from @parent_tid: a thread of the same
 * process (@thread) or a forked process of its own; inherit events are
 * copied as described above. sim_pmu_exit() ends a task: its inherited
 * events go, events opened on it stay open but never count again. Return
 * 0, -EEXIST (tid in use), -ESRCH (no such task), -ENOSPC (table full).
 *
 * Side-band records. The kernel writes them for the task that acts, on
 * the CPU it runs on (current): a clone, exit, exec, mmap or rename of a
 * task on a CPU writes what perf_event_fork(), perf_event_exit_task(),
 * perf_event_comm() and perf_event_mmap() write, into every event that
 * perf_iterate_sb() visits and asks for it: the CPU-wide events of that
 * CPU, then the events (inherited ones: into their parent's ring) of the
 * task's own context opened on that CPU; each enabled (its leader's state
 * does not matter), the record with that event's sample ID (of the task
 * that acts) and lost, as any record, when its ring has no room:
 * - FORK (a clone, the parent on a CPU) and EXIT (the task on a CPU:
 *   its context is scheduled out first, its own events get the EXIT,
 *   then the CPU-wide ones, then the CPU switches to idle) to events with
 *   comm, mmap, mmap2, mmap_data or task: pid/tid of the child (of the
 *   one that exits); ppid/ptid the parent's pid/tid for a FORK, the real
 *   parent's pid twice for an EXIT; the event's time; misc 0;
 * - COMM to events with comm: at an exec (misc COMM_EXEC, whatever
 *   attr.comm_exec says, after the enable_on_exec events were enabled)
 *   and at a rename (sim_pmu_comm()); the name cut at 15 bytes;
 * - MMAP (MMAP2 for attr.mmap2) of an executable mapping to events with
 *   mmap or mmap2, of another (misc MMAP_DATA) to events with mmap_data;
 *   misc USER; MMAP2 gives maj, min, ino, ino_generation, or with
 *   attr.build_id and a build ID, misc MMAP_BUILD_ID and the ID instead.
 * A clone, exit or exec of a task that is off-CPU changes the tasks and
 * events alone: it stands for one whose records fell before the rings
 * were read, and writes none.
 */
int sim_pmu_task(struct sim_pmu *sim, __u32 pid, __u32 tid);
int sim_pmu_clone(struct sim_pmu *sim, __u32 parent_tid, __u32 child_tid, bool thread);
int sim_pmu_exit(struct sim_pmu *sim, __u32 tid);
/*
 * Task @tid execs a file whose name is @comm: its enable_on_exec events
 * are enabled, then the COMM. 0, -ESRCH, -EINVAL (NULL @comm).
 */
int sim_pmu_exec(struct sim_pmu *sim, __u32 tid, const char *comm);

/* A mapping made by mmap() (or mprotect() adding PROT_EXEC). */
struct sim_mapping {
	__u64 start, len, pgoff; /* pgoff in bytes, as the record has it */
	__u32 prot, flags; /* PROT_*; MAP_SHARED or MAP_PRIVATE, ... */
	__u32 maj, min; /* the file's device */
	__u64 ino, ino_generation;
	const char *path; /* "//anon", "[heap]", ... for no file */
	const __u8 *build_id; /* the file's, build_id_size (<= 20) bytes */
	__u8 build_id_size;
};
/*
 * The task on @cpu maps @m, or renames itself @comm (prctl PR_SET_NAME).
 * Return how many records were stored, -EINVAL (bad @cpu or
 * argument), -ENAMETOOLONG (a path of PATH_MAX or more), -ESRCH (@cpu is
 * idle).
 */
int sim_pmu_mmap(struct sim_pmu *sim, int cpu, const struct sim_mapping *m);
int sim_pmu_comm(struct sim_pmu *sim, int cpu, const char *comm);
/*
 * The scheduler: put @tid on @cpu (the CPU was idle), take the task on
 * @cpu off it. Switch records are written with the current time, as
 * described above. Return 0; -EINVAL for a bad CPU; -ESRCH for an unknown
 * task or, at sched-out, an idle CPU; -EBUSY when @cpu is busy or @tid
 * runs elsewhere.
 */
int sim_pmu_sched_in(struct sim_pmu *sim, int cpu, __u32 tid);
int sim_pmu_sched_out(struct sim_pmu *sim, int cpu);
/* The tid on @cpu, 0 when idle. */
__u32 sim_pmu_on_cpu(const struct sim_pmu *sim, int cpu);

/*
 * Run @cpu for @nbytes of trace: exactly @nbytes of PT packets go into its
 * AUX ring when an event writes there (a CPU-wide one enabled, or a
 * task-bound one of the task on @cpu). Returns the bytes written (0 when
 * none does), -ENOENT when @cpu has no mapped intel_pt event.
 */
long sim_pmu_tick(struct sim_pmu *sim, int cpu, size_t nbytes);
/*
 * Run @cpu through a known path: the hardware writes exactly the @len PT
 * bytes of @bytes (made by the caller with libipt's encoder) into the AUX
 * ring when an event writes there, as for sim_pmu_tick(). Returns @len, 0
 * when none does, -ENOENT
 * when @cpu has no mapped intel_pt event, -EINVAL for NULL @bytes.
 */
long sim_pmu_emit(struct sim_pmu *sim, int cpu, const void *bytes, size_t len);
/*
 * The next PERF_RECORD_AUX of @cpu's intel_pt ring carries @flags too
 * (PERF_AUX_FLAG_TRUNCATED, _PARTIAL, _COLLISION), as when the hardware
 * stopped or was cut short in that session.
 */
void sim_pmu_aux_flags(struct sim_pmu *sim, int cpu, __u64 flags);
/*
 * @drop: the intel_pt events' records find no room in any ring, as when
 * their ring has no data pages (the tests' control). Default: false.
 */
void sim_pmu_drop_records(struct sim_pmu *sim, bool drop);
/* Total PT bytes the hardware of @cpu has written so far. */
__u64 sim_pmu_written(const struct sim_pmu *sim, int cpu);

/*
 * The uprobe PMU has @type (0: none); @aux_action: the kernel knows
 * attr.aux_action. Default: no uprobe PMU, no aux-action.
 */
void sim_pmu_set_uprobe(struct sim_pmu *sim, __u32 type, bool aux_action);
/*
 * The task on @cpu (or anything, for CPU-wide events) reaches @path at
 * file offset @offset. Returns how many uprobe events fired, -EINVAL.
 */
int sim_pmu_uprobe_hit(struct sim_pmu *sim, int cpu, const char *path, __u64 offset);

/*
 * Returns 1 when a record was written, 0 when disabled, -ENOENT. A sample
 * goes to an enabled CPU-wide cpu-clock event of @cpu with @pid/@tid, else
 * to the enabled event of the task on @cpu with that task's pid/tid; its
 * sample_type of IDENTIFIER, IP, TID, TIME, CPU, CALLCHAIN (a user-mode
 * sample's chain: PERF_CONTEXT_USER and the ip; empty with
 * exclude_callchain_user), else -EOPNOTSUPP: the sim has no user
 * registers or stack to give (--call-graph dwarf). sim_pmu_switch() and sim_pmu_switch_np() write to CPU-wide
 * events only. Switch records carry the sample ID the event's attr asks
 * for (none without sample_id_all), as the kernel's do.
 */
int sim_pmu_sample(struct sim_pmu *sim, int cpu, __u32 pid, __u32 tid, __u64 ip);
int sim_pmu_switch(struct sim_pmu *sim, int cpu, bool out, __u32 pid, __u32 tid);
/* A switch record of @pid/@tid whose next (out) or previous (in) task is
 * @np_pid/@np_tid, as the kernel writes CPU-wide switches. */
int sim_pmu_switch_np(struct sim_pmu *sim, int cpu, bool out, __u32 pid, __u32 tid, __u32 np_pid,
		      __u32 np_tid);
/*
 * The simulated clock: records (samples, switches, PSB TSCs) carry
 * successive times 100 apart; the next one carries @t. It starts past the
 * mmap page's time_zero (123456789), as a host's perf clock does: perf
 * converts a record's time to TSC by subtracting it.
 */
void sim_pmu_set_time(struct sim_pmu *sim, __u64 t);

/*
 * Fake sysfs trees under @root: sim_sysfs_write() creates the parent
 * directories of @rel and writes @text; sim_sysfs_intel_pt() writes a
 * real-looking intel_pt PMU (Skylake formats and caps) of @type;
 * sim_sysfs_remove() removes @root and everything below it.
 * Return 0 or -errno.
 */
int sim_sysfs_write(const char *root, const char *rel, const char *text);
int sim_sysfs_intel_pt(const char *root, __u32 type);
int sim_sysfs_remove(const char *root);

#endif /* PTBPF_SIM_PMU_H */
