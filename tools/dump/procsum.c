// SPDX-License-Identifier: GPL-2.0
/* The followed processes' summaries: see procsum.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "dumpbe.h"
#include "last.h"
#include "procsum.h"
#include "symtab.h"
#include "textesc.h"

#define HOT_MAX 5
#define TIDS_MAX 64

/* One process's view of a snapshot, and what is counted of it. */
struct proc_view {
	struct dump_snap v; /* a copy of the snapshot read as the process */
	struct dump_symtab tab;
	struct dump_moments all; /* its samples, in time order */
	unsigned int nr_tids;
	struct {
		uint32_t tid;
		uint64_t samples;
	} tids[TIDS_MAX];
};

static void count_tid(struct proc_view *p, uint32_t tid)
{
	unsigned int k;

	for (k = 0; k < p->nr_tids; k++)
		if (p->tids[k].tid == tid)
			break;
	if (k == p->nr_tids) {
		if (k == TIDS_MAX)
			return;
		p->tids[k].tid = tid;
		p->tids[k].samples = 0;
		p->nr_tids++;
	}
	p->tids[k].samples++;
}

/*
 * @s read as process @pid into @p: its names from its own modules (a
 * file that is missing leaves addresses: no error in the snapshot).
 */
static int view_open(struct proc_view *p, const struct dump_snap *s, uint32_t pid)
{
	struct dump_log quiet = { NULL, 0 };
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->v = *s;
	snap_read_as(&p->v, pid);
	ret = symtab_load(&p->tab, &p->v, NULL, &quiet);
	if (!ret)
		ret = last_moments_add(&p->all, &p->v, 0, UINT64_MAX);
	if (ret)
		return ret;
	last_moments_sort(&p->all);
	for (i = 0; i < p->all.n; i++)
		count_tid(p, p->all.v[i].smp->tid);
	return 0;
}

static void view_close(struct proc_view *p)
{
	symtab_free(&p->tab);
	last_moments_free(&p->all);
}

/* How many of its samples came before the cause: the last ones listed. */
static size_t before_cause(const struct proc_view *p)
{
	size_t n = 0;

	while (n < p->all.n && p->all.v[n].smp->time <= p->v.cause_ts)
		n++;
	return n;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static int text_one(FILE *out, const struct dump_snap *s, uint32_t pid)
{
	struct dump_hot hot[HOT_MAX];
	struct proc_view p;
	const struct dump_snap *v = &p.v;
	uint64_t total;
	size_t i, n;
	int ret, nh;

	ret = view_open(&p, s, pid);
	if (ret) {
		view_close(&p);
		return ret;
	}
	fprintf(out, "  followed process %u (", pid);
	textesc_fputs(v->comm, out);
	fprintf(out, "): %u thread%s", v->nr_threads, v->nr_threads == 1 ? "" : "s");
	for (i = 0; i < v->nr_threads; i++) {
		fprintf(out, "%s%u ", i ? ", " : " (tid ", v->threads[i].tid);
		textesc_fputs(v->threads[i].comm, out);
	}
	fprintf(out, "%s\n", v->nr_threads ? ")" : "");
	fprintf(out, "    modules %u:", v->nr_modules + v->nr_ranges);
	for (i = 0; i < v->nr_modules; i++) {
		fputc(' ', out);
		textesc_fputs(base_name(v->modules[i].path), out);
	}
	for (i = 0; i < v->nr_ranges; i++) {
		fputc(' ', out);
		textesc_fputs(v->ranges[i].name, out);
	}
	fputc('\n', out);
	if (!dump_backend(s->backend)->samples) {
		view_close(&p);
		return 0;
	}
	fprintf(out, "    %zu sample%s", p.all.n, p.all.n == 1 ? "" : "s");
	for (i = 0; i < p.nr_tids; i++)
		fprintf(out, "%s %u: %" PRIu64, i ? ", tid" : " (tid", p.tids[i].tid,
			p.tids[i].samples);
	fprintf(out, "%s\n", p.nr_tids ? ")" : "");
	nh = last_hottest(v, &p.tab, hot, HOT_MAX, &total);
	if (nh < 0) {
		view_close(&p);
		return nh;
	}
	for (i = 0; i < (size_t)nh; i++)
		fprintf(out, "    %5.1f%%  %-32s %s\n",
			100.0 * (double)hot[i].samples / (double)total, hot[i].name, hot[i].module);
	n = before_cause(&p);
	if (last_stops(s) && n)
		last_before_text(out, v, p.all.v, n, DUMP_PROC_LAST, &p.tab, "    ");
	view_close(&p);
	return 0;
}

int procsum_text(FILE *out, const struct dump_snap *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].pid == s->pid || !snap_followed(s, s->procs[i].pid))
			continue;
		ret = text_one(out, s, s->procs[i].pid);
		if (ret)
			return ret;
	}
	return 0;
}

static int json_one(struct json *j, const struct dump_snap *s, uint32_t pid)
{
	char hex[24];
	struct dump_hot hot[HOT_MAX];
	struct proc_view p;
	const struct dump_snap *v = &p.v;
	uint64_t total;
	size_t i, n;
	int ret, nh = 0;

	ret = view_open(&p, s, pid);
	if (!ret && dump_backend(s->backend)->samples)
		nh = last_hottest(v, &p.tab, hot, HOT_MAX, &total);
	if (ret || nh < 0) {
		view_close(&p);
		return ret ? ret : nh;
	}
	json_obj_begin(j, NULL);
	json_u64(j, "pid", pid);
	json_str(j, "comm", v->comm);
	json_arr_begin(j, "threads");
	for (i = 0; i < v->nr_threads; i++) {
		json_obj_begin(j, NULL);
		json_u64(j, "tid", v->threads[i].tid);
		json_str(j, "comm", v->threads[i].comm);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "modules");
	for (i = 0; i < v->nr_modules; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", v->modules[i].path);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, v->modules[i].load);
		json_str(j, "load", hex);
		json_obj_end(j);
	}
	for (i = 0; i < v->nr_ranges; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "path", v->ranges[i].name);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, v->ranges[i].start);
		json_str(j, "load", hex);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (dump_backend(s->backend)->samples) {
		json_u64(j, "samples", p.all.n);
		json_arr_begin(j, "thread_samples");
		for (i = 0; i < p.nr_tids; i++) {
			json_obj_begin(j, NULL);
			json_u64(j, "tid", p.tids[i].tid);
			json_u64(j, "samples", p.tids[i].samples);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_arr_begin(j, "hottest");
		for (i = 0; i < (size_t)nh; i++) {
			json_obj_begin(j, NULL);
			json_str(j, "function", hot[i].name);
			json_str(j, "module", hot[i].module);
			json_u64(j, "samples", hot[i].samples);
			json_obj_end(j);
		}
		json_arr_end(j);
		n = last_stops(s) ? before_cause(&p) : 0;
		last_before_json(j, p.all.v, n, DUMP_PROC_LAST, &p.tab);
	}
	json_obj_end(j);
	view_close(&p);
	return 0;
}

int procsum_json(struct json *j, const struct dump_snap *s)
{
	unsigned int i;
	bool any = false;
	int ret;

	for (i = 0; i < s->nr_procs; i++) {
		if (s->procs[i].pid == s->pid || !snap_followed(s, s->procs[i].pid))
			continue;
		if (!any)
			json_arr_begin(j, "followed_processes");
		any = true;
		ret = json_one(j, s, s->procs[i].pid);
		if (ret)
			return ret;
	}
	if (any)
		json_arr_end(j);
	return j->err == -ENOMEM ? -ENOMEM : 0;
}
