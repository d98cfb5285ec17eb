// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf: a flight recorder for one process. Wiring only:
 * args -> target -> watch -> cores -> output -> snapshots -> control -> loop.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "collect/backend.h"
#include "output/buildcache.h"
#include "output/bundle.h"
#include "control/control.h"
#include "collect/cores.h"
#include "control/ctlops.h"
#include "target/descend.h"
#include "output/eventlog.h"
#include "control/follow.h"
#include "target/jobctl.h"
#include "control/loop.h"
#include "snapshot/outdir.h"
#include "watch/privs.h"
#include "target/guardian.h"
#include "control/runend.h"
#include "collect/runrate.h"
#include "collect/runscope.h"
#include "base/say.h"
#include "collect/scope.h"
#include "snapshot/snapstage.h"
#include "output/snapwrite.h"
#include "base/status.h"
#include "target/target.h"
#include "target/unit.h"
#include "control/waitfor.h"
#include "target/hitpoint.h"
#include "watch/watch.h"
#include "base/clock.h"
#include "proc/vdso.h"
#include "textesc.h"

#define EXIT_SETUP 1
#define EXIT_USAGE 2
/* How long the last human lines may take to reach a slow stderr. */
#define SAY_EXIT_WAIT_MS 500

struct app {
	struct config cfg;
	struct target target;
	struct jobctl jc; /* launch mode at a terminal */
	struct eventlog log;
	struct control ctl;
	struct ctlops hands; /* control_ops and the events' sink */
	struct follow follow; /* --follow: every process's control */
	struct watch *watch;
	struct cores *cores;
	struct snapstage *snaps;
	struct snapqueue *queue; /* the snapshot writer */
	struct snapwrite_opts write; /* how it writes each snapshot */
	struct proccache procs; /* its readings of /proc */
	int outfd;
	int uid, gid;
	struct runscope scope; /* which tasks are recorded, its cgroup */
	struct hitpoint *points; /* --trigger-on, resolved */
	struct runrate rate; /* sample backend: the rate and its cost */
	bool exec_failed;
	pid_t held; /* --wait-for: the process held stopped, until let go */
	struct guardian guard; /* lets them go if ptbpf is killed */
	struct eventlog_rot evrot; /* --max-size: events.jsonl's share */
	char unit_cg[4096]; /* --unit: its cgroup's directory */
	uint64_t start_ns; /* the run's start: the +seconds count from here */
	char run[EVENTLOG_RUN_LEN + 1]; /* this run's id in events.jsonl */
	char err[PATH_MAX + 512];
	char notes[1024]; /* cores' remarks, shown once the run has started */
	char cache_dir[512]; /* perf's build-id cache */
	struct vdso_image vdso; /* ptbpf's own, saved with the snapshots */
};

/* Writes what is queued; later events find no stager to tell. */
static void stop_snapshots(struct app *app)
{
	snapstage_stop(app->snaps);
	snapqueue_stop(app->queue);
	app->snaps = NULL;
	app->queue = NULL;
	app->hands.stage = NULL;
	app->hands.queue = NULL;
	app->hands.procs = NULL;
	proccache_free(&app->procs);
}

/* --follow: the BPF side's state of each process, the snapshots' list. */
static int probe_state(void *ctx, pid_t pid, uint64_t *seq)
{
	struct app *app = ctx;

	return watch_proc_state(app->watch, pid, seq);
}

static bool probe_dying(void *ctx, pid_t pid)
{
	struct app *app = ctx;

	return watch_proc_dying(app->watch, pid);
}

static int probe_list(void *ctx, pid_t *pids, int max)
{
	struct app *app = ctx;

	return watch_children(app->watch, pids, max);
}

static void probe_member(void *ctx, pid_t pid, bool gone)
{
	struct app *app = ctx;

	snapqueue_follow(app->queue, (uint32_t)pid, gone);
}

static bool cpu_ran(void *ctx, int cpu)
{
	struct app *app = ctx;

	return watch_cpu_take(app->watch, cpu);
}

/*
 * Says the error line @err (errbuf.h: ptbpf's own words and the values it
 * quotes) on stderr: a path quoted in it is escaped (textesc.h), so that a
 * newline in a path never makes a line of its own in the journal.
 */
static void say_error(const char *err)
{
	char esc[TEXTESC_SIZE(sizeof(((struct app *)0)->err))];

	say("ptbpf: %s\n", textesc_str(esc, sizeof(esc), err));
}

static int fail(struct app *app)
{
	say_error(app->err);
	return EXIT_SETUP;
}

/*
 * Remarks of the collection (backend chosen, size rounded) wait until the
 * run has started: a run that fails to start says one line, its error.
 */
static void report(void *ctx, const char *msg)
{
	struct app *app = ctx;
	size_t len = strlen(app->notes);

	char esc[TEXTESC_SIZE(256)];

	snprintf(app->notes + len, sizeof(app->notes) - len, "ptbpf: %s\n",
		 textesc_str(esc, sizeof(esc), msg));
}

/* Processes there before the run are followed from now on. */
static void adopt(struct app *app, const pid_t *pids, int n)
{
	int i, state;

	for (i = 0; i < n; i++) {
		if (pids[i] == app->target.pid)
			continue;
		/* -EEXIST: forked by one adopted already, the BPF side has it */
		state = watch_adopt(app->watch, "/proc", pids[i]);
		if (state >= 0)
			follow_adopt(&app->follow, pids[i], state);
	}
}

/*
 * --unit: every other process in its cgroup now; --pid --follow: the
 * processes the target forked before the attach, and theirs (read again
 * now: one forked meanwhile by a process not yet followed is there too).
 */
static void adopt_existing(struct app *app)
{
	pid_t *pids;
	int n;

	if (app->cfg.unit)
		n = unit_procs(app->unit_cg, &pids);
	else if (app->cfg.follow && app->cfg.pid)
		n = descend_list("/proc", app->target.pid, &pids);
	else
		return;
	adopt(app, pids, n);
	free(pids);
}

static int setup_target(struct app *app)
{
	pid_t pid = app->cfg.pid;

	if (app->cfg.cmd)
		return target_spawn(&app->target, app->cfg.cmd, app->uid, app->gid, app->err,
				    sizeof(app->err));
	if (app->cfg.unit) {
		/* the others in its cgroup are adopted once the BPF side watches */
		pid = unit_target(app->cfg.unit, app->unit_cg, sizeof(app->unit_cg), app->err,
				  sizeof(app->err));
		if (pid < 0)
			return pid;
		/* its cgroup is the scope, as --cgroup=PATH */
		app->cfg.cgroup = true;
		app->cfg.cgroup_path = app->unit_cg;
		app->cfg.scope = SCOPE_CGROUP;
	}
	if (app->cfg.wait_for) {
		guardian_start(&app->guard); /* -errno: as before, none */
		pid = waitfor_exec(app->cfg.wait_for, app->cfg.verbosity, app->err,
				   sizeof(app->err));
		if (pid < 0)
			return pid;
		app->held = pid;
		/* from here a killed ptbpf's guardian lets it go (-v says when) */
		if (!guardian_hold(&app->guard, pid) && app->cfg.verbosity > 0)
			say("ptbpf: pid %d held; the guardian lets it go if ptbpf dies\n", pid);
		/* the run starts with its target */
		app->start_ns = clock_now_ns();
	}
	return target_attach(&app->target, pid, "/proc", app->err, sizeof(app->err));
}

static int open_cores(struct app *app)
{
	struct cores_config cc;
	int ret;

	ret = runscope_plan(&app->scope,
			    &(struct runscope_req){
				    .scope = app->cfg.scope,
				    .pid = app->target.pid,
				    .launch = app->cfg.cmd != NULL,
				    .no_pause = app->cfg.no_pause,
				    .descendants = app->cfg.follow && app->cfg.pid,
				    .cpus = app->cfg.cpus,
				    .nr_cpus = app->cfg.nr_cpus,
				    .max_events = app->cfg.max_events,
				    .cgroup_path = app->cfg.cgroup_path,
				    .guard = &app->guard,
				    .watch = app->watch,
			    },
			    app->err, sizeof(app->err));
	if (ret)
		return ret;
	ret = runrate_pick(&app->rate, report, app, app->err, sizeof(app->err));
	if (ret)
		return ret;
	cores_config_init(&cc);
	cc.scope = app->scope.kind;
	cc.tids = app->scope.threads.tids;
	cc.nr_tids = app->scope.threads.nr_tids;
	/* a held command: armed for its exec, none of ptbpf's code before */
	cc.enable_on_exec = app->cfg.cmd != NULL;
	cc.follow = app->cfg.follow;
	/* cpu/cgroup scope: each core toggled from its own CPU at once */
	cc.parallel = true;
	cc.parallel_rt_prio = 1;
	cc.backend = app->cfg.backend;
	cc.cpus = app->cfg.cpus;
	cc.nr_cpus = app->cfg.nr_cpus;
	cc.buffer_size = app->cfg.buffer_size;
	cc.kernel = app->cfg.kernel;
	cc.sample_freq = runrate_hz(&app->rate);
	cc.call_graph = app->cfg.call_graph;
	cc.stack_size = app->cfg.stack_size;
	cc.cgroup_fd = app->scope.cgroup_fd;
	cc.pause_points = app->points;
	cc.nr_pause_points = app->points ? app->cfg.nr_hit_specs : 0;
	cc.report = report;
	cc.report_ctx = app;
	app->cores = cores_open(&cc, NULL, app->err, sizeof(app->err));
	if (!app->cores)
		return -errno;
	app->hands.cores = app->cores;
	ret = snapwrite_formats_check(app->cfg.formats, cores_backend(app->cores), app->err,
				      sizeof(app->err));
	if (ret)
		return ret;
	ret = runscope_bind(&app->scope, app->cores, app->err, sizeof(app->err));
	if (ret)
		return ret;
	runscope_report(&app->scope, app->cores, report, app);
	runrate_opened(&app->rate, app->cores);
	return 0;
}

/* Where the run's files go: made only once everything else is ready. */
static int open_output(struct app *app)
{
	struct snap_run run = {
		.pid = app->target.pid,
		.full = app->cfg.full,
		.run_start_ns = app->start_ns,
		.scope_why = app->scope.why,
	};
	struct snapstage_config sc = {
		.run = &run,
		/* --follow: the BPF side does not mark the CPUs (one look-up
		 * less at every switch): every core is read */
		.cpu_ran = app->cfg.follow ? NULL : cpu_ran,
		.cpu_ran_ctx = app,
		.verbosity = app->cfg.verbosity,
	};
	struct snapqueue_config qc = {
		.write = &app->write,
		.procs = &app->procs,
		.max_snapshots = app->cfg.max_snapshots,
		.max_size = app->cfg.max_size,
		.verbosity = app->cfg.verbosity,
		.run_id = app->run,
		.pid = app->target.pid,
	};
	int ret;

	app->write = (struct snapwrite_opts){
		.out_dir = app->cfg.output,
		.uid = app->uid,
		.gid = app->gid,
		.formats = app->cfg.formats,
		/* -N: as perf record's --no-buildid-cache */
		.buildid_cache = app->cfg.no_buildid_cache ?
					 NULL :
					 buildcache_dir(app->cache_dir, sizeof(app->cache_dir)),
	};
	app->outfd = outdir_open(app->cfg.output, app->uid, app->gid, app->err, sizeof(app->err));
	if (app->outfd < 0)
		return app->outfd;
	app->write.dirfd = app->outfd;
	ret = eventlog_open(&app->log, app->outfd, app->uid, app->gid);
	if (eventlog_refusal(ret)) {
		snprintf(app->err, sizeof(app->err), "%s/events.jsonl %s: refusing to write there",
			 app->cfg.output, eventlog_refusal(ret));
		return ret;
	}
	if (ret) {
		snprintf(app->err, sizeof(app->err), "can't write %s/events.jsonl: %s",
			 app->cfg.output, strerror(-ret));
		return ret;
	}
	eventlog_new_run(app->run);
	eventlog_set_run(&app->log, app->run);
	if (app->cfg.max_size) {
		ret = eventlog_rot_init(&app->evrot, &app->log, app->outfd, app->uid, app->gid,
					eventlog_share(app->cfg.max_size));
		if (ret) {
			snprintf(app->err, sizeof(app->err), "can't size %s/events.jsonl: %s",
				 app->cfg.output, strerror(-ret));
			return ret;
		}
		qc.events_rot = &app->evrot;
	}
	cores_describe(app->cores, &run);
	run.sampling = app->rate.said;
	/* none (vdso=0): ptbpf.json says so of each target's [vdso] */
	if (!vdso_image_read(NULL, &app->vdso))
		run.vdso = &app->vdso;
	sc.first_id = outdir_last_snapshot(app->outfd) + 1;
	snapstage_layout(app->cores, &qc);
	proccache_init(&app->procs, NULL, app->target.pid);
	app->queue = snapqueue_start(&qc);
	if (!app->queue) {
		ret = -errno;
		snprintf(app->err, sizeof(app->err), "can't set up snapshot staging: %s",
			 strerror(-ret));
		return ret;
	}
	app->snaps =
		snapstage_start(&sc, app->cores, app->queue, &app->log, app->err, sizeof(app->err));
	app->hands.stage = app->snaps;
	app->hands.queue = app->queue;
	app->hands.procs = &app->procs;
	return app->snaps ? 0 : -errno;
}

/* BPF attached; learn the threads' states, then let a held command go. */
static int start_watching(struct app *app)
{
	char line[160];
	int state;

	state = watch_scan(app->watch, "/proc");
	if (state < 0) {
		snprintf(app->err, sizeof(app->err), "process %d exited before tracing began",
			 app->target.pid);
		return state;
	}
	if (app->cfg.follow) {
		struct follow_probe probe = {
			.state = probe_state,
			.dying = probe_dying,
			.member = probe_member,
			.list = probe_list,
			.ctx = app,
		};

		/* every process's control drives the cores through the group */
		follow_init(&app->follow, &ctlops_ops, &app->hands, &probe);
		app->hands.follow = &app->follow;
		control_init(&app->ctl, &app->log, app->target.pid, app->cfg.triggers,
			     app->cfg.no_pause, app->cfg.verbosity, follow_ops(),
			     follow_root(&app->follow));
	} else {
		control_init(&app->ctl, &app->log, app->target.pid, app->cfg.triggers,
			     app->cfg.no_pause, app->cfg.verbosity, &ctlops_ops, &app->hands);
	}
	control_set_min_interval(&app->ctl, app->cfg.min_interval_ns);
	control_set_t0(&app->ctl, app->start_ns);
	control_set_points(&app->ctl, app->points, app->points ? app->cfg.nr_hit_specs : 0);
	control_set_hit_limits(&app->ctl, app->cfg.min_history_ns, app->cfg.trigger_limit);
	control_set_scope(&app->ctl, scope_name(app->scope.kind), app->scope.why,
			  app->scope.kind == SCOPE_PROCESS);
	control_set_bounds(&app->ctl, app->cfg.max_size, app->cfg.max_snapshots);
	if (runrate_summary(&app->rate, line, sizeof(line)))
		control_set_sampling(&app->ctl, &app->rate.said, line);
	if (app->cfg.follow)
		follow_start(&app->follow, &app->ctl, app->target.pid);
	adopt_existing(app);
	/*
	 * A SIGINT or SIGTERM of setup (BPF loading, the cost's calibration)
	 * ends the run here, before its "start": the command never runs.
	 */
	if (loop_setup_cancelled())
		return -EINTR;
	control_start(&app->ctl, state, snapfmt_backend_name(cores_backend(app->cores)),
		      cores_buffer_size(app->cores), app->cfg.cmd ? app->cfg.cmd[0] : NULL);
	if (app->target.child && target_release(&app->target, app->err, sizeof(app->err))) {
		/* the command could not be run: as a shell, say so, exit 127 */
		app->exec_failed = true;
		/* the error line is all there is to say */
		control_set_verbosity(&app->ctl, -1);
		return -ENOEXEC;
	}
	/* --wait-for: collection runs, its first instruction is next */
	if (app->held > 0) {
		kill(app->held, SIGCONT);
		app->held = 0;
		guardian_release(&app->guard);
		/* as after an exec: the loader maps its libraries now */
		snapqueue_refresh_proc(app->queue);
	}
	if (app->cfg.verbosity >= 0 && app->notes[0])
		say("%s", app->notes);
	control_announce(&app->ctl);
	/* a bound the user did not give is said: old snapshots will go */
	if (app->cfg.verbosity >= 0 && app->cfg.max_size_default)
		status_say_f("ptbpf: %s kept within %" PRIu64 "M (the default --max-size; "
			     "--max-size 0: no limit)",
			     app->cfg.output, app->cfg.max_size >> 20);
	/* --overhead: the cost is measured again while the run goes on */
	runrate_watch(&app->rate, app->scope.kind);
	return 0;
}

/*
 * --trigger-on: every point parsed and found in its file before anything
 * is attached (a missing or ambiguous symbol is the run's one error line).
 */
static int resolve_points(struct app *app)
{
	struct hitpoint_where w = {
		.proc = "/proc",
		.pid = app->cfg.cmd ? 0 : app->target.pid,
		.exe = app->cfg.cmd ? app->cfg.cmd[0] : NULL,
		.lib_path = getenv("LD_LIBRARY_PATH"),
	};
	unsigned int i;
	int ret;

	if (!app->cfg.nr_hit_specs)
		return 0;
	app->points = calloc(app->cfg.nr_hit_specs, sizeof(*app->points));
	if (!app->points)
		return -ENOMEM;
	for (i = 0; i < app->cfg.nr_hit_specs; i++) {
		ret = hitpoint_parse(app->cfg.hit_specs[i], &app->points[i], app->err,
				     sizeof(app->err));
		if (!ret)
			ret = hitpoint_resolve(&app->points[i], &w, app->err, sizeof(app->err));
		if (ret)
			return ret;
		if (app->points[i].note[0])
			report(app, app->points[i].note);
	}
	return 0;
}

static int attach_points(struct app *app)
{
	unsigned int i;
	int ret;

	for (i = 0; i < app->cfg.nr_hit_specs; i++) {
		ret = watch_hitpoint(app->watch, app->points[i].path, app->points[i].offset, i,
				     app->err, sizeof(app->err));
		if (ret)
			return ret;
	}
	return 0;
}

/* Returns 0 or the -errno of the step that failed, with app->err set. */
static int setup(struct app *app)
{
	struct runrate_opts rate = {
		.backend = app->cfg.backend,
		.kernel = app->cfg.kernel,
		.call_graph = app->cfg.call_graph,
		.stack_size = app->cfg.stack_size,
		.freq = app->cfg.freq,
		.overhead_pct = app->cfg.overhead_pct,
		.cpus = app->cfg.cpus,
		.verbosity = app->cfg.verbosity,
	};
	int ret;

	app->start_ns = clock_now_ns();
	if (privs_check(app->err, sizeof(app->err)))
		return -EPERM;
	loop_setup_signals();
	if (loop_set_realtime() && app->cfg.verbosity > 0)
		say("ptbpf: can't use SCHED_FIFO for the control path: toggles may wait for a time slice\n");
	target_invoking_user(&app->uid, &app->gid);
	ret = setup_target(app);
	if (ret)
		return ret;
	/* a sample's cost is measured while the BPF side loads */
	ret = runrate_begin(&app->rate, &rate, app->err, sizeof(app->err));
	if (ret)
		return ret;
	app->hands.ctl = &app->ctl;
	ret = resolve_points(app);
	if (ret)
		return ret;
	app->watch = watch_open(app->target.pid, app->cfg.follow, app->cfg.verbosity > 0,
				ctlops_event, &app->hands, app->err, sizeof(app->err));
	if (!app->watch)
		return -errno;
	app->hands.watch = app->watch;
	watch_crashes(app->watch, app->cfg.crash_stack, ctlops_crash);
	ret = attach_points(app);
	if (!ret)
		ret = open_cores(app);
	if (!ret)
		ret = open_output(app);
	if (ret)
		return ret;
	loop_block_signals();
	return start_watching(app);
}

/*
 * The sample rate's re-check came back with another rate: every data
 * event took it, and the log says so.
 */
static void rate_tick(struct app *app)
{
	unsigned int old;

	if (runrate_tick(&app->rate, app->cores, &old))
		control_rate(&app->ctl, old, &app->rate.said);
}

/*
 * Between events: intel-pt drains the PT events' records rings (they drop
 * what does not fit between two snapshots), sample re-checks its rate.
 */
static void periodic_tick(void *ctx)
{
	struct app *app = ctx;

	cores_drain_records(app->cores);
	if (runrate_watching(&app->rate))
		rate_tick(app);
}

static int run(struct app *app)
{
	struct loop_result res;
	struct run_end end;
	enum runend_how how;
	uint64_t timer_ns;
	int ret, status, sig;
	uint64_t drain_ns;

	if (setup(app)) {
		sig = loop_setup_interrupted(app->err, sizeof(app->err));
		fail(app);
		if (!app->exec_failed) {
			target_abort(&app->target);
			return sig ? 128 + sig : EXIT_SETUP;
		}
		status = target_reap(&app->target);
		stop_snapshots(app);
		control_end(&app->ctl, &(struct control_end_info){ .reason = "exec_failed",
								   .status = status,
								   .exit_status = 127 });
		return 127;
	}
	/* only where the target does not write to the same terminal */
	if (status_open(STDERR_FILENO,
			app->cfg.verbosity >= 0 &&
				!status_shared(STDERR_FILENO, "/proc", app->target.pid))) {
		char state[64];

		snprintf(state, sizeof(state), "pid %d %s", app->target.pid,
			 control_target_stopped(&app->ctl) ? "stopped" : "running");
		status_target(state, false);
	}
	drain_ns = backend_ops(cores_backend(app->cores))->drain_ns;
	ret = loop_run(
		&(struct loop_args){
			.ctl = &app->ctl,
			.watch = app->watch,
			.target = &app->target,
			.jc = &app->jc,
			.grace_ms = app->cfg.grace_ms,
			.follow = app->cfg.follow ? &app->follow : NULL,
			/*
			 * TIME of collection: ptbpf's own start-up (BPF, the
			 * cost's calibration) takes seconds on a loaded host
			 */
			.end_ns = app->cfg.duration_ns ?
					  control_started_ns(&app->ctl) + app->cfg.duration_ns :
					  0,
			/* with a command, Ctrl-Z is the command's (jobctl.h) */
			.suspend = !app->cfg.cmd,
			.periodic = drain_ns || runrate_watching(&app->rate) ? periodic_tick : NULL,
			.periodic_ctx = app,
			.periodic_ns = drain_ns ? drain_ns : 1000000000ULL,
		},
		&res);
	if (app->cfg.follow)
		follow_finish(&app->follow);
	if (app->cfg.verbosity >= 0)
		loop_say_left(&res);
	control_finish(&app->ctl, res.snapshot);
	if (!cores_sample_ns(app->cores, &timer_ns))
		control_set_sample_timer(&app->ctl, timer_ns);
	stop_snapshots(app);
	status_close(); /* the last lines are plain ones */
	end = (struct run_end){
		.reason = res.reason,
		.launched = app->cfg.cmd != NULL,
		.status = res.status,
		.killed_by = app->target.killed_by,
		.gone_first = res.gone_first,
	};
	how = runend_how(&end);
	control_end(&app->ctl, &(struct control_end_info){
				       .reason = res.reason,
				       .status = res.status,
				       .ended = ret ? NULL : runend_name(how),
				       .exit_status = ret ? EXIT_SETUP : runend_exit_status(&end),
				       .left_running = res.nr_left,
			       });
	if (ret) {
		say_error(res.error);
		return EXIT_SETUP;
	}
	return runend_exit_status(&end);
}

/* Every path out: no BPF program attached, no perf event open. */
static void cleanup(struct app *app)
{
	runrate_stop(&app->rate);
	stop_snapshots(app);
	app->hands.cores = NULL;
	cores_close(app->cores);
	watch_close(app->watch);
	/* a setup that failed after --wait-for held it: it is let go */
	if (app->held > 0)
		kill(app->held, SIGCONT);
	follow_free(&app->follow);
	target_close(&app->target);
	/* the snapshot writer's log is closed: this one is the file's last */
	eventlog_trim(&app->log);
	/* a setup that failed made it for nothing: nothing is left of it */
	eventlog_drop_unused(&app->log, app->outfd);
	eventlog_close(&app->log);
	/* the command's leaf is removed before the guardian goes */
	runscope_close(&app->scope);
	guardian_stop(&app->guard); /* all let go: nothing left for it */
	free(app->points);
	if (app->outfd >= 0)
		close(app->outfd);
	args_free(&app->cfg);
}

int main(int argc, char **argv)
{
	/*
	 * Static: some 130 KB, more than a small stack limit (ulimit -s 128)
	 * holds; ptbpf's SIGSEGV would then read as the command's 139.
	 */
	static struct app app = { .outfd = -1 };
	int ret;

	target_init(&app.target);
	runscope_init(&app.scope);
	guardian_init(&app.guard);
	eventlog_init(&app.log);
	if (args_parse(&app.cfg, argc, argv, app.err, sizeof(app.err))) {
		/* an argument quoted in it is the caller's: escaped too */
		fputs("ptbpf: ", stderr);
		textesc_fputs(app.err, stderr);
		fputs("\n", stderr);
		args_free(&app.cfg);
		return EXIT_USAGE;
	}
	if (app.cfg.help || app.cfg.version) {
		if (app.cfg.help)
			args_usage(stdout);
		else
			printf("ptbpf %s\n", PTBPF_VERSION);
		args_free(&app.cfg);
		return 0;
	}
	/*
	 * At a terminal, the shell's job control goes to the command. Before
	 * any thread starts: a fork keeps only the thread that calls it.
	 */
	ret = app.cfg.cmd ? jobctl_split(&app.jc) : 0;
	if (ret) {
		fprintf(stderr, "ptbpf: can't set up job control: %s\n", strerror(-ret));
		args_free(&app.cfg);
		return EXIT_SETUP;
	}
	/* from here on no human line may make ptbpf wait (say.h) */
	say_start(STDERR_FILENO);
	ret = run(&app);
	cleanup(&app);
	/* a stderr nobody reads gets a moment, not the power to hang us */
	say_stop(SAY_EXIT_WAIT_MS);
	return ret;
}
