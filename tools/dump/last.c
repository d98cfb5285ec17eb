// SPDX-License-Identifier: GPL-2.0
/* The target's last moments: see last.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "last.h"
#include "perfread.h"
#include "textesc.h"

int last_moments_add(struct dump_moments *m, const struct dump_snap *s, uint64_t from, uint64_t to)
{
	const struct dump_sample *smp;
	struct dump_moment *v;
	unsigned int i;
	size_t k;

	if (!m || !s)
		return -EINVAL;
	for (i = 0; i < s->nr_cores; i++) {
		for (k = 0; k < s->cores[i].nr_samples; k++) {
			smp = &s->cores[i].samples[k];
			if (smp->pid != s->pid || smp->time < from || smp->time > to)
				continue;
			if (m->n == m->cap) {
				v = reallocarray(m->v, m->cap ? 2 * m->cap : 256, sizeof(*v));
				if (!v)
					return -ENOMEM;
				m->v = v;
				m->cap = m->cap ? 2 * m->cap : 256;
			}
			m->v[m->n].smp = smp;
			m->v[m->n++].cpu = s->cores[i].cpu;
		}
	}
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct dump_moment *x = a, *y = b;

	if (x->smp->time != y->smp->time)
		return x->smp->time < y->smp->time ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->smp->ip < y->smp->ip ? -1 : x->smp->ip > y->smp->ip;
}

void last_moments_sort(struct dump_moments *m)
{
	size_t i, n = 0;

	if (!m || !m->n)
		return;
	qsort(m->v, m->n, sizeof(*m->v), by_time);
	/* one core takes one sample per tick: same time, cpu, tid, ip is
	 * the same sample, read from two snapshots (--full) */
	for (i = 0; i < m->n; i++)
		if (!n || by_time(&m->v[n - 1], &m->v[i]) ||
		    m->v[n - 1].smp->tid != m->v[i].smp->tid)
			m->v[n++] = m->v[i];
	m->n = n;
}

void last_moments_free(struct dump_moments *m)
{
	if (!m)
		return;
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static void widen(uint64_t t, uint64_t *first, uint64_t *last)
{
	if (t < *first)
		*first = t;
	if (t > *last)
		*last = t;
}

bool last_snap_span(const struct dump_snap *s, uint64_t *first, uint64_t *last)
{
	const struct dump_core *c;
	unsigned int i;
	size_t k;

	for (i = 0; i < s->nr_cores; i++) {
		c = &s->cores[i];
		for (k = 0; k < c->nr_samples; k++)
			widen(c->samples[k].time, first, last);
		for (k = 0; k < c->nr_sw; k++)
			if (c->sw[k].time)
				widen(c->sw[k].time, first, last);
	}
	return *first <= *last;
}

const char *last_time_str(const struct dump_snap *s, uint64_t ns, char *buf, size_t len)
{
	int64_t tod;
	struct tm tm;
	time_t sec;

	if (!s->has_tod) {
		snprintf(buf, len, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000, ns % 1000000000);
		return buf;
	}
	tod = (int64_t)s->tod_ns + ((int64_t)ns - (int64_t)s->tod_clock_ns);
	sec = (time_t)(tod / 1000000000);
	if (!localtime_r(&sec, &tm)) {
		snprintf(buf, len, "?");
		return buf;
	}
	snprintf(buf, len, "%02d:%02d:%02d.%06" PRId64, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (tod % 1000000000) / 1000);
	return buf;
}

/* A sample's function name for counting: "func", "[module]", "[unknown]" */
static void hot_name(const struct dump_symtab *tab, uint64_t ip, struct dump_hot *h)
{
	const char *mod = symtab_module(tab, ip);
	uint64_t off;
	const char *fn = symtab_find(tab, ip, &off);

	snprintf(h->module, sizeof(h->module), "%s", mod ? mod : "");
	if (fn)
		snprintf(h->name, sizeof(h->name), "%s", fn);
	else
		snprintf(h->name, sizeof(h->name), mod && mod[0] == '[' ? "%s" : "[%s]",
			 mod ? mod : "unknown");
	h->samples = 1;
}

static int by_name(const void *a, const void *b)
{
	const struct dump_hot *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->module, y->module);
}

static int by_count(const void *a, const void *b)
{
	const struct dump_hot *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

int last_hottest(const struct dump_snap *s, const struct dump_symtab *tab, struct dump_hot *out,
		 size_t max, uint64_t *total)
{
	struct dump_moments m = { 0 };
	struct dump_hot *all;
	size_t i, n = 0;

	*total = 0;
	if (last_moments_add(&m, s, 0, UINT64_MAX))
		return -ENOMEM;
	all = calloc(m.n + 1, sizeof(*all));
	if (!all) {
		last_moments_free(&m);
		return -ENOMEM;
	}
	for (i = 0; i < m.n; i++)
		hot_name(tab, m.v[i].smp->ip, &all[i]);
	qsort(all, m.n, sizeof(*all), by_name);
	for (i = 0; i < m.n; i++) {
		if (n && !by_name(&all[n - 1], &all[i]))
			all[n - 1].samples++;
		else
			all[n++] = all[i];
	}
	qsort(all, n, sizeof(*all), by_count);
	*total = m.n;
	for (i = 0; i < n && i < max; i++)
		out[i] = all[i];
	free(all);
	last_moments_free(&m);
	return (int)i;
}

const char *last_stack_str(const struct dump_sample *smp, const struct dump_symtab *tab,
			   unsigned int depth, char *buf, size_t len)
{
	uint64_t ips[DUMP_STACK_MAX], off;
	size_t n, i, used = 0;
	const char *fn;
	char one[128];

	n = perfread_sample_stack(smp, ips, depth < DUMP_STACK_MAX ? depth : DUMP_STACK_MAX);
	buf[0] = '\0';
	for (i = 0; i < n && used + 1 < len; i++) {
		fn = symtab_find(tab, ips[i], &off);
		if (!fn)
			fn = symtab_format(tab, ips[i], one, sizeof(one));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " <- " : "", fn);
	}
	return buf;
}

void last_moment_print(FILE *out, const struct dump_snap *s, const struct dump_moment *m,
		       uint64_t cause_ts, const struct dump_symtab *tab)
{
	char when[48], stack[1024];
	const struct dump_sample *smp = m->smp;

	fprintf(out, "    %s  %+9.3f ms  tid %u cpu %d  0x%" PRIx64 "  %s\n",
		last_time_str(s, smp->time, when, sizeof(when)),
		((double)smp->time - (double)cause_ts) / 1e6, smp->tid, m->cpu, smp->ip,
		last_stack_str(smp, tab, 8, stack, sizeof(stack)));
}

#define HOT_MAX 10

bool last_stops(const struct dump_snap *s)
{
	return s->cause_kind == SNAPCAUSE_STOP || s->cause_kind == SNAPCAUSE_FATAL ||
	       s->cause_kind == SNAPCAUSE_HIT;
}

int last_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab, unsigned int n)
{
	uint64_t first = UINT64_MAX, last = 0, total;
	struct dump_hot hot[HOT_MAX];
	struct dump_moments m = { 0 };
	char a[48], b[48];
	size_t i;
	int nh;

	if (last_snap_span(s, &first, &last))
		fprintf(out,
			"  span: %s .. %s (%.3f ms), ending %+.3f ms from the "
			"trigger\n",
			last_time_str(s, first, a, sizeof(a)), last_time_str(s, last, b, sizeof(b)),
			(double)(last - first) / 1e6, ((double)last - (double)s->cause_ts) / 1e6);
	else
		fputs("  span: no timed records\n", out);
	nh = last_hottest(s, tab, hot, HOT_MAX, &total);
	if (nh < 0)
		return nh;
	fprintf(out, "  hottest of the target's %" PRIu64 " samples:%s\n", total,
		nh ? "" : " none");
	for (i = 0; i < (size_t)nh; i++)
		fprintf(out, "    %5.1f%%  %-32s %s\n",
			100.0 * (double)hot[i].samples / (double)total, hot[i].name, hot[i].module);
	if (!last_stops(s) || !n)
		return 0;
	if (last_moments_add(&m, s, 0, s->cause_ts))
		return -ENOMEM;
	last_moments_sort(&m);
	last_before_text(out, s, m.v, m.n, n, tab, "  ");
	last_moments_free(&m);
	return 0;
}

void last_before_text(FILE *out, const struct dump_snap *s, const struct dump_moment *v, size_t n,
		      size_t max, const struct dump_symtab *tab, const char *indent)
{
	char cause[TEXTESC_SIZE(sizeof(s->cause))];
	size_t i;

	fprintf(out, "%slast before the %s (newest first):%s\n", indent,
		s->cause_kind == SNAPCAUSE_HIT ? "hit" :
						 textesc_str(cause, sizeof(cause), s->cause),
		n ? "" : " no samples");
	for (i = 0; i < n && i < max; i++)
		last_moment_print(out, s, &v[n - 1 - i], s->cause_ts, tab);
}

void last_before_json(struct json *j, const struct dump_moment *v, size_t n, size_t max,
		      const struct dump_symtab *tab)
{
	char stack[1024], ip[24];
	size_t i;

	json_arr_begin(j, "last");
	for (i = 0; i < n && i < max; i++) {
		const struct dump_moment *x = &v[n - 1 - i];

		json_obj_begin(j, NULL);
		json_u64(j, "time_ns", x->smp->time);
		json_u64(j, "tid", x->smp->tid);
		json_i64(j, "cpu", x->cpu);
		snprintf(ip, sizeof(ip), "0x%" PRIx64, x->smp->ip);
		json_str(j, "ip", ip);
		json_str(j, "stack", last_stack_str(x->smp, tab, 8, stack, sizeof(stack)));
		json_obj_end(j);
	}
	json_arr_end(j);
}

int last_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
	      unsigned int n)
{
	uint64_t first = UINT64_MAX, last = 0, total;
	struct dump_hot hot[HOT_MAX];
	struct dump_moments m = { 0 };
	size_t i;
	int nh;

	if (last_snap_span(s, &first, &last)) {
		json_u64(j, "first_ns", first);
		json_u64(j, "last_ns", last);
	}
	nh = last_hottest(s, tab, hot, HOT_MAX, &total);
	if (nh < 0)
		return nh;
	json_arr_begin(j, "hottest");
	for (i = 0; i < (size_t)nh; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "function", hot[i].name);
		json_str(j, "module", hot[i].module);
		json_u64(j, "samples", hot[i].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (!last_stops(s))
		return 0;
	if (last_moments_add(&m, s, 0, s->cause_ts))
		return -ENOMEM;
	last_moments_sort(&m);
	last_before_json(j, m.v, m.n, n, tab);
	last_moments_free(&m);
	return 0;
}
