/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How an intel-pt snapshot shows in the outputs: its parts of the summary
 * and of the timeline, which its row in dumpbe.c names (see dumpbe.h for
 * what each part is given and returns). The summary's scan each core's
 * packets, say whether they decode and widen the snapshot's span by their
 * first and last TSC; the timeline's decodes each core's trace into calls
 * and returns, a stack of nested slices per run of a thread on a core.
 */
#ifndef PTBPF_DUMP_PTSHOW_H
#define PTBPF_DUMP_PTSHOW_H

#include <stdint.h>
#include <stdio.h>
#include <intel-pt.h>

#include "json.h"
#include "snap.h"
#include "sumpart.h"
#include "symtab.h"
#include "tlout.h"

/*
 * Counts core @c's packets into @sum (zeroed). A trace without a PSB or
 * with packet errors is reported to @log (file, offset, why).
 *
 * Returns 0.
 * Returns -ENOMEM if libipt cannot allocate its decoder.
 */
int ptshow_core_sum(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		    struct dump_log *log);

/*
 * One core's packets, TSC range and whether they decode, from @sum: lines
 * of text, or members of the core's JSON object. Widens [*@first, *@last]
 * by the TSC range as perf time.
 */
void ptshow_core_text(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
		      uint64_t *first, uint64_t *last);
void ptshow_core_json(struct json *j, const struct dump_snap *s, const struct dump_core_sum *sum,
		      uint64_t *first, uint64_t *last);

/*
 * After the cores: the span of the cores' TSC ranges [@first, @last] and
 * of the switch records. Return 0.
 */
int ptshow_end_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		    uint64_t first, uint64_t last);
int ptshow_end_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		    uint64_t first, uint64_t last);

/*
 * Each core's trace decoded over @image, its calls and returns as slices
 * named from @tab on the threads' tracks of @w, each core on a stream of
 * its own. Decoding errors go to @log and end the open slices there.
 *
 * Returns 0, also when there were decoding errors.
 * Returns -EINVAL if @image or @tab is NULL.
 * Returns -ENOMEM if memory runs out.
 */
int ptshow_timeline(struct tl_writer *w, const struct dump_snap *s, struct pt_image *image,
		    const struct dump_symtab *tab, struct dump_log *log);

#endif /* PTBPF_DUMP_PTSHOW_H */
