/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target's last moments, for the sample backend: what each snapshot
 * spans, which functions were hottest, which ran last before the cause,
 * and the samples of several snapshots in time order, the same sample seen
 * in two kept once (stream snapshots hold what ran since the previous one,
 * --full ones the whole buffer each time): lastjoin.h joins them over a
 * run for ptbpf-dump --last.
 */
#ifndef PTBPF_DUMP_LAST_H
#define PTBPF_DUMP_LAST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "symtab.h"
#include "snap.h"
#include "json.h"

/* Frames kept per sample when printing a stack. */
#define DUMP_STACK_MAX 64

/* One sample of the target, and the snapshot core it came from. */
struct dump_moment {
	const struct dump_sample *smp;
	int cpu;
};

struct dump_moments {
	struct dump_moment *v;
	size_t n, cap;
};

/*
 * Adds the target's samples of @s with @from <= time <= @to.
 * Returns 0, -EINVAL for NULL arguments, -ENOMEM.
 */
int last_moments_add(struct dump_moments *m, const struct dump_snap *s, uint64_t from, uint64_t to);

/* Sorts by time (then cpu) and keeps one of samples seen twice. */
void last_moments_sort(struct dump_moments *m);

void last_moments_free(struct dump_moments *m);

/*
 * Widens [*@first, *@last] (perf time; *@first > *@last means empty) to
 * the samples and context switches of @s. Returns whether the range is
 * not empty. (intel-pt traces add their first and last TSC: ptshow.c.)
 */
bool last_snap_span(const struct dump_snap *s, uint64_t *first, uint64_t *last);

/*
 * @ns (perf time) as the time of day "HH:MM:SS.uuuuuu" (local time) when
 * @s's perf.data has CLOCK_DATA, else as "T.TTTTTTTTT s" of the clock.
 * Returns @buf.
 */
const char *last_time_str(const struct dump_snap *s, uint64_t ns, char *buf, size_t len);

/* A function and how many of the target's samples were in it. */
struct dump_hot {
	char name[96]; /* the function, "[module]" or "[unknown]" */
	char module[64]; /* its module's base name, or "" */
	uint64_t samples;
};

/*
 * The @max hottest functions of the target's samples in @s, named from
 * @tab (may be NULL), most samples first, into @out; *@total gets the
 * number of target samples. Returns how many were stored, or -ENOMEM.
 */
int last_hottest(const struct dump_snap *s, const struct dump_symtab *tab, struct dump_hot *out,
		 size_t max, uint64_t *total);

/*
 * Writes the call stack of @smp as "func <- caller <- ..." (innermost
 * first, at most @depth frames; the sampled function alone without a call
 * chain) into @buf of @len bytes. Returns @buf.
 */
const char *last_stack_str(const struct dump_sample *smp, const struct dump_symtab *tab,
			   unsigned int depth, char *buf, size_t len);

/*
 * One line per moment: time (of day when known), its distance from
 * @cause_ts in ms, tid, cpu, the IP and the stack.
 */
void last_moment_print(FILE *out, const struct dump_snap *s, const struct dump_moment *m,
		       uint64_t cause_ts, const struct dump_symtab *tab);

/*
 * The summary's part about the last moments, for the sample backend: span,
 * hottest functions, and for a stop or fatal snapshot the last @n samples
 * before the cause, newest first. As text, or as members of the JSON
 * object @j has open. Return 0, or -ENOMEM.
 */
int last_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab, unsigned int n);
int last_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
	      unsigned int n);

/*
 * A stop, a fatal signal or a --trigger-on hit: the moments before the
 * cause are the question.
 */
bool last_stops(const struct dump_snap *s);

/*
 * The last of the @n moments @v (in time order, none after @s's cause),
 * newest first, at most @max: as text under "last before the CAUSE
 * (newest first):" (" no samples" when @n is 0), that line indented by
 * @indent and the moments by last_moment_print(); or as the "last" array
 * of the JSON object @j has open. last_text(), last_json() and the
 * followed processes' summaries (procsum.h) print them so.
 */
void last_before_text(FILE *out, const struct dump_snap *s, const struct dump_moment *v, size_t n,
		      size_t max, const struct dump_symtab *tab, const char *indent);
void last_before_json(struct json *j, const struct dump_moment *v, size_t n, size_t max,
		      const struct dump_symtab *tab);

#endif /* PTBPF_DUMP_LAST_H */
