// SPDX-License-Identifier: GPL-2.0
/* The command line: see args.h. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "base/errbuf.h"
#include "collect/backend.h"
#include "collect/corecfg.h"
#include "collect/scope.h"
#include "output/snapwrite.h"

enum long_only {
	OPT_FULL = 256,
	OPT_FORMAT,
	OPT_NO_PAUSE,
	OPT_KERNEL,
	OPT_CGROUP,
	OPT_MAX_SIZE,
	OPT_MIN_INTERVAL,
	OPT_CALL_GRAPH,
	OPT_SCOPE,
	OPT_MAX_EVENTS,
	OPT_GRACE,
	OPT_FOLLOW,
	OPT_WAIT_FOR,
	OPT_UNIT,
	OPT_TRIGGER_ON,
	OPT_TRIGGER_LIMIT,
	OPT_DURATION,
	OPT_MIN_HISTORY,
	OPT_CRASH_STACK,
	OPT_OVERHEAD,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "backend", required_argument, NULL, 'b' },
	{ "buffer-size", required_argument, NULL, 's' },
	{ "cpus", required_argument, NULL, 'C' },
	{ "trigger", required_argument, NULL, 't' },
	{ "max-snapshots", required_argument, NULL, 'n' },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "min-interval", required_argument, NULL, OPT_MIN_INTERVAL },
	{ "full", no_argument, NULL, OPT_FULL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "no-pause", no_argument, NULL, OPT_NO_PAUSE },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "cgroup", optional_argument, NULL, OPT_CGROUP },
	{ "freq", required_argument, NULL, 'F' },
	{ "overhead", required_argument, NULL, OPT_OVERHEAD },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "scope", required_argument, NULL, OPT_SCOPE },
	{ "max-events", required_argument, NULL, OPT_MAX_EVENTS },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "wait-for", required_argument, NULL, OPT_WAIT_FOR },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "trigger-on", required_argument, NULL, OPT_TRIGGER_ON },
	{ "trigger-limit", required_argument, NULL, OPT_TRIGGER_LIMIT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "min-history", required_argument, NULL, OPT_MIN_HISTORY },
	{ "crash-stack", required_argument, NULL, OPT_CRASH_STACK },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{},
};

/*
 * "auto" and every backend's name, in the table's order (backend.h), after
 * each other with @sep, the last one after @last: the one list --help and
 * the error of an unknown --backend both name, so a backend added to the
 * table is named in both.
 */
static void backend_names(char *buf, size_t len, const char *sep, const char *last)
{
	const struct backend_ops *be;
	unsigned int i;
	size_t n;

	n = (size_t)snprintf(buf, len, "%s", snapfmt_backend_name(BACKEND_AUTO));
	for (i = 0; (be = backend_nth(i)) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", backend_nth(i + 1) ? sep : last,
				      snapfmt_backend_name(be->id));
}

void args_usage(FILE *f)
{
	char names[128];

	backend_names(names, sizeof(names), " | ", " | ");
	fputs("usage: ptbpf [options] --pid PID\n"
	      "       ptbpf [options] -- COMMAND [ARG...]\n"
	      "       ptbpf [options] --wait-for NAME\n"
	      "       ptbpf [options] --unit NAME.service\n"
	      "\n"
	      "  -p, --pid PID            trace this process (all its threads)\n"
	      "      --wait-for NAME      trace the next process to exec NAME (a program's\n"
	      "                           name or path), held before its first instruction\n"
	      "      --unit NAME.service  trace a systemd unit's processes (its cgroup),\n"
	      "                           as they come and go (implies --follow)\n"
	      "      --follow             the processes the target forks, and theirs, are\n"
	      "                           traced too; the run ends when the last one exits\n"
	      "  -o, --output DIR         where snapshots go (default ./ptbpf-out)\n"
	      "  -b, --backend NAME       ",
	      f);
	fprintf(f, "%s\n", names);
	fputs("  -s, --buffer-size SIZE   per-core buffer, e.g. 4M\n"
	      "  -C, --cpus LIST          CPUs to trace, e.g. 0-3,8 (default: all online)\n"
	      "  -t, --trigger LIST       stop,fatal,exit,step,child-exit,none (default\n"
	      "                           stop,fatal,exit; step: a debugger's single-steps get\n"
	      "                           snapshots too; child-exit: --follow, a followed\n"
	      "                           process's exit() too, not only its death by a signal)\n"
	      "  -n, --max-snapshots N    keep only the newest N snapshot directories\n"
	      "                           (0, the default, keeps them all)\n"
	      "      --max-size SIZE      keep the output directory within SIZE bytes on disk,\n"
	      "                           e.g. 100M (the oldest snapshots are removed first;\n"
	      "                           events.jsonl, an eighth of it, is rotated); at\n"
	      "                           least twice --buffer-size (8M by default);\n"
	      "                           default 1G (or twice a larger --buffer-size),\n"
	      "                           0: no limit\n"
	      "      --min-interval TIME  fold stops closer than TIME (e.g. 500ms) to the\n"
	      "                           last snapshot into the next; the last stop\n"
	      "                           always gets one\n"
	      "      --trigger-on SPEC    a snapshot each time the target reaches a function's\n"
	      "                           entry, while it runs on: SYMBOL[@OBJECT] (OBJECT: the\n"
	      "                           executable, or a library it maps, e.g. malloc@libc.so.6),\n"
	      "                           0xADDR (in the executable) or OBJECT:OFFSET; repeatable\n"
	      "      --trigger-limit N    end the run after N --trigger-on hits (a last snapshot)\n"
	      "      --duration TIME      end the run after TIME (e.g. 2s, 500ms, 1m) recorded,\n"
	      "                           from the start event, with a last snapshot; a started\n"
	      "                           command is ended as on SIGINT\n"
	      "      --min-history TIME   no --trigger-on snapshot until TIME has been recorded\n"
	      "      --full               each snapshot holds whole buffers\n"
	      "      --format LIST        perf,lldb (default both)\n"
	      "      --scope NAME         auto | process | cgroup | cpu (default auto:\n"
	      "                           process, or cpu past --max-events)\n"
	      "      --max-events N       process scope, --pid: at most N perf events\n"
	      "                           (threads x CPUs x 2; default 16384)\n"
	      "      --no-pause           never pause collection (cpu scope only)\n"
	      "      --kernel             trace kernel space too (intel-pt)\n"
	      "      --cgroup[=PATH]      --scope cgroup: the target's (or this) cgroup v2;\n"
	      "                           a command gets a cgroup of its own\n"
	      "      --grace DURATION     at the end, how long a started command has after\n"
	      "                           SIGTERM before SIGKILL, e.g. 500ms, 10s (default 3s)\n"
	      "  -N, --no-buildid-cache   leave perf's build-id cache ($HOME/.debug) alone\n"
	      "  -F, --freq HZ            sample backend: a fixed rate, samples a second per core\n"
	      "                           (what it costs is said; one the kernel can't sustain\n"
	      "                           is lowered, and said)\n"
	      "      --overhead PCT       sample backend without -F: the rate that keeps the\n"
	      "                           target's sampling cost within PCT % (default 2),\n"
	      "                           from a sample's cost measured at start\n"
	      "      --call-graph MODE    sample backend call stacks: fp (default: frame pointers),\n"
	      "                           dwarf[,SIZE] (user registers and SIZE bytes of stack,\n"
	      "                           default 8192, for code without frame pointers), none\n"
	      "      --crash-stack SIZE   bytes of the faulting thread's stack a fatal snapshot\n"
	      "                           keeps for unwinding (default 32K, at most 63K; 0: none)\n"
	      "  -q, --quiet  -v, --verbose  -h, --help  -V, --version\n"
	      "\n"
	      "SIGUSR2 takes a snapshot now. SIGINT, SIGTERM and SIGHUP end the run after a\n"
	      "last snapshot; a started command gets SIGTERM, and a second SIGINT or SIGTERM\n"
	      "ends it with SIGKILL at once. One run per output directory at a time.\n"
	      "At a terminal a command gets Ctrl-C and Ctrl-Z as it would alone; without\n"
	      "a command, Ctrl-Z stops ptbpf and fg resumes the recording.\n"
	      "\n"
	      "Exit status:\n"
	      "  0        the run ended as asked: --duration, --trigger-limit, SIGINT,\n"
	      "           SIGTERM or SIGHUP to ptbpf (a command is then ended by ptbpf;\n"
	      "           one that had ended, or died of another signal: as below),\n"
	      "           the command's own exit 0; --pid and the like: the target's end\n"
	      "  N        the command ended by itself with exit status N\n"
	      "  128+N    the command was killed by signal N, not sent by ptbpf\n"
	      "           (Ctrl-C: 130), or signal N reached ptbpf during setup\n"
	      "  1        ptbpf could not start or failed (one line on stderr says why)\n"
	      "  2        a usage error\n"
	      "  127      the command could not be run\n",
	      f);
}

/* "2", "0.5", "2%": a percentage in (0, 100]. */
static int parse_pct(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end == '%' && *++end) || *end || !(v > 0 && v <= 100))
		return -EINVAL;
	*out = v;
	return 0;
}

int args_parse_size(const char *s, uint64_t *out)
{
	uint64_t v, mult = 1;
	char *end;

	if (!s || !out || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		end++;
		break;
	default:
		return -EINVAL;
	}
	/* accept "4M", "4MB" and "4MiB" */
	if (mult > 1 && (!strcmp(end, "B") || !strcmp(end, "iB")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (v > ULLONG_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno == ERANGE || *out > max)
		return -ERANGE;
	return *end ? -EINVAL : 0;
}

int args_parse_duration(const char *s, uint64_t max_ms, uint64_t *out)
{
	uint64_t v, mult;
	char *end;

	if (!s || !out || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (!strcmp(end, "ms"))
		mult = 1;
	else if (!*end || !strcmp(end, "s"))
		mult = 1000;
	else if (!strcmp(end, "m"))
		mult = 60 * 1000;
	else
		return -EINVAL;
	if (v > max_ms / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int args_parse_callgraph(const char *s, enum ptbpf_callgraph *mode, unsigned int *stack)
{
	uint64_t v;

	if (!s || !mode || !stack)
		return -EINVAL;
	*stack = 0;
	if (!strcmp(s, "fp")) {
		*mode = CALLGRAPH_FP;
	} else if (!strcmp(s, "none")) {
		*mode = CALLGRAPH_NONE;
	} else if (!strncmp(s, "dwarf", 5) && (!s[5] || s[5] == ',')) {
		*mode = CALLGRAPH_DWARF;
		if (!s[5])
			return 0;
		/* the kernel wants a multiple of 8 that fits a u16 record */
		if (args_parse_size(s + 6, &v) || !v || v % 8 || v > 65528)
			return -EINVAL;
		*stack = (unsigned int)v;
	} else {
		return -EINVAL;
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int args_parse_cpus(const char *s, int **cpus, unsigned int *nr)
{
	static unsigned char seen[ARGS_MAX_CPUS];
	uint64_t lo, hi, c;
	char *copy, *rest, *tok, *dash;
	unsigned int n = 0;
	int *arr, ret = 0;

	if (!s || !cpus || !nr || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	memset(seen, 0, sizeof(seen));
	/* strsep, not strtok: "1,,2" is an error, not "1,2" */
	for (rest = copy; (tok = strsep(&rest, ",")) && !ret;) {
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		ret = parse_uint(tok, ARGS_MAX_CPUS - 1, &lo);
		hi = lo;
		if (!ret && dash)
			ret = parse_uint(dash + 1, ARGS_MAX_CPUS - 1, &hi);
		if (!ret && hi < lo)
			ret = -EINVAL;
		for (c = lo; !ret && c <= hi; c++)
			seen[c] = 1;
	}
	free(copy);
	if (ret)
		return -EINVAL;
	for (c = 0; c < ARGS_MAX_CPUS; c++)
		n += seen[c];
	arr = malloc(n * sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	n = 0;
	for (c = 0; c < ARGS_MAX_CPUS; c++)
		if (seen[c])
			arr[n++] = (int)c;
	qsort(arr, n, sizeof(*arr), cmp_int);
	*cpus = arr;
	*nr = n;
	return 0;
}

/* "a,b,c" where each word is one of @names; bits in @out. */
static int parse_list(const char *s, const char *const *names, const unsigned int *bits,
		      unsigned int *out)
{
	char *copy, *rest, *tok;
	unsigned int v = 0, i;
	int ret = 0;

	if (!*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (rest = copy; (tok = strsep(&rest, ",")) && !ret;) {
		for (i = 0; names[i] && strcmp(names[i], tok); i++)
			;
		if (names[i])
			v |= bits[i];
		else
			ret = -EINVAL;
	}
	free(copy);
	*out = v;
	return ret;
}

/*
 * A unit name as systemd spells one: no path, no spaces; only services
 * have processes of their own to trace here.
 */
static int parse_unit(struct config *cfg, const char *arg, char *err, size_t errlen)
{
	size_t len = strlen(arg), sfx = strlen(".service");

	if (len <= sfx || strcmp(arg + len - sfx, ".service") || strpbrk(arg, "/ \t\n"))
		return errbuf_set(err, errlen, -EINVAL,
				  "invalid unit '%s': give a service, NAME.service", arg);
	cfg->unit = arg;
	cfg->follow = true;
	return 0;
}

static int parse_pid(const char *s, pid_t *pid)
{
	uint64_t v;
	int ret = parse_uint(s, INT_MAX, &v);

	if (ret || v == 0)
		return ret ? ret : -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static void defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->output = "ptbpf-out";
	cfg->backend = BACKEND_AUTO;
	cfg->triggers = TRIGGER_STOP | TRIGGER_FATAL | TRIGGER_EXIT;
	cfg->formats = SNAPWRITE_ALL;
	cfg->grace_ms = ARGS_GRACE_MS_DEFAULT;
	cfg->crash_stack = ARGS_CRASH_STACK_DEFAULT;
	cfg->max_size = ARGS_MAX_SIZE_DEFAULT;
	cfg->max_size_default = true;
}

static const char *const trigger_names[] = { "stop",	   "fatal", "exit", "step",
					     "child-exit", "none",  NULL };
static const unsigned int trigger_bits[] = { TRIGGER_STOP, TRIGGER_FATAL,      TRIGGER_EXIT,
					     TRIGGER_STEP, TRIGGER_CHILD_EXIT, 0 };

/* One more --trigger-on: kept as given, parsed once the target is known. */
static int add_hit_spec(struct config *cfg, const char *arg, char *err, size_t errlen)
{
	const char **grown;

	if (!*arg)
		return errbuf_set(err, errlen, -EINVAL,
				  "empty --trigger-on: give SYMBOL[@OBJECT], 0xADDR "
				  "or OBJECT:OFFSET");
	if (cfg->nr_hit_specs == ARGS_MAX_TRIGGER_ON)
		return errbuf_set(err, errlen, -EINVAL, "more than %d --trigger-on options",
				  ARGS_MAX_TRIGGER_ON);
	grown = realloc(cfg->hit_specs, (cfg->nr_hit_specs + 1) * sizeof(*grown));
	if (!grown)
		return errbuf_set(err, errlen, -EINVAL, "out of memory");
	cfg->hit_specs = grown;
	cfg->hit_specs[cfg->nr_hit_specs++] = arg;
	return 0;
}

/* One option; returns 0 or -EINVAL with @err filled. */
static int parse_opt(struct config *cfg, int opt, const char *arg, char *err, size_t errlen)
{
	enum ptbpf_scope v_scope;
	uint64_t v;

	switch (opt) {
	case 'p':
		if (parse_pid(arg, &cfg->pid))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid pid '%s': expected a positive number", arg);
		return 0;
	case 'o':
		if (!*arg)
			return errbuf_set(err, errlen, -EINVAL, "empty output directory");
		cfg->output = arg;
		return 0;
	case 'b':
		if (snapfmt_backend_parse(arg, true, &cfg->backend)) {
			char names[128];

			backend_names(names, sizeof(names), ", ", " or ");
			return errbuf_set(err, errlen, -EINVAL, "unknown backend '%s': use %s", arg,
					  names);
		}
		return 0;
	case 's':
		if (args_parse_size(arg, &v) || v == 0 || v > (1ULL << 40))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid buffer size '%s': use e.g. 64K, 4M, 1G", arg);
		cfg->buffer_size = v;
		return 0;
	case 'C':
		free(cfg->cpus);
		cfg->cpus = NULL;
		if (args_parse_cpus(arg, &cfg->cpus, &cfg->nr_cpus))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid CPU list '%s': use e.g. 0-3,8", arg);
		return 0;
	case 't':
		if (parse_list(arg, trigger_names, trigger_bits, &cfg->triggers))
			return errbuf_set(
				err, errlen, -EINVAL,
				"invalid trigger list '%s': use stop,fatal,exit,step,child-exit or none",
				arg);
		return 0;
	case 'n':
		if (parse_uint(arg, UINT_MAX, &v))
			return errbuf_set(err, errlen, -EINVAL, "invalid snapshot count '%s'", arg);
		cfg->max_snapshots = (unsigned int)v;
		return 0;
	case OPT_MAX_SIZE:
		/* 0: no limit, for whoever watches the disk themselves */
		if (args_parse_size(arg, &v))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid --max-size '%s': use e.g. 500M, 2G, or 0", arg);
		cfg->max_size = v;
		cfg->max_size_default = false;
		return 0;
	case OPT_MIN_INTERVAL:
		if (args_parse_duration(arg, ARGS_MIN_INTERVAL_MS_MAX, &v))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid --min-interval '%s': use e.g. 500ms, 2s", arg);
		cfg->min_interval_ns = v * 1000000ULL;
		return 0;
	case 'F':
		if (parse_uint(arg, UINT_MAX, &v) || v == 0)
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid sampling rate '%s': expected Hz, e.g. 4000",
					  arg);
		cfg->freq = (unsigned int)v;
		return 0;
	case OPT_OVERHEAD:
		if (parse_pct(arg, &cfg->overhead_pct))
			return errbuf_set(
				err, errlen, -EINVAL,
				"invalid --overhead '%s': a percentage above 0 and at most 100, "
				"e.g. 2 or 0.5%%",
				arg);
		return 0;
	case OPT_CALL_GRAPH:
		if (args_parse_callgraph(arg, &cfg->call_graph, &cfg->stack_size))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid call graph '%s': use fp, dwarf, dwarf,SIZE "
					  "(a multiple of 8 up to 65528) or none",
					  arg);
		return 0;
	case OPT_CRASH_STACK:
		if (args_parse_size(arg, &v) || v % 8 || v > ARGS_CRASH_STACK_MAX)
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid --crash-stack '%s': a multiple of 8 up to %u, "
					  "e.g. 16K (0: no crash record)",
					  arg, ARGS_CRASH_STACK_MAX);
		cfg->crash_stack = (unsigned int)v;
		return 0;
	case OPT_FORMAT:
		if (snapwrite_format_parse(arg, &cfg->formats)) {
			char names[128];

			snapwrite_format_names(SNAPWRITE_ALL, names, sizeof(names));
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid format list '%s': use one or more of %s", arg,
					  names);
		}
		return 0;
	case OPT_GRACE:
		if (args_parse_duration(arg, ARGS_GRACE_MS_MAX, &v))
			return errbuf_set(
				err, errlen, -EINVAL,
				"invalid grace period '%s': use e.g. 500ms, 3s, 1m (at most 1 hour)",
				arg);
		cfg->grace_ms = (unsigned int)v;
		return 0;
	case OPT_TRIGGER_ON:
		return add_hit_spec(cfg, arg, err, errlen);
	case OPT_TRIGGER_LIMIT:
		if (parse_uint(arg, ULLONG_MAX, &v) || !v)
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid --trigger-limit '%s': give a count > 0", arg);
		cfg->trigger_limit = v;
		return 0;
	case OPT_DURATION:
	case OPT_MIN_HISTORY:
		if (args_parse_duration(arg, ARGS_DURATION_MS_MAX, &v) ||
		    (opt == OPT_DURATION && !v))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid %s '%s': use e.g. 500ms, 2s, 1m",
					  opt == OPT_DURATION ? "--duration" : "--min-history",
					  arg);
		if (opt == OPT_DURATION)
			cfg->duration_ns = v * 1000000ULL;
		else
			cfg->min_history_ns = v * 1000000ULL;
		return 0;
	case OPT_FULL:
		cfg->full = true;
		return 0;
	case OPT_FOLLOW:
		cfg->follow = true;
		return 0;
	case OPT_WAIT_FOR:
		if (!*arg)
			return errbuf_set(err, errlen, -EINVAL,
					  "--wait-for needs a program's name or path");
		cfg->wait_for = arg;
		return 0;
	case OPT_UNIT:
		return parse_unit(cfg, arg, err, errlen);
	case OPT_NO_PAUSE:
		cfg->no_pause = true;
		return 0;
	case OPT_KERNEL:
		cfg->kernel = true;
		return 0;
	case OPT_CGROUP:
		if (cfg->scope != SCOPE_AUTO && cfg->scope != SCOPE_CGROUP)
			return errbuf_set(err, errlen, -EINVAL,
					  "--cgroup is --scope cgroup, not --scope %s",
					  scope_name(cfg->scope));
		cfg->cgroup = true;
		cfg->scope = SCOPE_CGROUP;
		if (arg && !*arg)
			return errbuf_set(err, errlen, -EINVAL, "empty cgroup path");
		cfg->cgroup_path = arg;
		return 0;
	case OPT_SCOPE:
		if (scope_parse(arg, &v_scope))
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid scope '%s': use auto, process, cgroup or cpu",
					  arg);
		if (cfg->cgroup && v_scope != SCOPE_CGROUP)
			return errbuf_set(err, errlen, -EINVAL,
					  "--cgroup is --scope cgroup, not --scope %s", arg);
		cfg->scope = v_scope;
		return 0;
	case OPT_MAX_EVENTS:
		if (parse_uint(arg, ULONG_MAX, &v) || !v)
			return errbuf_set(err, errlen, -EINVAL,
					  "invalid event limit '%s': give a count > 0", arg);
		cfg->max_events = (unsigned long)v;
		return 0;
	case 'q':
		cfg->verbosity = -1;
		return 0;
	case 'v':
		cfg->verbosity = 1;
		return 0;
	case 'h':
		cfg->help = true;
		return 0;
	case 'V':
		cfg->version = true;
		return 0;
	case 'N':
		cfg->no_buildid_cache = true;
		return 0;
	}
	return errbuf_set(err, errlen, -EINVAL, "unknown option");
}

/* Exactly one target, and the options that fit it. */
static int check_target(const struct config *cfg, char *err, size_t errlen)
{
	int n = !!cfg->pid + !!cfg->cmd + !!cfg->wait_for + !!cfg->unit;

	if (n > 1)
		return errbuf_set(
			err, errlen, -EINVAL,
			"give one of --pid, --wait-for, --unit or a command, not several");
	if (!n)
		return errbuf_set(
			err, errlen, -EINVAL,
			"nothing to trace: give --pid PID, -- COMMAND, --wait-for NAME or --unit NAME.service (see --help)");
	if (cfg->unit && cfg->scope != SCOPE_AUTO && cfg->scope != SCOPE_CGROUP)
		return errbuf_set(err, errlen, -EINVAL,
				  "--unit records the unit's cgroup: --scope cgroup, "
				  "not --scope %s",
				  scope_name(cfg->scope));
	if (cfg->unit && cfg->cgroup_path)
		return errbuf_set(err, errlen, -EINVAL,
				  "--unit names the cgroup itself: no --cgroup=PATH");
	return 0;
}

/*
 * --max-size holds one snapshot at least: events.jsonl takes up to half
 * of it, and a snapshot of a core whose ring wrapped is its whole
 * --buffer-size. Below that every snapshot could be lost, and the run
 * would say so only snapshot by snapshot.
 */
static int check_max_size(struct config *cfg, char *err, size_t errlen)
{
	uint64_t buf = cfg->buffer_size ? cfg->buffer_size : CORES_DEFAULT_BUFFER;

	/* the default bounds the disk; it never refuses a -s the user gave */
	if (cfg->max_size_default && cfg->max_size < 2 * buf)
		cfg->max_size = 2 * buf;

	if (!cfg->max_size || cfg->max_size >= 2 * buf)
		return 0;
	return errbuf_set(err, errlen, -EINVAL,
			  "--max-size %" PRIu64 " can't hold one snapshot: give at least %" PRIu64
			  "K (twice --buffer-size)",
			  cfg->max_size, 2 * buf / 1024);
}

int args_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen)
{
	int opt, ret;

	if (!cfg || !argv || argc < 1 || !err || !errlen)
		return -EINVAL;
	defaults(cfg);
	err[0] = '\0';
	optind = 0; /* full reset: tests call this more than once */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:p:o:b:s:C:t:n:F:NqvhV", long_opts, NULL)) != -1) {
		if (opt == '?') {
			if (optopt)
				return errbuf_set(err, errlen, -EINVAL,
						  "unknown option '-%c' (see --help)", optopt);
			return errbuf_set(err, errlen, -EINVAL, "unknown option '%s' (see --help)",
					  argv[optind - 1]);
		}
		if (opt == ':')
			return errbuf_set(err, errlen, -EINVAL, "option '%s' needs a value",
					  argv[optind - 1]);
		ret = parse_opt(cfg, opt, optarg, err, errlen);
		if (ret)
			return ret;
	}
	if (cfg->help || cfg->version)
		return 0;
	if (optind < argc)
		cfg->cmd = &argv[optind];
	ret = check_target(cfg, err, errlen);
	if (ret)
		return ret;
	if (cfg->freq && cfg->overhead_pct > 0)
		return errbuf_set(
			err, errlen, -EINVAL,
			"-F and --overhead: give one (-F fixes the rate, --overhead picks it)");
	ret = check_max_size(cfg, err, errlen);
	if (ret)
		return ret;
	if (cfg->trigger_limit && !cfg->nr_hit_specs)
		return errbuf_set(err, errlen, -EINVAL,
				  "--trigger-limit counts --trigger-on hits: "
				  "give --trigger-on too");
	if (cfg->min_history_ns && !cfg->nr_hit_specs)
		return errbuf_set(err, errlen, -EINVAL,
				  "--min-history holds back --trigger-on snapshots: "
				  "give --trigger-on too");
	return 0;
}

void args_free(struct config *cfg)
{
	if (!cfg)
		return;
	free(cfg->cpus);
	cfg->cpus = NULL;
	cfg->nr_cpus = 0;
	free(cfg->hit_specs);
	cfg->hit_specs = NULL;
	cfg->nr_hit_specs = 0;
}
