// SPDX-License-Identifier: GPL-2.0
/* The LLDB bundle, trace.json and context-switch files: see bundle.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collect/backend.h"
#include "bundle.h"
#include "fileout.h"
#include "perfrec.h"
#include "recwrite.h"
#include "snapkeys.h"

/* The sample ID LLDB's context-switch decoder expects. */
#define LLDB_SWITCH_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

int bundle_cpu_path(char *buf, size_t len, int cpu, const char *suffix)
{
	int n;

	if (!buf || !suffix)
		return -EINVAL;
	n = snprintf(buf, len, "%s/%d.%s", SNAPFMT_CPUS_DIR, cpu, suffix);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void json_hex(struct json *j, const char *key, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "0x%" PRIx64, v);
	json_str(j, key, tmp);
}

/* Modules are files; [vdso], [vsyscall] and the like have none. */
static bool is_file(const struct snap_map *m)
{
	return m->path && m->path[0] == '/';
}

/* The first mapping of @m's file, and its lowest load address. */
static bool first_of_module(const struct snap_process *p, unsigned int i, uint64_t *load)
{
	const struct snap_map *m = &p->maps[i];
	unsigned int k;

	bool code = false;

	*load = m->start - m->pgoff;
	for (k = 0; k < p->nr_maps; k++) {
		if (!is_file(&p->maps[k]) || strcmp(p->maps[k].path, m->path))
			continue;
		if (k < i)
			return false;
		if (p->maps[k].start - p->maps[k].pgoff < *load)
			*load = p->maps[k].start - p->maps[k].pgoff;
		code |= !!(p->maps[k].prot & PROT_EXEC);
	}
	/* a module holds code; a file only mapped for data is none */
	return code;
}

/*
 * The [vdso] of @p as a module whose file is the saved image (the
 * schema's "file": the module's copy in the bundle), when it is ours.
 */
static void trace_vdso(bool vdso_saved, const struct snap_process *p, struct json *j)
{
	unsigned int i;

	if (p->vdso != SNAP_VDSO_NATIVE || !vdso_saved)
		return;
	for (i = 0; i < p->nr_maps; i++) {
		if (!p->maps[i].path || strcmp(p->maps[i].path, "[vdso]"))
			continue;
		json_obj_begin(j, NULL);
		json_str(j, SNAPKEY_LLDB_SYSTEM_PATH, "[vdso]");
		json_str(j, SNAPKEY_LLDB_FILE, SNAPFMT_VDSO);
		json_hex(j, SNAPKEY_LLDB_LOAD_ADDRESS, p->maps[i].start);
		json_obj_end(j);
		return;
	}
}

static void trace_process(bool vdso_saved, const struct snap_process *p, struct json *j)
{
	unsigned int i;
	uint64_t load;

	json_obj_begin(j, NULL);
	json_u64(j, "pid", p->pid);
	json_str(j, "triple", "x86_64-unknown-linux-gnu");
	json_arr_begin(j, "threads");
	for (i = 0; i < p->nr_threads; i++) {
		json_obj_begin(j, NULL);
		json_u64(j, "tid", p->threads[i].tid);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, SNAPKEY_LLDB_MODULES);
	for (i = 0; i < p->nr_maps; i++) {
		if (!is_file(&p->maps[i]) || !first_of_module(p, i, &load))
			continue;
		json_obj_begin(j, NULL);
		json_str(j, SNAPKEY_LLDB_SYSTEM_PATH, p->maps[i].path);
		json_hex(j, SNAPKEY_LLDB_LOAD_ADDRESS, load);
		json_obj_end(j);
	}
	trace_vdso(vdso_saved, p, j);
	json_arr_end(j);
	json_obj_end(j);
}

static void trace_cpus(const struct snapshot *s, struct json *j)
{
	char path[64];
	unsigned int i;

	json_arr_begin(j, SNAPKEY_LLDB_CPUS);
	for (i = 0; i < s->nr_cores; i++) {
		json_obj_begin(j, NULL);
		json_i64(j, SNAPKEY_LLDB_CPU_ID, s->cores[i].cpu);
		bundle_cpu_path(path, sizeof(path), s->cores[i].cpu, SNAPFMT_IPT_SUFFIX);
		json_str(j, SNAPKEY_LLDB_IPT_TRACE, path);
		bundle_cpu_path(path, sizeof(path), s->cores[i].cpu, SNAPFMT_SWITCH_SUFFIX);
		json_str(j, SNAPKEY_LLDB_SWITCH_TRACE, path);
		json_obj_end(j);
	}
	json_arr_end(j);
}

int bundle_trace_json(const struct snapshot *snap, bool vdso_saved, struct json *j)
{
	const struct snap_cpu_info *ci;
	unsigned int i;

	if (!snap || !j || !backend_ops(snap->run.backend)->lldb ||
	    (snap->nr_cores && !snap->cores))
		return -EINVAL;
	ci = &snap->run.cpu_info;
	/* LLDB's schema: a path that is not UTF-8 gets U+FFFD, no _hex */
	json_no_hex(j);
	json_obj_begin(j, NULL);
	json_str(j, "type", "intel-pt");
	json_obj_begin(j, "cpuInfo");
	/* the schema knows only these two vendors */
	json_str(j, "vendor", strcmp(ci->vendor, "GenuineIntel") ? "unknown" : "GenuineIntel");
	json_u64(j, "family", ci->family);
	json_u64(j, "model", ci->model);
	json_u64(j, "stepping", ci->stepping);
	json_obj_end(j);
	json_arr_begin(j, SNAPKEY_LLDB_PROCESSES);
	trace_process(vdso_saved, &snap->proc, j);
	/* --follow: one trace, every process its buffers hold */
	for (i = 0; i < snap->nr_more; i++)
		trace_process(vdso_saved, &snap->more[i], j);
	json_arr_end(j);
	trace_cpus(snap, j);
	/* required whenever "cpus" is given */
	json_obj_begin(j, "tscPerfZeroConversion");
	json_u64(j, "timeMult", snap->run.conv.time_mult);
	json_u64(j, "timeShift", snap->run.conv.time_shift);
	json_u64(j, "timeZero", snap->run.conv.time_zero);
	json_obj_end(j);
	json_obj_end(j);
	return json_finish(j);
}

/*
 * A task-bound sideband event (process scope) writes PERF_RECORD_SWITCH:
 * the header and the sample ID, nothing of the other task. LLDB reads only
 * PERF_RECORD_SWITCH_CPU_WIDE, and of it only the sample ID's pid, tid and
 * time, so the record becomes one with next_prev_pid/tid -1 (unknown: the
 * event does not see the other task), built in @wide (PERFREC_MAX + 1 bytes).
 */
static ssize_t cpu_wide(const struct perf_event_header *h, const struct recwrite_conv *conv,
			uint8_t *wide, uint8_t *dst, size_t cap)
{
	struct perf_event_header *w = (struct perf_event_header *)wide;
	const __u32 unknown[2] = { (__u32)-1, (__u32)-1 };
	size_t body = h->size - sizeof(*h);

	if (h->size < sizeof(*h) || h->size + sizeof(unknown) > PERFREC_MAX)
		return -EBADMSG;
	w->type = PERF_RECORD_SWITCH_CPU_WIDE;
	w->misc = h->misc;
	w->size = (__u16)(h->size + sizeof(unknown));
	memcpy(wide + sizeof(*w), unknown, sizeof(unknown));
	memcpy(wide + sizeof(*w) + sizeof(unknown), h + 1, body);
	return recwrite_convert(wide, w->size, conv, dst, cap);
}

/* A switch-in of @pid/@tid at perf time @time, as LLDB reads it; its size. */
static size_t switch_in(__u32 pid, __u32 tid, __u64 time, uint8_t *dst)
{
	struct perf_event_header h = { PERF_RECORD_SWITCH_CPU_WIDE, 0, 0 };
	const __u32 unknown[2] = { (__u32)-1, (__u32)-1 };
	struct perfrec_id id;

	memset(&id, 0, sizeof(id));
	id.pid = pid;
	id.tid = tid;
	id.time = time;
	h.size = (__u16)(sizeof(h) + sizeof(unknown) + perfrec_id_size(LLDB_SWITCH_TYPE));
	memcpy(dst, &h, sizeof(h));
	memcpy(dst + sizeof(h), unknown, sizeof(unknown));
	perfrec_id_put(dst + sizeof(h) + sizeof(unknown), LLDB_SWITCH_TYPE, &id);
	return h.size;
}

/*
 * The thread the CPU ran when the window began (snap_core start_tid), as
 * a switch-in at TSC 0 (perf time time_zero), before every record: LLDB,
 * like perf, learns a CPU's thread from a switch-in, which may lie in an
 * earlier window. Returns the record's size, 0 when there is none.
 */
static size_t window_start(const struct snapshot *snap, const struct snap_core *c, uint8_t *dst)
{
	if (!c->start_tid || !snap->run.conv.valid)
		return 0;
	return switch_in(c->start_pid, c->start_tid, snap->run.conv.time_zero, dst);
}

/*
 * The next of the kernel's ITRACE_START records in the PT event's records
 * of @c, from *@off: the thread PT started with on the CPU (the window's
 * first, when no earlier read named one), and its time. False at the end.
 */
static bool next_itrace(const struct snapshot *snap, const struct snap_core *c, size_t *off,
			struct perfrec_id *id)
{
	const struct perf_event_header *h;
	__u32 who[2];

	while (c->ptrec && perfrec_next(c->ptrec, c->ptrec_len, off, &h) > 0) {
		if (h->type != PERF_RECORD_ITRACE_START || h->size < sizeof(*h) + sizeof(who) ||
		    perfrec_id_get(h, h->size, snap->run.data_attr.sample_type, id))
			continue;
		memcpy(who, h + 1, sizeof(who));
		id->pid = who[0];
		id->tid = who[1];
		return true;
	}
	return false;
}

int bundle_write_switch_trace(int fd, const struct snapshot *snap, unsigned int idx)
{
	const struct snap_core *c;
	const struct perf_event_header *h;
	struct recwrite_conv conv = { 0 };
	struct perfrec_id it, sid;
	struct fileout *o;
	size_t off = 0, pt_off = 0;
	bool have_it, written = false;
	uint64_t last = 0;
	uint8_t *rec, *wide;
	ssize_t n;
	int ret;

	if (!snap || idx >= snap->nr_cores || !snap->cores)
		return -EINVAL;
	c = &snap->cores[idx];
	conv.from_type = snap->run.sb_attr.sample_type;
	conv.from_id_all = snap->run.sb_attr.sample_id_all;
	conv.to_type = LLDB_SWITCH_TYPE;
	conv.to_id_all = true;
	conv.cpu = (__u32)c->cpu;
	/* rec, then cpu_wide()'s record: a record's size is too much for a stack */
	o = malloc(sizeof(*o) + 2 * (PERFREC_MAX + 1));
	if (!o)
		return -ENOMEM;
	rec = (uint8_t *)(o + 1);
	wide = rec + PERFREC_MAX + 1;
	fileout_init(o, fd);
	n = (ssize_t)window_start(snap, c, rec);
	if (n) {
		fileout_write(o, rec, (size_t)n);
		last = snap->run.conv.time_zero;
		written = true;
	}
	/*
	 * The kernel's ITRACE_STARTs become switch-ins at their time, among the
	 * switches in time order, as perf reads them from perf.data: LLDB
	 * takes a CPU's thread from SWITCH_CPU_WIDE records only, and refuses
	 * a record not after the one before (PerfContextSwitchDecoder.cpp), so
	 * one that shares its time with a switch is left out; so is one that
	 * the same thread's switch-in follows (a task's first schedule-in: the
	 * kernel writes ITRACE_START just before the switch-in), which LLDB
	 * would take as two runs.
	 */
	have_it = next_itrace(snap, c, &pt_off, &it);
	while ((ret = perfrec_next(c->sideband, c->sideband_len, &off, &h)) > 0) {
		bool timed = !perfrec_id_get(h, h->size, conv.from_type, &sid);
		bool in =
			(h->type == PERF_RECORD_SWITCH || h->type == PERF_RECORD_SWITCH_CPU_WIDE) &&
			!(h->misc & PERF_RECORD_MISC_SWITCH_OUT);

		for (; have_it && timed && it.time <= sid.time;
		     have_it = next_itrace(snap, c, &pt_off, &it)) {
			if (it.time == sid.time || (written && it.time <= last) ||
			    (in && it.pid == sid.pid && it.tid == sid.tid))
				continue;
			fileout_write(o, rec, switch_in(it.pid, it.tid, it.time, rec));
			last = it.time;
			written = true;
		}
		if (h->type == PERF_RECORD_SWITCH)
			n = cpu_wide(h, &conv, wide, rec, PERFREC_MAX + 1);
		else
			n = recwrite_convert(h, h->size, &conv, rec, PERFREC_MAX + 1);
		if (n < 0) {
			ret = (int)n;
			break;
		}
		fileout_write(o, rec, (size_t)n);
		if (timed) {
			last = sid.time;
			written = true;
		}
	}
	for (; !ret && have_it; have_it = next_itrace(snap, c, &pt_off, &it)) {
		if (written && it.time <= last)
			continue;
		fileout_write(o, rec, switch_in(it.pid, it.tid, it.time, rec));
		last = it.time;
		written = true;
	}
	if (!ret)
		ret = fileout_flush(o);
	free(o);
	return ret;
}
