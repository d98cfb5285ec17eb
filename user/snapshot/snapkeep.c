// SPDX-License-Identifier: GPL-2.0
/* Which snapshots the output directory keeps (snapkeep.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/errbuf.h"
#include "output/snapjson.h"
#include "snapkeep.h"
#include "snaplog.h"
#include "base/status.h"

int snapkeep_init(struct snapkeep *k, const struct snapwrite_opts *write, uint64_t max_size,
		  unsigned int max_snapshots, struct eventlog *log, uint32_t pid)
{
	uint64_t *ids, bytes;
	struct stat st;
	size_t n, i;
	int ret;

	memset(k, 0, sizeof(*k));
	k->write = write;
	k->max_size = max_size;
	k->log = log;
	k->pid = pid;
	k->block = fstat(write->dirfd, &st) || st.st_blksize <= 0 ? 4096 :
								    (unsigned long)st.st_blksize;
	/* events.jsonl has its share of --max-size; the snapshots the rest */
	budget_init(&k->budget, max_size ? max_size - eventlog_share(max_size) : 0, max_snapshots);
	k->limits = max_size || max_snapshots;
	if (!k->limits)
		return 0;
	ret = snapwrite_list(write->dirfd, &ids, &n);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		if (!snapwrite_size(write->dirfd, ids[i], &bytes))
			ret = budget_add(&k->budget, ids[i], bytes);
	free(ids);
	return ret == -EEXIST ? 0 : ret;
}

void snapkeep_remove_stale(struct snapkeep *k, int verbosity)
{
	uint64_t bytes;
	struct json *j;
	int n;

	n = snapwrite_remove_stale(k->write->dirfd, &bytes);
	if (n <= 0)
		return;
	j = eventlog_begin(k->log, "warning", clock_now_ns(), k->pid);
	json_str(j, "reason", "stale_temporary");
	json_u64(j, "removed", (uint64_t)n);
	json_u64(j, "bytes", bytes);
	eventlog_end(k->log);
	if (verbosity >= 0)
		status_say_f("ptbpf: removed %d temporary snapshot director%s (%.1f KiB) that a "
			     "killed run left in %s",
			     n, n == 1 ? "y" : "ies", bytes / 1024.0, k->write->out_dir);
}

/* What a snapshot will take on disk, at most: see snapwrite_estimate. */
static uint64_t estimate(const struct snapkeep *k, const struct snapshot *snap)
{
	uint64_t lost, pmax, psum;

	return snapwrite_estimate(snap, k->write->formats,
				  snapjson_staged(snap, &lost, &pmax, &psum), k->block);
}

/* Removes the @count oldest snapshots the budget holds, each an event. */
static void evict(struct snapkeep *k, size_t count, int why_size, struct snapkeep_removed *rm)
{
	struct budget_entry oldest;
	struct json *j;
	int ret;

	while (count--) {
		oldest = k->budget.v[0];
		ret = snapwrite_remove(k->write->dirfd, oldest.id);
		budget_drop(&k->budget, oldest.id);
		if (ret && ret != -ENOENT) {
			char why[160];

			snprintf(why, sizeof(why), "can't remove the oldest snapshot: %s",
				 strerror(-ret));
			snaplog_error(k->log, k->pid, oldest.id, why);
			continue;
		}
		j = eventlog_begin(k->log, "snapshot_removed", clock_now_ns(), k->pid);
		json_u64(j, "snapshot", oldest.id);
		json_u64(j, "bytes", oldest.bytes);
		json_str(j, "reason", why_size ? "max_size" : "max_snapshots");
		eventlog_end(k->log);
		rm->n++;
		rm->bytes += oldest.bytes;
		rm->size |= why_size;
	}
}

int snapkeep_make_room(struct snapkeep *k, const struct snapshot *snap, struct snapkeep_removed *rm,
		       char *err, size_t errlen)
{
	uint64_t est;
	int why_size;
	size_t excess;

	if (!k->limits)
		return 0;
	est = k->max_size ? estimate(k, snap) : 0;
	/* removing the others would not make it fit */
	if (k->budget.max_bytes && est > k->budget.max_bytes)
		return errbuf_set(err, errlen, -EFBIG,
				  "snapshot %" PRIu64 ": about %" PRIu64
				  " bytes, more than --max-size",
				  snap->id, est);
	excess = budget_excess(&k->budget, est, 0, UINT64_MAX, &why_size);
	evict(k, excess, why_size, rm);
	return 0;
}

void snapkeep_account(struct snapkeep *k, const struct snapshot *snap, struct snapkeep_removed *rm)
{
	uint64_t bytes = 0;
	int why_size;
	size_t excess;

	if (!k->limits)
		return;
	snapwrite_size(k->write->dirfd, snap->id, &bytes);
	budget_add(&k->budget, snap->id, bytes);
	excess = budget_excess(&k->budget, 0, 0, snap->id, &why_size);
	evict(k, excess, why_size, rm);
}

void snapkeep_books(const struct snapkeep *k, const struct snapkeep_removed *rm,
		    struct snaplog_books *books)
{
	*books = (struct snaplog_books){
		.limits = k->limits,
		.used = k->budget.used,
		.max_size = k->max_size,
		.removed = rm->n,
		.removed_bytes = rm->bytes,
		.removed_for_size = rm->size,
	};
}

void snapkeep_free(struct snapkeep *k)
{
	budget_free(&k->budget);
}
