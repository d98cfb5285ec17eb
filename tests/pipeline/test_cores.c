// SPDX-License-Identifier: GPL-2.0
/*
 * cores.c against the simulated PMU: the state machine (no-op on the same
 * state with zero system calls, restore after read, failed ioctls), pause
 * and resume end to end, wraps, libipt decoding of what was read, offline
 * CPUs, sizes and limits, backend choice, and cleanup of half-open sets.
 * Process scope over the sim's task-bound events: groups per thread and
 * CPU sharing one ring through SET_OUTPUT, threads added later, reads of a
 * stopped target with no ioctl, all-or-nothing toggles, inherit into new
 * threads and not into forked children, enable_on_exec; and the sim's own
 * kernel rules those tests rely on.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <intel-pt.h>

#include "collect/coreplan.h"
#include "collect/cores.h"
#include "collect/cyclic.h"
#include "proc/kmaps.h"
#include "perfrec.h"
#include "proc/procinfo.h"
#include "sim_pmu.h"

#define NCPU 4
#define PT_TYPE 8
#define GARBAGE 0xa5
#define BUF (64UL << 10)

struct fixture {
	char root[64];
	struct sim_pmu *sim;
	struct cores_config cfg;
	struct cores *c;
	int cpus[NCPU];
	char err[512];
	char reports[2048];
	__u8 *tbuf, *sbuf;
};

static void collect(void *ctx, const char *msg)
{
	struct fixture *f = ctx;

	strncat(f->reports, msg, sizeof(f->reports) - strlen(f->reports) - 2);
	strcat(f->reports, "\n");
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int i;

	if (!f)
		return -1;
	strcpy(f->root, "/tmp/ptbpf-test-cores-XXXXXX");
	if (!mkdtemp(f->root) || sim_sysfs_intel_pt(f->root, PT_TYPE))
		return -1;
	f->sim = sim_pmu_new(NCPU, PT_TYPE);
	f->tbuf = malloc(4 * BUF);
	f->sbuf = malloc(4 * BUF);
	if (!f->sim || !f->tbuf || !f->sbuf)
		return -1;
	for (i = 0; i < NCPU; i++)
		f->cpus[i] = i;
	cores_config_init(&f->cfg);
	f->cfg.cpus = f->cpus;
	f->cfg.nr_cpus = NCPU;
	f->cfg.buffer_size = BUF;
	f->cfg.sideband_size = 16 << 10;
	f->cfg.sysfs_root = f->root;
	f->cfg.report = collect;
	f->cfg.report_ctx = f;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc;

	cores_close(f->c);
	/* Whatever a test did, every descriptor and mapping is gone. */
	rc = sim_pmu_open_fds(f->sim) || sim_pmu_mappings(f->sim);
	sim_pmu_free(f->sim);
	rc |= sim_sysfs_remove(f->root);
	free(f->tbuf);
	free(f->sbuf);
	free(f);
	return rc ? -1 : 0;
}

static struct cores *open_sim(struct fixture *f)
{
	f->c = cores_open(&f->cfg, sim_pmu_ops(f->sim), f->err, sizeof(f->err));
	return f->c;
}

static int read_core(struct fixture *f, unsigned int idx, bool full, struct snap_core *out)
{
	memset(out, GARBAGE, sizeof(*out));
	memset(f->tbuf, GARBAGE, 4 * BUF);
	return cores_read(f->c, idx, full, out, f->tbuf, 4 * BUF, f->sbuf, 4 * BUF);
}

/* Decode @len bytes from the first PSB on; returns the packets seen. */
static unsigned int decode(const __u8 *buf, size_t len)
{
	struct pt_packet_decoder *d;
	struct pt_packet pkt;
	struct pt_config cfg;
	unsigned int n = 0, psbs = 0;
	int rc;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_true(pt_pkt_sync_forward(d) >= 0);
	while ((rc = pt_pkt_next(d, &pkt, sizeof(pkt))) > 0) {
		if (!n)
			assert_int_equal(pkt.type, ppt_psb);
		psbs += pkt.type == ppt_psb;
		n++;
	}
	/* Every packet is whole up to the end: the head ends a tick. */
	assert_int_equal(rc, -pte_eos);
	pt_pkt_free_decoder(d);
	assert_true(psbs >= 1);
	return n;
}

static void test_open_paused(void **state)
{
	struct fixture *f = *state;
	enum core_state st;
	uint64_t id, sb, ids[2 * NCPU];
	unsigned int i, j;
	int cpu;

	f->cfg.buffer_size = 100000;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_count(f->c), NCPU);
	assert_int_equal(cores_backend(f->c), BACKEND_INTEL_PT);
	/* 100000 bytes: 25 pages, rounded up to 32, and the user is told. */
	assert_int_equal(cores_buffer_size(f->c), 32 * 4096);
	assert_non_null(strstr(f->reports, "rounded up to 128 KiB (32 pages)"));
	assert_non_null(strstr(f->reports, "backend: intel-pt"));
	assert_int_equal(sim_pmu_open_fds(f->sim), 2 * NCPU);
	assert_int_equal(sim_pmu_mappings(f->sim), 3 * NCPU);
	assert_int_equal(cores_data_attr(f->c)->type, PT_TYPE);
	assert_true(cores_data_attr(f->c)->disabled);
	assert_true(cores_sideband_attr(f->c)->context_switch);
	for (i = 0; i < NCPU; i++) {
		assert_int_equal(cores_state(f->c, i, &st), 0);
		assert_int_equal(st, CORE_PAUSED);
		assert_false(sim_pmu_running(f->sim, i));
		assert_int_equal(cores_info(f->c, i, &cpu, &id, &sb), 0);
		assert_int_equal(cpu, i);
		ids[2 * i] = id;
		ids[2 * i + 1] = sb;
	}
	for (i = 0; i < 2 * NCPU; i++)
		for (j = i + 1; j < 2 * NCPU; j++)
			assert_true(ids[i] && ids[i] != ids[j]);
	/* Opening made no enable/disable call: the attr set the state. */
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 0);
	cores_close(f->c);
	f->c = NULL;
	assert_int_equal(sim_pmu_open_fds(f->sim), 0);
	assert_int_equal(sim_pmu_mappings(f->sim), 0);
}

static void test_same_state_no_call(void **state)
{
	struct fixture *f = *state;
	uint64_t done = 0, before;
	struct timespec ts;

	assert_non_null(open_sim(f));
	assert_int_equal(cores_set_state(f->c, 1, CORE_PAUSED), 0);
	assert_int_equal(cores_pause_all(f->c, &done), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	before = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	assert_int_equal(cores_resume_all(f->c, &done), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), NCPU);
	assert_true(done >= before);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(cores_set_state(f->c, 2, CORE_RUNNING), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), NCPU);
	assert_int_equal(cores_pause_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 2 * NCPU);
}

static void test_failed_ioctl_keeps_state(void **state)
{
	struct fixture *f = *state;
	enum core_state st;
	unsigned int i;

	assert_non_null(open_sim(f));
	sim_pmu_fail(f->sim, SIM_IOCTL, 2, 0, EBADF);
	assert_int_equal(cores_resume_all(f->c, NULL), -EBADF);
	assert_string_equal(cores_last_error(f->c), "can't enable perf event on cpu 2: Bad file "
						    "descriptor");
	for (i = 0; i < NCPU; i++) {
		assert_int_equal(cores_state(f->c, i, &st), 0);
		/* Every other core was still resumed. */
		assert_int_equal(st, i == 2 ? CORE_PAUSED : CORE_RUNNING);
		assert_int_equal(sim_pmu_running(f->sim, i), i != 2);
	}
	sim_pmu_fail(f->sim, SIM_IOCTL, 0, 0, EIO);
	assert_int_equal(cores_set_state(f->c, 0, CORE_PAUSED), -EIO);
	assert_int_equal(cores_state(f->c, 0, &st), 0);
	assert_int_equal(st, CORE_RUNNING);
	assert_non_null(strstr(cores_last_error(f->c), "can't disable perf event on cpu 0"));
}

static void test_pause_stops_bytes(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;

	assert_non_null(open_sim(f));
	/* Paused from the start: the CPU runs but nothing is recorded. */
	assert_int_equal(sim_pmu_tick(f->sim, 1, 5000), 0);
	assert_int_equal(read_core(f, 1, false, &out), 0);
	assert_int_equal(out.trace_len, 0);
	assert_int_equal(out.paused_ns, 0);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 1, 3000), 3000);
	assert_int_equal(cores_pause_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 1, 7000), 0);
	assert_int_equal(read_core(f, 1, false, &out), 0);
	assert_int_equal(out.cpu, 1);
	assert_int_equal(out.trace_len, 3000);
	assert_ptr_equal(out.trace, f->tbuf);
	assert_false(out.wrapped);
	assert_int_equal(out.lost_bytes, 0);
	assert_int_equal(out.head, 3000);
	assert_true(decode(out.trace, out.trace_len) > 50);
	assert_int_equal(f->tbuf[3000], GARBAGE);
	/* A paused core stays paused after a read. */
	assert_false(sim_pmu_running(f->sim, 1));
	assert_int_equal(read_core(f, 1, false, &out), 0);
	assert_int_equal(out.trace_len, 0);
}

static void test_read_while_running(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	enum core_state st;
	unsigned long calls;
	uint64_t id;

	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_false(cores_data_attr(f->c)->disabled);
	assert_int_equal(sim_pmu_tick(f->sim, 3, 1000), 1000);
	/* aux_head moves only on disable: the read must pause first. */
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(read_core(f, 3, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls + 2);
	assert_int_equal(out.trace_len, 1000);
	assert_true(out.paused_ns > 0);
	assert_true(out.tsc > 0);
	assert_int_equal(cores_info(f->c, 3, NULL, &id, NULL), 0);
	assert_int_equal(out.data_id, id);
	assert_int_equal(cores_state(f->c, 3, &st), 0);
	assert_int_equal(st, CORE_RUNNING);
	assert_true(sim_pmu_running(f->sim, 3));
	/* Bytes keep coming, and the next read has only the new ones. */
	assert_int_equal(sim_pmu_tick(f->sim, 3, 500), 500);
	assert_int_equal(read_core(f, 3, false, &out), 0);
	assert_int_equal(out.trace_len, 500);
	assert_int_equal(out.head, 1500);
}

static void test_restore_fails(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	enum core_state st;

	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_tick(f->sim, 0, 700), 700);
	/* The disable works, the enable after the copy fails. */
	sim_pmu_fail(f->sim, SIM_IOCTL, 0, 1, EIO);
	assert_int_equal(read_core(f, 0, false, &out), -EIO);
	assert_int_equal(out.trace_len, 700);
	assert_int_equal(cores_state(f->c, 0, &st), 0);
	assert_int_equal(st, CORE_PAUSED);
	/* A failed pause reads nothing. */
	assert_int_equal(cores_set_state(f->c, 0, CORE_RUNNING), 0);
	sim_pmu_fail(f->sim, SIM_IOCTL, 0, 0, EBADF);
	assert_int_equal(read_core(f, 0, false, &out), -EBADF);
	assert_int_equal(out.cpu, (int)0xa5a5a5a5);
}

static void test_wraps(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;

	f->cfg.buffer_size = 16 << 10; /* one PSB period of this PMU */
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_tick(f->sim, 2, 1000), 1000);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	assert_int_equal(out.trace_len, 1000);
	assert_int_equal(sim_pmu_tick(f->sim, 2, 3 * (16 << 10) + 123), 3 * (16 << 10) + 123);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	assert_true(out.wrapped);
	assert_int_equal(out.trace_len, 16 << 10);
	assert_int_equal(out.head, (1000 + 123) % (16 << 10));
	assert_true(decode(out.trace, out.trace_len) > 1000);
	/* Then a plain read again. */
	assert_int_equal(sim_pmu_tick(f->sim, 2, 100), 100);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	assert_false(out.wrapped);
	assert_int_equal(out.trace_len, 100);
	/* --full: the whole buffer every time, oldest first. */
	assert_int_equal(read_core(f, 2, true, &out), 0);
	assert_int_equal(out.trace_len, 16 << 10);
	decode(out.trace, out.trace_len);
}

static void test_sideband_pt(void **state)
{
	struct fixture *f = *state;
	const struct perf_event_header *h;
	struct snap_core out;
	size_t off = 0;
	unsigned int n = 0;

	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_switch(f->sim, 0, true, 42, 43), 0);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_switch(f->sim, 0, true, 42, 43), 1);
	assert_int_equal(sim_pmu_switch(f->sim, 0, false, 42, 44), 1);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_ptr_equal(out.sideband, f->sbuf);
	while (perfrec_next(out.sideband, out.sideband_len, &off, &h) == 1) {
		assert_int_equal(h->type, PERF_RECORD_SWITCH_CPU_WIDE);
		/* Oldest first: the switch-out of tid 43 comes first. */
		assert_int_equal(((const __u32 *)(h + 1))[1], n ? 44 : 43);
		n++;
	}
	assert_int_equal(n, 2);
	assert_false(out.sb_wrapped);
	assert_int_equal(out.sb_lost_bytes, 0);
}

/* Switch records the ring overwrote before a snapshot are reported lost. */
static void test_sideband_wrap(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	unsigned int i;

	f->cfg.sideband_size = 4096;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(sim_pmu_switch(f->sim, 0, i & 1, 42, 43), 1);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_true(out.sb_wrapped);
	assert_true(out.sb_lost_bytes > 0);
	assert_true(out.sideband_len <= 4096);
	/* the next read starts afresh */
	assert_int_equal(sim_pmu_switch(f->sim, 0, true, 42, 43), 1);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_false(out.sb_wrapped);
	assert_int_equal(out.sb_lost_bytes, 0);
}

static void test_sample_backend(void **state)
{
	struct fixture *f = *state;
	const struct perf_event_header *h;
	struct snap_core out;
	size_t off = 0;
	unsigned int n = 0;

	f->cfg.backend = BACKEND_SAMPLE;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_backend(f->c), BACKEND_SAMPLE);
	assert_int_equal(cores_data_attr(f->c)->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(sim_pmu_sample(f->sim, 1, 7, 8, 0x1000), 0);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_sample(f->sim, 1, 7, 8, 0x1000), 1);
	assert_int_equal(sim_pmu_sample(f->sim, 1, 7, 9, 0x2000), 1);
	assert_int_equal(cores_pause_all(f->c, NULL), 0);
	assert_int_equal(sim_pmu_sample(f->sim, 1, 7, 10, 0x3000), 0);
	assert_int_equal(read_core(f, 1, false, &out), 0);
	/* IDENTIFIER, IP, TID, TIME, CPU; the chain: nr, the user marker, ip */
	assert_int_equal(cores_data_attr(f->c)->sample_type & PERF_SAMPLE_CALLCHAIN,
			 PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(out.trace_len, 2 * (48 + 24));
	while (perfrec_next(out.trace, out.trace_len, &off, &h) == 1) {
		const __u64 *v = (const __u64 *)(h + 1);

		assert_int_equal(h->type, PERF_RECORD_SAMPLE);
		assert_int_equal(v[0], out.data_id); /* IDENTIFIER */
		assert_int_equal(v[1], n ? 0x2000 : 0x1000); /* IP */
		assert_int_equal(v[5], 2);
		assert_int_equal(v[6], (__u64)PERF_CONTEXT_USER);
		assert_int_equal(v[7], v[1]);
		n++;
	}
	assert_int_equal(n, 2);
	assert_int_equal(cores_cpu_info(f->c, &(struct snap_cpu_info){ 0 }), -ENOENT);
}

static void test_offline_skipped(void **state)
{
	struct fixture *f = *state;
	int cpu;

	assert_int_equal(sim_sysfs_write(f->root, "devices/system/cpu/cpu1/online", "0\n"), 0);
	assert_int_equal(sim_sysfs_write(f->root, "devices/system/cpu/cpu3/online", "1\n"), 0);
	sim_pmu_set_offline(f->sim, 2); /* ENODEV from perf_event_open */
	assert_non_null(open_sim(f));
	assert_int_equal(cores_count(f->c), 2);
	assert_int_equal(cores_info(f->c, 0, &cpu, NULL, NULL), 0);
	assert_int_equal(cpu, 0);
	assert_int_equal(cores_info(f->c, 1, &cpu, NULL, NULL), 0);
	assert_int_equal(cpu, 3);
	assert_non_null(strstr(f->reports, "cpu 1 is offline"));
	assert_non_null(strstr(f->reports, "cpu 2 is offline"));
	assert_int_equal(sim_pmu_open_fds(f->sim), 4);
}

static const struct half_case {
	enum sim_call call;
	unsigned int skip;
	int err;
	const char *msg;
} half[] = {
	{ SIM_OPEN, 0, EMFILE, "can't open perf event on cpu 2: Too many" },
	{ SIM_OPEN, 1, EACCES, "cpu 2 (run as root or with CAP_PERFMON)" },
	{ SIM_MMAP, 1, ENOMEM, "can't map the AUX area of cpu 2" },
	{ SIM_MMAP, 2, EPERM, "can't map the perf ring of cpu 2" },
};

static void test_half_open(void **state)
{
	struct fixture *f = *state;
	unsigned int i;

	for (i = 0; i < sizeof(half) / sizeof(half[0]); i++) {
		print_message("half-open: %s\n", half[i].msg);
		sim_pmu_fail(f->sim, half[i].call, 2, half[i].skip, half[i].err);
		errno = 0;
		assert_null(open_sim(f));
		assert_int_equal(errno, half[i].err);
		assert_non_null(strstr(f->err, half[i].msg));
		/* CPUs 0, 1 and the half of 2 are closed again. */
		assert_int_equal(sim_pmu_open_fds(f->sim), 0);
		assert_int_equal(sim_pmu_mappings(f->sim), 0);
	}
}

static void test_backend_choice(void **state)
{
	struct fixture *f = *state;
	char empty[64];

	strcpy(empty, "/tmp/ptbpf-test-empty-XXXXXX");
	assert_non_null(mkdtemp(empty));
	f->cfg.sysfs_root = empty;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_backend(f->c), BACKEND_SAMPLE);
	assert_non_null(strstr(f->reports, "backend: sample (no Intel PT"));
	cores_close(f->c);
	f->cfg.backend = BACKEND_INTEL_PT;
	errno = 0;
	assert_null(open_sim(f));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(f->err, empty));
	assert_non_null(strstr(f->err, "bus/event_source/devices/intel_pt"));
	assert_int_equal(sim_sysfs_remove(empty), 0);
	/* Forced sample on a machine with intel_pt. */
	f->cfg.sysfs_root = f->root;
	f->cfg.backend = BACKEND_SAMPLE;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_backend(f->c), BACKEND_SAMPLE);
}

static void test_limits(void **state)
{
	struct fixture *f = *state;

	f->cfg.buffer_size = 512 << 10;
	f->cfg.total_limit = 1 << 20;
	errno = 0;
	assert_null(open_sim(f));
	assert_int_equal(errno, E2BIG);
	assert_non_null(strstr(f->err, "lower --buffer-size (now 512 KiB)"));
	assert_non_null(strstr(f->err, "--cpus"));
	assert_int_equal(sim_pmu_calls(f->sim, SIM_OPEN), 0);
	/* Smaller than one PSB period (16 KiB with psb_period 3). */
	f->cfg.total_limit = 0;
	f->cfg.buffer_size = 8 << 10;
	assert_null(open_sim(f));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(f->err, "can't hold one PSB period (16 KiB)"));
}

static void test_cgroup(void **state)
{
	struct fixture *f = *state;
	unsigned long flags;
	int pid;

	assert_non_null(open_sim(f));
	sim_pmu_last_open(f->sim, &pid, &flags);
	assert_int_equal(pid, -1);
	assert_int_equal(flags, PERF_FLAG_FD_CLOEXEC);
	cores_close(f->c);
	f->cfg.cgroup_fd = 7;
	assert_non_null(open_sim(f));
	sim_pmu_last_open(f->sim, &pid, &flags);
	assert_int_equal(pid, 7);
	assert_int_equal(flags, PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
}

static void test_conv_and_info(void **state)
{
	struct fixture *f = *state;
	struct snap_tsc_conv conv;
	struct snap_cpu_info info;

	assert_non_null(open_sim(f));
	memset(&conv, GARBAGE, sizeof(conv));
	assert_int_equal(cores_tsc_conv(f->c, &conv), 0);
	assert_true(conv.valid);
	assert_int_equal(conv.time_zero, 123456789);
	assert_int_equal(conv.time_mult, 1 << 20);
	assert_int_equal(conv.time_shift, 21);
	memset(&info, 0, sizeof(info));
	assert_int_equal(cores_cpu_info(f->c, &info), 0);
	assert_int_equal(info.mtc_freq, 3);
	assert_int_equal(info.max_nonturbo_ratio, 24);
}

static const struct round_case {
	size_t req, want;
	int rc;
} rounds[] = {
	{ 1, 4096, 0 },		 { 4096, 4096, 0 }, { 4097, 8192, 0 },	     { 3 * 4096, 16384, 0 },
	{ 4 << 20, 4 << 20, 0 }, { 0, 0, -EINVAL }, { SIZE_MAX, 0, -E2BIG },
};

static void test_round_size(void **state)
{
	unsigned int i;
	size_t got;

	for (i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
		got = 12345;
		assert_int_equal(coreplan_round_size(rounds[i].req, 4096, &got), rounds[i].rc);
		if (!rounds[i].rc)
			assert_int_equal(got, rounds[i].want);
	}
	assert_int_equal(coreplan_round_size(1, 0, &got), -EINVAL);
	assert_int_equal(coreplan_round_size(1, 4096, NULL), -EINVAL);
}

static void test_invalid(void **state)
{
	struct fixture *f = *state;
	struct snap_tsc_conv conv;
	struct snap_core out;
	enum core_state st;
	__u8 b[8];

	errno = 0;
	assert_null(cores_open(NULL, NULL, NULL, 0));
	assert_int_equal(errno, EINVAL);
	f->cfg.nr_cpus = 0;
	assert_null(open_sim(f));
	f->cfg.nr_cpus = NCPU;
	f->cpus[1] = -1;
	assert_null(open_sim(f));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(f->err, "negative CPU"));
	f->cpus[1] = 1;
	cores_close(NULL);
	cores_config_init(NULL);
	assert_int_equal(cores_count(NULL), 0);
	assert_int_equal(cores_buffer_size(NULL), 0);
	assert_int_equal(cores_sideband_size(NULL), 0);
	assert_null(cores_data_attr(NULL));
	assert_null(cores_sideband_attr(NULL));
	assert_string_equal(cores_last_error(NULL), "");
	assert_int_equal(cores_backend(NULL), BACKEND_AUTO);
	assert_int_equal(cores_pause_all(NULL, NULL), -EINVAL);
	assert_int_equal(cores_resume_all(NULL, NULL), -EINVAL);
	assert_non_null(open_sim(f));
	assert_int_equal(cores_info(f->c, NCPU, NULL, NULL, NULL), -EINVAL);
	assert_int_equal(cores_state(f->c, NCPU, &st), -EINVAL);
	assert_int_equal(cores_state(f->c, 0, NULL), -EINVAL);
	assert_int_equal(cores_set_state(f->c, NCPU, CORE_RUNNING), -EINVAL);
	assert_int_equal(cores_set_state(f->c, 0, (enum core_state)7), -EINVAL);
	assert_int_equal(cores_tsc_conv(NULL, &conv), -EINVAL);
	assert_int_equal(cores_tsc_conv(f->c, NULL), -EINVAL);
	assert_int_equal(cores_cpu_info(f->c, NULL), -EINVAL);
	assert_int_equal(cores_read(f->c, NCPU, false, &out, b, 8, b, 8), -EINVAL);
	assert_int_equal(cores_read(f->c, 0, false, NULL, b, 8, b, 8), -EINVAL);
	assert_int_equal(cores_read(f->c, 0, false, &out, NULL, 8, b, 8), -EINVAL);
	assert_int_equal(cores_read(NULL, 0, false, &out, b, 8, b, 8), -EINVAL);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 0);
}

/*
 * Process scope over the simulated kernel's task-bound events: tasks of
 * process TPID (threads TPID, TPID + 1, ...) and one unrelated process
 * OTHER, scheduled in and out of the CPUs by the test.
 */
#define TPID 500
#define OTHER 900

static const pid_t proc_tids[] = { TPID, TPID + 1 };

static void proc_config(struct fixture *f, unsigned int nr_tids)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		assert_int_equal(sim_pmu_task(f->sim, TPID, TPID + i), 0);
	assert_int_equal(sim_pmu_task(f->sim, OTHER, OTHER), 0);
	f->cfg.scope = SCOPE_PROCESS;
	f->cfg.tids = proc_tids;
	f->cfg.nr_tids = nr_tids;
}

/* @tid runs @nbytes of trace on @cpu, between its sched-in and -out. */
static long run_task(struct fixture *f, int cpu, __u32 tid, size_t nbytes)
{
	long n;

	assert_int_equal(sim_pmu_sched_in(f->sim, cpu, tid), 0);
	n = sim_pmu_tick(f->sim, cpu, nbytes);
	assert_int_equal(sim_pmu_sched_out(f->sim, cpu), 0);
	return n;
}

struct sw_rec {
	__u32 type, misc, pid, tid;
	uint64_t id;
};

/* The switch records of @out, oldest first. */
static unsigned int switches(const struct snap_core *out, struct sw_rec *sw, unsigned int max)
{
	const struct perf_event_header *h;
	unsigned int n = 0;
	size_t off = 0;

	while (perfrec_next(out->sideband, out->sideband_len, &off, &h) == 1) {
		const __u8 *p = (const __u8 *)(h + 1);

		assert_true(n < max);
		sw[n].type = h->type;
		sw[n].misc = h->misc;
		/* CPU-wide records have next_prev_pid/tid before sample_id */
		if (h->type == PERF_RECORD_SWITCH_CPU_WIDE)
			p += 8;
		memcpy(&sw[n].pid, p, 4);
		memcpy(&sw[n].tid, p + 4, 4);
		memcpy(&sw[n].id, (const __u8 *)h + h->size - 8, 8);
		n++;
	}
	return n;
}

/*
 * Two threads: a group per thread per CPU bound to the thread, the second
 * thread's sent into the first's rings with SET_OUTPUT; threads the sim
 * doesn't know (gone by now) are skipped, a gone first thread fails.
 */
static void test_process_open(void **state)
{
	struct fixture *f = *state;
	static const pid_t gone[] = { TPID, 4242, TPID + 1 };
	unsigned long flags;
	int pid;

	proc_config(f, 2);
	assert_non_null(open_sim(f));
	assert_int_equal(cores_scope(f->c), SCOPE_PROCESS);
	assert_int_equal(cores_count(f->c), NCPU);
	/* data + sideband, for each of 2 threads on each of 4 CPUs */
	assert_int_equal(cores_event_count(f->c), 2 * 2 * NCPU);
	assert_int_equal(sim_pmu_open_fds(f->sim), 2 * 2 * NCPU);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_OPEN), 2 * 2 * NCPU);
	/* one ring and one AUX area per CPU, the first thread's */
	assert_int_equal(sim_pmu_mappings(f->sim), 3 * NCPU);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_SET_OUTPUT), 2 * NCPU);
	sim_pmu_last_open(f->sim, &pid, &flags);
	assert_int_equal(pid, TPID + 1);
	assert_int_equal(flags, PERF_FLAG_FD_CLOEXEC);
	assert_true(cores_data_attr(f->c)->inherit);
	assert_true(cores_data_attr(f->c)->inherit_thread);
	assert_true(cores_sideband_attr(f->c)->inherit);
	assert_true(cores_sideband_attr(f->c)->inherit_thread);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 0);
	cores_close(f->c);
	assert_int_equal(sim_pmu_open_fds(f->sim), 0);

	f->cfg.tids = gone;
	f->cfg.nr_tids = 3;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_event_count(f->c), 2 * 2 * NCPU);
	assert_int_equal(sim_pmu_open_fds(f->sim), 2 * 2 * NCPU);
	cores_close(f->c);
	f->cfg.tids = gone + 1;
	errno = 0;
	f->c = NULL;
	assert_null(open_sim(f));
	assert_int_equal(errno, ESRCH);
	assert_non_null(strstr(f->err, "cpu 0"));
	assert_int_equal(sim_pmu_open_fds(f->sim), 0);
	f->cfg.tids = NULL;
	assert_null(open_sim(f));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(f->err, "process scope needs"));
}

/*
 * Both threads' trace and switches land in the one ring of the CPU; an
 * unrelated task running there in between writes nothing.
 */
static void test_process_threads_share_ring(void **state)
{
	struct fixture *f = *state;
	struct sw_rec sw[8];
	struct snap_core out;
	uint64_t sb_id;
	unsigned int i;

	proc_config(f, 2);
	assert_non_null(open_sim(f));
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	/* every group of every core: 2 ioctls per core */
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 2 * NCPU);
	assert_int_equal(run_task(f, 1, TPID, 1000), 1000);
	assert_int_equal(run_task(f, 1, OTHER, 5000), 0);
	assert_int_equal(run_task(f, 1, TPID + 1, 600), 600);
	assert_int_equal(sim_pmu_written(f->sim, 1), 1600);
	for (i = 0; i < NCPU; i++)
		if (i != 1)
			assert_int_equal(sim_pmu_written(f->sim, (int)i), 0);
	assert_int_equal(read_core(f, 1, false, &out), 0);
	assert_int_equal(out.trace_len, 1600);
	assert_true(decode(out.trace, out.trace_len) > 20);
	/* records of the second thread's group carry that group's ids */
	assert_true(out.mixed_ids);
	assert_int_equal(cores_info(f->c, 1, NULL, NULL, &sb_id), 0);
	assert_int_equal(switches(&out, sw, 8), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(sw[i].type, PERF_RECORD_SWITCH);
		assert_int_equal(sw[i].misc, i & 1 ? PERF_RECORD_MISC_SWITCH_OUT : 0);
		assert_int_equal(sw[i].pid, TPID);
		assert_int_equal(sw[i].tid, i < 2 ? TPID : TPID + 1);
		if (i < 2)
			assert_int_equal(sw[i].id, sb_id);
		else
			assert_true(sw[i].id != sb_id);
	}
}

/*
 * A read of a running core with the target on the CPU disables every
 * group of the core (that publishes aux_head) and enables them again.
 */
static void test_process_read_running(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	enum core_state st;
	unsigned long calls;

	proc_config(f, 2);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_sched_in(f->sim, 2, TPID + 1), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 2, 1000), 1000);
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	/* 2 groups: 2 disables, 2 enables */
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls + 4);
	assert_int_equal(out.trace_len, 1000);
	assert_true(out.paused_ns > 0);
	assert_int_equal(cores_state(f->c, 2, &st), 0);
	assert_int_equal(st, CORE_RUNNING);
	/* the thread still on the CPU traces on */
	assert_int_equal(sim_pmu_tick(f->sim, 2, 300), 300);
	assert_int_equal(sim_pmu_sched_out(f->sim, 2), 0);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	assert_int_equal(out.trace_len, 300);
	assert_int_equal(out.head, 1300);
	/* a paused core is read with no ioctl and stays paused */
	assert_int_equal(cores_set_state(f->c, 2, CORE_PAUSED), 0);
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(run_task(f, 2, TPID, 400), 0);
	assert_int_equal(read_core(f, 2, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	assert_int_equal(out.trace_len, 0);
}

/*
 * No target thread can run: the read makes no ioctl and gets what the
 * kernel published at the last sched-out, the trace of a thread still on
 * the CPU not yet. Outside process scope offcpu is ignored.
 */
static void test_process_offcpu_read(void **state)
{
	struct fixture *f = *state;
	struct sw_rec sw[8];
	struct snap_core out;
	unsigned long calls;

	proc_config(f, 2);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(run_task(f, 0, TPID, 1200), 1200);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID + 1), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 0, 800), 800);
	cores_set_offcpu(f->c, true);
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	assert_int_equal(out.paused_ns, 0);
	/* aux_head as of TPID's sched-out: TPID + 1's 800 are not in yet */
	assert_int_equal(out.trace_len, 1200);
	assert_true(decode(out.trace, out.trace_len) > 20);
	assert_int_equal(switches(&out, sw, 8), 3);
	assert_int_equal(sw[2].tid, TPID + 1);
	assert_int_equal(sw[2].misc, 0);
	/* its sched-out publishes them */
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	assert_int_equal(out.trace_len, 800);
	assert_int_equal(out.head, 2000);
	assert_int_equal(switches(&out, sw, 8), 1);
	assert_int_equal(sw[0].misc, PERF_RECORD_MISC_SWITCH_OUT);
	/* the target runs again: reads pause and restore */
	cores_set_offcpu(f->c, false);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls + 4);
	cores_close(f->c);

	f->cfg.scope = SCOPE_CPU;
	assert_non_null(open_sim(f));
	cores_set_offcpu(f->c, true);
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls + 2);
}

/* A toggle failing on the second group of a core undoes the first. */
static void test_process_toggle_rollback(void **state)
{
	struct fixture *f = *state;
	enum core_state st;
	unsigned int i;

	proc_config(f, 2);
	assert_non_null(open_sim(f));
	/* the second ioctl on CPU 1: the second thread's group */
	sim_pmu_fail(f->sim, SIM_IOCTL, 1, 1, EIO);
	assert_int_equal(cores_resume_all(f->c, NULL), -EIO);
	assert_non_null(strstr(cores_last_error(f->c), "can't enable perf event on cpu 1"));
	/* 3 cores x 2, and on CPU 1 enable, failed enable, disable again */
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 3 * 2 + 3);
	for (i = 0; i < NCPU; i++) {
		assert_int_equal(cores_state(f->c, i, &st), 0);
		assert_int_equal(st, i == 1 ? CORE_PAUSED : CORE_RUNNING);
	}
	assert_false(sim_pmu_running(f->sim, 1));
	assert_int_equal(run_task(f, 1, TPID, 500), 0);
	assert_int_equal(run_task(f, 1, TPID + 1, 500), 0);
	assert_int_equal(run_task(f, 0, TPID + 1, 500), 500);

	assert_int_equal(cores_set_state(f->c, 1, CORE_RUNNING), 0);
	sim_pmu_fail(f->sim, SIM_IOCTL, 1, 1, EIO);
	assert_int_equal(cores_set_state(f->c, 1, CORE_PAUSED), -EIO);
	assert_non_null(strstr(cores_last_error(f->c), "can't disable perf event on cpu 1"));
	assert_int_equal(cores_state(f->c, 1, &st), 0);
	assert_int_equal(st, CORE_RUNNING);
	assert_int_equal(run_task(f, 1, TPID, 100), 100);
	assert_int_equal(run_task(f, 1, TPID + 1, 100), 100);
}

/*
 * A thread found later gets its groups in the core's current state; one
 * gone half-way leaves nothing behind; outside process scope it is refused.
 */
static void test_process_add_thread(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	unsigned long fds;

	proc_config(f, 1);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_event_count(f->c), 2 * NCPU);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_SET_OUTPUT), 0);
	assert_int_equal(run_task(f, 3, TPID + 2, 900), 0);
	assert_int_equal(cores_add_thread(f->c, TPID + 2), 0);
	assert_int_equal(cores_event_count(f->c), 2 * 2 * NCPU);
	assert_int_equal(sim_pmu_open_fds(f->sim), 2 * 2 * NCPU);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_SET_OUTPUT), 2 * NCPU);
	assert_int_equal(run_task(f, 3, TPID + 2, 900), 900);
	assert_int_equal(read_core(f, 3, false, &out), 0);
	assert_int_equal(out.trace_len, 900);
	assert_true(out.mixed_ids);
	/* added while paused: paused, and resumed with the rest */
	assert_int_equal(cores_pause_all(f->c, NULL), 0);
	assert_int_equal(cores_add_thread(f->c, TPID + 3), 0);
	assert_int_equal(run_task(f, 3, TPID + 3, 100), 0);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(run_task(f, 3, TPID + 3, 100), 100);
	/* gone: at the first open, or half-way (the open on CPU 2) */
	fds = sim_pmu_open_fds(f->sim);
	assert_int_equal(cores_add_thread(f->c, 4242), -ESRCH);
	sim_pmu_fail(f->sim, SIM_OPEN, 2, 0, ESRCH);
	assert_int_equal(cores_add_thread(f->c, TPID + 1), -ESRCH);
	assert_int_equal(sim_pmu_open_fds(f->sim), fds);
	assert_int_equal(cores_event_count(f->c), fds);
	assert_int_equal(cores_add_thread(f->c, 0), -EINVAL);
	assert_int_equal(cores_add_thread(NULL, TPID + 1), -EINVAL);
	cores_close(f->c);

	f->cfg.scope = SCOPE_CPU;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_add_thread(f->c, TPID + 1), -EINVAL);
	assert_non_null(strstr(cores_last_error(f->c), "process scope only"));
	assert_int_equal(cores_event_count(f->c), 2 * NCPU);
	assert_int_equal(cores_scope(f->c), SCOPE_CPU);
	assert_int_equal(cores_event_count(NULL), 0);
	assert_int_equal(cores_scope(NULL), SCOPE_CPU);
}

/*
 * Threads the target creates inherit the events (records with the
 * parent's ids, switched by the same ioctls); a forked child, and the
 * child's own threads, never reach the buffers.
 */
static void test_process_fork_stays_out(void **state)
{
	struct fixture *f = *state;
	struct sw_rec sw[4];
	struct snap_core out;
	uint64_t sb_id;
	unsigned int i;

	proc_config(f, 1);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 600, false), 0);
	assert_int_equal(sim_pmu_clone(f->sim, 600, 601, true), 0);
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 510, true), 0);
	for (i = 0; i < NCPU; i++) {
		assert_int_equal(run_task(f, (int)i, 600, 4000), 0);
		assert_int_equal(run_task(f, (int)i, 601, 4000), 0);
		assert_int_equal(sim_pmu_written(f->sim, (int)i), 0);
	}
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(out.trace_len, 0);
	assert_int_equal(out.sideband_len, 0);
	/* the new thread: its own trace and switches, in the same rings */
	assert_int_equal(run_task(f, 1, 510, 700), 700);
	assert_int_equal(read_core(f, 1, false, &out), 0);
	assert_int_equal(out.trace_len, 700);
	assert_false(out.mixed_ids);
	assert_int_equal(cores_info(f->c, 1, NULL, NULL, &sb_id), 0);
	assert_int_equal(switches(&out, sw, 4), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(sw[i].type, PERF_RECORD_SWITCH);
		assert_int_equal(sw[i].tid, 510);
		assert_int_equal(sw[i].pid, TPID);
		assert_int_equal(sw[i].id, sb_id);
	}
	/* pausing the parent's events pauses the inherited ones */
	assert_int_equal(cores_pause_all(f->c, NULL), 0);
	assert_int_equal(run_task(f, 1, 510, 700), 0);
	assert_int_equal(cores_resume_all(f->c, NULL), 0);
	assert_int_equal(run_task(f, 1, 510, 100), 100);
	assert_int_equal(sim_pmu_exit(f->sim, 510), 0);
	assert_int_equal(sim_pmu_written(f->sim, 1), 800);
}

/*
 * -- COMMAND: armed with enable_on_exec on the held child, nothing before
 * its exec is recorded, everything after it (threads included).
 */
static void test_process_enable_on_exec(void **state)
{
	struct fixture *f = *state;
	struct sw_rec sw[4];
	struct snap_core out;
	enum core_state st;

	proc_config(f, 1);
	f->cfg.enable_on_exec = true;
	assert_non_null(open_sim(f));
	assert_true(cores_data_attr(f->c)->enable_on_exec);
	assert_int_equal(cores_state(f->c, 0, &st), 0);
	assert_int_equal(st, CORE_RUNNING);
	assert_int_equal(run_task(f, 0, TPID, 2000), 0);
	assert_int_equal(sim_pmu_exec(f->sim, TPID, "target"), 0);
	assert_int_equal(run_task(f, 0, TPID, 500), 500);
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 520, true), 0);
	assert_int_equal(run_task(f, 0, 520, 300), 300);
	cores_set_offcpu(f->c, true);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), 0);
	assert_int_equal(out.trace_len, 800);
	/* no switch record from before the exec */
	assert_int_equal(switches(&out, sw, 4), 4);
	assert_int_equal(sw[0].tid, TPID);
	assert_int_equal(sw[3].tid, 520);
}

/*
 * A thread found while it runs on a CPU is traced from then on: its group
 * starts once its output goes into the core's rings, and the kernel names
 * it in an ITRACE_START. A group opened enabled would not: PT can't start
 * before its ring has an AUX area (pt_event_start()), and the kernel
 * tries the group again only at the thread's next schedule-in.
 */
static void test_process_add_thread_on_cpu(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	__u32 who[2];

	proc_config(f, 1);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(sim_pmu_sched_in(f->sim, 3, TPID + 2), 0);
	assert_int_equal(cores_add_thread(f->c, TPID + 2), 0);
	assert_int_equal(sim_pmu_tick(f->sim, 3, 900), 900);
	assert_int_equal(sim_pmu_sched_out(f->sim, 3), 0);
	assert_int_equal(read_core(f, 3, false, &out), 0);
	assert_int_equal(out.trace_len, 900);
	assert_non_null(out.ptrec);
	assert_true(out.ptrec_len >= sizeof(struct perf_event_header) + sizeof(who));
	assert_int_equal(((const struct perf_event_header *)out.ptrec)->type,
			 PERF_RECORD_ITRACE_START);
	memcpy(who, out.ptrec + sizeof(struct perf_event_header), sizeof(who));
	assert_int_equal(who[1], TPID + 2);
}

/*
 * The thread whose events own the rings exits: its events are dead, the
 * rings stay, and the other threads' trace still lands there.
 */
static void test_process_owner_exits(void **state)
{
	struct fixture *f = *state;
	struct snap_core out;
	unsigned long calls;

	proc_config(f, 2);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(run_task(f, 0, TPID, 100), 100);
	assert_int_equal(sim_pmu_exit(f->sim, TPID), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), -ESRCH);
	assert_int_equal(run_task(f, 0, TPID + 1, 400), 400);
	cores_set_offcpu(f->c, true);
	/* off-CPU: the read pauses nothing */
	calls = sim_pmu_calls(f->sim, SIM_IOCTL);
	assert_int_equal(read_core(f, 0, false, &out), 0);
	assert_int_equal(out.trace_len, 500);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_IOCTL), calls);
	/* a thread found now is gone: nothing is opened for it */
	assert_int_equal(cores_add_thread(f->c, TPID), -ESRCH);
}

/* The fields of a FORK or EXIT record, and of its sample ID (TID first). */
struct task_rec {
	__u32 pid, ppid, tid, ptid;
	__u64 time;
	__u32 id_pid, id_tid;
};

/*
 * The kernel's side-band records of the target's life in ptbpf's sideband
 * ring, as evattr_sideband()'s mmap bits ask for them (process scope: the
 * target's own events): the MMAP2 of a library it maps on CPU 1, the
 * FORKs of a thread and a child it makes there, the thread's EXIT (its
 * inherited event writes into the same ring), each with the sample ID of
 * the task that acted. No data mapping (no mmap_data), no COMM (no comm),
 * no EXIT of the child (it has no events: inherit_thread). Then ptbpf's
 * kmaps_merge() puts the library into the target's reading and
 * kmaps_strip() leaves only the switches.
 */
static void test_sideband_task_records(void **state)
{
	struct fixture *f = *state;
	struct sim_mapping lib = {
		.start = 0x7f0000001000ULL,
		.len = 0x3000,
		.pgoff = 0x1000,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.maj = 8,
		.min = 1,
		.ino = 4242,
		.ino_generation = 7,
		.path = "/usr/lib/libptbpf-late.so",
	}, data = lib;
	const struct perf_event_header *h;
	struct snap_process p = { .pid = TPID };
	struct perfrec_mmap2 mm;
	struct task_rec tr[3];
	unsigned int nt = 0, nm = 0, nsw = 0;
	struct snap_core out;
	uint64_t sb_id, id;
	size_t off = 0;

	proc_config(f, 1);
	f->cfg.start_running = true;
	assert_non_null(open_sim(f));
	assert_int_equal(cores_info(f->c, 1, NULL, NULL, &sb_id), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, TPID), 0);
	assert_int_equal(sim_pmu_mmap(f->sim, 1, &lib), 1);
	data.prot = PROT_READ | PROT_WRITE;
	data.path = "/tmp/ptbpf-data";
	assert_int_equal(sim_pmu_mmap(f->sim, 1, &data), 0);
	assert_int_equal(sim_pmu_comm(f->sim, 1, "renamed"), 0);
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 510, true), 0);
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 600, false), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 1), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, 510), 0);
	assert_int_equal(sim_pmu_exit(f->sim, 510), 0);
	assert_int_equal(sim_pmu_on_cpu(f->sim, 1), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, 600), 0);
	assert_int_equal(sim_pmu_exit(f->sim, 600), 0);
	assert_int_equal(read_core(f, 1, false, &out), 0);

	while (perfrec_next(out.sideband, out.sideband_len, &off, &h) == 1) {
		memcpy(&id, (const __u8 *)h + h->size - 8, 8);
		assert_int_equal(id, sb_id);
		if (h->type == PERF_RECORD_SWITCH) {
			nsw++;
			continue;
		}
		if (h->type == PERF_RECORD_MMAP2) {
			/* 72 bytes of fields, the name padded to 32, a 32-byte ID */
			assert_int_equal(h->size, 72 + 32 + 32);
			assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
			memcpy(&mm, h, sizeof(mm));
			assert_int_equal(mm.pid, TPID);
			assert_int_equal(mm.tid, TPID);
			assert_int_equal(mm.addr, lib.start);
			assert_int_equal(mm.len, lib.len);
			assert_int_equal(mm.pgoff, lib.pgoff);
			assert_int_equal(mm.maj, 8);
			assert_int_equal(mm.min, 1);
			assert_int_equal(mm.ino, 4242);
			assert_int_equal(mm.ino_generation, 7);
			assert_int_equal(mm.prot, PROT_READ | PROT_EXEC);
			assert_int_equal(mm.flags, MAP_PRIVATE);
			assert_string_equal((const char *)h + sizeof(mm), lib.path);
			nm++;
			continue;
		}
		assert_true(h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT);
		assert_int_equal(h->type, nt < 2 ? PERF_RECORD_FORK : PERF_RECORD_EXIT);
		assert_int_equal(h->misc, 0);
		assert_int_equal(h->size, 8 + 24 + 32);
		assert_true(nt < 3);
		memcpy(&tr[nt], h + 1, sizeof(tr[nt]));
		nt++;
	}
	assert_int_equal(nm, 1);
	assert_int_equal(nt, 3);
	/* in and out of TPID, in of 510: its exit took its events away */
	assert_int_equal(nsw, 3);
	/* a thread: TPID's pid; a child: its own; both made by TPID */
	assert_int_equal(tr[0].pid, TPID);
	assert_int_equal(tr[0].tid, 510);
	assert_int_equal(tr[1].pid, 600);
	assert_int_equal(tr[1].tid, 600);
	assert_int_equal(tr[0].ppid, TPID);
	assert_int_equal(tr[0].ptid, TPID);
	assert_int_equal(tr[1].ppid, TPID);
	assert_int_equal(tr[1].id_tid, TPID);
	/* the thread's exit, by itself; its real parent: TPID's (unknown) */
	assert_int_equal(tr[2].pid, TPID);
	assert_int_equal(tr[2].tid, 510);
	assert_int_equal(tr[2].ppid, 0);
	assert_int_equal(tr[2].id_tid, 510);
	assert_true(tr[2].time > tr[1].time);

	assert_int_equal(kmaps_merge(out.sideband, out.sideband_len, &p, NULL, 0), 1);
	assert_int_equal(p.nr_maps, 1);
	assert_int_equal(p.maps[0].start, lib.start);
	assert_int_equal(p.maps[0].pgoff, lib.pgoff);
	assert_int_equal(p.maps[0].ino, lib.ino);
	assert_string_equal(p.maps[0].path, lib.path);
	procinfo_free(&p);
	kmaps_strip(out.sideband, &out.sideband_len);
	off = nsw = 0;
	while (perfrec_next(out.sideband, out.sideband_len, &off, &h) == 1) {
		assert_int_equal(h->type, PERF_RECORD_SWITCH);
		nsw++;
	}
	assert_int_equal(nsw, 3);
}

/*
 * The simulated kernel's own rules, which the tests above rely on:
 * SET_OUTPUT only within a CPU and direction, never from a mapped event
 * or to one with no ring; inherit follows a fork when inherit_thread is 0;
 * a task-bound group stays in its task.
 */
static void test_sim_rules(void **state)
{
	struct fixture *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY,
				     .context_switch = 1,
				     .inherit = 1 };
	int e0, e1, e2, e3, e4, fd;
	void *ring, *ring4;

	assert_int_equal(sim_pmu_task(f->sim, TPID, TPID), 0);
	assert_int_equal(ops->open(ops->ctx, &a, 4242, 0, -1, 0), -ESRCH);
	e0 = ops->open(ops->ctx, &a, TPID, 0, -1, 0);
	e1 = ops->open(ops->ctx, &a, TPID, 0, -1, 0);
	e2 = ops->open(ops->ctx, &a, TPID, 1, -1, 0);
	assert_true(e0 >= SIM_FD_BASE && e1 >= 0 && e2 >= 0);
	/* into an event with no ring */
	assert_int_equal(ops->ioctl(ops->ctx, e1, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e0),
			 -EINVAL);
	assert_int_equal(ops->mmap(ops->ctx, e0, 2 * 4096, PROT_READ, 0, &ring), 0);
	assert_int_equal(ops->ioctl(ops->ctx, e2, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e0),
			 -EINVAL);
	assert_int_equal(ops->ioctl(ops->ctx, e0, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e0),
			 -EINVAL);
	assert_int_equal(ops->ioctl(ops->ctx, e1, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e0), 0);
	a.write_backward = 1;
	e3 = ops->open(ops->ctx, &a, TPID, 0, -1, 0);
	assert_int_equal(ops->ioctl(ops->ctx, e3, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e0),
			 -EINVAL);
	/* a group member on another CPU, or of another task */
	assert_int_equal(ops->open(ops->ctx, &a, TPID, 1, e3, 0), -EINVAL);
	assert_int_equal(ops->open(ops->ctx, &a, -1, 0, e3, 0), -EINVAL);
	/* a fork inherits with inherit_thread 0: its switches reach e0 */
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 600, false), 0);
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 600, true), -EEXIST);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, 600), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), -EBUSY);
	assert_int_equal(sim_pmu_on_cpu(f->sim, 0), 600);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), -ESRCH);
	/* e0's own and e1's (sent there): a switch-in and -out each, no
	 * sample ID (no sample_id_all): the header alone, forward (e0 is
	 * not write_backward) */
	assert_int_equal(((struct perf_event_mmap_page *)ring)->data_head, 4 * 8);
	e4 = ops->open(ops->ctx, &a, TPID, 0, -1, 0);
	assert_int_equal(ops->mmap(ops->ctx, e4, 2 * 4096, PROT_READ, 0, &ring4), 0);
	assert_int_equal(ops->ioctl(ops->ctx, e4, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e3),
			 -EINVAL); /* e3 has no ring either */
	assert_int_equal(ops->ioctl(ops->ctx, e3, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e4), 0);
	/* a mapped event keeps its own ring (no cycle through e1 either) */
	assert_int_equal(ops->ioctl(ops->ctx, e0, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)e1),
			 -EBUSY);
	assert_int_equal(sim_pmu_calls(f->sim, SIM_SET_OUTPUT), 8);
	assert_int_equal(sim_pmu_exit(f->sim, 600), 0);
	/* leave the sim as teardown wants it: nothing open, nothing mapped */
	assert_int_equal(ops->munmap(ops->ctx, ring, 2 * 4096), 0);
	assert_int_equal(ops->munmap(ops->ctx, ring4, 2 * 4096), 0);
	assert_int_equal(sim_pmu_mappings(f->sim), 0);
	/* (the fork's inherited events had slots in between: no fds) */
	for (fd = 0; fd < 5; fd++)
		assert_int_equal(ops->close(ops->ctx, (int[]){ e0, e1, e2, e3, e4 }[fd]), 0);
	assert_int_equal(sim_pmu_open_fds(f->sim), 0);
}

/*
 * The simulated kernel's room in a writable ring, as
 * ring_buffer_has_space() counts it (kernel/events/ring_buffer.c): one byte
 * always stays free, forward and write_backward alike. 256 switch records
 * of 16 bytes would fill a page to the last byte: the 256th is lost, and
 * once the reader consumed the rest a LOST of 1 comes before the next
 * record (a write_backward ring's below it, where the reader starts).
 */
static void test_sim_ring_space(void **state)
{
	struct fixture *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY,
				     .context_switch = 1,
				     .sample_id_all = 1,
				     .sample_type = PERF_SAMPLE_IDENTIFIER };
	const struct perf_event_header *h;
	struct perf_event_mmap_page *pg;
	int back, fd, i;
	__u64 v[2], full, at;
	__u8 *data, rec[48];
	void *ring;

	assert_int_equal(sim_pmu_task(f->sim, TPID, TPID), 0);
	for (back = 0; back < 2; back++) {
		a.write_backward = back;
		fd = ops->open(ops->ctx, &a, TPID, 0, -1, 0);
		assert_true(fd >= SIM_FD_BASE);
		assert_int_equal(
			ops->mmap(ops->ctx, fd, 2 * 4096, PROT_READ | PROT_WRITE, 0, &ring), 0);
		pg = ring;
		data = (__u8 *)ring + 4096;
		for (i = 0; i < 128; i++) {
			assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
			assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
		}
		/* 255 records: 4,080 bytes, 15 free, one lost */
		full = back ? -(__u64)(255 * 16) : 255 * 16;
		assert_int_equal(pg->data_head, full);
		pg->data_tail = full;
		assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
		assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
		/* LOST (24 and the ID) and the switch-in; then the switch-out */
		assert_int_equal(pg->data_head, back ? full - 64 : full + 64);
		/* the LOST: at the old head; backward, below the switch-in it
		 * came with and above the newer switch-out */
		at = back ? full - 48 : full;
		for (i = 0; i < (int)sizeof(rec); i++)
			rec[i] = data[(at + (unsigned int)i) & 4095];
		h = (const void *)rec;
		assert_int_equal(h->type, PERF_RECORD_LOST);
		assert_int_equal(h->size, 32);
		memcpy(v, h + 1, sizeof(v));
		assert_int_equal(v[1], 1);
		h = (const void *)(rec + 32);
		assert_int_equal(h->type, PERF_RECORD_SWITCH);
		assert_int_equal(h->misc, 0);
		assert_int_equal(ops->munmap(ops->ctx, ring, 2 * 4096), 0);
		assert_int_equal(ops->close(ops->ctx, fd), 0);
	}
}

/*
 * Switch records are side-band records: perf_event_switch() hands them to
 * perf_iterate_sb(), which gives them to every context_switch event in
 * state INACTIVE or above, the event enabled itself, whatever its group
 * leader's state; a disabled one gets none.
 */
static void test_sim_switch_sideband(void **state)
{
	struct fixture *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	struct perf_event_attr lead = { .size = sizeof(lead),
					.type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_DUMMY,
					.disabled = 1 },
			       sw = lead;
	struct perf_event_mmap_page *pg;
	int l, m;
	void *ring;

	sw.context_switch = 1;
	sw.disabled = 0;
	assert_int_equal(sim_pmu_task(f->sim, TPID, TPID), 0);
	l = ops->open(ops->ctx, &lead, TPID, 0, -1, 0);
	m = ops->open(ops->ctx, &sw, TPID, 0, l, 0);
	assert_true(l >= SIM_FD_BASE && m >= SIM_FD_BASE);
	assert_int_equal(ops->mmap(ops->ctx, m, 2 * 4096, PROT_READ, 0, &ring), 0);
	pg = ring;
	/* the leader disabled: a switch-in and -out, the header alone */
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(pg->data_head, 2 * 8);
	/* the member disabled: none */
	assert_int_equal(ops->ioctl(ops->ctx, m, PERF_EVENT_IOC_DISABLE, 0), 0);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	assert_int_equal(pg->data_head, 2 * 8);
	assert_int_equal(ops->munmap(ops->ctx, ring, 2 * 4096), 0);
	assert_int_equal(ops->close(ops->ctx, m), 0);
	assert_int_equal(ops->close(ops->ctx, l), 0);
}

/* The records of forward ring @ring (2 pages) up to its data_head. */
static unsigned int ring_recs(void *ring, const struct perf_event_header **recs, unsigned int max)
{
	struct perf_event_mmap_page *pg = ring;
	const __u8 *data = (const __u8 *)ring + pg->data_offset;
	const struct perf_event_header *h;
	size_t off = 0;
	unsigned int n = 0;

	assert_true(pg->data_head <= pg->data_size);
	while (perfrec_next(data, pg->data_head, &off, &h) == 1) {
		assert_true(n < max);
		recs[n++] = h;
	}
	assert_int_equal(off, pg->data_head);
	return n;
}

/*
 * The simulated kernel's side-band records, by the kernel's rules
 * (kernel/events/core.c): each event gets what its attr asks for
 * (perf_event_mmap_match(), perf_event_task_match(), comm), only on its
 * own CPU, only while enabled, a task's events only for that task; the
 * layouts, misc bits and sizes; no sample ID without sample_id_all; a
 * writable ring that is full loses records and says how many in a
 * PERF_RECORD_LOST before the next one that fits.
 */
static void test_sim_sideband_rules(void **state)
{
	enum { MMAP, MMAP2, DATA, COMM, BID, CPU1, OFF, TASK, NEV };
	struct fixture *f = *state;
	const struct perf_sys_ops *ops = sim_pmu_ops(f->sim);
	const struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER,
	};
	static const __u8 bid[20] = { 0xb1, 0xd0, 0x1d };
	struct sim_mapping m = {
		.start = 0x400000,
		.len = 0x1000,
		.prot = PROT_READ | PROT_EXEC,
		.flags = MAP_PRIVATE,
		.ino = 9,
		.path = "/bin/x",
		.build_id = bid,
		.build_id_size = 20,
	};
	const struct perf_event_header *r[8];
	static char longname[1000];
	struct perf_event_mmap_page *pg;
	void *ring[NEV + 1];
	int fd[NEV + 1], i;
	__u64 v[2];
	__u32 w[2];

	assert_int_equal(sim_pmu_task(f->sim, TPID, TPID), 0);
	for (i = 0; i < NEV; i++) {
		struct perf_event_attr b = a;

		b.mmap = i == MMAP || i == TASK || i == CPU1 || i == OFF;
		b.mmap2 = i == MMAP2 || i == BID;
		b.mmap_data = i == DATA;
		b.comm = b.comm_exec = i == COMM;
		b.build_id = i == BID;
		b.disabled = i == OFF;
		b.inherit = i == TASK;
		b.sample_id_all = i != TASK;
		fd[i] = ops->open(ops->ctx, &b, i == TASK ? TPID : -1, i == CPU1, -1, 0);
		assert_true(fd[i] >= SIM_FD_BASE);
		assert_int_equal(ops->mmap(ops->ctx, fd[i], 2 * 4096, PROT_READ, 0, &ring[i]), 0);
	}
	/* only a task on a CPU maps */
	assert_int_equal(sim_pmu_mmap(f->sim, 0, &m), -ESRCH);
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
	/* code: mmap or mmap2, of CPU 0, enabled */
	assert_int_equal(sim_pmu_mmap(f->sim, 0, &m), 4);
	/* data: mmap_data */
	m.prot = PROT_READ | PROT_WRITE;
	assert_int_equal(sim_pmu_mmap(f->sim, 0, &m), 1);
	assert_int_equal(sim_pmu_comm(f->sim, 0, "a-name-too-long-for-comm"), 1);
	assert_int_equal(sim_pmu_exec(f->sim, TPID, "x"), 0);
	/* FORK: the enabled events of CPU 0 with comm, mmap, mmap2 or mmap_data */
	assert_int_equal(sim_pmu_clone(f->sim, TPID, 510, true), 0);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	/* the thread exits on CPU 1: its inherited event is CPU 0's */
	assert_int_equal(sim_pmu_sched_in(f->sim, 1, 510), 0);
	assert_int_equal(sim_pmu_exit(f->sim, 510), 0);

	/* MMAP: pid, tid, addr, len, pgoff, "/bin/x" in 8, ID of 24 */
	assert_int_equal(ring_recs(ring[MMAP], r, 8), 2);
	assert_int_equal(r[0]->type, PERF_RECORD_MMAP);
	assert_int_equal(r[0]->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r[0]->size, 8 + 32 + 8 + 24);
	assert_string_equal((const char *)r[0] + 40, "/bin/x");
	memcpy(v, (const __u8 *)r[0] + 16, 16);
	assert_int_equal(v[0], 0x400000);
	assert_int_equal(v[1], 0x1000);
	assert_int_equal(r[1]->type, PERF_RECORD_FORK);
	assert_int_equal(r[1]->size, 8 + 24 + 24);
	/* MMAP2 of no build ID: maj, min, ino, generation, prot, flags */
	assert_int_equal(ring_recs(ring[MMAP2], r, 8), 2);
	assert_int_equal(r[0]->type, PERF_RECORD_MMAP2);
	assert_int_equal(r[0]->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r[0]->size, 72 + 8 + 24);
	memcpy(v, (const __u8 *)r[0] + 48, 8);
	assert_int_equal(v[0], 9);
	memcpy(w, (const __u8 *)r[0] + 64, 8);
	assert_int_equal(w[0], PROT_READ | PROT_EXEC);
	assert_int_equal(w[1], MAP_PRIVATE);
	assert_int_equal(r[1]->type, PERF_RECORD_FORK);
	/* the data mapping, as an MMAP with MMAP_DATA */
	assert_int_equal(ring_recs(ring[DATA], r, 8), 2);
	assert_int_equal(r[0]->type, PERF_RECORD_MMAP);
	assert_int_equal(r[0]->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA);
	assert_int_equal(r[1]->type, PERF_RECORD_FORK);
	/* COMM: the name cut to 15 and a NUL; the exec's, COMM_EXEC */
	assert_int_equal(ring_recs(ring[COMM], r, 8), 3);
	assert_int_equal(r[0]->type, PERF_RECORD_COMM);
	assert_int_equal(r[0]->misc, 0);
	assert_int_equal(r[0]->size, 8 + 8 + 16 + 24);
	assert_string_equal((const char *)r[0] + 16, "a-name-too-long");
	assert_int_equal(r[1]->type, PERF_RECORD_COMM);
	assert_int_equal(r[1]->misc, PERF_RECORD_MISC_COMM_EXEC);
	assert_int_equal(r[1]->size, 8 + 8 + 8 + 24);
	assert_int_equal(r[2]->type, PERF_RECORD_FORK);
	/* build_id: the ID's size, 3 bytes, the ID in place of maj..ino */
	assert_int_equal(ring_recs(ring[BID], r, 8), 2);
	assert_int_equal(r[0]->type, PERF_RECORD_MMAP2);
	assert_int_equal(r[0]->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(((const __u8 *)r[0])[40], 20);
	assert_memory_equal((const __u8 *)r[0] + 44, bid, 20);
	/* CPU 1's: the EXIT only, pid, tid of the thread and in its ID */
	assert_int_equal(ring_recs(ring[CPU1], r, 8), 1);
	assert_int_equal(r[0]->type, PERF_RECORD_EXIT);
	memcpy(w, r[0] + 1, 8);
	assert_int_equal(w[0], TPID);
	memcpy(w, (const __u8 *)r[0] + 16, 8);
	assert_int_equal(w[0], 510);
	memcpy(w, (const __u8 *)r[0] + 32, 8);
	assert_int_equal(w[1], 510);
	/* disabled: nothing */
	assert_int_equal(ring_recs(ring[OFF], r, 8), 0);
	/* the task's own, no sample ID: the MMAP and the FORK */
	assert_int_equal(ring_recs(ring[TASK], r, 8), 2);
	assert_int_equal(r[0]->type, PERF_RECORD_MMAP);
	assert_int_equal(r[0]->size, 8 + 32 + 8);
	assert_int_equal(r[1]->type, PERF_RECORD_FORK);
	assert_int_equal(r[1]->size, 8 + 24);

	/* a writable ring of one page: 3 fit, 2 are lost, then LOST(2) */
	fd[NEV] = ops->open(
		ops->ctx,
		(struct perf_event_attr *)&(struct perf_event_attr){ .size = sizeof(a),
								     .type = PERF_TYPE_SOFTWARE,
								     .config = PERF_COUNT_SW_DUMMY,
								     .mmap2 = 1 },
		-1, 0, -1, 0);
	assert_true(fd[NEV] >= SIM_FD_BASE);
	assert_int_equal(
		ops->mmap(ops->ctx, fd[NEV], 2 * 4096, PROT_READ | PROT_WRITE, 0, &ring[NEV]), 0);
	memset(longname, 'l', sizeof(longname) - 1);
	longname[0] = '/';
	m.path = longname;
	m.prot = PROT_READ | PROT_EXEC;
	assert_int_equal(sim_pmu_sched_in(f->sim, 0, TPID), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(sim_pmu_mmap(f->sim, 0, &m) > 0, 1);
	pg = ring[NEV];
	assert_int_equal(pg->data_head, 3 * (72 + 1000));
	pg->data_tail = pg->data_head;
	m.path = "/bin/y";
	assert_int_equal(sim_pmu_mmap(f->sim, 0, &m) > 0, 1);
	assert_int_equal(pg->data_head, 3 * (72 + 1000) + 24 + 80);
	r[0] = (const void *)((const __u8 *)ring[NEV] + 4096 + 3 * (72 + 1000));
	assert_int_equal(r[0]->type, PERF_RECORD_LOST);
	memcpy(v, r[0] + 1, 16);
	assert_int_equal(v[1], 2);
	assert_int_equal(sim_pmu_sched_out(f->sim, 0), 0);
	for (i = 0; i <= NEV; i++) {
		assert_int_equal(ops->munmap(ops->ctx, ring[i], 2 * 4096), 0);
		assert_int_equal(ops->close(ops->ctx, fd[i]), 0);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_open_paused),
		T(test_same_state_no_call),
		T(test_failed_ioctl_keeps_state),
		T(test_pause_stops_bytes),
		T(test_read_while_running),
		T(test_restore_fails),
		T(test_wraps),
		T(test_sideband_pt),
		T(test_sideband_wrap),
		T(test_sideband_task_records),
		T(test_sim_sideband_rules),
		T(test_sample_backend),
		T(test_offline_skipped),
		T(test_half_open),
		T(test_backend_choice),
		T(test_limits),
		T(test_cgroup),
		T(test_conv_and_info),
		cmocka_unit_test(test_round_size),
		T(test_invalid),
		T(test_process_open),
		T(test_process_threads_share_ring),
		T(test_process_read_running),
		T(test_process_offcpu_read),
		T(test_process_toggle_rollback),
		T(test_process_add_thread),
		T(test_process_fork_stays_out),
		T(test_process_enable_on_exec),
		T(test_process_add_thread_on_cpu),
		T(test_process_owner_exits),
		T(test_sim_rules),
		T(test_sim_ring_space),
		T(test_sim_switch_sideband),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
