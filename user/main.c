// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf: a flight recorder for one process. Wiring only:
 * args -> target -> watch -> control -> (cores, snapshots) -> loop.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "control.h"
#include "eventlog.h"
#include "loop.h"
#include "outdir.h"
#include "privs.h"
#include "target.h"
#include "watch.h"

#define EXIT_SETUP 1
#define EXIT_USAGE 2

struct app {
	struct config cfg;
	struct target target;
	struct eventlog log;
	struct control ctl;
	struct watch *watch;
	int outfd;
	int uid, gid;
	bool exec_failed;
	char err[512];
};

static int on_event(void *ctx, const struct ptbpf_event *e)
{
	struct app *app = ctx;

	control_event(&app->ctl, e, now_ns());
	return 0;
}

static int fail(struct app *app)
{
	fprintf(stderr, "ptbpf: %s\n", app->err);
	return EXIT_SETUP;
}

/* Options whose machinery is not built yet are refused, never ignored. */
static int check_supported(const struct config *cfg, char *err, size_t len)
{
	const char *opt = NULL;

	if (cfg->backend != BACKEND_AUTO)
		opt = "--backend";
	else if (cfg->buffer_size)
		opt = "--buffer-size";
	else if (cfg->cpus)
		opt = "--cpus";
	else if (cfg->max_snapshots)
		opt = "--max-snapshots";
	else if (cfg->full)
		opt = "--full";
	else if (cfg->formats != (FORMAT_PERF | FORMAT_LLDB))
		opt = "--format";
	else if (cfg->no_pause)
		opt = "--no-pause";
	else if (cfg->kernel)
		opt = "--kernel";
	else if (cfg->cgroup)
		opt = "--cgroup";
	if (!opt)
		return 0;
	snprintf(err, len, "%s is not yet supported", opt);
	return -ENOTSUP;
}

static int setup_target(struct app *app)
{
	if (app->cfg.cmd)
		return target_spawn(&app->target, app->cfg.cmd, app->uid,
				    app->gid, app->err, sizeof(app->err));
	return target_attach(&app->target, app->cfg.pid, "/proc", app->err,
			     sizeof(app->err));
}

/* Where the run's files go: made only once everything else is ready. */
static int open_output(struct app *app)
{
	int ret;

	app->outfd = outdir_open(app->cfg.output, app->uid, app->gid, app->err,
				 sizeof(app->err));
	if (app->outfd < 0)
		return app->outfd;
	ret = eventlog_open(&app->log, app->outfd, app->uid, app->gid);
	if (ret)
		snprintf(app->err, sizeof(app->err), "can't write %s/events.jsonl: %s", app->cfg.output, strerror(-ret));
	return ret;
}

/* BPF attached; learn the threads' states, then let a held command go. */
static int start_watching(struct app *app)
{
	int state;

	state = watch_scan(app->watch, "/proc");
	if (state < 0) {
		snprintf(app->err, sizeof(app->err), "process %d exited before tracing began", app->target.pid);
		return state;
	}
	control_init(&app->ctl, &app->log, app->target.pid, app->cfg.triggers,
		     app->cfg.no_pause, app->cfg.verbosity, NULL, NULL);
	control_start(&app->ctl, state, NULL, 0,
		      app->cfg.cmd ? app->cfg.cmd[0] : NULL);
	if (app->target.child &&
	    target_release(&app->target, app->err, sizeof(app->err))) {
		/* the command could not be run: as a shell, say so, exit 127 */
		app->exec_failed = true;
		app->ctl.verbosity = -1; /* the error line is all there is to say */
		return -ENOEXEC;
	}
	control_announce(&app->ctl);
	return 0;
}

static int setup(struct app *app)
{
	if (privs_check(app->err, sizeof(app->err)))
		return -EPERM;
	loop_block_signals();
	target_invoking_user(&app->uid, &app->gid);
	if (setup_target(app))
		return -ESRCH;
	app->watch = watch_open(app->target.pid, app->cfg.verbosity > 0,
				on_event, app, app->err, sizeof(app->err));
	if (!app->watch)
		return -errno;
	if (open_output(app))
		return -EIO;
	return start_watching(app);
}

static int run(struct app *app)
{
	struct loop_result res;
	int ret;

	if (setup(app)) {
		fail(app);
		if (app->exec_failed) {
			control_end(&app->ctl, "exec_failed", false,
				    target_reap(&app->target));
			return 127;
		}
		target_abort(&app->target);
		return EXIT_SETUP;
	}
	ret = loop_run(&(struct loop_args){
			       .ctl = &app->ctl,
			       .watch = app->watch,
			       .target = &app->target,
		       },
		       &res);
	control_end(&app->ctl, res.reason, res.snapshot, res.status);
	if (ret) {
		fprintf(stderr, "ptbpf: %s\n", res.error);
		return EXIT_SETUP;
	}
	return res.status >= 0 && app->cfg.cmd ? res.status : 0;
}

int main(int argc, char **argv)
{
	struct app app = { .outfd = -1 };
	int ret;

	if (args_parse(&app.cfg, argc, argv, app.err, sizeof(app.err))) {
		fprintf(stderr, "ptbpf: %s\n", app.err);
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
	if (check_supported(&app.cfg, app.err, sizeof(app.err))) {
		fprintf(stderr, "ptbpf: %s\n", app.err);
		args_free(&app.cfg);
		return EXIT_USAGE;
	}
	app.target.pidfd = app.target.go_fd = app.target.err_fd = -1;
	app.log.fd = -1;
	ret = run(&app);
	watch_close(app.watch);
	target_close(&app.target);
	eventlog_close(&app.log);
	if (app.outfd >= 0)
		close(app.outfd);
	args_free(&app.cfg);
	return ret;
}
