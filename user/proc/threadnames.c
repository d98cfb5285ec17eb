// SPDX-License-Identifier: GPL-2.0
/* Thread names from the BPF events: see threadnames.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "threadnames.h"

int threadnames_note(struct threadnames *t, uint32_t tid, const char *comm)
{
	unsigned int i, max;
	struct snap_thread *v;

	if (!t || !comm)
		return -EINVAL;
	max = t->max ? t->max : THREADNAMES_MAX;
	for (i = 0; i < t->n && t->v[i].tid != tid; i++)
		;
	if (i < t->n) {
		/* the newest note moves to the end: it is evicted last */
		memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*v));
		t->n--;
	} else if (t->n == max) {
		memmove(&t->v[0], &t->v[1], (t->n - 1) * sizeof(*v));
		t->n--;
	}
	if (t->n == t->cap) {
		v = reallocarray(t->v, t->cap ? 2 * t->cap : 64, sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = t->cap ? 2 * t->cap : 64;
	}
	t->v[t->n].tid = tid;
	snprintf(t->v[t->n].comm, sizeof(t->v[t->n].comm), "%.15s", comm);
	t->n++;
	return 0;
}

static bool is_live(const struct snap_process *p, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].tid == tid)
			return true;
	return false;
}

int threadnames_merge(const struct threadnames *t, const struct snap_process *live,
		      struct snap_thread **out, unsigned int *n)
{
	struct snap_thread *v;
	unsigned int i, k;

	if (!t || !live || !out || !n)
		return -EINVAL;
	v = calloc(live->nr_threads + t->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (k = 0; k < live->nr_threads; k++)
		v[k] = live->threads[k];
	for (i = 0; i < t->n; i++)
		if (!is_live(live, t->v[i].tid))
			v[k++] = t->v[i];
	*out = v;
	*n = k;
	return 0;
}

void threadnames_free(struct threadnames *t)
{
	if (!t)
		return;
	free(t->v);
	memset(t, 0, sizeof(*t));
}
