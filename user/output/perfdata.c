// SPDX-License-Identifier: GPL-2.0
/* perf.data writer: see perfdata.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collect/backend.h"
#include "proc/vdso.h"
#include "buildid.h"
#include "fileout.h"
#include "hostinfo.h"
#include "perfdata.h"
#include "recwrite.h"

/* perf pads header feature strings to this (NAME_ALIGN in perf) */
#define NAME_ALIGN 64
/* perf's PERF_AUXTRACE_RECORD_ALIGNMENT: AUX data is padded to 8 */
#define AUX_ALIGN 8
/* made-up event IDs, far above what the kernel's counter reaches */
#define SYNTH_ID_BASE (1ULL << 62)

/* ATTR_CRASH: a fatal snapshot's crash record, when it has one */
enum { ATTR_DATA, ATTR_SB, ATTR_CRASH, NR_ATTRS };

struct writer {
	const struct snapshot *snap;
	int nr_attrs; /* NR_ATTRS with a crash record, else ATTR_CRASH */
	struct fileout out;
	struct perf_event_attr attr[NR_ATTRS];
	__u64 *ids[NR_ATTRS]; /* one per core */
	uint8_t rec[PERFREC_MAX + 1];
};

/* A growing byte buffer for one header feature. */
struct blob {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static void blob_put(struct blob *b, const void *src, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (src)
		memcpy(b->p + b->len, src, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

static void blob_u32(struct blob *b, __u32 v)
{
	blob_put(b, &v, sizeof(v));
}

/* perf_header_string: u32 length (NUL included, padded), then the bytes */
static void blob_str(struct blob *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = (olen + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	blob_u32(b, (__u32)len);
	blob_put(b, s, olen);
	blob_put(b, NULL, len - olen);
}

int perfdata_file_attr(const struct perf_event_attr *in, struct perf_event_attr *attr)
{
	if (!in || !attr)
		return -EINVAL;
	*attr = *in;
	attr->size = PERFFILE_ATTR_SIZE;
	/* perf script refuses to print ip/sym for an attr without IP */
	attr->sample_type |= PERFFILE_ID_BITS | PERF_SAMPLE_IP;
	attr->sample_id_all = 1;
	return 0;
}

int perfdata_core_ids(const struct snapshot *snap, unsigned int idx, __u64 *data_id, __u64 *sb_id)
{
	const struct snap_core *c;

	if (!snap || !data_id || !sb_id || idx >= snap->nr_cores || !snap->cores)
		return -EINVAL;
	c = &snap->cores[idx];
	*data_id = c->data_id ? c->data_id : SYNTH_ID_BASE + 2 * idx;
	*sb_id = c->sb_id ? c->sb_id : SYNTH_ID_BASE + 2 * idx + 1;
	return 0;
}

ssize_t perfdata_auxtrace_info(const struct snapshot *snap, void *dst, size_t cap)
{
	struct perfrec_auxtrace_info r = {
		.header = { .type = PERFFILE_RECORD_AUXTRACE_INFO },
	};
	__u64 priv[PERFDATA_AUXTRACE_PRIV_MAX];
	const struct backend_ops *be;
	size_t size;
	int n;

	if (!snap || !dst)
		return -EINVAL;
	be = backend_ops(snap->run.backend);
	if (!be->auxtrace_priv)
		return -EINVAL;
	n = be->auxtrace_priv(&snap->run, priv, PERFDATA_AUXTRACE_PRIV_MAX);
	if (n < 0)
		return n;
	size = sizeof(r) + (size_t)n * sizeof(priv[0]);
	if (cap < size)
		return -ENOSPC;
	r.header.size = (__u16)size;
	r.type = be->auxtrace_type;
	memcpy(dst, &r, sizeof(r));
	memcpy((uint8_t *)dst + sizeof(r), priv, (size_t)n * sizeof(priv[0]));
	return (ssize_t)size;
}

static void put_time_conv(struct writer *w)
{
	const struct snap_tsc_conv *cv = &w->snap->run.conv;
	struct perfrec_time_conv r;

	memset(&r, 0, sizeof(r));
	r.header.type = PERFFILE_RECORD_TIME_CONV;
	r.header.size = sizeof(r);
	r.time_shift = cv->time_shift;
	r.time_mult = cv->time_mult;
	r.time_zero = cv->time_zero;
	r.cap_user_time_zero = 1;
	fileout_write(&w->out, &r, sizeof(r));
}

/* Synthesized records: the tracking attr's ID, time 0 (before any trace). */
static void synth_id(struct writer *w, __u32 pid, __u32 tid, struct perfrec_id *id)
{
	memset(id, 0, sizeof(*id));
	id->pid = pid;
	id->tid = tid;
	id->id = w->ids[ATTR_SB][0];
	id->cpu = (__u32)w->snap->cores[0].cpu;
}

static int put_one_process(struct writer *w, const struct snap_process *pr)
{
	__u64 type = w->attr[ATTR_SB].sample_type;
	struct perfrec_id id;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < pr->nr_threads; i++) {
		synth_id(w, pr->pid, pr->threads[i].tid, &id);
		n = recwrite_comm(w->rec, sizeof(w->rec), pr->pid, pr->threads[i].tid,
				  pr->threads[i].comm, type, &id);
		if (n < 0)
			return (int)n;
		fileout_write(&w->out, w->rec, (size_t)n);
	}
	for (i = 0; i < pr->nr_maps; i++) {
		if (!pr->maps[i].path)
			continue;
		synth_id(w, pr->pid, pr->pid, &id);
		n = recwrite_mmap2(w->rec, sizeof(w->rec), pr->pid, &pr->maps[i], type, &id);
		if (n == -ENAMETOOLONG)
			continue; /* perf could not have used it either */
		if (n < 0)
			return (int)n;
		fileout_write(&w->out, w->rec, (size_t)n);
	}
	return 0;
}

/* COMM and MMAP2 of the target, then of each process it has followed. */
static int put_process(struct writer *w)
{
	unsigned int i;
	int ret = put_one_process(w, &w->snap->proc);

	for (i = 0; !ret && i < w->snap->nr_more; i++)
		ret = put_one_process(w, &w->snap->more[i]);
	return ret;
}

/*
 * The kernel already wrote every record as the file declares it: the same
 * sample_type with sample_id_all, and the ids are the kernel's own. Then
 * the stream is checked record by record but copied in one piece.
 */
static bool stream_as_is(const struct writer *w, const struct perf_event_attr *from, int which,
			 unsigned int idx)
{
	const struct snap_core *core = &w->snap->cores[idx];
	__u64 kid = which == ATTR_DATA ? core->data_id : core->sb_id;

	return from->sample_type == w->attr[which].sample_type && from->sample_id_all && kid &&
	       kid == w->ids[which][idx] && !core->mixed_ids;
}

/* Copies a staged record stream, re-encoding each record's sample ID. */
static int put_stream(struct writer *w, const uint8_t *buf, size_t len,
		      const struct perf_event_attr *from, int which, unsigned int idx)
{
	const struct perf_event_header *h;
	struct recwrite_conv c = {
		.from_type = from->sample_type,
		.from_id_all = from->sample_id_all,
		.to_type = w->attr[which].sample_type,
		.to_id_all = true,
		.id = w->ids[which][idx],
		.cpu = (__u32)w->snap->cores[idx].cpu,
	};
	size_t off = 0;
	ssize_t n;
	int ret;

	if (stream_as_is(w, from, which, idx)) {
		while ((ret = perfrec_next(buf, len, &off, &h)) > 0)
			;
		if (ret == 0)
			fileout_write(&w->out, buf, off);
		return ret;
	}
	while ((ret = perfrec_next(buf, len, &off, &h)) > 0) {
		n = recwrite_convert(h, h->size, &c, w->rec, sizeof(w->rec));
		if (n < 0)
			return (int)n;
		fileout_write(&w->out, w->rec, (size_t)n);
	}
	return ret;
}

/*
 * The thread core @idx's CPU ran when its window began (snap_core
 * start_tid), as an ITRACE_START of its PT event at time 0, before every
 * record of the window: perf (per-CPU mmaps) makes it the CPU's current
 * thread, so the PT bytes before the window's first switch are decoded
 * under it. None when it is not known.
 */
static void put_window_start(struct writer *w, unsigned int idx)
{
	const struct snap_core *c = &w->snap->cores[idx];
	__u64 type = w->attr[ATTR_DATA].sample_type;
	struct perf_event_header h = { .type = PERF_RECORD_ITRACE_START };
	struct perfrec_id id;
	__u32 who[2] = { c->start_pid, c->start_tid };

	if (!c->start_tid)
		return;
	memset(&id, 0, sizeof(id));
	id.pid = c->start_pid;
	id.tid = c->start_tid;
	id.id = w->ids[ATTR_DATA][idx];
	id.cpu = (__u32)c->cpu;
	h.size = (__u16)(sizeof(h) + sizeof(who) + perfrec_id_size(type));
	memcpy(w->rec, &h, sizeof(h));
	memcpy(w->rec + sizeof(h), who, sizeof(who));
	perfrec_id_put(w->rec + sizeof(h) + sizeof(who), type, &id);
	fileout_write(&w->out, w->rec, h.size);
}

static void put_auxtrace(struct writer *w, unsigned int idx)
{
	const struct snap_core *c = &w->snap->cores[idx];
	size_t pad = (AUX_ALIGN - c->trace_len % AUX_ALIGN) % AUX_ALIGN;
	struct perfrec_auxtrace r;

	memset(&r, 0, sizeof(r));
	r.header.type = PERFFILE_RECORD_AUXTRACE;
	/* header.size excludes the data that follows: perf's convention */
	r.header.size = sizeof(r);
	r.size = c->trace_len + pad;
	r.offset = c->head - c->trace_len;
	/* perf takes the upper bits of 56-bit TSC packets from reference */
	r.reference = c->tsc;
	r.idx = idx;
	r.tid = (__u32)-1;
	r.cpu = (__u32)c->cpu;
	fileout_write(&w->out, &r, sizeof(r));
	fileout_write(&w->out, c->trace, c->trace_len);
	/* PT's PAD packet is a 0 byte: zero padding decodes as nothing */
	fileout_zero(&w->out, pad);
}

/*
 * The crash record's attr: one sample with the user registers and stack
 * perf's DWARF unwinder wants (as --call-graph dwarf writes them), on the
 * data's clock. A software dummy event: it counts nothing else.
 */
static void crash_attr(const struct snapshot *s, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = PERFFILE_ATTR_SIZE;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 1;
	/*
	 * An empty CALLCHAIN as --call-graph dwarf writes it (its kernel
	 * part): perf unwinds only the events that declare one.
	 */
	a->sample_type = PERFFILE_ID_BITS | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a->exclude_callchain_user = 1;
	a->exclude_callchain_kernel = 1;
	a->sample_id_all = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->use_clockid = s->run.data_attr.use_clockid;
	a->clockid = s->run.data_attr.clockid;
	a->sample_regs_user = PERFDATA_CRASH_REGS;
	/* a multiple of 8, as the kernel asks of sample_stack_user */
	a->sample_stack_user = (s->crash.stack_len + 7) & ~7U;
}

static void rec_put(uint8_t *rec, size_t *off, const void *v, size_t n)
{
	memcpy(rec + *off, v, n);
	*off += n;
}

ssize_t perfdata_crash_record(const struct snapshot *s, __u64 id, void *dst, size_t cap)
{
	const struct snap_crash *k = &s->crash;
	__u64 size = (k->stack_len + 7) & ~7ULL, v;
	struct perf_event_header h;
	__u32 cpu[2] = { 0, 0 };
	uint8_t *rec = dst;
	size_t off = sizeof(h);
	unsigned int r;

	if (!k->valid || !dst || !s->nr_cores || !s->cores)
		return -EINVAL;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = PERF_RECORD_MISC_USER;
	/* id, ip, pid/tid, time, cpu, nr, abi, the regs, size, stack, dyn_size */
	v = sizeof(h) + 7 * 8 + (__u64)__builtin_popcountll(PERFDATA_CRASH_REGS) * 8 + 8 + size + 8;
	if (v > cap || v > PERFREC_MAX)
		return -E2BIG;
	h.size = (__u16)v;
	rec_put(rec, &off, &id, 8);
	rec_put(rec, &off, &k->regs[PERFDATA_REG_IP], 8);
	cpu[0] = k->pid;
	cpu[1] = k->tid;
	rec_put(rec, &off, cpu, 8);
	rec_put(rec, &off, &k->ts, 8);
	cpu[0] = (__u32)s->cores[0].cpu;
	cpu[1] = 0;
	rec_put(rec, &off, cpu, 8);
	v = 0; /* the callchain: nothing from the kernel */
	rec_put(rec, &off, &v, 8);
	v = PERF_SAMPLE_REGS_ABI_64;
	rec_put(rec, &off, &v, 8);
	for (r = 0; r < SNAP_CRASH_NR_REGS; r++)
		if (PERFDATA_CRASH_REGS & (1ULL << r))
			rec_put(rec, &off, &k->regs[r], 8);
	rec_put(rec, &off, &size, 8);
	rec_put(rec, &off, k->stack, k->stack_len);
	memset(rec + off, 0, size - k->stack_len);
	off += size - k->stack_len;
	v = k->stack_len;
	rec_put(rec, &off, &v, 8);
	memcpy(rec, &h, sizeof(h));
	return (ssize_t)off;
}

static int put_crash(struct writer *w)
{
	ssize_t n;

	if (w->nr_attrs <= ATTR_CRASH)
		return 0;
	n = perfdata_crash_record(w->snap, w->ids[ATTR_CRASH][0], w->rec, sizeof(w->rec));
	if (n < 0)
		return (int)n;
	fileout_write(&w->out, w->rec, (size_t)n);
	return 0;
}

static int put_data(struct writer *w)
{
	const struct snapshot *s = w->snap;
	bool aux = backend_ops(s->run.backend)->aux;
	unsigned int i;
	ssize_t n;
	int err;

	if (aux) {
		n = perfdata_auxtrace_info(s, w->rec, sizeof(w->rec));
		if (n < 0)
			return (int)n;
		fileout_write(&w->out, w->rec, (size_t)n);
	}
	if (s->run.conv.valid)
		put_time_conv(w);
	err = put_process(w);
	for (i = 0; i < s->nr_cores && !err; i++) {
		if (aux)
			put_window_start(w, i);
		err = put_stream(w, s->cores[i].sideband, s->cores[i].sideband_len, &s->run.sb_attr,
				 ATTR_SB, i);
		/* the data event's ITRACE_START, AUX (flags) and LOST, as perf keeps them */
		if (!err && aux)
			err = put_stream(w, s->cores[i].ptrec, s->cores[i].ptrec_len,
					 &s->run.data_attr, ATTR_DATA, i);
		if (!err && !aux)
			err = put_stream(w, s->cores[i].trace, s->cores[i].trace_len,
					 &s->run.data_attr, ATTR_DATA, i);
	}
	if (!err)
		err = put_crash(w);
	for (i = 0; i < s->nr_cores && aux && !err; i++)
		if (s->cores[i].trace_len)
			put_auxtrace(w, i);
	return err;
}

static void event_name(const struct snapshot *s, int which, char *buf, size_t len)
{
	const struct perf_event_attr *a = which == ATTR_DATA ? &s->run.data_attr : &s->run.sb_attr;
	const struct backend_ops *be = backend_ops(s->run.backend);
	const char *base = which == ATTR_CRASH ? "crash" :
			   which == ATTR_SB    ? "dummy" :
						 be->perf_event;
	const char *mod = "";
	bool pmu;

	/* perf's spelling: "intel_pt//u" but "cpu-clock:u" */
	if (a->exclude_kernel && !a->exclude_user)
		mod = "u";
	else if (!a->exclude_kernel && a->exclude_user)
		mod = "k";
	pmu = which == ATTR_DATA && be->perf_pmu_event;
	if (which == ATTR_CRASH)
		mod = "";
	snprintf(buf, len, "%s%s%s", base, *mod && !pmu ? ":" : "", mod);
}

/* HEADER_EVENT_DESC: lets perf name the events as perf record would. */
static void feat_event_desc(struct writer *w, struct blob *b)
{
	unsigned int i, n = w->snap->nr_cores;
	char name[32];
	int a;

	blob_u32(b, (__u32)w->nr_attrs);
	blob_u32(b, PERFFILE_ATTR_SIZE);
	for (a = 0; a < w->nr_attrs; a++) {
		blob_put(b, &w->attr[a], PERFFILE_ATTR_SIZE);
		blob_u32(b, n);
		event_name(w->snap, a, name, sizeof(name));
		blob_str(b, name);
		for (i = 0; i < n; i++)
			blob_put(b, &w->ids[a][i], sizeof(__u64));
	}
}

/* perf sizes per-CPU tables from NRCPUS: cover every traced CPU */
static __u32 nr_avail(const struct snapshot *s)
{
	__u32 avail = s->run.cpu_info.nr_cpus_avail;
	unsigned int i;

	for (i = 0; i < s->nr_cores; i++)
		if ((__u32)s->cores[i].cpu + 1 > avail)
			avail = (__u32)s->cores[i].cpu + 1;
	return avail;
}

static void feat_nrcpus(const struct snapshot *s, struct blob *b)
{
	__u32 online = s->run.cpu_info.nr_cpus_online;

	if (!online)
		online = s->nr_cores;
	blob_u32(b, nr_avail(s));
	blob_u32(b, online);
}

static void blob_strs(struct blob *b, unsigned int n, const char *const *v)
{
	unsigned int i;

	blob_u32(b, n);
	for (i = 0; i < n; i++)
		blob_str(b, v[i]);
}

/*
 * CPU_TOPOLOGY: core and thread sibling lists, each CPU's core and socket
 * id for as many CPUs as NRCPUS calls available (perf reads exactly that
 * many), then the die lists and ids.
 */
static void feat_topology(const struct snapshot *s, const struct perfhost_topology *t,
			  struct blob *b)
{
	__u32 i, avail = nr_avail(s);
	const struct perfhost_cpu_topo none = { -1, -1, -1 };
	const struct perfhost_cpu_topo *c;

	blob_strs(b, t->nr_cores, t->core_siblings);
	blob_strs(b, t->nr_threads, t->thread_siblings);
	for (i = 0; i < avail; i++) {
		c = i < t->nr_cpus ? &t->cpus[i] : &none;
		blob_u32(b, (__u32)c->core_id);
		blob_u32(b, (__u32)c->socket_id);
	}
	if (!t->nr_dies)
		return; /* perf stops where the section ends */
	blob_strs(b, t->nr_dies, t->die_siblings);
	for (i = 0; i < avail; i++) {
		c = i < t->nr_cpus ? &t->cpus[i] : &none;
		blob_u32(b, (__u32)c->die_id);
	}
}

/* Whether an earlier code mapping already named @i's file. */
static bool seen_before(const struct snap_process *p, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < i; k++)
		if ((p->maps[k].prot & PROT_EXEC) && p->maps[k].path &&
		    !strcmp(p->maps[k].path, p->maps[i].path))
			return true;
	return false;
}

/* Process @k of the snapshot: the target (0), then the followed ones. */
static const struct snap_process *nth_process(const struct snapshot *s, unsigned int k)
{
	return k ? &s->more[k - 1] : &s->proc;
}

/* An earlier process of the snapshot maps code from @path too. */
static bool seen_in_earlier(const struct snapshot *s, unsigned int k, const char *path)
{
	unsigned int j, i;

	for (j = 0; j < k; j++) {
		const struct snap_process *q = nth_process(s, j);

		for (i = 0; i < q->nr_maps; i++)
			if ((q->maps[i].prot & PROT_EXEC) && q->maps[i].path &&
			    !strcmp(q->maps[i].path, path))
				return true;
	}
	return false;
}

/*
 * BUILD_ID: one perf_record_header_build_id per file the target, and each
 * process it follows, has code mapped from (a superset of those with
 * samples or trace): header (type 0, misc user + "size valid"), pid -1
 * (perf's host machine), 20 bytes of id, its size, padding, then the name
 * NUL-padded to NAME_ALIGN. Here: those of process @k not listed before.
 */
static void put_build_id(struct blob *b, const uint8_t *id, size_t len, const char *name)
{
	struct perffile_build_id rec;
	size_t name_len = strlen(name) + 1;
	size_t padded = (name_len + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	memset(&rec, 0, sizeof(rec));
	memcpy(rec.build_id, id, len);
	rec.build_id[BUILDID_MAX] = (uint8_t)len;
	rec.pid = -1;
	rec.header.misc = PERF_RECORD_MISC_USER | PERFFILE_MISC_BUILD_ID_SIZE;
	rec.header.size = (__u16)(sizeof(rec) + padded);
	blob_put(b, &rec, sizeof(rec));
	blob_put(b, name, name_len);
	blob_put(b, NULL, padded - name_len);
}

static void build_ids_of(const struct snapshot *s, unsigned int k,
			 int (*get)(const char *, uint8_t *, size_t *), struct blob *b)
{
	const struct snap_process *p = nth_process(s, k);
	uint8_t id[BUILDID_MAX];
	unsigned int i;
	size_t len;

	for (i = 0; i < p->nr_maps; i++) {
		const struct snap_map *m = &p->maps[i];

		if (!(m->prot & PROT_EXEC) || !m->path || m->path[0] != '/' || seen_before(p, i) ||
		    seen_in_earlier(s, k, m->path))
			continue;
		if (get(m->path, id, &len) || !len || len > BUILDID_MAX)
			continue;
		put_build_id(b, id, len, m->path);
	}
}

/*
 * The vDSO saved with the snapshot, once, named "[vdso]" as perf record
 * names it: perf finds its copy in the build-id cache by that id.
 */
static void build_id_vdso(const struct snapshot *s, struct blob *b)
{
	const struct vdso_image *v = s->run.vdso;
	unsigned int k;

	if (!v || !v->len || !v->build_id_len)
		return;
	for (k = 0; k <= s->nr_more; k++)
		if (nth_process(s, k)->vdso == SNAP_VDSO_NATIVE) {
			put_build_id(b, v->build_id, v->build_id_len, "[vdso]");
			return;
		}
}

static bool feat_build_id(const struct snapshot *s, const struct perfhost *h, struct blob *b)
{
	int (*get)(const char *, uint8_t *, size_t *) = h->build_id ? h->build_id : buildid_read;
	unsigned int k;

	for (k = 0; k <= s->nr_more; k++)
		build_ids_of(s, k, get, b);
	build_id_vdso(s, b);
	return b->len > 0;
}

/* CLOCK_DATA: version 1, the clockid, time of day and that clock's ns. */
static void feat_clock_data(const struct snapshot *s, const struct perfhost *h, struct blob *b)
{
	struct perffile_clock_data cd = {
		.version = 1,
		.clockid = (__u32)s->run.data_attr.clockid,
		.tod_ns = h->clock_tod_ns,
		.clock_ns = h->clock_ns,
	};

	blob_put(b, &cd, sizeof(cd));
}

/* Builds feature @f into @b; returns false when the file leaves it out. */
static bool feat_build(struct writer *w, const struct perfhost *h, int f, struct blob *b)
{
	const struct snap_cpu_info *ci = &w->snap->run.cpu_info;
	char cpuid[64];
	unsigned int i;

	switch (f) {
	case PERFFILE_FEAT_BUILD_ID:
		return feat_build_id(w->snap, h, b);
	case PERFFILE_FEAT_CPUDESC:
		/*
		 * perf 6.1's `data convert --to-json` dereferences a missing
		 * CPUDESC (exit 139; seen on a perf-recorded file with the
		 * feature taken out): without a model name, the vendor.
		 */
		if (!h->cpudesc && !ci->vendor[0])
			return false;
		blob_str(b, h->cpudesc ? h->cpudesc : ci->vendor);
		return true;
	case PERFFILE_FEAT_TOTAL_MEM:
		if (!h->total_mem_kb)
			return false;
		blob_put(b, &h->total_mem_kb, sizeof(h->total_mem_kb));
		return true;
	case PERFFILE_FEAT_CPU_TOPOLOGY:
		if (!h->topo)
			return false;
		feat_topology(w->snap, h->topo, b);
		return true;
	case PERFFILE_FEAT_CLOCKID:
	case PERFFILE_FEAT_CLOCK_DATA:
		/* perf record writes them only for events with their clock */
		if (!w->snap->run.data_attr.use_clockid || !h->clock_res_ns)
			return false;
		if (f == PERFFILE_FEAT_CLOCKID)
			blob_put(b, &h->clock_res_ns, sizeof(h->clock_res_ns));
		else
			feat_clock_data(w->snap, h, b);
		return true;
	case PERFFILE_FEAT_HOSTNAME:
	case PERFFILE_FEAT_OSRELEASE:
	case PERFFILE_FEAT_VERSION:
	case PERFFILE_FEAT_ARCH: {
		const char *v = f == PERFFILE_FEAT_HOSTNAME  ? h->hostname :
				f == PERFFILE_FEAT_OSRELEASE ? h->osrelease :
				f == PERFFILE_FEAT_VERSION   ? h->version :
							       h->arch;
		if (!v)
			return false;
		blob_str(b, v);
		return true;
	}
	case PERFFILE_FEAT_NRCPUS:
		feat_nrcpus(w->snap, b);
		return true;
	case PERFFILE_FEAT_CPUID:
		if (!ci->vendor[0])
			return false;
		/* x86 perf's get_cpuid(): "vendor,family,model,stepping" */
		snprintf(cpuid, sizeof(cpuid), "%.16s,%u,%u,%u", ci->vendor, ci->family, ci->model,
			 ci->stepping);
		blob_str(b, cpuid);
		return true;
	case PERFFILE_FEAT_CMDLINE:
		if (!h->argc || !h->argv)
			return false;
		blob_u32(b, h->argc);
		for (i = 0; i < h->argc; i++)
			blob_str(b, h->argv[i] ? h->argv[i] : "");
		return true;
	case PERFFILE_FEAT_EVENT_DESC:
		feat_event_desc(w, b);
		return true;
	}
	return false;
}

/* In increasing bit order: the order of the section table. */
static const int feats[] = {
	PERFFILE_FEAT_BUILD_ID, PERFFILE_FEAT_HOSTNAME,	  PERFFILE_FEAT_OSRELEASE,
	PERFFILE_FEAT_VERSION,	PERFFILE_FEAT_ARCH,	  PERFFILE_FEAT_NRCPUS,
	PERFFILE_FEAT_CPUDESC,	PERFFILE_FEAT_CPUID,	  PERFFILE_FEAT_TOTAL_MEM,
	PERFFILE_FEAT_CMDLINE,	PERFFILE_FEAT_EVENT_DESC, PERFFILE_FEAT_CPU_TOPOLOGY,
	PERFFILE_FEAT_CLOCKID,	PERFFILE_FEAT_CLOCK_DATA,
};
#define NR_FEATS (sizeof(feats) / sizeof(feats[0]))

/*
 * The feature section: a table of {offset, size}, one per bit set in
 * increasing bit order, at the end of the data section, then the contents.
 */
static int put_features(struct writer *w, const struct perfhost *h, struct perffile_header *hdr)
{
	struct blob b[NR_FEATS] = { 0 };
	struct perffile_section sec;
	__u64 off;
	unsigned int i, n = 0;
	int err = 0;

	for (i = 0; i < NR_FEATS; i++) {
		if (!feat_build(w, h, feats[i], &b[i]))
			continue;
		if (b[i].err)
			err = b[i].err;
		hdr->features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		n++;
	}
	off = w->out.off + n * sizeof(sec);
	for (i = 0; i < NR_FEATS && !err; i++) {
		if (!b[i].p)
			continue;
		sec.offset = off;
		sec.size = b[i].len;
		fileout_write(&w->out, &sec, sizeof(sec));
		off += b[i].len;
	}
	for (i = 0; i < NR_FEATS; i++) {
		if (!err && b[i].p)
			fileout_write(&w->out, b[i].p, b[i].len);
		free(b[i].p);
	}
	return err;
}

/* Header placeholder, each attr's IDs, then the attrs section. */
static void put_attrs(struct writer *w, struct perffile_header *hdr)
{
	unsigned int n = w->snap->nr_cores;
	struct perffile_section ids;
	__u64 ids_off[NR_ATTRS];
	int a;

	fileout_zero(&w->out, sizeof(*hdr));
	for (a = 0; a < w->nr_attrs; a++) {
		ids_off[a] = w->out.off;
		fileout_write(&w->out, w->ids[a], n * sizeof(__u64));
	}
	hdr->attrs_off = w->out.off;
	for (a = 0; a < w->nr_attrs; a++) {
		/* struct perffile_attr, its attr cut to PERFFILE_ATTR_SIZE */
		fileout_write(&w->out, &w->attr[a], PERFFILE_ATTR_SIZE);
		ids.offset = ids_off[a];
		ids.size = n * sizeof(__u64);
		fileout_write(&w->out, &ids, sizeof(ids));
	}
	hdr->attrs_size = w->out.off - hdr->attrs_off;
}

static int writer_init(struct writer *w, const struct snapshot *snap)
{
	unsigned int i;
	int a;

	w->snap = snap;
	w->nr_attrs = snap->crash.valid ? NR_ATTRS : ATTR_CRASH;
	perfdata_file_attr(&snap->run.data_attr, &w->attr[ATTR_DATA]);
	perfdata_file_attr(&snap->run.sb_attr, &w->attr[ATTR_SB]);
	crash_attr(snap, &w->attr[ATTR_CRASH]);
	for (a = 0; a < NR_ATTRS; a++) {
		w->ids[a] = calloc(snap->nr_cores, sizeof(__u64));
		if (!w->ids[a])
			return -ENOMEM;
	}
	for (i = 0; i < snap->nr_cores; i++) {
		perfdata_core_ids(snap, i, &w->ids[ATTR_DATA][i], &w->ids[ATTR_SB][i]);
		/* above both of perfdata_core_ids()'s made-up ranges */
		w->ids[ATTR_CRASH][i] = SYNTH_ID_BASE + (1ULL << 40) + i;
	}
	return 0;
}

static int write_file(struct writer *w, const struct perfhost *host)
{
	struct perffile_header hdr;
	int err;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, "PERFILE2", 8);
	hdr.size = sizeof(hdr);
	hdr.attr_size = PERFFILE_ATTR_SIZE + 2 * sizeof(__u64);
	put_attrs(w, &hdr);
	hdr.data_off = w->out.off;
	err = put_data(w);
	if (err)
		return err;
	hdr.data_size = w->out.off - hdr.data_off;
	err = put_features(w, host, &hdr);
	if (err)
		return err;
	return fileout_pwrite(&w->out, &hdr, sizeof(hdr), 0);
}

int perfdata_write(int fd, const struct snapshot *snap, const struct perfhost *host)
{
	struct hostinfo *hi = NULL;
	struct writer *w;
	int err, a;

	if (!snap || !snap->nr_cores || !snap->cores || !backend_known(snap->run.backend))
		return -EINVAL;
	if (!host) {
		hi = calloc(1, sizeof(*hi));
		err = hi ? hostinfo_read(hi, NULL,
					 snap->run.data_attr.use_clockid ?
						 (clockid_t)snap->run.data_attr.clockid :
						 -1,
					 nr_avail(snap)) :
			   -ENOMEM;
		if (err) {
			free(hi);
			return err;
		}
		host = &hi->host;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		hostinfo_free(hi);
		free(hi);
		return -ENOMEM;
	}
	fileout_init(&w->out, fd);
	err = writer_init(w, snap);
	if (!err)
		err = write_file(w, host);
	if (!err)
		err = fileout_flush(&w->out);
	for (a = 0; a < NR_ATTRS; a++)
		free(w->ids[a]);
	free(w);
	hostinfo_free(hi);
	free(hi);
	return err;
}
