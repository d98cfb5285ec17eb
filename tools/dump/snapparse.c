// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf.json and trace.json into a snapshot's model: see snapparse.h.
 * Above the backends' table (dumpbe.h), which says whose ptbpf.json
 * carries a PT decoder's configuration: the model (snap.c) is below it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#include "dumpbe.h"
#include "snapfmt.h"
#include "snapkeys.h"
#include "snapparse.h"
#include "jsondoc.h"

/* Reports a missing or wrong-typed field @name of @file. */
static void field_error(struct dump_log *log, const char *file, const char *name, int ret,
			const char *want)
{
	snap_error(log, file, -1, "field \"%s\" %s", name,
		   ret == -ENOENT	   ? "is missing" :
		   !strcmp(want, "number") ? "is not a number that fits" :
					     want);
}

/* Member @key of @o when it is of type @t; else says why field @name is
 * not (missing, or of another type) and gives NULL. */
static struct json_object *need_type(const struct json_object *o, const char *key,
				     enum jsondoc_type t, const char *name, const char *file,
				     struct dump_log *log)
{
	struct json_object *v = jsondoc_get(o, key);

	if (jsondoc_type(v) == t)
		return v;
	field_error(log, file, name, jsondoc_has(o, key) ? -EINVAL : -ENOENT,
		    t == JSONDOC_ARRAY ? "is not an array" : "is not an object");
	return NULL;
}

static uint64_t need_u64(const struct json_object *o, const char *key, const char *file,
			 const char *where, struct dump_log *log)
{
	char name[96];
	uint64_t v = 0;
	int ret = jsondoc_get_u64(o, key, &v);

	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "number");
	}
	return v;
}

static bool need_bool(const struct json_object *o, const char *key, const char *file,
		      const char *where, struct dump_log *log)
{
	char name[96];
	bool v = false;
	int ret = jsondoc_get_bool(o, key, &v);

	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "is not true or false");
	}
	return v;
}

/* Copies string member @key into @out (@len bytes); "" when absent. */
static void need_str(const struct json_object *o, const char *key, char *out, size_t len,
		     const char *file, const char *where, struct dump_log *log, bool nullable)
{
	char name[96];
	const char *s;
	int ret;

	out[0] = '\0';
	/* json-c's null is a NULL member */
	if (nullable && jsondoc_has(o, key) && !jsondoc_get(o, key))
		return;
	ret = jsondoc_get_str(o, key, &s);
	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "is not a string");
		return;
	}
	snprintf(out, len, "%s", s);
}

/* A core's "aux" object: what the kernel's AUX records said. */
static void meta_aux(struct dump_core *c, const struct json_object *aux, const char *file,
		     const char *core_where, struct dump_log *log)
{
	char where[48];

	snprintf(where, sizeof(where), "%s" SNAPKEY_CORE_AUX ".", core_where);
	if (jsondoc_type(aux) != JSONDOC_OBJECT) {
		field_error(log, file, where, -EINVAL, "is not an object");
		return;
	}
	c->aux_truncated = need_u64(aux, SNAPKEY_AUX_TRUNCATED, file, where, log);
	c->aux_collision = need_u64(aux, SNAPKEY_AUX_COLLISION, file, where, log);
	c->aux_partial = need_u64(aux, SNAPKEY_AUX_PARTIAL, file, where, log);
	c->aux_records_lost = need_u64(aux, SNAPKEY_AUX_RECORDS_LOST, file, where, log);
}

static void meta_cores(struct dump_snap *s, const struct json_object *root, const char *file,
		       struct dump_log *log)
{
	struct json_object *arr, *o;
	struct dump_core *c;
	char where[32];
	int64_t cpu;
	size_t i;

	arr = need_type(root, SNAPKEY_CORES, JSONDOC_ARRAY, SNAPKEY_CORES, file, log);
	for (i = 0; (o = jsondoc_at(arr, i)); i++) {
		snprintf(where, sizeof(where), SNAPKEY_CORES "[%zu].", i);
		if (jsondoc_get_i64(o, SNAPKEY_CORE_CPU, &cpu) || cpu < 0 || cpu > 1 << 20) {
			snap_error(log, file, -1,
				   "field \"%s" SNAPKEY_CORE_CPU "\" is missing or not a CPU",
				   where);
			continue;
		}
		c = snap_find_core(s, (int)cpu);
		if (!c)
			return;
		c->in_meta = true;
		c->bytes = need_u64(o, SNAPKEY_CORE_BYTES, file, where, log);
		c->sideband_bytes = need_u64(o, SNAPKEY_CORE_SIDEBAND_BYTES, file, where, log);
		c->wrapped = need_bool(o, SNAPKEY_CORE_WRAPPED, file, where, log);
		c->lost_bytes = need_u64(o, SNAPKEY_CORE_LOST_BYTES, file, where, log);
		/* newer fields: a snapshot without them lost no switch record */
		if (jsondoc_has(o, SNAPKEY_CORE_SIDEBAND_WRAPPED))
			c->sb_wrapped =
				need_bool(o, SNAPKEY_CORE_SIDEBAND_WRAPPED, file, where, log);
		if (jsondoc_has(o, SNAPKEY_CORE_SIDEBAND_LOST_BYTES))
			c->sb_lost_bytes =
				need_u64(o, SNAPKEY_CORE_SIDEBAND_LOST_BYTES, file, where, log);
		if (jsondoc_has(o, SNAPKEY_CORE_AUX))
			meta_aux(c, jsondoc_get(o, SNAPKEY_CORE_AUX), file, where, log);
	}
}

/* The threads of process object @p ("process", or one of "followed"). */
static void meta_threads(struct dump_proc *pr, const struct json_object *p, const char *file,
			 const char *at, struct dump_log *log)
{
	struct json_object *arr, *o;
	struct dump_thread *t;
	char where[64];
	size_t i, n;

	snprintf(where, sizeof(where), "%s" SNAPKEY_PROC_THREADS, at);
	arr = need_type(p, SNAPKEY_PROC_THREADS, JSONDOC_ARRAY, where, file, log);
	if (!arr)
		return;
	n = jsondoc_len(arr);
	t = calloc(n ? n : 1, sizeof(*t));
	if (!t)
		return;
	free(pr->threads);
	pr->threads = t;
	pr->nr_threads = 0;
	for (i = 0; (o = jsondoc_at(arr, i)); i++) {
		snprintf(where, sizeof(where), "%s" SNAPKEY_PROC_THREADS "[%zu].", at, i);
		t[pr->nr_threads].tid = (uint32_t)need_u64(o, SNAPKEY_THREAD_TID, file, where, log);
		need_str(o, SNAPKEY_THREAD_COMM, t[pr->nr_threads].comm, sizeof(t->comm), file,
			 where, log, false);
		pr->nr_threads++;
	}
}

/* A process object's name, its [vdso]'s word (when said) and its threads; @at names it. */
static void meta_proc(struct dump_proc *pr, const struct json_object *o, const char *file,
		      const char *at, struct dump_log *log)
{
	need_str(o, SNAPKEY_PROC_COMM, pr->comm, sizeof(pr->comm), file, at, log, false);
	if (jsondoc_has(o, SNAPKEY_PROC_VDSO))
		need_str(o, SNAPKEY_PROC_VDSO, pr->vdso, sizeof(pr->vdso), file, at, log, false);
	meta_threads(pr, o, file, at, log);
}

static void meta_process(struct dump_snap *s, const struct json_object *root, const char *file,
			 struct dump_log *log)
{
	struct json_object *p;
	struct dump_proc *pr;

	p = need_type(root, SNAPKEY_PROCESS, JSONDOC_OBJECT, SNAPKEY_PROCESS, file, log);
	if (!p)
		return;
	pr = snap_proc_get(s, s->pid);
	if (!pr)
		return;
	meta_proc(pr, p, file, SNAPKEY_PROCESS ".", log);
}

/*
 * "vdso": the snapshot holds the image, always under its one name (no
 * path from the file is opened); load.c finds it and checks its size.
 */
static void meta_vdso(struct dump_snap *s, const struct json_object *root, const char *file,
		      struct dump_log *log)
{
	const struct json_object *v = jsondoc_get(root, SNAPKEY_VDSO);
	const char *name;

	if (!jsondoc_has(root, SNAPKEY_VDSO))
		return;
	if (jsondoc_type(v) != JSONDOC_OBJECT || jsondoc_get_str(v, SNAPKEY_VDSO_FILE, &name) ||
	    strcmp(name, SNAPFMT_VDSO) || jsondoc_get_u64(v, SNAPKEY_VDSO_BYTES, &s->vdso_bytes)) {
		snap_error(log, file, -1,
			   SNAPKEY_VDSO ": needs \"" SNAPKEY_VDSO_FILE "\": \"" SNAPFMT_VDSO
					"\" and a number \"" SNAPKEY_VDSO_BYTES "\"");
		s->vdso_bytes = 0;
		return;
	}
	s->vdso_saved = true;
}

/*
 * --follow, --unit: the processes followed besides the run's target, each
 * a process of the snapshot with its name and threads, and the one the
 * cause happened in, which the snapshot is then read as (its samples
 * are the target's; the run's target is one of the followed). Without
 * trigger_pid, or with the target's: as before.
 */
static void meta_followed(struct dump_snap *s, const struct json_object *root, const char *file,
			  struct dump_log *log)
{
	const struct json_object *arr = jsondoc_get(root, SNAPKEY_FOLLOWED), *o;
	uint64_t pid, trig = 0;
	struct dump_proc *pr;
	char at[40];
	size_t i;

	s->run_pid = s->pid;
	if (jsondoc_type(arr) == JSONDOC_ARRAY && jsondoc_len(arr)) {
		s->followed = calloc(jsondoc_len(arr), sizeof(*s->followed));
		for (i = 0; s->followed && (o = jsondoc_at(arr, i)); i++) {
			if (jsondoc_get_u64(o, SNAPKEY_PROC_PID, &pid) || !pid ||
			    pid > UINT32_MAX || pid == s->run_pid ||
			    snap_proc_find(s, (uint32_t)pid))
				continue;
			pr = snap_proc_get(s, (uint32_t)pid);
			if (!pr)
				return;
			s->followed[s->nr_followed++] = (uint32_t)pid;
			snprintf(at, sizeof(at), SNAPKEY_FOLLOWED "[pid %u].", pr->pid);
			meta_proc(pr, o, file, at, log);
		}
	}
	if (jsondoc_get_u64(root, SNAPKEY_CAUSE_PID, &trig) || !trig || trig > UINT32_MAX)
		return;
	s->cause_pid = (uint32_t)trig;
	if (trig == s->pid)
		return;
	for (i = 0; i < s->nr_followed; i++)
		if (s->followed[i] == trig)
			s->pid = (uint32_t)trig;
}

/* The crash record's facts; its registers and stack are perf.data's. */
static void meta_crash(struct dump_snap *s, const struct json_object *c)
{
	const char *at;

	if (!c)
		return;
	if (!jsondoc_get_str(c, SNAPKEY_CRASH_AT, &at))
		snprintf(s->crash_at, sizeof(s->crash_at), "%s", at);
	jsondoc_get_u64(c, SNAPKEY_CRASH_CAPTURE_NS, &s->crash_capture_ns);
	jsondoc_get_u64(c, SNAPKEY_CRASH_STACK_ASKED, &s->crash_stack_asked);
}

/* ptxed's options: optional, an older ptbpf.json may lack them. */
static void meta_ptxed(struct dump_snap *s, const struct json_object *ptx)
{
	uint64_t v;

	if (!jsondoc_get_u64(ptx, SNAPKEY_PTXED_MTC_FREQ, &v))
		s->cpu.mtc_freq = (uint32_t)v;
	if (!jsondoc_get_u64(ptx, SNAPKEY_PTXED_TSC_CTC_RATIO_N, &v))
		s->cpu.tsc_ctc_ratio_n = (uint32_t)v;
	if (!jsondoc_get_u64(ptx, SNAPKEY_PTXED_TSC_CTC_RATIO_D, &v))
		s->cpu.tsc_ctc_ratio_d = (uint32_t)v;
	if (!jsondoc_get_u64(ptx, SNAPKEY_PTXED_MAX_NONTURBO_RATIO, &v))
		s->cpu.max_nonturbo_ratio = (uint32_t)v;
}

static void meta_cpu(struct dump_snap *s, const struct json_object *root, const char *file,
		     struct dump_log *log)
{
	const struct json_object *tc = jsondoc_get(root, SNAPKEY_TIME_CONV);
	const struct json_object *cpu = jsondoc_get(root, SNAPKEY_CPU);

	s->conv.valid = need_bool(tc, SNAPKEY_TC_VALID, file, SNAPKEY_TIME_CONV ".", log);
	s->conv.time_shift =
		(uint16_t)need_u64(tc, SNAPKEY_TC_TIME_SHIFT, file, SNAPKEY_TIME_CONV ".", log);
	s->conv.time_mult =
		(uint32_t)need_u64(tc, SNAPKEY_TC_TIME_MULT, file, SNAPKEY_TIME_CONV ".", log);
	s->conv.time_zero = need_u64(tc, SNAPKEY_TC_TIME_ZERO, file, SNAPKEY_TIME_CONV ".", log);
	need_str(cpu, SNAPKEY_CPU_VENDOR, s->cpu.vendor, sizeof(s->cpu.vendor), file,
		 SNAPKEY_CPU ".", log, false);
	s->cpu.family = (unsigned int)need_u64(cpu, SNAPKEY_CPU_FAMILY, file, SNAPKEY_CPU ".", log);
	s->cpu.model = (unsigned int)need_u64(cpu, SNAPKEY_CPU_MODEL, file, SNAPKEY_CPU ".", log);
	s->cpu.stepping =
		(unsigned int)need_u64(cpu, SNAPKEY_CPU_STEPPING, file, SNAPKEY_CPU ".", log);
	if (!dump_backend(s->backend)->aux)
		return;
	if (jsondoc_get_hex(jsondoc_get(root, SNAPKEY_ATTR), SNAPKEY_ATTR_CONFIG, &s->pt_config))
		field_error(log, file, SNAPKEY_ATTR "." SNAPKEY_ATTR_CONFIG, -EINVAL,
			    "is missing or not a \"0x...\" string");
	meta_ptxed(s, jsondoc_get(root, SNAPKEY_PTXED));
}

/* The cause's details and the clock pair: optional, newer ptbpf only. */
static void meta_cause(struct dump_snap *s, const struct json_object *root)
{
	const struct json_object *clock = jsondoc_get(root, SNAPKEY_CLOCK);
	const char *str;
	uint64_t v;
	int64_t i;

	if (!jsondoc_get_str(root, SNAPKEY_STOP_KIND, &str))
		snprintf(s->stop_kind, sizeof(s->stop_kind), "%s", str);
	if (!jsondoc_get_u64(root, SNAPKEY_CAUSE_TID, &v))
		s->cause_tid = (uint32_t)v;
	if (!jsondoc_get_i64(root, SNAPKEY_SI_CODE, &i)) {
		s->has_si_code = true;
		s->si_code = (int)i;
	}
	jsondoc_get_hex(root, SNAPKEY_IP, &s->ip);
	s->has_addr = !jsondoc_get_hex(root, SNAPKEY_ADDR, &s->addr);
	meta_crash(s, jsondoc_get(root, SNAPKEY_CRASH));
	jsondoc_get_u64(root, SNAPKEY_FOLDED_STOPS, &s->folded_stops);
	jsondoc_get_u64(root, SNAPKEY_FOLDED_HITS, &s->folded_hits);
	jsondoc_get_u64(root, SNAPKEY_RUN_START_NS, &s->run_start_ns);
	if (clock && (jsondoc_get_u64(clock, SNAPKEY_CLOCK_REALTIME_NS, &s->realtime_ns) ||
		      jsondoc_get_u64(clock, SNAPKEY_CLOCK_MONOTONIC_NS, &s->monotonic_ns)))
		s->realtime_ns = s->monotonic_ns = 0;
}

static void meta_head(struct dump_snap *s, const struct json_object *root, const char *file,
		      struct dump_log *log)
{
	char backend[16];

	s->id = need_u64(root, SNAPKEY_SNAPSHOT, file, "", log);
	need_str(root, SNAPKEY_BACKEND, backend, sizeof(backend), file, "", log, false);
	if (snapfmt_backend_parse(backend, false, &s->backend) && backend[0])
		snap_error(log, file, -1, "unknown backend \"%s\"", backend);
	need_str(root, SNAPKEY_CAUSE, s->cause, sizeof(s->cause), file, "", log, false);
	s->cause_kind = snapcause_parse(s->cause);
	need_str(root, SNAPKEY_SIGNAL, s->signal, sizeof(s->signal), file, "", log, true);
	s->cause_ts = need_u64(root, SNAPKEY_CAUSE_TS, file, "", log);
	s->pid = (uint32_t)need_u64(root, SNAPKEY_PID, file, "", log);
	meta_cause(s, root);
	/* older snapshots may lack it: a stream, as before --full existed */
	if (jsondoc_get_bool(root, SNAPKEY_FULL, &s->full))
		s->full = false;
}

/*
 * Parses @buf into *@root, which must be a JSON object; else reports why
 * (naming the type it is instead when @with_type).
 */
static int parse_object(const char *buf, size_t len, const char *file, struct dump_log *log,
			bool with_type, struct json_object **root)
{
	struct jsondoc_err e = { 0, "" };
	int ret;

	ret = jsondoc_parse(buf, len, root, &e);
	if (ret == -EBADMSG)
		snap_error(log, file, (int64_t)e.off, "not JSON: %s", e.why);
	if (ret)
		return ret;
	if (jsondoc_type(*root) == JSONDOC_OBJECT)
		return 0;
	snap_error(log, file, 0, "not a JSON object%s%s", with_type ? " but " : "",
		   with_type ? jsondoc_type_name(*root) : "");
	jsondoc_free(*root);
	*root = NULL;
	return -EBADMSG;
}

int snap_parse_meta(struct dump_snap *s, const char *buf, size_t len, const char *file,
		    struct dump_log *log)
{
	struct json_object *root;
	int ret;

	ret = parse_object(buf, len, file, log, true, &root);
	if (ret)
		return ret;
	meta_head(s, root, file, log);
	meta_cores(s, root, file, log);
	meta_cpu(s, root, file, log);
	meta_process(s, root, file, log);
	meta_followed(s, root, file, log);
	meta_vdso(s, root, file, log);
	snap_read_as(s, s->pid);
	jsondoc_free(root);
	return 0;
}

/* A "[name]" module of trace.json: a range of @pr, unless it has one so named. */
static void trace_range(struct dump_proc *pr, const char *name, uint64_t start)
{
	struct dump_range *rg;
	unsigned int i;

	for (i = 0; i < pr->nr_ranges; i++)
		if (!strcmp(pr->ranges[i].name, name))
			return;
	rg = reallocarray(pr->ranges, pr->nr_ranges + 1, sizeof(*rg));
	if (!rg)
		return;
	pr->ranges = rg;
	rg = &pr->ranges[pr->nr_ranges++];
	rg->start = rg->end = start;
	snprintf(rg->name, sizeof(rg->name), "%s", name);
}

static void trace_modules(struct dump_snap *s, const struct json_object *proc, const char *file,
			  struct dump_log *log)
{
	struct json_object *mods, *m;
	struct dump_module *out;
	struct dump_proc *pr;
	const char *path;
	size_t i, n;

	mods = need_type(proc, SNAPKEY_LLDB_MODULES, JSONDOC_ARRAY,
			 SNAPKEY_LLDB_PROCESSES "[0]." SNAPKEY_LLDB_MODULES, file, log);
	pr = mods ? snap_proc_get(s, s->pid) : NULL;
	if (!pr)
		return;
	n = jsondoc_len(mods);
	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return;
	for (i = 0; i < pr->nr_modules; i++)
		free(pr->modules[i].path);
	free(pr->modules);
	pr->modules = out;
	pr->nr_modules = 0;
	for (i = 0; (m = jsondoc_at(mods, i)); i++) {
		if (jsondoc_get_str(m, SNAPKEY_LLDB_SYSTEM_PATH, &path) ||
		    jsondoc_get_hex(m, SNAPKEY_LLDB_LOAD_ADDRESS, &out[pr->nr_modules].load)) {
			snap_error(log, file, -1,
				   SNAPKEY_LLDB_PROCESSES
				   "[0]." SNAPKEY_LLDB_MODULES
				   "[%zu]: needs a string \"" SNAPKEY_LLDB_SYSTEM_PATH
				   "\" and a \"0x...\" " SNAPKEY_LLDB_LOAD_ADDRESS,
				   i);
			continue;
		}
		/* [vdso]: no file of the system; the range perf.data has, or
		 * one the image the snapshot holds gives the length of */
		if (path[0] == '[') {
			trace_range(pr, path, out[pr->nr_modules].load);
			continue;
		}
		out[pr->nr_modules].path = strdup(path);
		if (out[pr->nr_modules].path)
			pr->nr_modules++;
	}
}

/* The cpus[] of trace.json into @out; bad entries reported and left out. */
static int trace_cpus(const struct json_object *root, const char *file, struct dump_log *log,
		      struct snap_trace_cpus *out)
{
	struct json_object *cpus, *c;
	struct snap_trace_cpu *t;
	const char *ipt, *sw;
	int64_t id;
	size_t i;

	cpus = need_type(root, SNAPKEY_LLDB_CPUS, JSONDOC_ARRAY, SNAPKEY_LLDB_CPUS, file, log);
	if (!cpus)
		return 0;
	out->cpu = calloc(jsondoc_len(cpus) + 1, sizeof(*t));
	if (!out->cpu)
		return -ENOMEM;
	for (i = 0; (c = jsondoc_at(cpus, i)); i++) {
		if (jsondoc_get_i64(c, SNAPKEY_LLDB_CPU_ID, &id) || id < 0 || id > 1 << 20 ||
		    jsondoc_get_str(c, SNAPKEY_LLDB_IPT_TRACE, &ipt) ||
		    jsondoc_get_str(c, SNAPKEY_LLDB_SWITCH_TRACE, &sw)) {
			snap_error(log, file, -1,
				   SNAPKEY_LLDB_CPUS "[%zu]: needs \"" SNAPKEY_LLDB_CPU_ID
						     "\", \"" SNAPKEY_LLDB_IPT_TRACE
						     "\" and \"" SNAPKEY_LLDB_SWITCH_TRACE "\"",
				   i);
			continue;
		}
		t = &out->cpu[out->nr];
		t->cpu = (int)id;
		t->ipt = strdup(ipt);
		t->sw = strdup(sw);
		out->nr++;
		if (!t->ipt || !t->sw)
			return -ENOMEM;
	}
	return 0;
}

int snap_parse_trace_json(struct dump_snap *s, const char *buf, size_t len, const char *file,
			  struct dump_log *log, struct snap_trace_cpus *cpus)
{
	struct json_object *root;
	int ret;

	if (!cpus)
		return -EINVAL;
	cpus->cpu = NULL;
	cpus->nr = 0;
	ret = parse_object(buf, len, file, log, false, &root);
	if (ret)
		return ret;
	trace_modules(s, jsondoc_at(jsondoc_get(root, SNAPKEY_LLDB_PROCESSES), 0), file, log);
	snap_read_as(s, s->pid);
	ret = trace_cpus(root, file, log, cpus);
	if (ret)
		snap_trace_cpus_free(cpus);
	jsondoc_free(root);
	return ret;
}

void snap_trace_cpus_free(struct snap_trace_cpus *cpus)
{
	size_t i;

	if (!cpus)
		return;
	for (i = 0; i < cpus->nr; i++) {
		free(cpus->cpu[i].ipt);
		free(cpus->cpu[i].sw);
	}
	free(cpus->cpu);
	cpus->cpu = NULL;
	cpus->nr = 0;
}
