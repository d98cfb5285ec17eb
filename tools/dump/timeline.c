// SPDX-License-Identifier: GPL-2.0
/* What the timeline draws: see timeline.h; how it is written: tlout.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "dumpbe.h"
#include "insn.h"
#include "last.h"
#include "perfread.h"
#include "timeline.h"
#include "jsondoc.h"
#include "snapfmt.h"

/* The streams of events (see tlout.h): facts, decoded flows, CPUs. */
#define SEQ_FACTS 0
#define SEQ_FLOW(i) (1 + (i) % 512)
#define SEQ_CPU(i) (513 + (i) % 512)

int timeline_begin_fmt(struct dump_tl *tl, FILE *out, enum tl_format fmt)
{
	int ret;

	if (!tl || !out)
		return -EINVAL;
	memset(tl, 0, sizeof(*tl));
	ret = fmt == TL_FORMAT_PERFETTO ? tlpf_open(&tl->w, out) : tljson_open(&tl->w, out);
	tl->begun = !ret;
	return ret;
}

int timeline_begin(struct dump_tl *tl, FILE *out)
{
	return timeline_begin_fmt(tl, out, TL_FORMAT_JSON);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

enum tl_format timeline_format_of(const char *file)
{
	return ends_with(file, ".pftrace") || ends_with(file, ".perfetto-trace") ?
		       TL_FORMAT_PERFETTO :
		       TL_FORMAT_JSON;
}

int timeline_end(struct dump_tl *tl)
{
	if (!tl || !tl->begun)
		return -EINVAL;
	tl->begun = false;
	return tl->w.ops->end(&tl->w);
}

/* The snapshot's processes: the one it is read as, then each followed one
 * (snap.c read them from ptbpf.json). */
struct tl_procs {
	struct dump_proc *v;
	size_t n;
	uint32_t cause_pid; /* the process of the stop; 0: the target */
};

static void procs_free(struct tl_procs *ps)
{
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

/* @s's processes, each once: the snapshot's own first. */
static int procs_load(struct tl_procs *ps, const struct dump_snap *s)
{
	unsigned int i;

	memset(ps, 0, sizeof(*ps));
	ps->v = calloc(1 + s->nr_procs, sizeof(*ps->v));
	if (!ps->v)
		return -ENOMEM;
	ps->v[0].pid = s->pid;
	memcpy(ps->v[0].comm, s->comm, sizeof(ps->v[0].comm));
	ps->v[0].threads = s->threads;
	ps->v[0].nr_threads = s->nr_threads;
	ps->n = 1;
	/* views of snap.c's processes, the one read as already first */
	for (i = 0; i < s->nr_procs; i++)
		if (s->procs[i].pid != s->pid)
			ps->v[ps->n++] = s->procs[i];
	ps->cause_pid = s->cause_pid;
	return 0;
}

static const struct dump_proc *proc_of(const struct tl_procs *ps, int64_t pid)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		if (ps->v[i].pid == pid)
			return &ps->v[i];
	return NULL;
}

static const char *comm_of(const struct dump_proc *p, uint32_t tid)
{
	size_t i;

	for (i = 0; p && i < p->nr_threads; i++)
		if (p->threads[i].tid == tid)
			return p->threads[i].comm;
	return p && p->pid == tid ? p->comm : "";
}

static struct tl_arg arg_str(const char *key, const char *s)
{
	/* a fact a snapshot lacks (an older ptbpf.json) is an empty string */
	if (!s)
		s = "";
	return (struct tl_arg){ .key = key, .type = TLA_STR, .s = s, .len = strlen(s) };
}

static struct tl_arg arg_u64(const char *key, uint64_t v)
{
	return (struct tl_arg){ .key = key, .type = TLA_U64, .u = v };
}

static struct tl_arg arg_i64(const char *key, int64_t v)
{
	return (struct tl_arg){ .key = key, .type = TLA_I64, .i = v };
}

/* A call stack of one thread's run on one core. */
struct run {
	struct tl_writer *w;
	const struct dump_snap *s;
	const struct dump_symtab *tab;
	struct dump_log *log;
	struct tl_track t; /* the thread's track */
	bool open; /* a run is open on t */
	unsigned int depth;
	bool after_call;
	uint64_t last; /* time of the last instruction */
	/* the functions named last, by entry address: calls go to a few */
	struct {
		uint64_t ip;
		const char *name;
	} names[256];
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

/* Closes every open slice of the run: the thread left the core. */
static void close_run(struct run *r)
{
	for (; r->depth; r->depth--)
		r->w->ops->end_slice(r->w, &r->t, r->last, NULL);
	r->open = false;
	r->after_call = false;
}

/* The name of the slice a call to @ip opens. */
static const char *callee(struct run *r, uint64_t ip, char *buf, size_t len)
{
	unsigned int h = (unsigned int)(ip ^ ip >> 8) & 255;
	const char *name;
	uint64_t off;

	if (r->names[h].ip == ip)
		return r->names[h].name;
	name = symtab_find(r->tab, ip, &off);
	if (!name)
		return func_name(r->tab, ip, buf, len);
	/* a symbol's name lives as long as the table */
	r->names[h].ip = ip;
	r->names[h].name = name;
	return name;
}

static void tl_run(void *ctx, const struct dump_insn_at *at, const struct dump_insn_run *x)
{
	struct run *r = ctx;
	char buf[256];
	unsigned int i;

	if (r->open && (r->t.id != (uint32_t)at->tid || !at->target))
		close_run(r);
	if (!at->target || at->tid < 0)
		return;
	if (!r->open) {
		r->t.kind = TL_THREAD;
		r->t.pid = at->pid < 0 ? r->s->pid : (uint32_t)at->pid;
		r->t.id = (uint32_t)at->tid;
		r->open = true;
	}
	r->last = at->time;
	for (i = 0; i < x->n; i++) {
		const struct dump_insn *in = &x->v[i];

		/* each call opens a slice, in the order of the flow: calls
		 * within one timing packet share a timestamp and still nest */
		if (!r->depth || r->after_call) {
			const char *name = callee(r, in->ip, buf, sizeof(buf));

			/* the table's names stay while this snapshot is drawn */
			if (name != buf)
				r->w->ops->begin_call(r->w, &r->t, at->time, name);
			else
				r->w->ops->begin_slice(r->w, &r->t, at->time, name, NULL, 0);
			r->depth++;
		}
		r->after_call = in->iclass == ptic_call || in->iclass == ptic_far_call;
		if ((in->iclass == ptic_return || in->iclass == ptic_far_return) && r->depth) {
			r->w->ops->end_slice(r->w, &r->t, at->time, NULL);
			r->depth--;
		}
	}
}

static void tl_error(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
		     uint64_t resync)
{
	struct run *r = ctx;
	const struct dump_core *c = at->core;

	(void)resync;
	/* the flow is lost here: what was open cannot be closed later */
	close_run(r);
	snap_error(r->log, c->trace_file, (int64_t)(c->trace_off + off),
		   "cpu %d trace offset 0x%" PRIx64 ": %s", c->cpu, off, why);
}

static int timeline_pt(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
		       const struct dump_symtab *tab, struct dump_log *log)
{
	static const struct dump_insn_ops ops = { tl_run, tl_error };
	struct run *r = calloc(1, sizeof(*r));
	unsigned int i;
	int ret = 0;

	if (!r)
		return -ENOMEM;
	*r = (struct run){ .w = &tl->w, .s = s, .tab = tab, .log = log };
	for (i = 0; !ret && i < s->nr_cores; i++) {
		tl->w.ops->sequence(&tl->w, SEQ_FLOW(i));
		ret = insn_walk(s, &s->cores[i], image, tab, &ops, r, NULL);
		close_run(r);
	}
	free(r);
	return ret;
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
			 func_name(f->tab, ips[n - 1 - i], tmp, sizeof(tmp)));
	while (joined && keep < f->depth && keep < n && !strcmp(f->names[keep], names[keep]))
		keep++;
	/* the leaf is each sample's own: its args name the IP and cpu */
	if (keep == n && keep)
		keep--;
	flame_close(f, keep, m->smp->time);
	snprintf(ip, sizeof(ip), "0x%" PRIx64, m->smp->ip);
	a[0] = arg_str("ip", ip);
	a[1] = arg_i64("cpu", m->cpu);
	for (i = keep; i < n; i++) {
		f->w->ops->begin_slice(f->w, &f->t, m->smp->time, names[i], a, i + 1 == n ? 2 : 0);
		memcpy(f->names[f->depth++], names[i], sizeof(names[i]));
	}
}

/*
 * The target's samples as a flame chart in time, one track per thread: a
 * sample lasts until that thread's next sample, its core's next context
 * switch, or one period, whichever comes first, so slices on a track never
 * overlap; with call stacks each sample is a stack of nested slices.
 */
static int timeline_samples(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
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
	f->w = &tl->w;
	f->s = s;
	f->tab = tab;
	for (k = 0; k < m.n; k++) {
		const struct dump_moment *x = &m.v[k];
		bool same = k && m.v[k - 1].smp->tid == x->smp->tid;

		if (!same)
			/* each thread's samples in time order on a stream */
			tl->w.ops->sequence(&tl->w, SEQ_FLOW(nth++));
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

/*
 * Core @i's track: a slice for each time a thread of ours ran there,
 * from the switch-in to the next switch record (the thread's switch-out,
 * or another task's switch-in).
 */
static void cpu_track(struct dump_tl *tl, const struct dump_snap *s, unsigned int i,
		      const struct tl_procs *ps)
{
	const struct dump_core *c = &s->cores[i];
	struct tl_track t = { TL_CPU, 0, (uint32_t)c->cpu };
	struct tl_writer *w = &tl->w;
	const struct dump_proc *p;
	struct tl_arg a[2];
	char name[48];
	int32_t tid = -1;
	uint64_t last = 0;
	size_t k;

	if (c->cpu < 0)
		return;
	w->ops->sequence(w, SEQ_CPU(i));
	for (k = 0; k < c->nr_sw; k++) {
		const struct dump_switch *x = &c->sw[k];

		last = x->time;
		if (tid >= 0 && (x->out || x->tid != tid)) {
			w->ops->end_slice(w, &t, x->time, NULL);
			tid = -1;
		}
		p = x->out || x->tid < 0 ? NULL : proc_of(ps, x->pid);
		if (tid < 0 && p) {
			snprintf(name, sizeof(name), "%s %d", comm_of(p, (uint32_t)x->tid), x->tid);
			a[0] = arg_u64("pid", (uint32_t)x->pid);
			a[1] = arg_u64("tid", (uint32_t)x->tid);
			w->ops->begin_slice(w, &t, x->time, name, a, 2);
			tid = x->tid;
		}
	}
	/* still on the core when the snapshot was taken */
	if (tid >= 0)
		w->ops->end_slice(w, &t, s->cause_ts > last ? s->cause_ts : last, NULL);
}

/* The snapshot itself: an instant with its facts, and its counters. */
static void snapshot_facts(struct dump_tl *tl, const struct dump_snap *s, const struct tl_procs *ps)
{
	uint32_t pid = ps->cause_pid ? ps->cause_pid : s->pid;
	struct tl_track t = { s->cause_tid ? TL_THREAD : TL_PROCESS, pid, s->cause_tid };
	/* what ptbpf.json named; its reading said when it was no backend */
	const char *be = s->backend != BACKEND_AUTO ? snapfmt_backend_name(s->backend) : NULL;
	struct tl_writer *w = &tl->w;
	char name[64], ip[24], addr[24];
	struct tl_arg a[12];
	size_t n = 0;
	unsigned int i;

	w->ops->sequence(w, SEQ_FACTS);
	snprintf(name, sizeof(name), "snapshot %" PRIu64 ": %s", s->id,
		 s->cause[0] ? s->cause : "?");
	a[n++] = arg_str("dir", s->dir);
	a[n++] = arg_str("trigger", s->cause);
	a[n++] = arg_str("backend", be ? be : "unknown");
	if (s->signal[0])
		a[n++] = arg_str("signal", s->signal);
	if (s->stop_kind[0])
		a[n++] = arg_str("kind", s->stop_kind);
	if (s->cause_tid)
		a[n++] = arg_u64("tid", s->cause_tid);
	a[n++] = arg_u64("pid", pid);
	if (s->has_si_code)
		a[n++] = arg_i64("si_code", s->si_code);
	if (s->ip) {
		snprintf(ip, sizeof(ip), "0x%" PRIx64, s->ip);
		a[n++] = arg_str("ip", ip);
	}
	if (s->has_addr) {
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->addr);
		a[n++] = arg_str("addr", addr);
	}
	if (s->folded_stops)
		a[n++] = arg_u64("folded_stops", s->folded_stops);
	w->ops->instant(w, &t, s->cause_ts, name, a, n);
	/* how full each core's buffer was, and what it lost */
	for (i = 0; i < s->nr_cores; i++) {
		const struct dump_core *c = &s->cores[i];
		struct tl_track ct = { TL_COUNTER, s->pid, 0 };

		if (c->cpu < 0 || c->cpu > 0xffffff)
			continue;
		ct.id = (uint32_t)c->cpu << 8 | TL_CNT_BYTES;
		w->ops->counter(w, &ct, s->cause_ts, tl_counter_name(&ct, name, sizeof(name)),
				c->bytes);
		ct.id = (uint32_t)c->cpu << 8 | TL_CNT_LOST;
		w->ops->counter(w, &ct, s->cause_ts, tl_counter_name(&ct, name, sizeof(name)),
				c->lost_bytes);
	}
}

/*
 * The backends' parts of timeline_snapshot(), one each: intel-pt decodes
 * each core's trace in @image into calls and returns, sample draws each of
 * the target's samples with its stack; a backend this reader does not know
 * gets sample's, which draws what samples its records have. Here, not in
 * dumpbe.c's rows: this module asks those, so they cannot name it. Return
 * 0 or -errno; decoding errors go to @log.
 */
static int (*const parts[])(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
			    const struct dump_symtab *tab, struct dump_log *log) = {
	[BACKEND_INTEL_PT] = timeline_pt,
	[BACKEND_SAMPLE] = timeline_samples,
};

int timeline_snapshot(struct dump_tl *tl, const struct dump_snap *s, struct pt_image *image,
		      const struct dump_symtab *tab, struct dump_log *log)
{
	struct tl_writer *w;
	struct tl_procs ps;
	size_t i, k;
	int ret;

	if (!tl || !tl->begun || !s || !log || (dump_backend(s->backend)->aux && !image))
		return -EINVAL;
	w = &tl->w;
	/* the names of the last snapshot's table are gone */
	w->names_epoch++;
	ret = procs_load(&ps, s);
	if (ret) {
		procs_free(&ps);
		return ret;
	}
	w->ops->sequence(w, SEQ_FACTS);
	if (s->has_tod)
		w->ops->clock(w, s->tod_ns, s->tod_clock_ns);
	else if (s->realtime_ns && s->monotonic_ns)
		w->ops->clock(w, s->realtime_ns, s->monotonic_ns);
	/* every process and thread its track, also those with no events */
	for (i = 0; i < ps.n; i++) {
		w->ops->process(w, ps.v[i].pid, ps.v[i].comm);
		for (k = 0; k < ps.v[i].nr_threads; k++)
			w->ops->thread(w, ps.v[i].pid, ps.v[i].threads[k].tid,
				       ps.v[i].threads[k].comm);
	}
	snapshot_facts(tl, s, &ps);
	for (i = 0; i < s->nr_cores; i++)
		cpu_track(tl, s, (unsigned int)i, &ps);
	procs_free(&ps);
	if ((unsigned int)s->backend < sizeof(parts) / sizeof(parts[0]) && parts[s->backend])
		return parts[s->backend](tl, s, image, tab, log);
	return timeline_samples(tl, s, image, tab, log);
}

/* One scalar member of an events.jsonl line as an arg of its event;
 * false for what is no arg (null, arrays, objects). */
static bool line_arg(struct tl_arg *a, const struct jsondoc_member *m)
{
	memset(a, 0, sizeof(*a));
	a->key = m->key;
	/* an escaped NUL stays in: the string's length, not strlen() */
	if (!jsondoc_str(m->val, &a->s, &a->len))
		a->type = TLA_STR;
	else if (!jsondoc_bool(m->val, &a->b))
		a->type = TLA_BOOL;
	else if (!jsondoc_u64(m->val, &a->u))
		a->type = TLA_U64;
	else if (!jsondoc_i64(m->val, &a->i))
		a->type = TLA_I64;
	else if (!jsondoc_double(m->val, &a->d))
		a->type = TLA_DBL;
	else
		return false;
	return true;
}

/* One line: 1 when it went in, 0 when it was reported and left out. */
static int one_line(struct dump_tl *tl, const char *line, size_t len, size_t off, const char *file,
		    struct dump_log *log)
{
	struct jsondoc_err e = { 0, "" };
	struct jsondoc_member *m = NULL;
	uint64_t ts, pid, tid;
	struct json_object *o;
	struct tl_track t;
	struct tl_arg *a;
	const char *name;
	size_t i, n = 0, nr = 0;
	int ret;

	ret = jsondoc_parse(line, len, &o, &e);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		snap_error(log, file, (int64_t)(off + e.off), "not JSON: %s", e.why);
		return 0;
	}
	if (jsondoc_get_str(o, "event", &name) || jsondoc_get_u64(o, "ts", &ts) ||
	    jsondoc_get_u64(o, "pid", &pid) || pid > UINT32_MAX) {
		snap_error(log, file, (int64_t)off,
			   "needs a string \"event\" and numbers \"ts\" and "
			   "\"pid\"");
		jsondoc_free(o);
		return 0;
	}
	/* a thread's own event on its track, the others across the process */
	t = (struct tl_track){ TL_PROCESS, (uint32_t)pid, 0 };
	if (jsondoc_has(o, "tid") && !jsondoc_get_u64(o, "tid", &tid) && tid <= UINT32_MAX)
		t = (struct tl_track){ TL_THREAD, (uint32_t)pid, (uint32_t)tid };
	ret = jsondoc_members(o, &m, &nr);
	a = ret ? NULL : calloc(nr + 1, sizeof(*a));
	if (!ret && !a)
		ret = -ENOMEM;
	for (i = 0; !ret && i < nr; i++)
		if (line_arg(&a[n], &m[i]))
			n++;
	if (!ret) {
		tl->w.ops->sequence(&tl->w, SEQ_FACTS);
		tl->w.ops->instant(&tl->w, &t, ts, name, a, n);
	}
	free(a);
	free(m);
	jsondoc_free(o);
	return ret ? ret : 1;
}

int timeline_events(struct dump_tl *tl, const char *buf, size_t len, const char *file,
		    struct dump_log *log)
{
	size_t off = 0, end;
	const char *nl;
	int n = 0, ret;

	if (!tl || !tl->begun || (!buf && len) || !log)
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
