// SPDX-License-Identifier: GPL-2.0
/* args.c: the command line, with made-up argvs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "output/snapwrite.h"

#define MAX_ARGV 40

/* Parses a space-separated command line (no quoting needed in the tests). */
static int parse(const char *line, struct config *cfg, char *err, size_t len)
{
	static char buf[512];
	static char *argv[MAX_ARGV + 1];
	int argc = 0;
	char *tok, *save;

	snprintf(buf, sizeof(buf), "ptbpf %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < MAX_ARGV;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	memset(cfg, 0xa5, sizeof(*cfg)); /* a missed field shows */
	memset(err, 'x', len);
	return args_parse(cfg, argc, argv, err, len);
}

struct bad_case {
	const char *line;
	const char *msg; /* a part of the error line */
};

static const struct bad_case bad_cases[] = {
	{ "--overhead 0 --pid 1", "invalid --overhead '0'" },
	{ "--overhead 100.5 --pid 1", "invalid --overhead '100.5'" },
	{ "--overhead 2%x --pid 1", "invalid --overhead '2%x'" },
	{ "--overhead -2 --pid 1", "invalid --overhead '-2'" },
	{ "-F 100 --overhead 2 --pid 1", "-F and --overhead: give one" },
	{ "", "nothing to trace" },
	{ "-q", "nothing to trace" },
	{ "--pid 0", "invalid pid '0'" },
	{ "--pid -5", "invalid pid '-5'" },
	{ "--pid abc", "invalid pid 'abc'" },
	{ "--pid 12x", "invalid pid '12x'" },
	{ "--pid 99999999999", "invalid pid" },
	{ "--pid", "needs a value" },
	{ "--pid 12 -- ls", "not several" },
	{ "--wait-for srv --pid 3", "not several" },
	{ "--unit a.service -- ls", "not several" },
	{ "--wait-for srv --unit a.service", "not several" },
	{ "--wait-for", "needs a value" },
	{ "--wait-for= -p 1", "needs a program's name" },
	{ "--unit nginx", "invalid unit 'nginx'" },
	{ "--unit .service", "invalid unit '.service'" },
	{ "--unit a/b.service", "invalid unit 'a/b.service'" },
	{ "--unit a.socket", "invalid unit 'a.socket'" },
	{ "--unit a.service --scope process", "--scope cgroup, not --scope process" },
	{ "--unit a.service --cgroup=/x", "no --cgroup=PATH" },
	{ "--bogus", "unknown option '--bogus'" },
	{ "-Z -- ls", "unknown option '-Z'" },
	/* the backends of the table, in its order */
	{ "-b foo -p 1", "unknown backend 'foo': use auto, intel-pt or sample" },
	{ "-s 0 -p 1", "invalid buffer size" },
	{ "-s 4X -p 1", "invalid buffer size" },
	{ "-s M -p 1", "invalid buffer size" },
	{ "-C 3-1 -p 1", "invalid CPU list" },
	{ "-C 1,,2 -p 1", "invalid CPU list" },
	{ "-C 5000 -p 1", "invalid CPU list" },
	{ "-t stop,crash -p 1", "invalid trigger list" },
	{ "--format json -p 1", "invalid format list" },
	{ "-n -1 -p 1", "invalid snapshot count" },
	{ "--cgroup= -p 1", "empty cgroup path" },
	{ "--max-size x -p 1", "invalid --max-size 'x': use e.g. 500M, 2G, or 0" },
	{ "--max-size 1T -p 1", "invalid --max-size" },
	/* too small for one snapshot: twice --buffer-size at least */
	{ "--max-size 1 -p 1", "--max-size 1 can't hold one snapshot: give at least 8192K" },
	{ "--max-size 8191K -p 1", "give at least 8192K (twice --buffer-size)" },
	{ "-s 1M --max-size 1M -p 1", "give at least 2048K" },
	{ "--min-interval 5x -p 1", "invalid --min-interval '5x'" },
	{ "--min-interval -1s -p 1", "invalid --min-interval" },
	{ "-t stop,steps -p 1", "invalid trigger list" },
	{ "--grace -p 1", "invalid grace period '-p'" },
	{ "--grace 3h -p 1", "invalid grace period '3h'" },
	{ "--grace 61m -p 1", "invalid grace period '61m'" },
	{ "--grace s -p 1", "invalid grace period 's'" },
	{ "-F 0 -p 1", "invalid sampling rate '0'" },
	{ "-F 4k -p 1", "invalid sampling rate" },
	{ "-F -p 1", "invalid sampling rate" },
	{ "--call-graph lbr -p 1", "invalid call graph 'lbr'" },
	{ "--call-graph dwarf, -p 1", "invalid call graph" },
	{ "--call-graph dwarf,12 -p 1", "multiple of 8" },
	{ "--call-graph dwarf,64K -p 1", "invalid call graph" },
	{ "--call-graph dwarf,0 -p 1", "invalid call graph" },
	{ "--call-graph dwarfy -p 1", "invalid call graph" },
	{ "--crash-stack 12 -p 1", "invalid --crash-stack '12'" },
	{ "--crash-stack 64K -p 1", "a multiple of 8 up to 64512" },
	{ "--crash-stack lots -p 1", "invalid --crash-stack" },
	{ "--scope thread -p 1", "invalid scope 'thread'" },
	{ "--scope cpu --cgroup -p 1", "--cgroup is --scope cgroup" },
	{ "--cgroup --scope process -p 1", "--cgroup is --scope cgroup" },
	{ "--max-events 0 -p 1", "invalid event limit '0'" },
	{ "--max-events x -p 1", "invalid event limit 'x'" },
	{ "--trigger-on= -p 1", "empty --trigger-on" },
	{ "-p 1 --trigger-on", "needs a value" },
	{ "--trigger-limit 0 --trigger-on f -p 1", "invalid --trigger-limit '0'" },
	{ "--trigger-limit x --trigger-on f -p 1", "invalid --trigger-limit" },
	{ "--trigger-limit 2 -p 1", "give --trigger-on too" },
	{ "--min-history 1s -p 1", "give --trigger-on too" },
	{ "--min-history 5x --trigger-on f -p 1", "invalid --min-history '5x'" },
	{ "--duration 0 -p 1", "invalid --duration '0'" },
	{ "--duration 2h -p 1", "invalid --duration '2h'" },
	{ "--duration -1s -p 1", "invalid --duration" },
	{ "--duration 9999999m -p 1", "invalid --duration" },
};

static void test_bad(void **state)
{
	struct config cfg;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		int ret = parse(bad_cases[i].line, &cfg, err, sizeof(err));

		if (ret != -EINVAL || !strstr(err, bad_cases[i].msg))
			fail_msg("'%s': ret %d, err '%.80s', want '%s'", bad_cases[i].line, ret,
				 err, bad_cases[i].msg);
		args_free(&cfg);
	}
}

static void test_defaults(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("--pid 4242", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.pid, 4242);
	assert_null(cfg.cmd);
	assert_string_equal(cfg.output, "ptbpf-out");
	assert_int_equal(cfg.backend, BACKEND_AUTO);
	assert_int_equal(cfg.buffer_size, 0);
	assert_null(cfg.cpus);
	assert_int_equal(cfg.triggers, TRIGGER_STOP | TRIGGER_FATAL | TRIGGER_EXIT);
	assert_int_equal(cfg.formats, SNAPWRITE_ALL);
	assert_int_equal(cfg.crash_stack, 32768);
	assert_int_equal(parse("--crash-stack 16K -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.crash_stack, 16384);
	assert_int_equal(parse("--crash-stack 63K -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.crash_stack, 64512);
	assert_int_equal(parse("--crash-stack 0 -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.crash_stack, 0);
	assert_int_equal(parse("--pid 4242", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_snapshots, 0);
	/* a run left on fills no disk: 1 GiB, as the systemd unit keeps */
	assert_int_equal(cfg.max_size, 1ULL << 30);
	assert_true(cfg.max_size_default);
	assert_int_equal(cfg.min_interval_ns, 0);
	assert_int_equal(cfg.grace_ms, 3000);
	assert_false(cfg.full || cfg.no_pause || cfg.kernel || cfg.cgroup);
	assert_int_equal(cfg.scope, SCOPE_AUTO);
	assert_int_equal(cfg.max_events, 0);
	assert_int_equal(cfg.verbosity, 0);
	assert_int_equal(cfg.freq, 0);
	assert_int_equal(cfg.call_graph, CALLGRAPH_FP);
	assert_int_equal(cfg.stack_size, 0);
	assert_false(cfg.follow);
	assert_null(cfg.wait_for);
	assert_null(cfg.unit);
	assert_null(cfg.hit_specs);
	assert_int_equal(cfg.nr_hit_specs, 0);
	assert_int_equal(cfg.trigger_limit, 0);
	assert_int_equal(cfg.duration_ns, 0);
	assert_int_equal(cfg.min_history_ns, 0);
	assert_false(cfg.no_buildid_cache);
	assert_string_equal(err, "");
	args_free(&cfg);
}

/* -N, --no-buildid-cache: perf record's spelling. */
static void test_no_buildid_cache(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("-N --pid 1", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.no_buildid_cache);
	assert_int_equal(parse("--no-buildid-cache -- ls", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.no_buildid_cache);
	assert_non_null(cfg.cmd);
	assert_int_equal(parse("--no-buildid-cache=1 --pid 1", &cfg, err, sizeof(err)), -EINVAL);
}

/* The --help text: what it says of an option stands under that option. */
static char *help_text(void)
{
	static char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	assert_non_null(f);
	args_usage(f);
	fclose(f);
	return buf;
}

/* The lines of --help from the one starting with @opt to the next option's. */
static void option_block(const char *help, const char *opt, char *out, size_t len)
{
	const char *p = strstr(help, opt), *end;

	assert_non_null(p);
	/* the next option line: a newline, then "  -" or "      --" */
	for (end = strchr(p, '\n'); end; end = strchr(end + 1, '\n'))
		if (!strncmp(end + 1, "  -", 3) || !strncmp(end + 1, "      --", 8) ||
		    end[1] == '\n')
			break;
	assert_non_null(end);
	snprintf(out, len, "%.*s", (int)(end - p), p);
}

static void test_help_text(void **state)
{
	const char *help = help_text();
	char block[1024];

	option_block(help, "-n, --max-snapshots", block, sizeof(block));
	assert_non_null(strstr(block, "(0, the default, keeps them all)"));
	option_block(help, "--min-interval", block, sizeof(block));
	assert_null(strstr(block, "keeps them all"));
	/* the backends of the table, in its order, as one line */
	assert_non_null(strstr(help,
			       "\n  -o, --output DIR         where snapshots go (default "
			       "./ptbpf-out)\n  -b, --backend NAME       auto | intel-pt | "
			       "sample\n  -s, --buffer-size SIZE   per-core buffer, e.g. 4M\n"));
	option_block(help, "-N, --no-buildid-cache", block, sizeof(block));
	assert_non_null(strstr(block, "$HOME/.debug"));
	/* one table of exit statuses */
	assert_non_null(strstr(help, "Exit status:\n"));
	assert_non_null(
		strstr(help, "  128+N    the command was killed by signal N, not sent by ptbpf"));
	assert_non_null(
		strstr(help, "  0        the run ended as asked: --duration, --trigger-limit"));
}

/* --follow, --wait-for and --unit: the targets besides --pid and a command. */
static void test_targets(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("--follow -- ls", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.follow);
	assert_non_null(cfg.cmd);
	args_free(&cfg);
	assert_int_equal(parse("--wait-for /usr/sbin/srv --follow", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.wait_for, "/usr/sbin/srv");
	assert_int_equal(cfg.pid, 0);
	assert_null(cfg.cmd);
	assert_true(cfg.follow);
	args_free(&cfg);
	assert_int_equal(parse("--wait-for srv", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.wait_for, "srv");
	assert_false(cfg.follow);
	args_free(&cfg);
	/* a unit is its cgroup, every process of it: --follow goes with it */
	assert_int_equal(parse("--unit nginx.service --max-size 1G", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.unit, "nginx.service");
	assert_true(cfg.follow);
	assert_int_equal(cfg.scope, SCOPE_AUTO);
	args_free(&cfg);
	assert_int_equal(parse("--unit a.service --scope cgroup", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.scope, SCOPE_CGROUP);
	args_free(&cfg);
	/* --max-size twice --buffer-size: enough, whichever comes first */
	assert_int_equal(parse("--max-size 2M -s 1M -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, 2ULL << 20);
	assert_false(cfg.max_size_default);
	args_free(&cfg);
}

/*
 * The default bound: 1 GiB, grown to twice a larger --buffer-size (never
 * a refusal of a -s the user gave); --max-size 0 keeps no limit.
 */
static void test_max_size_default(void **state)
{
	struct config cfg;
	char err[128];

	(void)state;
	assert_int_equal(parse("-p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, ARGS_MAX_SIZE_DEFAULT);
	assert_true(cfg.max_size_default);
	args_free(&cfg);
	assert_int_equal(parse("-s 1G -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, 2ULL << 30);
	assert_true(cfg.max_size_default);
	args_free(&cfg);
	assert_int_equal(parse("--max-size 0 -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, 0);
	assert_false(cfg.max_size_default);
	args_free(&cfg);
	assert_int_equal(parse("--max-size 0 -s 1G -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, 0);
	args_free(&cfg);
	assert_int_equal(parse("--max-size 100M -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.max_size, 100ULL << 20);
	assert_false(cfg.max_size_default);
	args_free(&cfg);
}

/* --trigger-on is kept as given, in order; the limits in ns. */
static void test_trigger_options(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("--trigger-on leaf --duration 1m "
			       "--trigger-on malloc@libc.so.6 "
			       "--trigger-on libx.so:0x1130 --trigger-limit 7 "
			       "--min-history 500ms -- ./a",
			       &cfg, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.nr_hit_specs, 3);
	assert_string_equal(cfg.hit_specs[0], "leaf");
	assert_string_equal(cfg.hit_specs[1], "malloc@libc.so.6");
	assert_string_equal(cfg.hit_specs[2], "libx.so:0x1130");
	assert_int_equal(cfg.trigger_limit, 7);
	assert_int_equal(cfg.duration_ns, 60000000000ULL);
	assert_int_equal(cfg.min_history_ns, 500000000ULL);
	args_free(&cfg);
	assert_null(cfg.hit_specs);
	assert_int_equal(parse("--duration 2s -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.duration_ns, 2000000000ULL);
	args_free(&cfg);
}

static void test_everything(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("-o out -b sample -s 4M -C 3,0-1,1 -t fatal,exit,step "
			       "-n 3 --max-size 100M --min-interval 250ms --full "
			       "--format perf --no-pause --kernel "
			       "--cgroup=/sys/fs/cgroup/x -v --grace 250ms -F 997 "
			       "--call-graph dwarf,16K -- ./server --port 8080",
			       &cfg, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.pid, 0);
	assert_string_equal(cfg.cmd[0], "./server");
	assert_string_equal(cfg.cmd[1], "--port");
	assert_string_equal(cfg.cmd[2], "8080");
	assert_null(cfg.cmd[3]);
	assert_string_equal(cfg.output, "out");
	assert_int_equal(cfg.backend, BACKEND_SAMPLE);
	assert_int_equal(cfg.buffer_size, 4 << 20);
	assert_int_equal(cfg.nr_cpus, 3);
	assert_int_equal(cfg.cpus[0], 0);
	assert_int_equal(cfg.cpus[1], 1);
	assert_int_equal(cfg.cpus[2], 3);
	assert_int_equal(cfg.triggers, TRIGGER_FATAL | TRIGGER_EXIT | TRIGGER_STEP);
	assert_int_equal(cfg.max_snapshots, 3);
	assert_int_equal(cfg.max_size, 100ULL << 20);
	assert_int_equal(cfg.min_interval_ns, 250000000ULL);
	assert_int_equal(cfg.formats, SNAPWRITE_PERF);
	assert_true(cfg.full && cfg.no_pause && cfg.kernel && cfg.cgroup);
	assert_string_equal(cfg.cgroup_path, "/sys/fs/cgroup/x");
	assert_int_equal(cfg.scope, SCOPE_CGROUP);
	assert_int_equal(cfg.verbosity, 1);
	assert_int_equal(cfg.grace_ms, 250);
	assert_int_equal(cfg.freq, 997);
	assert_int_equal(cfg.call_graph, CALLGRAPH_DWARF);
	assert_int_equal(cfg.stack_size, 16384);
	args_free(&cfg);
}

/* --overhead: a percentage, with or without its sign. */
static void test_overhead(void **state)
{
	struct config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse("--overhead 0.5% --pid 1", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.overhead_pct > 0.49 && cfg.overhead_pct < 0.51);
	assert_int_equal(cfg.freq, 0);
	args_free(&cfg);
	assert_int_equal(parse("--overhead 100 --pid 1", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.overhead_pct == 100);
	args_free(&cfg);
	assert_int_equal(parse("--pid 1", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.overhead_pct == 0);
	args_free(&cfg);
}

static void test_callgraph(void **state)
{
	static const struct {
		const char *s;
		int ret;
		enum ptbpf_callgraph mode;
		unsigned int stack;
	} cases[] = {
		{ "fp", 0, CALLGRAPH_FP, 0 },
		{ "none", 0, CALLGRAPH_NONE, 0 },
		{ "dwarf", 0, CALLGRAPH_DWARF, 0 },
		{ "dwarf,4096", 0, CALLGRAPH_DWARF, 4096 },
		{ "dwarf,65528", 0, CALLGRAPH_DWARF, 65528 },
		{ "dwarf,65536", -EINVAL, 0, 0 },
		{ "dwarf,4095", -EINVAL, 0, 0 },
		{ "FP", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
	};
	enum ptbpf_callgraph mode;
	unsigned int stack, i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mode = (enum ptbpf_callgraph)99;
		stack = 12345;
		assert_int_equal(args_parse_callgraph(cases[i].s, &mode, &stack), cases[i].ret);
		if (cases[i].ret)
			continue;
		assert_int_equal(mode, cases[i].mode);
		assert_int_equal(stack, cases[i].stack);
	}
	assert_int_equal(args_parse_callgraph(NULL, &mode, &stack), -EINVAL);
	assert_int_equal(args_parse_callgraph("fp", NULL, &stack), -EINVAL);
	assert_int_equal(args_parse_callgraph("fp", &mode, NULL), -EINVAL);
}

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t ms;
	} cases[] = {
		{ "0", 0, 0 },		{ "3", 0, 3000 },
		{ "3s", 0, 3000 },	{ "500ms", 0, 500 },
		{ "2m", 0, 120000 },	{ "60m", 0, 3600000 },
		{ "61m", -ERANGE, 0 },	{ "3h", -EINVAL, 0 },
		{ "", -EINVAL, 0 },	{ "-1", -EINVAL, 0 },
		{ "1.5s", -EINVAL, 0 }, { "99999999999999999999", -ERANGE, 0 },
	};
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 12345;
		assert_int_equal(args_parse_duration(cases[i].s, ARGS_GRACE_MS_MAX, &v),
				 cases[i].ret);
		if (!cases[i].ret)
			assert_int_equal(v, cases[i].ms);
		else
			assert_int_equal(v, 12345);
	}
	assert_int_equal(args_parse_duration(NULL, 1, &v), -EINVAL);
	assert_int_equal(args_parse_duration("1", 1000, NULL), -EINVAL);
}

/* Options after the command belong to the command, not to ptbpf. */
static void test_command_options(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("-q ls -l --pid 3", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.cmd[0], "ls");
	assert_string_equal(cfg.cmd[1], "-l");
	assert_string_equal(cfg.cmd[2], "--pid");
	assert_int_equal(cfg.pid, 0);
	assert_int_equal(cfg.verbosity, -1);
	assert_int_equal(parse("-t none -p 7 --cgroup", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.triggers, 0);
	assert_true(cfg.cgroup);
	assert_null(cfg.cgroup_path);
	args_free(&cfg);
}

static void test_help_version(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("--help", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.help);
	assert_int_equal(parse("-V", &cfg, err, sizeof(err)), 0);
	assert_true(cfg.version);
}

struct size_case {
	const char *s;
	int ret;
	uint64_t v;
};

static const struct size_case size_cases[] = {
	{ "4096", 0, 4096 },
	{ "64K", 0, 64 << 10 },
	{ "64k", 0, 64 << 10 },
	{ "4M", 0, 4 << 20 },
	{ "4MiB", 0, 4 << 20 },
	{ "4MB", 0, 4 << 20 },
	{ "1G", 0, 1ULL << 30 },
	{ "0", 0, 0 },
	{ "", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "1.5M", -EINVAL, 0 },
	{ "4T", -EINVAL, 0 },
	{ "4Mx", -EINVAL, 0 },
	{ " 4", -EINVAL, 0 },
	{ "99999999999999999999", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
};

static void test_sizes(void **state)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
		v = 0xdeadbeef;
		assert_int_equal(args_parse_size(size_cases[i].s, &v), size_cases[i].ret);
		if (!size_cases[i].ret)
			assert_int_equal(v, size_cases[i].v);
	}
	assert_int_equal(args_parse_size(NULL, &v), -EINVAL);
	assert_int_equal(args_parse_size("4", NULL), -EINVAL);
}

static void test_cpus(void **state)
{
	unsigned int nr = 77;
	int *cpus = NULL;

	assert_int_equal(args_parse_cpus("8,0-3,2", &cpus, &nr), 0);
	assert_int_equal(nr, 5);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[3], 3);
	assert_int_equal(cpus[4], 8);
	free(cpus);
	assert_int_equal(args_parse_cpus("4095", &cpus, &nr), 0);
	assert_int_equal(nr, 1);
	assert_int_equal(cpus[0], 4095);
	free(cpus);
	assert_int_equal(args_parse_cpus("", &cpus, &nr), -EINVAL);
	assert_int_equal(args_parse_cpus("a", &cpus, &nr), -EINVAL);
	assert_int_equal(args_parse_cpus("1-", &cpus, &nr), -EINVAL);
	assert_int_equal(args_parse_cpus(NULL, &cpus, &nr), -EINVAL);
	assert_int_equal(args_parse_cpus("1", NULL, &nr), -EINVAL);
}

static void test_scope(void **state)
{
	struct config cfg;
	char err[128];

	assert_int_equal(parse("--scope process --max-events 99 -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.scope, SCOPE_PROCESS);
	assert_int_equal(cfg.max_events, 99);
	args_free(&cfg);
	assert_int_equal(parse("--scope cgroup --cgroup=x -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.scope, SCOPE_CGROUP);
	assert_true(cfg.cgroup);
	assert_string_equal(cfg.cgroup_path, "x");
	args_free(&cfg);
	assert_int_equal(parse("--scope cpu --no-pause -p 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.scope, SCOPE_CPU);
	assert_true(cfg.no_pause);
	args_free(&cfg);
}

static void test_null(void **state)
{
	struct config cfg;
	char err[16];
	char *argv[] = { "ptbpf", NULL };

	assert_int_equal(args_parse(NULL, 1, argv, err, sizeof(err)), -EINVAL);
	assert_int_equal(args_parse(&cfg, 1, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(args_parse(&cfg, 0, argv, err, sizeof(err)), -EINVAL);
	assert_int_equal(args_parse(&cfg, 1, argv, NULL, 0), -EINVAL);
	args_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_trigger_options),
		cmocka_unit_test(test_everything),
		cmocka_unit_test(test_command_options),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_max_size_default),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_callgraph),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_no_buildid_cache),
		cmocka_unit_test(test_help_text),
		cmocka_unit_test(test_overhead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
