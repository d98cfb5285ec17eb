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

/* An event is small; names and args are bounded by their sources. */
#define EV_MAX 4096

struct tljson {
	uint8_t cpu_named[TL_SEQS / 8 + 1]; /* "cpu N" thread names written */
	bool cpus_named;
};

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
	fputs(w->nr_events ? ",\n" : "\n", w->out);
	fputs(j->buf, w->out);
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
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", w->out);
	return 0;
}

static int jend(struct tl_writer *w)
{
	fputs("\n]}\n", w->out);
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
	event(w, "B", t, ns, name, a, n);
}

static void jend_slice(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name)
{
	event(w, "E", t, ns, name, NULL, 0);
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
	jbegin,	   jend,	 jprocess,   jthread,  jclock,
	jsequence, jbegin_slice, jend_slice, jinstant, jcounter,
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
