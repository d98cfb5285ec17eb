/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data and context-switch records, read back into a snapshot's model
 * (snap.h). Only what ptbpf writes is understood; every length and offset
 * comes from the file and is checked against the buffer before use.
 */
#ifndef PTBPF_DUMP_PERFREAD_H
#define PTBPF_DUMP_PERFREAD_H

#include <stdint.h>

#include "snap.h"

/*
 * Parses the perf.data image @buf of @len bytes (which @s takes over, as
 * malloc'd, or mapped when the caller sets perf_mapped after: cores'
 * traces point into it): attrs, samples, context switches, MMAP2
 * (modules), AUXTRACE (each core's PT bytes). A malformed record ends the
 * walk with a message naming its offset; what came before is kept.
 *
 * Returns 0, or -EBADMSG if the header or attrs are unusable (reported).
 */
int perfread_parse(struct dump_snap *s, uint8_t *buf, size_t len, const char *file,
		   struct dump_log *log);

/*
 * Parses a stream of context-switch records of @len bytes as the kernel
 * writes them with sample IDs of @type (PERF_SAMPLE_*), appending them to
 * @core. Used for cpus/N.perf_context_switch_trace (TID|TIME).
 *
 * Returns 0, or -EBADMSG at a malformed record (reported at its offset).
 */
int perfread_switches(struct dump_core *core, const uint8_t *buf, size_t len, uint64_t type,
		      const char *file, struct dump_log *log);

/*
 * The user call stack of @smp into @ips (@max entries), innermost first:
 * the sampled IP, then each caller's return address minus one (inside the
 * call instruction, so it names the caller even after a noreturn call).
 * Context markers and kernel frames are left out. Returns the count.
 */
size_t perfread_sample_stack(const struct dump_sample *smp, uint64_t *ips, size_t max);

#endif /* PTBPF_DUMP_PERFREAD_H */
