// SPDX-License-Identifier: GPL-2.0
/* Snapshots staged on the control path (snapstage.h). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/backend.h"
#include "base/clock.h"
#include "base/errbuf.h"
#include "perfrec.h"
#include "snaplog.h"
#include "snapstage.h"
#include "base/status.h"

struct snapstage {
	struct snapstage_config cfg;
	struct snap_run run; /* cfg.run points here */
	struct cores *cores;
	struct eventlog *log; /* control thread's */
	struct snapqueue *queue;
	unsigned int nr_cores;
	size_t trace_cap, sb_cap;
	uint64_t next_id;
	/* the newest crash record, until a fatal snapshot takes it */
	struct snap_crash crash;
	uint8_t *crash_stack;
	/*
	 * The run's end snapshot was asked: the launched command's exit that
	 * follows (ptbpf ended the run) is news only with history of its own
	 */
	bool ended;
};

void snapstage_layout(struct cores *cores, struct snapqueue_config *qc)
{
	qc->nr_cores = cores_count(cores);
	qc->trace_cap = cores_buffer_size(cores);
	qc->sb_cap = cores_sideband_size(cores);
}

struct snapstage *snapstage_start(const struct snapstage_config *cfg, struct cores *cores,
				  struct snapqueue *queue, struct eventlog *log, char *err,
				  size_t errlen)
{
	bool valid = cfg && cfg->run && cores && queue;
	struct snapstage *s = valid ? calloc(1, sizeof(*s)) : NULL;
	int ret = valid ? -ENOMEM : -EINVAL;

	if (!s) {
		errbuf_set(err, errlen, ret, "can't set up snapshot staging: %s", strerror(-ret));
		errno = -ret;
		return NULL;
	}
	s->cfg = *cfg;
	s->run = *cfg->run;
	s->cfg.run = &s->run;
	s->cores = cores;
	s->queue = queue;
	s->log = log;
	s->nr_cores = cores_count(cores);
	s->trace_cap = cores_buffer_size(cores);
	s->sb_cap = cores_sideband_size(cores);
	s->next_id = cfg->first_id ? cfg->first_id : 1;
	return s;
}

/* Every core's rings into @buf; -EIO when one could not be read. */
static int stage_cores(struct snapstage *s, struct snapqueue_buf *buf)
{
	bool skip = s->cfg.cpu_ran && !s->run.full && cores_scope(s->cores) == SCOPE_PROCESS;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < s->nr_cores; i++) {
		uint8_t *trace = snapqueue_core_mem(s->queue, buf, i);
		uint8_t *sideband = trace + s->trace_cap;
		int cpu = -1;

		cores_info(s->cores, i, &cpu, NULL, NULL);
		buf->cores[i].cpu = cpu; /* a core that can't be read still says which */
		if (skip && !s->cfg.cpu_ran(s->cfg.cpu_ran_ctx, cpu))
			cores_read_unchanged(s->cores, i, &buf->cores[i], trace, sideband);
		else if (cores_read(s->cores, i, s->run.full, &buf->cores[i], trace, s->trace_cap,
				    sideband, s->sb_cap))
			ret = -EIO;
	}
	return ret;
}

/*
 * Whether core @c holds history: PT bytes, or for a backend whose records
 * are samples (@samples) one sample at least; the other records (a
 * thread's EXIT, THROTTLE ...) say nothing of where the target was. A
 * stream that can't be walked is kept, as history.
 */
static bool has_history(const struct snap_core *c, bool samples)
{
	const struct perf_event_header *h;
	size_t off = 0;
	int ret;

	if (!samples)
		return c->trace_len > 0;
	while ((ret = perfrec_next(c->trace, c->trace_len, &off, &h)) > 0)
		if (h->type == PERF_RECORD_SAMPLE)
			return true;
	return ret < 0;
}

/*
 * Nothing new on any core: no snapshot (bytes lost are news, though). Any
 * record is news for a stop, a hit or a request: the switches of a target
 * that slept say when it ran. The command's exit after the run's end
 * snapshot is news only with history (samples, PT bytes): its switch and
 * exit records alone hold none, and written, with --max-snapshots or
 * --max-size, it would remove the end snapshot, which does.
 */
static bool nothing_new(const struct snapstage *s, const struct snapqueue_buf *buf,
			const struct snap_cause *cause)
{
	bool samples = backend_ops(s->run.backend)->samples;
	bool after_end = s->ended && cause->kind == SNAPCAUSE_EXIT;
	unsigned int i;

	for (i = 0; i < s->nr_cores; i++) {
		const struct snap_core *core = &buf->cores[i];
		bool news = after_end ? has_history(core, samples) :
					core->trace_len || core->sideband_len;

		if (news || core->wrapped || core->lost_bytes || core->sb_wrapped ||
		    core->sb_lost_bytes)
			return false;
	}
	return true;
}

/* A crash record waits for the fatal snapshot of @cause (see stage_crash). */
static bool crash_waits(const struct snapstage *s, const struct snap_cause *cause)
{
	const struct snap_crash *k = &s->crash;
	uint32_t pid = cause->pid ? cause->pid : s->run.pid;

	return k->valid && cause->kind == SNAPCAUSE_FATAL && k->pid == pid &&
	       (!cause->tid || k->tid == cause->tid);
}

static void log_skipped(struct snapstage *s, const struct snap_cause *cause)
{
	struct json *j = eventlog_begin(s->log, "snapshot_skipped", clock_now_ns(), s->run.pid);

	json_str(j, "trigger", snapcause_name(cause->kind));
	json_u64(j, "trigger_ts", cause->ts);
	json_str(j, "reason", "no new bytes");
	eventlog_end(s->log);
	if (s->cfg.verbosity > 0) {
		char line[96];

		snprintf(line, sizeof(line), "ptbpf: no snapshot (%s): no new bytes",
			 snapcause_name(cause->kind));
		status_say_limited(line);
	}
}

/*
 * A --trigger-on snapshot of the intel-pt backend: PT can't be cut by time
 * here. With aux-action the kernel stopped the hit's CPU at the hit;
 * otherwise, and on the other CPUs, the data goes on up to the staging at
 * most. Sample snapshots are cut by time when written (snapcut.h).
 */
static void stage_cut(struct snapstage *s, struct snapshot *snap, uint64_t mono)
{
	memset(&snap->cut, 0, sizeof(snap->cut));
	if (!snap->why.spec || backend_ops(snap->run.backend)->samples)
		return;
	snap->cut.how = cores_aux_pause(s->cores) ? "kernel" : "staged";
	snap->cut.after_hit_ns = mono > snap->why.ts ? mono - snap->why.ts : 0;
}

/* The staged bytes become snapshot @id of the run, asked for by @cause. */
static void fill_snapshot(struct snapstage *s, struct snapqueue_buf *buf,
			  const struct snap_cause *cause)
{
	struct snapshot *snap = &buf->snap;
	uint64_t real, mono;

	snap->id = s->next_id++;
	snap->run = s->run;
	snap->why = *cause;
	if (!snap->why.pid)
		snap->why.pid = s->run.pid;
	clock_pair(&real, &mono);
	snap->realtime_ns = real;
	snap->monotonic_ns = mono;
	stage_cut(s, snap, mono);
	snap->nr_cores = s->nr_cores;
	snap->cores = buf->cores;
}

void snapstage_crash(struct snapstage *s, const struct ptbpf_crash *c, size_t len)
{
	struct snap_crash *k;
	size_t n;

	if (!s || !c || len < offsetof(struct ptbpf_crash, stack))
		return;
	n = len - offsetof(struct ptbpf_crash, stack);
	if (n > c->stack_len)
		n = c->stack_len;
	if (!s->crash_stack) {
		s->crash_stack = malloc(PTBPF_CRASH_STACK_MAX);
		if (!s->crash_stack)
			return;
	}
	k = &s->crash;
	memset(k, 0, sizeof(*k));
	k->valid = true;
	k->pid = c->tgid;
	k->tid = c->tid;
	k->sig = c->sig;
	k->at = c->at == PTBPF_CRASH_AT_DELIVERY ? "delivery" : "fault";
	k->ts = c->ts;
	_Static_assert(SNAP_CRASH_NR_REGS == PTBPF_CRASH_NR_REGS, "one register layout");
	memcpy(k->regs, c->regs, sizeof(k->regs));
	k->sp = c->sp;
	k->stack_len = (uint32_t)n;
	k->stack_want = c->stack_want;
	k->cost_ns = c->cost_ns;
	memcpy(s->crash_stack, c->stack, n);
	k->stack = s->crash_stack;
}

/*
 * CLOCK_MONOTONIC @mono on the perf clock of an intel-pt run, whose
 * records are stamped by the kernel's perf clock (no use_clockid): the
 * offset of that clock, the TSC through the mmap page's conversion, from
 * CLOCK_MONOTONIC now. Unchanged where there is no conversion.
 */
static uint64_t perf_clock_of(const struct snap_run *run, uint64_t mono)
{
#if defined(__x86_64__)
	const struct snap_tsc_conv *c = &run->conv;
	uint64_t tsc, quot, rem, perf_now, mono_now;

	if (!backend_ops(run->backend)->tsc || run->data_attr.use_clockid || !c->valid)
		return mono;
	tsc = __builtin_ia32_rdtsc();
	mono_now = clock_now_ns();
	quot = tsc >> c->time_shift;
	rem = tsc & ((1ULL << c->time_shift) - 1);
	perf_now = c->time_zero + quot * c->time_mult + ((rem * c->time_mult) >> c->time_shift);
	return mono + perf_now - mono_now;
#else
	(void)run;
	return mono;
#endif
}

/*
 * A fatal snapshot takes the crash record of its thread, made just before
 * the fatal event; one of another process or thread stays for its own.
 */
static void stage_crash(struct snapstage *s, struct snapqueue_buf *buf)
{
	struct snapshot *snap = &buf->snap;
	struct snap_crash *k = &s->crash;

	if (!k->valid || snap->why.kind != SNAPCAUSE_FATAL || k->pid != snap->why.pid ||
	    (snap->why.tid && k->tid != snap->why.tid))
		return;
	if (!buf->crash_mem) {
		buf->crash_mem = malloc(PTBPF_CRASH_STACK_MAX);
		if (!buf->crash_mem)
			return;
	}
	memcpy(buf->crash_mem, k->stack, k->stack_len);
	snap->crash = *k;
	snap->crash.stack = buf->crash_mem;
	/* the perf.data sample's time, on the data's clock */
	snap->crash.ts = perf_clock_of(&snap->run, k->ts);
	k->valid = false;
}

int64_t snapstage_stage(struct snapstage *s, const struct snap_cause *cause)
{
	struct snapqueue_buf *buf;
	uint64_t dropped;
	char reason[96];
	int ret;

	buf = snapqueue_take(s->queue, &dropped);
	if (!buf)
		return -EBUSY;
	if (dropped) {
		snprintf(reason, sizeof(reason),
			 "the writer fell behind: snapshot %" PRIu64 " dropped unwritten", dropped);
		snaplog_lost(s->log, s->run.pid, dropped, reason, s->cfg.verbosity);
	}
	memset(&buf->snap, 0, sizeof(buf->snap));
	ret = stage_cores(s, buf);
	/* a crash record is news of its own */
	if (cause->kind == SNAPCAUSE_END)
		s->ended = true;
	if (!ret && !s->run.full && nothing_new(s, buf, cause) && !crash_waits(s, cause)) {
		snapqueue_put_back(s->queue, buf);
		log_skipped(s, cause);
		return -ENODATA;
	}
	fill_snapshot(s, buf, cause);
	stage_crash(s, buf);
	snapqueue_push(s->queue, buf);
	if (ret)
		snaplog_error(s->log, s->run.pid, buf->snap.id, cores_last_error(s->cores));
	return ret ? ret : (int64_t)buf->snap.id;
}

void snapstage_stop(struct snapstage *s)
{
	if (!s)
		return;
	free(s->crash_stack);
	free(s);
}
