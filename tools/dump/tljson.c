// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline as Chrome trace event JSON ({"traceEvents": [...]}), which
 * Perfetto's UI and chrome://tracing open: see tlout.h. A track is a
 * (pid, tid) pair: a thread its own, a process (pid, pid), a CPU
 * (TL_CPUS_PID, cpu). Slices are "B"/"E" pairs, instants "i", counters
 * "C"; "ts" is in microseconds with the ns as its fraction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tlout.h"
#include "json.h"
#include "fmtnum.h"

/* An event is small; names and args are bounded by their sources. */
#define EV_MAX 4096

struct tljson {
	uint8_t cpu_named[TL_SEQS / 8 + 1]; /* "cpu N" thread names written */
	bool cpus_named;
	/* every event, written a block at a time (a call and a return are
	 * two events: millions of them, a write each cost more than it) */
	struct fmt_out o;
};

/* Appends @n bytes at @s to the file. */
static void out(struct tl_writer *w, const char *s, size_t n)
{
	struct tljson *t = w->priv;
	char *p;

	if (n > FMT_OUT_SIZE) {
		fmt_out_flush(&t->o);
		fwrite(s, 1, n, w->out);
		return;
	}
	p = fmt_out_reserve(&t->o, n);
	memcpy(p, s, n);
	fmt_out_commit(&t->o, p + n);
}

static void outs(struct tl_writer *w, const char *s)
{
	out(w, s, strlen(s));
}

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

static void ev_end(struct tl_writer *w, struct json *j)
{
	json_obj_end(j);
	if (json_finish(j))
		return; /* too long to be one of ours: left out */
	outs(w, w->nr_events ? ",\n" : "\n");
	outs(w, j->buf);
	w->nr_events++;
}

static void meta(struct tl_writer *w, const char *what, uint32_t pid, uint32_t tid,
		 const char *name)
{
	char buf[EV_MAX];
	struct json j;

	ev_begin(&j, buf, "M", what, 0, pid, tid);
	json_obj_begin(&j, "args");
	json_str(&j, "name", name);
	json_obj_end(&j);
	ev_end(w, &j);
}

static int jbegin(struct tl_writer *w)
{
	struct tljson *t = w->priv;

	t->o.f = w->out;
	outs(w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return 0;
}

static int jend(struct tl_writer *w)
{
	struct tljson *t = w->priv;

	outs(w, "\n]}\n");
	fmt_out_flush(&t->o);
	free(w->priv);
	w->priv = NULL;
	return fflush(w->out) || ferror(w->out) ? -EIO : 0;
}

static void jprocess(struct tl_writer *w, uint32_t pid, const char *name)
{
	meta(w, "process_name", pid, pid, name);
}

static void jthread(struct tl_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	meta(w, "thread_name", pid, tid, name);
}

/* No place for it in this format: times stay on the perf clock. */
static void jclock(struct tl_writer *w, uint64_t real, uint64_t mono)
{
	(void)w;
	(void)real;
	(void)mono;
}

/* One stream: the file is read whole and sorted by time. */
static void jsequence(struct tl_writer *w, unsigned int seq)
{
	(void)w;
	(void)seq;
}

/* The (pid, tid) of track @t; a CPU's pseudo-thread is named first. */
static void where(struct tl_writer *w, const struct tl_track *t, uint32_t *pid, uint32_t *tid)
{
	struct tljson *s = w->priv;
	char name[32];

	*pid = t->pid;
	*tid = t->kind == TL_THREAD ? t->id : t->pid;
	if (t->kind != TL_CPU)
		return;
	*pid = TL_CPUS_PID;
	*tid = t->id;
	if (!s->cpus_named) {
		meta(w, "process_name", TL_CPUS_PID, TL_CPUS_PID, "CPUs: the traced tasks");
		s->cpus_named = true;
	}
	if (t->id < TL_SEQS && !(s->cpu_named[t->id / 8] & 1 << t->id % 8)) {
		snprintf(name, sizeof(name), "cpu %u", t->id);
		meta(w, "thread_name", TL_CPUS_PID, t->id, name);
		s->cpu_named[t->id / 8] |= (uint8_t)(1 << t->id % 8);
	}
}

static void args(struct json *j, const struct tl_arg *a, size_t n)
{
	size_t i;

	if (!n)
		return;
	json_obj_begin(j, "args");
	for (i = 0; i < n; i++) {
		if (a[i].type == TLA_STR)
			json_strn(j, a[i].key, a[i].s, a[i].len);
		else if (a[i].type == TLA_U64)
			json_u64(j, a[i].key, a[i].u);
		else if (a[i].type == TLA_I64)
			json_i64(j, a[i].key, a[i].i);
		else if (a[i].type == TLA_DBL)
			json_double(j, a[i].key, a[i].d);
		else
			json_bool(j, a[i].key, a[i].b);
	}
	json_obj_end(j);
}

/* Whether @s (@n bytes) goes into a JSON string as it is. */
static bool plain(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/*
 * A slice's begin or end without args, the bulk of a trace, written
 * without the JSON writer: the same text ev_begin() makes, but "ts" in
 * microseconds with the ns as three decimals (the same number as the
 * double's "%.17g", which read back is the double nearest it either way).
 */
static void fast_event(struct tl_writer *w, char ph, const struct tl_track *t, uint64_t ns,
		       const char *name)
{
	struct tljson *s = w->priv;
	size_t n = strlen(name);
	uint32_t pid, tid;
	unsigned int frac;
	char *p;

	where(w, t, &pid, &tid);
	if (n > 512 || !plain(name, n)) {
		char buf[EV_MAX];
		struct json j;

		ev_begin(&j, buf, ph == 'B' ? "B" : "E", name, ns, pid, tid);
		ev_end(w, &j);
		return;
	}
	p = fmt_out_reserve(&s->o, n + 128);
	if (w->nr_events)
		*p++ = ',';
	memcpy(p, "\n{\"ph\":\"B\",\"name\":\"", 19);
	p[8] = ph;
	p += 19;
	memcpy(p, name, n);
	p += n;
	memcpy(p, "\",\"ts\":", 7);
	p = fmt_u64(p + 7, ns / 1000);
	frac = (unsigned int)(ns % 1000);
	if (frac) {
		*p++ = '.';
		*p++ = (char)('0' + frac / 100);
		frac %= 100;
		if (frac) {
			*p++ = (char)('0' + frac / 10);
			frac %= 10;
			if (frac)
				*p++ = (char)('0' + frac);
		}
	}
	memcpy(p, ",\"pid\":", 7);
	p = fmt_u64(p + 7, pid);
	memcpy(p, ",\"tid\":", 7);
	p = fmt_u64(p + 7, tid);
	*p++ = '}';
	fmt_out_commit(&s->o, p);
	w->nr_events++;
}

static void event(struct tl_writer *w, const char *ph, const struct tl_track *t, uint64_t ns,
		  const char *name, const struct tl_arg *a, size_t n)
{
	char buf[EV_MAX];
	uint32_t pid, tid;
	struct json j;

	where(w, t, &pid, &tid);
	ev_begin(&j, buf, ph, name ? name : "", ns, pid, tid);
	if (*ph == 'i')
		/* a thread's (or CPU's) own on its track, the others across
		 * the process */
		json_str(&j, "s", t->kind == TL_PROCESS ? "p" : "t");
	args(&j, a, n);
	ev_end(w, &j);
}

static void jbegin_slice(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			 const char *name, const struct tl_arg *a, size_t n)
{
	if (n)
		event(w, "B", t, ns, name, a, n);
	else
		fast_event(w, 'B', t, ns, name ? name : "");
}

static void jbegin_call(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			const char *name)
{
	fast_event(w, 'B', t, ns, name);
}

static void jend_slice(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name)
{
	fast_event(w, 'E', t, ns, name ? name : "");
}

static void jinstant(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name,
		     const struct tl_arg *a, size_t n)
{
	event(w, "i", t, ns, name, a, n);
}

static void jcounter(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name,
		     uint64_t v)
{
	struct tl_arg a = { .key = "bytes", .type = TLA_U64, .u = v };

	event(w, "C", t, ns, name, &a, 1);
}

static const struct tl_writer_ops tljson_ops = {
	.begin = jbegin,
	.end = jend,
	.process = jprocess,
	.thread = jthread,
	.clock = jclock,
	.sequence = jsequence,
	.begin_slice = jbegin_slice,
	.begin_call = jbegin_call,
	.end_slice = jend_slice,
	.instant = jinstant,
	.counter = jcounter,
};

int tljson_open(struct tl_writer *w, FILE *out)
{
	if (!w || !out)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->priv = calloc(1, sizeof(struct tljson));
	if (!w->priv)
		return -ENOMEM;
	w->ops = &tljson_ops;
	w->out = out;
	return w->ops->begin(w);
}

const char *tl_counter_name(const struct tl_track *t, char *buf, size_t len)
{
	snprintf(buf, len, "cpu %u %s", t->id >> 8,
		 (t->id & 0xff) == TL_CNT_LOST ? "lost bytes" : "bytes");
	return buf;
}
