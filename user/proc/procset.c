// SPDX-License-Identifier: GPL-2.0
/* The followed processes' readings: see procset.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "procinfo.h"
#include "procset.h"

static int find(const struct procset *ps, uint32_t pid)
{
	unsigned int i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid)
			return (int)i;
	return -1;
}

/* Drops entry @i, keeping the order of the others. */
static void drop(struct procset *ps, unsigned int i)
{
	procinfo_free(&ps->v[i]);
	memmove(&ps->v[i], &ps->v[i + 1], (ps->n - i - 1) * sizeof(*ps->v));
	memmove(&ps->live[i], &ps->live[i + 1], (ps->n - i - 1) * sizeof(*ps->live));
	ps->n--;
}

/* Room for one more: grow, or forget the oldest process that is gone. */
static int make_room(struct procset *ps)
{
	unsigned int i, cap;
	void *v, *l;

	if (ps->n < ps->cap)
		return 0;
	if (ps->cap >= PROCSET_MAX) {
		for (i = 0; i < ps->n; i++)
			if (!ps->live[i]) {
				drop(ps, i);
				return 0;
			}
		return -ENOSPC;
	}
	cap = ps->cap ? 2 * ps->cap : 16;
	v = realloc(ps->v, cap * sizeof(*ps->v));
	if (!v)
		return -ENOMEM;
	ps->v = v;
	l = realloc(ps->live, cap * sizeof(*ps->live));
	if (!l)
		return -ENOMEM;
	ps->live = l;
	ps->cap = cap;
	return 0;
}

int procset_add(struct procset *ps, uint32_t pid)
{
	int ret;

	if (!ps || !pid)
		return -EINVAL;
	if (find(ps, pid) >= 0)
		return 0;
	ret = make_room(ps);
	if (ret)
		return ret;
	memset(&ps->v[ps->n], 0, sizeof(ps->v[ps->n]));
	ps->v[ps->n].pid = pid;
	ps->live[ps->n] = true;
	ps->n++;
	return 0;
}

void procset_gone(struct procset *ps, uint32_t pid)
{
	int i = ps ? find(ps, pid) : -1;

	if (i >= 0)
		ps->live[i] = false;
}

void procset_refresh(struct procset *ps, const char *proc_root)
{
	struct snap_process live;
	unsigned int i;

	for (i = 0; ps && i < ps->n; i++) {
		if (!ps->live[i])
			continue;
		memset(&live, 0, sizeof(live));
		if (procinfo_read(proc_root, ps->v[i].pid, &live) == 0 && live.nr_maps > 0) {
			procinfo_free(&ps->v[i]);
			ps->v[i] = live;
		} else {
			procinfo_free(&live);
		}
	}
}

void procset_free(struct procset *ps)
{
	unsigned int i;

	if (!ps)
		return;
	for (i = 0; i < ps->n; i++)
		procinfo_free(&ps->v[i]);
	free(ps->v);
	free(ps->live);
	memset(ps, 0, sizeof(*ps));
}
