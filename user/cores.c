// SPDX-License-Identifier: GPL-2.0
/*
 * Per-core traces: collection state and pause-during-read. See cores.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "cores.h"
#include "cpurun.h"
#include "cyclic.h"
#include "pmu.h"
#include "clock.h"

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
	struct cyc_aux aux_state;
	__u64 data_prev, sb_prev; /* data_head at the last read */
	int toggle_rc; /* parallel toggles: this core's result and message */
	char toggle_err[160];
};

struct cores {
	const struct perf_sys_ops *sys;
	enum ptbpf_backend backend;
	struct perf_event_attr data_attr, sb_attr;
	struct pmu_intel_pt pmu; /* intel-pt only */
	size_t page_size, buf_size, sb_size;
	int pid; /* -1, the cgroup fd, or the first thread */
	unsigned long flags;
	enum ptbpf_scope scope;
	/*
	 * Process scope, sample backend with a filter: cpu-wide cpu-clock
	 * events behind the BPF filter, task-bound sideband events. No group.
	 */
	bool split;
	bool offcpu; /* process scope: no target thread can run */
	/* intel-pt, process scope: the groups cut PT at --trigger-on hits */
	bool aux_pause;
	__u32 uprobe_type;
	const struct auxact_point *pause_points;
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

static int errmsg(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void report(const struct cores_config *cfg, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!cfg->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg->report(cfg->report_ctx, msg);
}

void cores_config_init(struct cores_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->backend = BACKEND_AUTO;
	cfg->cgroup_fd = -1;
	cfg->sample_filter_fd = -1;
}

int cores_round_size(size_t request, size_t page_size, size_t *size)
{
	size_t pages, p = 1;

	if (!request || !page_size || !size)
		return -EINVAL;
	pages = request / page_size + (request % page_size != 0);
	while (p < pages) {
		if (p > ((size_t)-1 / 2) / page_size)
			return -E2BIG;
		p <<= 1;
	}
	*size = p * page_size;
	return 0;
}

/* Human-readable size for messages: "4 MiB", "96 KiB", "100 bytes". */
static const char *human(size_t n, char *buf, size_t len)
{
	if (n >= (1UL << 20) && !(n % (1UL << 20)))
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && !(n % 1024))
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
	return buf;
}

/* The sample event: rate within the kernel's bound, call stacks. */
static int sample_attr(struct cores *c, const struct cores_config *cfg,
		       char *err, size_t errlen)
{
	unsigned int freq;
	int rc;

	if (pmu_sample_freq(cfg->sample_freq, NULL, &freq) > 0)
		report(cfg,
		       "sampling at %u Hz, not %u: kernel.perf_event_max_sample_rate",
		       freq,
		       cfg->sample_freq ? cfg->sample_freq : PMU_SAMPLE_FREQ);
	rc = pmu_sample_attr(&c->data_attr, cfg->kernel, !cfg->start_running,
			     freq);
	if (!rc)
		rc = pmu_sample_callgraph(&c->data_attr, cfg->call_graph,
					  cfg->stack_size, cfg->kernel);
	if (rc)
		return errmsg(
			err, errlen, rc, "--call-graph: %s",
			rc == -EOPNOTSUPP ?
				"dwarf is not known on this architecture" :
				"invalid stack size");
	return 0;
}

/* Choose the backend; for intel-pt, read the PMU and build the attr. */
static int pick_backend(struct cores *c, const struct cores_config *cfg,
			size_t *psb, char *err, size_t errlen)
{
	int rc;

	*psb = 0;
	if (cfg->backend != BACKEND_SAMPLE) {
		rc = pmu_intel_pt_probe(cfg->sysfs_root, &c->pmu, err, errlen);
		if (!rc) {
			c->backend = BACKEND_INTEL_PT;
			report(cfg, "backend: intel-pt");
			return pmu_intel_pt_attr(&c->pmu, cfg->kernel,
						 !cfg->start_running,
						 &c->data_attr, psb, err,
						 errlen);
		}
		if (rc != -ENOENT || cfg->backend == BACKEND_INTEL_PT) {
			if (rc == -ENOENT && err && errlen)
				snprintf(err, errlen,
					 "backend intel-pt: no Intel PT PMU: "
					 "%s not found (use --backend sample)",
					 c->pmu.path);
			return rc;
		}
		report(cfg, "backend: sample (no Intel PT PMU at %s)",
		       c->pmu.path);
	}
	c->backend = BACKEND_SAMPLE;
	return sample_attr(c, cfg, err, errlen);
}

static int pick_sizes(struct cores *c, const struct cores_config *cfg,
		      size_t psb, unsigned int nr_cpus, char *err,
		      size_t errlen)
{
	size_t req = cfg->buffer_size ? cfg->buffer_size : CORES_DEFAULT_BUFFER;
	__u64 limit = cfg->total_limit ? cfg->total_limit :
					 CORES_DEFAULT_TOTAL_LIMIT;
	char a[32], b[32], d[32];
	__u64 total;

	if (cores_round_size(req, c->page_size, &c->buf_size) ||
	    cores_round_size(cfg->sideband_size ? cfg->sideband_size :
						  CORES_DEFAULT_SIDEBAND,
			     c->page_size, &c->sb_size))
		return errmsg(err, errlen, -EINVAL,
			      "buffer size %zu is not usable", req);
	if (c->buf_size != req)
		report(cfg,
		       "per-core buffer size %zu rounded up to %s (%zu pages)",
		       req, human(c->buf_size, a, sizeof(a)),
		       c->buf_size / c->page_size);
	if (c->buf_size < psb)
		return errmsg(err, errlen, -EINVAL,
			      "a per-core buffer of %s can't hold one PSB "
			      "period (%s): raise --buffer-size to at least %s",
			      human(c->buf_size, a, sizeof(a)),
			      human(psb, b, sizeof(b)),
			      human(psb, d, sizeof(d)));
	total = (__u64)nr_cpus * (c->buf_size + c->sb_size + 2 * c->page_size);
	if (total > limit)
		return errmsg(
			err, errlen, -E2BIG,
			"buffers of %u cores need %llu MiB, more than the "
			"limit of %llu MiB: lower --buffer-size (now %s) "
			"or trace fewer CPUs with --cpus",
			nr_cpus, (unsigned long long)(total >> 20),
			(unsigned long long)(limit >> 20),
			human(c->buf_size, a, sizeof(a)));
	return 0;
}

/* sysfs says the CPU is offline; cpu0 often has no `online` file. */
static bool cpu_offline(const char *root, int cpu)
{
	char path[256], v = '1';
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/online",
		 root ? root : "/sys", cpu);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fread(&v, 1, 1, f) != 1)
		v = '1';
	fclose(f);
	return v == '0';
}

static int map_core(struct cores *c, struct core *k, char *err, size_t errlen)
{
	bool pt = c->backend == BACKEND_INTEL_PT;
	int rc;

	/*
	 * intel-pt: a metadata page only, writable so aux_offset/aux_size can
	 * be set; sample: the data ring, read-only (write_backward overwrite).
	 */
	k->data_map_len = c->page_size + (pt ? 0 : c->buf_size);
	rc = perf_sys_map_ring(c->sys, k->data_fd, k->cpu, c->page_size,
			       pt ? 0 : c->buf_size, pt, &k->data_page, err,
			       errlen);
	if (rc)
		return rc;
	if (pt) {
		rc = perf_sys_map_aux(c->sys, k->data_fd, k->cpu, k->data_page,
				      c->buf_size, &k->aux, err, errlen);
		if (rc)
			return rc;
		cyc_aux_init(&k->aux_state, k->aux, c->buf_size);
	}
	k->sb_map_len = c->page_size + c->sb_size;
	return perf_sys_map_ring(c->sys, k->sb_fd, k->cpu, c->page_size,
				 c->sb_size, false, &k->sb_page, err, errlen);
}

/*
 * perf_event_open() says EINVAL for a CPU number past the machine's: name
 * the cause instead (a --cpus typo), when sysfs has no such CPU either.
 */
static int no_such_cpu(const struct cores_config *cfg, int cpu, char *err,
		       size_t errlen)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d",
		 cfg->sysfs_root ? cfg->sysfs_root : "/sys", cpu);
	if (access(path, F_OK) == 0)
		return -EINVAL;
	return errmsg(
		err, errlen, -EINVAL,
		"cpu %d does not exist (--cpus; this machine has %ld configured)",
		cpu, sysconf(_SC_NPROCESSORS_CONF));
}

/*
 * The --trigger-on pause events of one group. The first group is the
 * probe: a kernel or PMU without aux-action refuses it, and then no group
 * has them (said once); a later refusal is an error.
 */
static int open_actions(struct cores *c, const struct cores_config *cfg,
			int cpu, pid_t pid, int leader_fd, struct auxact_fds *f,
			bool first, char *err, size_t errlen)
{
	char why[160];
	int rc;

	f->n = 0;
	if (!c->aux_pause)
		return 0;
	rc = auxact_open(c->sys, c->uprobe_type, c->pause_points,
			 c->nr_pause_points, &c->data_attr, leader_fd, cpu, pid,
			 f, why, sizeof(why));
	if (!rc)
		return 0;
	if (!first)
		return errmsg(err, errlen, rc, "%s", why);
	c->aux_pause = false;
	report(cfg,
	       "--trigger-on: no aux-action here (%s): snapshots are staged "
	       "when the hit is seen, not cut by the kernel",
	       strerror(-rc));
	return 0;
}

/* Open core @k; 1 when its CPU turned out to be offline (skip it). */
static int open_core(struct cores *c, const struct cores_config *cfg,
		     struct core *k, char *err, size_t errlen)
{
	int rc;

	/* split: the data event counts the whole CPU, filtered by BPF */
	rc = perf_sys_open(c->sys, &c->data_attr, k->cpu,
			   c->split ? -1 : c->pid, -1, c->flags, err, errlen);
	if (rc == -ENODEV || rc == -ENOENT)
		return 1;
	if (rc == -EINVAL)
		return no_such_cpu(cfg, k->cpu, err, errlen);
	if (rc < 0)
		return rc;
	k->data_fd = rc;
	/* attached before the event is ever enabled: no sample passes unseen */
	if (c->split) {
		rc = perf_sys_set_bpf(c->sys, k->data_fd, cfg->sample_filter_fd,
				      k->cpu, err, errlen);
		if (rc)
			return rc;
	}
	/*
	 * In the data event's group: one ioctl switches both. Split, the two
	 * live in different contexts (the CPU's, the task's) and can't share
	 * a group.
	 */
	rc = perf_sys_open(c->sys, &c->sb_attr, k->cpu, c->pid,
			   c->split ? -1 : k->data_fd, c->flags, err, errlen);
	if (rc == -ENODEV || rc == -ENOENT)
		return 1;
	if (rc < 0)
		return rc;
	k->sb_fd = rc;
	rc = open_actions(c, cfg, k->cpu, c->pid, k->data_fd, &k->act,
			  k == c->core, err, errlen);
	if (rc)
		return rc;
	rc = map_core(c, k, err, errlen);
	if (!rc)
		rc = perf_sys_id(c->sys, k->data_fd, k->cpu, &k->data_id, err,
				 errlen);
	if (!rc)
		rc = perf_sys_id(c->sys, k->sb_fd, k->cpu, &k->sb_id, err,
				 errlen);
	return rc;
}

static void close_core(struct cores *c, struct core *k)
{
	if (k->aux)
		perf_sys_unmap(c->sys, k->aux, c->buf_size, k->cpu, NULL, 0);
	if (k->data_page)
		perf_sys_unmap(c->sys, k->data_page, k->data_map_len, k->cpu,
			       NULL, 0);
	if (k->sb_page)
		perf_sys_unmap(c->sys, k->sb_page, k->sb_map_len, k->cpu, NULL,
			       0);
	k->aux = NULL;
	k->data_page = k->sb_page = NULL;
	auxact_close(c->sys, &k->act);
	while (k->nr_extra) {
		struct thread_group *g = &k->extra[--k->nr_extra];

		auxact_close(c->sys, &g->act);
		perf_sys_close(c->sys, &g->sb_fd);
		perf_sys_close(c->sys, &g->data_fd);
	}
	free(k->extra);
	k->extra = NULL;
	k->cap_extra = 0;
	perf_sys_close(c->sys, &k->sb_fd);
	perf_sys_close(c->sys, &k->data_fd);
}

static struct core *new_core(struct cores *c, int cpu, bool running)
{
	struct core *k = &c->core[c->nr];

	memset(k, 0, sizeof(*k));
	k->cpu = cpu;
	k->data_fd = k->sb_fd = -1;
	k->state = running ? CORE_RUNNING : CORE_PAUSED;
	return k;
}

static int open_all(struct cores *c, const struct cores_config *cfg,
		    const int *cpus, unsigned int n, char *err, size_t errlen)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		struct core *k =
			new_core(c, cpus ? cpus[i] : (int)i,
				 cfg->start_running ||
					 (c->scope == SCOPE_PROCESS &&
					  cfg->enable_on_exec && !c->split));

		rc = cpu_offline(cfg->sysfs_root, k->cpu) ?
			     1 :
			     open_core(c, cfg, k, err, errlen);
		if (rc == 1) {
			close_core(c, k);
			report(cfg, "cpu %d is offline: not traced", k->cpu);
			continue;
		}
		c->nr++;
		if (rc < 0)
			return rc;
	}
	if (!c->nr)
		return errmsg(err, errlen, -ENODEV, "no CPU could be traced");
	return 0;
}

/* How many of @cpus sysfs says are online, for the size limit. */
static unsigned int count_online(const struct cores_config *cfg,
				 const int *cpus, unsigned int n)
{
	unsigned int i, online = 0;

	for (i = 0; i < n; i++)
		online +=
			!cpu_offline(cfg->sysfs_root, cpus ? cpus[i] : (int)i);
	return online;
}

static bool cpus_valid(const struct cores_config *cfg)
{
	unsigned int i;

	for (i = 0; cfg->cpus && i < cfg->nr_cpus; i++)
		if (cfg->cpus[i] < 0)
			return false;
	return true;
}

static int pick_scope(struct cores *c, const struct cores_config *cfg,
		      char *err, size_t errlen)
{
	c->split = false;
	c->scope = cfg->scope != SCOPE_AUTO ? cfg->scope :
		   cfg->cgroup_fd >= 0	    ? SCOPE_CGROUP :
					      SCOPE_CPU;
	c->pid = -1;
	c->flags = 0;
	switch (c->scope) {
	case SCOPE_PROCESS:
		if (!cfg->tids || !cfg->nr_tids || cfg->tids[0] <= 0)
			return errmsg(
				err, errlen, -EINVAL,
				"process scope needs the target's threads");
		c->pid = cfg->tids[0];
		return 0;
	case SCOPE_CGROUP:
		if (cfg->cgroup_fd < 0)
			return errmsg(err, errlen, -EINVAL,
				      "cgroup scope needs a cgroup");
		/* A cgroup event takes the cgroup fd where a pid would go. */
		c->pid = cfg->cgroup_fd;
		c->flags = PERF_FLAG_PID_CGROUP;
		return 0;
	case SCOPE_CPU:
		return 0;
	default:
		return errmsg(err, errlen, -EINVAL, "unknown scope");
	}
}

/*
 * Process scope: the events follow the threads the target creates
 * (inherit), but not the processes it forks (inherit_thread: the kernel
 * copies them only for CLONE_THREAD). Inherited events write into the
 * parent event's ring, so one ring per CPU still holds every thread.
 */
static void scope_attrs(struct cores *c, const struct cores_config *cfg)
{
	if (c->scope != SCOPE_PROCESS)
		return;
	/*
	 * A task-bound cpu-clock event stops and starts an hrtimer at every
	 * context switch of the target (perf bench sched pipe -T ran at half
	 * speed here); behind a BPF filter a per-CPU one gives the same
	 * samples without that cost.
	 */
	c->split = c->backend == BACKEND_SAMPLE && cfg->sample_filter_fd >= 0;
	c->sb_attr.inherit = 1;
	c->sb_attr.inherit_thread = 1;
	if (c->split)
		return; /* the filter's gate opens at exec: no enable_on_exec */
	c->data_attr.inherit = 1;
	c->data_attr.inherit_thread = 1;
	if (cfg->enable_on_exec) {
		/* the leader only: siblings follow it in and out */
		c->data_attr.disabled = 1;
		c->data_attr.enable_on_exec = 1;
		c->sb_attr.disabled = 0;
	}
}

/* One more thread's group on core @k, output into the core's rings. */
static int add_group(struct cores *c, struct core *k, pid_t tid, char *err,
		     size_t errlen)
{
	struct perf_event_attr da = c->data_attr, sa = c->sb_attr;
	struct thread_group g = { -1, -1, { .n = 0 } };
	int rc;

	if (k->nr_extra == k->cap_extra) {
		unsigned int cap = k->cap_extra ? 2 * k->cap_extra : 8;
		void *p = realloc(k->extra, cap * sizeof(*k->extra));

		if (!p)
			return errmsg(err, errlen, -ENOMEM, "out of memory");
		k->extra = p;
		k->cap_extra = cap;
	}
	da.disabled = sa.disabled = k->state != CORE_RUNNING;
	da.enable_on_exec = sa.enable_on_exec = 0;
	/* split: the CPU's data event already counts every thread */
	rc = c->split ? -1 :
			perf_sys_open(c->sys, &da, k->cpu, tid, -1, 0, err,
				      errlen);
	if (rc < 0 && !c->split)
		return rc;
	g.data_fd = rc;
	rc = perf_sys_open(c->sys, &sa, k->cpu, tid, g.data_fd, 0, err, errlen);
	if (rc >= 0) {
		g.sb_fd = rc;
		rc = c->split ?
			     0 :
			     perf_sys_set_output(c->sys, g.data_fd, k->data_fd,
						 k->cpu, err, errlen);
	}
	if (!rc)
		rc = perf_sys_set_output(c->sys, g.sb_fd, k->sb_fd, k->cpu, err,
					 errlen);
	if (!rc && !c->split)
		rc = open_actions(c, NULL, k->cpu, tid, g.data_fd, &g.act,
				  false, err, errlen);
	if (rc < 0) {
		perf_sys_close(c->sys, &g.sb_fd);
		perf_sys_close(c->sys, &g.data_fd);
		return rc;
	}
	k->extra[k->nr_extra++] = g;
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
			struct core *k = &c->core[i - 1];
			struct thread_group *g = &k->extra[--k->nr_extra];

			auxact_close(c->sys, &g->act);
			perf_sys_close(c->sys, &g->sb_fd);
			perf_sys_close(c->sys, &g->data_fd);
		}
	}
	return rc;
}

int cores_add_thread(struct cores *c, pid_t tid)
{
	if (!c || tid <= 0)
		return -EINVAL;
	if (c->scope != SCOPE_PROCESS)
		return errmsg(c->err, sizeof(c->err), -EINVAL,
			      "threads are added in process scope only");
	return add_thread(c, tid, c->err, sizeof(c->err));
}

void cores_set_offcpu(struct cores *c, bool off)
{
	if (c && c->scope == SCOPE_PROCESS)
		c->offcpu = off;
}

enum ptbpf_scope cores_scope(const struct cores *c)
{
	return c ? c->scope : SCOPE_CPU;
}

unsigned long cores_event_count(const struct cores *c)
{
	unsigned long n = 0;
	unsigned int i;

	for (i = 0; c && i < c->nr; i++) {
		const struct core *k = &c->core[i];
		unsigned int j;

		n += 2 + k->act.n + (c->split ? 1UL : 2UL) * k->nr_extra;
		for (j = 0; j < k->nr_extra; j++)
			n += k->extra[j].act.n;
	}
	return n;
}

bool cores_aux_pause(const struct cores *c)
{
	return c && c->aux_pause;
}

/*
 * --trigger-on points cut by the kernel: intel-pt in process scope, where
 * the groups are the target's own (a CPU-wide uprobe event would pause
 * PT at any process's hit).
 */
static void pick_actions(struct cores *c, const struct cores_config *cfg)
{
	c->aux_pause = false;
	if (!cfg->nr_pause_points || c->backend != BACKEND_INTEL_PT ||
	    c->scope != SCOPE_PROCESS)
		return;
	if (cfg->nr_pause_points > AUXACT_MAX_POINTS) {
		report(cfg,
		       "--trigger-on: more than %d points: snapshots are "
		       "staged when the hit is seen, not cut by the kernel",
		       AUXACT_MAX_POINTS);
		return;
	}
	if (auxact_uprobe_type(cfg->sysfs_root, &c->uprobe_type)) {
		report(cfg, "--trigger-on: no uprobe PMU in sysfs: snapshots "
			    "are staged when the hit is seen");
		return;
	}
	c->aux_pause = true;
	c->pause_points = cfg->pause_points;
	c->nr_pause_points = cfg->nr_pause_points;
}

/*
 * A thread per traced CPU for the toggles of cpu and cgroup scope, whose
 * events are per-CPU: from their own CPU an ioctl is a direct call. Task
 * events (process scope) are switched on whatever CPU the task is on: no
 * gain there, and their toggles are rare (a fatal signal, a read while the
 * target runs).
 */
static int start_run(struct cores *c, const struct cores_config *cfg, char *err,
		     size_t errlen)
{
	int *cpus = calloc(c->nr, sizeof(*cpus));
	unsigned int i;

	if (!cpus)
		return errmsg(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < c->nr; i++)
		cpus[i] = c->core[i].cpu;
	/* the control thread's priority: toggles must not wait for a slice */
	c->run = cpurun_start(cpus, c->nr, cfg->parallel_rt_prio, err, errlen);
	free(cpus);
	return c->run ? 0 : -errno;
}

struct cores *cores_open(const struct cores_config *cfg,
			 const struct perf_sys_ops *sys, char *err,
			 size_t errlen)
{
	unsigned int n, i;
	struct cores *c;
	size_t psb;
	int rc;

	if (!cfg || (cfg->cpus && !cfg->nr_cpus) || !cpus_valid(cfg)) {
		errmsg(err, errlen, 0, "no CPU, or a negative CPU, to trace");
		errno = EINVAL;
		return NULL;
	}
	n = cfg->cpus ? cfg->nr_cpus :
			(unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	c = calloc(1, sizeof(*c));
	if (c)
		c->core = calloc(n, sizeof(*c->core));
	if (!c || !c->core) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->sys = sys ? sys : &perf_sys_real;
	c->page_size = (size_t)sysconf(_SC_PAGESIZE);
	rc = pick_scope(c, cfg, err, errlen);
	if (!rc)
		rc = pick_backend(c, cfg, &psb, err, errlen);
	if (!rc)
		rc = pmu_sideband_attr(&c->sb_attr, c->backend,
				       !cfg->start_running);
	if (!rc) {
		scope_attrs(c, cfg);
		pick_actions(c, cfg);
	}
	if (!rc)
		rc = pick_sizes(c, cfg, psb, count_online(cfg, cfg->cpus, n),
				err, errlen);
	if (!rc)
		rc = open_all(c, cfg, cfg->cpus, n, err, errlen);
	if (!rc && cfg->parallel && c->scope != SCOPE_PROCESS)
		rc = start_run(c, cfg, err, errlen);
	for (i = 1; !rc && c->scope == SCOPE_PROCESS && i < cfg->nr_tids; i++) {
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
	return c ? c->backend : BACKEND_AUTO;
}

size_t cores_buffer_size(const struct cores *c)
{
	return c ? c->buf_size : 0;
}

size_t cores_sideband_size(const struct cores *c)
{
	return c ? c->sb_size : 0;
}

const struct perf_event_attr *cores_data_attr(const struct cores *c)
{
	return c ? &c->data_attr : NULL;
}

const struct perf_event_attr *cores_sideband_attr(const struct cores *c)
{
	return c ? &c->sb_attr : NULL;
}

const char *cores_last_error(const struct cores *c)
{
	return c ? c->err : "";
}

int cores_info(const struct cores *c, unsigned int idx, int *cpu,
	       __u64 *data_id, __u64 *sb_id)
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
	if (c->backend != BACKEND_INTEL_PT)
		return -ENOENT;
	return pmu_cpu_info(&c->pmu, &c->data_attr, info);
}

int cores_state(const struct cores *c, unsigned int idx, enum core_state *state)
{
	if (!c || !state || idx >= c->nr)
		return -EINVAL;
	*state = c->core[idx].state;
	return 0;
}

static int toggle_group(struct cores *c, int fd, int cpu, enum core_state st,
			char *err, size_t errlen)
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
 * What one toggle of core @k switches, unit by unit: the group leaders of
 * every thread's group (one unit outside process scope); split, the data
 * event and each sideband event on their own.
 */
static unsigned int nr_units(const struct cores *c, const struct core *k)
{
	return 1 + c->split + k->nr_extra;
}

static int unit_fd(const struct cores *c, const struct core *k, unsigned int i)
{
	if (i == 0)
		return k->data_fd;
	if (c->split && i == 1)
		return k->sb_fd;
	i -= 1 + c->split;
	return k->extra[i].data_fd >= 0 ? k->extra[i].data_fd :
					  k->extra[i].sb_fd;
}

static int set_state(struct cores *c, struct core *k, enum core_state st,
		     char *err, size_t errlen)
{
	unsigned int i, n = nr_units(c, k);
	int rc = 0;

	if (k->state == st)
		return 0;
	/* process scope: every thread's group writes into these rings */
	for (i = 0; !rc && i < n; i++)
		rc = toggle_group(c, unit_fd(c, k, i), k->cpu, st, err, errlen);
	if (!rc) {
		k->state = st;
		return 0;
	}
	/* all or nothing: what was switched goes back (i - 1 failed) */
	for (i--; i-- > 0;)
		toggle_group(c, unit_fd(c, k, i), k->cpu, k->state, NULL, 0);
	return rc;
}

int cores_set_state(struct cores *c, unsigned int idx, enum core_state state)
{
	if (!c || idx >= c->nr ||
	    (state != CORE_PAUSED && state != CORE_RUNNING))
		return -EINVAL;
	return set_state(c, &c->core[idx], state, c->err, sizeof(c->err));
}

/* On the thread pinned to core @idx's CPU: its ioctls are local calls. */
static int set_one(void *ctx, unsigned int idx)
{
	struct cores *c = ctx;
	struct core *k = &c->core[idx];

	k->toggle_rc = set_state(c, k, c->run_state, k->toggle_err,
				 sizeof(k->toggle_err));
	return k->toggle_rc;
}

static int set_all(struct cores *c, enum core_state st, __u64 *done_ns)
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
				snprintf(c->err, sizeof(c->err), "%s",
					 c->core[i].toggle_err);
				break;
			}
		if (done_ns)
			*done_ns = clock_now_ns();
		return first;
	}
	for (i = 0; i < c->nr; i++) {
		/* Keep the first failure's message; later ones are dropped. */
		rc = set_state(c, &c->core[i], st, first ? NULL : c->err,
			       sizeof(c->err));
		if (rc && !first)
			first = rc;
	}
	if (done_ns)
		*done_ns = clock_now_ns();
	return first;
}

int cores_pause_all(struct cores *c, __u64 *done_ns)
{
	return set_all(c, CORE_PAUSED, done_ns);
}

int cores_resume_all(struct cores *c, __u64 *done_ns)
{
	return set_all(c, CORE_RUNNING, done_ns);
}

/* "Now" in the data event's clock, for AUXTRACE's reference. */
static __u64 now_clock(const struct cores *c)
{
#if defined(__x86_64__) || defined(__i386__)
	/* intel_pt timestamps are TSC values. */
	if (c->backend == BACKEND_INTEL_PT)
		return __rdtsc();
#endif
	return clock_now_ns();
}

/*
 * While the core is paused: the raw bytes only. Records of the data rings
 * are put in order by order_rings() once the core runs again.
 */
static void read_rings(struct cores *c, struct core *k, bool full,
		       struct snap_core *out, __u8 *tbuf, size_t tcap,
		       __u8 *sbuf, size_t scap)
{
	const __u8 *sb_ring = (const __u8 *)k->sb_page + c->page_size;
	struct cyc_result r, s;
	__u64 head;

	/* The event is disabled: the kernel has written its last head. */
	if (c->backend == BACKEND_INTEL_PT) {
		head = __atomic_load_n(&k->data_page->aux_head,
				       __ATOMIC_ACQUIRE);
		cyc_aux_read(&k->aux_state, k->aux, head, full, tbuf, tcap, &r);
	} else {
		head = __atomic_load_n(&k->data_page->data_head,
				       __ATOMIC_ACQUIRE);
		cyc_backward_take(&k->data_prev,
				  (const __u8 *)k->data_page + c->page_size,
				  c->buf_size, head, full, tbuf, tcap, &r);
	}
	head = __atomic_load_n(&k->sb_page->data_head, __ATOMIC_ACQUIRE);
	cyc_backward_take(&k->sb_prev, sb_ring, c->sb_size, head, full, sbuf,
			  scap, &s);
	out->trace = tbuf;
	out->trace_len = r.len;
	out->sideband = sbuf;
	out->sideband_len = s.len;
	out->wrapped = r.wrapped;
	out->lost_bytes = r.lost_bytes;
	out->head = r.head;
	out->sb_wrapped = s.wrapped;
	out->sb_lost_bytes = s.lost_bytes;
}

/* After the pause: keep the intact records, oldest first. */
static void order_rings(struct cores *c, struct snap_core *out)
{
	struct cyc_result r = {
		.len = out->trace_len,
		.lost_bytes = out->lost_bytes,
	};
	struct cyc_result s = {
		.len = out->sideband_len,
		.lost_bytes = out->sb_lost_bytes,
	};

	if (c->backend != BACKEND_INTEL_PT) {
		cyc_backward_done(out->trace, &r);
		out->trace_len = r.len;
		out->lost_bytes = r.lost_bytes;
	}
	cyc_backward_done(out->sideband, &s);
	out->sideband_len = s.len;
	out->sb_lost_bytes = s.lost_bytes;
}

int cores_read(struct cores *c, unsigned int idx, bool full,
	       struct snap_core *out, __u8 *trace_buf, size_t trace_cap,
	       __u8 *sb_buf, size_t sb_cap)
{
	enum core_state was;
	struct core *k;
	__u64 t0, t_copy;
	int rc;

	if (!c || idx >= c->nr || !out || !trace_buf || !sb_buf)
		return -EINVAL;
	k = &c->core[idx];
	/*
	 * Process scope with no target thread able to run: the kernel took
	 * the events off the CPU with the threads (for intel_pt,
	 * pt_event_del() stopped the trace and published aux_head), so
	 * nothing writes while we copy and no ioctl is needed.
	 */
	was = c->offcpu ? CORE_PAUSED : k->state;
	t0 = clock_now_ns();
	/* A disable makes the CPU flush its packet buffer and the kernel
	 * publish aux_head; nothing is overwritten while we copy. */
	rc = c->offcpu ? 0 :
			 set_state(c, k, CORE_PAUSED, c->err, sizeof(c->err));
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->cpu = k->cpu;
	out->data_id = k->data_id;
	out->sb_id = k->sb_id;
	out->mixed_ids = k->nr_extra > 0;
	t_copy = clock_now_ns();
	read_rings(c, k, full, out, trace_buf, trace_cap, sb_buf, sb_cap);
	out->copy_ns = clock_now_ns() - t_copy;
	out->tsc = now_clock(c);
	rc = c->offcpu ? 0 : set_state(c, k, was, c->err, sizeof(c->err));
	out->paused_ns = was == CORE_RUNNING ? clock_now_ns() - t0 : 0;
	order_rings(c, out);
	return rc;
}

int cores_read_unchanged(struct cores *c, unsigned int idx,
			 struct snap_core *out, __u8 *trace_buf, __u8 *sb_buf)
{
	struct core *k;

	if (!c || idx >= c->nr || !out || !trace_buf || !sb_buf)
		return -EINVAL;
	k = &c->core[idx];
	memset(out, 0, sizeof(*out));
	out->cpu = k->cpu;
	out->data_id = k->data_id;
	out->sb_id = k->sb_id;
	out->mixed_ids = k->nr_extra > 0;
	out->unchanged = true;
	out->trace = trace_buf;
	out->sideband = sb_buf;
	/* where the last read ended: the next one starts there */
	out->head = c->backend == BACKEND_INTEL_PT ? k->aux_state.end :
						     k->data_prev;
	out->tsc = now_clock(c);
	return 0;
}
