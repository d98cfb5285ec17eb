/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The disk budget of the output directory: which snapshot directories are
 * there, how many bytes each holds, and which of the oldest must go so that
 * the next one fits within --max-size bytes and --max-snapshots
 * directories (perf's --max-size/--switch-max-files, for a directory of
 * snapshots). Pure bookkeeping: the writer removes the directories.
 */
#ifndef PTBPF_BUDGET_H
#define PTBPF_BUDGET_H

#include <stddef.h>
#include <stdint.h>

struct budget_entry {
	uint64_t id;
	uint64_t bytes;
};

struct budget {
	uint64_t max_bytes; /* 0: no limit */
	unsigned int max_count; /* 0: no limit */
	struct budget_entry *v; /* oldest (lowest id) first */
	size_t n, cap;
	uint64_t used; /* the sum of v[].bytes */
};

/* An empty budget with these limits (0: none). */
void budget_init(struct budget *b, uint64_t max_bytes, unsigned int max_count);
void budget_free(struct budget *b);

/*
 * Records snapshot @id of @bytes. Ids may come in any order; the list stays
 * sorted. Returns 0, -EEXIST if @id is already there, -ENOMEM.
 */
int budget_add(struct budget *b, uint64_t id, uint64_t bytes);

/* Forgets @id (removed, by us or by someone else). Returns 0 or -ENOENT. */
int budget_drop(struct budget *b, uint64_t id);

/*
 * How many of the oldest entries must go for one more snapshot of
 * @incoming bytes to fit (@incoming 0 and @extra 0: for what is there now
 * to fit). @extra is the number of snapshots about to be added (0 or 1).
 * Entries with an id >= @keep_from are never counted (the newest, which
 * must stay). *@why_size is set when --max-size, not only the count, asks
 * for it. Returns the number to remove from the front.
 */
size_t budget_excess(const struct budget *b, uint64_t incoming, unsigned int extra,
		     uint64_t keep_from, int *why_size);

#endif /* PTBPF_BUDGET_H */
