// SPDX-License-Identifier: GPL-2.0
/*
 * A simulated intel_pt PMU and software events behind perf_sys_ops.
 * See sim_pmu.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <intel-pt.h>

#include "collect/auxact.h"
#include "sim_pmu.h"

enum sim_kind { SIM_PT, SIM_SAMPLE, SIM_DUMMY, SIM_UPROBE, SIM_SWITCHES };

struct sim_event {
	bool used;
	enum sim_kind kind;
	int cpu, leader; /* leader: index in ev[], -1 for a leader */
	int parent; /* inherited from ev[parent], has no descriptor; -1 */
	int output; /* PERF_EVENT_IOC_SET_OUTPUT into ev[output]'s rings; -1 */
	__u32 task; /* tid of the task it is bound to; 0: CPU-wide */
	bool exited; /* its task is gone: it never counts again */
	bool enabled;
	/* intel_pt: paused by an aux_pause sibling (hw.aux_paused) */
	bool aux_paused;
	struct perf_event_attr attr;
	__u8 *base, *aux; /* metadata page + data ring; AUX area */
	size_t base_len, aux_len;
	/* The ring's: PT bytes written, not yet published; PSB spacing. */
	__u64 hw_pos;
	size_t since_psb;
	__u64 id;
	/*
	 * The ring's data pages were mapped writable: the kernel keeps what
	 * the reader has not consumed (data_tail) and drops what does not
	 * fit, counting it for a PERF_RECORD_LOST (rb->lost).
	 */
	bool writable;
	__u64 lost;
	/* intel_pt: pt_config() ran once (PERF_ATTACH_ITRACE is set) */
	bool itrace_started;
	/*
	 * intel_pt: started (hw.state 0): pt_event_start() got its AUX
	 * handle, so the hardware writes and the stop ends the session.
	 */
	bool pt_on;
	/* intel_pt ring: the flags of the running session's end */
	__u64 aux_flags;
};

struct sim_fail {
	bool armed;
	int cpu, err;
	unsigned int skip;
};

struct sim_task {
	bool used;
	__u32 pid, tid;
	__u32 ppid; /* its real parent's pid (0: unknown, sim_pmu_task()) */
	int cpu; /* the CPU it is on; -1 off-CPU */
};

struct sim_pmu {
	struct perf_sys_ops ops;
	__u32 pt_type;
	__u32 uprobe_type; /* 0: no uprobe PMU */
	bool aux_action; /* the kernel knows attr.aux_action (>= 6.13) */
	bool drop_records; /* the intel_pt events' records find no room */
	unsigned int nr_cpus;
	bool offline[SIM_MAX_CPUS];
	size_t page_size, psb_every;
	struct sim_event ev[SIM_MAX_EVENTS];
	struct sim_task task[SIM_MAX_TASKS];
	__u32 on_cpu[SIM_MAX_CPUS]; /* tid; 0: idle */
	unsigned long calls[SIM_NR_CALLS];
	struct sim_fail fail[SIM_NR_CALLS];
	__u64 tsc, next_id;
	int last_pid;
	unsigned long last_flags;
};

static struct sim_event *by_fd(struct sim_pmu *sim, int fd)
{
	int i = fd - SIM_FD_BASE;

	/* Inherited events have no descriptor of their own. */
	if (i < 0 || i >= SIM_MAX_EVENTS || !sim->ev[i].used || sim->ev[i].parent >= 0)
		return NULL;
	return &sim->ev[i];
}

static struct sim_task *task_of(struct sim_pmu *sim, __u32 tid)
{
	int i;

	for (i = 0; tid && i < SIM_MAX_TASKS; i++)
		if (sim->task[i].used && sim->task[i].tid == tid)
			return &sim->task[i];
	return NULL;
}

static int free_event(struct sim_pmu *sim)
{
	int i;

	for (i = 0; i < SIM_MAX_EVENTS && sim->ev[i].used; i++)
		;
	return i == SIM_MAX_EVENTS ? -EMFILE : i;
}

/*
 * The event whose rings @e's output goes to: an inherited event writes
 * into its parent's (the kernel's perf_output_begin() and
 * perf_aux_output_begin() go to event->parent), a redirected one into its
 * output's. NULL when that event has no mapped ring.
 */
static struct sim_event *ring_of(struct sim_pmu *sim, struct sim_event *e)
{
	int hops = 0;

	if (e->parent >= 0)
		e = &sim->ev[e->parent];
	while (e->output >= 0 && hops++ < SIM_MAX_EVENTS)
		e = &sim->ev[e->output];
	return e->base ? e : NULL;
}

/* The id the kernel puts in records: an inherited event's parent's. */
static __u64 primary_id(const struct sim_pmu *sim, const struct sim_event *e)
{
	return e->parent >= 0 ? sim->ev[e->parent].id : e->id;
}

/* Writes only while it and its group leader are enabled. */
static bool active(const struct sim_pmu *sim, const struct sim_event *e)
{
	return e->enabled && (e->leader < 0 || sim->ev[e->leader].enabled);
}

/*
 * Whether @e is scheduled in on its CPU now: enabled, and CPU-wide or
 * bound to the task on the CPU.
 */
static bool counting(const struct sim_pmu *sim, const struct sim_event *e)
{
	if (!e->used || !active(sim, e))
		return false;
	return !e->task || (!e->exited && sim->on_cpu[e->cpu] == e->task);
}

/* Count the call; fail it when an injected failure matches. */
static int enter(struct sim_pmu *sim, enum sim_call call, int cpu)
{
	struct sim_fail *f = &sim->fail[call];

	sim->calls[call]++;
	if (!f->armed || (f->cpu >= 0 && f->cpu != cpu))
		return 0;
	if (f->skip) {
		f->skip--;
		return 0;
	}
	f->armed = false;
	return -f->err;
}

/*
 * The kernel's checks of attr.aux_action: before 6.13 the field is
 * reserved (perf_copy_attr(): non-zero is -EINVAL); since, pause and
 * resume together are -EINVAL, and an event that acts on AUX must be in a
 * group whose leader is the AUX event (perf_get_aux_event()).
 */
static int check_aux_action(const struct sim_pmu *sim, const struct perf_event_attr *attr,
			    const struct sim_event *lead)
{
	__u32 act = auxact_get(attr);

	if (!act)
		return 0;
	if (!sim->aux_action)
		return -EINVAL;
	if ((act & AUXACT_PAUSE) && (act & AUXACT_RESUME))
		return -EINVAL;
	if ((act & (AUXACT_PAUSE | AUXACT_RESUME)) && (!lead || lead->kind != SIM_PT))
		return -EINVAL;
	return 0;
}

static int sim_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e, *lead = NULL;
	int i, rc = enter(sim, SIM_OPEN, cpu);
	__u32 task = 0;

	if (rc)
		return rc;
	sim->last_pid = pid;
	sim->last_flags = flags;
	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || sim->offline[cpu])
		return -ENODEV;
	/* A pid > 0 binds the event to that task (a cgroup's fd does not). */
	if (pid > 0 && !(flags & PERF_FLAG_PID_CGROUP)) {
		if (!task_of(sim, (__u32)pid))
			return -ESRCH;
		task = (__u32)pid;
	}
	if (group_fd >= 0 && !(lead = by_fd(sim, group_fd)))
		return -EBADF;
	rc = check_aux_action(sim, attr, lead);
	if (rc)
		return rc;
	/* A group lives in one context: one CPU, one task. */
	if (lead && (lead->cpu != cpu || lead->task != task))
		return -EINVAL;
	i = free_event(sim);
	if (i < 0)
		return i;
	e = &sim->ev[i];
	memset(e, 0, sizeof(*e));
	if (attr->type == sim->pt_type)
		e->kind = SIM_PT;
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_CPU_CLOCK)
		e->kind = SIM_SAMPLE;
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_DUMMY)
		e->kind = SIM_DUMMY;
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES)
		e->kind = SIM_SWITCHES;
	else if (sim->uprobe_type && attr->type == sim->uprobe_type && attr->config1)
		e->kind = SIM_UPROBE;
	else
		return -ENOENT;
	e->used = true;
	e->cpu = cpu;
	e->leader = lead ? (int)(lead - sim->ev) : -1;
	e->parent = e->output = -1;
	e->task = task;
	e->enabled = !attr->disabled;
	e->attr = *attr;
	e->id = ++sim->next_id;
	return SIM_FD_BASE + i;
}

static void *alloc_zeroed(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int map_aux(struct sim_event *e, size_t len, int prot, void **addr)
{
	struct perf_event_mmap_page *pg = (void *)e->base;

	if (e->aux || len != pg->aux_size || pg->aux_offset < pg->data_offset + pg->data_size)
		return -EINVAL;
	/* The sim only models overwrite mode: a read-only AUX mapping. */
	if (prot & PROT_WRITE)
		return -EOPNOTSUPP;
	e->aux = alloc_zeroed(len);
	if (!e->aux)
		return -ENOMEM;
	e->aux_len = len;
	*addr = e->aux;
	return 0;
}

static int sim_mmap(void *ctx, int fd, size_t len, int prot, off_t offset, void **addr)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e = by_fd(sim, fd);
	struct perf_event_mmap_page *pg;
	int rc = enter(sim, SIM_MMAP, e ? e->cpu : -1);

	if (rc)
		return rc;
	if (!e)
		return -EBADF;
	if (offset)
		return map_aux(e, len, prot, addr);
	if (e->base || len < sim->page_size)
		return -EINVAL;
	e->base = alloc_zeroed(len);
	if (!e->base)
		return -ENOMEM;
	e->base_len = len;
	e->writable = prot & PROT_WRITE;
	pg = (void *)e->base;
	pg->data_offset = sim->page_size;
	pg->data_size = len - sim->page_size;
	pg->cap_user_time_zero = 1;
	pg->time_zero = 123456789;
	pg->time_mult = 1 << 20;
	pg->time_shift = 21;
	*addr = e->base;
	return 0;
}

static int sim_munmap(void *ctx, void *addr, size_t len)
{
	struct sim_pmu *sim = ctx;
	int i;

	sim->calls[SIM_MUNMAP]++;
	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i];
		__u8 **p = e->base == addr ? &e->base : e->aux == addr ? &e->aux : NULL;

		if (!e->used || !p)
			continue;
		if (len != (*p == e->base ? e->base_len : e->aux_len))
			return -EINVAL;
		munmap(*p, len);
		*p = NULL;
		return 0;
	}
	return -EINVAL;
}

/*
 * The sample ID of a non-sample record of @e (sample_id_all), in the
 * kernel's order: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. Returns its
 * size (0 without sample_id_all).
 */
static size_t put_id(struct sim_pmu *sim, const struct sim_event *e, __u32 pid, __u32 tid,
		     __u8 *dst)
{
	__u64 type = e->attr.sample_type, id = primary_id(sim, e);
	__u32 v[2];
	size_t n = 0;

	if (!e->attr.sample_id_all)
		return 0;
	if (type & PERF_SAMPLE_TID) {
		v[0] = pid;
		v[1] = tid;
		memcpy(dst + n, v, 8);
		n += 8;
	}
	if (type & PERF_SAMPLE_TIME) {
		__u64 t = sim->tsc += 100;

		memcpy(dst + n, &t, 8);
		n += 8;
	}
	if (type & PERF_SAMPLE_ID) {
		memcpy(dst + n, &id, 8);
		n += 8;
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		memcpy(dst + n, &id, 8);
		n += 8;
	}
	if (type & PERF_SAMPLE_CPU) {
		v[0] = (__u32)e->cpu;
		v[1] = 0;
		memcpy(dst + n, v, 8);
		n += 8;
	}
	if (type & PERF_SAMPLE_IDENTIFIER) {
		memcpy(dst + n, &id, 8);
		n += 8;
	}
	return n;
}

/* Copy @len bytes into @rb's ring from position @head on, wrapping. */
static void ring_copy(struct sim_event *rb, __u64 head, const void *rec, size_t len)
{
	struct perf_event_mmap_page *pg = (void *)rb->base;
	__u8 *ring = rb->base + pg->data_offset;
	size_t i;

	for (i = 0; i < len; i++)
		ring[(head + i) & (pg->data_size - 1)] = ((const __u8 *)rec)[i];
}

/*
 * ring_buffer_has_space() (kernel/events/ring_buffer.c): CIRC_SPACE() of
 * <linux/circ_buf.h>, from head to tail for a forward ring, from tail to
 * head for a write_backward one (its head counts down), so one byte of
 * the ring always stays free: a record fits when that many bytes do.
 */
static bool has_space(__u64 head, __u64 tail, __u64 size, size_t need, bool backward)
{
	__u64 space = backward ? (head - tail - 1) & (size - 1) : (tail - head - 1) & (size - 1);

	return space >= need;
}

/*
 * Store a record of @e (@len bytes, its sample ID included) in @rb as
 * __perf_output_begin() does: a ring of no data pages is paused (the
 * record is gone, uncounted); a writable ring, forward or write_backward,
 * keeps what the reader has not consumed (data_tail): a record that does
 * not fit (has_space()) is dropped and counted, and the next that fits is
 * preceded by a PERF_RECORD_LOST of the count, both in the one space the
 * kernel reserves (a write_backward ring's below its head, the LOST
 * lowest). Read-only rings overwrite. The head is published once the
 * record is in (perf_output_put_handle()). Returns whether it was stored.
 */
static bool put_record(struct sim_pmu *sim, struct sim_event *rb, const struct sim_event *e,
		       __u32 pid, __u32 tid, const void *rec, size_t len)
{
	struct perf_event_mmap_page *pg = (void *)rb->base;
	bool back = rb->attr.write_backward;
	struct {
		struct perf_event_header h;
		__u64 id, lost;
		__u8 sid[48];
	} lr;
	size_t lost_len = 0;
	__u64 head, tail, at;

	if (!pg->data_size || (sim->drop_records && e->kind == SIM_PT))
		return false;
	if (rb->lost) {
		lr.h = (struct perf_event_header){ PERF_RECORD_LOST, 0, 0 };
		lr.id = primary_id(sim, e);
		lr.lost = rb->lost;
		lost_len = 24 + put_id(sim, e, pid, tid, lr.sid);
		lr.h.size = (__u16)lost_len;
	}
	head = pg->data_head;
	tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);
	if (rb->writable && !has_space(head, tail, pg->data_size, lost_len + len, back)) {
		rb->lost++;
		return false;
	}
	at = back ? head - lost_len - len : head;
	if (lost_len) {
		ring_copy(rb, at, &lr, lost_len);
		rb->lost = 0;
	}
	ring_copy(rb, at + lost_len, rec, len);
	__atomic_store_n(&pg->data_head, back ? at : head + lost_len + len, __ATOMIC_RELEASE);
	return true;
}

/*
 * perf_log_itrace_start(), which event_sched_in() calls at each schedule-in
 * of @e, before pmu->add(): unless the event it checks (an inherited
 * event's parent, else @e) has PERF_ATTACH_ITRACE, which only pt_config()
 * sets, on the event it starts (perf_event_itrace_started(): @e itself,
 * never its parent), it writes the record into @e's ring, whether or not
 * an AUX area is mapped there. So it repeats at every schedule-in until
 * PT first started (an inherited event's: until the parent's did); the
 * kernel also retries a failed schedule-in on its rotation timer, which
 * the sim has no clock for. pid/tid: the task on the CPU (current).
 */
static void itrace_start(struct sim_pmu *sim, struct sim_event *e, struct sim_event *rb)
{
	const struct sim_event *src = e->parent >= 0 ? &sim->ev[e->parent] : e;
	struct sim_task *t = task_of(sim, e->task ? e->task : sim->on_cpu[e->cpu]);
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		__u8 sid[48];
	} r = { .h = { PERF_RECORD_ITRACE_START, 0, 0 } };

	if (src->itrace_started)
		return;
	r.pid = t ? t->pid : 0;
	r.tid = t ? t->tid : 0;
	r.h.size = (__u16)(16 + put_id(sim, e, r.pid, r.tid, r.sid));
	put_record(sim, rb, e, r.pid, r.tid, &r, r.h.size);
}

/*
 * pt_event_stop(PERF_EF_UPDATE) of a started @e in overwrite (snapshot)
 * mode: pt_update_head() leaves the hardware's position inside the
 * buffer, which becomes handle->head, and the size handed to
 * perf_aux_output_end() is the whole buffer (buf->nr_pages << PAGE_SHIFT),
 * however many bytes the session wrote, none included. That function
 * sets aux_head to handle->head, writes a PERF_RECORD_AUX of that offset,
 * size and flags (OVERWRITE, and what the hardware or sim_pmu_aux_flags()
 * added) when the size or a flag beside OVERWRITE is non-zero (so at
 * every stop here), and only then publishes aux_head in the user page.
 */
static void aux_end(struct sim_pmu *sim, struct sim_event *e, struct sim_event *rb)
{
	struct perf_event_mmap_page *pg = (void *)rb->base;
	struct sim_task *t = task_of(sim, e->task ? e->task : sim->on_cpu[e->cpu]);
	struct {
		struct perf_event_header h;
		__u64 offset, size, flags;
		__u8 sid[48];
	} r = { .h = { PERF_RECORD_AUX, 0, 0 } };

	r.offset = rb->hw_pos % rb->aux_len;
	r.size = rb->aux_len;
	r.flags = PERF_AUX_FLAG_OVERWRITE | rb->aux_flags;
	rb->aux_flags = 0;
	if (r.size || (r.flags & ~(__u64)PERF_AUX_FLAG_OVERWRITE)) {
		r.h.size = (__u16)(32 + put_id(sim, e, t ? t->pid : 0, t ? t->tid : 0, r.sid));
		put_record(sim, rb, e, t ? t->pid : 0, t ? t->tid : 0, &r, r.h.size);
	}
	__atomic_store_n(&pg->aux_head, r.offset, __ATOMIC_RELEASE);
}

/* Which events are scheduled in now, before a change. */
static void note_counting(const struct sim_pmu *sim, bool *was)
{
	int i;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		was[i] = counting(sim, &sim->ev[i]);
}

/*
 * Schedule-in of intel_pt event @e: its ITRACE_START (itrace_start()),
 * then pt_event_start(): perf_aux_output_begin() fails without an AUX
 * area in its ring (rb_has_aux()), and the event stays stopped; else PT
 * starts, pt_config()'s first round sets PERF_ATTACH_ITRACE on @e, and
 * the hardware begins with a PSB+, so a decoder can sync there.
 */
static void pt_sched_in(struct sim_pmu *sim, struct sim_event *e)
{
	struct sim_event *rb = ring_of(sim, e);

	/* no ring: perf_output_begin() finds no rb, the record is not counted */
	if (!rb)
		return;
	itrace_start(sim, e, rb);
	if (!rb->aux)
		return;
	e->pt_on = true;
	e->itrace_started = true;
	rb->since_psb = sim->psb_every;
}

/*
 * Schedule-out (or disable) of intel_pt event @e: pt_event_stop() does
 * nothing for an event that never started (hw.state PERF_HES_STOPPED);
 * else the session ends (aux_end()).
 */
static void pt_sched_out(struct sim_pmu *sim, struct sim_event *e)
{
	struct sim_event *rb = ring_of(sim, e);

	if (!e->pt_on)
		return;
	e->pt_on = false;
	if (rb && rb->aux)
		aux_end(sim, e, rb);
}

/*
 * After a change (ioctl, sched in/out, exec): the intel_pt events that
 * were scheduled in or out since, as the kernel's pmu->add() and
 * pmu->del() (pt_event_add(), pt_event_del()) handle them.
 */
static void apply_counting(struct sim_pmu *sim, const bool *was)
{
	int i;

	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i];
		bool now = counting(sim, e);

		if (e->kind != SIM_PT || was[i] == now)
			continue;
		if (now)
			pt_sched_in(sim, e);
		else
			pt_sched_out(sim, e);
	}
}

/* ENABLE/DISABLE reach the events inherited from @e too. */
static void toggle(struct sim_pmu *sim, struct sim_event *e, bool on)
{
	int i, idx = (int)(e - sim->ev);

	e->enabled = on;
	for (i = 0; i < SIM_MAX_EVENTS; i++)
		if (sim->ev[i].used && sim->ev[i].parent == idx)
			sim->ev[i].enabled = on;
}

/*
 * PERF_EVENT_IOC_SET_OUTPUT, with the kernel's checks
 * (perf_event_set_output()); @out_fd -1 detaches.
 */
static int set_output(struct sim_pmu *sim, struct sim_event *e, int out_fd)
{
	struct sim_event *out;

	if (out_fd == -1) {
		e->output = -1;
		return 0;
	}
	out = by_fd(sim, out_fd);
	if (!out)
		return -EBADF;
	if (out == e || out->cpu != e->cpu || out->attr.write_backward != e->attr.write_backward ||
	    out->attr.use_clockid != e->attr.use_clockid ||
	    (out->attr.use_clockid && out->attr.clockid != e->attr.clockid) || !ring_of(sim, out))
		return -EINVAL;
	if (e->base) /* "Can't redirect output if we've got an active mmap()" */
		return -EBUSY;
	e->output = (int)(out - sim->ev);
	return 0;
}

static int sim_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e = by_fd(sim, fd);
	bool on = req == PERF_EVENT_IOC_ENABLE, was[SIM_MAX_EVENTS];
	int i, rc;

	if (req == PERF_EVENT_IOC_ID) {
		if (!e)
			return -EBADF;
		*(__u64 *)arg = e->id;
		return 0;
	}
	if (req == PERF_EVENT_IOC_SET_OUTPUT) {
		rc = enter(sim, SIM_SET_OUTPUT, e ? e->cpu : -1);
		if (rc)
			return rc;
		return e ? set_output(sim, e, (int)arg) : -EBADF;
	}
	if (req != PERF_EVENT_IOC_ENABLE && req != PERF_EVENT_IOC_DISABLE)
		return -ENOTTY;
	rc = enter(sim, SIM_IOCTL, e ? e->cpu : -1);
	if (rc)
		return rc;
	if (!e)
		return -EBADF;
	note_counting(sim, was);
	toggle(sim, e, on);
	if (arg & PERF_IOC_FLAG_GROUP)
		for (i = 0; i < SIM_MAX_EVENTS; i++)
			if (sim->ev[i].used && sim->ev[i].parent < 0 &&
			    sim->ev[i].leader == fd - SIM_FD_BASE)
				toggle(sim, &sim->ev[i], on);
	apply_counting(sim, was);
	return 0;
}

static int sim_close(void *ctx, int fd)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e = by_fd(sim, fd);
	int i, rc = enter(sim, SIM_CLOSE, e ? e->cpu : -1);

	if (!e)
		return -EBADF;
	/* Like close(2): the descriptor is gone even when it "fails". */
	e->used = false;
	/* Its inherited events go with it; output sent here has no ring. */
	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		if (sim->ev[i].parent == fd - SIM_FD_BASE)
			sim->ev[i].used = false;
		if (sim->ev[i].output == fd - SIM_FD_BASE)
			sim->ev[i].output = -1;
	}
	return rc;
}

struct sim_pmu *sim_pmu_new(unsigned int nr_cpus, __u32 pt_type)
{
	struct sim_pmu *sim;

	if (!nr_cpus || nr_cpus > SIM_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	sim = calloc(1, sizeof(*sim));
	if (!sim)
		return NULL;
	/* no read: the simulated PMU counts nothing a run reads back */
	sim->ops = (struct perf_sys_ops){ .open = sim_open,
					  .mmap = sim_mmap,
					  .munmap = sim_munmap,
					  .ioctl = sim_ioctl,
					  .close = sim_close,
					  .ctx = sim };
	sim->nr_cpus = nr_cpus;
	sim->pt_type = pt_type;
	sim->page_size = (size_t)sysconf(_SC_PAGESIZE);
	sim->psb_every = 256;
	/* past the mmap page's time_zero, as a host's perf clock is */
	sim->tsc = 123556789;
	return sim;
}

void sim_pmu_free(struct sim_pmu *sim)
{
	int i;

	if (!sim)
		return;
	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		if (sim->ev[i].base)
			munmap(sim->ev[i].base, sim->ev[i].base_len);
		if (sim->ev[i].aux)
			munmap(sim->ev[i].aux, sim->ev[i].aux_len);
	}
	free(sim);
}

const struct perf_sys_ops *sim_pmu_ops(struct sim_pmu *sim)
{
	return &sim->ops;
}

void sim_pmu_set_offline(struct sim_pmu *sim, int cpu)
{
	if (cpu >= 0 && cpu < SIM_MAX_CPUS)
		sim->offline[cpu] = true;
}

void sim_pmu_set_psb_every(struct sim_pmu *sim, size_t bytes)
{
	sim->psb_every = bytes;
}

void sim_pmu_fail(struct sim_pmu *sim, enum sim_call call, int cpu, unsigned int skip, int err)
{
	sim->fail[call] = (struct sim_fail){ true, cpu, err, skip };
}

unsigned long sim_pmu_calls(const struct sim_pmu *sim, enum sim_call call)
{
	return sim->calls[call];
}

unsigned int sim_pmu_open_fds(const struct sim_pmu *sim)
{
	unsigned int i, n = 0;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		n += sim->ev[i].used && sim->ev[i].parent < 0;
	return n;
}

unsigned int sim_pmu_mappings(const struct sim_pmu *sim)
{
	unsigned int i, n = 0;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		n += !!sim->ev[i].base + !!sim->ev[i].aux;
	return n;
}

void sim_pmu_last_open(const struct sim_pmu *sim, int *pid, unsigned long *flags)
{
	*pid = sim->last_pid;
	*flags = sim->last_flags;
}

static struct sim_event *find(struct sim_pmu *sim, int cpu, enum sim_kind k)
{
	int i;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		if (sim->ev[i].used && sim->ev[i].cpu == cpu && sim->ev[i].kind == k &&
		    sim->ev[i].base)
			return &sim->ev[i];
	return NULL;
}

/*
 * The event of @kind that writes on @cpu now: a CPU-wide one, else (unless
 * @cpu_wide) the one of the task on @cpu. NULL when none, or it has no
 * ring to write into.
 */
static struct sim_event *writer(struct sim_pmu *sim, int cpu, enum sim_kind k, bool cpu_wide)
{
	int pass, i;

	for (pass = 0; pass < (cpu_wide ? 1 : 2); pass++)
		for (i = 0; i < SIM_MAX_EVENTS; i++) {
			struct sim_event *e = &sim->ev[i];

			if (e->cpu == cpu && e->kind == k && !e->task == !pass &&
			    counting(sim, e) && ring_of(sim, e))
				return e;
		}
	return NULL;
}

bool sim_pmu_running(const struct sim_pmu *sim, int cpu)
{
	struct sim_event *e = find((struct sim_pmu *)sim, cpu, SIM_PT);

	if (!e)
		e = find((struct sim_pmu *)sim, cpu, SIM_SAMPLE);
	return e && active(sim, e);
}

__u64 sim_pmu_written(const struct sim_pmu *sim, int cpu)
{
	struct sim_event *e = find((struct sim_pmu *)sim, cpu, SIM_PT);

	return e ? e->hw_pos : 0;
}

/* Encode exactly @n bytes of PT packets into @buf: PSB+ on schedule. */
static int encode(struct sim_pmu *sim, struct sim_event *e, __u8 *buf, size_t n)
{
	struct pt_packet pkt;
	struct pt_encoder *enc;
	struct pt_config cfg;
	uint64_t used = 0, off;
	int rc = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + n;
	enc = pt_alloc_encoder(&cfg);
	if (!enc)
		return -ENOMEM;
	/* 32 bytes: room for the longest group below (PSB+TSC+PSBEND). */
	while (rc >= 0 && n - used >= 32) {
		memset(&pkt, 0, sizeof(pkt));
		if (e->since_psb >= sim->psb_every) {
			e->since_psb = 0;
			pkt.type = ppt_psb;
			rc = pt_enc_next(enc, &pkt);
			pkt.type = ppt_tsc;
			pkt.payload.tsc.tsc = sim->tsc += 100;
			if (rc >= 0)
				rc = pt_enc_next(enc, &pkt);
			pkt.type = ppt_psbend;
		} else if (used & 1) {
			pkt.type = ppt_tnt_8;
			pkt.payload.tnt.bit_size = 6;
			pkt.payload.tnt.payload = 0x2a;
		} else {
			pkt.type = ppt_tip;
			pkt.payload.ip.ipc = pt_ipc_sext_48;
			pkt.payload.ip.ip = 0x401000 + (used & 0xfff);
		}
		if (rc >= 0)
			rc = pt_enc_next(enc, &pkt);
		pt_enc_get_offset(enc, &off);
		e->since_psb += off - used;
		used = off;
	}
	/* Fill up with PAD packets (one byte each) to exactly @n. */
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = ppt_pad;
	while (rc >= 0 && used < n) {
		rc = pt_enc_next(enc, &pkt);
		used++;
	}
	pt_free_encoder(enc);
	return rc < 0 ? -EIO : 0;
}

/* The AUX ring the hardware of @cpu writes into now; NULL when none. */
static struct sim_event *pt_ring(struct sim_pmu *sim, int cpu)
{
	struct sim_event *w = writer(sim, cpu, SIM_PT, false);

	/*
	 * a started event only (pt_sched_in()); pt_config_start() returns
	 * early while hw.aux_paused is set
	 */
	if (w && (!w->pt_on || w->aux_paused))
		return NULL;

	w = w ? ring_of(sim, w) : NULL;
	return w && w->aux ? w : NULL;
}

long sim_pmu_tick(struct sim_pmu *sim, int cpu, size_t nbytes)
{
	struct sim_event *e = find(sim, cpu, SIM_PT);
	__u8 *buf;
	size_t i;
	int rc;

	if (!e || !e->aux)
		return -ENOENT;
	e = pt_ring(sim, cpu);
	if (!e || !nbytes)
		return 0;
	buf = malloc(nbytes);
	if (!buf)
		return -ENOMEM;
	rc = encode(sim, e, buf, nbytes);
	/* The hardware writes on round the ring; aux_head stays put. */
	for (i = 0; !rc && i < nbytes; i++)
		e->aux[(e->hw_pos + i) % e->aux_len] = buf[i];
	free(buf);
	if (rc)
		return rc;
	e->hw_pos += nbytes;
	return (long)nbytes;
}

long sim_pmu_emit(struct sim_pmu *sim, int cpu, const void *bytes, size_t len)
{
	struct sim_event *e = find(sim, cpu, SIM_PT);
	size_t i;

	if (!bytes)
		return -EINVAL;
	if (!e || !e->aux)
		return -ENOENT;
	e = pt_ring(sim, cpu);
	if (!e)
		return 0;
	for (i = 0; i < len; i++)
		e->aux[(e->hw_pos + i) % e->aux_len] = ((const __u8 *)bytes)[i];
	e->hw_pos += len;
	return (long)len;
}

void sim_pmu_drop_records(struct sim_pmu *sim, bool drop)
{
	sim->drop_records = drop;
}

void sim_pmu_aux_flags(struct sim_pmu *sim, int cpu, __u64 flags)
{
	struct sim_event *e = find(sim, cpu, SIM_PT);

	if (e)
		e->aux_flags |= flags;
}

void sim_pmu_set_time(struct sim_pmu *sim, __u64 t)
{
	sim->tsc = t - 100;
}

/*
 * The bits of a sample the sim writes, in the kernel's order
 * (perf_output_sample()): IDENTIFIER, IP, TID, TIME, CPU, CALLCHAIN.
 */
#define SIM_SAMPLE_BITS                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)

int sim_pmu_sample(struct sim_pmu *sim, int cpu, __u32 pid, __u32 tid, __u64 ip)
{
	struct sim_event *e = find(sim, cpu, SIM_SAMPLE), *rb;
	struct sim_task *t;
	struct {
		struct perf_event_header h;
		__u64 v[8];
	} r = { .h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 } };
	unsigned int n = 0;
	__u64 type;

	if (!e)
		return -ENOENT;
	e = writer(sim, cpu, SIM_SAMPLE, false);
	if (!e)
		return 0;
	type = e->attr.sample_type;
	/* no user registers or stack to give: no record of made-up ones */
	if (type & ~(__u64)SIM_SAMPLE_BITS)
		return -EOPNOTSUPP;
	rb = ring_of(sim, e);
	/* a task-bound event samples the task that runs */
	t = e->task ? task_of(sim, e->task) : NULL;
	if (t) {
		pid = t->pid;
		tid = t->tid;
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		r.v[n++] = primary_id(sim, e);
	if (type & PERF_SAMPLE_IP)
		r.v[n++] = ip;
	if (type & PERF_SAMPLE_TID)
		r.v[n++] = pid | (__u64)tid << 32;
	if (type & PERF_SAMPLE_TIME)
		r.v[n++] = sim->tsc += 100;
	if (type & PERF_SAMPLE_CPU)
		r.v[n++] = (__u32)cpu;
	/*
	 * perf_callchain() of a sample taken in user mode: no kernel part;
	 * the user part (unless exclude_callchain_user) is the context
	 * marker, the ip, and the return addresses of the frame-pointer
	 * chain, which ends at once in the sim's tasks.
	 */
	if ((type & PERF_SAMPLE_CALLCHAIN) && e->attr.exclude_callchain_user) {
		r.v[n++] = 0;
	} else if (type & PERF_SAMPLE_CALLCHAIN) {
		r.v[n++] = 2;
		r.v[n++] = (__u64)PERF_CONTEXT_USER;
		r.v[n++] = ip;
	}
	r.h.size = (__u16)(8 + 8 * n);
	put_record(sim, rb, e, pid, tid, &r, r.h.size);
	return 1;
}

int sim_pmu_switch(struct sim_pmu *sim, int cpu, bool out, __u32 pid, __u32 tid)
{
	return sim_pmu_switch_np(sim, cpu, out, pid, tid, pid, tid);
}

/*
 * A PERF_RECORD_SWITCH_CPU_WIDE of @e: @pid/@tid (current: the task going
 * out, or coming in) switch out to (in from) @np_pid/@np_tid; with @e's
 * sample ID, as perf_event_switch_output() writes it.
 */
static void switch_cpu_wide(struct sim_pmu *sim, struct sim_event *e, bool out, __u32 pid,
			    __u32 tid, __u32 np_pid, __u32 np_tid)
{
	struct {
		struct perf_event_header h;
		__u32 np_pid, np_tid;
		__u8 sid[48];
	} w = { .h = { PERF_RECORD_SWITCH_CPU_WIDE, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, 0 } };

	w.np_pid = np_pid;
	w.np_tid = np_tid;
	w.h.size = (__u16)(16 + put_id(sim, e, pid, tid, w.sid));
	put_record(sim, ring_of(sim, e), e, pid, tid, &w, w.h.size);
}

int sim_pmu_switch_np(struct sim_pmu *sim, int cpu, bool out, __u32 pid, __u32 tid, __u32 np_pid,
		      __u32 np_tid)
{
	struct sim_event *e = find(sim, cpu, SIM_DUMMY);

	if (!e)
		return -ENOENT;
	e = writer(sim, cpu, SIM_DUMMY, true);
	if (!e)
		return 0;
	switch_cpu_wide(sim, e, out, pid, tid, np_pid, np_tid);
	return 1;
}

/*
 * The side-band records of a task's life: perf_event_mmap(),
 * perf_event_task() (FORK, EXIT) and perf_event_comm() write into what
 * perf_iterate_sb() visits, for the task running on a CPU (current): the
 * CPU-wide events of that CPU (SB_CPU), then the events of the task's
 * own context (SB_TASK; inherited ones write into their parent's ring).
 * Either kind is seen only by an event of that CPU (event_filter_match())
 * and only in state >= INACTIVE: the event itself enabled, whatever its
 * group leader's state. The record is the event's: its attr says whether
 * it wants it at all, and its sample ID is appended.
 */
#define SB_CPU 1u
#define SB_TASK 2u

/* The events that see a side-band record of @t on @cpu, in order. */
static unsigned int sb_events(const struct sim_pmu *sim, int cpu, const struct sim_task *t,
			      unsigned int which, int *out)
{
	unsigned int n = 0;
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		if (!(which & (pass ? SB_TASK : SB_CPU)))
			continue;
		for (i = 0; i < SIM_MAX_EVENTS; i++) {
			const struct sim_event *e = &sim->ev[i];

			if (!e->used || e->cpu != cpu || !e->enabled || e->exited ||
			    e->task != (pass ? t->tid : 0))
				continue;
			out[n++] = i;
		}
	}
	return n;
}

/* Room for the longest record below: MMAP2, a PATH_MAX name, sample ID. */
#define SB_REC_MAX (8 + 64 + 4096 + 48)

/*
 * Stores record @rec of @e (@body bytes, its header's type and misc set)
 * with @e's sample ID of current task @cur appended; a u64 time at
 * @time_off (0: none) is the event's clock, read just after the sample
 * ID's (perf_event_header__init_id() comes first). Returns whether it
 * was stored: an event with no ring loses it (perf_output_begin() fails).
 */
static bool sb_put(struct sim_pmu *sim, struct sim_event *e, const struct sim_task *cur, __u8 *rec,
		   size_t body, size_t time_off)
{
	const __u64 want = PERF_SAMPLE_TIME;
	struct sim_event *rb = ring_of(sim, e);
	size_t n;
	__u64 t;

	if (!rb)
		return false;
	n = body + put_id(sim, e, cur->pid, cur->tid, rec + body);
	if (time_off) {
		t = e->attr.sample_id_all && (e->attr.sample_type & want) ? sim->tsc :
									    (sim->tsc += 100);
		memcpy(rec + time_off, &t, sizeof(t));
	}
	((struct perf_event_header *)rec)->size = (__u16)n;
	return put_record(sim, rb, e, cur->pid, cur->tid, rec, n);
}

/* perf_event_task_match(): who asked for FORK and EXIT records. */
static bool wants_task(const struct perf_event_attr *a)
{
	return a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task;
}

/*
 * perf_event_task(): a FORK of @t by @cur (its parent, running on @cpu),
 * or @t's EXIT (@cur is @t); pid/tid are @t's, ppid/ptid @cur's for a
 * FORK, its real parent's pid for an EXIT (both: perf_event_pid()).
 */
static unsigned int task_records(struct sim_pmu *sim, int cpu, const struct sim_task *t,
				 const struct sim_task *cur, bool fork, unsigned int which)
{
	struct {
		struct perf_event_header h;
		__u32 pid, ppid, tid, ptid;
		__u64 time;
		__u8 sid[48];
	} r;
	int idx[SIM_MAX_EVENTS];
	unsigned int i, n = sb_events(sim, cpu, cur, which, idx), stored = 0;

	for (i = 0; i < n; i++) {
		struct sim_event *e = &sim->ev[idx[i]];

		if (!wants_task(&e->attr))
			continue;
		memset(&r, 0, sizeof(r));
		r.h.type = fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT;
		r.pid = t->pid;
		r.tid = t->tid;
		r.ppid = fork ? cur->pid : t->ppid;
		r.ptid = fork ? cur->tid : t->ppid;
		stored += sb_put(sim, e, cur, (__u8 *)&r, offsetof(typeof(r), sid),
				 offsetof(typeof(r), time));
	}
	return stored;
}

/* perf_event_comm(): @cur on @cpu is named @comm (TASK_COMM_LEN). */
static unsigned int comm_records(struct sim_pmu *sim, int cpu, const struct sim_task *cur,
				 const char *comm, bool exec)
{
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		char comm[16];
		__u8 sid[48];
	} r;
	int idx[SIM_MAX_EVENTS];
	unsigned int i, n = sb_events(sim, cpu, cur, SB_CPU | SB_TASK, idx), stored = 0;
	size_t len = strnlen(comm, 15);

	for (i = 0; i < n; i++) {
		struct sim_event *e = &sim->ev[idx[i]];
		__u8 *at;

		if (!e->attr.comm)
			continue;
		memset(&r, 0, sizeof(r));
		r.h.type = PERF_RECORD_COMM;
		/* whatever attr.comm_exec says: that bit only tells tools */
		r.h.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
		r.pid = cur->pid;
		r.tid = cur->tid;
		memcpy(r.comm, comm, len);
		/* the name, NUL-terminated, zero-padded to a u64 boundary */
		at = (__u8 *)r.comm + ((len + 1 + 7) & ~(size_t)7);
		stored += sb_put(sim, e, cur, (__u8 *)&r, (size_t)(at - (__u8 *)&r), 0);
	}
	return stored;
}

/* perf_event_mmap_match(): executable mappings for mmap and mmap2,
 * the others for mmap_data. */
static bool wants_mmap(const struct perf_event_attr *a, bool exec)
{
	return exec ? a->mmap || a->mmap2 : a->mmap_data;
}

/* perf_event_mmap_output() for @e: an MMAP, or an MMAP2 for attr.mmap2. */
static bool mmap_record(struct sim_pmu *sim, struct sim_event *e, const struct sim_task *cur,
			const struct sim_mapping *m, size_t name_len)
{
	__u64 rec[SB_REC_MAX / 8];
	__u8 *p = (__u8 *)rec;
	struct perf_event_header *h = (void *)p;
	bool exec = m->prot & PROT_EXEC;
	bool bid = e->attr.build_id && m->build_id_size;
	size_t n = 8;
	__u32 v[2];

	memset(rec, 0, sizeof(rec));
	h->type = e->attr.mmap2 ? PERF_RECORD_MMAP2 : PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_USER | (exec ? 0 : PERF_RECORD_MISC_MMAP_DATA);
	v[0] = cur->pid;
	v[1] = cur->tid;
	memcpy(p + n, v, 8);
	memcpy(p + n + 8, &m->start, 8);
	memcpy(p + n + 16, &m->len, 8);
	memcpy(p + n + 24, &m->pgoff, 8);
	n += 32;
	if (e->attr.mmap2) {
		if (bid) {
			/* the build ID in place of maj, min, ino, ino_generation */
			h->misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
			p[n] = m->build_id_size;
			memcpy(p + n + 4, m->build_id, m->build_id_size);
		} else {
			v[0] = m->maj;
			v[1] = m->min;
			memcpy(p + n, v, 8);
			memcpy(p + n + 8, &m->ino, 8);
			memcpy(p + n + 16, &m->ino_generation, 8);
		}
		v[0] = m->prot;
		v[1] = m->flags;
		memcpy(p + n + 24, v, 8);
		n += 32;
	}
	/* the name, NUL-terminated, zero-padded to a u64 boundary */
	memcpy(p + n, m->path, name_len);
	n += (name_len + 1 + 7) & ~(size_t)7;
	return sb_put(sim, e, cur, p, n, 0);
}

int sim_pmu_mmap(struct sim_pmu *sim, int cpu, const struct sim_mapping *m)
{
	int idx[SIM_MAX_EVENTS];
	unsigned int i, n, stored = 0;
	struct sim_task *cur;
	size_t name_len;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || !m || !m->path ||
	    m->build_id_size > 20 || (m->build_id_size && !m->build_id))
		return -EINVAL;
	name_len = strlen(m->path);
	if (name_len >= 4096)
		return -ENAMETOOLONG;
	cur = task_of(sim, sim->on_cpu[cpu]);
	if (!cur)
		return -ESRCH;
	n = sb_events(sim, cpu, cur, SB_CPU | SB_TASK, idx);
	for (i = 0; i < n; i++)
		if (wants_mmap(&sim->ev[idx[i]].attr, m->prot & PROT_EXEC))
			stored += mmap_record(sim, &sim->ev[idx[i]], cur, m, name_len);
	return (int)stored;
}

int sim_pmu_comm(struct sim_pmu *sim, int cpu, const char *comm)
{
	struct sim_task *cur;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || !comm)
		return -EINVAL;
	cur = task_of(sim, sim->on_cpu[cpu]);
	if (!cur)
		return -ESRCH;
	return (int)comm_records(sim, cpu, cur, comm, false);
}

static struct sim_task *new_task(struct sim_pmu *sim, __u32 pid, __u32 tid, int *rc)
{
	int i;

	*rc = 0;
	if (!pid || !tid)
		*rc = -EINVAL;
	else if (task_of(sim, tid))
		*rc = -EEXIST;
	for (i = 0; !*rc && i < SIM_MAX_TASKS; i++)
		if (!sim->task[i].used) {
			sim->task[i] = (struct sim_task){ true, pid, tid, 0, -1 };
			return &sim->task[i];
		}
	if (!*rc)
		*rc = -ENOSPC;
	return NULL;
}

int sim_pmu_task(struct sim_pmu *sim, __u32 pid, __u32 tid)
{
	int rc;

	new_task(sim, pid, tid, &rc);
	return rc;
}

/* A copy of @e (index @i) for task @tid, as the kernel's inherit_event(). */
static int inherit_one(struct sim_pmu *sim, int i, __u32 tid, const int *map)
{
	struct sim_event *e = &sim->ev[i], *c;
	int n = free_event(sim);

	if (n < 0)
		return n;
	c = &sim->ev[n];
	*c = *e;
	/* all of them point at the event that has the descriptor */
	c->parent = e->parent >= 0 ? e->parent : i;
	c->leader = e->leader < 0 ? -1 : map[e->leader];
	c->output = -1;
	c->task = tid;
	c->base = c->aux = NULL;
	c->base_len = c->aux_len = 0;
	c->hw_pos = 0;
	c->aux_paused = c->pt_on = false;
	/* a new event: its own PERF_ATTACH_ITRACE and ring state */
	c->itrace_started = c->writable = false;
	c->lost = c->aux_flags = 0;
	c->id = ++sim->next_id;
	return n;
}

int sim_pmu_clone(struct sim_pmu *sim, __u32 parent_tid, __u32 child_tid, bool thread)
{
	struct sim_task *p = task_of(sim, parent_tid);
	int map[SIM_MAX_EVENTS], pass, i, rc;

	struct sim_task *c;

	if (!p)
		return -ESRCH;
	c = new_task(sim, thread ? p->pid : child_tid, child_tid, &rc);
	if (!c)
		return rc;
	/* copy_process(): a thread's real parent is its creator's */
	c->ppid = thread ? p->ppid : p->pid;
	for (i = 0; i < SIM_MAX_EVENTS; i++)
		map[i] = -1;
	/* leaders first, so that members find their group */
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < SIM_MAX_EVENTS; i++) {
			struct sim_event *e = &sim->ev[i];

			if (!e->used || e->task != parent_tid || e->exited ||
			    (e->leader < 0) == pass || !e->attr.inherit ||
			    (!thread && e->attr.inherit_thread) || (pass && map[e->leader] < 0))
				continue;
			map[i] = inherit_one(sim, i, child_tid, map);
			if (map[i] < 0)
				return map[i];
		}
	/* perf_event_fork(), once the child has its events: the parent's */
	if (p->cpu >= 0)
		task_records(sim, p->cpu, task_of(sim, child_tid), p, true, SB_CPU | SB_TASK);
	return 0;
}

/*
 * do_exit() of @t on @cpu, as perf_event_exit_task() runs it: the task's
 * context is scheduled out (its PT events stop: aux_head published, AUX
 * records), its events get the EXIT record (state INACTIVE still sees
 * it), they are detached (below), then the CPU-wide events get the EXIT
 * too; the final schedule switches the CPU to idle.
 */
static void exit_running(struct sim_pmu *sim, struct sim_task *t)
{
	bool was[SIM_MAX_EVENTS];
	int cpu = t->cpu;

	note_counting(sim, was);
	sim->on_cpu[cpu] = 0; /* task_ctx_sched_out() */
	apply_counting(sim, was);
	sim->on_cpu[cpu] = t->tid;
	task_records(sim, cpu, t, t, false, SB_TASK);
}

int sim_pmu_exit(struct sim_pmu *sim, __u32 tid)
{
	struct sim_task *t = task_of(sim, tid);
	bool running;
	int i;

	if (!t)
		return -ESRCH;
	running = t->cpu >= 0;
	if (running)
		exit_running(sim, t);
	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i];

		if (!e->used || e->task != tid)
			continue;
		/* perf_event_exit_task(): inherited events are freed, the
		 * ones with a descriptor stay, dead */
		if (e->parent >= 0)
			e->used = false;
		else
			e->exited = true;
	}
	if (running) {
		task_records(sim, t->cpu, t, t, false, SB_CPU);
		sim_pmu_sched_out(sim, t->cpu);
	}
	t->used = false;
	return 0;
}

int sim_pmu_exec(struct sim_pmu *sim, __u32 tid, const char *comm)
{
	struct sim_task *t = task_of(sim, tid);
	bool was[SIM_MAX_EVENTS];
	int i;

	if (!t)
		return -ESRCH;
	if (!comm)
		return -EINVAL;
	note_counting(sim, was);
	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i];

		if (e->used && e->task == tid && !e->exited && e->attr.enable_on_exec)
			e->enabled = true;
	}
	apply_counting(sim, was);
	/* begin_new_exec(): perf_event_exec(), then the exec's COMM */
	if (t->cpu >= 0)
		comm_records(sim, t->cpu, t, comm, true);
	return 0;
}

/*
 * The switch records of a sched-in or sched-out of @t on @cpu, as
 * perf_event_switch() writes them: side-band records, which
 * perf_iterate_sb() gives every context_switch event of that CPU (the
 * CPU-wide ones, then @t's own) in state INACTIVE or above: the event
 * enabled itself, whether or not its group is scheduled in (a disabled
 * leader, a PT leader that could not start). PERF_RECORD_SWITCH for the
 * task's own events, PERF_RECORD_SWITCH_CPU_WIDE (the other side idle)
 * for CPU-wide ones.
 */
static void write_switches(struct sim_pmu *sim, int cpu, const struct sim_task *t, bool out)
{
	struct {
		struct perf_event_header h;
		__u8 sid[48];
	} r = { .h = { PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, 0 } };
	int i;

	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i], *rb;

		if (!e->used || e->cpu != cpu || !e->attr.context_switch || !e->enabled ||
		    e->exited || (e->task && e->task != t->tid) || !(rb = ring_of(sim, e)))
			continue;
		if (e->task) {
			/* the header and the sample ID (none without sample_id_all) */
			r.h.size = (__u16)(8 + put_id(sim, e, t->pid, t->tid, r.sid));
			put_record(sim, rb, e, t->pid, t->tid, &r, r.h.size);
		} else if (out) {
			/*
			 * The CPU switches from @t to idle (idle to @t): the
			 * switch-out of the task going, then the switch-in
			 * of the one coming, each naming the other.
			 */
			switch_cpu_wide(sim, e, true, t->pid, t->tid, 0, 0);
			switch_cpu_wide(sim, e, false, 0, 0, t->pid, t->tid);
		} else {
			switch_cpu_wide(sim, e, true, 0, 0, t->pid, t->tid);
			switch_cpu_wide(sim, e, false, t->pid, t->tid, 0, 0);
		}
	}
}

int sim_pmu_sched_in(struct sim_pmu *sim, int cpu, __u32 tid)
{
	struct sim_task *t = task_of(sim, tid);
	bool was[SIM_MAX_EVENTS];

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -EINVAL;
	if (!t)
		return -ESRCH;
	if (sim->on_cpu[cpu] || t->cpu >= 0)
		return -EBUSY;
	note_counting(sim, was);
	sim->on_cpu[cpu] = tid;
	t->cpu = cpu;
	apply_counting(sim, was);
	/* perf_event_task_sched_in(): the switch-in once the events run */
	write_switches(sim, cpu, t, false);
	return 0;
}

/*
 * Events of @kind counting on @cpu occur (uprobes: those at @path and
 * @offset): each overflows (sample_period 1) and does its aux action on
 * its group leader, as __perf_event_overflow() does. Returns how many.
 */
static int aux_act(struct sim_pmu *sim, int cpu, enum sim_kind kind, const char *path, __u64 offset)
{
	int i, n = 0;

	for (i = 0; i < SIM_MAX_EVENTS; i++) {
		struct sim_event *e = &sim->ev[i], *lead;
		__u32 act;

		if (e->cpu != cpu || e->kind != kind || !counting(sim, e))
			continue;
		/*
		 * A switch is counted with the scheduler's (kernel) registers:
		 * perf_exclude_event() drops it for exclude_kernel.
		 */
		if (kind == SIM_SWITCHES && e->attr.exclude_kernel)
			continue;
		if (kind == SIM_UPROBE &&
		    (e->attr.config2 != offset ||
		     strcmp((const char *)(unsigned long)e->attr.config1, path)))
			continue;
		n++;
		act = auxact_get(&e->attr);
		lead = e->leader >= 0 ? &sim->ev[e->leader] : NULL;
		if (!lead || lead->kind != SIM_PT)
			continue;
		if (act & AUXACT_PAUSE)
			lead->aux_paused = true;
		else if (act & AUXACT_RESUME)
			lead->aux_paused = false;
	}
	return n;
}

int sim_pmu_uprobe_hit(struct sim_pmu *sim, int cpu, const char *path, __u64 offset)
{
	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || !path)
		return -EINVAL;
	return aux_act(sim, cpu, SIM_UPROBE, path, offset);
}

void sim_pmu_set_uprobe(struct sim_pmu *sim, __u32 type, bool aux_action)
{
	sim->uprobe_type = type;
	sim->aux_action = aux_action;
}

int sim_pmu_sched_out(struct sim_pmu *sim, int cpu)
{
	bool was[SIM_MAX_EVENTS];
	struct sim_task *t;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -EINVAL;
	t = task_of(sim, sim->on_cpu[cpu]);
	if (!t)
		return -ESRCH;
	/*
	 * perf_event_task_sched_out(): the context-switches count (and its
	 * aux_resume) and the switch-out records, before the events go.
	 */
	aux_act(sim, cpu, SIM_SWITCHES, NULL, 0);
	write_switches(sim, cpu, t, true);
	note_counting(sim, was);
	sim->on_cpu[cpu] = 0;
	t->cpu = -1;
	apply_counting(sim, was);
	return 0;
}

__u32 sim_pmu_on_cpu(const struct sim_pmu *sim, int cpu)
{
	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return 0;
	return sim->on_cpu[cpu];
}
