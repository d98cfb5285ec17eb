// SPDX-License-Identifier: GPL-2.0
/* The disk budget of the output directory: see budget.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"

void budget_init(struct budget *b, uint64_t max_bytes, unsigned int max_count)
{
	memset(b, 0, sizeof(*b));
	b->max_bytes = max_bytes;
	b->max_count = max_count;
}

void budget_free(struct budget *b)
{
	if (!b)
		return;
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
	b->used = 0;
}

int budget_add(struct budget *b, uint64_t id, uint64_t bytes)
{
	struct budget_entry *p;
	size_t i;

	if (!b)
		return -EINVAL;
	for (i = 0; i < b->n && b->v[i].id < id; i++)
		;
	if (i < b->n && b->v[i].id == id)
		return -EEXIST;
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;

		p = reallocarray(b->v, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->v = p;
		b->cap = cap;
	}
	memmove(&b->v[i + 1], &b->v[i], (b->n - i) * sizeof(*b->v));
	b->v[i].id = id;
	b->v[i].bytes = bytes;
	b->n++;
	b->used += bytes;
	return 0;
}

int budget_drop(struct budget *b, uint64_t id)
{
	size_t i;

	if (!b)
		return -EINVAL;
	for (i = 0; i < b->n && b->v[i].id != id; i++)
		;
	if (i == b->n)
		return -ENOENT;
	b->used -= b->v[i].bytes;
	memmove(&b->v[i], &b->v[i + 1], (b->n - i - 1) * sizeof(*b->v));
	b->n--;
	return 0;
}

size_t budget_excess(const struct budget *b, uint64_t incoming, unsigned int extra,
		     uint64_t keep_from, int *why_size)
{
	uint64_t used = b->used + incoming;
	size_t n = b->n + extra, k = 0;

	*why_size = 0;
	while (k < b->n && b->v[k].id < keep_from) {
		bool over_count = b->max_count && n > b->max_count;
		bool over_size = b->max_bytes && used > b->max_bytes;

		if (!over_count && !over_size)
			break;
		if (over_size)
			*why_size = 1;
		used -= b->v[k].bytes;
		n--;
		k++;
	}
	return k;
}
