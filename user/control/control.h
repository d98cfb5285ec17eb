/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy: process transitions and hits in, collection toggles and
 * snapshots out. Collection is paused while the target is stopped, has faulted or has
 * exited, and runs while it runs. Knows nothing of BPF or of perf: it drives
 * the collection through control_ops, so tests can drive it with fakes.
 * It decides; what each decision is said as, in events.jsonl and on stderr,
 * is ctllog.h's.
 */
#ifndef PTBPF_CONTROL_H
#define PTBPF_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "ctllog.h"
#include "output/eventlog.h"
#include "target/hitpoint.h"
#include "base/ptbpf_types.h"
#include "base/snapshot.h"

/* What takes a snapshot (--trigger). */
enum trigger_bits {
	TRIGGER_STOP = 1 << 0,
	TRIGGER_FATAL = 1 << 1,
	TRIGGER_EXIT = 1 << 2,
	TRIGGER_STEP = 1 << 3, /* single-step stops get their own snapshot */
	/*
	 * --follow: a followed process's ordinary exit (exit(), any code)
	 * gets a snapshot too; without it only a death by a signal does.
	 */
	TRIGGER_CHILD_EXIT = 1 << 4,
};

struct control_ops {
	/*
	 * Pause / resume every core; on success *done_ns is CLOCK_MONOTONIC
	 * when the last core's ioctl returned. Return 0 or -errno; 1 when
	 * the cores were left as they are (--follow: another process still
	 * wants them running), which is not logged. Must not allocate,
	 * block or write files: they run on the control path.
	 */
	int (*pause)(void *ctx, uint64_t *done_ns);
	int (*resume)(void *ctx, uint64_t *done_ns);
	/*
	 * Stage a snapshot (memory copies only) and queue it for writing.
	 * @t->kind: what asked for it (snapcause.h). Returns 0,
	 * -ENODATA when there were no new bytes (nothing written), or -errno.
	 */
	int (*snapshot)(void *ctx, const struct snap_cause *cause);
	/*
	 * Optional. The target has no thread that can run (@off: stopped or
	 * exited) or has one again. Memory only: it runs on the control path.
	 */
	void (*offcpu)(void *ctx, bool off);
};

/* Transitions that may wait for an earlier one. */
#define CONTROL_REORDER 64
/* How long a gap in the transitions' order may last before it is given up. */
#define CONTROL_GAP_NS 20000000ULL
/* How long a fatal pause holds without a sign that the target is dying. */
#define CONTROL_FATAL_NS 100000000ULL

struct control {
	const struct control_ops *ops; /* NULL: log transitions only */
	void *ops_ctx;
	struct ctllog log; /* what the decisions are said as */
	int pid;
	unsigned int triggers; /* enum trigger_bits */
	bool no_pause;
	/*
	 * Process scope: the kernel takes the events off each CPU with the
	 * target's threads, so a stop or an exit needs no pause; a fatal
	 * signal still does (the target runs on until it dies).
	 */
	bool kernel_cut;
	const char *scope, *scope_why; /* for the start event */
	/* sample backend: how and at what rate (start event, start line) */
	struct snap_sampling sampling;
	char sampling_line[160];
	/* the output directory's bounds, for the start event; 0: none */
	uint64_t max_size;
	unsigned int max_snapshots;
	/* sample backend: ns its timers ran, for the end event; -1: unknown */
	int64_t sample_timer_ns;
	bool running; /* collection state */
	int target; /* enum ptbpf_proc_state */
	uint64_t lost_seen;
	uint64_t follow_full_seen; /* forks --follow had no room for */
	uint64_t toggles, toggle_errors;
	/*
	 * --min-interval: a stop closer than this to the last snapshot is
	 * folded into the next one; 0: every stop has its own. Set with
	 * control_set_min_interval().
	 */
	uint64_t min_interval_ns;
	uint64_t last_snap_ns; /* when the last snapshot was staged; 0: none */
	bool has_pending; /* a folded stop waits for its snapshot */
	struct snap_cause pending;
	unsigned int folded; /* stops since the last snapshot, without one */
	unsigned int folded_hits; /* --trigger-on hits, the same way */
	/*
	 * Transitions in their BPF order (struct ptbpf_event.seq): the last
	 * one applied, those that came before an earlier one (held until it
	 * comes, or until control_resync()), and since when there is a gap.
	 */
	uint64_t seq;
	struct ptbpf_event held[CONTROL_REORDER];
	unsigned int nr_held;
	uint64_t gap_ns;
	uint64_t reordered;
	/* a pause for a fatal signal the target has not yet died of, or 0 */
	uint64_t fatal_ns;
	/*
	 * --trigger-on: the points as given (index = the event's point),
	 * --min-history (no hit's snapshot before history_from plus it;
	 * history_from is when collection started), --trigger-limit (0: none)
	 * and the hits that took a snapshot. Set with control_set_points() and
	 * control_set_hit_limits().
	 */
	const struct hitpoint *points;
	unsigned int nr_points;
	uint64_t min_history_ns, history_from;
	uint64_t hit_limit, hits_taken;
	/* why the run should end now (--trigger-limit reached), or NULL */
	const char *end_reason;
};

/*
 * The policy for process @pid: @triggers (enum trigger_bits) take
 * snapshots, @no_pause keeps the collection running, @verbosity is the
 * human lines' (-1 none, 0 normal, 1 verbose), events go to @log (which
 * must outlive @c), and @ops (NULL: log transitions only) act on the
 * collection with @ops_ctx.
 */
void control_init(struct control *c, struct eventlog *log, int pid, unsigned int triggers,
		  bool no_pause, int verbosity, const struct control_ops *ops, void *ops_ctx);

/* The run's start (CLOCK_MONOTONIC ns): human lines count from it. */
void control_set_t0(struct control *c, uint64_t t0);

/* When collection started: the start event's ts (control_start()). */
uint64_t control_started_ns(const struct control *c);

/* --min-interval (see min_interval_ns); call after control_init(). */
void control_set_min_interval(struct control *c, uint64_t ns);

/*
 * --trigger-on: @points, indexed by the hit event's point; they and
 * their strings must outlive @c. Call after control_init().
 */
void control_set_points(struct control *c, const struct hitpoint *points, unsigned int nr);

/*
 * --min-history (@min_history_ns of collection before a hit counts)
 * and --trigger-limit (@limit hits end the run; 0: none).
 */
void control_set_hit_limits(struct control *c, uint64_t min_history_ns, uint64_t limit);

/* Why the run should end now (--trigger-limit reached), or NULL. */
const char *control_end_reason(const struct control *c);

/*
 * The human lines from now on: -1 none (e.g. once a setup error's line is
 * all there is to say), 0 normal, 1 verbose.
 */
void control_set_verbosity(struct control *c, int verbosity);

/*
 * The scope in force, logged by control_start() (@why: why auto fell back,
 * "" or NULL when it did not; both must outlive @c), and whether the kernel
 * cuts the collection itself (process scope, see kernel_cut). Call after
 * control_init().
 */
void control_set_scope(struct control *c, const char *name, const char *why, bool kernel_cut);

/*
 * Sample backend: how it samples and at what rate (@sp, for the start
 * event) and @line for the start line; before control_start().
 */
void control_set_sampling(struct control *c, const struct snap_sampling *sp, const char *line);

/*
 * The output directory's bounds (--max-size @max_size bytes, --max-snapshots
 * @max_snapshots; 0: none), for the start event; before control_start().
 */
void control_set_bounds(struct control *c, uint64_t max_size, unsigned int max_snapshots);

/*
 * The rate changed from @old_hz to @sp->hz (a re-check of the cost): a
 * `rate` event and a line.
 */
void control_rate(struct control *c, unsigned int old_hz, const struct snap_sampling *sp);

/* Sample backend: the ns its timers ran, for the end event. */
void control_set_sample_timer(struct control *c, uint64_t ns);

/*
 * The target's state once watching began (PTBPF_PROC_RUNNING or _STOPPED):
 * logs "start" and enables collection if the target runs (or --no-pause).
 * @backend and @buffer_size are logged as they were chosen.
 */
void control_start(struct control *c, int state, const char *backend, uint64_t buffer_size,
		   const char *command);

/* Whether the target is stopped, as the last transition applied says. */
bool control_target_stopped(const struct control *c);

/* The human line for the start, once the target is known to be running. */
void control_announce(struct control *c);

/*
 * One event from the BPF program; @recv_ns is when user space got it.
 * Transitions (a non-zero @e->seq) are applied in their seq order: one that
 * comes before an earlier one is held until that one comes.
 */
void control_event(struct control *c, const struct ptbpf_event *e, uint64_t recv_ns);

/*
 * When a held transition's gap must be given up (CLOCK_MONOTONIC ns), or 0
 * when nothing is held. See control_resync().
 */
uint64_t control_gap_deadline(const struct control *c);

/*
 * A fatal pause that the target did not die of: once CONTROL_FATAL_NS have
 * passed since the fatal event (@now), with the target not @dying and
 * running as the BPF side sees it (@state), collection resumes (logged as
 * "resume" with "reason":"not_fatal"). Returns when to call again (ns,
 * CLOCK_MONOTONIC), or 0 when no fatal pause is pending.
 */
uint64_t control_fatal_check(struct control *c, bool dying, int state, uint64_t now);

/*
 * The BPF program's count of events it could not send, so far. Returns
 * true when it grew since the last call (a transition may be among them).
 */
bool control_lost(struct control *c, uint64_t total);

/*
 * --follow: the BPF program's count of forks it could not follow (its map
 * of PTBPF_MAX_FOLLOW processes full), so far. When it grew: a `warning`
 * event (`"reason":"follow_full"`) and a line, so a limit reached is never
 * silent. Returns true when it grew.
 */
bool control_follow_full(struct control *c, uint64_t total);

/*
 * Brings the collection in line with @state (enum ptbpf_proc_state, as the
 * BPF program holds it, after transition @seq) after events were lost or
 * a gap in their order was given up: held transitions are applied in
 * order, then pause unless it runs. A stop found this way (its event was
 * lost) still takes its snapshot when the stop trigger is on.
 */
void control_resync(struct control *c, int state, uint64_t seq);

/*
 * When the snapshot of a folded stop is due (CLOCK_MONOTONIC ns), or 0 when
 * none waits: the last stop always gets its snapshot, --min-interval after
 * the previous one.
 */
uint64_t control_deadline(const struct control *c);

/* Takes the waiting snapshot if it is due at @now. */
void control_tick(struct control *c, uint64_t now);

/*
 * A snapshot now, with the target running or not: SNAPCAUSE_REQUESTED
 * (SIGUSR2) or SNAPCAUSE_END (the run's last data).
 */
void control_snapshot_now(struct control *c, enum snap_cause_kind kind);

/* A folded stop's snapshot, now (its process is gone: no tick will come). */
void control_flush(struct control *c);

/* The end of the run: pause every core, and a last snapshot if @snapshot. */
void control_finish(struct control *c, bool snapshot);

/*
 * ptbpf itself was stopped (Ctrl-Z, without a command) and is continued:
 * what the target did meanwhile waits in the BPF ring. Between
 * control_late_begin() and control_late_end() those events are applied
 * and logged as always (with their own times), counted, and get no
 * snapshot: the buffers no longer hold what they held then. Process-wide,
 * as ptbpf's stop was: every followed process's control alike.
 */
void control_late_begin(void);

/*
 * The catch-up is over: a "suspended" event (@stopped_ns: when ptbpf
 * stopped, @continued_ns: when it went on) and one line say what
 * happened meanwhile.
 */
void control_late_end(struct control *c, uint64_t stopped_ns, uint64_t continued_ns);

/* What the "end" line says. */
struct control_end_info {
	const char *reason; /* "exit", "signal", "duration", "trigger_limit"... */
	int status; /* a launched command's, as a shell says it; -1: none */
	const char *ended; /* how (runend.h); NULL: not said (ptbpf failed) */
	int exit_status; /* ptbpf's */
	/* --follow without a command: processes left running, unrecorded */
	unsigned int left_running;
};

/* The "end" line, once the snapshots are written. */
void control_end(struct control *c, const struct control_end_info *end);

#endif /* PTBPF_CONTROL_H */
