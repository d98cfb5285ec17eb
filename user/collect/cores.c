// SPDX-License-Identifier: GPL-2.0
/*
 * Per-core traces: opening what the plan (coreplan.h) says, collection
 * state and pause-during-read. See cores.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "base/clock.h"
#include "coreplan.h"
#include "cores.h"
#include "cpuinfo.h"
#include "cpupresent.h"
#include "cpurun.h"
#include "cyclic.h"
#include "base/errbuf.h"
#include "ptrecs.h"

/* Process scope: one more thread's events on a core, output redirected. */
struct thread_group {
	int data_fd, sb_fd; /* -1: none */
	struct auxact_fds act; /* --trigger-on: aux_pause/aux_resume events */
};

struct core {
	int cpu;
	int data_fd, sb_fd; /* -1: none; the events that own the rings */
	struct auxact_fds act; /* --trigger-on: aux_pause/aux_resume events */
	struct thread_group *extra; /* process scope: the other threads */
	unsigned int nr_extra, cap_extra;
	enum core_state state;
	__u64 data_id, sb_id;
	struct perf_event_mmap_page *data_page, *sb_page;
	size_t data_map_len, sb_map_len;
	void *aux; /* intel-pt: the AUX area, read-only */
	struct cyclic_aux aux_state;
	uint64_t data_prev, sb_prev; /* data_head at the last read */
	struct ptrecs_cpu on_cpu; /* the thread the CPU runs, at the last read */
	struct ptrecs_hist hist; /* --full: the CPU's steps (ptrecs.h); lazily */
	/*
	 * intel-pt: the PT event's records drained from its ring since the
	 * last read and kept (keep_rec()), plan.rec_size bytes at most; how
	 * many found no room there.
	 */
	uint8_t *kept;
	size_t kept_len;
	uint64_t kept_dropped;
	int toggle_rc; /* parallel toggles: this core's result and message */
	char toggle_err[160];
};

struct cores {
	const struct perf_sys_ops *sys;
	struct coreplan plan; /* scope, backend, attrs, sizes */
	bool offcpu; /* process scope: no target thread can run */
	/* intel-pt, process scope: the groups cut PT at --trigger-on hits */
	bool aux_pause;
	__u32 uprobe_type;
	const struct hitpoint *pause_points;
	unsigned int nr_pause_points;
	/*
	 * cpu and cgroup scope: one thread pinned to each traced CPU toggles
	 * that CPU's events locally (cpurun.h); NULL: serial, from the caller.
	 */
	struct cpurun *run;
	enum core_state run_state; /* what the current parallel call sets */
	unsigned int nr;
	struct core *core;
	char err[256];
};

static int map_core(struct cores *c, struct core *core, char *err, size_t errlen)
{
	bool pt = c->plan.ops->aux;
	size_t data = pt ? c->plan.rec_size : c->plan.buf_size;
	int rc;

	/*
	 * intel-pt: the metadata page and the ring of the PT event's own
	 * records, writable so aux_offset/aux_size can be set and the kernel
	 * keeps the records until read (a ring of no data pages drops them:
	 * ITRACE_START, AUX). sample: the data ring, read-only
	 * (write_backward overwrite).
	 */
	core->data_map_len = c->plan.page_size + data;
	rc = perf_sys_map_ring(c->sys, core->data_fd, core->cpu, c->plan.page_size, data, pt,
			       &core->data_page, err, errlen);
	if (rc)
		return rc;
	if (pt) {
		rc = perf_sys_map_aux(c->sys, core->data_fd, core->cpu, core->data_page,
				      c->plan.buf_size, &core->aux, err, errlen);
		if (rc)
			return rc;
		cyclic_aux_init(&core->aux_state, core->aux, c->plan.buf_size);
		core->kept = malloc(c->plan.rec_size);
		if (!core->kept)
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	}
	core->sb_map_len = c->plan.page_size + c->plan.sb_size;
	return perf_sys_map_ring(c->sys, core->sb_fd, core->cpu, c->plan.page_size, c->plan.sb_size,
				 false, &core->sb_page, err, errlen);
}

/*
 * --trigger-on points cut by the kernel: intel-pt in process scope, where
 * the groups are the target's own (a CPU-wide uprobe event would pause
 * PT at any process's hit).
 */
static void pick_actions(struct cores *c, const struct cores_config *cfg)
{
	c->aux_pause = false;
	if (!cfg->nr_pause_points || !c->plan.ops->aux || c->plan.scope != SCOPE_PROCESS)
		return;
	if (cfg->nr_pause_points > AUXACT_MAX_POINTS) {
		corecfg_report(cfg, "--trigger-on: more than 8 points: snapshots are "
				    "staged when the hit is seen, not cut by the kernel");
		return;
	}
	if (auxact_uprobe_type(cfg->sysfs_root, &c->uprobe_type)) {
		corecfg_report(cfg, "--trigger-on: no uprobe PMU in sysfs: snapshots "
				    "are staged when the hit is seen");
		return;
	}
	c->aux_pause = true;
	c->pause_points = cfg->pause_points;
	c->nr_pause_points = cfg->nr_pause_points;
}

/*
 * The --trigger-on pause events of one group. The first group is the
 * probe: a kernel or PMU without aux-action refuses it, and then no group
 * has them (said once); a later refusal is an error.
 */
static int open_actions(struct cores *c, const struct cores_config *cfg, int cpu, pid_t pid,
			int leader_fd, struct auxact_fds *f, bool first, char *err, size_t errlen)
{
	char why[160];
	int rc;

	f->n = 0;
	if (!c->aux_pause)
		return 0;
	rc = auxact_open(c->sys, c->uprobe_type, c->pause_points, c->nr_pause_points,
			 &c->plan.data_attr, leader_fd, cpu, pid, f, why, sizeof(why));
	if (!rc)
		return 0;
	if (!first)
		return errbuf_set(err, errlen, rc, "%s", why);
	c->aux_pause = false;
	corecfg_report(cfg,
		       "--trigger-on: no aux-action here (%s): snapshots are staged "
		       "when the hit is seen, not cut by the kernel",
		       strerror(-rc));
	return 0;
}

/*
 * Whether a data event's group that should run at once (@running) is
 * opened disabled and enabled by an ioctl once its rings are in place:
 * an AUX backend's always. The kernel's pt_event_start() can't start PT
 * before the AUX area is mapped in the event's ring (perf_aux_output_begin()
 * finds none), so a group opened enabled fails to schedule in and is tried
 * again only at its next schedule-in or rotation: PT would start late,
 * and each try writes an ITRACE_START (perf_log_itrace_start()).
 */
static bool enable_late(const struct cores *c, bool running)
{
	return running && c->plan.ops->aux;
}

/* Open @core; 1 when its CPU turned out to be offline (skip it). */
static int open_core(struct cores *c, const struct cores_config *cfg, struct core *core, char *err,
		     size_t errlen)
{
	struct perf_event_attr da = c->plan.data_attr, sa = c->plan.sb_attr;
	bool late = enable_late(c, !da.disabled);
	int rc;

	if (late)
		da.disabled = sa.disabled = 1;
	/*
	 * Armed for the exec: the switch event too, though the plan (and
	 * perf.data) has it enabled behind its disabled leader. Switch
	 * records are side-band records, which reach every enabled event
	 * whatever its leader's state (perf_iterate_sb() visits state
	 * INACTIVE and above): an enabled member would record the held
	 * child's switches before its exec.
	 */
	if (da.enable_on_exec) {
		sa.disabled = 1;
		sa.enable_on_exec = 1;
	}
	rc = perf_sys_open(c->sys, &da, core->cpu, c->plan.pid, -1, c->plan.flags, err, errlen);
	if (rc == -ENODEV || rc == -ENOENT)
		return 1;
	if (rc == -EINVAL) {
		cpupresent_missing(cfg->sysfs_root, core->cpu, err, errlen);
		return -EINVAL;
	}
	if (rc < 0)
		return rc;
	core->data_fd = rc;
	/* in the data event's group: one ioctl switches both */
	rc = perf_sys_open(c->sys, &sa, core->cpu, c->plan.pid, core->data_fd, c->plan.flags, err,
			   errlen);
	if (rc == -ENODEV || rc == -ENOENT)
		return 1;
	if (rc < 0)
		return rc;
	core->sb_fd = rc;
	rc = open_actions(c, cfg, core->cpu, c->plan.pid, core->data_fd, &core->act,
			  core == c->core, err, errlen);
	if (rc)
		return rc;
	rc = map_core(c, core, err, errlen);
	if (!rc)
		rc = perf_sys_id(c->sys, core->data_fd, core->cpu, &core->data_id, err, errlen);
	if (!rc)
		rc = perf_sys_id(c->sys, core->sb_fd, core->cpu, &core->sb_id, err, errlen);
	if (!rc && late)
		rc = perf_sys_enable(c->sys, core->data_fd, core->cpu, true, err, errlen);
	return rc;
}

static void close_core(struct cores *c, struct core *core)
{
	if (core->aux)
		perf_sys_unmap(c->sys, core->aux, c->plan.buf_size, core->cpu, NULL, 0);
	if (core->data_page)
		perf_sys_unmap(c->sys, core->data_page, core->data_map_len, core->cpu, NULL, 0);
	if (core->sb_page)
		perf_sys_unmap(c->sys, core->sb_page, core->sb_map_len, core->cpu, NULL, 0);
	core->aux = NULL;
	core->data_page = core->sb_page = NULL;
	free(core->kept);
	core->kept = NULL;
	ptrecs_hist_free(&core->hist);
	auxact_close(c->sys, &core->act);
	while (core->nr_extra) {
		struct thread_group *group = &core->extra[--core->nr_extra];

		auxact_close(c->sys, &group->act);
		perf_sys_close(c->sys, &group->sb_fd);
		perf_sys_close(c->sys, &group->data_fd);
	}
	free(core->extra);
	core->extra = NULL;
	core->cap_extra = 0;
	perf_sys_close(c->sys, &core->sb_fd);
	perf_sys_close(c->sys, &core->data_fd);
}

static struct core *new_core(struct cores *c, int cpu, bool running)
{
	struct core *core = &c->core[c->nr];

	memset(core, 0, sizeof(*core));
	core->cpu = cpu;
	core->data_fd = core->sb_fd = -1;
	core->state = running ? CORE_RUNNING : CORE_PAUSED;
	return core;
}

static int open_all(struct cores *c, const struct cores_config *cfg, const int *cpus,
		    unsigned int n, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		struct core *core = new_core(c, cpus ? cpus[i] : (int)i,
					     coreplan_starts_running(&c->plan, cfg));

		rc = cpupresent_offline(cfg->sysfs_root, core->cpu) ?
			     1 :
			     open_core(c, cfg, core, err, errlen);
		if (rc == 1) {
			close_core(c, core);
			corecfg_report(cfg, "cpu %d is offline: not traced", core->cpu);
			continue;
		}
		c->nr++;
		if (rc < 0)
			return rc;
	}
	if (!c->nr)
		return errbuf_set(err, errlen, -ENODEV, "no CPU could be traced");
	return 0;
}

static bool cpus_valid(const struct cores_config *cfg)
{
	unsigned int i;

	for (i = 0; cfg->cpus && i < cfg->nr_cpus; i++)
		if (cfg->cpus[i] < 0)
			return false;
	return true;
}

/* One more thread's group on @core, output into the core's rings. */
static int add_group(struct cores *c, struct core *core, pid_t tid, char *err, size_t errlen)
{
	struct perf_event_attr da = c->plan.data_attr, sa = c->plan.sb_attr;
	struct thread_group group = { -1, -1, { .n = 0 } };
	bool running = core->state == CORE_RUNNING, late = enable_late(c, running);
	int rc;

	if (core->nr_extra == core->cap_extra) {
		unsigned int cap = core->cap_extra ? 2 * core->cap_extra : 8;
		void *p = realloc(core->extra, cap * sizeof(*core->extra));

		if (!p)
			return errbuf_set(err, errlen, -ENOMEM, "out of memory");
		core->extra = p;
		core->cap_extra = cap;
	}
	/* once its output goes into the core's rings (enable_late()) */
	da.disabled = sa.disabled = !running || late;
	da.enable_on_exec = sa.enable_on_exec = 0;
	rc = perf_sys_open(c->sys, &da, core->cpu, tid, -1, 0, err, errlen);
	if (rc < 0)
		return rc;
	group.data_fd = rc;
	rc = perf_sys_open(c->sys, &sa, core->cpu, tid, group.data_fd, 0, err, errlen);
	if (rc >= 0) {
		group.sb_fd = rc;
		rc = perf_sys_set_output(c->sys, group.data_fd, core->data_fd, core->cpu, err,
					 errlen);
	}
	if (!rc)
		rc = perf_sys_set_output(c->sys, group.sb_fd, core->sb_fd, core->cpu, err, errlen);
	if (!rc)
		rc = open_actions(c, NULL, core->cpu, tid, group.data_fd, &group.act, false, err,
				  errlen);
	if (!rc && late)
		rc = perf_sys_enable(c->sys, group.data_fd, core->cpu, true, err, errlen);
	if (rc < 0) {
		auxact_close(c->sys, &group.act);
		perf_sys_close(c->sys, &group.sb_fd);
		perf_sys_close(c->sys, &group.data_fd);
		return rc;
	}
	core->extra[core->nr_extra++] = group;
	return 0;
}

/* Thread @tid on every core; a thread gone half-way is removed again. */
static int add_thread(struct cores *c, pid_t tid, char *err, size_t errlen)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < c->nr && !rc; i++)
		rc = add_group(c, &c->core[i], tid, err, errlen);
	if (rc == -ESRCH) {
		while (i-- > 1) {
			struct core *core = &c->core[i - 1];
			struct thread_group *group = &core->extra[--core->nr_extra];

			auxact_close(c->sys, &group->act);
			perf_sys_close(c->sys, &group->sb_fd);
			perf_sys_close(c->sys, &group->data_fd);
		}
	}
	return rc;
}

int cores_add_thread(struct cores *c, pid_t tid)
{
	if (!c || tid <= 0)
		return -EINVAL;
	if (c->plan.scope != SCOPE_PROCESS)
		return errbuf_set(c->err, sizeof(c->err), -EINVAL,
				  "threads are added in process scope only");
	return add_thread(c, tid, c->err, sizeof(c->err));
}

void cores_set_offcpu(struct cores *c, bool off)
{
	if (c && c->plan.scope == SCOPE_PROCESS)
		c->offcpu = off;
}

enum ptbpf_scope cores_scope(const struct cores *c)
{
	return c ? c->plan.scope : SCOPE_CPU;
}

unsigned long cores_event_count(const struct cores *c)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; c && i < c->nr; i++) {
		const struct core *core = &c->core[i];
		unsigned int j;

		n += 2 + core->act.n + 2UL * core->nr_extra;
		for (j = 0; j < core->nr_extra; j++)
			n += core->extra[j].act.n;
	}
	return n;
}

int cores_sample_ns(const struct cores *c, uint64_t *ns)
{
	unsigned int i, j;
	__u64 v;
	int rc;

	if (!c || !ns)
		return -EINVAL;
	if (!c->plan.ops->samples)
		return -ENOENT;
	*ns = 0;
	for (i = 0; i < c->nr; i++) {
		const struct core *core = &c->core[i];

		for (j = 0; j <= core->nr_extra; j++) {
			int fd = j ? core->extra[j - 1].data_fd : core->data_fd;

			rc = perf_sys_read(c->sys, fd, &v);
			if (rc)
				return rc;
			*ns += v;
		}
	}
	return 0;
}

int cores_set_rate(struct cores *c, unsigned int hz)
{
	unsigned int i, j;
	int rc;

	if (!c || !hz)
		return -EINVAL;
	if (!c->plan.ops->samples)
		return -ENOENT;
	for (i = 0; i < c->nr; i++) {
		struct core *core = &c->core[i];

		for (j = 0; j <= core->nr_extra; j++) {
			int fd = j ? core->extra[j - 1].data_fd : core->data_fd;

			rc = perf_sys_period(c->sys, fd, 1000000000ULL / hz);
			if (rc)
				return errbuf_set(c->err, sizeof(c->err), rc,
						  "PERF_EVENT_IOC_PERIOD on cpu %d", core->cpu);
		}
	}
	c->plan.data_attr.sample_freq = hz;
	return 0;
}

const char *cores_sampling(const struct cores *c)
{
	if (!c || !c->plan.ops->samples)
		return NULL;
	switch (c->plan.scope) {
	case SCOPE_PROCESS:
		return "per-thread";
	case SCOPE_CGROUP:
		return "cgroup";
	default:
		return "per-cpu";
	}
}

bool cores_aux_pause(const struct cores *c)
{
	return c && c->aux_pause;
}

/*
 * A thread per traced CPU for the toggles of cpu and cgroup scope, whose
 * events are per-CPU: from their own CPU an ioctl is a direct call. Task
 * events (process scope) are switched on whatever CPU the task is on: no
 * gain there, and their toggles are rare (a fatal signal, a read while the
 * target runs).
 */
static int start_run(struct cores *c, const struct cores_config *cfg, char *err, size_t errlen)
{
	int *cpus = calloc(c->nr, sizeof(*cpus));
	unsigned int i;

	if (!cpus)
		return errbuf_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < c->nr; i++)
		cpus[i] = c->core[i].cpu;
	/* the control thread's priority: toggles must not wait for a slice */
	c->run = cpurun_start(cpus, c->nr, cfg->parallel_rt_prio, err, errlen);
	free(cpus);
	return c->run ? 0 : -errno;
}

struct cores *cores_open(const struct cores_config *cfg, const struct perf_sys_ops *sys, char *err,
			 size_t errlen)
{
	unsigned int n, i;
	struct cores *c;
	int rc;

	if (!cfg || (cfg->cpus && !cfg->nr_cpus) || !cpus_valid(cfg)) {
		errbuf_set(err, errlen, 0, "no CPU, or a negative CPU, to trace");
		errno = EINVAL;
		return NULL;
	}
	n = cfg->cpus ? cfg->nr_cpus : (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	c = calloc(1, sizeof(*c));
	if (c)
		c->core = calloc(n, sizeof(*c->core));
	if (!c || !c->core) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->sys = sys ? sys : &perf_sys_real;
	rc = coreplan_make(cfg, (size_t)sysconf(_SC_PAGESIZE),
			   cpupresent_count_online(cfg->sysfs_root, cfg->cpus, n), &c->plan, err,
			   errlen);
	if (!rc)
		pick_actions(c, cfg);
	if (!rc)
		rc = open_all(c, cfg, cfg->cpus, n, err, errlen);
	if (!rc && cfg->parallel && c->plan.scope != SCOPE_PROCESS)
		rc = start_run(c, cfg, err, errlen);
	for (i = 1; !rc && c->plan.scope == SCOPE_PROCESS && i < cfg->nr_tids; i++) {
		rc = add_thread(c, cfg->tids[i], err, errlen);
		if (rc == -ESRCH) /* it exited meanwhile: nothing to trace */
			rc = 0;
	}
	if (rc) {
		cores_close(c);
		errno = -rc;
		return NULL;
	}
	return c;
}

void cores_close(struct cores *c)
{
	unsigned int i;

	if (!c)
		return;
	cpurun_stop(c->run);
	for (i = 0; i < c->nr; i++)
		close_core(c, &c->core[i]);
	free(c->core);
	free(c);
}

unsigned int cores_count(const struct cores *c)
{
	return c ? c->nr : 0;
}

enum ptbpf_backend cores_backend(const struct cores *c)
{
	return c ? c->plan.backend : BACKEND_AUTO;
}

size_t cores_buffer_size(const struct cores *c)
{
	return c ? c->plan.buf_size : 0;
}

size_t cores_sideband_size(const struct cores *c)
{
	return c ? c->plan.sb_size + c->plan.rec_size : 0;
}

const struct perf_event_attr *cores_data_attr(const struct cores *c)
{
	return c ? &c->plan.data_attr : NULL;
}

const struct perf_event_attr *cores_sideband_attr(const struct cores *c)
{
	return c ? &c->plan.sb_attr : NULL;
}

const char *cores_last_error(const struct cores *c)
{
	return c ? c->err : "";
}

int cores_info(const struct cores *c, unsigned int idx, int *cpu, uint64_t *data_id,
	       uint64_t *sb_id)
{
	if (!c || idx >= c->nr)
		return -EINVAL;
	if (cpu)
		*cpu = c->core[idx].cpu;
	if (data_id)
		*data_id = c->core[idx].data_id;
	if (sb_id)
		*sb_id = c->core[idx].sb_id;
	return 0;
}

int cores_tsc_conv(const struct cores *c, struct snap_tsc_conv *conv)
{
	volatile struct perf_event_mmap_page *pg;
	__u32 seq;

	if (!c || !conv || !c->nr)
		return -EINVAL;
	pg = c->core[0].data_page;
	/* The kernel updates these under the page's seqcount `lock`. */
	do {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		conv->valid = pg->cap_user_time_zero;
		conv->time_zero = pg->time_zero;
		conv->time_mult = pg->time_mult;
		conv->time_shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq || (seq & 1));
	return 0;
}

int cores_cpu_info(const struct cores *c, struct snap_cpu_info *info)
{
	if (!c || !info)
		return -EINVAL;
	if (!c->plan.ops->cpu_info)
		return -ENOENT;
	*info = c->plan.cpu_info;
	return 0;
}

int cores_describe(const struct cores *c, struct snap_run *run)
{
	if (!c || !run || !c->nr)
		return -EINVAL;
	run->backend = c->plan.backend;
	run->scope = c->plan.scope;
	run->data_attr = c->plan.data_attr;
	run->sb_attr = c->plan.sb_attr;
	cores_tsc_conv(c, &run->conv);
	memset(&run->cpu_info, 0, sizeof(run->cpu_info));
	cores_cpu_info(c, &run->cpu_info); /* -ENOENT: no part of the backend's */
	cpuinfo_read(NULL, &run->cpu_info); /* left empty if unreadable */
	run->cpu_info.nr_cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	run->cpu_info.nr_cpus_avail = sysconf(_SC_NPROCESSORS_CONF);
	return 0;
}

int cores_state(const struct cores *c, unsigned int idx, enum core_state *state)
{
	if (!c || !state || idx >= c->nr)
		return -EINVAL;
	*state = c->core[idx].state;
	return 0;
}

static int toggle_group(struct cores *c, int fd, int cpu, enum core_state st, char *err,
			size_t errlen)
{
	if (st == CORE_RUNNING)
		return perf_sys_enable(c->sys, fd, cpu, true, err, errlen);
	return perf_sys_disable(c->sys, fd, cpu, true, err, errlen);
}

/*
 * The control path: one ioctl per group (one group per core outside
 * process scope), no allocation, no I/O.
 */
/*
 * What one toggle of @core switches, unit by unit: the group leaders of
 * every thread's group (one unit outside process scope).
 */
static unsigned int nr_units(const struct cores *c, const struct core *core)
{
	return 1 + core->nr_extra;
}

static int unit_fd(const struct cores *c, const struct core *core, unsigned int i)
{
	return i ? core->extra[i - 1].data_fd : core->data_fd;
}

static int set_state(struct cores *c, struct core *core, enum core_state st, char *err,
		     size_t errlen)
{
	unsigned int i, n = nr_units(c, core);
	int rc = 0;

	if (core->state == st)
		return 0;
	/* process scope: every thread's group writes into these rings */
	for (i = 0; !rc && i < n; i++)
		rc = toggle_group(c, unit_fd(c, core, i), core->cpu, st, err, errlen);
	if (!rc) {
		core->state = st;
		return 0;
	}
	/* all or nothing: what was switched goes back (i - 1 failed) */
	for (i--; i-- > 0;)
		toggle_group(c, unit_fd(c, core, i), core->cpu, core->state, NULL, 0);
	return rc;
}

int cores_set_state(struct cores *c, unsigned int idx, enum core_state state)
{
	if (!c || idx >= c->nr || (state != CORE_PAUSED && state != CORE_RUNNING))
		return -EINVAL;
	return set_state(c, &c->core[idx], state, c->err, sizeof(c->err));
}

/* On the thread pinned to core @idx's CPU: its ioctls are local calls. */
static int set_one(void *ctx, unsigned int idx)
{
	struct cores *c = ctx;
	struct core *core = &c->core[idx];

	core->toggle_rc =
		set_state(c, core, c->run_state, core->toggle_err, sizeof(core->toggle_err));
	return core->toggle_rc;
}

static int set_all(struct cores *c, enum core_state st, uint64_t *done_ns)
{
	unsigned int i;
	int rc, first = 0;

	if (!c)
		return -EINVAL;
	if (c->run) {
		c->run_state = st;
		first = cpurun_call(c->run, set_one, c);
		/* the first failing core's message, as the serial path keeps */
		for (i = 0; first && i < c->nr; i++)
			if (c->core[i].toggle_rc) {
				errbuf_set(c->err, sizeof(c->err), 0, "%s", c->core[i].toggle_err);
				break;
			}
		if (done_ns)
			*done_ns = clock_now_ns();
		return first;
	}
	for (i = 0; i < c->nr; i++) {
		/* Keep the first failure's message; later ones are dropped. */
		rc = set_state(c, &c->core[i], st, first ? NULL : c->err, sizeof(c->err));
		if (rc && !first)
			first = rc;
	}
	if (done_ns)
		*done_ns = clock_now_ns();
	return first;
}

int cores_pause_all(struct cores *c, uint64_t *done_ns)
{
	return set_all(c, CORE_PAUSED, done_ns);
}

int cores_resume_all(struct cores *c, uint64_t *done_ns)
{
	return set_all(c, CORE_RUNNING, done_ns);
}

/* "Now" in the data event's clock, for AUXTRACE's reference. */
static uint64_t now_clock(const struct cores *c)
{
#if defined(__x86_64__) || defined(__i386__)
	if (c->plan.ops->tsc)
		return __rdtsc();
#endif
	return clock_now_ns();
}

/*
 * Whether PT record @h (@len bytes of it at hand) is kept for the
 * snapshot: ITRACE_START (the thread at PT's start), LOST, an AUX record
 * with a flag beside OVERWRITE (data lost or cut in that session), any
 * record of another type. A plain AUX record, which the kernel writes at
 * every stop of PT (pt_event_stop() -> perf_aux_output_end(): each
 * switch-out of a target thread in process scope, each pause), only says
 * where the hardware stopped in the AUX area (its offset, the new
 * aux_head), which the read of the AUX area tells as well; in overwrite
 * mode its size is the whole area's, not the session's bytes. Passing
 * over those keeps the store bounded however many switches a window holds.
 */
static bool keep_rec(const struct perf_event_header *h, size_t len)
{
	__u64 v[3];

	if (h->type != PERF_RECORD_AUX || len < sizeof(*h) + sizeof(v))
		return true;
	memcpy(v, h + 1, sizeof(v)); /* aux_offset, aux_size, flags */
	return v[2] & ~(__u64)PERF_AUX_FLAG_OVERWRITE;
}

/*
 * intel-pt: move the records of @core's PT ring into its store, and free
 * the ring of them (data_tail). The ring is writable, so the kernel keeps
 * what ptbpf has not read and drops what does not fit, counting it for a
 * PERF_RECORD_LOST written before the next record that fits
 * (__perf_output_begin(), kernel/events/ring_buffer.c; ring_buffer_init()
 * makes a writable ring not overwrite): draining often is what keeps them.
 */
static void drain_core(struct cores *c, struct core *core)
{
	struct perf_event_mmap_page *pg = core->data_page;
	const uint8_t *ring = (const uint8_t *)pg + c->plan.page_size;
	size_t size = c->plan.rec_size, i, n;
	uint8_t rec[sizeof(struct perf_event_header) + 3 * sizeof(__u64)];
	struct perf_event_header *h = (void *)rec;
	__u64 head, tail;

	if (!pg || !core->kept)
		return;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	/* not what the kernel does (head - tail > size): take nothing */
	while (head - tail <= size && head - tail >= sizeof(*h)) {
		for (i = 0; i < sizeof(*h); i++)
			rec[i] = ring[(tail + i) & (size - 1)];
		if (h->size < sizeof(*h) || h->size > head - tail)
			break;
		n = h->size < sizeof(rec) ? h->size : sizeof(rec);
		for (i = sizeof(*h); i < n; i++)
			rec[i] = ring[(tail + i) & (size - 1)];
		if (!keep_rec(h, n)) {
			tail += h->size;
			continue;
		}
		if (core->kept_len + h->size > size) {
			core->kept_dropped++;
			tail += h->size;
			continue;
		}
		for (i = 0; i < h->size; i++)
			core->kept[core->kept_len + i] = ring[(tail + i) & (size - 1)];
		core->kept_len += h->size;
		tail += h->size;
	}
	/* the copy is done before the kernel may write there again */
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

int cores_drain_records(struct cores *c)
{
	unsigned int i;

	if (!c)
		return -EINVAL;
	if (!c->plan.ops->aux)
		return 0;
	for (i = 0; i < c->nr; i++)
		drain_core(c, &c->core[i]);
	return 0;
}

/*
 * intel-pt: the PT event's records since the last read, drained and kept,
 * into @dst (@cap bytes; the store's size suffices).
 */
static size_t read_ptrec(struct cores *c, struct core *core, uint8_t *dst, size_t cap)
{
	size_t n;

	drain_core(c, core);
	n = core->kept_len <= cap ? core->kept_len : 0;
	if (n)
		memcpy(dst, core->kept, n);
	core->kept_len = 0;
	return n;
}

/*
 * While the core is paused: the raw bytes only. Records of the data rings
 * are put in order by order_rings() once the core runs again.
 */
static void read_rings(struct cores *c, struct core *core, bool full, struct snap_core *out,
		       uint8_t *tbuf, size_t tcap, uint8_t *sbuf, size_t scap)
{
	const uint8_t *sb_ring = (const uint8_t *)core->sb_page + c->plan.page_size;
	struct cyclic_result trace_res, sb_res;
	__u64 head;

	/* The event is disabled: the kernel has written its last head. */
	if (c->plan.ops->aux) {
		head = __atomic_load_n(&core->data_page->aux_head, __ATOMIC_ACQUIRE);
		cyclic_aux_read(&core->aux_state, core->aux, head, full, tbuf, tcap, &trace_res);
	} else {
		head = __atomic_load_n(&core->data_page->data_head, __ATOMIC_ACQUIRE);
		cyclic_backward_take(&core->data_prev,
				     (const uint8_t *)core->data_page + c->plan.page_size,
				     c->plan.buf_size, head, full, tbuf, tcap, &trace_res);
	}
	head = __atomic_load_n(&core->sb_page->data_head, __ATOMIC_ACQUIRE);
	cyclic_backward_take(&core->sb_prev, sb_ring, c->plan.sb_size, head, full, sbuf, scap,
			     &sb_res);
	out->trace = tbuf;
	out->trace_len = trace_res.len;
	out->sideband = sbuf;
	out->sideband_len = sb_res.len;
	out->wrapped = trace_res.wrapped;
	out->lost_bytes = trace_res.lost_bytes;
	out->head = trace_res.head;
	out->sb_wrapped = sb_res.wrapped;
	out->sb_lost_bytes = sb_res.lost_bytes;
	/* after the switch records' room: they are put in order in place */
	out->ptrec = sbuf + c->plan.sb_size;
	if (c->plan.ops->aux && scap >= c->plan.sb_size)
		out->ptrec_len = read_ptrec(c, core, out->ptrec, scap - c->plan.sb_size);
}

/*
 * --full: the steps a CPU's history keeps. A switch record is 32 bytes or
 * more, so they reach back past the oldest the switch ring can hold, whose
 * time a --full window asks about.
 */
static unsigned int hist_cap(const struct cores *c)
{
	return (unsigned int)(c->plan.sb_size / 32) + 64;
}

/*
 * After the read: what the window's PT records say, and the thread each
 * CPU ran when the window began. A window that starts at the last read
 * begins with the thread of the last read, as the records before told.
 * With --full the window reaches back past it, through the switch records
 * still in the ring: it begins with the thread before the oldest of them
 * (the CPU's history). Neither when switch records of the window were lost
 * (the thread may have changed unseen before the trace starts).
 */
static void follow_cpu(struct cores *c, struct core *core, bool full, struct snap_core *out)
{
	__u64 sb_type = c->plan.sb_attr.sample_type, pt_type = c->plan.data_attr.sample_type;
	bool gap = out->sb_wrapped || out->sb_lost_bytes;
	struct ptrecs_cpu start = { 0, 0 };
	__u64 t;

	ptrecs_facts(out);
	/* the kernel's LOST records, and those ptbpf's store had no room for */
	out->ptrec_lost += core->kept_dropped;
	core->kept_dropped = 0;
	/* a --full run's first read holds every record since the start */
	if (full && !core->hist.step && ptrecs_hist_init(&core->hist, hist_cap(c)))
		memset(&core->hist, 0, sizeof(core->hist));
	if (gap && core->hist.step)
		ptrecs_hist_gap(&core->hist);
	if (!full && !gap) {
		start = core->on_cpu;
	} else if (!gap && core->hist.step) {
		if (!ptrecs_first_time(out->sideband, out->sideband_len, sb_type, out->ptrec,
				       out->ptrec_len, pt_type, &t))
			t = ~0ULL;
		if (!ptrecs_hist_before(&core->hist, t, &start))
			start = (struct ptrecs_cpu){ 0, 0 };
	}
	out->start_pid = start.pid;
	out->start_tid = start.tid;
	ptrecs_follow(&core->on_cpu, core->hist.step ? &core->hist : NULL, out->sideband,
		      out->sideband_len, sb_type, out->ptrec, out->ptrec_len, pt_type);
}

/* After the pause: keep the intact records, oldest first. */
static void order_rings(struct cores *c, struct snap_core *out)
{
	struct cyclic_result trace_res = {
		.len = out->trace_len,
		.lost_bytes = out->lost_bytes,
	};
	struct cyclic_result sb_res = {
		.len = out->sideband_len,
		.lost_bytes = out->sb_lost_bytes,
	};

	if (!c->plan.ops->aux) {
		cyclic_backward_done(out->trace, &trace_res);
		out->trace_len = trace_res.len;
		out->lost_bytes = trace_res.lost_bytes;
	}
	cyclic_backward_done(out->sideband, &sb_res);
	out->sideband_len = sb_res.len;
	out->sb_lost_bytes = sb_res.lost_bytes;
}

int cores_read(struct cores *c, unsigned int idx, bool full, struct snap_core *out,
	       uint8_t *trace_buf, size_t trace_cap, uint8_t *sb_buf, size_t sb_cap)
{
	enum core_state was;
	struct core *core;
	uint64_t t0, t_copy;
	int rc;

	if (!c || idx >= c->nr || !out || !trace_buf || !sb_buf)
		return -EINVAL;
	core = &c->core[idx];
	/*
	 * Process scope with no target thread able to run: the kernel took
	 * the events off the CPU with the threads (for intel_pt,
	 * pt_event_del() stopped the trace and published aux_head), so
	 * nothing writes while we copy and no ioctl is needed.
	 */
	was = c->offcpu ? CORE_PAUSED : core->state;
	t0 = clock_now_ns();
	/* A disable makes the CPU flush its packet buffer and the kernel
	 * publish aux_head; nothing is overwritten while we copy. */
	rc = c->offcpu ? 0 : set_state(c, core, CORE_PAUSED, c->err, sizeof(c->err));
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->cpu = core->cpu;
	out->data_id = core->data_id;
	out->sb_id = core->sb_id;
	out->mixed_ids = core->nr_extra > 0;
	t_copy = clock_now_ns();
	read_rings(c, core, full, out, trace_buf, trace_cap, sb_buf, sb_cap);
	out->copy_ns = clock_now_ns() - t_copy;
	out->tsc = now_clock(c);
	rc = c->offcpu ? 0 : set_state(c, core, was, c->err, sizeof(c->err));
	out->paused_ns = was == CORE_RUNNING ? clock_now_ns() - t0 : 0;
	order_rings(c, out);
	if (c->plan.ops->aux)
		follow_cpu(c, core, full, out);
	return rc;
}

int cores_read_unchanged(struct cores *c, unsigned int idx, struct snap_core *out,
			 uint8_t *trace_buf, uint8_t *sb_buf)
{
	struct core *core;

	if (!c || idx >= c->nr || !out || !trace_buf || !sb_buf)
		return -EINVAL;
	core = &c->core[idx];
	memset(out, 0, sizeof(*out));
	out->cpu = core->cpu;
	out->data_id = core->data_id;
	out->sb_id = core->sb_id;
	out->mixed_ids = core->nr_extra > 0;
	out->unchanged = true;
	out->trace = trace_buf;
	out->sideband = sb_buf;
	out->ptrec = sb_buf + c->plan.sb_size;
	/* where the last read ended: the next one starts there */
	out->head = c->plan.ops->aux ? core->aux_state.end : core->data_prev;
	out->tsc = now_clock(c);
	return 0;
}
