// SPDX-License-Identifier: GPL-2.0
/* What the timeline draws: see timeline.h; how it is written: tlout.h. */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "dumpbe.h"
#include "timeline.h"
#include "jsondoc.h"
#include "snapfmt.h"

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
	w->ops->sequence(w, TL_SEQ_CPU(i));
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
			a[0] = tl_arg_u64("pid", (uint32_t)x->pid);
			a[1] = tl_arg_u64("tid", (uint32_t)x->tid);
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

	w->ops->sequence(w, TL_SEQ_FACTS);
	snprintf(name, sizeof(name), "snapshot %" PRIu64 ": %s", s->id,
		 s->cause[0] ? s->cause : "?");
	a[n++] = tl_arg_str("dir", s->dir);
	a[n++] = tl_arg_str("trigger", s->cause);
	a[n++] = tl_arg_str("backend", be ? be : "unknown");
	if (s->signal[0])
		a[n++] = tl_arg_str("signal", s->signal);
	if (s->stop_kind[0])
		a[n++] = tl_arg_str("kind", s->stop_kind);
	if (s->cause_tid)
		a[n++] = tl_arg_u64("tid", s->cause_tid);
	a[n++] = tl_arg_u64("pid", pid);
	if (s->has_si_code)
		a[n++] = tl_arg_i64("si_code", s->si_code);
	if (s->ip) {
		snprintf(ip, sizeof(ip), "0x%" PRIx64, s->ip);
		a[n++] = tl_arg_str("ip", ip);
	}
	if (s->has_addr) {
		snprintf(addr, sizeof(addr), "0x%" PRIx64, s->addr);
		a[n++] = tl_arg_str("addr", addr);
	}
	if (s->folded_stops)
		a[n++] = tl_arg_u64("folded_stops", s->folded_stops);
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
	w->ops->sequence(w, TL_SEQ_FACTS);
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
	return dump_backend(s->backend)->timeline(w, s, image, tab, log);
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
		tl->w.ops->sequence(&tl->w, TL_SEQ_FACTS);
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
