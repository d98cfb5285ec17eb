/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the control policy's decisions are said as: for each one, its line
 * in events.jsonl and its human line on stderr. The policy (control.h)
 * decides and calls one function per decision with the facts of it; the
 * words are chosen here, from those facts alone. Nothing here decides what
 * the collection does, and nothing here calls back into the policy: the
 * flow is one way, control -> ctllog -> eventlog / json / say.
 *
 * Human lines count seconds from the run's start (t0) and are quiet at
 * verbosity -1; those that come as often as the target makes them are
 * rate-limited (say.h). On a terminal the status line tells the stops and
 * runs instead of a line each (status.h).
 *
 *	struct ctllog l;
 *	ctllog_init(&l, &events, pid, verbosity);
 *	ctllog_lost(&l, 3, 10);
 */
#ifndef PTBPF_CTLLOG_H
#define PTBPF_CTLLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "output/eventlog.h"
#include "target/hitpoint.h"
#include "base/ptbpf_types.h"
#include "base/snapshot.h"

struct ctllog {
	struct eventlog *events; /* events.jsonl */
	int pid; /* the process every line is about */
	int verbosity; /* -1 none, 0 normal, 1 verbose */
	uint64_t t0; /* the run's start (CLOCK_MONOTONIC): +seconds from it */
	uint64_t real0, mono0; /* the start event's clock pair */
	/* the first resume: its line comes after the start line */
	uint64_t start_resume_ns, start_resume_lat;
	/*
	 * A process --follow followed, not the target: its stop and fatal
	 * lines are rate-limited as the rest. The target's first stop line
	 * and first fatal line of each second never are (when they were said,
	 * CLOCK_MONOTONIC): the stop a user caused stays in sight however
	 * many lines the followed processes make.
	 */
	bool member;
	uint64_t stop_said_ns, fatal_said_ns;
};

/*
 * Lines about process @pid into @events (both must outlive @l), human ones
 * at @verbosity (-1 none, 0 normal, 1 verbose), counted from now until
 * @l->t0 is set.
 */
void ctllog_init(struct ctllog *l, struct eventlog *events, int pid, int verbosity);

/* What the start event says: the collection as it was set up. */
struct ctllog_start {
	uint64_t ts; /* when collection started */
	bool stopped; /* the target's state then (else running) */
	const char *backend; /* NULL: not said */
	uint64_t buffer_size; /* 0: not said */
	const char *scope; /* NULL: not said */
	const char *scope_why; /* why auto fell back; NULL or "": it did not */
	const struct snap_sampling *sampling; /* sample backend; how NULL: none */
	const char *command; /* a launched command's argv[0]; NULL: none */
	uint64_t max_size; /* --max-size in force; 0: none (not said) */
	unsigned int max_snapshots; /* --max-snapshots; 0: none (not said) */
};

/*
 * Collection started: the "start" event, with the clock pair it reads
 * (realtime and monotonic together, so any ts converts to a time of day).
 * Its human line waits for ctllog_announce().
 */
void ctllog_started(struct ctllog *l, const struct ctllog_start *s);

/*
 * The target is known to run (or to be stopped, @stopped): the human line
 * of the start, with the time of day of t0 and @sampling_line (the sample
 * rate, "" for none); at verbosity 1 then the first resume's latency.
 */
void ctllog_announce(struct ctllog *l, bool stopped, const char *sampling_line);

/* A pause or a resume of every core that worked. */
struct ctllog_toggle {
	bool run; /* resumed; else paused */
	uint64_t done_ns; /* when the last core's ioctl returned */
	uint64_t latency_ns; /* from what caused it to done_ns */
	const char *reason; /* why, when not the target's transition; or NULL */
	/* the first resume at start: its line follows the start line */
	bool at_start;
};

/*
 * Paused or resumed with a latency: the "pause" / "resume" event, and at
 * verbosity 1 a line (for @t->at_start, later: ctllog_announce()).
 */
void ctllog_toggled(struct ctllog *l, const struct ctllog_toggle *t);

/*
 * A pause (@run false) or resume that failed with -errno @err: a line and
 * the event with the error.
 */
void ctllog_toggle_failed(struct ctllog *l, bool run, int err);

/*
 * An event of the BPF program, applied (or older than a resync): a
 * transition (run, stop, fatal, exit) or what the target did (exec, a
 * thread started or ended, fork, join, left the cgroup), not a hit
 * (ctllog_hit()). @recv_ns: when user space got it. Thread starts and exits
 * have a line only at verbosity 1.
 */
void ctllog_event(struct ctllog *l, const struct ptbpf_event *e, uint64_t recv_ns);

/* A --trigger-on hit, and what the policy made of it. */
struct ctllog_hit {
	const struct ptbpf_event *e;
	uint64_t recv_ns; /* when user space got it */
	const struct hitpoint *point; /* the point it names (spec "?": none) */
	const char *ignored; /* why it takes no snapshot, or NULL */
};

/* A --trigger-on hit: the "trigger" event, with its point, and a line. */
void ctllog_hit(struct ctllog *l, const struct ctllog_hit *hit);

/*
 * A re-check of the sample cost moved the rate from @old_hz to @sp->hz: a
 * "rate" event and a line.
 */
void ctllog_rate(struct ctllog *l, unsigned int old_hz, const struct snap_sampling *sp);

/*
 * The BPF program could not send @count events more (@total so far): a
 * "lost_events" event and a line.
 */
void ctllog_lost(struct ctllog *l, uint64_t count, uint64_t total);

/*
 * --follow had no room for @count forks more (@total so far, at
 * PTBPF_MAX_FOLLOW processes): a "warning" event ("follow_full") and a
 * line that is never folded away.
 */
void ctllog_follow_full(struct ctllog *l, uint64_t count, uint64_t total);

/* What the target did while ptbpf was stopped (Ctrl-Z). */
struct ctllog_late {
	uint64_t stopped_ns, continued_ns; /* when ptbpf stopped, went on */
	uint64_t stops, runs, fatals, exits, hits;
	uint64_t missed; /* snapshots not taken */
};

/* ptbpf went on after a stop: a "suspended" event and one line. */
void ctllog_suspended(struct ctllog *l, const struct ctllog_late *late);

/* What the end event says. */
struct ctllog_end {
	const char *reason; /* "exit", "signal", "duration", "trigger_limit"... */
	int status; /* a launched command's, as a shell says it; -1: none */
	const char *ended; /* how (runend.h); NULL: not said (ptbpf failed) */
	int exit_status; /* ptbpf's, said with @ended */
	unsigned int left_running; /* --follow: processes left, unrecorded */
	uint64_t toggles, toggle_errors;
	uint64_t reordered; /* transitions that came out of order */
	int64_t sample_timer_ns; /* the sampling timers' ns; -1: unknown */
};

/*
 * The end of the run: the "end" event (with what say.h dropped and folded
 * of the human lines) and the last line.
 */
void ctllog_end(struct ctllog *l, const struct ctllog_end *end);

#endif /* PTBPF_CTLLOG_H */
