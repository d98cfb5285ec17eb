/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a snapshot directory looks like, as ptbpf writes it and ptbpf-dump
 * reads it: the name of each snapshot (snapshot-NNNNNN, numbered from 1 in
 * the order taken), the files inside one, and the names the files give the
 * backends. The one place these names are spelled.
 */
#ifndef PTBPF_SNAPFMT_H
#define PTBPF_SNAPFMT_H

#include <inttypes.h>

#include "snapdata.h"

/*
 * A snapshot directory is SNAPFMT_PREFIX and its number in at least six
 * digits: snapshot-000001 to snapshot-999999, then snapshot-1000000 and on
 * (numbering carries over between runs, so a long-lived unit gets past six
 * digits). The names no longer sort by number: order by
 * snapfmt_compare_names(). SNAPFMT_ID_MAX, twelve digits, keeps a number
 * exact in a JSON number read as a double (below 2^53) and a name within
 * the short buffers that spell it.
 */
#define SNAPFMT_PREFIX "snapshot-"
#define SNAPFMT_NAME_FMT SNAPFMT_PREFIX "%06" PRIu64
#define SNAPFMT_ID_MAX 999999999999ULL

/* Files of an output directory and of a snapshot directory. */
#define SNAPFMT_EVENTS "events.jsonl"
#define SNAPFMT_PTBPF_JSON "ptbpf.json"
#define SNAPFMT_PERF_DATA "perf.data"
#define SNAPFMT_TRACE_JSON "trace.json"
#define SNAPFMT_CPUS_DIR "cpus"
#define SNAPFMT_IPT_SUFFIX "intelpt_trace"
#define SNAPFMT_SWITCH_SUFFIX "perf_context_switch_trace"
/* the image of the target's [vdso] (an ELF shared object), when saved */
#define SNAPFMT_VDSO "vdso.so"

/*
 * Returns the id of the snapshot directory named @name: SNAPFMT_PREFIX and
 * the id written as SNAPFMT_NAME_FMT writes it, 1 to SNAPFMT_ID_MAX.
 * Returns 0 for any other name (and for NULL).
 */
uint64_t snapfmt_parse_name(const char *name);

/*
 * Orders two snapshot directory names @a and @b by their numbers
 * (snapfmt_parse_name()), so snapshot-999999 comes before
 * snapshot-1000000; a name that is not a snapshot's (number 0) comes first,
 * and two such names are ordered by strcmp().
 *
 * Returns less than, equal to or greater than 0 as @a orders before, with
 * or after @b.
 */
int snapfmt_compare_names(const char *a, const char *b);

/*
 * The name of backend @b (snapfmt.c's table, one name per value of enum
 * ptbpf_backend), or "auto" for BACKEND_AUTO; NULL if unknown.
 */
const char *snapfmt_backend_name(enum ptbpf_backend b);

/*
 * Sets *@b to the backend named @name (a name snapfmt_backend_name()
 * gives, and "auto" when @allow_auto).
 *
 * Returns 0, or -EINVAL for any other name.
 */
int snapfmt_backend_parse(const char *name, bool allow_auto, enum ptbpf_backend *b);

#endif /* PTBPF_SNAPFMT_H */
