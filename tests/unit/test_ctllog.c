// SPDX-License-Identifier: GPL-2.0
/*
 * ctllog.c: each decision of the policy, given as facts, is said as its
 * events.jsonl line and its human line, word for word, at each verbosity.
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

#include "control/ctllog.h"
#include "base/say.h"

struct fx {
	struct eventlog log;
	struct ctllog l;
	char dir[64];
	char err_path[96];
	int saved_err; /* stderr, while it goes to err_path */
	size_t err_read; /* bytes of err_path read back so far */
	char lines[8192]; /* what was read back */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	int dfd, efd;

	snprintf(f->dir, sizeof(f->dir), "/tmp/ptbpf-test-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	dfd = open(f->dir, O_RDONLY | O_DIRECTORY);
	eventlog_init(&f->log);
	if (eventlog_open(&f->log, dfd, -1, -1))
		return -1;
	close(dfd);
	/* before say_start() the human lines go straight to fd 2 (say.h) */
	snprintf(f->err_path, sizeof(f->err_path), "%s/stderr", f->dir);
	efd = open(f->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	f->saved_err = dup(2);
	if (efd < 0 || f->saved_err < 0 || dup2(efd, 2) < 0)
		return -1;
	close(efd);
	ctllog_init(&f->l, &f->log, 42, 0);
	f->l.t0 = 1000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char path[128];
	FILE *fp;

	/* what came after the last read back (cmocka's failures) is shown */
	fp = fopen(f->err_path, "r");
	if (fp && !fseek(fp, (long)f->err_read, SEEK_SET)) {
		size_t n = fread(f->lines, 1, sizeof(f->lines), fp);

		if (n && write(f->saved_err, f->lines, n) < 0)
			n = 0;
	}
	if (fp)
		fclose(fp);
	dup2(f->saved_err, 2);
	close(f->saved_err);
	eventlog_close(&f->log);
	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	unlink(path);
	unlink(f->err_path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* The whole of @path into f->lines. */
static const char *slurp(struct fx *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	size_t n = fp ? fread(f->lines, 1, sizeof(f->lines) - 1, fp) : 0;

	f->lines[n] = '\0';
	if (fp)
		fclose(fp);
	return f->lines;
}

static const char *events(struct fx *f)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/events.jsonl", f->dir);
	return slurp(f, path);
}

static const char *human(struct fx *f)
{
	slurp(f, f->err_path);
	f->err_read = strlen(f->lines);
	return f->lines;
}

static struct ptbpf_event ev(uint32_t kind, uint64_t ts)
{
	struct ptbpf_event e;

	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.ts = ts;
	e.tgid = e.tid = 42;
	e.cpu = 3;
	e.nr_threads = 2;
	strcpy(e.comm, "worker");
	return e;
}

/* A breakpoint stop: every detail in the line, the words on stderr. */
static void test_stop(void **state)
{
	struct fx *f = *state;
	struct ptbpf_event e = ev(PTBPF_EV_STOP, 3001000);

	e.sig = 5;
	e.cause = PTBPF_CAUSE_PTRACE;
	e.stop_kind = PTBPF_STOP_BREAKPOINT;
	e.si_code = 128;
	e.ip = 0x401136;
	e.seq = 7;
	ctllog_event(&f->l, &e, 3001100);
	assert_string_equal(events(f),
			    "{\"event\":\"stop\",\"ts\":3001000,\"pid\":42,\"tid\":42,\"cpu\":3,"
			    "\"signal\":\"SIGTRAP\",\"cause\":\"ptrace\",\"kind\":\"breakpoint\","
			    "\"si_code\":128,\"si_code_name\":\"SI_KERNEL\",\"ip\":\"0x401136\","
			    "\"delivery_ns\":100,\"threads\":2,\"seq\":7,\"comm\":\"worker\"}\n");
	assert_string_equal(human(f), "ptbpf:  +0.003000s stop         pid 42 tid 42 (SIGTRAP, "
				      "breakpoint at 0x401136)\n");
}

/* How many times @needle is in @hay. */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/*
 * Lines past the rate limit are folded, but never the target's first stop
 * line nor its first fatal line of a second: with --follow the followed
 * processes' lines (their stops too) used up the limit and the stop the
 * user caused was folded away.
 */
static void test_own_stop_not_folded(void **state)
{
	struct fx *f = *state;
	struct ptbpf_event e = ev(PTBPF_EV_RUN, 2000000);
	struct ctllog kid;
	const char *out;

	say_set_limit(1, 1);
	ctllog_init(&kid, &f->log, 43, 0);
	kid.member = true;
	kid.t0 = 1000;
	ctllog_event(&f->l, &e, 2000100); /* takes the one line the limit has */
	e = ev(PTBPF_EV_STOP, 3000000);
	e.sig = 19;
	e.tgid = e.tid = 43;
	ctllog_event(&kid, &e, 3000100); /* a followed process's: folded */
	e.tgid = e.tid = 42;
	ctllog_event(&f->l, &e, 3000200); /* the target's: said */
	ctllog_event(&f->l, &e, 3000300); /* its second this second: folded */
	e = ev(PTBPF_EV_FATAL, 4000000);
	e.sig = 11;
	ctllog_event(&f->l, &e, 4000100); /* the target's fatal: said */
	out = human(f);
	say_set_limit(SAY_BURST, SAY_RATE);
	assert_int_equal(count(out, "run          pid 42"), 1);
	assert_int_equal(count(out, "stop         pid 42"), 1);
	assert_int_equal(count(out, "fatal        pid 42"), 1);
	assert_int_equal(count(out, "pid 43"), 0);
}

/* An exit says its code; a thread's start has a line only with -v. */
static void test_exit_and_threads(void **state)
{
	struct fx *f = *state;
	struct ptbpf_event e = ev(PTBPF_EV_EXIT, 2001000);

	e.exit_code = 3 << 8;
	ctllog_event(&f->l, &e, 2001000);
	e = ev(PTBPF_EV_THREAD_START, 2002000);
	ctllog_event(&f->l, &e, 2002000);
	assert_non_null(strstr(events(f), "\"comm\":\"worker\",\"exit_code\":3}\n"
					  "{\"event\":\"thread_start\""));
	assert_string_equal(human(f), "ptbpf:  +0.002000s exit         pid 42 (code 3)\n");
	f->l.verbosity = 1;
	ctllog_event(&f->l, &e, 2002000);
	assert_non_null(strstr(human(f), "thread_start pid 42 tid 42\n"));
}

/* A hit says its point and why it takes no snapshot. */
static void test_hit(void **state)
{
	struct fx *f = *state;
	struct hitpoint p = { .spec = "main" };
	struct ptbpf_event e = ev(PTBPF_EV_HIT, 1001000);

	strcpy(p.symbol, "main");
	strcpy(p.path, "/bin/prog");
	e.ip = 0x1000;
	e.point = 1;
	ctllog_hit(&f->l,
		   &(struct ctllog_hit){
			   .e = &e, .recv_ns = 1001000, .point = &p, .ignored = "min_history" });
	assert_non_null(strstr(events(f), "\"comm\":\"worker\",\"point\":1,\"spec\":\"main\","
					  "\"symbol\":\"main\",\"object\":\"/bin/prog\","
					  "\"ignored\":\"min_history\"}\n"));
	assert_string_equal(human(f), "ptbpf:  +0.001000s trigger      pid 42 tid 42 at main "
				      "(0x1000), ignored\n");
}

/*
 * A toggle's latency is a line only with -v; the first resume's waits
 * for the start line.
 */
static void test_toggles(void **state)
{
	struct fx *f = *state;

	ctllog_toggled(&f->l, &(struct ctllog_toggle){
				      .run = false, .done_ns = 6000, .latency_ns = 2000 });
	assert_string_equal(events(f), "{\"event\":\"pause\",\"ts\":6000,\"pid\":42,"
				       "\"latency_ns\":2000}\n");
	assert_string_equal(human(f), "");
	f->l.verbosity = 1;
	ctllog_toggled(&f->l, &(struct ctllog_toggle){ .run = true,
						       .done_ns = 8000,
						       .latency_ns = 1500,
						       .reason = "not_fatal" });
	assert_non_null(strstr(events(f), "{\"event\":\"resume\",\"ts\":8000,\"pid\":42,"
					  "\"latency_ns\":1500,\"reason\":\"not_fatal\"}\n"));
	assert_string_equal(human(f), "ptbpf:  +0.000007s resume       pid 42 latency 1.5 us\n");
	ctllog_toggled(&f->l,
		       &(struct ctllog_toggle){
			       .run = true, .done_ns = 9000, .latency_ns = 500, .at_start = true });
	assert_string_equal(human(f), "ptbpf:  +0.000007s resume       pid 42 latency 1.5 us\n");
	ctllog_announce(&f->l, false, "");
	assert_non_null(strstr(human(f),
			       "ptbpf:  +0.000000s start        pid 42 (running)\n"
			       "ptbpf:  +0.000008s resume       pid 42 latency 0.5 us\n"));
}

/* A toggle that failed: a line and the event with the error. */
static void test_toggle_failed(void **state)
{
	struct fx *f = *state;

	ctllog_toggle_failed(&f->l, false, -EIO);
	assert_non_null(strstr(events(f), "\"event\":\"pause\""));
	assert_non_null(strstr(events(f), "\"error\":\"Input/output error\"}\n"));
	assert_non_null(strstr(human(f), "s pause        pid 42 failed: Input/output error\n"));
}

/* Quiet: every line in events.jsonl, none on stderr. */
static void test_quiet(void **state)
{
	struct fx *f = *state;

	f->l.verbosity = -1;
	ctllog_lost(&f->l, 2, 5);
	ctllog_follow_full(&f->l, 1, 1);
	ctllog_suspended(&f->l,
			 &(struct ctllog_late){ .stopped_ns = 500, .continued_ns = 2500000500ULL });
	assert_non_null(strstr(events(f), "\"event\":\"lost_events\""));
	assert_non_null(strstr(events(f), "\"count\":2,\"total\":5}\n"));
	assert_non_null(strstr(events(f), "\"reason\":\"follow_full\",\"limit\":"));
	assert_non_null(strstr(events(f), "{\"event\":\"suspended\",\"ts\":2500000500,\"pid\":42,"
					  "\"stopped_ns\":2500000000,\"stops\":0,\"runs\":0,"
					  "\"fatals\":0,\"exits\":0,\"hits\":0,"
					  "\"snapshots_missed\":0}\n"));
	assert_string_equal(human(f), "");
}

/* What ptbpf missed while it was stopped, in one line. */
static void test_suspended(void **state)
{
	struct fx *f = *state;

	ctllog_suspended(&f->l, &(struct ctllog_late){ .stopped_ns = 500,
						       .continued_ns = 2500000500ULL,
						       .stops = 2,
						       .runs = 1,
						       .missed = 1 });
	assert_string_equal(human(f), "ptbpf: continued after 2.5 s stopped; meanwhile: 2 stops, "
				      "1 run (1 snapshot not taken: ptbpf was stopped)\n");
}

/* The end: the counts for scripts, "as asked" for people. */
static void test_end(void **state)
{
	struct fx *f = *state;

	ctllog_end(&f->l, &(struct ctllog_end){ .reason = "exit",
						.status = 3,
						.ended = "as_asked",
						.exit_status = 3,
						.toggles = 4,
						.toggle_errors = 1,
						.reordered = 2,
						.sample_timer_ns = -1 });
	assert_non_null(strstr(events(f), "\"reason\":\"exit\",\"status\":3,\"ended\":\"as_asked\","
					  "\"exit_status\":3,\"toggles\":4,\"toggle_errors\":1,"
					  "\"reordered\":2,\"stderr_dropped\":"));
	assert_null(strstr(events(f), "sample_timer_ns"));
	assert_non_null(strstr(human(f), "s end          pid 42 exit, as asked: exit status 3\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_own_stop_not_folded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_and_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_toggles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_toggle_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suspended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
