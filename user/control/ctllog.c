// SPDX-License-Identifier: GPL-2.0
/* What the control policy's decisions are said as (ctllog.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ctllog.h"
#include "base/clock.h"
#include "base/say.h"
#include "base/status.h"
#include "collect/sampling.h"
#include "fmtnum.h"
#include "signals.h"

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
	[PTBPF_EV_HIT] = "trigger",
};

static const char *const cause_names[] = {
	[PTBPF_CAUSE_NONE] = NULL,
	[PTBPF_CAUSE_SIGNAL] = "signal",
	[PTBPF_CAUSE_PTRACE] = "ptrace",
	[PTBPF_CAUSE_EXIT] = "thread_exit",
};

void ctllog_init(struct ctllog *l, struct eventlog *events, int pid, int verbosity)
{
	memset(l, 0, sizeof(*l));
	l->events = events;
	l->pid = pid;
	l->verbosity = verbosity;
	l->t0 = clock_now_ns();
}

/* A human line: queued, never waited for (see say.h). */
static void human_line(const struct ctllog *l, uint64_t ts, const char *what, const char *detail,
		       bool limited)
{
	double rel = ts > l->t0 ? (ts - l->t0) / 1e9 : 0;
	bool stop = !strcmp(what, "stop"), run = !strcmp(what, "run");
	char line[320];

	if (l->verbosity < 0)
		return;
	if ((stop || run) && status_on()) {
		/* on a terminal the status line tells the stops, not a flood */
		snprintf(line, sizeof(line), "pid %d %s%s%s", l->pid, stop ? "stopped" : "running",
			 stop && detail ? " " : "", stop && detail ? detail : "");
		/* while the shell has the terminal, plain lines say them */
		if (status_target(line, stop) && l->verbosity == 0)
			return;
	}
	snprintf(line, sizeof(line), "ptbpf: %+10.6fs %-12s pid %d%s%s", rel, what, l->pid,
		 detail && *detail ? " " : "", detail ? detail : "");
	if (limited)
		status_say_limited(line);
	else
		status_say(line);
}

/* Whether @what is the target's first stop or fatal line this second. */
static bool own_first(struct ctllog *l, const char *what)
{
	uint64_t now, *said;

	if (l->member)
		return false;
	if (!strcmp(what, "stop"))
		said = &l->stop_said_ns;
	else if (!strcmp(what, "fatal"))
		said = &l->fatal_said_ns;
	else
		return false;
	now = clock_now_ns();
	if (*said && now - *said < 1000000000ULL)
		return false;
	*said = now;
	return true;
}

static void human(struct ctllog *l, uint64_t ts, const char *what, const char *detail)
{
	/* a debugger or a hot --trigger-on makes thousands: rate-limited */
	bool limited = strcmp(what, "start") && strcmp(what, "end") && !own_first(l, what);

	human_line(l, ts, what, detail, limited);
}

void ctllog_started(struct ctllog *l, const struct ctllog_start *s)
{
	struct json *j;

	clock_pair(&l->real0, &l->mono0);
	j = eventlog_begin(l->events, "start", s->ts, l->pid);
	/* read together: any ts converts to a time of day */
	json_u64(j, "realtime_ns", l->real0);
	json_u64(j, "monotonic_ns", l->mono0);
	json_str(j, "state", s->stopped ? "stopped" : "running");
	if (s->backend)
		json_str(j, "backend", s->backend);
	if (s->buffer_size)
		json_u64(j, "buffer_size", s->buffer_size);
	if (s->scope)
		json_str(j, "scope", s->scope);
	if (s->scope_why && *s->scope_why)
		json_str(j, "scope_fallback", s->scope_why);
	sampling_json(s->sampling, j);
	if (s->command)
		json_str(j, "command", s->command);
	/* what the run may keep on disk: a reader knows old ones went */
	if (s->max_size)
		json_u64(j, "max_size", s->max_size);
	if (s->max_snapshots)
		json_u64(j, "max_snapshots", s->max_snapshots);
	json_str(j, "version", PTBPF_VERSION);
	eventlog_end(l->events);
}

void ctllog_announce(struct ctllog *l, bool stopped, const char *sampling_line)
{
	uint64_t real = l->real0 + l->t0 - l->mono0;
	time_t secs = (time_t)(real / 1000000000ULL);
	const char *state = stopped ? "stopped" : "running";
	char when[64], detail[288];
	struct tm tm;

	/* the one line that ties the +seconds to a time of day */
	if (l->real0 && localtime_r(&secs, &tm) &&
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(detail, sizeof(detail), "(%s) at %s.%06" PRIu64 "%s%s", state, when,
			 (uint64_t)(real % 1000000000ULL) / 1000, sampling_line[0] ? ", " : "",
			 sampling_line);
	else
		snprintf(detail, sizeof(detail), "(%s)%s%s", state, sampling_line[0] ? ", " : "",
			 sampling_line);
	human(l, l->t0, "start", detail);
	if (l->verbosity > 0 && l->start_resume_ns) {
		snprintf(detail, sizeof(detail), "latency %.1f us", l->start_resume_lat / 1e3);
		human(l, l->start_resume_ns, "resume", detail);
	}
}

void ctllog_toggled(struct ctllog *l, const struct ctllog_toggle *t)
{
	const char *name = t->run ? "resume" : "pause";
	struct json *j;
	char msg[64];

	j = eventlog_begin(l->events, name, t->done_ns, l->pid);
	json_u64(j, "latency_ns", t->latency_ns);
	if (t->reason)
		json_str(j, "reason", t->reason);
	eventlog_end(l->events);
	if (t->at_start) {
		/* said after the start line, which waits for the target */
		l->start_resume_ns = t->done_ns;
		l->start_resume_lat = t->latency_ns;
		return;
	}
	if (l->verbosity > 0) {
		snprintf(msg, sizeof(msg), "latency %.1f us", t->latency_ns / 1e3);
		human(l, t->done_ns, name, msg);
	}
}

void ctllog_toggle_failed(struct ctllog *l, bool run, int err)
{
	const char *name = run ? "resume" : "pause";
	struct json *j;
	char msg[64];

	snprintf(msg, sizeof(msg), "failed: %s", strerror(-err));
	human(l, clock_now_ns(), name, msg);
	j = eventlog_begin(l->events, name, clock_now_ns(), l->pid);
	json_str(j, "error", strerror(-err));
	eventlog_end(l->events);
}

/* The event's fields that say what it was: signal, kind, addresses. */
static void event_details(struct json *j, const struct ptbpf_event *e)
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

/*
 * Begins @e's event with what every kind says (its thread, CPU, signal,
 * cause, details, delivery, threads, order and comm); the caller adds its
 * kind's fields and ends it. @sig: the signal's name, "" for none.
 */
static struct json *event_begin(struct ctllog *l, const struct ptbpf_event *e, uint64_t recv_ns,
				const char *sig)
{
	const char *cause = e->cause < 4 ? cause_names[e->cause] : NULL;
	struct json *j;

	j = eventlog_begin(l->events, kind_names[e->kind], e->ts, l->pid);
	json_u64(j, "tid", e->tid);
	json_u64(j, "cpu", e->cpu);
	if (e->sig)
		json_str(j, "signal", sig);
	if (cause)
		json_str(j, "cause", cause);
	event_details(j, e);
	json_u64(j, "delivery_ns", recv_ns > e->ts ? recv_ns - e->ts : 0);
	json_u64(j, "threads", e->nr_threads);
	if (e->seq)
		json_u64(j, "seq", e->seq);
	json_strn(j, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	return j;
}

/* The signal's name of @e into @sig (24 bytes), "" for none. */
static void event_signal(const struct ptbpf_event *e, char *sig, size_t len)
{
	if (!signals_name(e->sig, sig, len))
		sig[0] = '\0';
}

/* "tid 12 (SIGTRAP, breakpoint at 0x401136)" for the terminal line. */
static void detail_line(const struct ptbpf_event *e, const char *sig, char *buf, size_t len)
{
	const char *cause = e->cause < 4 ? cause_names[e->cause] : NULL,
		   *kind = e->kind == PTBPF_EV_STOP ? eventlog_stop_kind(e->stop_kind) : NULL,
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
		n += snprintf(buf + n, n < len ? len - n : 0, " at 0x%llx", e->ip);
	if (e->flags & PTBPF_F_ADDR)
		n += snprintf(buf + n, n < len ? len - n : 0, ", address 0x%llx", e->addr);
	snprintf(buf + n, n < len ? len - n : 0, ")");
}

void ctllog_event(struct ctllog *l, const struct ptbpf_event *e, uint64_t recv_ns)
{
	char sig[24], detail[200];
	struct json *j;

	event_signal(e, sig, sizeof(sig));
	j = event_begin(l, e, recv_ns, sig);
	if (e->kind == PTBPF_EV_EXIT) {
		/* the wait status layout: code << 8, or the signal */
		if (e->exit_code & 0x7f)
			json_i64(j, "exit_signal", e->exit_code & 0x7f);
		else
			json_i64(j, "exit_code", (e->exit_code >> 8) & 0xff);
	}
	if (e->kind == PTBPF_EV_CGROUP_LEFT)
		json_str(j, "reason", "cgroup_left");
	if (e->kind == PTBPF_EV_EXEC || e->kind == PTBPF_EV_JOIN) {
		json_strn(j, "filename", e->filename, strnlen(e->filename, sizeof(e->filename)));
		json_u64(j, "old_tid", e->old_tid);
	}
	if (e->kind == PTBPF_EV_FORK || e->kind == PTBPF_EV_JOIN)
		json_u64(j, "ppid", e->ppid);
	eventlog_end(l->events);

	if (e->kind == PTBPF_EV_EXEC)
		snprintf(detail, sizeof(detail), "%.*s", (int)sizeof(e->filename), e->filename);
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
		detail_line(e, sig, detail, sizeof(detail));
	if (l->verbosity > 0 ||
	    (e->kind != PTBPF_EV_THREAD_START && e->kind != PTBPF_EV_THREAD_EXIT))
		human(l, e->ts, kind_names[e->kind], detail);
}

void ctllog_hit(struct ctllog *l, const struct ctllog_hit *hit)
{
	const struct ptbpf_event *e = hit->e;
	const struct hitpoint *p = hit->point;
	char sig[24], detail[200];
	struct json *j;

	event_signal(e, sig, sizeof(sig));
	j = event_begin(l, e, hit->recv_ns, sig);
	json_u64(j, "point", e->point);
	json_str(j, "spec", p->spec);
	if (p->symbol[0])
		json_str(j, "symbol", p->symbol);
	if (p->path[0])
		json_str(j, "object", p->path);
	if (hit->ignored)
		json_str(j, "ignored", hit->ignored);
	eventlog_end(l->events);
	snprintf(detail, sizeof(detail), "tid %u at %s (0x%llx)%s", e->tid, p->spec, e->ip,
		 hit->ignored ? ", ignored" : "");
	human(l, e->ts, kind_names[e->kind], detail);
}

void ctllog_rate(struct ctllog *l, unsigned int old_hz, const struct snap_sampling *sp)
{
	uint64_t now = clock_now_ns();
	struct json *j;
	char msg[160];

	j = eventlog_begin(l->events, "rate", now, l->pid);
	json_u64(j, "old_rate_hz", old_hz);
	sampling_json(sp, j);
	eventlog_end(l->events);
	snprintf(msg, sizeof(msg), "%u Hz -> %u Hz (a sample now costs %.1f us)", old_hz, sp->hz,
		 sp->sample_ns / 1e3);
	human(l, now, "rate", msg);
}

void ctllog_lost(struct ctllog *l, uint64_t count, uint64_t total)
{
	struct json *j;

	j = eventlog_begin(l->events, "lost_events", clock_now_ns(), l->pid);
	json_u64(j, "count", count);
	json_u64(j, "total", total);
	eventlog_end(l->events);
	human(l, clock_now_ns(), "lost_events", "(BPF ring buffer full)");
}

void ctllog_follow_full(struct ctllog *l, uint64_t count, uint64_t total)
{
	char detail[160];
	struct json *j;

	j = eventlog_begin(l->events, "warning", clock_now_ns(), l->pid);
	json_str(j, "reason", "follow_full");
	json_u64(j, "limit", PTBPF_MAX_FOLLOW);
	json_u64(j, "count", count);
	json_u64(j, "total", total);
	eventlog_end(l->events);
	snprintf(detail, sizeof(detail),
		 "--follow: %d processes followed at once, the limit: %" PRIu64 " new one%s not "
		 "followed (%" PRIu64 " in all)",
		 PTBPF_MAX_FOLLOW, count, count == 1 ? "" : "s", total);
	/* a limit reached is said at most once a second: never folded away */
	human_line(l, clock_now_ns(), "warning", detail, false);
}

/* ": 2 stops", then ", 1 run" into @line at @n when @v; returns the new length. */
static int late_part(char *line, size_t len, int n, uint64_t v, const char *what, bool *first)
{
	if (!v || n < 0 || (size_t)n >= len)
		return n;
	n += snprintf(line + n, len - n, "%s%" PRIu64 " %s%s", *first ? ": " : ", ", v, what,
		      v == 1 ? "" : "s");
	*first = false;
	return n;
}

void ctllog_suspended(struct ctllog *l, const struct ctllog_late *late)
{
	uint64_t stopped = late->continued_ns - late->stopped_ns;
	struct json *j;
	char line[256];
	bool first = true;
	int n;

	j = eventlog_begin(l->events, "suspended", late->continued_ns, l->pid);
	json_u64(j, "stopped_ns", stopped);
	json_u64(j, "stops", late->stops);
	json_u64(j, "runs", late->runs);
	json_u64(j, "fatals", late->fatals);
	json_u64(j, "exits", late->exits);
	json_u64(j, "hits", late->hits);
	json_u64(j, "snapshots_missed", late->missed);
	eventlog_end(l->events);
	if (l->verbosity < 0)
		return;
	n = snprintf(line, sizeof(line), "ptbpf: continued after %.1f s stopped; meanwhile",
		     stopped / 1e9);
	n = late_part(line, sizeof(line), n, late->stops, "stop", &first);
	n = late_part(line, sizeof(line), n, late->runs, "run", &first);
	n = late_part(line, sizeof(line), n, late->fatals, "fatal signal", &first);
	n = late_part(line, sizeof(line), n, late->exits, "exit", &first);
	n = late_part(line, sizeof(line), n, late->hits, "trigger hit", &first);
	if (first && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " the target's state did not change");
	if (late->missed && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 " (%" PRIu64 " snapshot%s not taken: ptbpf was stopped)", late->missed,
			 late->missed == 1 ? "" : "s");
	status_say(line);
}

void ctllog_end(struct ctllog *l, const struct ctllog_end *end)
{
	const char *reason = end->reason;
	char detail[160];
	struct json *j;

	j = eventlog_begin(l->events, "end", clock_now_ns(), l->pid);
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
	json_u64(j, "toggles", end->toggles);
	json_u64(j, "toggle_errors", end->toggle_errors);
	/* transitions whose record came before an earlier one's */
	json_u64(j, "reordered", end->reordered);
	/* human lines a stderr that did not keep up never got */
	json_u64(j, "stderr_dropped", say_dropped());
	json_u64(j, "stderr_folded", say_folded());
	/* the kernel's count: how long the sampling timers ran, all CPUs */
	if (end->sample_timer_ns >= 0)
		json_u64(j, "sample_timer_ns", (uint64_t)end->sample_timer_ns);
	eventlog_end(l->events);
	if (end->ended) {
		char *p;

		snprintf(detail, sizeof(detail), "%s, %s: exit status %d", reason, end->ended,
			 end->exit_status);
		/* "as_asked" is for scripts; people read "as asked" */
		for (p = detail + strlen(reason); *p; p++)
			*p = *p == '_' ? ' ' : *p;
	} else
		snprintf(detail, sizeof(detail), "%s", reason);
	human(l, clock_now_ns(), "end", detail);
}
