// SPDX-License-Identifier: GPL-2.0
/* The Chrome trace event timeline: see timeline.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "insn.h"
#include "last.h"
#include "perfread.h"
#include "timeline.h"
#include "json.h"
#include "jsondoc.h"

/* An event is small; names and args are bounded by their sources. */
#define EV_MAX 4096

int timeline_begin(struct dump_tl *tl, FILE *out)
{
	if (!tl || !out)
		return -EINVAL;
	memset(tl, 0, sizeof(*tl));
	tl->out = out;
	tl->begun = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
	return 0;
}

int timeline_end(struct dump_tl *tl)
{
	if (!tl || !tl->begun)
		return -EINVAL;
	fputs("\n]}\n", tl->out);
	tl->begun = false;
	return fflush(tl->out) || ferror(tl->out) ? -EIO : 0;
}

/* Opens one event object: ph, name, ts (perf ns), pid, tid. */
static void ev_begin(struct json *j, char *buf, const char *ph, const char *name, uint64_t ns,
		     uint32_t pid, uint32_t tid)
{
	json_init(j, buf, EV_MAX);
	json_obj_begin(j, NULL);
	json_str(j, "ph", ph);
	json_str(j, "name", name);
	/* microseconds; a double keeps the ns as its fraction */
	json_double(j, "ts", (double)ns / 1000.0);
	json_u64(j, "pid", pid);
	json_u64(j, "tid", tid);
}

static void ev_end(struct dump_tl *tl, struct json *j)
{
	json_obj_end(j);
	if (json_finish(j))
		return; /* too long to be one of ours: left out */
	fputs(tl->nr_events ? ",\n" : "\n", tl->out);
	fputs(j->buf, tl->out);
	tl->nr_events++;
}

static void meta(struct dump_tl *tl, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	char buf[EV_MAX];
	struct json j;

	ev_begin(&j, buf, "M", what, 0, pid, tid);
	json_obj_begin(&j, "args");
	json_str(&j, "name", name);
	json_obj_end(&j);
	ev_end(tl, &j);
}

/* A call stack of one thread's run on one core. */
struct run {
	struct dump_tl *tl;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct dump_log *log;
	int32_t tid; /* -2: no run open */
	unsigned int depth;
	bool after_call;
	uint64_t last; /* time of the last instruction */
};

/* A slice's name: the function, without the offset. */
static const char *func_name(const struct dump_symtab *tab, uint64_t ip, char *buf, size_t len)
{
	uint64_t off;
	const char *name = symtab_find(tab, ip, &off);
	char *plus;

	if (name)
		return name;
	symtab_format(tab, ip, buf, len);
	plus = strchr(buf, '+');
	if (plus && strncmp(buf, "0x", 2))
		*plus = '\0';
	return buf;
}

static void slice(struct run *r, const char *ph, const char *name, uint64_t ns)
{
	char buf[EV_MAX];
	struct json j;

	ev_begin(&j, buf, ph, name, ns, r->s->pid, (uint32_t)r->tid);
	ev_end(r->tl, &j);
}

/* Closes every open slice of the run: the thread left the core. */
static void close_run(struct run *r)
{
	for (; r->depth; r->depth--)
		slice(r, "E", "", r->last);
	r->tid = -2;
	r->after_call = false;
}

static void tl_insn(void *ctx, const struct dump_insn_at *at, const struct pt_insn *insn)
{
	struct run *r = ctx;
	char buf[256];

	if (r->tid != -2 && (r->tid != at->tid || !at->target))
		close_run(r);
	if (!at->target || at->tid < 0)
		return;
	r->tid = at->tid;
	r->last = at->time;
	if (!r->depth || r->after_call) {
		slice(r, "B", func_name(r->tab, insn->ip, buf, sizeof(buf)), at->time);
		r->depth++;
	}
	r->after_call = insn->iclass == ptic_call || insn->iclass == ptic_far_call;
	if ((insn->iclass == ptic_return || insn->iclass == ptic_far_return) && r->depth) {
		slice(r, "E", "", at->time);
		r->depth--;
	}
}

static void tl_error(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
		     uint64_t resync)
{
	struct run *r = ctx;
	const struct dump_core *c = at->core;

	/* the flow is lost here: what was open cannot be closed later */
	close_run(r);
	snap_error(r->log, c->trace_file, (long long)(c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", c->cpu, off, why);
}

static int tl_pt(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
		 const struct dump_symtab *tab, struct dump_log *log)
{
	static const struct dump_insn_ops ops = { tl_insn, tl_error };
	struct run r = { tl, s, tab, log, -2, 0, false, 0 };
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_cores; i++) {
		ret = insn_walk(s, &s->cores[i], image, &ops, &r, NULL);
		close_run(&r);
		if (ret)
			return ret;
	}
	return 0;
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
	struct dump_tl *tl;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	uint32_t tid;
	unsigned int depth;
	char names[DUMP_STACK_MAX][96]; /* outermost first */
};

static void flame_ev(struct flame *f, const char *ph, const char *name, uint64_t ns,
		     const struct dump_moment *m)
{
	char buf[EV_MAX], ip[24];
	struct json j;

	ev_begin(&j, buf, ph, name, ns, f->s->pid, f->tid);
	if (m) {
		json_obj_begin(&j, "args");
		snprintf(ip, sizeof(ip), "0x%" PRIx64, m->smp->ip);
		json_str(&j, "ip", ip);
		json_i64(&j, "cpu", m->cpu);
		json_obj_end(&j);
	}
	ev_end(f->tl, &j);
}

/* Closes the open frames down to @keep, innermost first, at @ns. */
static void flame_close(struct flame *f, unsigned int keep, uint64_t ns)
{
	while (f->depth > keep)
		flame_ev(f, "E", f->names[--f->depth], ns, NULL);
}

/*
 * Sample @m, drawn from its time to @end: the frames it shares with what
 * is open stay open (a function that ran through several samples is one
 * slice), the others close, its own open, outermost first.
 */
static void flame_sample(struct flame *f, const struct dump_moment *m, bool joined)
{
	uint64_t ips[DUMP_STACK_MAX];
	char names[DUMP_STACK_MAX][96], tmp[256];
	size_t n, i;
	unsigned int keep = 0;

	n = perfread_sample_stack(m->smp, ips, DUMP_STACK_MAX);
	for (i = 0; i < n; i++)
		snprintf(names[i], sizeof(names[i]), "%s",
			 func_name(f->tab, ips[n - 1 - i], tmp, sizeof(tmp)));
	while (joined && keep < f->depth && keep < n && !strcmp(f->names[keep], names[keep]))
		keep++;
	/* the leaf is each sample's own: its args name the IP and cpu */
	if (keep == n && keep)
		keep--;
	flame_close(f, keep, m->smp->time);
	for (i = keep; i < n; i++) {
		flame_ev(f, "B", names[i], m->smp->time, i + 1 == n ? m : NULL);
		memcpy(f->names[f->depth++], names[i], sizeof(names[i]));
	}
}

/*
 * The target's samples as a flame chart in time, one track per thread: a
 * sample lasts until that thread's next sample, its core's next context
 * switch, or one period, whichever comes first, so slices on a track never
 * overlap; with call stacks each sample is a stack of nested slices.
 */
static int tl_samples(struct dump_tl *tl, const struct dump_snap *s, const struct dump_symtab *tab)
{
	uint64_t dur = sample_dur(s), end, prev_end = 0;
	struct dump_moments m = { 0 };
	struct flame *f;
	size_t k;

	f = calloc(1, sizeof(*f));
	if (!f || last_moments_add(&m, s, 0, UINT64_MAX)) {
		free(f);
		last_moments_free(&m);
		return -ENOMEM;
	}
	qsort(m.v, m.n, sizeof(*m.v), by_tid_time);
	f->tl = tl;
	f->s = s;
	f->tab = tab;
	for (k = 0; k < m.n; k++) {
		const struct dump_moment *x = &m.v[k];
		bool same = k && m.v[k - 1].smp->tid == x->smp->tid;

		if (!same || prev_end < x->smp->time) {
			flame_close(f, 0, prev_end);
			f->tid = x->smp->tid;
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

int timeline_snapshot(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
		      const struct dump_symtab *tab, struct dump_log *log)
{
	unsigned int i;

	if (!tl || !s || !log || (s->backend == BACKEND_INTEL_PT && !image))
		return -EINVAL;
	meta(tl, "process_name", s->pid, s->pid, s->comm);
	for (i = 0; i < s->nr_threads; i++)
		meta(tl, "thread_name", s->pid, s->threads[i].tid, s->threads[i].comm);
	if (s->backend == BACKEND_INTEL_PT)
		return tl_pt(tl, s, image, tab, log);
	return tl_samples(tl, s, tab);
}

/* One scalar member of an events.jsonl line as an arg of its event. */
static void line_arg(struct json *j, const struct jsondoc_member *m)
{
	const char *str;
	size_t len;
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	/* an escaped NUL stays in: the string's length, not strlen() */
	if (!jsondoc_str(m->val, &str, &len))
		json_strn(j, m->key, str, len);
	else if (!jsondoc_bool(m->val, &b))
		json_bool(j, m->key, b);
	else if (!jsondoc_u64(m->val, &u))
		json_u64(j, m->key, u);
	else if (!jsondoc_i64(m->val, &i))
		json_i64(j, m->key, i);
	else if (!jsondoc_double(m->val, &d))
		json_double(j, m->key, d);
	/* null, arrays and objects are no args */
}

/* The scalar members of an events.jsonl line become the event's args. */
static int line_args(struct json *j, const struct json_object *o)
{
	struct jsondoc_member *m;
	size_t i, n;
	int ret;

	ret = jsondoc_members(o, &m, &n);
	if (ret)
		return ret;
	json_obj_begin(j, "args");
	for (i = 0; i < n; i++)
		line_arg(j, &m[i]);
	json_obj_end(j);
	free(m);
	return 0;
}

/* One line: 1 when it went in, 0 when it was reported and left out. */
static int one_line(struct dump_tl *tl, const char *line, size_t len, size_t off, const char *file,
		    struct dump_log *log)
{
	struct jsondoc_err e = { 0, "" };
	uint64_t ts, pid, tid;
	struct json_object *o;
	const char *name;
	char buf[EV_MAX];
	struct json j;
	int ret;

	ret = jsondoc_parse(line, len, &o, &e);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snap_error(log, file, (long long)(off + e.off), "not JSON: %s", e.why);
		return 0;
	}
	if (jsondoc_get_str(o, "event", &name) || jsondoc_get_u64(o, "ts", &ts) ||
	    jsondoc_get_u64(o, "pid", &pid) || pid > UINT32_MAX) {
		snap_error(log, file, (long long)off,
			   "needs a string \"event\" and numbers \"ts\" and "
			   "\"pid\"");
		jsondoc_free(o);
		return 0;
	}
	if (jsondoc_get_u64(o, "tid", &tid) || tid > UINT32_MAX)
		tid = pid;
	ev_begin(&j, buf, "i", name, ts, (uint32_t)pid, (uint32_t)tid);
	/* a thread's own event on its track, the others across the process */
	json_str(&j, "s", jsondoc_has(o, "tid") ? "t" : "p");
	ret = line_args(&j, o);
	if (!ret)
		ev_end(tl, &j);
	jsondoc_free(o);
	return ret ? ret : 1;
}

int timeline_events(struct dump_tl *tl, const char *buf, size_t len, const char *file,
		    struct dump_log *log)
{
	size_t off = 0, end;
	const char *nl;
	int n = 0, ret;

	if (!tl || (!buf && len) || !log)
		return -EINVAL;
	while (off < len) {
		nl = memchr(buf + off, '\n', len - off);
		end = nl ? (size_t)(nl - buf) : len;
		if (end > off) {
			ret = one_line(tl, buf + off, end - off, off, file, log);
			if (ret < 0)
				return ret;
			n += ret;
		}
		off = end + 1;
	}
	return n;
}
