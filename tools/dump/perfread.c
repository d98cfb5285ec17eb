// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data and context-switch records, read back for ptbpf-dump: see
 * perfread.h. Only what ptbpf writes is understood (perf.data-file-format
 * in the kernel tree); every length and offset comes from the file and is
 * checked against the buffer before use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "snap.h"
#include "perfread.h"
#include "unwind.h"
#include "perffile.h"
#include "perfrec.h"

/*
 * PERF_SAMPLE_BRANCH_COUNTERS (Linux 6.8): a counter per branch after the
 * entries. Not in older uapi headers.
 */
#ifdef PERF_SAMPLE_BRANCH_COUNTERS
#define PERFREAD_BRANCH_COUNTERS PERF_SAMPLE_BRANCH_COUNTERS
#else
#define PERFREAD_BRANCH_COUNTERS (1ULL << 19)
#endif

struct attr_info {
	uint64_t sample_type, sample_period, regs_user;
	uint64_t read_format, branch_type; /* how READ and BRANCH_STACK are laid out */
	bool id_all, freq;
	uint32_t type;
	/* ptbpf's crash event: a software dummy with user registers */
	bool crash;
};

struct perf_ctx {
	struct dump_snap *s;
	const char *file;
	struct dump_log *log;
	const uint8_t *buf;
	size_t len;
	struct attr_info *attrs;
	unsigned int nr_attrs;
	uint64_t *ids; /* ids[i] belongs to attrs[id_attr[i]] */
	unsigned int *id_attr;
	size_t nr_ids;
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* True when [@off, @off + @n) lies inside [0, @len). */
static bool inside(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/*
 * Kept in time order: the PT event's ITRACE_STARTs follow the switch
 * records in perf.data, each stream in time order of its own.
 */
static int add_switch(struct dump_core *c, const struct dump_switch *sw)
{
	struct dump_switch *n;
	size_t at = c->nr_sw;

	if (!(c->nr_sw & (c->nr_sw - 1))) {
		n = realloc(c->sw, (c->nr_sw ? c->nr_sw * 2 : 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->sw = n;
	}
	while (at && c->sw[at - 1].time > sw->time)
		at--;
	memmove(&c->sw[at + 1], &c->sw[at], (c->nr_sw - at) * sizeof(*c->sw));
	c->sw[at] = *sw;
	c->nr_sw++;
	c->nr_starts += sw->start;
	return 0;
}

/* One SWITCH or SWITCH_CPU_WIDE record of @len bytes, sample IDs @type. */
static int one_switch(struct dump_core *c, const struct perf_event_header *h, uint64_t type)
{
	const uint8_t *r = (const uint8_t *)h;
	struct dump_switch sw = { 0 };
	struct perfrec_id id;
	int ret;

	ret = perfrec_id_get(h, h->size, type, &id);
	if (ret)
		return ret;
	sw.time = id.time;
	sw.out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	sw.pid = (int32_t)id.pid;
	sw.tid = (int32_t)id.tid;
	if (sw.out) {
		/* who comes next is only known to the CPU-wide record */
		sw.pid = sw.tid = -1;
		if (h->type == PERF_RECORD_SWITCH_CPU_WIDE) {
			struct perfrec_switch_cpu_wide cw;

			if (h->size < sizeof(cw) + perfrec_id_size(type))
				return -EBADMSG;
			memcpy(&cw, r, sizeof(cw));
			sw.pid = (int32_t)cw.next_prev_pid;
			sw.tid = (int32_t)cw.next_prev_tid;
		}
	}
	return add_switch(c, &sw);
}

int perfread_switches(struct dump_core *core, const uint8_t *buf, size_t len, uint64_t type,
		      const char *file, struct dump_log *log)
{
	const struct perf_event_header *h;
	size_t off = 0;
	int ret;

	while ((ret = perfrec_next(buf, len, &off, &h)) > 0) {
		if (h->type != PERF_RECORD_SWITCH && h->type != PERF_RECORD_SWITCH_CPU_WIDE)
			continue;
		ret = one_switch(core, h, type);
		if (ret == -ENOMEM)
			return ret;
		if (ret) {
			snap_error(log, file, (int64_t)(off - h->size),
				   "context switch record too short (%u bytes)", h->size);
			return -EBADMSG;
		}
	}
	if (ret == -EBADMSG)
		snap_error(log, file, (int64_t)off,
			   "bad record header: cut off, or a size that is 0, "
			   "not a multiple of 8 or past the end");
	return ret;
}

static int read_attrs(struct perf_ctx *x, const struct perffile_header *fh)
{
	uint64_t n, i, k, asz = fh->attr_size;
	struct perffile_section ids;
	struct perf_event_attr attr;
	const uint8_t *a;

	/* an attr of at least PERF_ATTR_SIZE_VER0, then its IDs' section */
	if (asz < PERF_ATTR_SIZE_VER0 + sizeof(ids) || asz > 4096 || !fh->attrs_size ||
	    fh->attrs_size % asz || !inside(x->len, fh->attrs_off, fh->attrs_size)) {
		snap_error(x->log, x->file, 16,
			   "bad attrs section (attr_size %" PRIu64 ", offset %llu, "
			   "size %llu)",
			   asz, fh->attrs_off, fh->attrs_size);
		return -EBADMSG;
	}
	n = fh->attrs_size / asz;
	x->attrs = calloc(n, sizeof(*x->attrs));
	if (!x->attrs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		a = x->buf + fh->attrs_off + i * asz;
		/* struct perffile_attr, with the file's attr size */
		memset(&attr, 0, sizeof(attr));
		memcpy(&attr, a,
		       asz - sizeof(ids) < sizeof(attr) ? asz - sizeof(ids) : sizeof(attr));
		x->attrs[i].type = attr.type;
		x->attrs[i].sample_period = attr.sample_period;
		x->attrs[i].sample_type = attr.sample_type;
		x->attrs[i].id_all = attr.sample_id_all;
		x->attrs[i].freq = attr.freq;
		x->attrs[i].regs_user = attr.sample_regs_user;
		x->attrs[i].read_format = attr.read_format;
		x->attrs[i].branch_type = attr.branch_sample_type;
		x->attrs[i].crash = attr.type == PERF_TYPE_SOFTWARE &&
				    attr.config == PERF_COUNT_SW_DUMMY &&
				    (attr.sample_type & PERF_SAMPLE_REGS_USER);
		memcpy(&ids, a + asz - sizeof(ids), sizeof(ids));
		if (ids.size % 8 || !inside(x->len, ids.offset, ids.size)) {
			snap_error(x->log, x->file, (int64_t)(fh->attrs_off + i * asz),
				   "attr %" PRIu64 ": ID array out of the file", i);
			continue;
		}
		for (k = 0; k < ids.size / 8; k++) {
			if (!(x->nr_ids & (x->nr_ids - 1))) {
				size_t cap = x->nr_ids ? x->nr_ids * 2 : 1;
				void *p = realloc(x->ids, cap * 8);
				void *q = p ? realloc(x->id_attr, cap * sizeof(unsigned)) : NULL;

				if (p)
					x->ids = p;
				if (!q)
					return -ENOMEM;
				x->id_attr = q;
			}
			x->ids[x->nr_ids] = get64(x->buf + ids.offset + k * 8);
			x->id_attr[x->nr_ids++] = (unsigned int)i;
		}
	}
	x->nr_attrs = (unsigned int)n;
	return 0;
}

/* The attr of record @h: by its IDENTIFIER, or the only one there is. */
static const struct attr_info *attr_of(const struct perf_ctx *x, const struct perf_event_header *h)
{
	const uint8_t *r = (const uint8_t *)h;
	uint64_t id;
	size_t i;

	if (x->nr_attrs == 1)
		return &x->attrs[0];
	if (!(x->attrs[0].sample_type & PERF_SAMPLE_IDENTIFIER) || h->size < 16)
		return NULL;
	/* IDENTIFIER: first in a sample, last in a sample ID trailer */
	id = get64(h->type == PERF_RECORD_SAMPLE ? r + 8 : r + h->size - 8);
	for (i = 0; i < x->nr_ids; i++)
		if (x->ids[i] == id)
			return &x->attrs[x->id_attr[i]];
	return NULL;
}

/*
 * The fields of a sample after its fixed leading ones, read in the order
 * the kernel writes them (perf_output_sample(), the layout in
 * linux/perf_event.h): PERIOD, READ, CALLCHAIN, RAW, BRANCH_STACK,
 * REGS_USER, STACK_USER, then what ptbpf-dump does not read. Each field is
 * stepped over whether it is wanted or not, so the registers and the stack
 * are found whatever else the sample carries.
 */
struct sample_cur {
	const uint8_t *r;
	size_t off, end;
};

/* Take @n bytes (*@p: where they are; may be NULL), or -EBADMSG. */
static int cur_take(struct sample_cur *c, uint64_t n, const uint8_t **p)
{
	if (n > c->end - c->off)
		return -EBADMSG;
	if (p)
		*p = c->r + c->off;
	c->off += (size_t)n;
	return 0;
}

static int cur_u64(struct sample_cur *c, uint64_t *v)
{
	const uint8_t *p;

	if (cur_take(c, 8, &p))
		return -EBADMSG;
	*v = get64(p);
	return 0;
}

/* Take @nr items of @size bytes, checked for overflow, or -EBADMSG. */
static int cur_items(struct sample_cur *c, uint64_t nr, uint64_t size, const uint8_t **p)
{
	if (nr > (c->end - c->off) / size)
		return -EBADMSG;
	return cur_take(c, nr * size, p);
}

/*
 * PERF_SAMPLE_READ as read_format @fmt lays it out (perf_output_read()):
 * one event's value, [time_enabled], [time_running], [id], [lost]; or of a
 * group, nr, [time_enabled], [time_running], then nr of {value, [id],
 * [lost]}.
 */
static int skip_read(struct sample_cur *c, uint64_t fmt)
{
	uint64_t times =
		!!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t each = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST), nr;

	if (!(fmt & PERF_FORMAT_GROUP))
		return cur_items(c, times + each, 8, NULL);
	if (cur_u64(c, &nr) || cur_items(c, times, 8, NULL))
		return -EBADMSG;
	return cur_items(c, nr, each * 8, NULL);
}

/*
 * PERF_SAMPLE_BRANCH_STACK: nr, [hw_idx] (PERF_SAMPLE_BRANCH_HW_INDEX),
 * nr entries of {from, to, flags}, then nr counters
 * (PERF_SAMPLE_BRANCH_COUNTERS, Linux 6.8). perf reads them the same way.
 */
static int skip_branches(struct sample_cur *c, uint64_t branch_type)
{
	uint64_t nr;

	if (cur_u64(c, &nr))
		return -EBADMSG;
	if ((branch_type & PERF_SAMPLE_BRANCH_HW_INDEX) && cur_take(c, 8, NULL))
		return -EBADMSG;
	if (cur_items(c, nr, 3 * 8, NULL))
		return -EBADMSG;
	if (branch_type & PERFREAD_BRANCH_COUNTERS)
		return cur_items(c, nr, 8, NULL);
	return 0;
}

/* REGS_USER: abi, then the registers of the mask unless abi is NONE. */
static int take_regs(struct sample_cur *c, const struct attr_info *a, struct dump_sample *smp)
{
	uint64_t abi;

	if (cur_u64(c, &abi))
		return -EBADMSG;
	if (!abi)
		return 0;
	smp->regs_mask = a->regs_user;
	return cur_items(c, (uint64_t)__builtin_popcountll(a->regs_user), 8, &smp->regs);
}

/* STACK_USER: size, the bytes, and the size really copied (when size > 0). */
static int take_stack(struct sample_cur *c, struct dump_sample *smp)
{
	const uint8_t *bytes;
	uint64_t size, dyn;

	if (cur_u64(c, &size))
		return -EBADMSG;
	if (!size)
		return 0;
	if (cur_take(c, size, &bytes) || cur_u64(c, &dyn))
		return -EBADMSG;
	smp->stack = bytes;
	smp->stack_len = dyn < size ? dyn : size;
	return 0;
}

static int sample_fields(struct sample_cur *c, const struct attr_info *a, struct dump_sample *smp)
{
	uint64_t type = a->sample_type, nr;
	const uint8_t *p;

	if ((type & PERF_SAMPLE_PERIOD) && cur_take(c, 8, NULL))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_READ) && skip_read(c, a->read_format))
		return -EBADMSG;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (cur_u64(c, &nr) || cur_items(c, nr, 8, &p))
			return -EBADMSG;
		smp->chain = p;
		smp->nr_chain = (uint32_t)nr;
	}
	if (type & PERF_SAMPLE_RAW) {
		uint32_t size;

		/* the kernel pads data[] so that size and data end 8-aligned */
		if (cur_take(c, sizeof(size), &p))
			return -EBADMSG;
		memcpy(&size, p, sizeof(size));
		if (cur_take(c, size, NULL))
			return -EBADMSG;
	}
	if ((type & PERF_SAMPLE_BRANCH_STACK) && skip_branches(c, a->branch_type))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_REGS_USER) && take_regs(c, a, smp))
		return -EBADMSG;
	if ((type & PERF_SAMPLE_STACK_USER) && take_stack(c, smp))
		return -EBADMSG;
	return 0;
}

/* One sample: the fixed leading fields, then the others (sample_fields()). */
static int one_sample(struct perf_ctx *x, const struct perf_event_header *h,
		      const struct attr_info *a)
{
	struct sample_cur cur = { (const uint8_t *)h, sizeof(*h), h->size };
	struct dump_sample smp = { 0 };
	struct perfrec_id id;
	struct dump_core *c;
	uint32_t cpu = 0;
	void *n;

	if (cur_take(&cur, perfrec_sample_size(a->sample_type), NULL))
		return -EBADMSG;
	perfrec_sample_get(cur.r + sizeof(*h), a->sample_type, &id);
	smp.ip = id.ip;
	smp.time = id.time;
	if (a->sample_type & PERF_SAMPLE_TID) {
		smp.pid = id.pid;
		smp.tid = id.tid;
	}
	if (a->sample_type & PERF_SAMPLE_CPU)
		cpu = id.cpu;
	if (cpu > 1 << 20)
		return -EBADMSG;
	if (sample_fields(&cur, a, &smp))
		return -EBADMSG;
	if (smp.regs && smp.stack) {
		if (!x->s->uw) {
			x->s->uw = unwind_ctx_new();
			x->s->uw_free = unwind_ctx_free;
		}
		if (!x->s->uw)
			return -ENOMEM;
		smp.uw = x->s->uw;
	}
	if (a->crash) {
		/* not a sample of the recording: the fault's own record */
		x->s->crash = smp;
		x->s->has_crash = smp.regs && smp.stack;
		return 0;
	}
	c = snap_find_core(x->s, (int)cpu);
	if (!c)
		return -ENOMEM;
	if (!(c->nr_samples & (c->nr_samples - 1))) {
		n = realloc(c->samples,
			    (c->nr_samples ? c->nr_samples * 2 : 1) * sizeof(*c->samples));
		if (!n)
			return -ENOMEM;
		c->samples = n;
	}
	c->samples[c->nr_samples++] = smp;
	if (a->sample_period) {
		x->s->sample_period = a->sample_period;
		x->s->sample_freq = a->freq;
	}
	return 0;
}

static int one_cpu_switch(struct perf_ctx *x, const struct perf_event_header *h,
			  const struct attr_info *a)
{
	struct perfrec_id id;
	struct dump_core *c;

	if (!a->id_all || !(a->sample_type & PERF_SAMPLE_CPU) ||
	    perfrec_id_get(h, h->size, a->sample_type, &id) || id.cpu > 1 << 20)
		return -EBADMSG;
	c = snap_find_core(x->s, (int)id.cpu);
	if (!c)
		return -ENOMEM;
	return one_switch(c, h, a->sample_type);
}

/*
 * An ITRACE_START of a PT event: from then on its CPU runs the thread it
 * names (the kernel's at PT's first start there, ptbpf's at the start of
 * a window).
 */
static int one_itrace_start(struct perf_ctx *x, const struct perf_event_header *h,
			    const struct attr_info *a)
{
	struct dump_switch sw = { .start = true };
	struct perfrec_id id;
	struct dump_core *c;
	uint32_t v[2];

	if (!a->id_all || !(a->sample_type & PERF_SAMPLE_CPU) ||
	    h->size < sizeof(*h) + sizeof(v) + perfrec_id_size(a->sample_type) ||
	    perfrec_id_get(h, h->size, a->sample_type, &id) || id.cpu > 1 << 20)
		return -EBADMSG;
	memcpy(v, h + 1, sizeof(v));
	c = snap_find_core(x->s, (int)id.cpu);
	if (!c)
		return -ENOMEM;
	sw.time = id.time;
	sw.pid = (int32_t)v[0];
	sw.tid = (int32_t)v[1];
	return add_switch(c, &sw);
}

/*
 * MMAP2: code mapped in a process of the run, kept as that process's (a
 * followed process may run another program): a file's lowest mapping is
 * its offset 0; [vdso] and [uprobes] are ranges, named as perf names them.
 */
static int one_mmap2(struct perf_ctx *x, const struct perf_event_header *h,
		     const struct attr_info *a)
{
	const uint8_t *r = (const uint8_t *)h;
	size_t name_end = h->size - (a->id_all ? perfrec_id_size(a->sample_type) : 0);
	const char *name = (const char *)r + sizeof(struct perfrec_mmap2);
	struct perfrec_mmap2 mm;
	struct dump_module *m;
	struct dump_proc *pr;
	uint64_t load;
	unsigned int i;
	void *n;

	/* the fixed part, then a NUL-terminated name, NUL-padded to 8 */
	if (h->size < sizeof(mm) + 8 || name_end < sizeof(mm) + 1 ||
	    !memchr(name, 0, name_end - sizeof(mm)))
		return -EBADMSG;
	memcpy(&mm, r, sizeof(mm));
	if (!(mm.prot & PROT_EXEC) || (x->s->pid && !snap_followed(x->s, mm.pid)) ||
	    (name[0] != '[' && name[0] != '/'))
		return 0;
	pr = snap_proc_get(x->s, mm.pid);
	if (!pr)
		return -ENOMEM;
	if (name[0] == '[') {
		struct dump_range *rg;

		n = reallocarray(pr->ranges, pr->nr_ranges + 1, sizeof(*rg));
		if (!n)
			return -ENOMEM;
		pr->ranges = n;
		rg = &pr->ranges[pr->nr_ranges++];
		rg->start = mm.addr;
		rg->end = mm.addr + mm.len;
		snprintf(rg->name, sizeof(rg->name), "%.*s", (int)strcspn(name, "]") + 1, name);
		return 0;
	}
	load = mm.addr - mm.pgoff;
	for (i = 0; i < pr->nr_modules; i++) {
		m = &pr->modules[i];
		if (!strcmp(m->path, name)) {
			if (load < m->load)
				m->load = load;
			return 0;
		}
	}
	n = reallocarray(pr->modules, pr->nr_modules + 1, sizeof(*m));
	if (!n)
		return -ENOMEM;
	pr->modules = n;
	m = &pr->modules[pr->nr_modules];
	m->path = strdup(name);
	m->load = load;
	if (!m->path)
		return -ENOMEM;
	pr->nr_modules++;
	return 0;
}

/* AUXTRACE: struct perfrec_auxtrace, then its data; returns the data's size. */
static int64_t one_auxtrace(struct perf_ctx *x, size_t off, size_t end)
{
	const uint8_t *r = x->buf + off;
	const struct perf_event_header *h = (const void *)r;
	struct perfrec_auxtrace rec;
	uint64_t size;
	uint32_t cpu;
	struct dump_core *c;
	size_t avail;

	/* walk_data checked h->size <= end - off */
	if (h->size < sizeof(rec))
		return -EBADMSG;
	memcpy(&rec, r, sizeof(rec));
	size = rec.size;
	cpu = rec.cpu;
	if (cpu > 1 << 20)
		return -EBADMSG;
	avail = end - off - h->size;
	if (size > avail || size % 8) {
		snap_error(x->log, x->file, (int64_t)off,
			   "AUXTRACE of cpu %u: %" PRIu64 " bytes of trace, %zu in "
			   "the file (truncated?)",
			   cpu, size, avail);
		size = size > avail ? avail : size;
	}
	c = snap_find_core(x->s, (int)cpu);
	if (!c)
		return -ENOMEM;
	if (c->trace) {
		snap_error(x->log, x->file, (int64_t)off, "a second AUXTRACE for cpu %u: left out",
			   cpu);
		return (int64_t)size;
	}
	c->trace = r + h->size;
	/* perf pads the data to 8 bytes; ptbpf.json has the exact count */
	c->trace_len = c->in_meta && c->bytes <= size ? c->bytes : size;
	c->trace_off = off + h->size;
	snprintf(c->trace_file, sizeof(c->trace_file), "%s", x->file);
	return (int64_t)size;
}

static int one_record(struct perf_ctx *x, size_t off, size_t end, int64_t *skip)
{
	const struct perf_event_header *h = (const void *)(x->buf + off);
	const struct attr_info *a;

	*skip = 0;
	if (h->type == PERFFILE_RECORD_AUXTRACE) {
		int64_t n = one_auxtrace(x, off, end);

		/* a malformed header: go on after it, never backwards */
		if (n < 0)
			return (int)n;
		*skip = n;
		return 0;
	}
	if (h->type != PERF_RECORD_SAMPLE && h->type != PERF_RECORD_MMAP2 &&
	    h->type != PERF_RECORD_SWITCH_CPU_WIDE && h->type != PERF_RECORD_SWITCH &&
	    h->type != PERF_RECORD_ITRACE_START)
		return 0;
	a = attr_of(x, h);
	if (!a)
		return -ENOENT;
	if (h->type == PERF_RECORD_ITRACE_START)
		return one_itrace_start(x, h, a);
	if (h->type == PERF_RECORD_SAMPLE)
		return one_sample(x, h, a);
	if (h->type == PERF_RECORD_MMAP2)
		return one_mmap2(x, h, a);
	return one_cpu_switch(x, h, a);
}

static void walk_data(struct perf_ctx *x, const struct perffile_header *fh)
{
	uint64_t end = fh->data_off + fh->data_size;
	const struct perf_event_header *h;
	size_t off = fh->data_off;
	int64_t skip;
	int ret;

	if (end < fh->data_off || end > x->len) {
		snap_error(x->log, x->file, 56,
			   "data section ends at %" PRIu64 ", the file at %zu "
			   "(truncated?)",
			   end, x->len);
		end = x->len;
	}
	while (off < end) {
		/* perf writes every record 8-byte aligned; headers are read
		 * in place */
		if (off % 8) {
			snap_error(x->log, x->file, (int64_t)off, "record not 8-byte aligned");
			return;
		}
		h = (const void *)(x->buf + off);
		if (end - off < 8 || h->size < 8 || h->size > end - off) {
			snap_error(x->log, x->file, (int64_t)off,
				   "record cut off or of a bad size");
			return;
		}
		ret = one_record(x, off, end, &skip);
		if (ret == -ENOMEM)
			return;
		if (ret)
			snap_error(x->log, x->file, (int64_t)off, "record of type %u: %s", h->type,
				   ret == -ENOENT ? "no attr has its ID" : "malformed");
		off += h->size + (size_t)skip;
	}
}

/*
 * Stable, and linear on the sorted input ptbpf writes: a switch-out and
 * the switch-in that follows share a timestamp and must keep their order.
 */
static void sort_switches(struct dump_switch *sw, size_t n)
{
	struct dump_switch t;
	size_t i, k;

	for (i = 1; i < n; i++) {
		t = sw[i];
		for (k = i; k > 0 && sw[k - 1].time > t.time; k--)
			sw[k] = sw[k - 1];
		sw[k] = t;
	}
}

size_t perfread_sample_stack(const struct dump_sample *smp, uint64_t *ips, size_t max)
{
	bool user = false;
	size_t n = 0;
	uint32_t i;
	uint64_t v;

	if (!smp || !ips || !max)
		return 0;
	/* --call-graph dwarf: the kernel's chain has no user part */
	if (smp->uw && (n = unwind_ctx_stack(smp->uw, smp, ips, max)))
		return n;
	ips[n++] = smp->ip;
	for (i = 0; i < smp->nr_chain && n < max; i++) {
		v = get64(smp->chain + 8 * (size_t)i);
		if (v >= (uint64_t)PERF_CONTEXT_MAX) {
			user = v == (uint64_t)PERF_CONTEXT_USER;
			continue;
		}
		/* the user part starts with the sampled IP itself; a frame
		 * walk that ran off the stack ends in 0, never code */
		if (!user || (n == 1 && v == smp->ip && ips[0] == v) || v < 4096)
			continue;
		ips[n++] = v - 1;
	}
	return n;
}

/*
 * CLOCK_DATA (perf's HEADER_CLOCK_DATA): version, clockid, time of day ns,
 * the same moment in the data clock. Features follow the data section as
 * a table of {offset, size}, one per bit set, in bit order.
 */
static void read_clock_data(struct dump_snap *s, const uint8_t *buf, size_t len,
			    const struct perffile_header *fh)
{
	uint64_t tab = fh->data_off + fh->data_size;
	struct perffile_clock_data cd;
	struct perffile_section sec;
	unsigned int bit, idx = 0;

	if (!(fh->features[0] & (1ULL << PERFFILE_FEAT_CLOCK_DATA)))
		return;
	for (bit = 0; bit < PERFFILE_FEAT_CLOCK_DATA; bit++)
		idx += !!(fh->features[0] & (1ULL << bit));
	/* tab and the entry apart: their sum may wrap past a huge offset */
	if (tab < fh->data_off || !inside(len, tab, sizeof(sec) * idx) ||
	    !inside(len, tab + sizeof(sec) * idx, sizeof(sec)))
		return;
	memcpy(&sec, buf + tab + sizeof(sec) * idx, sizeof(sec));
	if (sec.size < sizeof(cd) || !inside(len, sec.offset, sizeof(cd)))
		return;
	memcpy(&cd, buf + sec.offset, sizeof(cd));
	if (cd.version != 1)
		return;
	s->tod_ns = cd.tod_ns;
	s->tod_clock_ns = cd.clock_ns;
	s->has_tod = true;
}

int perfread_parse(struct dump_snap *s, uint8_t *buf, size_t len, const char *file,
		   struct dump_log *log)
{
	struct perf_ctx x = { .s = s, .file = file, .log = log, .buf = buf, .len = len };
	struct perffile_header fh;
	unsigned int i;
	int ret;

	if (s->perf_mapped)
		snap_unmap_file(s->perf_buf, s->perf_len);
	else
		free(s->perf_buf);
	s->perf_buf = buf;
	s->perf_len = len;
	s->perf_mapped = false; /* the caller says when @buf is mapped */
	if (len < sizeof(fh) || memcmp(buf, "PERFILE2", 8)) {
		snap_error(log, file, 0, "not a perf.data file (%s)",
			   len < sizeof(fh) ? "shorter than its header" : "no PERFILE2 magic");
		return -EBADMSG;
	}
	memcpy(&fh, buf, sizeof(fh));
	ret = read_attrs(&x, &fh);
	if (!ret) {
		read_clock_data(s, buf, len, &fh);
		walk_data(&x, &fh);
		for (i = 0; i < s->nr_cores; i++)
			sort_switches(s->cores[i].sw, s->cores[i].nr_sw);
		snap_read_as(s, s->pid);
		/* the samples' modules are all known now */
		if (unwind_ctx_modules(s->uw, s))
			ret = -ENOMEM;
	}
	free(x.attrs);
	free(x.ids);
	free(x.id_attr);
	return ret;
}
