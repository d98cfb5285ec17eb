// SPDX-License-Identifier: GPL-2.0
/* Snapshot summaries: see summary.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "snapfmt.h"
#include "symtab.h"
#include "last.h"
#include "backtrace.h"
#include "fpcheck.h"
#include "procsum.h"
#include "summary.h"
#include "signals.h"
#include "fmtnum.h"
#include "textesc.h"

static void count_proc(struct dump_core_sum *sum, uint32_t pid)
{
	unsigned int k;

	sum->followed_samples++;
	for (k = 0; k < sum->nr_procs; k++)
		if (sum->procs[k].pid == pid)
			break;
	if (k == sum->nr_procs) {
		if (k == DUMP_SUM_THREADS)
			return;
		sum->procs[k].pid = pid;
		sum->procs[k].samples = 0;
		sum->nr_procs++;
	}
	sum->procs[k].samples++;
}

static int summary_sample_core(const struct dump_snap *s, const struct dump_core *c,
			       struct dump_core_sum *sum, struct dump_log *log)
{
	const struct dump_sample *smp;
	unsigned int k;
	size_t i;

	for (i = 0; i < c->nr_samples; i++) {
		smp = &c->samples[i];
		if (smp->pid != s->pid) {
			/* another process of the run, or one not traced */
			if (snap_followed(s, smp->pid))
				count_proc(sum, smp->pid);
			else
				sum->other_samples++;
			continue;
		}
		sum->target_samples++;
		for (k = 0; k < sum->nr_threads; k++)
			if (sum->threads[k].tid == smp->tid)
				break;
		if (k == sum->nr_threads) {
			if (k == DUMP_SUM_THREADS)
				continue;
			sum->threads[k].tid = smp->tid;
			sum->threads[k].samples = 0;
			sum->nr_threads++;
		}
		sum->threads[k].samples++;
	}
	(void)log;
	return 0;
}

static int summary_pt_core(const struct dump_snap *s, const struct dump_core *c,
			   struct dump_core_sum *sum, struct dump_log *log)
{
	struct pt_config cfg;
	int ret;

	ptpkt_config(s, c->trace, c->trace_len, &cfg);
	ret = ptpkt_scan(&cfg, &sum->pt, NULL, NULL, NULL);
	if (ret)
		return ret;
	sum->decodes = sum->pt.has_psb && !sum->pt.errors;
	if (c->trace_len && !sum->pt.has_psb)
		snap_error(log, c->trace_file, (int64_t)c->trace_off,
			   "cpu %d: no PSB in %zu bytes of trace", c->cpu, c->trace_len);
	if (sum->pt.errors)
		snap_error(log, c->trace_file, (int64_t)(c->trace_off + sum->pt.first_error_off),
			   "cpu %d: %" PRIu64 " packet errors, the first at "
			   "trace offset 0x%" PRIx64 ": %s",
			   c->cpu, sum->pt.errors, sum->pt.first_error_off, sum->pt.first_error);
	return 0;
}

static void print_time(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000, ns % 1000000000);
}

static void pt_range(const struct dump_snap *s, const struct dump_core_sum *sum, uint64_t *first,
		     uint64_t *last);

static void summary_pt_text(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
			    uint64_t *first, uint64_t *last)
{
	const struct dump_pt_stats *st = &sum->pt;
	const char *sep = "";
	int k;

	pt_range(s, sum, first, last);
	fprintf(out, "    packets %" PRIu64 ":", st->packets);
	for (k = 0; k < DUMP_PT_KINDS; k++) {
		if (!st->kinds[k])
			continue;
		fprintf(out, "%s %s %" PRIu64, sep, ptpkt_kind_name(k), st->kinds[k]);
		sep = ",";
	}
	fprintf(out, "\n    psb %" PRIu64 ", ovf %" PRIu64, st->psb, st->ovf);
	if (st->head_skipped)
		fprintf(out, ", %" PRIu64 " bytes before the first PSB", st->head_skipped);
	fputc('\n', out);
	if (st->has_tsc) {
		fprintf(out, "    tsc 0x%" PRIx64 " .. 0x%" PRIx64 " (", st->first_tsc,
			st->last_tsc);
		print_time(out, snap_tsc_to_ns(&s->conv, st->first_tsc));
		fputs(" .. ", out);
		print_time(out, snap_tsc_to_ns(&s->conv, st->last_tsc));
		fprintf(out, "%s)\n", s->conv.valid ? "" : ", no conversion");
	}
	if (sum->decodes)
		fputs("    decodes: yes\n", out);
	else if (!st->has_psb)
		fputs("    decodes: no (no PSB)\n", out);
	else
		fprintf(out,
			"    decodes: no (%" PRIu64 " errors, the first at "
			"0x%" PRIx64 ": %s)\n",
			st->errors, st->first_error_off, st->first_error);
}

static void summary_sample_text(FILE *out, const struct dump_snap *s,
				const struct dump_core_sum *sum, uint64_t *first, uint64_t *last)
{
	unsigned int k;

	(void)s;
	(void)first;
	(void)last;
	fprintf(out, "    samples: target %" PRIu64, sum->target_samples);
	for (k = 0; k < sum->nr_threads; k++)
		fprintf(out, "%s %u: %" PRIu64, k ? ", tid" : " (tid", sum->threads[k].tid,
			sum->threads[k].samples);
	if (sum->nr_procs) {
		fprintf(out, "%s, followed %" PRIu64, sum->nr_threads ? ")" : "",
			sum->followed_samples);
		for (k = 0; k < sum->nr_procs; k++)
			fprintf(out, "%s %u: %" PRIu64, k ? ", pid" : " (pid", sum->procs[k].pid,
				sum->procs[k].samples);
	}
	fprintf(out, "%s, others %" PRIu64 "\n", sum->nr_procs || sum->nr_threads ? ")" : "",
		sum->other_samples);
}

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
		print_time(out, ns);
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

/* intel-pt: the span of switches and of each core's TSC range. */
static int summary_pt_end_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
			       uint64_t first, uint64_t last)
{
	char a[48], b[48];

	(void)tab;
	last_snap_span(s, &first, &last);
	if (first > last) {
		fputs("  span: no timed records\n", out);
		return 0;
	}
	fprintf(out,
		"  span: %s .. %s (%.3f ms), ending %+.3f ms from the "
		"trigger\n",
		last_time_str(s, first, a, sizeof(a)), last_time_str(s, last, b, sizeof(b)),
		(double)(last - first) / 1e6, ((double)last - (double)s->cause_ts) / 1e6);
	return 0;
}

static void pt_range(const struct dump_snap *s, const struct dump_core_sum *sum, uint64_t *first,
		     uint64_t *last)
{
	uint64_t a, b;

	if (!sum->pt.has_tsc)
		return;
	a = snap_tsc_to_ns(&s->conv, sum->pt.first_tsc);
	b = snap_tsc_to_ns(&s->conv, sum->pt.last_tsc);
	if (a < *first)
		*first = a;
	if (b > *last)
		*last = b;
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

static void summary_pt_json(struct json *j, const struct dump_snap *s,
			    const struct dump_core_sum *sum, uint64_t *first, uint64_t *last)
{
	const struct dump_pt_stats *st = &sum->pt;
	int k;

	pt_range(s, sum, first, last);
	json_u64(j, "psb", st->psb);
	json_u64(j, "ovf", st->ovf);
	json_u64(j, "skipped_before_psb", st->head_skipped);
	json_obj_begin(j, "packets");
	for (k = 0; k < DUMP_PT_KINDS; k++)
		if (st->kinds[k])
			json_u64(j, ptpkt_kind_name(k), st->kinds[k]);
	json_obj_end(j);
	if (st->has_tsc) {
		json_u64(j, "first_tsc", st->first_tsc);
		json_u64(j, "last_tsc", st->last_tsc);
		json_u64(j, "first_time_ns", snap_tsc_to_ns(&s->conv, st->first_tsc));
		json_u64(j, "last_time_ns", snap_tsc_to_ns(&s->conv, st->last_tsc));
	}
	json_bool(j, "decodes", sum->decodes);
	json_u64(j, "errors", st->errors);
	if (st->errors) {
		json_u64(j, "first_error_offset", st->first_error_off);
		json_str(j, "first_error", st->first_error);
	}
}

static void summary_sample_json(struct json *j, const struct dump_snap *s,
				const struct dump_core_sum *sum, uint64_t *first, uint64_t *last)
{
	unsigned int k;

	(void)s;
	(void)first;
	(void)last;
	json_obj_begin(j, "samples");
	json_u64(j, "target", sum->target_samples);
	json_u64(j, "others", sum->other_samples);
	json_u64(j, "followed", sum->followed_samples);
	json_arr_begin(j, "processes");
	for (k = 0; k < sum->nr_procs; k++) {
		json_obj_begin(j, NULL);
		json_u64(j, "pid", sum->procs[k].pid);
		json_u64(j, "samples", sum->procs[k].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "threads");
	for (k = 0; k < sum->nr_threads; k++) {
		json_obj_begin(j, NULL);
		json_u64(j, "tid", sum->threads[k].tid);
		json_u64(j, "samples", sum->threads[k].samples);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
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

/* intel-pt: the span of switches and of each core's TSC range. */
static int summary_pt_end_json(struct json *j, const struct dump_snap *s,
			       const struct dump_symtab *tab, uint64_t first, uint64_t last)
{
	(void)tab;
	if (last_snap_span(s, &first, &last)) {
		json_u64(j, "first_ns", first);
		json_u64(j, "last_ns", last);
	}
	return 0;
}

/* sample: the target's last moments, and whether its frame pointers held */
static int summary_sample_end_text(FILE *out, const struct dump_snap *s,
				   const struct dump_symtab *tab, uint64_t first, uint64_t last)
{
	int ret = last_text(out, s, tab, DUMP_SUM_LAST);

	(void)first;
	(void)last;
	if (!ret)
		fpcheck_text(out, s, tab);
	return ret;
}

static int summary_sample_end_json(struct json *j, const struct dump_snap *s,
				   const struct dump_symtab *tab, uint64_t first, uint64_t last)
{
	(void)first;
	(void)last;
	return last_json(j, s, tab, DUMP_SUM_LAST) ? -ENOMEM : 0;
}

/*
 * The backends' parts of the summary, one row each (their facts are
 * dumpbe.c's rows): intel-pt scans the packets and widens the span by
 * their TSC range, sample counts each thread's samples and ends with the
 * target's last moments (last.h) and its frame-pointer check (fpcheck.h).
 * They are here, not in dumpbe.c's rows: rows that named them made
 * dumpbe.c depend on the summary, and so on the modules it uses, some of
 * which (last.c, procsum.c) ask dumpbe.c's facts. A new backend is one more
 * row.
 */
struct summary_part {
	/* Core @c's summary into @sum (zeroed); NULL: nothing to count */
	int (*core_sum)(const struct dump_snap *s, const struct dump_core *c,
			struct dump_core_sum *sum, struct dump_log *log);
	/*
	 * The summary's lines (members) of one core from @sum, widening the
	 * snapshot's span [*@first, *@last] where the trace has times.
	 */
	void (*core_text)(FILE *out, const struct dump_snap *s, const struct dump_core_sum *sum,
			  uint64_t *first, uint64_t *last);
	void (*core_json)(struct json *j, const struct dump_snap *s,
			  const struct dump_core_sum *sum, uint64_t *first, uint64_t *last);
	/* After the cores, with their span; 0 or -ENOMEM */
	int (*end_text)(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
			uint64_t first, uint64_t last);
	int (*end_json)(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
			uint64_t first, uint64_t last);
};

static const struct summary_part parts[] = {
	[BACKEND_INTEL_PT] = {
		.core_sum = summary_pt_core,
		.core_text = summary_pt_text,
		.core_json = summary_pt_json,
		.end_text = summary_pt_end_text,
		.end_json = summary_pt_end_json,
	},
	[BACKEND_SAMPLE] = {
		.core_sum = summary_sample_core,
		.core_text = summary_sample_text,
		.core_json = summary_sample_json,
		.end_text = summary_sample_end_text,
		.end_json = summary_sample_end_json,
	},
};

/*
 * A backend this reader does not know: nothing counted, the records shown
 * as records (switches, and any sample the perf.data has).
 */
static const struct summary_part unknown = {
	.core_text = summary_sample_text,
	.core_json = summary_sample_json,
	.end_text = summary_sample_end_text,
	.end_json = summary_sample_end_json,
};

static const struct summary_part *part_of(enum ptbpf_backend b)
{
	if ((unsigned int)b < sizeof(parts) / sizeof(parts[0]) && parts[b].core_sum)
		return &parts[b];
	return &unknown;
}

int summary_core(const struct dump_snap *s, const struct dump_core *c, struct dump_core_sum *sum,
		 struct dump_log *log)
{
	const struct summary_part *part = part_of(s->backend);

	memset(sum, 0, sizeof(*sum));
	return part->core_sum ? part->core_sum(s, c, sum, log) : 0;
}

int summary_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log)
{
	const struct summary_part *part = part_of(s->backend);
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
		part->core_text(out, s, &sum, &first, &last);
	}
	ret = part->end_text(out, s, tab, first, last);
	if (ret)
		return ret;
	/* --follow: every other process of the run, each as its own */
	return procsum_text(out, s);
}

int summary_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab,
		 struct dump_log *log)
{
	const struct summary_part *part = part_of(s->backend);
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
		part->core_json(j, s, &sum, &first, &last);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (part->end_json(j, s, tab, first, last))
		return -ENOMEM;
	if (procsum_json(j, s))
		return -ENOMEM;
	json_obj_end(j);
	return j->err == -ENOMEM ? -ENOMEM : 0;
}
