// SPDX-License-Identifier: GPL-2.0
/* The snapshot writer's readings of /proc (proccache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kmaps.h"
#include "proccache.h"
#include "procinfo.h"

void proccache_init(struct proccache *pc, const char *proc_root, uint32_t pid)
{
	memset(pc, 0, sizeof(*pc));
	pc->pid = pid;
	pc->proc_root = proc_root;
	pthread_mutex_init(&pc->lock, NULL);
}

void proccache_note_thread(struct proccache *pc, uint32_t tid, const char *comm)
{
	if (!pc || !comm)
		return;
	pthread_mutex_lock(&pc->lock);
	threadnames_note(&pc->names, tid, comm); /* -ENOMEM: /proc's name */
	pthread_mutex_unlock(&pc->lock);
}

int proccache_follow(struct proccache *pc, uint32_t pid, bool gone)
{
	unsigned int cap;
	long *v;

	if (!pc || !pid)
		return -EINVAL;
	pthread_mutex_lock(&pc->lock);
	if (pc->nr_news == pc->cap_news) {
		cap = pc->cap_news ? 2 * pc->cap_news : 32;
		v = realloc(pc->news, cap * sizeof(*v));
		if (!v) {
			pthread_mutex_unlock(&pc->lock);
			return -ENOMEM;
		}
		pc->news = v;
		pc->cap_news = cap;
	}
	pc->news[pc->nr_news++] = gone ? -(long)pid : (long)pid;
	pthread_mutex_unlock(&pc->lock);
	return 0;
}

/* The forks and exits told since the last reading. Under lock. */
static void apply_news(struct proccache *pc)
{
	unsigned int i;

	for (i = 0; i < pc->nr_news; i++) {
		long v = pc->news[i];

		if (v > 0)
			procset_add(&pc->followed, (uint32_t)v); /* else: unnamed */
		else
			procset_gone(&pc->followed, (uint32_t)-v);
	}
	pc->nr_news = 0;
}

/*
 * The kernel's MMAP2 records in @snap's staged sideband, merged into the
 * readings kept (kmaps.h), then taken out of it: a process that died
 * since its last reading still has the code it mapped meanwhile, in this
 * snapshot and the next, written as the readings' records are.
 */
static void merge_kernel_maps(struct proccache *pc, struct snapshot *snap)
{
	struct snap_core *c;
	unsigned int i;

	if (!pc->last.pid)
		pc->last.pid = pc->pid; /* never read: the kernel's alone */
	for (i = 0; i < snap->nr_cores; i++) {
		c = &snap->cores[i];
		/* -ENOMEM: /proc's alone */
		kmaps_merge(c->sideband, c->sideband_len, &pc->last, pc->followed.v,
			    pc->followed.n);
		kmaps_strip(c->sideband, &c->sideband_len);
	}
}

/*
 * The /proc reading for a snapshot (@snap; NULL: an idle refresh): live,
 * or the last one that had maps with the kernel's records of what was
 * mapped since; the followed processes' too.
 */
static void take(struct proccache *pc, struct snapshot *snap)
{
	struct snap_process live;

	pthread_mutex_lock(&pc->lock);
	apply_news(pc);
	pthread_mutex_unlock(&pc->lock);
	if (snap)
		merge_kernel_maps(pc, snap);
	procset_refresh(&pc->followed, pc->proc_root);

	memset(&live, 0, sizeof(live));
	if (procinfo_read(pc->proc_root, pc->pid, &live) == 0 && live.nr_maps > 0) {
		procinfo_free(&pc->last);
		pc->last = live;
	} else {
		procinfo_free(&live);
	}
}

void proccache_refresh(struct proccache *pc)
{
	take(pc, NULL);
}

void proccache_fill(struct proccache *pc, struct snapshot *snap, struct snap_thread **threads)
{
	unsigned int nr;

	*threads = NULL;
	take(pc, snap);
	snap->proc = pc->last;
	snap->more = pc->followed.v;
	snap->nr_more = pc->followed.n;
	/* threads gone by now keep the name they had (perf shows ":TID") */
	pthread_mutex_lock(&pc->lock);
	if (!threadnames_merge(&pc->names, &snap->proc, threads, &nr)) {
		snap->proc.threads = *threads;
		snap->proc.nr_threads = nr;
	}
	pthread_mutex_unlock(&pc->lock);
}

void proccache_put(struct snapshot *snap)
{
	memset(&snap->proc, 0, sizeof(snap->proc)); /* the cache's */
	snap->more = NULL; /* the procset's */
	snap->nr_more = 0;
}

void proccache_free(struct proccache *pc)
{
	if (!pc)
		return;
	procinfo_free(&pc->last);
	procset_free(&pc->followed);
	free(pc->news);
	pc->news = NULL;
	pc->nr_news = pc->cap_news = 0;
	threadnames_free(&pc->names);
	pthread_mutex_destroy(&pc->lock);
}
