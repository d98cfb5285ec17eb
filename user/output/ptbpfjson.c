// SPDX-License-Identifier: GPL-2.0
/* ptbpf.json: see ptbpfjson.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "collect/backend.h"
#include "collect/sampling.h"
#include "collect/scope.h"
#include "perfdata.h"
#include "proc/vdso.h"
#include "ptbpfjson.h"
#include "snapfmt.h"
#include "snapjson.h"
#include "snapkeys.h"

#ifndef PTBPF_VERSION
#define PTBPF_VERSION "unknown"
#endif

static void json_hex(struct json *j, const char *key, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);
	json_str(j, key, tmp);
}

static void attr_json(struct json *j, const char *key, const struct perf_event_attr *a)
{
	json_obj_begin(j, key);
	json_u64(j, "type", a->type);
	json_hex(j, SNAPKEY_ATTR_CONFIG, a->config);
	json_hex(j, "config1", a->config1);
	json_hex(j, "config2", a->config2);
	json_hex(j, "sample_type", a->sample_type);
	json_bool(j, "sample_id_all", a->sample_id_all);
	json_bool(j, "exclude_kernel", a->exclude_kernel);
	json_bool(j, "exclude_user", a->exclude_user);
	json_bool(j, "context_switch", a->context_switch);
	json_obj_end(j);
}

static void cores_json(const struct snapshot *s, struct json *j)
{
	const struct snap_core *c;
	unsigned int i;

	json_arr_begin(j, SNAPKEY_CORES);
	for (i = 0; i < s->nr_cores; i++) {
		c = &s->cores[i];
		json_obj_begin(j, NULL);
		json_i64(j, SNAPKEY_CORE_CPU, c->cpu);
		json_u64(j, SNAPKEY_CORE_BYTES, c->trace_len);
		json_u64(j, SNAPKEY_CORE_SIDEBAND_BYTES, c->sideband_len);
		json_bool(j, SNAPKEY_CORE_WRAPPED, c->wrapped);
		json_u64(j, SNAPKEY_CORE_LOST_BYTES, c->lost_bytes);
		json_bool(j, SNAPKEY_CORE_SIDEBAND_WRAPPED, c->sb_wrapped);
		json_u64(j, SNAPKEY_CORE_SIDEBAND_LOST_BYTES, c->sb_lost_bytes);
		json_u64(j, "head", c->head);
		json_u64(j, "tsc", c->tsc);
		json_u64(j, "paused_ns", c->paused_ns);
		json_u64(j, "copy_ns", c->copy_ns);
		/* process scope: the target did not run there, nothing new */
		json_bool(j, "read", !c->unchanged);
		if (backend_ops(s->run.backend)->aux) {
			/* the thread the writer named at the window's start; 0: none */
			json_u64(j, "window_start_tid", c->start_tid);
			/* the kernel's AUX flags in the window: PT data lost there */
			json_obj_begin(j, SNAPKEY_CORE_AUX);
			json_u64(j, SNAPKEY_AUX_TRUNCATED, c->aux_truncated);
			json_u64(j, SNAPKEY_AUX_COLLISION, c->aux_collision);
			json_u64(j, SNAPKEY_AUX_PARTIAL, c->aux_partial);
			json_u64(j, SNAPKEY_AUX_RECORDS_LOST, c->ptrec_lost);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* What libipt's ptxed needs to decode cpus/N.intelpt_trace by hand. */
static void ptxed_json(const struct snapshot *s, struct json *j)
{
	const struct snap_cpu_info *ci = &s->run.cpu_info;
	char args[160], cpu[32];
	int n;

	snprintf(cpu, sizeof(cpu), "%u/%u/%u", ci->family, ci->model, ci->stepping);
	json_obj_begin(j, SNAPKEY_PTXED);
	json_str(j, "cpu", cpu);
	json_bool(j, "mtc", ci->mtc);
	json_u64(j, SNAPKEY_PTXED_MTC_FREQ, ci->mtc_freq);
	json_u64(j, SNAPKEY_PTXED_TSC_CTC_RATIO_N, ci->tsc_ctc_ratio_n);
	json_u64(j, SNAPKEY_PTXED_TSC_CTC_RATIO_D, ci->tsc_ctc_ratio_d);
	json_u64(j, SNAPKEY_PTXED_MAX_NONTURBO_RATIO, ci->max_nonturbo_ratio);
	n = snprintf(args, sizeof(args), "--cpu %s", cpu);
	if (ci->mtc)
		n += snprintf(args + n, sizeof(args) - n, " --mtc-freq %u", ci->mtc_freq);
	if (ci->max_nonturbo_ratio)
		n += snprintf(args + n, sizeof(args) - n, " --nom-freq %u", ci->max_nonturbo_ratio);
	/* CPUID leaf 0x15: eax is the denominator, ebx the numerator */
	if (ci->tsc_ctc_ratio_n && ci->tsc_ctc_ratio_d)
		snprintf(args + n, sizeof(args) - n, " --cpuid-0x15.eax %u --cpuid-0x15.ebx %u",
			 ci->tsc_ctc_ratio_d, ci->tsc_ctc_ratio_n);
	json_str(j, "args", args);
	json_obj_end(j);
}

/*
 * What backs @p's [vdso]: the saved image, or why none does (another
 * ABI's, or not known whose); NULL when there is nothing to say (no [vdso], or ptbpf has no
 * image of its own: a kernel booted with vdso=0 maps none anywhere).
 */
static const char *vdso_backing(const struct ptbpfjson_dir *dir, const struct snap_process *p)
{
	if (p->vdso == SNAP_VDSO_OTHER)
		return "not saved: not a 64-bit x86-64 program, its vDSO is not ptbpf's";
	if (p->vdso == SNAP_VDSO_UNKNOWN)
		return "not saved: executable unreadable at exit, whose vDSO it maps unknown";
	return p->vdso == SNAP_VDSO_NATIVE && dir->vdso ? SNAPFMT_VDSO : NULL;
}

static void proc_json(const struct ptbpfjson_dir *dir, const struct snap_process *p,
		      const char *name, struct json *j)
{
	unsigned int i;

	json_obj_begin(j, name);
	json_u64(j, SNAPKEY_PROC_PID, p->pid);
	json_str(j, SNAPKEY_PROC_COMM, p->comm);
	json_str(j, "exe", p->exe);
	if (vdso_backing(dir, p))
		json_str(j, SNAPKEY_PROC_VDSO, vdso_backing(dir, p));
	json_arr_begin(j, SNAPKEY_PROC_THREADS);
	for (i = 0; i < p->nr_threads; i++) {
		json_obj_begin(j, NULL);
		json_u64(j, SNAPKEY_THREAD_TID, p->threads[i].tid);
		json_str(j, SNAPKEY_THREAD_COMM, p->threads[i].comm);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/*
 * The crash record: whose, when, where it was taken, and its size; the
 * registers and the stack themselves are perf.data's crash sample.
 */
static void crash_json(const struct snapshot *s, struct json *j)
{
	const struct snap_crash *k = &s->crash;
	char hex[24];

	json_obj_begin(j, SNAPKEY_CRASH);
	json_u64(j, "pid", k->pid);
	json_u64(j, "tid", k->tid);
	json_u64(j, "ts", k->ts);
	json_str(j, SNAPKEY_CRASH_AT, k->at);
	snprintf(hex, sizeof(hex), "0x%" PRIx64, k->regs[PERFDATA_REG_IP]);
	json_str(j, "ip", hex);
	snprintf(hex, sizeof(hex), "0x%" PRIx64, k->sp);
	json_str(j, "sp", hex);
	json_u64(j, "stack_bytes", k->stack_len);
	json_u64(j, SNAPKEY_CRASH_STACK_ASKED, k->stack_want);
	json_u64(j, SNAPKEY_CRASH_CAPTURE_NS, k->cost_ns);
	json_obj_end(j);
}

/*
 * What only ptbpf.json holds of the snapshot beside its cause: the crash
 * record, and the clock pair that turns any CLOCK_MONOTONIC "ts" into a
 * time of day.
 */
static void when_json(const struct snapshot *s, struct json *j)
{
	if (s->crash.valid)
		crash_json(s, j);
	if (s->run.run_start_ns)
		json_u64(j, SNAPKEY_RUN_START_NS, s->run.run_start_ns);
	if (s->realtime_ns) {
		json_obj_begin(j, SNAPKEY_CLOCK);
		json_u64(j, SNAPKEY_CLOCK_REALTIME_NS, s->realtime_ns);
		json_u64(j, SNAPKEY_CLOCK_MONOTONIC_NS, s->monotonic_ns);
		json_obj_end(j);
	}
}

static void head_json(const struct snapshot *s, const struct ptbpfjson_dir *dir, struct json *j)
{
	unsigned int i;

	json_str(j, "ptbpf_version", PTBPF_VERSION);
	json_u64(j, SNAPKEY_SNAPSHOT, s->id);
	json_str(j, SNAPKEY_BACKEND, snapfmt_backend_name(s->run.backend));
	json_str(j, "scope", scope_name(s->run.scope));
	if (s->run.scope_why && *s->run.scope_why)
		json_str(j, "scope_fallback", s->run.scope_why);
	sampling_json(&s->run.sampling, j);
	snapjson_cause(j, s);
	when_json(s, j);
	json_u64(j, SNAPKEY_PID, s->run.pid);
	json_bool(j, SNAPKEY_FULL, s->run.full);
	json_obj_begin(j, "files");
	for (i = 0; i < dir->nr_files; i++)
		json_bool(j, dir->files[i].name, dir->files[i].written);
	json_obj_end(j);
	if (dir->vdso) {
		json_obj_begin(j, SNAPKEY_VDSO);
		json_str(j, SNAPKEY_VDSO_FILE, SNAPFMT_VDSO);
		json_u64(j, SNAPKEY_VDSO_BYTES, s->run.vdso->len);
		json_obj_end(j);
	}
}

int ptbpfjson_build(const struct snapshot *snap, const struct ptbpfjson_dir *dir, struct json *j)
{
	const struct snap_cpu_info *ci;

	if (!snap || !dir || !j || (snap->nr_cores && !snap->cores) ||
	    (dir->nr_files && !dir->files) || (dir->vdso && !snap->run.vdso))
		return -EINVAL;
	ci = &snap->run.cpu_info;
	json_obj_begin(j, NULL);
	head_json(snap, dir, j);
	cores_json(snap, j);
	attr_json(j, SNAPKEY_ATTR, &snap->run.data_attr);
	attr_json(j, "sideband_attr", &snap->run.sb_attr);
	json_obj_begin(j, SNAPKEY_TIME_CONV);
	json_bool(j, SNAPKEY_TC_VALID, snap->run.conv.valid);
	json_u64(j, SNAPKEY_TC_TIME_SHIFT, snap->run.conv.time_shift);
	json_u64(j, SNAPKEY_TC_TIME_MULT, snap->run.conv.time_mult);
	json_u64(j, SNAPKEY_TC_TIME_ZERO, snap->run.conv.time_zero);
	json_obj_end(j);
	json_obj_begin(j, SNAPKEY_CPU);
	json_str(j, SNAPKEY_CPU_VENDOR, ci->vendor);
	json_u64(j, SNAPKEY_CPU_FAMILY, ci->family);
	json_u64(j, SNAPKEY_CPU_MODEL, ci->model);
	json_u64(j, SNAPKEY_CPU_STEPPING, ci->stepping);
	json_u64(j, "nr_cpus_online", ci->nr_cpus_online);
	json_obj_end(j);
	if (backend_ops(snap->run.backend)->lldb)
		ptxed_json(snap, j);
	proc_json(dir, &snap->proc, SNAPKEY_PROCESS, j);
	if (snap->nr_more) {
		unsigned int i;

		/* --follow: the other processes, live or gone */
		json_arr_begin(j, SNAPKEY_FOLLOWED);
		for (i = 0; i < snap->nr_more; i++)
			proc_json(dir, &snap->more[i], NULL, j);
		json_arr_end(j);
	}
	json_obj_end(j);
	return json_finish(j);
}
