// SPDX-License-Identifier: GPL-2.0
/* ptbpf-dump's command line: see opts.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

const char opts_usage[] =
	"usage: ptbpf-dump [OPTION] DIR...\n"
	"Checks and decodes ptbpf snapshots. DIR is a snapshot directory or an\n"
	"output directory (then each of its snapshots, in order).\n"
	"\n"
	"      (default)        summary: per core bytes, wrapped and lost data,\n"
	"                       PT packets and whether they decode, samples\n"
	"      --json           the summary as JSON\n"
	"      --packets        every Intel PT packet, one a line, with its offset\n"
	"      --insn           the target's instructions per thread, func+off\n"
	"      --timeline FILE  the snapshots as a timeline for Perfetto's UI:\n"
	"                       a Perfetto trace for FILE.pftrace or\n"
	"                       FILE.perfetto-trace, else Chrome trace event\n"
	"                       JSON (- for standard output)\n"
	"      --timeline-format json|perfetto\n"
	"                       the timeline's format, whatever FILE's name\n"
	"      --last DURATION  the target's samples in the DURATION (50ms, 1s)\n"
	"                       before the trigger of snapshot DIR, joined from\n"
	"                       the snapshots before it (sample backend)\n"
	"      --pid PID        with --last: the samples of process PID of a run\n"
	"                       that followed it (default: the trigger's process)\n"
	"  -c, --cpu N          only core N\n"
	"  -h, --help / -V, --version\n"
	"\n"
	"Exit status: 0 when everything read cleanly, 1 when some input was\n"
	"bad (each problem named on stderr with its file and offset), 2 on a\n"
	"usage error.\n";

static int set_mode(struct dump_opts *o, enum dump_mode m, char *err, size_t len)
{
	if (o->mode != DUMP_SUMMARY && o->mode != m) {
		snprintf(err, len,
			 "--packets, --insn, --timeline and --last go one at a "
			 "time");
		return -EINVAL;
	}
	o->mode = m;
	return 0;
}

static int parse_pid(const char *arg, struct dump_opts *o, char *err, size_t len)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v || v > 0x3fffffff) {
		snprintf(err, len, "--pid: \"%s\" is not a process id", arg);
		return -EINVAL;
	}
	o->pid = (unsigned int)v;
	return 0;
}

static int parse_cpu(const char *arg, struct dump_opts *o, char *err, size_t len)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > 1 << 20) {
		snprintf(err, len, "--cpu: \"%s\" is not a CPU number", arg);
		return -EINVAL;
	}
	o->cpu = (int)v;
	return 0;
}

int opts_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	unsigned int i;
	double v;
	char *end;

	if (!s || !ns || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit))
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return -EINVAL;
	v *= units[i].mult;
	if (v < 1 || v > 86400e9)
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

int opts_parse(int argc, char **argv, struct dump_opts *o, char *err, size_t len)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "packets", no_argument, NULL, 'P' },
		{ "insn", no_argument, NULL, 'I' },
		{ "timeline", required_argument, NULL, 'T' },
		{ "timeline-format", required_argument, NULL, 'F' },
		{ "last", required_argument, NULL, 'L' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	o->cpu = -1;
	optind = 1;
	opterr = 0;
	while (!ret && (c = getopt_long(argc, argv, "+c:hV", longs, NULL)) != -1) {
		if (c == 'j')
			o->json = true;
		else if (c == 'P')
			ret = set_mode(o, DUMP_PACKETS, err, len);
		else if (c == 'I')
			ret = set_mode(o, DUMP_INSN, err, len);
		else if (c == 'T') {
			ret = set_mode(o, DUMP_TIMELINE, err, len);
			o->timeline = optarg;
		} else if (c == 'F') {
			o->timeline_format = optarg;
			if (strcmp(optarg, "json") && strcmp(optarg, "perfetto")) {
				snprintf(err, len,
					 "--timeline-format: \"%s\" is neither json nor perfetto",
					 optarg);
				ret = -EINVAL;
			}
		} else if (c == 'L') {
			ret = set_mode(o, DUMP_LAST, err, len);
			if (!ret && opts_parse_duration(optarg, &o->last_ns)) {
				snprintf(err, len,
					 "--last: \"%s\" is not a duration "
					 "(e.g. 50ms, 2s)",
					 optarg);
				ret = -EINVAL;
			}
		} else if (c == 'c') {
			ret = parse_cpu(optarg, o, err, len);
		} else if (c == 'p') {
			ret = parse_pid(optarg, o, err, len);
		} else if (c == 'h')
			o->help = true;
		else if (c == 'V')
			o->version = true;
		else {
			snprintf(err, len, "unknown option \"%s\"", argv[optind - 1]);
			ret = -EINVAL;
		}
	}
	if (ret || o->help || o->version)
		return ret;
	if (o->json && o->mode != DUMP_SUMMARY) {
		snprintf(err, len, "--json goes with the summary only");
		return -EINVAL;
	}
	if (o->timeline_format && o->mode != DUMP_TIMELINE) {
		snprintf(err, len, "--timeline-format goes with --timeline only");
		return -EINVAL;
	}
	if (optind >= argc) {
		snprintf(err, len, "no DIR given (see --help)");
		return -EINVAL;
	}
	if (o->pid && o->mode != DUMP_LAST) {
		snprintf(err, len, "--pid goes with --last only");
		return -EINVAL;
	}
	if (o->mode == DUMP_LAST && argc - optind != 1) {
		snprintf(err, len, "--last takes one snapshot DIR");
		return -EINVAL;
	}
	o->dirs = argv + optind;
	o->nr_dirs = argc - optind;
	return 0;
}
