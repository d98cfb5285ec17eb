/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a sample snapshot shows in the outputs: its parts of the summary and
 * of the timeline, which its row in dumpbe.c names (see dumpbe.h for what
 * each part is given and returns). The summary's count each core's
 * samples per thread of the target, per followed process and for everyone
 * else, and end with the target's last moments (last.h) and whether its
 * frame pointers held (fpcheck.h); the timeline's draws the target's
 * samples as a flame chart in time, one track per thread, each sample a
 * stack of nested slices. They show what the records hold, samples and
 * switches, so a backend the reader does not know gets them too (its
 * switches, and what samples its perf.data has), all but the counting.
 */
#ifndef PTBPF_DUMP_SAMPSHOW_H
#define PTBPF_DUMP_SAMPSHOW_H

#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "snap.h"
#include "sumpart.h"
#include "symtab.h"
#include "tlout.h"

struct pt_image;

/*
 * Counts core @c's samples into @sum (zeroed): the target's per thread, a
 * followed process's per process (the first DUMP_SUM_THREADS of each),
 * and the others. Returns 0.
 */
int sampshow_core_sum(const struct dump_snap *s, const struct dump_core *c,
		      struct dump_core_sum *sum, struct dump_log *log);

/*
 * One core's samples from @sum: a line of text, or a "samples" member of
 * the core's JSON object. The span is left to the end parts.
 */
void sampshow_core_text(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
			uint64_t *first, uint64_t *last);
void sampshow_core_json(struct json *j, const struct dump_snap *s, const struct dump_core_sum *sum,
			uint64_t *first, uint64_t *last);

/*
 * After the cores: the target's span, hottest functions and last samples
 * before a stop or fatal cause, named from @tab (may be NULL), and as
 * text whether its frame-pointer chains held. @first and @last are not
 * used: the span is the samples' own.
 *
 * Return 0, or -ENOMEM.
 */
int sampshow_end_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		      uint64_t first, uint64_t last);
int sampshow_end_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		      uint64_t first, uint64_t last);

/*
 * The target's samples on its threads' tracks of @w, each thread on a
 * stream of its own, the frames named from @tab; frames that consecutive
 * samples share stay one slice. @image and @log are not used.
 *
 * Returns 0, or -ENOMEM.
 */
int sampshow_timeline(struct tl_writer *w, const struct dump_snap *s, struct pt_image *image,
		      const struct dump_symtab *tab, struct dump_log *log);

#endif /* PTBPF_DUMP_SAMPSHOW_H */
