// SPDX-License-Identifier: GPL-2.0
/* Policy: see control.h. */
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "base/clock.h"

void control_init(struct control *c, struct eventlog *log, int pid, unsigned int triggers,
		  bool no_pause, int verbosity, const struct control_ops *ops, void *ops_ctx)
{
	memset(c, 0, sizeof(*c));
	ctllog_init(&c->log, log, pid, verbosity);
	c->pid = pid;
	c->triggers = triggers;
	c->no_pause = no_pause;
	c->ops = ops;
	c->ops_ctx = ops_ctx;
	c->target = PTBPF_PROC_UNKNOWN;
	c->sample_timer_ns = -1;
}

void control_set_t0(struct control *c, uint64_t t0)
{
	c->log.t0 = t0;
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

void control_set_hit_limits(struct control *c, uint64_t min_history_ns, uint64_t limit)
{
	c->min_history_ns = min_history_ns;
	c->hit_limit = limit;
}

const char *control_end_reason(const struct control *c)
{
	return c->end_reason;
}

void control_set_verbosity(struct control *c, int verbosity)
{
	c->log.verbosity = verbosity;
}

bool control_target_stopped(const struct control *c)
{
	return c->target == PTBPF_PROC_STOPPED;
}

/* One pause or resume: what happened, to say once the cause is said. */
struct toggle {
	bool tried; /* false: no ops, or already in that state */
	bool run;
	int ret;
	uint64_t done_ns, cause_ts;
	const char *reason; /* said when not NULL */
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

/* Says @t (@at_start: the first resume, whose line follows the start line). */
static void toggle_say(struct control *c, const struct toggle *t, bool at_start)
{
	struct ctllog_toggle said = {
		.run = t->run,
		.done_ns = t->done_ns,
		/* from its cause (a transition's own timestamp) to the ioctls' end */
		.latency_ns = t->done_ns > t->cause_ts ? t->done_ns - t->cause_ts : 0,
		.reason = t->reason,
		.at_start = at_start,
	};

	if (!t->tried)
		return;
	if (t->ret)
		ctllog_toggle_failed(&c->log, t->run, t->ret);
	else
		ctllog_toggled(&c->log, &said);
}

static void toggle(struct control *c, bool run, uint64_t cause_ts)
{
	struct toggle t;

	toggle_do(c, run, cause_ts, &t);
	toggle_say(c, &t, false);
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

void control_set_bounds(struct control *c, uint64_t max_size, unsigned int max_snapshots)
{
	c->max_size = max_size;
	c->max_snapshots = max_snapshots;
}

void control_rate(struct control *c, unsigned int old_hz, const struct snap_sampling *sp)
{
	c->sampling = *sp;
	ctllog_rate(&c->log, old_hz, sp);
}

void control_set_sample_timer(struct control *c, uint64_t ns)
{
	c->sample_timer_ns = (int64_t)ns;
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

void control_start(struct control *c, int state, const char *backend, uint64_t buffer_size,
		   const char *command)
{
	uint64_t ts = clock_now_ns();

	c->target = state;
	c->history_from = ts;
	ctllog_started(&c->log, &(struct ctllog_start){
					.ts = ts,
					.stopped = state == PTBPF_PROC_STOPPED,
					.backend = backend,
					.buffer_size = buffer_size,
					.scope = c->scope,
					.scope_why = c->scope_why,
					.sampling = &c->sampling,
					.command = command,
					.max_size = c->max_size,
					.max_snapshots = c->max_snapshots,
				});
	offcpu(c, state != PTBPF_PROC_RUNNING);
	if (c->no_pause || state == PTBPF_PROC_RUNNING || c->kernel_cut) {
		struct toggle t;

		toggle_do(c, true, ts, &t);
		toggle_say(c, &t, true);
	}
}

uint64_t control_started_ns(const struct control *c)
{
	return c->history_from;
}

void control_announce(struct control *c)
{
	ctllog_announce(&c->log, c->target == PTBPF_PROC_STOPPED, c->sampling_line);
}

/* The point a hit event names; one of no point is "?" (no snapshot). */
static const struct hitpoint *point_of(const struct control *c, unsigned int point)
{
	static const struct hitpoint unknown = { .spec = "?" };

	return point < c->nr_points ? &c->points[point] : &unknown;
}

/* Why a hit makes no snapshot, or NULL when it makes one. */
static const char *hit_ignored(const struct control *c, const struct ptbpf_event *e)
{
	if (c->hit_limit && c->hits_taken >= c->hit_limit)
		return "trigger_limit";
	if (c->min_history_ns && e->ts < c->history_from + c->min_history_ns)
		return "min_history";
	return NULL;
}

/* Says @e, as applied or seen late; a hit with what the policy made of it. */
static void say_event(struct control *c, const struct ptbpf_event *e, uint64_t recv_ns)
{
	if (e->kind == PTBPF_EV_HIT)
		ctllog_hit(&c->log, &(struct ctllog_hit){
					    .e = e,
					    .recv_ns = recv_ns,
					    .point = point_of(c, e->point),
					    .ignored = hit_ignored(c, e),
				    });
	else
		ctllog_event(&c->log, e, recv_ns);
}

/* ptbpf was stopped: what came meanwhile (control_late_begin()). */
static struct {
	bool on;
	struct ctllog_late seen;
} late;

void control_late_begin(void)
{
	memset(&late, 0, sizeof(late));
	late.on = true;
}

static void late_count(const struct ptbpf_event *e)
{
	late.seen.stops += e->kind == PTBPF_EV_STOP;
	late.seen.runs += e->kind == PTBPF_EV_RUN;
	late.seen.fatals += e->kind == PTBPF_EV_FATAL;
	late.seen.exits += e->kind == PTBPF_EV_EXIT;
	late.seen.hits += e->kind == PTBPF_EV_HIT;
}

void control_late_end(struct control *c, uint64_t stopped_ns, uint64_t continued_ns)
{
	late.on = false;
	late.seen.stopped_ns = stopped_ns;
	late.seen.continued_ns = continued_ns;
	ctllog_suspended(&c->log, &late.seen);
}

/* Stages the snapshot of @cause, which holds every stop folded since the last. */
static void take(struct control *c, struct snap_cause *cause)
{
	if (late.on) {
		/* what the buffers hold now is not what they held then */
		late.seen.missed++;
		c->folded = c->folded_hits = 0;
		c->has_pending = false;
		return;
	}
	cause->folded = c->folded;
	cause->folded_hits = c->folded_hits;
	c->folded = c->folded_hits = 0;
	c->has_pending = false;
	/* the cause's time: stops are compared with it, on their own clock */
	c->last_snap_ns = cause->ts;
	c->ops->snapshot(c->ops_ctx, cause);
}

/*
 * --min-interval: a snapshot closer than that to the last one waits (the
 * newest waiting one is taken when due, the others folded into it).
 * Returns true when @cause was held back.
 */
static bool fold(struct control *c, const struct snap_cause *cause)
{
	if (!c->min_interval_ns || !c->last_snap_ns ||
	    cause->ts >= c->last_snap_ns + c->min_interval_ns)
		return false;
	c->pending = *cause;
	c->has_pending = true;
	/* a hit folded is a hit, not a stop (--trigger-on) */
	if (cause->spec)
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
		    enum snap_cause_kind kind)
{
	struct snap_cause cause = {
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
		.pid = (uint32_t)c->pid,
	};

	if (!c->ops || !c->ops->snapshot || !(c->triggers & bit))
		return;
	if (e->kind == PTBPF_EV_STOP) {
		cause.stop_kind = eventlog_stop_kind(e->stop_kind);
		/* a debugger stepping over its breakpoint: bytes go to the next */
		if (e->stop_kind == PTBPF_STOP_SINGLESTEP && !(c->triggers & TRIGGER_STEP)) {
			c->folded++;
			return;
		}
		if (fold(c, &cause))
			return;
	}
	take(c, &cause);
}

/*
 * --trigger-on: a hit makes a snapshot whose data ends at the hit (e->ts),
 * with the target running on; --min-interval folds it as it folds stops.
 */
static void hit(struct control *c, const struct ptbpf_event *e)
{
	struct snap_cause cause = {
		.kind = SNAPCAUSE_HIT,
		.ts = e->ts,
		.tid = e->tid,
		.ip = e->ip,
		.spec = point_of(c, e->point)->spec,
		.symbol = point_of(c, e->point)->symbol[0] ? point_of(c, e->point)->symbol : NULL,
		.object = point_of(c, e->point)->path[0] ? point_of(c, e->point)->path : NULL,
		.point = e->point,
	};

	if (!c->ops || !c->ops->snapshot || hit_ignored(c, e))
		return;
	c->hits_taken++;
	if (c->hit_limit && c->hits_taken >= c->hit_limit)
		c->end_reason = "trigger_limit";
	/* the last one before the end is not held back */
	if (!c->end_reason && fold(c, &cause))
		return;
	take(c, &cause);
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
	say_event(c, e, recv_ns);
	toggle_say(c, &t, false);
	if (e->kind == PTBPF_EV_HIT)
		hit(c, e);
	else if (e->kind == PTBPF_EV_STOP)
		trigger(c, TRIGGER_STOP, e, SNAPCAUSE_STOP);
	else if (e->kind == PTBPF_EV_FATAL)
		trigger(c, TRIGGER_FATAL, e, SNAPCAUSE_FATAL);
	else if (e->kind == PTBPF_EV_EXIT)
		trigger(c, TRIGGER_EXIT, e, SNAPCAUSE_EXIT);
}

uint64_t control_deadline(const struct control *c)
{
	return c->has_pending ? c->last_snap_ns + c->min_interval_ns : 0;
}

void control_tick(struct control *c, uint64_t now)
{
	struct snap_cause cause;

	if (!c->has_pending || now < control_deadline(c))
		return;
	cause = c->pending;
	unfold_pending(c); /* the pending one is this snapshot's own */
	take(c, &cause);
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
		say_event(c, e, recv_ns);
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
	toggle_say(c, &t, false);
	return 0;
}

bool control_lost(struct control *c, uint64_t total)
{
	if (total <= c->lost_seen)
		return false;
	ctllog_lost(&c->log, total - c->lost_seen, total);
	c->lost_seen = total;
	return true;
}

bool control_follow_full(struct control *c, uint64_t total)
{
	if (total <= c->follow_full_seen)
		return false;
	ctllog_follow_full(&c->log, total - c->follow_full_seen, total);
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

		trigger(c, TRIGGER_STOP, &e, SNAPCAUSE_STOP);
	}
}

void control_snapshot_now(struct control *c, enum snap_cause_kind kind)
{
	struct snap_cause cause = { .kind = kind, .ts = clock_now_ns(), .pid = (uint32_t)c->pid };

	if (c->ops && c->ops->snapshot)
		take(c, &cause);
}

void control_flush(struct control *c)
{
	struct snap_cause cause = c->pending;

	if (!c->has_pending)
		return;
	unfold_pending(c); /* the pending one is this snapshot's own */
	take(c, &cause);
}

void control_finish(struct control *c, bool snapshot)
{
	struct snap_cause cause = c->pending;

	toggle(c, false, clock_now_ns());
	if (snapshot) {
		control_snapshot_now(c, SNAPCAUSE_END);
	} else if (c->has_pending) {
		/* the last stop gets its snapshot, even cut short */
		unfold_pending(c);
		take(c, &cause);
	}
}

void control_end(struct control *c, const struct control_end_info *end)
{
	ctllog_end(&c->log, &(struct ctllog_end){
				    .reason = end->reason,
				    .status = end->status,
				    .ended = end->ended,
				    .exit_status = end->exit_status,
				    .left_running = end->left_running,
				    .toggles = c->toggles,
				    .toggle_errors = c->toggle_errors,
				    .reordered = c->reordered,
				    .sample_timer_ns = c->sample_timer_ns,
			    });
}
