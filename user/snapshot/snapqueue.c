// SPDX-License-Identifier: GPL-2.0
/* The snapshot writer thread and its bounded queue (snapqueue.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "collect/backend.h"
#include "base/clock.h"
#include "snapcut.h"
#include "snapkeep.h"
#include "snaplog.h"
#include "snapqueue.h"

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
	struct snapkeep keep; /* the writer thread's */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool thread_started;
};

/* Buffers come from mmap: pages cost memory only once a copy touches them. */
static int buf_alloc(struct snapqueue *q, struct snapqueue_buf *buf)
{
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

/* Writer thread: one staged snapshot to disk. Called without the lock. */
static void write_one(struct snapqueue *q, struct snapqueue_buf *buf)
{
	struct snapkeep_removed rm = { 0 };
	struct snaplog_books books;
	char path[PATH_MAX + 32], err[PATH_MAX + 256] = "";
	struct snap_thread *threads;
	uint64_t t0 = clock_now_ns();
	int ret;

	proccache_fill(q->cfg.procs, &buf->snap, &threads);
	/* a hit's snapshot ends at the hit: what came after is left out */
	if (buf->snap.why.spec && backend_ops(buf->snap.run.backend)->samples)
		snapcut_snapshot(&buf->snap);
	ret = snapkeep_make_room(&q->keep, &buf->snap, &rm, err, sizeof(err));
	if (!ret)
		ret = snapwrite_snapshot(&buf->snap, q->cfg.write, path, sizeof(path), err,
					 sizeof(err));
	proccache_put(&buf->snap);
	free(threads);
	if (ret) {
		/* a step that failed without a word: its error, never "" */
		if (!err[0])
			snprintf(err, sizeof(err), "snapshot %" PRIu64 ": %s", buf->snap.id,
				 strerror(-ret));
		snaplog_lost(&q->wlog, q->cfg.pid, buf->snap.id, err, q->cfg.verbosity);
		return;
	}
	q->written++;
	snapkeep_account(&q->keep, &buf->snap, &rm);
	snapkeep_books(&q->keep, &rm, &books);
	snaplog_written(&q->wlog, &buf->snap, path, clock_now_ns() - t0, &books, q->cfg.verbosity);
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
				proccache_refresh(q->cfg.procs);
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
	snapkeep_free(&q->keep);
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
	bool valid = cfg && cfg->write && cfg->procs;
	struct snapqueue *q = valid ? calloc(1, sizeof(*q)) : NULL;
	unsigned int i;
	int ret = valid ? -ENOMEM : -EINVAL;

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
	ret = snapkeep_init(&q->keep, cfg->write, cfg->max_size, cfg->max_snapshots, &q->wlog,
			    cfg->pid);
	if (ret)
		goto fail;
	ret = eventlog_open(&q->wlog, cfg->write->dirfd, cfg->write->uid, cfg->write->gid);
	if (ret)
		goto fail;
	eventlog_set_run(&q->wlog, cfg->run_id);
	eventlog_rot_join(&q->wlog, cfg->events_rot);
	snapkeep_remove_stale(&q->keep, cfg->verbosity);
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

uint8_t *snapqueue_core_mem(const struct snapqueue *q, struct snapqueue_buf *buf, unsigned int idx)
{
	return buf->mem + idx * (q->cfg.trace_cap + q->cfg.sb_cap);
}

void snapqueue_follow(struct snapqueue *q, uint32_t pid, bool gone)
{
	/* -ENOMEM: that process goes without its COMM/MMAP */
	if (!q || proccache_follow(q->cfg.procs, pid, gone))
		return;
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
