// SPDX-License-Identifier: GPL-2.0
/* The snapshot writer thread and its bounded queue (snapqueue.h). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "backend.h"
#include "clock.h"
#include "budget.h"
#include "eventlog.h"
#include "kmaps.h"
#include "procinfo.h"
#include "snapcut.h"
#include "snapjson.h"
#include "snapqueue.h"
#include "snapwrite.h"
#include "status.h"
#include "threadnames.h"
#include "procset.h"

enum buf_state { BUF_FREE, BUF_QUEUED, BUF_TAKEN };

struct snapqueue {
	struct snapqueue_config cfg;
	struct eventlog wlog; /* the writer thread's */
	unsigned int nr_bufs;
	struct snapqueue_buf *bufs;
	unsigned int *queue; /* FIFO of buffer indices */
	unsigned int q_head, q_len;
	bool stopping, refresh;
	/*
	 * After an exec, the loader maps the libraries within milliseconds,
	 * and a short-lived target may be gone before the next idle reading:
	 * read again after 2, 4, 8 ... ms, then every second. 0: idle rate.
	 */
	unsigned int refresh_ms;
	unsigned long written;
	struct snap_process proc_cache; /* last reading with maps */
	/*
	 * --follow: the other processes (the writer's own), and the forks
	 * and exits the control thread told of since (under lock): pid, or
	 * -pid for an exit.
	 */
	struct procset followed;
	long *follow_news;
	unsigned int nr_news, cap_news;
	struct budget budget; /* writer thread's, when limits are set */
	unsigned long block; /* the output directory's block size */
	bool limits;
	struct threadnames names; /* under lock: from the BPF events */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_started;
};

/* Buffers come from mmap: pages cost memory only once a copy touches them. */
static int buf_alloc(struct snapqueue *q, struct snapqueue_buf *buf)
{
	unsigned int i;

	buf->cores = calloc(q->cfg.nr_cores, sizeof(*buf->cores));
	if (!buf->cores)
		return -ENOMEM;
	buf->mem_len = q->cfg.nr_cores * (q->cfg.trace_cap + q->cfg.sb_cap);
	buf->mem = mmap(NULL, buf->mem_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf->mem == MAP_FAILED) {
		buf->mem = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < q->cfg.nr_cores; i++)
		buf->cores[i].cpu = q->cfg.cpus ? q->cfg.cpus[i] : (int)i;
	return 0;
}

static void buf_free(struct snapqueue_buf *buf)
{
	if (buf->mem)
		munmap(buf->mem, buf->mem_len);
	free(buf->cores);
	free(buf->crash_mem);
	buf->crash_mem = NULL;
	buf->mem = NULL;
	buf->cores = NULL;
}

/* The forks and exits told since the last reading. Under lock. */
static void apply_news(struct snapqueue *q)
{
	unsigned int i;

	for (i = 0; i < q->nr_news; i++) {
		long v = q->follow_news[i];

		if (v > 0)
			procset_add(&q->followed, (__u32)v); /* else: unnamed */
		else
			procset_gone(&q->followed, (__u32)-v);
	}
	q->nr_news = 0;
}

/*
 * The kernel's MMAP2 records in @snap's staged sideband, merged into the
 * readings kept (kmaps.h), then taken out of it: a process that died
 * since its last reading still has the code it mapped meanwhile, in this
 * snapshot and the next, written as the readings' records are.
 */
static void merge_kernel_maps(struct snapqueue *q, struct snapshot *snap)
{
	struct snap_core *c;
	unsigned int i;

	if (!q->proc_cache.pid)
		q->proc_cache.pid = q->cfg.pid; /* never read: the kernel's alone */
	for (i = 0; i < snap->nr_cores; i++) {
		c = &snap->cores[i];
		/* -ENOMEM: /proc's alone */
		kmaps_merge(c->sideband, c->sideband_len, &q->proc_cache, q->followed.v,
			    q->followed.n);
		kmaps_strip(c->sideband, &c->sideband_len);
	}
}

/*
 * The /proc reading for a snapshot (@snap; NULL: an idle refresh): live,
 * or the last one that had maps with the kernel's records of what was
 * mapped since; the followed processes' too.
 */
static void take_proc(struct snapqueue *q, struct snap_process *out, struct snapshot *snap)
{
	struct snap_process live;

	pthread_mutex_lock(&q->lock);
	apply_news(q);
	pthread_mutex_unlock(&q->lock);
	if (snap)
		merge_kernel_maps(q, snap);
	procset_refresh(&q->followed, q->cfg.proc_root);

	memset(&live, 0, sizeof(live));
	if (procinfo_read(q->cfg.proc_root, q->cfg.pid, &live) == 0 && live.nr_maps > 0) {
		procinfo_free(&q->proc_cache);
		q->proc_cache = live;
	} else {
		procinfo_free(&live);
	}
	*out = q->proc_cache;
}

/* What the budget removed for one snapshot, for its line. */
struct removed {
	unsigned int n;
	uint64_t bytes;
	bool size; /* --max-size asked, not only --max-snapshots */
};

static void log_written(struct snapqueue *q, const struct snapshot *snap, const char *path,
			uint64_t write_ns, const struct removed *rm)
{
	uint64_t lost, pmax, psum, bytes;
	char line[PATH_MAX + 256];
	bool wrapped = false;
	struct json *j;
	unsigned int i;
	size_t n;

	bytes = snapjson_staged(snap, &lost, &pmax, &psum);
	for (i = 0; i < snap->nr_cores; i++)
		wrapped |= snap->cores[i].wrapped;
	/* --follow: the line names the process the trigger was in */
	j = eventlog_begin(&q->wlog, "snapshot", clock_now_ns(),
			   snap->why.pid ? snap->why.pid : q->cfg.pid);
	snapjson_line(j, snap, path, write_ns);
	if (q->limits)
		json_u64(j, "dir_bytes", q->budget.used);
	eventlog_end(&q->wlog);
	if (q->cfg.verbosity < 0)
		return;
	/* the status line counts it, when it is drawn (not after Ctrl-Z) */
	if (status_snapshot(bytes, q->budget.used, q->cfg.max_size) && q->cfg.verbosity == 0 &&
	    !rm->n)
		return;
	/* one write: the control thread prints lines of its own meanwhile */
	n = snprintf(line, sizeof(line), "ptbpf: snapshot %llu (%s): %s, %.1f KiB%s",
		     (unsigned long long)snap->id, snaptrig_name(snap->why.kind), path,
		     bytes / 1024.0, wrapped ? ", wrapped" : "");
	if (snap->why.folded)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      ", %u earlier stop%s folded in", snap->why.folded,
			      snap->why.folded == 1 ? "" : "s");
	if (snap->why.folded_hits)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      ", %u earlier hit%s folded in", snap->why.folded_hits,
			      snap->why.folded_hits == 1 ? "" : "s");
	if (rm->n)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; removed %u oldest (%.1f KiB) for %s", rm->n, rm->bytes / 1024.0,
			      rm->size ? "--max-size" : "--max-snapshots");
	if (q->cfg.max_size)
		n += snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
			      "; %.1f of %.1f MiB used", q->budget.used / 1048576.0,
			      q->cfg.max_size / 1048576.0);
	status_say_limited(line);
}

static void log_error(struct eventlog *log, uint32_t pid, uint64_t id, const char *reason)
{
	struct json *j = eventlog_begin(log, "snapshot_error", clock_now_ns(), pid);

	json_u64(j, "snapshot", id);
	json_str(j, "reason", reason);
	eventlog_end(log);
}

/* What a snapshot will take on disk, at most: see snapwrite_estimate. */
static uint64_t estimate(const struct snapqueue *q, const struct snapshot *snap)
{
	uint64_t lost, pmax, psum;

	return snapwrite_estimate(snap, q->cfg.formats, snapjson_staged(snap, &lost, &pmax, &psum),
				  q->block);
}

/* Removes the @count oldest snapshots the budget holds, each an event. */
static void evict(struct snapqueue *q, size_t count, int why_size, struct removed *rm)
{
	struct budget_entry oldest;
	struct json *j;
	int ret;

	while (count--) {
		oldest = q->budget.v[0];
		ret = snapwrite_remove(q->cfg.dirfd, oldest.id);
		budget_drop(&q->budget, oldest.id);
		if (ret && ret != -ENOENT) {
			char why[160];

			snprintf(why, sizeof(why), "can't remove the oldest snapshot: %s",
				 strerror(-ret));
			log_error(&q->wlog, q->cfg.pid, oldest.id, why);
			continue;
		}
		j = eventlog_begin(&q->wlog, "snapshot_removed", clock_now_ns(), q->cfg.pid);
		json_u64(j, "snapshot", oldest.id);
		json_u64(j, "bytes", oldest.bytes);
		json_str(j, "reason", why_size ? "max_size" : "max_snapshots");
		eventlog_end(&q->wlog);
		rm->n++;
		rm->bytes += oldest.bytes;
		rm->size |= why_size;
	}
}

/* Makes room for @snap before it is written. Returns false if it can't fit. */
static bool make_room(struct snapqueue *q, const struct snapshot *snap, struct removed *rm)
{
	uint64_t est = q->cfg.max_size ? estimate(q, snap) : 0;
	int why_size;
	size_t excess;

	if (q->budget.max_bytes && est > q->budget.max_bytes)
		return false; /* removing the others would not make it fit */
	excess = budget_excess(&q->budget, est, 0, UINT64_MAX, &why_size);
	evict(q, excess, why_size, rm);
	return true;
}

/* Counts the snapshot just written, then trims to the limits again. */
static void account(struct snapqueue *q, const struct snapshot *snap, struct removed *rm)
{
	unsigned long long bytes = 0;
	int why_size;
	size_t excess;

	snapwrite_size(q->cfg.dirfd, snap->id, &bytes);
	budget_add(&q->budget, snap->id, bytes);
	excess = budget_excess(&q->budget, 0, 0, snap->id, &why_size);
	evict(q, excess, why_size, rm);
}

/* Writer thread: one staged snapshot to disk. Called without the lock. */
static void write_one(struct snapqueue *q, struct snapqueue_buf *buf)
{
	struct removed rm = { 0 };
	struct snapwrite_opts opts = {
		.out_dir = q->cfg.out_dir,
		.dirfd = q->cfg.dirfd,
		.uid = q->cfg.uid,
		.gid = q->cfg.gid,
		.formats = q->cfg.formats,
		.buildid_cache = q->cfg.buildid_cache,
	};
	char path[PATH_MAX + 32], err[PATH_MAX + 256];
	struct snap_thread *threads = NULL;
	uint64_t t0 = clock_now_ns();
	unsigned int nr;
	int ret;

	take_proc(q, &buf->snap.proc, &buf->snap);
	buf->snap.more = q->followed.v;
	buf->snap.nr_more = q->followed.n;
	/* threads gone by now keep the name they had (perf shows ":TID") */
	pthread_mutex_lock(&q->lock);
	if (!threadnames_merge(&q->names, &buf->snap.proc, &threads, &nr)) {
		buf->snap.proc.threads = threads;
		buf->snap.proc.nr_threads = nr;
	}
	pthread_mutex_unlock(&q->lock);
	/* a trigger's snapshot ends at the hit: what came after is left out */
	if (buf->snap.why.spec && backend_ops(buf->snap.run.backend)->samples)
		snapcut_snapshot(&buf->snap);
	ret = 0;
	if (q->limits && !make_room(q, &buf->snap, &rm)) {
		snprintf(err, sizeof(err), "snapshot %llu: about %llu bytes, more than --max-size",
			 (unsigned long long)buf->snap.id,
			 (unsigned long long)estimate(q, &buf->snap));
		ret = -EFBIG;
	}
	if (!ret)
		ret = snapwrite_snapshot(&buf->snap, &opts, path, sizeof(path), err, sizeof(err));
	memset(&buf->snap.proc, 0, sizeof(buf->snap.proc)); /* the cache's */
	buf->snap.more = NULL; /* the procset's */
	buf->snap.nr_more = 0;
	free(threads);
	if (ret) {
		log_error(&q->wlog, q->cfg.pid, buf->snap.id, err);
		if (q->cfg.verbosity >= 0) {
			char line[sizeof(err) + 64];

			snprintf(line, sizeof(line), "ptbpf: snapshot %llu lost: %s",
				 (unsigned long long)buf->snap.id, err);
			status_say_limited(line);
		}
		return;
	}
	q->written++;
	if (q->limits)
		account(q, &buf->snap, &rm);
	log_written(q, &buf->snap, path, clock_now_ns() - t0, &rm);
}

static void *writer_main(void *arg)
{
	struct snapqueue *q = arg;
	struct timespec deadline;
	struct snapqueue_buf *buf;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->q_len && !q->stopping) {
			clock_gettime(CLOCK_REALTIME, &deadline);
			if (q->refresh_ms) {
				deadline.tv_nsec += q->refresh_ms * 1000000L;
				deadline.tv_sec += deadline.tv_nsec / 1000000000L;
				deadline.tv_nsec %= 1000000000L;
				q->refresh_ms = q->refresh_ms >= 512 ? 0 : q->refresh_ms * 2;
			} else {
				deadline.tv_sec += 1;
			}
			if (pthread_cond_timedwait(&q->cond, &q->lock, &deadline) == ETIMEDOUT ||
			    q->refresh) {
				/* idle: keep a reading with maps for later */
				q->refresh = false;
				pthread_mutex_unlock(&q->lock);
				take_proc(q, &(struct snap_process){}, NULL);
				pthread_mutex_lock(&q->lock);
			}
		}
		if (!q->q_len)
			break; /* stopping, and nothing left */
		buf = &q->bufs[q->queue[q->q_head]];
		q->q_head = (q->q_head + 1) % q->nr_bufs;
		q->q_len--;
		buf->state = BUF_TAKEN;
		pthread_mutex_unlock(&q->lock);
		write_one(q, buf);
		pthread_mutex_lock(&q->lock);
		buf->state = BUF_FREE;
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

/* The snapshots already in the directory count against the limits. */
static int budget_scan(struct snapqueue *q)
{
	unsigned long long *ids, bytes;
	struct stat st;
	size_t n, i;
	int ret;

	q->block = fstat(q->cfg.dirfd, &st) || st.st_blksize <= 0 ? 4096 :
								    (unsigned long)st.st_blksize;
	/* events.jsonl has its share of --max-size; the snapshots the rest */
	budget_init(&q->budget,
		    q->cfg.max_size ? q->cfg.max_size - eventlog_share(q->cfg.max_size) : 0,
		    q->cfg.max_snapshots);
	q->limits = q->cfg.max_size || q->cfg.max_snapshots;
	if (!q->limits)
		return 0;
	ret = snapwrite_list(q->cfg.dirfd, &ids, &n);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		if (!snapwrite_size(q->cfg.dirfd, ids[i], &bytes))
			ret = budget_add(&q->budget, ids[i], bytes);
	free(ids);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * A run killed while it wrote a snapshot left its temporary directory: it
 * would take the name of this run's snapshot of that number, and disk space
 * --max-size does not see. Removed, and said.
 */
static void remove_stale(struct snapqueue *q)
{
	unsigned long long bytes;
	struct json *j;
	int n;

	n = snapwrite_remove_stale(q->cfg.dirfd, &bytes);
	if (n <= 0)
		return;
	j = eventlog_begin(&q->wlog, "warning", clock_now_ns(), q->cfg.pid);
	json_str(j, "reason", "stale_temporary");
	json_u64(j, "removed", (uint64_t)n);
	json_u64(j, "bytes", bytes);
	eventlog_end(&q->wlog);
	if (q->cfg.verbosity >= 0)
		status_say_f("ptbpf: removed %d temporary snapshot director%s (%.1f KiB) that a "
			     "killed run left in %s",
			     n, n == 1 ? "y" : "ies", bytes / 1024.0, q->cfg.out_dir);
}

/* The writer takes no signal: they are the control thread's (signalfd). */
static int start_writer(struct snapqueue *q)
{
	sigset_t all, old;
	int ret;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&q->thread, NULL, writer_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

static void destroy(struct snapqueue *q)
{
	unsigned int i;

	for (i = 0; q->bufs && i < q->nr_bufs; i++)
		buf_free(&q->bufs[i]);
	free(q->bufs);
	free(q->queue);
	procinfo_free(&q->proc_cache);
	procset_free(&q->followed);
	free(q->follow_news);
	budget_free(&q->budget);
	threadnames_free(&q->names);
	eventlog_close(&q->wlog);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q);
}

/* A free buffer; when none, the oldest queued one is dropped. Under lock. */
static struct snapqueue_buf *grab(struct snapqueue *q, uint64_t *dropped)
{
	unsigned int i, idx;

	*dropped = 0;
	for (i = 0; i < q->nr_bufs; i++)
		if (q->bufs[i].state == BUF_FREE)
			return &q->bufs[i];
	if (!q->q_len)
		return NULL; /* cannot happen: one is written at a time */
	idx = q->queue[q->q_head];
	q->q_head = (q->q_head + 1) % q->nr_bufs;
	q->q_len--;
	*dropped = q->bufs[idx].snap.id;
	return &q->bufs[idx];
}

struct snapqueue *snapqueue_start(const struct snapqueue_config *cfg)
{
	struct snapqueue *q = cfg ? calloc(1, sizeof(*q)) : NULL;
	unsigned int i;
	int ret = cfg ? -ENOMEM : -EINVAL;

	if (!q)
		goto fail;
	q->cfg = *cfg;
	q->nr_bufs = (cfg->queue_len ? cfg->queue_len : SNAPQUEUE_DEFAULT_LEN) + 1;
	eventlog_init(&q->wlog);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->bufs = calloc(q->nr_bufs, sizeof(*q->bufs));
	q->queue = calloc(q->nr_bufs, sizeof(*q->queue));
	if (!q->bufs || !q->queue)
		goto fail;
	for (i = 0; i < q->nr_bufs; i++)
		if (buf_alloc(q, &q->bufs[i]))
			goto fail;
	q->cfg.cpus = NULL; /* the caller's: read only here */
	ret = budget_scan(q);
	if (ret)
		goto fail;
	ret = eventlog_open(&q->wlog, cfg->dirfd, cfg->uid, cfg->gid);
	if (ret)
		goto fail;
	eventlog_set_run(&q->wlog, cfg->run_id);
	eventlog_rot_join(&q->wlog, cfg->events_rot);
	remove_stale(q);
	ret = start_writer(q);
	if (ret)
		goto fail;
	q->thread_started = true;
	return q;
fail:
	if (q)
		destroy(q);
	errno = -ret;
	return NULL;
}

struct snapqueue_buf *snapqueue_take(struct snapqueue *q, uint64_t *dropped)
{
	struct snapqueue_buf *buf;

	pthread_mutex_lock(&q->lock);
	buf = grab(q, dropped);
	if (buf)
		buf->state = BUF_TAKEN; /* the stager's until pushed */
	pthread_mutex_unlock(&q->lock);
	return buf;
}

void snapqueue_push(struct snapqueue *q, struct snapqueue_buf *buf)
{
	pthread_mutex_lock(&q->lock);
	q->queue[(q->q_head + q->q_len) % q->nr_bufs] = buf - q->bufs;
	q->q_len++;
	buf->state = BUF_QUEUED;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void snapqueue_put_back(struct snapqueue *q, struct snapqueue_buf *buf)
{
	pthread_mutex_lock(&q->lock);
	buf->state = BUF_FREE;
	pthread_mutex_unlock(&q->lock);
}

__u8 *snapqueue_core_mem(const struct snapqueue *q, struct snapqueue_buf *buf, unsigned int idx)
{
	return buf->mem + idx * (q->cfg.trace_cap + q->cfg.sb_cap);
}

void snapqueue_note_thread(struct snapqueue *q, uint32_t tid, const char *comm)
{
	if (!q || !comm)
		return;
	pthread_mutex_lock(&q->lock);
	threadnames_note(&q->names, tid, comm); /* -ENOMEM: /proc's name */
	pthread_mutex_unlock(&q->lock);
}

void snapqueue_follow(struct snapqueue *q, uint32_t pid, bool gone)
{
	unsigned int cap;
	long *v;

	if (!q || !pid)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->nr_news == q->cap_news) {
		cap = q->cap_news ? 2 * q->cap_news : 32;
		v = realloc(q->follow_news, cap * sizeof(*v));
		if (!v) {
			/* -ENOMEM: that process goes without its COMM/MMAP */
			pthread_mutex_unlock(&q->lock);
			return;
		}
		q->follow_news = v;
		q->cap_news = cap;
	}
	q->follow_news[q->nr_news++] = gone ? -(long)pid : (long)pid;
	pthread_mutex_unlock(&q->lock);
	/* a new process: read it soon, before it may be gone */
	if (!gone)
		snapqueue_refresh_proc(q);
}

void snapqueue_refresh_proc(struct snapqueue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->refresh = true;
	q->refresh_ms = 2;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

unsigned long snapqueue_stop(struct snapqueue *q)
{
	unsigned long n;

	if (!q)
		return 0;
	pthread_mutex_lock(&q->lock);
	q->stopping = true;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	if (q->thread_started)
		pthread_join(q->thread, NULL);
	n = q->written;
	destroy(q);
	return n;
}
