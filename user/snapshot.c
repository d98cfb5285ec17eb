// SPDX-License-Identifier: GPL-2.0
/* Snapshots: staging, the bounded queue and the writer thread (snapshot.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "budget.h"
#include "cpuinfo.h"
#include "procinfo.h"
#include "say.h"
#include "snapcut.h"
#include "snapshot.h"
#include "status.h"
#include "threadnames.h"
#include "snapwrite.h"
#include "clock.h"
#include "fmtnum.h"

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_WRITING };

struct slot {
	enum slot_state state;
	struct snapshot snap;
	struct snap_core *cores;
	__u8 *mem; /* one mapping: every core's trace then sideband buffer */
	size_t mem_len;
};

struct snapshots {
	struct snapshots_config cfg;
	struct cores *cores;
	struct eventlog *log; /* control thread's */
	struct eventlog wlog; /* writer thread's */
	unsigned int nr_slots, nr_cores;
	struct slot *slots;
	unsigned int *queue; /* FIFO of slot indices */
	unsigned int q_head, q_len;
	uint64_t next_id;
	bool stopping, refresh;
	/*
	 * After an exec, the loader maps the libraries within milliseconds,
	 * and a short-lived target may be gone before the next idle reading:
	 * read again after 2, 4, 8 ... ms, then every second. 0: idle rate.
	 */
	unsigned int refresh_ms;
	unsigned long written;
	struct snap_process proc_cache; /* last reading with maps */
	struct budget budget; /* writer thread's, when limits are set */
	bool limits;
	struct threadnames names; /* under lock: from the BPF events */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_started;
	/* what every snapshot shares, filled once */
	struct perf_event_attr data_attr, sb_attr;
	struct snap_tsc_conv conv;
	struct snap_cpu_info cpu_info;
};

/* Buffers come from mmap: pages cost memory only once a copy touches them. */
static int slot_alloc(struct snapshots *s, struct slot *sl)
{
	size_t tb = cores_buffer_size(s->cores),
	       sb = cores_sideband_size(s->cores);
	unsigned int i;

	sl->cores = calloc(s->nr_cores, sizeof(*sl->cores));
	if (!sl->cores)
		return -ENOMEM;
	sl->mem_len = s->nr_cores * (tb + sb);
	sl->mem = mmap(NULL, sl->mem_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sl->mem == MAP_FAILED) {
		sl->mem = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_cores; i++)
		cores_info(s->cores, i, &sl->cores[i].cpu, NULL, NULL);
	return 0;
}

static void slot_free(struct slot *sl)
{
	if (sl->mem)
		munmap(sl->mem, sl->mem_len);
	free(sl->cores);
	sl->mem = NULL;
	sl->cores = NULL;
}

/* The /proc reading for a snapshot: live, or the last one that had maps. */
static void take_proc(struct snapshots *s, struct snap_process *out)
{
	struct snap_process live;

	memset(&live, 0, sizeof(live));
	if (procinfo_read(s->cfg.proc_root, s->cfg.pid, &live) == 0 &&
	    live.nr_maps > 0) {
		procinfo_free(&s->proc_cache);
		s->proc_cache = live;
	} else {
		procinfo_free(&live);
	}
	*out = s->proc_cache;
}

static uint64_t staged_bytes(const struct snapshot *snap, uint64_t *lost,
			     uint64_t *pause_max, uint64_t *pause_sum)
{
	uint64_t bytes = 0;
	unsigned int i;

	*lost = *pause_max = *pause_sum = 0;
	for (i = 0; i < snap->nr_cores; i++) {
		const struct snap_core *c = &snap->cores[i];

		bytes += c->trace_len + c->sideband_len;
		*lost += c->lost_bytes;
		*pause_sum += c->paused_ns;
		if (c->paused_ns > *pause_max)
			*pause_max = c->paused_ns;
	}
	return bytes;
}

/* What the budget removed for one snapshot, for its line. */
struct removed {
	unsigned int n;
	uint64_t bytes;
	bool size; /* --max-size asked, not only --max-snapshots */
};

/* The trigger's details, as in the stop or fatal event. */
static void trigger_json(struct json *j, const struct snap_trigger *t)
{
	char hex[24];

	if (t->tid)
		json_u64(j, "trigger_tid", t->tid);
	if (t->stop_kind)
		json_str(j, "stop_kind", t->stop_kind);
	if (t->ip)
		json_str(j, "ip", fmt_addr(t->ip, hex, sizeof(hex)));
	if (t->has_addr)
		json_str(j, "addr", fmt_addr(t->addr, hex, sizeof(hex)));
	if (t->folded)
		json_u64(j, "folded_stops", t->folded);
}

/* A --trigger-on snapshot: which point, and how its data ends at the hit. */
static void cut_json(struct json *j, const struct snapshot *snap)
{
	if (!snap->why.spec)
		return;
	json_str(j, "spec", snap->why.spec);
	json_u64(j, "point", snap->why.point);
	if (!snap->cut.how)
		return;
	json_str(j, "cut", snap->cut.how);
	json_u64(j, "after_hit_ns", snap->cut.after_hit_ns);
	if (snap->backend == BACKEND_SAMPLE)
		json_u64(j, "cut_records", snap->cut.records);
}

/* The longest copy of one core's rings: the cost a snapshot can't avoid. */
static uint64_t copy_max(const struct snapshot *snap)
{
	uint64_t max = 0;
	unsigned int i;

	for (i = 0; i < snap->nr_cores; i++)
		if (snap->cores[i].copy_ns > max)
			max = snap->cores[i].copy_ns;
	return max;
}

static void log_written(struct snapshots *s, const struct snapshot *snap,
			const char *path, uint64_t write_ns,
			const struct removed *rm)
{
	uint64_t lost, pmax, psum, bytes, sb_lost = 0;
	bool wrapped = false, sb_wrapped = false;
	char line[PATH_MAX + 256];
	struct json *j;
	unsigned int i;
	size_t n;

	bytes = staged_bytes(snap, &lost, &pmax, &psum);
	for (i = 0; i < snap->nr_cores; i++) {
		wrapped |= snap->cores[i].wrapped;
		sb_wrapped |= snap->cores[i].sb_wrapped;
		sb_lost += snap->cores[i].sb_lost_bytes;
	}
	j = eventlog_begin(&s->wlog, "snapshot", clock_now_ns(), s->cfg.pid);
	json_u64(j, "snapshot", snap->id);
	json_str(j, "path", path);
	json_str(j, "trigger", snap->trigger);
	json_u64(j, "trigger_ts", snap->trigger_ts);
	json_u64(j, "bytes", bytes);
	json_u64(j, "lost_bytes", lost);
	json_bool(j, "wrapped", wrapped);
	json_bool(j, "sideband_wrapped", sb_wrapped);
	json_u64(j, "sideband_lost_bytes", sb_lost);
	json_u64(j, "paused_max_ns", pmax);
	json_u64(j, "paused_total_ns", psum);
	json_u64(j, "copy_max_ns", copy_max(snap));
	json_u64(j, "write_ns", write_ns);
	trigger_json(j, &snap->why);
	cut_json(j, snap);
	if (s->limits)
		json_u64(j, "dir_bytes", s->budget.used);
	eventlog_end(&s->wlog);
	if (s->cfg.verbosity < 0)
		return;
	status_snapshot(bytes, s->budget.used, s->cfg.max_size);
	if (status_on() && s->cfg.verbosity == 0 && !rm->n)
		return; /* the status line counts it */
	/* one write: the control thread prints lines of its own meanwhile */
	n = snprintf(line, sizeof(line),
		     "ptbpf: snapshot %llu (%s): %s, %.1f KiB%s",
		     (unsigned long long)snap->id, snap->trigger, path,
		     bytes / 1024.0, wrapped ? ", wrapped" : "");
	if (snap->why.folded)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      ", %u earlier stop%s folded in", snap->why.folded,
			      snap->why.folded == 1 ? "" : "s");
	if (rm->n)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; removed %u oldest (%.1f KiB) for %s", rm->n,
			      rm->bytes / 1024.0,
			      rm->size ? "--max-size" : "--max-snapshots");
	if (s->cfg.max_size)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; %.1f of %.1f MiB used",
			      s->budget.used / 1048576.0,
			      s->cfg.max_size / 1048576.0);
	status_say(line);
}

static void log_error(struct eventlog *log, uint32_t pid, uint64_t id,
		      const char *reason)
{
	struct json *j =
		eventlog_begin(log, "snapshot_error", clock_now_ns(), pid);

	json_u64(j, "snapshot", id);
	json_str(j, "reason", reason);
	eventlog_end(log);
}

/*
 * What a snapshot will take on disk, at most: its bytes once in perf.data
 * and once more in the LLDB bundle's files, plus the records and JSON of
 * its threads and maps (perf's headers and features take a few KiB).
 */
static uint64_t estimate(const struct snapshots *s, const struct snapshot *snap)
{
	uint64_t lost, pmax, psum, bytes;

	bytes = staged_bytes(snap, &lost, &pmax, &psum);
	if (snap->backend == BACKEND_INTEL_PT &&
	    (s->cfg.formats & SNAPFMT_LLDB))
		bytes *= 2;
	return bytes + 64 * 1024 + snap->proc.nr_maps * 512ULL +
	       snap->proc.nr_threads * 128ULL;
}

/* Removes the @k oldest snapshots the budget holds; a removal is an event. */
static void evict(struct snapshots *s, size_t k, int why_size,
		  struct removed *rm)
{
	struct budget_entry e;
	struct json *j;
	int ret;

	while (k--) {
		e = s->budget.v[0];
		ret = snapwrite_remove(s->cfg.dirfd, e.id);
		budget_drop(&s->budget, e.id);
		if (ret && ret != -ENOENT) {
			char why[160];

			snprintf(why, sizeof(why),
				 "can't remove the oldest snapshot: %s",
				 strerror(-ret));
			log_error(&s->wlog, s->cfg.pid, e.id, why);
			continue;
		}
		j = eventlog_begin(&s->wlog, "snapshot_removed", clock_now_ns(),
				   s->cfg.pid);
		json_u64(j, "snapshot", e.id);
		json_u64(j, "bytes", e.bytes);
		json_str(j, "reason", why_size ? "max_size" : "max_snapshots");
		eventlog_end(&s->wlog);
		rm->n++;
		rm->bytes += e.bytes;
		rm->size |= why_size;
	}
}

/* Makes room for @snap before it is written. Returns false if it can't fit. */
static bool make_room(struct snapshots *s, const struct snapshot *snap,
		      struct removed *rm)
{
	uint64_t est = s->cfg.max_size ? estimate(s, snap) : 0;
	int why_size;
	size_t k;

	if (s->cfg.max_size && est > s->cfg.max_size)
		return false; /* removing the others would not make it fit */
	k = budget_excess(&s->budget, est, 0, UINT64_MAX, &why_size);
	evict(s, k, why_size, rm);
	return true;
}

/* Counts the snapshot just written, then trims to the limits again. */
static void account(struct snapshots *s, const struct snapshot *snap,
		    struct removed *rm)
{
	unsigned long long bytes = 0;
	int why_size;
	size_t k;

	snapwrite_size(s->cfg.dirfd, snap->id, &bytes);
	budget_add(&s->budget, snap->id, bytes);
	k = budget_excess(&s->budget, 0, 0, snap->id, &why_size);
	evict(s, k, why_size, rm);
}

/* Writer thread: one staged snapshot to disk. Called without the lock. */
static void write_one(struct snapshots *s, struct slot *sl)
{
	struct removed rm = { 0 };
	struct snapwrite_opts o = {
		.out_dir = s->cfg.out_dir,
		.dirfd = s->cfg.dirfd,
		.uid = s->cfg.uid,
		.gid = s->cfg.gid,
		.formats = s->cfg.formats,
		.buildid_cache = s->cfg.buildid_cache,
	};
	char path[PATH_MAX + 32], err[PATH_MAX + 256];
	uint64_t t0 = clock_now_ns();
	int ret;

	struct snap_thread *threads = NULL;
	unsigned int nr;

	take_proc(s, &sl->snap.proc);
	/* threads gone by now keep the name they had (perf shows ":TID") */
	pthread_mutex_lock(&s->lock);
	if (!threadnames_merge(&s->names, &sl->snap.proc, &threads, &nr)) {
		sl->snap.proc.threads = threads;
		sl->snap.proc.nr_threads = nr;
	}
	pthread_mutex_unlock(&s->lock);
	/* a trigger's snapshot ends at the hit: what came after is left out */
	if (sl->snap.why.spec && sl->snap.backend == BACKEND_SAMPLE)
		snapcut_snapshot(&sl->snap);
	ret = 0;
	if (s->limits && !make_room(s, &sl->snap, &rm)) {
		snprintf(
			err, sizeof(err),
			"snapshot %llu: about %llu bytes, more than --max-size",
			(unsigned long long)sl->snap.id,
			(unsigned long long)estimate(s, &sl->snap));
		ret = -EFBIG;
	}
	if (!ret)
		ret = snapwrite_snapshot(&sl->snap, &o, path, sizeof(path), err,
					 sizeof(err));
	memset(&sl->snap.proc, 0, sizeof(sl->snap.proc)); /* the cache's */
	free(threads);
	if (ret) {
		log_error(&s->wlog, s->cfg.pid, sl->snap.id, err);
		if (s->cfg.verbosity >= 0)
			status_say_f("ptbpf: snapshot %llu lost: %s",
				     (unsigned long long)sl->snap.id, err);
		return;
	}
	s->written++;
	if (s->limits)
		account(s, &sl->snap, &rm);
	log_written(s, &sl->snap, path, clock_now_ns() - t0, &rm);
}

static void *writer_main(void *arg)
{
	struct snapshots *s = arg;
	struct timespec deadline;
	struct slot *sl;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->q_len && !s->stopping) {
			clock_gettime(CLOCK_REALTIME, &deadline);
			if (s->refresh_ms) {
				deadline.tv_nsec += s->refresh_ms * 1000000L;
				deadline.tv_sec +=
					deadline.tv_nsec / 1000000000L;
				deadline.tv_nsec %= 1000000000L;
				s->refresh_ms = s->refresh_ms >= 512 ?
							0 :
							s->refresh_ms * 2;
			} else {
				deadline.tv_sec += 1;
			}
			if (pthread_cond_timedwait(&s->cond, &s->lock,
						   &deadline) == ETIMEDOUT ||
			    s->refresh) {
				/* idle: keep a reading with maps for later */
				s->refresh = false;
				pthread_mutex_unlock(&s->lock);
				take_proc(s, &(struct snap_process){});
				pthread_mutex_lock(&s->lock);
			}
		}
		if (!s->q_len)
			break; /* stopping, and nothing left */
		sl = &s->slots[s->queue[s->q_head]];
		s->q_head = (s->q_head + 1) % s->nr_slots;
		s->q_len--;
		sl->state = SLOT_WRITING;
		pthread_mutex_unlock(&s->lock);
		write_one(s, sl);
		pthread_mutex_lock(&s->lock);
		sl->state = SLOT_FREE;
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static int init_shared(struct snapshots *s)
{
	s->data_attr = *cores_data_attr(s->cores);
	s->sb_attr = *cores_sideband_attr(s->cores);
	cores_tsc_conv(s->cores, &s->conv);
	memset(&s->cpu_info, 0, sizeof(s->cpu_info));
	cores_cpu_info(s->cores, &s->cpu_info); /* -ENOENT for sample: fine */
	cpuinfo_read(NULL, &s->cpu_info); /* left empty if unreadable */
	s->cpu_info.nr_cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	s->cpu_info.nr_cpus_avail = sysconf(_SC_NPROCESSORS_CONF);
	return 0;
}

/* The snapshots already in the directory count against the limits. */
static int budget_scan(struct snapshots *s)
{
	unsigned long long *ids, bytes;
	size_t n, i;
	int ret;

	budget_init(&s->budget, s->cfg.max_size, s->cfg.max_snapshots);
	s->limits = s->cfg.max_size || s->cfg.max_snapshots;
	if (!s->limits)
		return 0;
	ret = snapwrite_list(s->cfg.dirfd, &ids, &n);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		if (!snapwrite_size(s->cfg.dirfd, ids[i], &bytes))
			ret = budget_add(&s->budget, ids[i], bytes);
	free(ids);
	return ret == -EEXIST ? 0 : ret;
}

/* The writer takes no signal: they are the control thread's (signalfd). */
static int start_writer(struct snapshots *s)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&s->thread, NULL, writer_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void destroy(struct snapshots *s)
{
	unsigned int i;

	for (i = 0; s->slots && i < s->nr_slots; i++)
		slot_free(&s->slots[i]);
	free(s->slots);
	free(s->queue);
	procinfo_free(&s->proc_cache);
	budget_free(&s->budget);
	threadnames_free(&s->names);
	eventlog_close(&s->wlog);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

struct snapshots *snapshots_start(const struct snapshots_config *cfg,
				  struct cores *cores, struct eventlog *log,
				  char *err, size_t errlen)
{
	struct snapshots *s = calloc(1, sizeof(*s));
	unsigned int i;
	int ret = -ENOMEM;

	if (!s)
		goto fail;
	s->cfg = *cfg;
	s->cores = cores;
	s->log = log;
	s->nr_cores = cores_count(cores);
	s->nr_slots =
		(cfg->queue_len ? cfg->queue_len : SNAPSHOT_DEFAULT_QUEUE) + 1;
	s->next_id = cfg->first_id ? cfg->first_id : 1;
	s->wlog.fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	s->slots = calloc(s->nr_slots, sizeof(*s->slots));
	s->queue = calloc(s->nr_slots, sizeof(*s->queue));
	if (!s->slots || !s->queue)
		goto fail;
	for (i = 0; i < s->nr_slots; i++)
		if (slot_alloc(s, &s->slots[i]))
			goto fail;
	init_shared(s);
	ret = budget_scan(s);
	if (ret)
		goto fail;
	ret = eventlog_open(&s->wlog, cfg->dirfd, cfg->uid, cfg->gid);
	if (ret)
		goto fail;
	eventlog_set_run(&s->wlog, cfg->run);
	ret = start_writer(s);
	if (ret)
		goto fail;
	s->thread_started = true;
	return s;
fail:
	snprintf(err, errlen, "can't set up snapshot staging: %s",
		 strerror(-ret));
	if (s)
		destroy(s);
	errno = -ret;
	return NULL;
}

/* A free slot; when none, the oldest queued one is dropped. Under lock. */
static struct slot *grab_slot(struct snapshots *s, uint64_t *dropped)
{
	unsigned int i, idx;

	*dropped = 0;
	for (i = 0; i < s->nr_slots; i++)
		if (s->slots[i].state == SLOT_FREE)
			return &s->slots[i];
	if (!s->q_len)
		return NULL; /* cannot happen: one slot is written at a time */
	idx = s->queue[s->q_head];
	s->q_head = (s->q_head + 1) % s->nr_slots;
	s->q_len--;
	*dropped = s->slots[idx].snap.id;
	return &s->slots[idx];
}

static int stage_cores(struct snapshots *s, struct slot *sl)
{
	size_t tb = cores_buffer_size(s->cores),
	       sb = cores_sideband_size(s->cores);
	unsigned int i;
	int ret = 0;

	bool skip = s->cfg.cpu_ran && !s->cfg.full &&
		    cores_scope(s->cores) == SCOPE_PROCESS;

	for (i = 0; i < s->nr_cores; i++) {
		__u8 *base = sl->mem + i * (tb + sb);
		int cpu = -1;

		cores_info(s->cores, i, &cpu, NULL, NULL);
		if (skip && !s->cfg.cpu_ran(s->cfg.cpu_ran_ctx, cpu))
			cores_read_unchanged(s->cores, i, &sl->cores[i], base,
					     base + tb);
		else if (cores_read(s->cores, i, s->cfg.full, &sl->cores[i],
				    base, tb, base + tb, sb))
			ret = -EIO;
	}
	return ret;
}

/* Nothing new on any core: no snapshot (bytes lost are news, though). */
static bool nothing_new(const struct slot *sl, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const struct snap_core *c = &sl->cores[i];

		if (c->trace_len || c->sideband_len || c->wrapped ||
		    c->lost_bytes || c->sb_wrapped || c->sb_lost_bytes)
			return false;
	}
	return true;
}

static void log_skipped(struct snapshots *s, const struct snap_trigger *t)
{
	struct json *j = eventlog_begin(s->log, "snapshot_skipped",
					clock_now_ns(), s->cfg.pid);

	json_str(j, "trigger", t->name);
	json_u64(j, "trigger_ts", t->ts);
	json_str(j, "reason", "no new bytes");
	eventlog_end(s->log);
	if (s->cfg.verbosity > 0)
		status_say_f("ptbpf: no snapshot (%s): no new bytes", t->name);
}

/*
 * A --trigger-on snapshot of the intel-pt backend: PT can't be cut by time
 * here. With aux-action the kernel stopped the hit's CPU at the hit;
 * otherwise, and on the other CPUs, the data goes on up to the staging at
 * most. Sample snapshots are cut by time when written.
 */
static void stage_cut(struct snapshots *s, struct snapshot *snap, __u64 mono)
{
	memset(&snap->cut, 0, sizeof(snap->cut));
	if (!snap->why.spec || snap->backend == BACKEND_SAMPLE)
		return;
	snap->cut.how = cores_aux_pause(s->cores) ? "kernel" : "staged";
	snap->cut.after_hit_ns = mono > snap->why.ts ? mono - snap->why.ts : 0;
}

int64_t snapshots_stage(struct snapshots *s, const struct snap_trigger *t)
{
	uint64_t real, mono;
	struct snapshot *snap;
	uint64_t dropped;
	struct slot *sl;
	char reason[96];
	int ret;

	pthread_mutex_lock(&s->lock);
	sl = grab_slot(s, &dropped);
	if (sl)
		sl->state = SLOT_WRITING; /* ours while staging */
	pthread_mutex_unlock(&s->lock);
	if (!sl)
		return -EBUSY;
	if (dropped) {
		snprintf(
			reason, sizeof(reason),
			"the writer fell behind: snapshot %llu dropped unwritten",
			(unsigned long long)dropped);
		log_error(s->log, s->cfg.pid, dropped, reason);
	}
	snap = &sl->snap;
	memset(snap, 0, sizeof(*snap));
	ret = stage_cores(s, sl);
	if (!ret && !s->cfg.full && nothing_new(sl, s->nr_cores)) {
		pthread_mutex_lock(&s->lock);
		sl->state = SLOT_FREE;
		pthread_mutex_unlock(&s->lock);
		log_skipped(s, t);
		return -ENODATA;
	}
	snap->id = s->next_id++;
	snap->backend = cores_backend(s->cores);
	snap->scope = cores_scope(s->cores);
	snap->scope_why = s->cfg.scope_why;
	snap->why = *t;
	snap->trigger = t->name;
	snap->trigger_ts = t->ts;
	snap->trigger_sig = t->sig;
	clock_pair(&real, &mono);
	snap->realtime_ns = real;
	snap->monotonic_ns = mono;
	stage_cut(s, snap, mono);
	snap->run_start_ns = s->cfg.run_start_ns;
	snap->pid = s->cfg.pid;
	snap->full = s->cfg.full;
	snap->data_attr = s->data_attr;
	snap->sb_attr = s->sb_attr;
	snap->conv = s->conv;
	snap->cpu_info = s->cpu_info;
	snap->nr_cores = s->nr_cores;
	snap->cores = sl->cores;

	pthread_mutex_lock(&s->lock);
	s->queue[(s->q_head + s->q_len) % s->nr_slots] = sl - s->slots;
	s->q_len++;
	sl->state = SLOT_QUEUED;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (ret)
		log_error(s->log, s->cfg.pid, snap->id,
			  cores_last_error(s->cores));
	return ret ? ret : (int64_t)snap->id;
}

void snapshots_note_thread(struct snapshots *s, uint32_t tid, const char *comm)
{
	if (!s || !comm)
		return;
	pthread_mutex_lock(&s->lock);
	threadnames_note(&s->names, tid, comm); /* -ENOMEM: /proc's name */
	pthread_mutex_unlock(&s->lock);
}

void snapshots_refresh_proc(struct snapshots *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->refresh = true;
	s->refresh_ms = 2;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

unsigned long snapshots_stop(struct snapshots *s)
{
	unsigned long n;

	if (!s)
		return 0;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->thread_started)
		pthread_join(s->thread, NULL);
	n = s->written;
	destroy(s);
	return n;
}
