// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump --last: see lastjoin.h. A mode, as the summary is: it loads
 * snapshots and asks their backend's row (dumpbe.h), so it is above the
 * backends' table; last.c, which the sample backend's parts use, is not.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "dumpbe.h"
#include "lastjoin.h"
#include "load.h"
#include "snapfmt.h"
#include "textesc.h"

/* The snapshots joined, newest first. */
struct join {
	struct dump_snap *v;
	unsigned int n;
};

static void join_free(struct join *j)
{
	unsigned int i;

	for (i = 0; i < j->n; i++)
		snap_free(&j->v[i]);
	free(j->v);
}

/* Loads snapshot @id of @out_dir; 1 when it is there, 0 when not. */
static int load_id(struct join *j, const char *out_dir, uint64_t id, struct dump_log *log)
{
	char path[4096], meta[4200];
	struct stat st;
	int ret;

	snprintf(path, sizeof(path), "%s/" SNAPFMT_PREFIX "%06" PRIu64, out_dir, id);
	snprintf(meta, sizeof(meta), "%s/ptbpf.json", path);
	if (stat(meta, &st))
		return 0;
	ret = load_snapshot(path, &j->v[j->n], log);
	if (ret) {
		snap_free(&j->v[j->n]);
		return ret == -ENOMEM ? ret : 0;
	}
	j->n++;
	return 1;
}

/* Older snapshots until the window's start is covered. */
static int join_older(struct join *j, const char *out_dir, uint64_t from, bool *covered)
{
	const struct dump_snap *last = &j->v[0];
	uint64_t id = last->id, first, end;
	struct dump_log quiet = { NULL, 0 };
	int ret;

	for (;;) {
		first = UINT64_MAX;
		end = 0;
		last = &j->v[j->n - 1];
		if (last_snap_span(last, &first, &end) && first <= from) {
			*covered = true;
			return 0;
		}
		if (id <= 1 || j->n == DUMP_LAST_MAX_SNAPS)
			return 0;
		ret = load_id(j, out_dir, --id, &quiet);
		if (ret <= 0)
			return ret;
		/* the run's target: a --follow run's snapshots are read as
		 * the process each one's cause was in */
		if (j->v[j->n - 1].run_pid != j->v[0].run_pid) {
			/* another run's: the target's history ends here */
			snap_free(&j->v[--j->n]);
			return 0;
		}
	}
}

static void print_join(FILE *out, const struct join *j, uint64_t dur, const struct dump_moments *m,
		       bool covered, const struct dump_symtab *tab)
{
	const struct dump_snap *s = &j->v[0];
	char when[48], trig[TEXTESC_SIZE(sizeof(s->cause))];
	size_t i;

	textesc_fputs(s->dir, out);
	fprintf(out,
		": the last %.3f ms before the %s at %s: %zu samples of "
		"pid %u from snapshot%s %" PRIu64 "..%" PRIu64 "\n",
		(double)dur / 1e6, textesc_str(trig, sizeof(trig), s->cause[0] ? s->cause : "?"),
		last_time_str(s, s->cause_ts, when, sizeof(when)), m->n, s->pid,
		j->n > 1 ? "s" : "", j->v[j->n - 1].id, s->id);
	if (!covered)
		fputs("  (nothing older was recorded, or it is gone: the "
		      "window starts later)\n",
		      out);
	for (i = 0; i < m->n; i++)
		last_moment_print(out, s, &m->v[i], s->cause_ts, tab);
}

static int join_print(FILE *out, struct join *j, const char *out_dir, uint64_t dur, uint32_t pid,
		      struct dump_log *log)
{
	struct dump_snap *s = &j->v[0];
	uint64_t to = s->cause_ts, from = to > dur ? to - dur : 0;
	struct dump_log quiet = { NULL, 0 };
	struct dump_moments m = { 0 };
	struct dump_symtab tab = { 0 };
	bool covered = false;
	unsigned int i;
	int ret;

	ret = join_older(j, out_dir, from, &covered);
	/* one process's samples in each, read as that process (its name,
	 * its modules): the cause's, or --pid's */
	if (!pid)
		pid = s->pid;
	for (i = 0; !ret && i < j->n; i++) {
		snap_read_as(&j->v[i], pid);
		ret = last_moments_add(&m, &j->v[i], from, to);
	}
	if (!ret) {
		last_moments_sort(&m);
		/* names from the newest snapshot that maps the process's code
		 * (an exec changes it); a missing file leaves addresses,
		 * which is no error in the input */
		for (i = 0; i + 1 < j->n && !j->v[i].nr_modules; i++)
			;
		ret = symtab_load(&tab, &j->v[i], NULL, &quiet);
	}
	if (!ret)
		print_join(out, j, dur, &m, covered, &tab);
	symtab_free(&tab);
	last_moments_free(&m);
	return ret;
}

int last_join(FILE *out, const char *dir, uint64_t dur, struct dump_log *log)
{
	return last_join_pid(out, dir, dur, 0, log);
}

int last_join_pid(FILE *out, const char *dir, uint64_t dur, uint32_t pid, struct dump_log *log)
{
	struct join j = { 0 };
	char *copy;
	int ret;

	if (!out || !dir || !log)
		return -EINVAL;
	j.v = calloc(DUMP_LAST_MAX_SNAPS, sizeof(*j.v));
	copy = strdup(dir);
	if (!j.v || !copy) {
		free(j.v);
		free(copy);
		return -ENOMEM;
	}
	ret = load_snapshot(dir, &j.v[0], log);
	j.n = 1;
	if (!ret && dump_backend(j.v[0].backend)->aux) {
		snap_error(log, dir, -1,
			   "--last reads sample snapshots; for intel-pt use "
			   "--insn on each");
		ret = -EOPNOTSUPP;
	}
	if (!ret)
		ret = join_print(out, &j, dirname(copy), dur, pid, log);
	join_free(&j);
	free(copy);
	return ret;
}
