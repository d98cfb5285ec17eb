// SPDX-License-Identifier: GPL-2.0
/*
 * A simulated intel_pt PMU and software events behind perf_sys_ops.
 * See sim_pmu.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <intel-pt.h>

#include "sim_pmu.h"

enum sim_kind { SIM_PT, SIM_SAMPLE, SIM_DUMMY };

struct sim_event {
	bool used;
	enum sim_kind kind;
	int cpu, leader; /* leader: index in ev[], -1 for a leader */
	bool enabled;
	struct perf_event_attr attr;
	__u8 *base, *aux; /* metadata page + data ring; AUX area */
	size_t base_len, aux_len;
	__u64 hw_pos; /* PT bytes written, not yet published */
	size_t since_psb;
	__u64 id;
};

struct sim_fail {
	bool armed;
	int cpu, err;
	unsigned int skip;
};

struct sim_pmu {
	struct perf_sys_ops ops;
	__u32 pt_type;
	unsigned int nr_cpus;
	bool offline[SIM_MAX_CPUS];
	size_t page_size, psb_every;
	struct sim_event ev[SIM_MAX_EVENTS];
	unsigned long calls[SIM_NR_CALLS];
	struct sim_fail fail[SIM_NR_CALLS];
	__u64 tsc, next_id;
	int last_pid;
	unsigned long last_flags;
};

static struct sim_event *by_fd(struct sim_pmu *sim, int fd)
{
	int i = fd - SIM_FD_BASE;

	if (i < 0 || i >= SIM_MAX_EVENTS || !sim->ev[i].used)
		return NULL;
	return &sim->ev[i];
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

static int sim_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e, *lead = NULL;
	int i, rc = enter(sim, SIM_OPEN, cpu);

	if (rc)
		return rc;
	sim->last_pid = pid;
	sim->last_flags = flags;
	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || sim->offline[cpu])
		return -ENODEV;
	if (group_fd >= 0 && !(lead = by_fd(sim, group_fd)))
		return -EBADF;
	for (i = 0; i < SIM_MAX_EVENTS && sim->ev[i].used; i++)
		;
	if (i == SIM_MAX_EVENTS)
		return -EMFILE;
	e = &sim->ev[i];
	memset(e, 0, sizeof(*e));
	if (attr->type == sim->pt_type)
		e->kind = SIM_PT;
	else if (attr->type == PERF_TYPE_SOFTWARE &&
		 attr->config == PERF_COUNT_SW_CPU_CLOCK)
		e->kind = SIM_SAMPLE;
	else if (attr->type == PERF_TYPE_SOFTWARE &&
		 attr->config == PERF_COUNT_SW_DUMMY)
		e->kind = SIM_DUMMY;
	else
		return -ENOENT;
	e->used = true;
	e->cpu = cpu;
	e->leader = lead ? (int)(lead - sim->ev) : -1;
	e->enabled = !attr->disabled;
	e->attr = *attr;
	e->id = ++sim->next_id;
	return SIM_FD_BASE + i;
}

static void *alloc_zeroed(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int map_aux(struct sim_event *e, size_t len, int prot, void **addr)
{
	struct perf_event_mmap_page *pg = (void *)e->base;

	if (e->aux || len != pg->aux_size ||
	    pg->aux_offset < pg->data_offset + pg->data_size)
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

static int sim_mmap(void *ctx, int fd, size_t len, int prot, off_t offset,
		    void **addr)
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
		__u8 **p = e->base == addr ? &e->base :
			   e->aux == addr  ? &e->aux :
					     NULL;

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

/* The kernel publishes aux_head only when the event stops. */
static void publish(struct sim_event *e)
{
	struct perf_event_mmap_page *pg = (void *)e->base;

	if (e->kind == SIM_PT && e->aux)
		__atomic_store_n(&pg->aux_head, e->hw_pos % e->aux_len,
				 __ATOMIC_RELEASE);
}

static void toggle(struct sim_pmu *sim, struct sim_event *e, bool on)
{
	if (e->enabled && !on)
		publish(e);
	/* Tracing (re)starts with a PSB+ so a decoder can sync there. */
	if (!e->enabled && on)
		e->since_psb = sim->psb_every;
	e->enabled = on;
}

static int sim_ioctl(void *ctx, int fd, unsigned long req, unsigned long arg)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e = by_fd(sim, fd);
	bool on = req == PERF_EVENT_IOC_ENABLE;
	int i, rc;

	if (req == PERF_EVENT_IOC_ID) {
		if (!e)
			return -EBADF;
		*(__u64 *)arg = e->id;
		return 0;
	}
	if (req != PERF_EVENT_IOC_ENABLE && req != PERF_EVENT_IOC_DISABLE)
		return -ENOTTY;
	rc = enter(sim, SIM_IOCTL, e ? e->cpu : -1);
	if (rc)
		return rc;
	if (!e)
		return -EBADF;
	toggle(sim, e, on);
	if (arg & PERF_IOC_FLAG_GROUP)
		for (i = 0; i < SIM_MAX_EVENTS; i++)
			if (sim->ev[i].used &&
			    sim->ev[i].leader == fd - SIM_FD_BASE)
				toggle(sim, &sim->ev[i], on);
	return 0;
}

static int sim_close(void *ctx, int fd)
{
	struct sim_pmu *sim = ctx;
	struct sim_event *e = by_fd(sim, fd);
	int rc = enter(sim, SIM_CLOSE, e ? e->cpu : -1);

	if (!e)
		return -EBADF;
	/* Like close(2): the descriptor is gone even when it "fails". */
	e->used = false;
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
	sim->ops = (struct perf_sys_ops){ sim_open,  sim_mmap,	sim_munmap,
					  sim_ioctl, sim_close, sim };
	sim->nr_cpus = nr_cpus;
	sim->pt_type = pt_type;
	sim->page_size = (size_t)sysconf(_SC_PAGESIZE);
	sim->psb_every = 256;
	sim->tsc = 1000000;
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

void sim_pmu_fail(struct sim_pmu *sim, enum sim_call call, int cpu,
		  unsigned int skip, int err)
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
		n += sim->ev[i].used;
	return n;
}

unsigned int sim_pmu_mappings(const struct sim_pmu *sim)
{
	unsigned int i, n = 0;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		n += !!sim->ev[i].base + !!sim->ev[i].aux;
	return n;
}

void sim_pmu_last_open(const struct sim_pmu *sim, int *pid,
		       unsigned long *flags)
{
	*pid = sim->last_pid;
	*flags = sim->last_flags;
}

static struct sim_event *find(struct sim_pmu *sim, int cpu, enum sim_kind k)
{
	int i;

	for (i = 0; i < SIM_MAX_EVENTS; i++)
		if (sim->ev[i].used && sim->ev[i].cpu == cpu &&
		    sim->ev[i].kind == k && sim->ev[i].base)
			return &sim->ev[i];
	return NULL;
}

/* Writes only while it and its group leader are enabled. */
static bool active(const struct sim_pmu *sim, const struct sim_event *e)
{
	return e->enabled && (e->leader < 0 || sim->ev[e->leader].enabled);
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

long sim_pmu_tick(struct sim_pmu *sim, int cpu, size_t nbytes)
{
	struct sim_event *e = find(sim, cpu, SIM_PT);
	__u8 *buf;
	size_t i;
	int rc;

	if (!e || !e->aux)
		return -ENOENT;
	if (!active(sim, e) || !nbytes)
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
	if (!active(sim, e))
		return 0;
	for (i = 0; i < len; i++)
		e->aux[(e->hw_pos + i) % e->aux_len] = ((const __u8 *)bytes)[i];
	e->hw_pos += len;
	return (long)len;
}

void sim_pmu_set_time(struct sim_pmu *sim, __u64 t)
{
	sim->tsc = t - 100;
}

/* Store a record the way a write_backward ring gets it. */
static void put_backward(struct sim_event *e, const void *rec, size_t len)
{
	struct perf_event_mmap_page *pg = (void *)e->base;
	__u8 *ring = e->base + pg->data_offset;
	__u64 head = pg->data_head - len;
	size_t i;

	for (i = 0; i < len; i++)
		ring[(head + i) & (pg->data_size - 1)] = ((const __u8 *)rec)[i];
	__atomic_store_n(&pg->data_head, head, __ATOMIC_RELEASE);
}

int sim_pmu_sample(struct sim_pmu *sim, int cpu, __u32 pid, __u32 tid, __u64 ip)
{
	struct sim_event *e = find(sim, cpu, SIM_SAMPLE);
	/* IDENTIFIER, IP, TID, TIME, CPU: the order the kernel writes. */
	struct {
		struct perf_event_header h;
		__u64 id, ip;
		__u32 pid, tid;
		__u64 time;
		__u32 cpu, res;
	} r = { .h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) } };

	if (!e)
		return -ENOENT;
	if (!active(sim, e))
		return 0;
	r.id = e->id;
	r.ip = ip;
	r.pid = pid;
	r.tid = tid;
	r.time = sim->tsc += 100;
	r.cpu = (__u32)cpu;
	put_backward(e, &r, sizeof(r));
	return 1;
}

int sim_pmu_switch(struct sim_pmu *sim, int cpu, bool out, __u32 pid, __u32 tid)
{
	return sim_pmu_switch_np(sim, cpu, out, pid, tid, pid, tid);
}

int sim_pmu_switch_np(struct sim_pmu *sim, int cpu, bool out, __u32 pid,
		      __u32 tid, __u32 np_pid, __u32 np_tid)
{
	struct sim_event *e = find(sim, cpu, SIM_DUMMY);
	/* sample_id_all with TID, TIME, CPU, IDENTIFIER (always last). */
	struct {
		struct perf_event_header h;
		__u32 np_pid, np_tid;
		__u32 pid, tid;
		__u64 time;
		__u32 cpu, res;
		__u64 id;
	} r = { .h = { PERF_RECORD_SWITCH_CPU_WIDE,
		       out ? PERF_RECORD_MISC_SWITCH_OUT : 0, sizeof(r) } };

	if (!e)
		return -ENOENT;
	if (!active(sim, e))
		return 0;
	r.np_pid = np_pid;
	r.np_tid = np_tid;
	r.pid = pid;
	r.tid = tid;
	r.time = sim->tsc += 100;
	r.cpu = (__u32)cpu;
	r.id = e->id;
	put_backward(e, &r, sizeof(r));
	return 1;
}
