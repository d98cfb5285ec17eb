// SPDX-License-Identifier: GPL-2.0
/* How a sample snapshot shows in the outputs: see sampshow.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fpcheck.h"
#include "last.h"
#include "perfread.h"
#include "sampshow.h"

/* Samples listed before the cause of a stop or fatal snapshot. */
#define DUMP_SUM_LAST 8

static void count_proc(struct dump_core_sum *sum, uint32_t pid)
{
	unsigned int k;

	sum->followed_samples++;
	for (k = 0; k < sum->nr_procs; k++)
		if (sum->procs[k].pid == pid)
			break;
	if (k == sum->nr_procs) {
		if (k == DUMP_SUM_THREADS)
			return;
		sum->procs[k].pid = pid;
		sum->procs[k].samples = 0;
		sum->nr_procs++;
	}
	sum->procs[k].samples++;
}

int sampshow_core_sum(const struct dump_snap *s, const struct dump_core *c,
		      struct dump_core_sum *sum, struct dump_log *log)
{
	const struct dump_sample *smp;
	unsigned int k;
	size_t i;

	for (i = 0; i < c->nr_samples; i++) {
		smp = &c->samples[i];
		if (smp->pid != s->pid) {
			/* another process of the run, or one not traced */
			if (snap_followed(s, smp->pid))
				count_proc(sum, smp->pid);
			else
				sum->other_samples++;
			continue;
		}
		sum->target_samples++;
		for (k = 0; k < sum->nr_threads; k++)
			if (sum->threads[k].tid == smp->tid)
				break;
		if (k == sum->nr_threads) {
			if (k == DUMP_SUM_THREADS)
				continue;
			sum->threads[k].tid = smp->tid;
			sum->threads[k].samples = 0;
			sum->nr_threads++;
		}
		sum->threads[k].samples++;
	}
	(void)log;
	return 0;
}

void sampshow_core_text(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
			uint64_t *first, uint64_t *last)
{
	unsigned int k;

	(void)s;
	(void)first;
	(void)last;
	fprintf(out, "    samples: target %" PRIu64, sum->target_samples);
	for (k = 0; k < sum->nr_threads; k++)
		fprintf(out, "%s %u: %" PRIu64, k ? ", tid" : " (tid", sum->threads[k].tid,
			sum->threads[k].samples);
	if (sum->nr_procs) {
		fprintf(out, "%s, followed %" PRIu64, sum->nr_threads ? ")" : "",
			sum->followed_samples);
		for (k = 0; k < sum->nr_procs; k++)
			fprintf(out, "%s %u: %" PRIu64, k ? ", pid" : " (pid", sum->procs[k].pid,
				sum->procs[k].samples);
	}
	fprintf(out, "%s, others %" PRIu64 "\n", sum->nr_procs || sum->nr_threads ? ")" : "",
		sum->other_samples);
}

void sampshow_core_json(struct json *j, const struct dump_snap *s, const struct dump_core_sum *sum,
			uint64_t *first, uint64_t *last)
{
	unsigned int k;

	(void)s;
	(void)first;
	(void)last;
	json_obj_begin(j, "samples");
	json_u64(j, "target", sum->target_samples);
	json_u64(j, "others", sum->other_samples);
	json_u64(j, "followed", sum->followed_samples);
	json_arr_begin(j, "processes");
	for (k = 0; k < sum->nr_procs; k++) {
		json_obj_begin(j, NULL);
		json_u64(j, "pid", sum->procs[k].pid);
		json_u64(j, "samples", sum->procs[k].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "threads");
	for (k = 0; k < sum->nr_threads; k++) {
		json_obj_begin(j, NULL);
		json_u64(j, "tid", sum->threads[k].tid);
		json_u64(j, "samples", sum->threads[k].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* The target's last moments, and whether its frame pointers held. */
int sampshow_end_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		      uint64_t first, uint64_t last)
{
	int ret = last_text(out, s, tab, DUMP_SUM_LAST);

	(void)first;
	(void)last;
	if (!ret)
		fpcheck_text(out, s, tab);
	return ret;
}

int sampshow_end_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		      uint64_t first, uint64_t last)
{
	(void)first;
	(void)last;
	return last_json(j, s, tab, DUMP_SUM_LAST) ? -ENOMEM : 0;
}

/* cpu-clock counts ns: a sample stands for one period */
static uint64_t sample_dur(const struct dump_snap *s)
{
	return s->sample_period && !s->sample_freq ? s->sample_period :
	       s->sample_period			   ? 1000000000 / s->sample_period :
						     1000;
}

static int by_tid_time(const void *a, const void *b)
{
	const struct dump_moment *x = a, *y = b;

	if (x->smp->tid != y->smp->tid)
		return x->smp->tid < y->smp->tid ? -1 : 1;
	if (x->smp->time != y->smp->time)
		return x->smp->time < y->smp->time ? -1 : 1;
	return x->cpu - y->cpu;
}

/* The first context switch on @cpu after @t: the thread left the core. */
static uint64_t next_switch(const struct dump_snap *s, int cpu, uint64_t t)
{
	const struct dump_core *c = NULL;
	size_t lo = 0, hi;
	unsigned int i;

	for (i = 0; i < s->nr_cores && !c; i++)
		if (s->cores[i].cpu == cpu)
			c = &s->cores[i];
	if (!c)
		return UINT64_MAX;
	hi = c->nr_sw;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->sw[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nr_sw ? c->sw[lo].time : UINT64_MAX;
}

/* One thread's open call stack while its samples are drawn. */
struct flame {
	struct tl_writer *w;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct tl_track t;
	unsigned int depth;
	char names[DUMP_STACK_MAX][96]; /* outermost first */
};

/* Closes the open frames down to @keep, innermost first, at @ns. */
static void flame_close(struct flame *f, unsigned int keep, uint64_t ns)
{
	while (f->depth > keep) {
		f->depth--;
		f->w->ops->end_slice(f->w, &f->t, ns, f->names[f->depth]);
	}
}

/*
 * Sample @m, drawn from its time to @end: the frames it shares with what
 * is open stay open (a function that ran through several samples is one
 * slice), the others close, its own open, outermost first.
 */
static void flame_sample(struct flame *f, const struct dump_moment *m, bool joined)
{
	uint64_t ips[DUMP_STACK_MAX];
	char names[DUMP_STACK_MAX][96], tmp[256], ip[24];
	struct tl_arg a[2];
	size_t n, i;
	unsigned int keep = 0;

	n = perfread_sample_stack(m->smp, ips, DUMP_STACK_MAX);
	for (i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "%s",
			 symtab_func_name(f->tab, ips[n - 1 - i], tmp, sizeof(tmp)));
	while (joined && keep < f->depth && keep < n && !strcmp(f->names[keep], names[keep]))
		keep++;
	/* the leaf is each sample's own: its args name the IP and cpu */
	if (keep == n && keep)
		keep--;
	flame_close(f, keep, m->smp->time);
	snprintf(ip, sizeof(ip), "0x%" PRIx64, m->smp->ip);
	a[0] = tl_arg_str("ip", ip);
	a[1] = tl_arg_i64("cpu", m->cpu);
	for (i = keep; i < n; i++) {
		f->w->ops->begin_slice(f->w, &f->t, m->smp->time, names[i], a, i + 1 == n ? 2 : 0);
		memcpy(f->names[f->depth++], names[i], sizeof(names[i]));
	}
}

/*
 * A sample lasts until that thread's next sample, its core's next context
 * switch, or one period, whichever comes first, so slices on a track never
 * overlap.
 */
int sampshow_timeline(struct tl_writer *w, const struct dump_snap *s, struct pt_image *image,
		      const struct dump_symtab *tab, struct dump_log *log)
{
	uint64_t dur = sample_dur(s), end, prev_end = 0;
	struct dump_moments m = { 0 };
	unsigned int nth = 0;
	struct flame *f;
	size_t k;

	(void)image;
	(void)log;
	f = calloc(1, sizeof(*f));
	if (!f || last_moments_add(&m, s, 0, UINT64_MAX)) {
		free(f);
		last_moments_free(&m);
		return -ENOMEM;
	}
	if (m.n) /* none: no array, and qsort() wants one */
		qsort(m.v, m.n, sizeof(*m.v), by_tid_time);
	f->w = w;
	f->s = s;
	f->tab = tab;
	for (k = 0; k < m.n; k++) {
		const struct dump_moment *x = &m.v[k];
		bool same = k && m.v[k - 1].smp->tid == x->smp->tid;

		if (!same)
			/* each thread's samples in time order on a stream */
			w->ops->sequence(w, TL_SEQ_FLOW(nth++));
		if (!same || prev_end < x->smp->time) {
			flame_close(f, 0, prev_end);
			f->t = (struct tl_track){ TL_THREAD, x->smp->pid, x->smp->tid };
			same = false;
		}
		flame_sample(f, x, same);
		end = x->smp->time + dur;
		if (k + 1 < m.n && m.v[k + 1].smp->tid == x->smp->tid && m.v[k + 1].smp->time < end)
			end = m.v[k + 1].smp->time;
		if (next_switch(s, x->cpu, x->smp->time) < end)
			end = next_switch(s, x->cpu, x->smp->time);
		prev_end = end;
	}
	flame_close(f, 0, prev_end);
	free(f);
	last_moments_free(&m);
	return 0;
}
