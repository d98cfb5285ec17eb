// SPDX-License-Identifier: GPL-2.0
/* Policy: see control.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "base/say.h"
#include "base/status.h"
#include "signals.h"
#include "base/clock.h"
#include "fmtnum.h"
#include "collect/sampling.h"

static const char *const kind_names[PTBPF_EV_MAX] = {
	[PTBPF_EV_RUN] = "run",
	[PTBPF_EV_STOP] = "stop",
	[PTBPF_EV_FATAL] = "fatal",
	[PTBPF_EV_EXEC] = "exec",
	[PTBPF_EV_THREAD_START] = "thread_start",
	[PTBPF_EV_THREAD_EXIT] = "thread_exit",
	[PTBPF_EV_EXIT] = "exit",
	[PTBPF_EV_CGROUP_LEFT] = "warning",
	[PTBPF_EV_FORK] = "fork",
	[PTBPF_EV_JOIN] = "join",
	[PTBPF_EV_TRIGGER] = "trigger",
};

static const char *const cause_names[] = {
	[PTBPF_CAUSE_NONE] = NULL,
	[PTBPF_CAUSE_SIGNAL] = "signal",
	[PTBPF_CAUSE_PTRACE] = "ptrace",
	[PTBPF_CAUSE_EXIT] = "thread_exit",
};

void control_init(struct control *c, struct eventlog *log, int pid, unsigned int triggers,
		  bool no_pause, int verbosity, const struct control_ops *ops, void *ops_ctx)
{
	memset(c, 0, sizeof(*c));
	c->log = log;
	c->pid = pid;
	c->triggers = triggers;
	c->no_pause = no_pause;
	c->verbosity = verbosity;
	c->ops = ops;
	c->ops_ctx = ops_ctx;
	c->target = PTBPF_PROC_UNKNOWN;
	c->t0 = clock_now_ns();
	c->sample_timer_ns = -1;
}

void control_set_t0(struct control *c, uint64_t t0)
{
	c->t0 = t0;
}

void control_set_min_interval(struct control *c, uint64_t ns)
{
	c->min_interval_ns = ns;
}

void control_set_points(struct control *c, const struct hitpoint *points, unsigned int nr)
{
	c->points = points;
	c->nr_points = nr;
}

void control_set_trigger_limits(struct control *c, uint64_t min_history_ns,
				unsigned long long limit)
{
	c->min_history_ns = min_history_ns;
	c->trigger_limit = limit;
}

const char *control_end_reason(const struct control *c)
{
	return c->end_reason;
}

void control_set_verbosity(struct control *c, int verbosity)
{
	c->verbosity = verbosity;
}

bool control_target_stopped(const struct control *c)
{
	return c->target == PTBPF_PROC_STOPPED;
}

/* A human line: queued, never waited for (see say.h). */
static void human_line(struct control *c, uint64_t ts, const char *what, const char *detail,
		       bool limited)
{
	double rel = ts > c->t0 ? (ts - c->t0) / 1e9 : 0;
	bool stop = !strcmp(what, "stop"), run = !strcmp(what, "run");
	char line[320];

	if (c->verbosity < 0)
		return;
	if ((stop || run) && status_on()) {
		/* on a terminal the status line tells the stops, not a flood */
		snprintf(line, sizeof(line), "pid %d %s%s%s", c->pid, stop ? "stopped" : "running",
			 stop && detail ? " " : "", stop && detail ? detail : "");
		/* while the shell has the terminal, plain lines say them */
		if (status_target(line, stop) && c->verbosity == 0)
			return;
	}
	snprintf(line, sizeof(line), "ptbpf: %+10.6fs %-12s pid %d%s%s", rel, what, c->pid,
		 detail && *detail ? " " : "", detail ? detail : "");
	if (limited)
		status_say_limited(line);
	else
		status_say(line);
}

static void human(struct control *c, uint64_t ts, const char *what, const char *detail)
{
	/* a debugger or a hot --trigger-on makes thousands: rate-limited */
	human_line(c, ts, what, detail, strcmp(what, "start") && strcmp(what, "end"));
}

/* One pause or resume: what happened, to log once the cause is logged. */
struct toggle {
	bool tried; /* false: no ops, or already in that state */
	bool run;
	int ret;
	uint64_t done_ns, cause_ts;
	const char *reason; /* logged when not NULL */
};

/*
 * Pause or resume every core. The ioctls come first and nothing is logged
 * here: the control path does no I/O before the collection has its state.
 */
static void toggle_do(struct control *c, bool run, uint64_t cause_ts, struct toggle *t)
{
	int (*fn)(void *, uint64_t *);

	memset(t, 0, sizeof(*t));
	if (!c->ops || c->running == run)
		return;
	fn = run ? c->ops->resume : c->ops->pause;
	t->tried = true;
	t->run = run;
	t->cause_ts = cause_ts;
	t->ret = fn(c->ops_ctx, &t->done_ns);
	if (t->ret > 0) {
		/* nothing was toggled: this process's view alone changed */
		t->tried = false;
		t->ret = 0;
		c->running = run;
		return;
	}
	c->toggles++;
	if (t->ret)
		c->toggle_errors++;
	else
		c->running = run;
}

static void toggle_log(struct control *c, const struct toggle *t)
{
	const char *name = t->run ? "resume" : "pause";
	uint64_t lat = t->done_ns > t->cause_ts ? t->done_ns - t->cause_ts : 0;
	struct json *j;
	char msg[64];

	if (!t->tried)
		return;
	if (t->ret) {
		snprintf(msg, sizeof(msg), "failed: %s", strerror(-t->ret));
		human(c, clock_now_ns(), name, msg);
		j = eventlog_begin(c->log, name, clock_now_ns(), c->pid);
		json_str(j, "error", strerror(-t->ret));
		eventlog_end(c->log);
		return;
	}
	j = eventlog_begin(c->log, name, t->done_ns, c->pid);
	json_u64(j, "latency_ns", lat);
	if (t->reason)
		json_str(j, "reason", t->reason);
	eventlog_end(c->log);
	if (c->verbosity > 0) {
		snprintf(msg, sizeof(msg), "latency %.1f us", lat / 1e3);
		human(c, t->done_ns, name, msg);
	}
}

static void toggle(struct control *c, bool run, uint64_t cause_ts)
{
	struct toggle t;

	toggle_do(c, run, cause_ts, &t);
	toggle_log(c, &t);
}

void control_set_scope(struct control *c, const char *name, const char *why, bool kernel_cut)
{
	c->scope = name;
	c->scope_why = why;
	c->kernel_cut = kernel_cut;
}

void control_set_sampling(struct control *c, const struct snap_sampling *sp, const char *line)
{
	if (sp)
		c->sampling = *sp;
	snprintf(c->sampling_line, sizeof(c->sampling_line), "%s", line ? line : "");
}

void control_rate(struct control *c, unsigned int old_hz, const struct snap_sampling *sp)
{
	uint64_t now = clock_now_ns();
	struct json *j;
	char msg[160];

	c->sampling = *sp;
	j = eventlog_begin(c->log, "rate", now, c->pid);
	json_u64(j, "old_rate_hz", old_hz);
	sampling_json(sp, j);
	eventlog_end(c->log);
	snprintf(msg, sizeof(msg), "%u Hz -> %u Hz (a sample now costs %.1f us)", old_hz, sp->hz,
		 sp->sample_ns / 1e3);
	human(c, now, "rate", msg);
}

void control_set_sample_timer(struct control *c, unsigned long long ns)
{
	c->sample_timer_ns = (long long)ns;
}

static void offcpu(struct control *c, bool off)
{
	if (c->ops && c->ops->offcpu)
		c->ops->offcpu(c->ops_ctx, off);
}

/* Whether the transition to @state pauses the collection. */
static bool pauses(const struct control *c, int kind)
{
	if (c->no_pause)
		return false;
	return !c->kernel_cut || kind == PTBPF_EV_FATAL;
}

void control_start(struct control *c, int state, const char *backend,
		   unsigned long long buffer_size, const char *command)
{
	uint64_t ts = clock_now_ns();
	struct json *j;

	c->target = state;
	c->history_from = ts;
	clock_pair(&c->real0, &c->mono0);
	j = eventlog_begin(c->log, "start", ts, c->pid);
	/* read together: any ts converts to a time of day */
	json_u64(j, "realtime_ns", c->real0);
	json_u64(j, "monotonic_ns", c->mono0);
	json_str(j, "state", state == PTBPF_PROC_STOPPED ? "stopped" : "running");
	if (backend)
		json_str(j, "backend", backend);
	if (buffer_size)
		json_u64(j, "buffer_size", buffer_size);
	if (c->scope)
		json_str(j, "scope", c->scope);
	if (c->scope_why && *c->scope_why)
		json_str(j, "scope_fallback", c->scope_why);
	sampling_json(&c->sampling, j);
	if (command)
		json_str(j, "command", command);
	json_str(j, "version", PTBPF_VERSION);
	eventlog_end(c->log);
	offcpu(c, state != PTBPF_PROC_RUNNING);
	if (c->no_pause || state == PTBPF_PROC_RUNNING || c->kernel_cut) {
		struct toggle t;
		int v = c->verbosity;

		toggle_do(c, true, ts, &t);
		/* its line comes after the start line (control_announce) */
		c->verbosity = v > 0 ? 0 : v;
		toggle_log(c, &t);
		c->verbosity = v;
		if (t.tried && !t.ret) {
			c->start_resume_ns = t.done_ns;
			c->start_resume_lat = t.done_ns > ts ? t.done_ns - ts : 0;
		}
	}
}

uint64_t control_started_ns(const struct control *c)
{
	return c->history_from;
}

void control_announce(struct control *c)
{
	uint64_t real = c->real0 + c->t0 - c->mono0;
	time_t secs = (time_t)(real / 1000000000ULL);
	const char *state = c->target == PTBPF_PROC_STOPPED ? "stopped" : "running";
	char when[64], detail[288];
	struct tm tm;

	/* the one line that ties the +seconds to a time of day */
	if (c->real0 && localtime_r(&secs, &tm) &&
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(detail, sizeof(detail), "(%s) at %s.%06llu%s%s", state, when,
			 (unsigned long long)(real % 1000000000ULL) / 1000,
			 c->sampling_line[0] ? ", " : "", c->sampling_line);
	else
		snprintf(detail, sizeof(detail), "(%s)%s%s", state, c->sampling_line[0] ? ", " : "",
			 c->sampling_line);
	human(c, c->t0, "start", detail);
	if (c->verbosity > 0 && c->start_resume_ns) {
		snprintf(detail, sizeof(detail), "latency %.1f us", c->start_resume_lat / 1e3);
		human(c, c->start_resume_ns, "resume", detail);
	}
}

/* The event's fields that say what it was: signal, kind, addresses. */
static void log_details(struct json *j, const struct ptbpf_event *e)
{
	const char *kind = eventlog_stop_kind(e->stop_kind),
		   *code = signals_code_name(e->sig, e->si_code);
	char hex[24];

	if (e->kind == PTBPF_EV_STOP && kind)
		json_str(j, "kind", kind);
	if (e->kind == PTBPF_EV_STOP && e->stop_kind == PTBPF_STOP_PTRACE_EVENT)
		json_u64(j, "ptrace_event", e->ptrace_event);
	if ((e->kind == PTBPF_EV_FATAL && e->si_code) ||
	    (e->kind == PTBPF_EV_STOP && e->stop_kind >= PTBPF_STOP_SIGNAL &&
	     e->stop_kind <= PTBPF_STOP_HW_BREAKPOINT)) {
		json_i64(j, "si_code", e->si_code);
		if (code)
			json_str(j, "si_code_name", code);
	}
	if (e->ip)
		json_str(j, "ip", fmt_addr(e->ip, hex, sizeof(hex)));
	if (e->flags & PTBPF_F_ADDR)
		json_str(j, "addr", fmt_addr(e->addr, hex, sizeof(hex)));
}

/* "tid 12 (SIGTRAP, breakpoint at 0x401136)" for the terminal line. */
static void detail_line(const struct ptbpf_event *e, const char *sig, const char *cause, char *buf,
			size_t len)
{
	const char *kind = e->kind == PTBPF_EV_STOP ? eventlog_stop_kind(e->stop_kind) : NULL,
		   *code = e->kind == PTBPF_EV_FATAL ? signals_code_name(e->sig, e->si_code) : NULL;
	size_t n;

	n = snprintf(buf, len, "tid %u", e->tid);
	if (!e->sig && !cause)
		return;
	n += snprintf(buf + n, n < len ? len - n : 0, " (%s%s%s", e->sig ? sig : "",
		      e->sig ? ", " : "",
		      kind  ? kind :
		      code  ? code :
		      cause ? cause :
			      "");
	if (e->ip)
		n += snprintf(buf + n, n < len ? len - n : 0, " at 0x%llx",
			      (unsigned long long)e->ip);
	if (e->flags & PTBPF_F_ADDR)
		n += snprintf(buf + n, n < len ? len - n : 0, ", address 0x%llx",
			      (unsigned long long)e->addr);
	snprintf(buf + n, n < len ? len - n : 0, ")");
}

/* The point a trigger event names; one of no point is "?" (no snapshot). */
static const struct hitpoint *point_of(const struct control *c, unsigned int point)
{
	static const struct hitpoint unknown = { .spec = "?" };

	return point < c->nr_points ? &c->points[point] : &unknown;
}

static const char *point_name(const struct control *c, unsigned int point)
{
	return point_of(c, point)->spec;
}

/* Why a trigger makes no snapshot, or NULL when it makes one. */
static const char *trigger_ignored(const struct control *c, const struct ptbpf_event *e)
{
	if (c->trigger_limit && c->triggers_taken >= c->trigger_limit)
		return "trigger_limit";
	if (c->min_history_ns && e->ts < c->history_from + c->min_history_ns)
		return "min_history";
	return NULL;
}

static void trigger_log(const struct control *c, struct json *j, const struct ptbpf_event *e)
{
	const struct hitpoint *p = point_of(c, e->point);
	const char *why = trigger_ignored(c, e);

	json_u64(j, "point", e->point);
	json_str(j, "spec", p->spec);
	if (p->symbol[0])
		json_str(j, "symbol", p->symbol);
	if (p->path[0])
		json_str(j, "object", p->path);
	if (why)
		json_str(j, "ignored", why);
}

static void log_event(struct control *c, const struct ptbpf_event *e, uint64_t recv_ns)
{
	const char *cause = e->cause < 4 ? cause_names[e->cause] : NULL;
	char sig[24], detail[200];
	const char *name = kind_names[e->kind];
	struct json *j;

	if (!signals_name(e->sig, sig, sizeof(sig)))
		sig[0] = '\0';
	j = eventlog_begin(c->log, name, e->ts, c->pid);
	json_u64(j, "tid", e->tid);
	json_u64(j, "cpu", e->cpu);
	if (e->sig)
		json_str(j, "signal", sig);
	if (cause)
		json_str(j, "cause", cause);
	log_details(j, e);
	json_u64(j, "delivery_ns", recv_ns > e->ts ? recv_ns - e->ts : 0);
	json_u64(j, "threads", e->nr_threads);
	if (e->seq)
		json_u64(j, "seq", e->seq);
	json_strn(j, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	if (e->kind == PTBPF_EV_EXIT) {
		/* the wait status layout: code << 8, or the signal */
		if (e->exit_code & 0x7f)
			json_i64(j, "exit_signal", e->exit_code & 0x7f);
		else
			json_i64(j, "exit_code", (e->exit_code >> 8) & 0xff);
	}
	if (e->kind == PTBPF_EV_CGROUP_LEFT)
		json_str(j, "reason", "cgroup_left");
	if (e->kind == PTBPF_EV_TRIGGER)
		trigger_log(c, j, e);
	if (e->kind == PTBPF_EV_EXEC || e->kind == PTBPF_EV_JOIN) {
		json_strn(j, "filename", e->filename, strnlen(e->filename, sizeof(e->filename)));
		json_u64(j, "old_tid", e->old_tid);
	}
	if (e->kind == PTBPF_EV_FORK || e->kind == PTBPF_EV_JOIN)
		json_u64(j, "ppid", e->ppid);
	eventlog_end(c->log);

	if (e->kind == PTBPF_EV_EXEC)
		snprintf(detail, sizeof(detail), "%.*s", (int)sizeof(e->filename), e->filename);
	else if (e->kind == PTBPF_EV_TRIGGER)
		snprintf(detail, sizeof(detail), "tid %u at %s (0x%llx)%s", e->tid,
			 point_name(c, e->point), (unsigned long long)e->ip,
			 trigger_ignored(c, e) ? ", ignored" : "");
	else if (e->kind == PTBPF_EV_CGROUP_LEFT)
		snprintf(detail, sizeof(detail),
			 "tid %u left the traced cgroup: its execution is no "
			 "longer recorded",
			 e->tid);
	else if (e->kind == PTBPF_EV_FORK)
		snprintf(detail, sizeof(detail), "(from pid %u, followed)", e->ppid);
	else if (e->kind == PTBPF_EV_JOIN)
		snprintf(detail, sizeof(detail), "%.*s (in the cgroup, followed)",
			 (int)sizeof(e->filename), e->filename);
	else if (e->kind == PTBPF_EV_EXIT)
		snprintf(detail, sizeof(detail), "(%s %d)", e->exit_code & 0x7f ? "signal" : "code",
			 e->exit_code & 0x7f ? e->exit_code & 0x7f : (e->exit_code >> 8) & 0xff);
	else
		detail_line(e, sig, cause, detail, sizeof(detail));
	if (c->verbosity > 0 ||
	    (e->kind != PTBPF_EV_THREAD_START && e->kind != PTBPF_EV_THREAD_EXIT))
		human(c, e->ts, name, detail);
}

/* ptbpf was stopped: what came meanwhile (control_late_begin()). */
static struct {
	bool on;
	unsigned long long stops, runs, fatals, exits, hits, missed;
} late;

void control_late_begin(void)
{
	memset(&late, 0, sizeof(late));
	late.on = true;
}

static void late_count(const struct ptbpf_event *e)
{
	late.stops += e->kind == PTBPF_EV_STOP;
	late.runs += e->kind == PTBPF_EV_RUN;
	late.fatals += e->kind == PTBPF_EV_FATAL;
	late.exits += e->kind == PTBPF_EV_EXIT;
	late.hits += e->kind == PTBPF_EV_TRIGGER;
}

/* ": 2 stops", then ", 1 run" into @line at @n when @v; returns the new length. */
static int late_part(char *line, size_t len, int n, unsigned long long v, const char *what,
		     bool *first)
{
	if (!v || n < 0 || (size_t)n >= len)
		return n;
	n += snprintf(line + n, len - n, "%s%llu %s%s", *first ? ": " : ", ", v, what,
		      v == 1 ? "" : "s");
	*first = false;
	return n;
}

void control_late_end(struct control *c, uint64_t stopped_ns, uint64_t continued_ns)
{
	struct json *j;
	char line[256];
	bool first = true;
	int n;

	late.on = false;
	j = eventlog_begin(c->log, "suspended", continued_ns, c->pid);
	json_u64(j, "stopped_ns", continued_ns - stopped_ns);
	json_u64(j, "stops", late.stops);
	json_u64(j, "runs", late.runs);
	json_u64(j, "fatals", late.fatals);
	json_u64(j, "exits", late.exits);
	json_u64(j, "hits", late.hits);
	json_u64(j, "snapshots_missed", late.missed);
	eventlog_end(c->log);
	if (c->verbosity < 0)
		return;
	n = snprintf(line, sizeof(line), "ptbpf: continued after %.1f s stopped; meanwhile",
		     (continued_ns - stopped_ns) / 1e9);
	n = late_part(line, sizeof(line), n, late.stops, "stop", &first);
	n = late_part(line, sizeof(line), n, late.runs, "run", &first);
	n = late_part(line, sizeof(line), n, late.fatals, "fatal signal", &first);
	n = late_part(line, sizeof(line), n, late.exits, "exit", &first);
	n = late_part(line, sizeof(line), n, late.hits, "trigger hit", &first);
	if (first && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " the target's state did not change");
	if (late.missed && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 " (%llu snapshot%s not taken: ptbpf was stopped)", late.missed,
			 late.missed == 1 ? "" : "s");
	status_say(line);
}

/* Stages the snapshot of @t, which holds every stop folded since the last. */
static void take(struct control *c, struct snap_trigger *t)
{
	if (late.on) {
		/* what the buffers hold now is not what they held then */
		late.missed++;
		c->folded = c->folded_hits = 0;
		c->has_pending = false;
		return;
	}
	t->folded = c->folded;
	t->folded_hits = c->folded_hits;
	c->folded = c->folded_hits = 0;
	c->has_pending = false;
	/* the trigger's time: stops are compared with it, on their own clock */
	c->last_snap_ns = t->ts;
	c->ops->snapshot(c->ops_ctx, t);
}

/*
 * --min-interval: a snapshot closer than that to the last one waits (the
 * newest waiting one is taken when due, the others folded into it).
 * Returns true when @t was held back.
 */
static bool fold(struct control *c, const struct snap_trigger *t)
{
	if (!c->min_interval_ns || !c->last_snap_ns ||
	    t->ts >= c->last_snap_ns + c->min_interval_ns)
		return false;
	c->pending = *t;
	c->has_pending = true;
	/* a hit folded is a hit, not a stop (--trigger-on) */
	if (t->spec)
		c->folded_hits++;
	else
		c->folded++;
	return true;
}

/* The pending stop or hit is about to be the snapshot's own, not folded. */
static void unfold_pending(struct control *c)
{
	if (c->pending.spec)
		c->folded_hits--;
	else
		c->folded--;
}

static void trigger(struct control *c, unsigned int bit, const struct ptbpf_event *e,
		    enum snaptrig kind)
{
	struct snap_trigger t = {
		.kind = kind,
		.ts = e->ts,
		.sig = e->sig,
		.tid = e->tid,
		.ip = e->ip,
		.addr = e->addr,
		.has_addr = e->flags & PTBPF_F_ADDR,
		.si_code = e->si_code,
		.has_si_code = e->kind == PTBPF_EV_FATAL ||
			       (e->stop_kind >= PTBPF_STOP_SIGNAL &&
				e->stop_kind <= PTBPF_STOP_HW_BREAKPOINT),
		.pid = (__u32)c->pid,
	};

	if (!c->ops || !c->ops->snapshot || !(c->triggers & bit))
		return;
	if (e->kind == PTBPF_EV_STOP) {
		t.stop_kind = eventlog_stop_kind(e->stop_kind);
		/* a debugger stepping over its breakpoint: bytes go to the next */
		if (e->stop_kind == PTBPF_STOP_SINGLESTEP && !(c->triggers & TRIGGER_STEP)) {
			c->folded++;
			return;
		}
		if (fold(c, &t))
			return;
	}
	take(c, &t);
}

/*
 * --trigger-on: a hit makes a snapshot whose data ends at the hit (e->ts),
 * with the target running on; --min-interval folds it as it folds stops.
 */
static void trigger_hit(struct control *c, const struct ptbpf_event *e)
{
	struct snap_trigger t = {
		.kind = SNAPTRIG_HIT,
		.ts = e->ts,
		.tid = e->tid,
		.ip = e->ip,
		.spec = point_of(c, e->point)->spec,
		.symbol = point_of(c, e->point)->symbol[0] ? point_of(c, e->point)->symbol : NULL,
		.object = point_of(c, e->point)->path[0] ? point_of(c, e->point)->path : NULL,
		.point = e->point,
	};

	if (!c->ops || !c->ops->snapshot || trigger_ignored(c, e))
		return;
	c->triggers_taken++;
	if (c->trigger_limit && c->triggers_taken >= c->trigger_limit)
		c->end_reason = "trigger_limit";
	/* the last one before the end is not held back */
	if (!c->end_reason && fold(c, &t))
		return;
	take(c, &t);
}

/* One event, now: the collection state first, then the log, then snapshots. */
static void apply(struct control *c, const struct ptbpf_event *e, uint64_t recv_ns)
{
	struct toggle t = { 0 };

	switch (e->kind) {
	case PTBPF_EV_RUN:
		c->target = PTBPF_PROC_RUNNING;
		c->fatal_ns = 0;
		offcpu(c, false);
		toggle_do(c, true, e->ts, &t);
		break;
	case PTBPF_EV_STOP:
	case PTBPF_EV_FATAL:
	case PTBPF_EV_EXIT:
		if (e->kind == PTBPF_EV_STOP)
			c->target = PTBPF_PROC_STOPPED;
		if (e->kind == PTBPF_EV_EXIT)
			c->target = PTBPF_PROC_EXITED;
		c->fatal_ns =
			e->kind == PTBPF_EV_FATAL && pauses(c, e->kind) ? (e->ts ? e->ts : 1) : 0;
		if (e->kind != PTBPF_EV_FATAL)
			offcpu(c, true);
		if (pauses(c, e->kind))
			toggle_do(c, false, e->ts, &t);
		break;
	}
	log_event(c, e, recv_ns);
	toggle_log(c, &t);
	if (e->kind == PTBPF_EV_TRIGGER)
		trigger_hit(c, e);
	else if (e->kind == PTBPF_EV_STOP)
		trigger(c, TRIGGER_STOP, e, SNAPTRIG_STOP);
	else if (e->kind == PTBPF_EV_FATAL)
		trigger(c, TRIGGER_FATAL, e, SNAPTRIG_FATAL);
	else if (e->kind == PTBPF_EV_EXIT)
		trigger(c, TRIGGER_EXIT, e, SNAPTRIG_EXIT);
}

uint64_t control_deadline(const struct control *c)
{
	return c->has_pending ? c->last_snap_ns + c->min_interval_ns : 0;
}

void control_tick(struct control *c, uint64_t now)
{
	struct snap_trigger t;

	if (!c->has_pending || now < control_deadline(c))
		return;
	t = c->pending;
	unfold_pending(c); /* the pending one is this snapshot's own */
	take(c, &t);
}

/* Applies the held transitions that follow c->seq, in order. */
static void apply_held(struct control *c, uint64_t recv_ns)
{
	unsigned int i;
	bool found = true;

	while (found && c->nr_held) {
		found = false;
		for (i = 0; i < c->nr_held; i++) {
			if (c->held[i].seq != c->seq + 1)
				continue;
			c->seq++;
			apply(c, &c->held[i], recv_ns);
			c->held[i] = c->held[--c->nr_held];
			found = true;
			break;
		}
	}
	c->gap_ns = c->nr_held ? c->gap_ns : 0;
}

/* Gives up a gap: every held transition, lowest seq first. */
static void flush_held(struct control *c, uint64_t recv_ns)
{
	while (c->nr_held) {
		unsigned int i, low = 0;

		for (i = 1; i < c->nr_held; i++)
			if (c->held[i].seq < c->held[low].seq)
				low = i;
		c->seq = c->held[low].seq - 1;
		apply_held(c, recv_ns);
	}
	c->gap_ns = 0;
}

void control_event(struct control *c, const struct ptbpf_event *e, uint64_t recv_ns)
{
	if (e->kind == 0 || e->kind >= PTBPF_EV_MAX)
		return;
	if (late.on)
		late_count(e);
	if (!e->seq) {
		apply(c, e, recv_ns);
		return;
	}
	if (e->seq <= c->seq) {
		/* older than a resync that already took its effect */
		log_event(c, e, recv_ns);
		return;
	}
	if (e->seq == c->seq + 1) {
		c->seq = e->seq;
		apply(c, e, recv_ns);
		apply_held(c, recv_ns);
		return;
	}
	/* an earlier transition's record is still on its way */
	c->reordered++;
	if (c->nr_held == CONTROL_REORDER)
		flush_held(c, recv_ns);
	if (!c->nr_held)
		c->gap_ns = recv_ns ? recv_ns : 1;
	c->held[c->nr_held++] = *e;
}

uint64_t control_gap_deadline(const struct control *c)
{
	return c->nr_held ? c->gap_ns + CONTROL_GAP_NS : 0;
}

uint64_t control_fatal_check(struct control *c, bool dying, int state, uint64_t now)
{
	struct toggle t;

	if (!c->fatal_ns)
		return 0;
	if (dying || state != PTBPF_PROC_RUNNING || c->target != PTBPF_PROC_RUNNING) {
		c->fatal_ns = 0; /* its exit, or a stop, will say more */
		return 0;
	}
	if (now < c->fatal_ns + CONTROL_FATAL_NS)
		return c->fatal_ns + CONTROL_FATAL_NS;
	/* blocked, ignored or handled after all: the target runs on */
	c->fatal_ns = 0;
	toggle_do(c, true, now, &t);
	t.reason = "not_fatal";
	toggle_log(c, &t);
	return 0;
}

bool control_lost(struct control *c, unsigned long long total)
{
	struct json *j;

	if (total <= c->lost_seen)
		return false;
	j = eventlog_begin(c->log, "lost_events", clock_now_ns(), c->pid);
	json_u64(j, "count", total - c->lost_seen);
	json_u64(j, "total", total);
	eventlog_end(c->log);
	human(c, clock_now_ns(), "lost_events", "(BPF ring buffer full)");
	c->lost_seen = total;
	return true;
}

bool control_follow_full(struct control *c, unsigned long long total)
{
	char detail[160];
	struct json *j;

	if (total <= c->follow_full_seen)
		return false;
	j = eventlog_begin(c->log, "warning", clock_now_ns(), c->pid);
	json_str(j, "reason", "follow_full");
	json_u64(j, "limit", PTBPF_MAX_FOLLOW);
	json_u64(j, "count", total - c->follow_full_seen);
	json_u64(j, "total", total);
	eventlog_end(c->log);
	snprintf(detail, sizeof(detail),
		 "--follow: %d processes followed at once, the limit: %llu new one%s not "
		 "followed (%llu in all)",
		 PTBPF_MAX_FOLLOW, total - c->follow_full_seen,
		 total - c->follow_full_seen == 1 ? "" : "s", total);
	/* a limit reached is said at most once a second: never folded away */
	human_line(c, clock_now_ns(), "warning", detail, false);
	c->follow_full_seen = total;
	return true;
}

void control_resync(struct control *c, int state, uint64_t seq)
{
	flush_held(c, clock_now_ns());
	if (seq > c->seq)
		c->seq = seq;
	if (state == PTBPF_PROC_UNKNOWN || state == c->target)
		return;
	c->target = state;
	c->fatal_ns = 0;
	offcpu(c, state != PTBPF_PROC_RUNNING);
	if (state == PTBPF_PROC_RUNNING || c->no_pause || c->kernel_cut)
		toggle(c, true, clock_now_ns());
	else
		toggle(c, false, clock_now_ns());
	/* the stop's own event was lost: its snapshot is not */
	if (state == PTBPF_PROC_STOPPED) {
		struct ptbpf_event e = { .kind = PTBPF_EV_STOP, .ts = clock_now_ns() };

		trigger(c, TRIGGER_STOP, &e, SNAPTRIG_STOP);
	}
}

void control_snapshot_now(struct control *c, enum snaptrig kind)
{
	struct snap_trigger t = { .kind = kind, .ts = clock_now_ns(), .pid = (__u32)c->pid };

	if (c->ops && c->ops->snapshot)
		take(c, &t);
}

void control_flush(struct control *c)
{
	struct snap_trigger t = c->pending;

	if (!c->has_pending)
		return;
	unfold_pending(c); /* the pending one is this snapshot's own */
	take(c, &t);
}

void control_finish(struct control *c, bool snapshot)
{
	struct snap_trigger t = c->pending;

	toggle(c, false, clock_now_ns());
	if (snapshot) {
		control_snapshot_now(c, SNAPTRIG_END);
	} else if (c->has_pending) {
		/* the last stop gets its snapshot, even cut short */
		unfold_pending(c);
		take(c, &t);
	}
}

void control_end(struct control *c, const struct control_end_info *end)
{
	const char *reason = end->reason;
	char detail[160];
	struct json *j;

	j = eventlog_begin(c->log, "end", clock_now_ns(), c->pid);
	json_str(j, "reason", reason);
	if (end->status >= 0)
		json_i64(j, "status", end->status);
	if (end->ended) {
		/* for scripts: as asked, by itself or by a signal (runend.h) */
		json_str(j, "ended", end->ended);
		json_i64(j, "exit_status", end->exit_status);
	}
	if (end->left_running)
		json_u64(j, "left_running", end->left_running);
	json_u64(j, "toggles", c->toggles);
	json_u64(j, "toggle_errors", c->toggle_errors);
	/* transitions whose record came before an earlier one's */
	json_u64(j, "reordered", c->reordered);
	/* human lines a stderr that did not keep up never got */
	json_u64(j, "stderr_dropped", say_dropped());
	json_u64(j, "stderr_folded", say_folded());
	/* the kernel's count: how long the sampling timers ran, all CPUs */
	if (c->sample_timer_ns >= 0)
		json_u64(j, "sample_timer_ns", (uint64_t)c->sample_timer_ns);
	eventlog_end(c->log);
	if (end->ended) {
		char *p;

		snprintf(detail, sizeof(detail), "%s, %s: exit status %d", reason, end->ended,
			 end->exit_status);
		/* "as_asked" is for scripts; people read "as asked" */
		for (p = detail + strlen(reason); *p; p++)
			*p = *p == '_' ? ' ' : *p;
	} else
		snprintf(detail, sizeof(detail), "%s", reason);
	human(c, clock_now_ns(), "end", detail);
}
