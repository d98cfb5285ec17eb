/* SPDX-License-Identifier: GPL-2.0 */
/* ptbpf-dump's command line → one options struct. */
#ifndef PTBPF_DUMP_OPTS_H
#define PTBPF_DUMP_OPTS_H

#include <stdbool.h>
#include <stdint.h>

enum dump_mode {
	DUMP_SUMMARY = 0,
	DUMP_PACKETS,
	DUMP_INSN,
	DUMP_TIMELINE,
	DUMP_LAST,
};

struct dump_opts {
	enum dump_mode mode;
	bool json; /* summary as JSON */
	int cpu; /* only this core; -1: all */
	const char *timeline; /* --timeline FILE */
	const char *timeline_format; /* --timeline-format; NULL: by FILE's name */
	uint64_t last_ns; /* --last DURATION */
	unsigned int pid; /* --last --pid: this process of a --follow run; 0: the cause's */
	char **dirs; /* the DIR arguments */
	int nr_dirs;
	bool help, version;
};

/*
 * Parses @argc/@argv into @o. On a bad argument writes one line to @err
 * (@len bytes) saying what is wrong.
 *
 * Returns 0, or -EINVAL.
 */
int opts_parse(int argc, char **argv, struct dump_opts *o, char *err, size_t len);

/*
 * "50ms", "2s", "300us", "1500000ns", "0.5s": a duration into *@ns.
 * Returns 0, or -EINVAL when malformed, zero or above a day.
 */
int opts_parse_duration(const char *s, uint64_t *ns);

/* The --help text. */
extern const char opts_usage[];

#endif /* PTBPF_DUMP_OPTS_H */
