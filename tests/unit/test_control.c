// SPDX-License-Identifier: GPL-2.0
/*
 * control.c: the policy, driven with made-up events and fake collection
 * ops that record what they were asked to do.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "control/control.h"

struct fake {
	char calls[256]; /* "P R S(stop) ..." in order */
	int fail_next; /* -errno for the next pause/resume, once */
	uint64_t done_ns;
};

static void note(struct fake *f, const char *s)
{
	size_t len = strlen(f->calls);

	snprintf(f->calls + len, sizeof(f->calls) - len, "%s%s", len ? " " : "", s);
}

static int fake_toggle(void *ctx, uint64_t *done, const char *what)
{
	struct fake *f = ctx;
	int ret = f->fail_next;

	f->fail_next = 0;
	note(f, ret ? "fail" : what);
	*done = f->done_ns;
	return ret;
}

static int fake_pause(void *ctx, uint64_t *done)
{
	return fake_toggle(ctx, done, "P");
}

static int fake_resume(void *ctx, uint64_t *done)
{
	return fake_toggle(ctx, done, "R");
}

static int fake_snapshot(void *ctx, const struct snap_cause *cause)
{
	char s[96];
	int n;

	if (cause->spec)
		n = snprintf(s, sizeof(s), "S(%s:%s@%llu", snapcause_name(cause->kind), cause->spec,
			     (unsigned long long)cause->ts);
	else
		n = snprintf(s, sizeof(s), "S(%s", snapcause_name(cause->kind));
	if (cause->folded)
		n += snprintf(s + n, sizeof(s) - n, "+%u", cause->folded);
	/* --trigger-on hits folded in: counted apart from stops */
	if (cause->folded_hits)
		n += snprintf(s + n, sizeof(s) - n, "+%uh", cause->folded_hits);
	snprintf(s + n, sizeof(s) - n, ")");
	note(ctx, s);
	return 0;
}

static const struct control_ops ops = {
	.pause = fake_pause,
	.resume = fake_resume,
	.snapshot = fake_snapshot,
};

struct fx {
	struct fake fake;
	struct eventlog log;
	struct control ctl;
	char dir[64];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	int dfd;

	snprintf(f->dir, sizeof(f->dir), "/tmp/ptbpf-test-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	dfd = open(f->dir, O_RDONLY | O_DIRECTORY);
	if (eventlog_open(&f->log, dfd, -1, -1))
		return -1;
	close(dfd);
	f->fake.done_ns = 5000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];

	eventlog_close(&f->log);
	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	unlink(path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* The "event" names of the log, in order, space separated. */
static void events(struct fx *f, char *out, size_t len)
{
	char path[128], line[1024], name[32];
	size_t n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	fp = fopen(path, "r");
	out[0] = 0;
	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "{\"event\":\"%31[^\"]\"", name) == 1)
			n += snprintf(out + n, len - n, "%s%s", n ? " " : "", name);
	if (fp)
		fclose(fp);
}

static struct ptbpf_event ev(uint32_t kind, uint64_t ts, int sig)
{
	struct ptbpf_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.ts = ts;
	e.tgid = e.tid = 42;
	e.sig = sig;
	e.cause = PTBPF_CAUSE_SIGNAL;
	e.nr_threads = 1;
	return e;
}

static void feed(struct fx *f, uint32_t kind, uint64_t ts, int sig)
{
	struct ptbpf_event e = ev(kind, ts, sig);

	control_event(&f->ctl, &e, ts + 100);
}

static void init(struct fx *f, unsigned int triggers, bool no_pause)
{
	control_init(&f->ctl, &f->log, 42, triggers, no_pause, -1, &ops, &f->fake);
}

static void test_stop_run_cycle(void **state)
{
	struct fx *f = *state;
	char seq[512];

	init(f, TRIGGER_STOP | TRIGGER_FATAL | TRIGGER_EXIT, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, "sample", 4096, NULL);
	feed(f, PTBPF_EV_STOP, 1000, 19);
	feed(f, PTBPF_EV_RUN, 2000, 18);
	feed(f, PTBPF_EV_RUN, 2100, 18); /* already running: no ioctl */
	feed(f, PTBPF_EV_FATAL, 3000, 11);
	feed(f, PTBPF_EV_EXIT, 3100, 11); /* already paused: no ioctl */
	assert_string_equal(f->fake.calls, "R P S(stop) R P S(fatal) S(exit)");
	events(f, seq, sizeof(seq));
	/* the cause first, then the toggle it caused */
	assert_string_equal(seq, "start resume stop pause run resume run fatal pause exit");
	assert_int_equal(f->ctl.toggles, 4);
}

/*
 * ptbpf was stopped (Ctrl-Z): the transitions that came meanwhile are
 * applied and logged, get no snapshot, and are counted in "suspended";
 * after it, snapshots as always.
 */
static void test_late(void **state)
{
	struct fx *f = *state;
	char seq[512], path[128], *p, line[1024] = "";
	FILE *fp;

	init(f, TRIGGER_STOP, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, "sample", 4096, NULL);
	control_late_begin();
	feed(f, PTBPF_EV_STOP, 1000, 19);
	feed(f, PTBPF_EV_RUN, 2000, 18);
	control_late_end(&f->ctl, 500, 2500000500ULL);
	/* collection followed the target; no snapshot for the late stop */
	assert_string_equal(f->fake.calls, "R P R");
	feed(f, PTBPF_EV_STOP, 3000, 19);
	assert_string_equal(f->fake.calls, "R P R P S(stop)");
	events(f, seq, sizeof(seq));
	assert_string_equal(seq, "start resume stop pause run resume suspended stop pause");
	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp) && !strstr(line, "\"suspended\""))
		;
	if (fp)
		fclose(fp);
	p = strstr(line, "\"stopped_ns\":2500000000,\"stops\":1,\"runs\":1,\"fatals\":0,"
			 "\"exits\":0,\"hits\":0,\"snapshots_missed\":1");
	if (!p)
		fail_msg("suspended: %s", line);
}

static void test_start_stopped(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP, false);
	control_start(&f->ctl, PTBPF_PROC_STOPPED, "sample", 4096, NULL);
	assert_string_equal(f->fake.calls, "");
	feed(f, PTBPF_EV_RUN, 1000, 18);
	assert_string_equal(f->fake.calls, "R");
}

static void test_triggers(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_FATAL, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed(f, PTBPF_EV_STOP, 1000, 19);
	feed(f, PTBPF_EV_RUN, 2000, 18);
	feed(f, PTBPF_EV_FATAL, 3000, 6);
	feed(f, PTBPF_EV_EXIT, 4000, 6);
	assert_string_equal(f->fake.calls, "R P R P S(fatal)");
}

static void feed_stop(struct fx *f, uint64_t ts, unsigned int kind)
{
	struct ptbpf_event e = ev(PTBPF_EV_STOP, ts, 5);

	e.cause = PTBPF_CAUSE_PTRACE;
	e.stop_kind = kind;
	e.ip = 0x401136;
	control_event(&f->ctl, &e, ts + 100);
}

/* gdb steps over its breakpoint: that stop's bytes go to the next one. */
static void test_single_steps_fold(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed_stop(f, 1000, PTBPF_STOP_BREAKPOINT);
	feed(f, PTBPF_EV_RUN, 1100, 0);
	feed_stop(f, 1200, PTBPF_STOP_SINGLESTEP);
	feed(f, PTBPF_EV_RUN, 1300, 0);
	feed_stop(f, 1400, PTBPF_STOP_BREAKPOINT);
	assert_string_equal(f->fake.calls, "R P S(stop) R P R P S(stop+1)");
}

/* -t step: every single-step gets its own snapshot. */
static void test_step_trigger(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP | TRIGGER_STEP, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed_stop(f, 1200, PTBPF_STOP_SINGLESTEP);
	assert_string_equal(f->fake.calls, "R P S(stop)");
}

/*
 * --min-interval 1000 ns: a stop closer than that to the last snapshot
 * waits; the newest waiting stop gets the snapshot when it is due, with
 * the others folded in, and at the end.
 */
static void test_min_interval(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP | TRIGGER_FATAL, false);
	f->ctl.min_interval_ns = 1000;
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	assert_int_equal(control_deadline(&f->ctl), 0);
	feed_stop(f, 10000, PTBPF_STOP_BREAKPOINT);
	feed(f, PTBPF_EV_RUN, 10100, 0);
	feed_stop(f, 10500, PTBPF_STOP_BREAKPOINT);
	assert_int_equal(control_deadline(&f->ctl), 11000);
	feed(f, PTBPF_EV_RUN, 10600, 0);
	feed_stop(f, 10800, PTBPF_STOP_BREAKPOINT);
	assert_string_equal(f->fake.calls, "R P S(stop) R P R P");
	control_tick(&f->ctl, 10999);
	assert_string_equal(f->fake.calls, "R P S(stop) R P R P");
	control_tick(&f->ctl, 11000);
	assert_string_equal(f->fake.calls, "R P S(stop) R P R P S(stop+1)");
	assert_int_equal(f->ctl.last_snap_ns, 10800);
	assert_int_equal(control_deadline(&f->ctl), 0);
	/* a fatal is never held back; it takes the waiting stop with it */
	feed(f, PTBPF_EV_RUN, 11100, 0);
	feed_stop(f, 11200, PTBPF_STOP_SIGNAL);
	feed(f, PTBPF_EV_RUN, 11300, 0);
	feed(f, PTBPF_EV_FATAL, 11400, 11);
	assert_string_equal(f->fake.calls, "R P S(stop) R P R P S(stop+1) R P R P S(fatal+1)");
	/* the last stop gets its snapshot at the end, even before it is due */
	feed(f, PTBPF_EV_RUN, 11500, 0);
	feed_stop(f, 11600, PTBPF_STOP_GROUP);
	control_finish(&f->ctl, false);
	assert_string_equal(f->fake.calls,
			    "R P S(stop) R P R P S(stop+1) R P R P S(fatal+1) R P S(stop)");
}

static void feed_hit(struct fx *f, uint64_t ts, unsigned int point)
{
	struct ptbpf_event e = ev(PTBPF_EV_HIT, ts, 0);

	e.cause = PTBPF_CAUSE_NONE;
	e.point = point;
	e.ip = 0x401136;
	control_event(&f->ctl, &e, ts + 100);
}

/* The value of "@key":"..." in the @nth hit line ("trigger") of the log, or "". */
static void hit_str(struct fx *f, int nth, const char *key, char *out, size_t len)
{
	static const char head[] = "{\"event\":\"trigger\"";
	char path[128], line[1024], pat[64], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	out[0] = 0;
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (strncmp(line, head, sizeof(head) - 1) || nth--)
			continue;
		p = strstr(line, pat);
		if (p)
			snprintf(out, len, "%.*s", (int)strcspn(p + strlen(pat), "\""),
				 p + strlen(pat));
		break;
	}
	if (fp)
		fclose(fp);
}

/*
 * --min-interval folds hits as it folds stops, and counts them as hits:
 * the snapshot says "2 earlier hits folded in", not "stops".
 */
static void test_folded_hits(void **state)
{
	static const struct hitpoint specs[] = {
		{ .spec = "leaf", .symbol = "leaf", .path = "/bin/prog" }
	};
	struct fx *f = *state;

	init(f, TRIGGER_STOP, false);
	control_set_points(&f->ctl, specs, 1);
	control_set_min_interval(&f->ctl, 1000);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed_hit(f, 11000, 0);
	feed_hit(f, 11100, 0); /* folded */
	feed_hit(f, 11200, 0); /* folded: the one waiting */
	control_tick(&f->ctl, 12000);
	assert_string_equal(f->fake.calls, "R S(trigger:leaf@11000) S(trigger:leaf@11200+1h)");
	feed_hit(f, 12100, 0); /* folded */
	feed_hit(f, 12150, 0); /* folded */
	feed_stop(f, 12180, PTBPF_STOP_BREAKPOINT); /* folded: the one waiting */
	control_tick(&f->ctl, 12200);
	assert_string_equal(f->fake.calls, "R S(trigger:leaf@11000) S(trigger:leaf@11200+1h) P "
					   "S(stop+2h)");
}

/*
 * --trigger-on: a hit is a snapshot of the running target (no pause), cut
 * at the hit's time; --min-history holds them back at first;
 * --min-interval folds one that comes too soon; --trigger-limit asks the
 * run to end with the last one, and hits after it are only logged.
 */
static void test_trigger_on(void **state)
{
	static const struct hitpoint specs[] = {
		{ .spec = "leaf", .symbol = "leaf", .path = "/bin/prog" },
		{ .spec = "malloc@libc.so.6", .symbol = "malloc", .path = "/lib/libc.so.6" },
	};
	struct fx *f = *state;
	char seq[512], s[64];

	init(f, TRIGGER_STOP, false);
	control_set_points(&f->ctl, specs, 2);
	control_set_hit_limits(&f->ctl, 1000, 3);
	control_set_min_interval(&f->ctl, 500);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	f->ctl.history_from = 10000; /* collection started then */
	feed_hit(f, 10500, 0); /* 500 ns of history: too soon */
	assert_string_equal(f->fake.calls, "R");
	feed_hit(f, 11000, 1);
	assert_string_equal(f->fake.calls, "R S(trigger:malloc@libc.so.6@11000)");
	feed_hit(f, 11200, 0); /* 200 ns after the last: folded */
	assert_int_equal(control_deadline(&f->ctl), 11500);
	control_tick(&f->ctl, 11500);
	assert_string_equal(f->fake.calls, "R S(trigger:malloc@libc.so.6@11000) "
					   "S(trigger:leaf@11200)");
	assert_null(f->ctl.end_reason);
	feed_hit(f, 20000, 0); /* the third: the limit */
	assert_non_null(f->ctl.end_reason);
	assert_string_equal(f->ctl.end_reason, "trigger_limit");
	feed_hit(f, 20100, 0);
	assert_string_equal(f->fake.calls, "R S(trigger:malloc@libc.so.6@11000) "
					   "S(trigger:leaf@11200) "
					   "S(trigger:leaf@20000)");
	assert_int_equal(f->ctl.hits_taken, 3);
	events(f, seq, sizeof(seq));
	assert_string_equal(seq, "start resume trigger trigger trigger trigger trigger");
	hit_str(f, 0, "ignored", s, sizeof(s));
	assert_string_equal(s, "min_history");
	hit_str(f, 1, "ignored", s, sizeof(s));
	assert_string_equal(s, "");
	hit_str(f, 1, "spec", s, sizeof(s));
	assert_string_equal(s, "malloc@libc.so.6");
	hit_str(f, 1, "symbol", s, sizeof(s));
	assert_string_equal(s, "malloc");
	hit_str(f, 1, "object", s, sizeof(s));
	assert_string_equal(s, "/lib/libc.so.6");
	hit_str(f, 4, "ignored", s, sizeof(s));
	assert_string_equal(s, "trigger_limit");
	hit_str(f, 4, "ip", s, sizeof(s));
	assert_string_equal(s, "0x401136");
}

static void test_no_pause(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP, true);
	control_start(&f->ctl, PTBPF_PROC_STOPPED, NULL, 0, NULL);
	feed(f, PTBPF_EV_RUN, 1000, 18);
	feed(f, PTBPF_EV_STOP, 2000, 19);
	feed(f, PTBPF_EV_EXIT, 3000, 9);
	/* running from the start and never paused; snapshots still taken */
	assert_string_equal(f->fake.calls, "R S(stop)");
	control_finish(&f->ctl, true);
	assert_string_equal(f->fake.calls, "R S(stop) P S(end)");
}

/* A failed ioctl leaves the state as it was: the next event tries again. */
static void test_failed_toggle(void **state)
{
	struct fx *f = *state;
	char seq[512];

	init(f, 0, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	f->fake.fail_next = -EBADF;
	feed(f, PTBPF_EV_STOP, 1000, 19);
	assert_true(f->ctl.running);
	feed(f, PTBPF_EV_FATAL, 2000, 11);
	assert_false(f->ctl.running);
	assert_string_equal(f->fake.calls, "R fail P");
	assert_int_equal(f->ctl.toggle_errors, 1);
	events(f, seq, sizeof(seq));
	assert_string_equal(seq, "start resume stop pause fatal pause");
}

static void test_latency_and_lost(void **state)
{
	struct fx *f = *state;
	char path[128], *buf;
	FILE *fp;
	long n;

	init(f, 0, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	f->fake.done_ns = 1750;
	feed(f, PTBPF_EV_STOP, 1000, 19);
	control_lost(&f->ctl, 3);
	control_lost(&f->ctl, 3); /* nothing new */
	control_lost(&f->ctl, 5);
	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	fp = fopen(path, "r");
	buf = calloc(1, 8192);
	n = fread(buf, 1, 8191, fp);
	fclose(fp);
	assert_true(n > 0);
	assert_non_null(
		strstr(buf, "{\"event\":\"pause\",\"ts\":1750,\"pid\":42,\"latency_ns\":750}"));
	assert_non_null(strstr(buf, "\"event\":\"lost_events\""));
	assert_non_null(strstr(buf, "\"count\":3,\"total\":3"));
	assert_non_null(strstr(buf, "\"count\":2,\"total\":5"));
	assert_non_null(
		strstr(buf, "\"signal\":\"SIGSTOP\",\"cause\":\"signal\",\"delivery_ns\":100"));
	free(buf);
}

/* After lost events the BPF side's state rules. */
static void test_resync(void **state)
{
	struct fx *f = *state;

	init(f, TRIGGER_STOP, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	assert_true(control_lost(&f->ctl, 2));
	control_resync(&f->ctl, PTBPF_PROC_STOPPED, 0); /* the stop was lost */
	control_resync(&f->ctl, PTBPF_PROC_STOPPED, 0); /* no change: no call */
	control_resync(&f->ctl, PTBPF_PROC_UNKNOWN, 0);
	assert_false(control_lost(&f->ctl, 2));
	control_resync(&f->ctl, PTBPF_PROC_RUNNING, 0); /* the run was lost */
	control_resync(&f->ctl, PTBPF_PROC_EXITED, 0);
	/* the lost stop still has its snapshot */
	assert_string_equal(f->fake.calls, "R P S(stop) R P");
	assert_int_equal(f->ctl.target, PTBPF_PROC_EXITED);
}

static void feed_seq(struct fx *f, uint32_t kind, uint64_t ts, uint64_t seq)
{
	struct ptbpf_event e = ev(kind, ts, kind == PTBPF_EV_STOP ? 19 : 18);

	e.seq = seq;
	control_event(&f->ctl, &e, ts + 100);
}

/*
 * Two CPUs may put a run's record in the ring before the stop it follows:
 * applied in seq order, and the collection ends as the last one says.
 */
static void test_out_of_order(void **state)
{
	struct fx *f = *state;
	char seq[512];

	init(f, TRIGGER_STOP, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed_seq(f, PTBPF_EV_STOP, 1000, 1);
	feed_seq(f, PTBPF_EV_STOP, 3000, 3); /* before run 2 */
	assert_int_equal(f->ctl.nr_held, 1);
	assert_int_not_equal(control_gap_deadline(&f->ctl), 0);
	feed_seq(f, PTBPF_EV_RUN, 2000, 2);
	assert_int_equal(f->ctl.nr_held, 0);
	assert_int_equal(control_gap_deadline(&f->ctl), 0);
	assert_int_equal(f->ctl.seq, 3);
	assert_false(f->ctl.running);
	assert_int_equal(f->ctl.reordered, 1);
	assert_string_equal(f->fake.calls, "R P S(stop) R P S(stop)");
	events(f, seq, sizeof(seq));
	assert_string_equal(seq, "start resume stop pause run resume stop pause");
	/* a run (5) whose stop (4) never comes: the gap is given up and
	 * the BPF side's state rules */
	feed_seq(f, PTBPF_EV_RUN, 5000, 5);
	assert_false(f->ctl.running);
	control_resync(&f->ctl, PTBPF_PROC_RUNNING, 5);
	assert_true(f->ctl.running);
	assert_int_equal(f->ctl.seq, 5);
	/* older than the resync: logged, no effect */
	feed_seq(f, PTBPF_EV_STOP, 4000, 4);
	assert_true(f->ctl.running);
}

/* A fatal signal the target did not die of ends its pause. */
static void test_fatal_not_taken(void **state)
{
	struct fx *f = *state;
	uint64_t next;

	init(f, TRIGGER_FATAL, false);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed(f, PTBPF_EV_FATAL, 1000, 6);
	assert_false(f->ctl.running);
	next = control_fatal_check(&f->ctl, false, PTBPF_PROC_RUNNING, 2000);
	assert_int_equal(next, 1000 + CONTROL_FATAL_NS);
	assert_false(f->ctl.running);
	assert_int_equal(control_fatal_check(&f->ctl, false, PTBPF_PROC_RUNNING, next), 0);
	assert_true(f->ctl.running);
	assert_string_equal(f->fake.calls, "R P S(fatal) R");
	/* dying: the pause holds until the exit */
	feed(f, PTBPF_EV_FATAL, 5000, 11);
	assert_int_equal(control_fatal_check(&f->ctl, true, PTBPF_PROC_RUNNING,
					     5000 + 2 * CONTROL_FATAL_NS),
			 0);
	assert_false(f->ctl.running);
	assert_int_equal(control_fatal_check(&f->ctl, false, PTBPF_PROC_RUNNING,
					     5000 + 3 * CONTROL_FATAL_NS),
			 0);
	assert_false(f->ctl.running);
}

/* Without ops (no collection) transitions are still logged. */
static void test_no_ops(void **state)
{
	struct fx *f = *state;
	char seq[256];

	control_init(&f->ctl, &f->log, 42, TRIGGER_STOP, false, -1, NULL, NULL);
	control_start(&f->ctl, PTBPF_PROC_RUNNING, NULL, 0, NULL);
	feed(f, PTBPF_EV_STOP, 1000, 19);
	feed(f, 0, 1000, 0); /* unknown kinds are ignored */
	feed(f, PTBPF_EV_MAX, 1000, 0);
	control_end(&f->ctl, &(struct control_end_info){ .reason = "exit", .ended = "by_itself" });
	events(f, seq, sizeof(seq));
	assert_string_equal(seq, "start stop end");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stop_run_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_triggers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_hits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_steps_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_trigger, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_interval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pause, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_toggle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latency_and_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fatal_not_taken, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
