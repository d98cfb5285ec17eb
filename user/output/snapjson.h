/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot's facts as JSON, for the two places they go: the "snapshot"
 * line of events.jsonl (snapqueue.c) and ptbpf.json (ptbpfjson.c). A key
 * means the same fact under the same rule in both; what only one holds is
 * said at its function.
 */
#ifndef PTBPF_SNAPJSON_H
#define PTBPF_SNAPJSON_H

#include <stdint.h>

#include "json.h"
#include "base/snapshot.h"

/*
 * The bytes staged on @s's cores (trace and sideband); *@lost, *@pause_max
 * and *@pause_sum get the bytes lost and the longest and summed pauses.
 */
uint64_t snapjson_staged(const struct snapshot *s, uint64_t *lost, uint64_t *pause_max,
			 uint64_t *pause_sum);

/*
 * What asked for @s, in both places: "trigger", "signal" (SIGxxx or
 * null), "trigger_ts", and when known "trigger_pid", "trigger_tid",
 * "stop_kind", "si_code", "ip", "addr" (hex), "folded_stops" and
 * "folded_hits" (when not 0); a --trigger-on snapshot's "hit": "spec",
 * "symbol", "object", "point", the hit's "tid", "ip" and "ts" again (the
 * hit whole on its own), and how the data ends at the hit ("cut",
 * "after_hit_ns", "cut_records", "cut_bytes").
 */
void snapjson_cause(struct json *j, const struct snapshot *s);

/*
 * The body of events.jsonl's "snapshot" line for @s, written at @path in
 * @write_ns: "snapshot", "path", the cause (snapjson_cause), and the
 * line's own sums over the cores, which ptbpf.json gives core by core
 * instead: "bytes", "lost_bytes", "wrapped", "sideband_wrapped",
 * "sideband_lost_bytes", "pt_records_lost" (intel-pt), "paused_max_ns",
 * "paused_total_ns", "copy_max_ns", and "write_ns".
 */
void snapjson_line(struct json *j, const struct snapshot *s, const char *path, uint64_t write_ns);

#endif /* PTBPF_SNAPJSON_H */
