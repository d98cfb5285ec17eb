// SPDX-License-Identifier: GPL-2.0
/* A snapshot's facts as JSON: see snapjson.h. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "collect/backend.h"
#include "fmtnum.h"
#include "snapkeys.h"
#include "snapjson.h"

uint64_t snapjson_staged(const struct snapshot *s, uint64_t *lost, uint64_t *pause_max,
			 uint64_t *pause_sum)
{
	uint64_t bytes = 0;
	unsigned int i;

	*lost = *pause_max = *pause_sum = 0;
	for (i = 0; i < s->nr_cores; i++) {
		const struct snap_core *c = &s->cores[i];

		bytes += c->trace_len + c->sideband_len;
		*lost += c->lost_bytes;
		*pause_sum += c->paused_ns;
		if (c->paused_ns > *pause_max)
			*pause_max = c->paused_ns;
	}
	return bytes;
}

/* --trigger-on: the point, and how the data was made to end at its hit. */
static void hit_json(struct json *j, const struct snapshot *s)
{
	const struct snap_cause *cause = &s->why;
	char hex[24];

	json_obj_begin(j, "hit");
	json_str(j, "spec", cause->spec);
	if (cause->symbol)
		json_str(j, "symbol", cause->symbol);
	if (cause->object)
		json_str(j, "object", cause->object);
	json_u64(j, "point", cause->point);
	/* the hit whole on its own, as ptbpf.json always had it */
	json_u64(j, "tid", cause->tid);
	json_str(j, "ip", fmt_addr(cause->ip, hex, sizeof(hex)));
	json_u64(j, "ts", cause->ts);
	if (s->cut.how) {
		json_str(j, "cut", s->cut.how);
		json_u64(j, "after_hit_ns", s->cut.after_hit_ns);
		json_u64(j, "cut_records", s->cut.records);
		json_u64(j, "cut_bytes", s->cut.bytes);
	}
	json_obj_end(j);
}

void snapjson_cause(struct json *j, const struct snapshot *s)
{
	const struct snap_cause *cause = &s->why;
	const char *abbrev = cause->sig > 0 ? sigabbrev_np(cause->sig) : NULL;
	char hex[24], sig[32];

	json_str(j, SNAPKEY_CAUSE, snapcause_name(cause->kind));
	if (abbrev) {
		snprintf(sig, sizeof(sig), "SIG%s", abbrev);
		json_str(j, SNAPKEY_SIGNAL, sig);
	} else {
		json_null(j, SNAPKEY_SIGNAL);
	}
	json_u64(j, SNAPKEY_CAUSE_TS, cause->ts);
	/* --follow: the process the stop or fault was in */
	if (cause->pid)
		json_u64(j, SNAPKEY_CAUSE_PID, cause->pid);
	if (cause->tid)
		json_u64(j, SNAPKEY_CAUSE_TID, cause->tid);
	if (cause->stop_kind)
		json_str(j, SNAPKEY_STOP_KIND, cause->stop_kind);
	if (cause->has_si_code)
		json_i64(j, SNAPKEY_SI_CODE, cause->si_code);
	if (cause->ip)
		json_str(j, SNAPKEY_IP, fmt_addr(cause->ip, hex, sizeof(hex)));
	if (cause->has_addr)
		json_str(j, SNAPKEY_ADDR, fmt_addr(cause->addr, hex, sizeof(hex)));
	if (cause->folded)
		json_u64(j, SNAPKEY_FOLDED_STOPS, cause->folded);
	if (cause->folded_hits)
		json_u64(j, SNAPKEY_FOLDED_HITS, cause->folded_hits);
	if (cause->spec)
		hit_json(j, s);
}

/* The longest copy of one core's rings: the cost a snapshot can't avoid. */
static uint64_t copy_max(const struct snapshot *s)
{
	uint64_t max = 0;
	unsigned int i;

	for (i = 0; i < s->nr_cores; i++)
		if (s->cores[i].copy_ns > max)
			max = s->cores[i].copy_ns;
	return max;
}

void snapjson_line(struct json *j, const struct snapshot *s, const char *path, uint64_t write_ns)
{
	uint64_t lost, pmax, psum, bytes, sb_lost = 0, pt_lost = 0;
	bool wrapped = false, sb_wrapped = false;
	unsigned int i;

	bytes = snapjson_staged(s, &lost, &pmax, &psum);
	for (i = 0; i < s->nr_cores; i++) {
		wrapped |= s->cores[i].wrapped;
		sb_wrapped |= s->cores[i].sb_wrapped;
		sb_lost += s->cores[i].sb_lost_bytes;
		pt_lost += s->cores[i].ptrec_lost;
	}
	json_u64(j, SNAPKEY_SNAPSHOT, s->id);
	json_str(j, "path", path);
	snapjson_cause(j, s);
	json_u64(j, "bytes", bytes);
	json_u64(j, "lost_bytes", lost);
	json_bool(j, "wrapped", wrapped);
	json_bool(j, "sideband_wrapped", sb_wrapped);
	json_u64(j, "sideband_lost_bytes", sb_lost);
	/* records of the PT events the kernel dropped: their AUX flags unknown */
	if (backend_ops(s->run.backend)->aux)
		json_u64(j, "pt_records_lost", pt_lost);
	json_u64(j, "paused_max_ns", pmax);
	json_u64(j, "paused_total_ns", psum);
	json_u64(j, "copy_max_ns", copy_max(s));
	json_u64(j, "write_ns", write_ns);
}
