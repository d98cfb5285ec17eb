// SPDX-License-Identifier: GPL-2.0
/* Snapshot summaries: see summary.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "snapfmt.h"
#include "symtab.h"
#include "backtrace.h"
#include "dumpbe.h"
#include "procsum.h"
#include "summary.h"
#include "signals.h"
#include "fmtnum.h"
#include "textesc.h"

/*
 * CLOCK_MONOTONIC @ns as the time of day (local time), by the snapshot's
 * clock pair, with the offset from the run's start; without a pair, the
 * monotonic seconds.
 */
static void print_when(FILE *out, const struct dump_snap *s, uint64_t ns)
{
	uint64_t real = s->realtime_ns + ns - s->monotonic_ns;
	time_t secs = (time_t)(real / 1000000000);
	char when[48];
	struct tm tm;

	if (!s->realtime_ns || !localtime_r(&secs, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm)) {
		sumpart_print_ns(out, ns);
		return;
	}
	fprintf(out, "%s.%06" PRIu64, when, real % 1000000000 / 1000);
	if (s->run_start_ns && ns >= s->run_start_ns)
		fprintf(out, " (+%.6f s)", (ns - s->run_start_ns) / 1e9);
}

/*
 * "  stopped: tid 12, breakpoint, si_code 128 (SI_KERNEL), at
 * report+0x4 (0x401136)": the function from the snapshot's modules.
 */
static void text_cause(FILE *out, const struct dump_snap *s)
{
	struct dump_log quiet = { NULL, 0 }; /* a module missing is no error here */
	const char *code;
	int sig;
	struct dump_symtab tab;
	char at[160];

	if (!s->ip && !s->stop_kind[0] && !s->has_addr)
		return;
	sig = signals_number(s->signal);
	/* --trigger-on: the target reached a function, it did not stop */
	fprintf(out, "  %s:",
		s->cause_kind == SNAPCAUSE_FATAL ? "fault" :
		s->cause_kind == SNAPCAUSE_HIT	 ? "hit" :
						   "stopped");
	if (s->cause_tid)
		fprintf(out, " tid %u,", s->cause_tid);
	if (s->stop_kind[0]) {
		fputc(' ', out);
		textesc_fputs(s->stop_kind, out);
		fputc(',', out);
	}
	if (s->has_si_code) {
		code = signals_code_name(sig, s->si_code);
		fprintf(out, " si_code %d%s%s%s,", s->si_code, code ? " (" : "", code ? code : "",
			code ? ")" : "");
	}
	if (s->ip) {
		memset(&tab, 0, sizeof(tab));
		symtab_load(&tab, s, NULL, &quiet);
		fprintf(out, " at %s (0x%" PRIx64 ")", symtab_format(&tab, s->ip, at, sizeof(at)),
			s->ip);
		symtab_free(&tab);
	}
	if (s->has_addr)
		fprintf(out, ", fault address 0x%" PRIx64, s->addr);
	if (s->folded_stops)
		fprintf(out, ", %" PRIu64 " earlier stop%s folded in", s->folded_stops,
			s->folded_stops == 1 ? "" : "s");
	if (s->folded_hits)
		fprintf(out, ", %" PRIu64 " earlier hit%s folded in", s->folded_hits,
			s->folded_hits == 1 ? "" : "s");
	fputc('\n', out);
}

/*
 * What the kernel's AUX flags said of core @c's window, when anything:
 * PT data lost inside it (truncated, collided with another user, partial),
 * and PT records it dropped (then those facts are incomplete).
 */
static void text_aux(FILE *out, const struct dump_core *c)
{
	const struct {
		const char *what;
		uint64_t n;
	} f[] = {
		{ "truncated", c->aux_truncated },
		{ "collision", c->aux_collision },
		{ "partial", c->aux_partial },
	};
	const char *sep = "";
	unsigned int i;

	if (!c->aux_truncated && !c->aux_collision && !c->aux_partial && !c->aux_records_lost)
		return;
	fprintf(out, "  cpu %d: PT data lost in the window:", c->cpu);
	for (i = 0; i < 3; i++) {
		if (!f[i].n)
			continue;
		fprintf(out, "%s %s %" PRIu64 " time%s", sep, f[i].what, f[i].n,
			f[i].n == 1 ? "" : "s");
		sep = ",";
	}
	if (c->aux_records_lost)
		fprintf(out, "%s %" PRIu64 " AUX records dropped by the kernel (unknown)", sep,
			c->aux_records_lost);
	fputc('\n', out);
}

static void json_head(struct json *j, const struct dump_snap *s)
{
	char hex[24];

	json_str(j, "dir", s->dir);
	json_u64(j, "snapshot", s->id);
	json_str(j, "backend", snapfmt_backend_name(s->backend));
	json_str(j, "trigger", s->cause);
	if (s->signal[0])
		json_str(j, "signal", s->signal);
	else
		json_null(j, "signal");
	json_u64(j, "trigger_ts", s->cause_ts);
	if (s->stop_kind[0])
		json_str(j, "stop_kind", s->stop_kind);
	if (s->cause_tid)
		json_u64(j, "trigger_tid", s->cause_tid);
	if (s->has_si_code)
		json_i64(j, "si_code", s->si_code);
	if (s->ip)
		json_str(j, "ip", fmt_addr(s->ip, hex, sizeof(hex)));
	if (s->has_addr)
		json_str(j, "addr", fmt_addr(s->addr, hex, sizeof(hex)));
	if (s->folded_stops)
		json_u64(j, "folded_stops", s->folded_stops);
	if (s->folded_hits)
		json_u64(j, "folded_hits", s->folded_hits);
	if (s->realtime_ns)
		json_u64(j, "trigger_realtime_ns", s->realtime_ns + s->cause_ts - s->monotonic_ns);
	json_u64(j, "pid", s->pid);
	json_str(j, "comm", s->comm);
}

int summary_core(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		 struct dump_log *log)
{
	const struct dump_backend *be = dump_backend(s->backend);

	memset(sum, 0, sizeof(*sum));
	return be->core_sum ? be->core_sum(s, c, sum, log) : 0;
}

int summary_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log)
{
	const struct dump_backend *be = dump_backend(s->backend);
	const char *name = snapfmt_backend_name(s->backend);
	uint64_t first = UINT64_MAX, last = 0;
	struct dump_core_sum sum;
	const struct dump_core *c;
	unsigned int i;
	int ret;

	/* what the snapshot says, the target's comm above all: shown, never sent */
	textesc_fputs(s->dir, out);
	fprintf(out, ": snapshot %" PRIu64 ", %s, trigger ", s->id,
		name ? name : "unknown backend");
	textesc_fputs(s->cause[0] ? s->cause : "?", out);
	if (s->signal[0]) {
		fputs(" (", out);
		textesc_fputs(s->signal, out);
		fputc(')', out);
	}
	fputs(" at ", out);
	print_when(out, s, s->cause_ts);
	fprintf(out, ", pid %u (", s->pid);
	textesc_fputs(s->comm, out);
	fputs(")\n", out);
	text_cause(out, s);
	/* a [vdso] the snapshot has no image of: frames there stay unnamed */
	if (s->vdso && s->vdso[0] && strcmp(s->vdso, SNAPFMT_VDSO)) {
		fputs("  [vdso]: ", out);
		textesc_fputs(s->vdso, out);
		fputc('\n', out);
	}
	/* what a crash is read for first: how it got there */
	ret = backtrace_text(out, s, tab);
	if (ret)
		return ret;
	for (i = 0; i < s->nr_cores; i++) {
		c = &s->cores[i];
		ret = summary_core(s, c, &sum, log);
		if (ret)
			return ret;
		fprintf(out,
			"  cpu %d: %" PRIu64 " bytes, sideband %" PRIu64
			" bytes, wrapped %s, lost %" PRIu64 " bytes, "
			"%zu context switches",
			c->cpu, c->bytes, c->sideband_bytes, c->wrapped ? "yes" : "no",
			c->lost_bytes, c->nr_sw - c->nr_starts);
		if (c->sb_wrapped)
			fprintf(out, " (switch records lost: %" PRIu64 " bytes)", c->sb_lost_bytes);
		fputc('\n', out);
		text_aux(out, c);
		be->core_text(out, s, &sum, &first, &last);
	}
	ret = be->end_text(out, s, tab, first, last);
	if (ret)
		return ret;
	/* --follow: every other process of the run, each as its own */
	return procsum_text(out, s);
}

int summary_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log)
{
	const struct dump_backend *be = dump_backend(s->backend);
	uint64_t first = UINT64_MAX, last = 0;
	struct dump_core_sum sum;
	const struct dump_core *c;
	unsigned int i;
	int ret;

	json_obj_begin(j, NULL);
	json_head(j, s);
	if (backtrace_json(j, s, tab))
		return -ENOMEM;
	json_arr_begin(j, "cores");
	for (i = 0; i < s->nr_cores; i++) {
		c = &s->cores[i];
		ret = summary_core(s, c, &sum, log);
		if (ret)
			return ret;
		json_obj_begin(j, NULL);
		json_i64(j, "cpu", c->cpu);
		json_u64(j, "bytes", c->bytes);
		json_u64(j, "sideband_bytes", c->sideband_bytes);
		json_bool(j, "wrapped", c->wrapped);
		json_u64(j, "lost_bytes", c->lost_bytes);
		json_bool(j, "sideband_wrapped", c->sb_wrapped);
		json_u64(j, "sideband_lost_bytes", c->sb_lost_bytes);
		json_u64(j, "context_switches", c->nr_sw - c->nr_starts);
		json_u64(j, "aux_truncated", c->aux_truncated);
		json_u64(j, "aux_collision", c->aux_collision);
		json_u64(j, "aux_partial", c->aux_partial);
		json_u64(j, "aux_records_lost", c->aux_records_lost);
		be->core_json(j, s, &sum, &first, &last);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (be->end_json(j, s, tab, first, last))
		return -ENOMEM;
	if (procsum_json(j, s))
		return -ENOMEM;
	json_obj_end(j);
	return j->err == -ENOMEM ? -ENOMEM : 0;
}
