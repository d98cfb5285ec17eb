// SPDX-License-Identifier: GPL-2.0
/*
 * cores.c against the real kernel with the sample backend (software
 * cpu-clock and dummy events work on any machine, VMs and AMD included).
 * Needs root (CAP_PERFMON for CPU-wide events): skipped otherwise.
 *
 * A busy loop runs while the cores are resumed and while they are paused;
 * nothing may be recorded, on any core, while paused; what is recorded
 * while running parses and contains this thread's samples and context
 * switches, with CLOCK_MONOTONIC times; every perf fd is closed at the end.
 */
#include <dirent.h>
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
#include <cmocka.h>

#include "collect/cores.h"
#include "collect/cyclic.h"
#include "integ.h"
#include "perfrec.h"

#define BUF (256UL << 10)
#define SB (64UL << 10)

struct tally {
	unsigned int samples, mine, switches, my_switches;
	__u64 min_time, max_time;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* Spin for @ms, sleeping a little now and then to force switches. */
static void busy(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL;
	volatile unsigned long x = 0;

	while (now_ns() < end) {
		for (int i = 0; i < 100000; i++)
			x += i;
		usleep(200);
	}
}

/* IDENTIFIER, IP, TID, TIME, CPU: the layout evattr_sample() asks for. */
struct sample {
	__u64 id, ip;
	__u32 pid, tid;
	__u64 time;
	__u32 cpu, res;
};

static void count_trace(const struct snap_core *sc, struct tally *t)
{
	const struct perf_event_header *h;
	size_t off = 0;
	int rc;

	while ((rc = perfrec_next(sc->trace, sc->trace_len, &off, &h)) == 1) {
		const struct sample *s = (const void *)(h + 1);

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		assert_int_equal(s->id, sc->data_id);
		assert_int_equal(s->cpu, sc->cpu);
		t->samples++;
		t->mine += s->pid == (__u32)getpid() && s->tid == (__u32)gettid();
		if (s->time < t->min_time)
			t->min_time = s->time;
		if (s->time > t->max_time)
			t->max_time = s->time;
	}
	assert_int_equal(rc, 0);
}

static void count_sideband(const struct snap_core *sc, struct tally *t)
{
	const struct perf_event_header *h;
	size_t off = 0;
	int rc;

	while ((rc = perfrec_next(sc->sideband, sc->sideband_len, &off, &h)) == 1) {
		/* next_prev pid/tid, then sample_id: pid, tid, time, ... */
		const __u32 *v = (const void *)(h + 1);

		if (h->type != PERF_RECORD_SWITCH_CPU_WIDE)
			continue;
		t->switches++;
		t->my_switches += v[3] == (__u32)gettid();
	}
	assert_int_equal(rc, 0);
}

static void read_all(struct cores *c, struct tally *t, __u8 *tb, __u8 *sb)
{
	struct snap_core sc;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->min_time = ~0ULL;
	for (i = 0; i < cores_count(c); i++) {
		memset(&sc, 0xa5, sizeof(sc));
		assert_int_equal(cores_read(c, i, false, &sc, tb, BUF, sb, SB), 0);
		assert_false(sc.wrapped);
		count_trace(&sc, t);
		count_sideband(&sc, t);
	}
}

static void test_real_sample(void **state)
{
	static __u8 tb[BUF], sb[SB];
	struct cores_config cfg;
	struct tally t;
	uint64_t t_resume, t_paused, t_resume2;
	unsigned int fds = count_fds(), n;
	char err[256] = "";
	struct cores *c;

	if (geteuid() != 0)
		skip();
	cores_config_init(&cfg);
	cfg.backend = BACKEND_SAMPLE;
	cfg.buffer_size = BUF;
	cfg.sideband_size = SB;
	c = cores_open(&cfg, NULL, err, sizeof(err));
	if (!c)
		fail_msg("cores_open: %s", err);
	n = cores_count(c);
	assert_true(n >= 1);
	assert_int_equal(count_fds(), fds + 2 * n);

	/* Paused from the start: nothing recorded. */
	busy(30);
	read_all(c, &t, tb, sb);
	assert_int_equal(t.samples + t.switches, 0);

	t_resume = now_ns();
	assert_int_equal(cores_resume_all(c, NULL), 0);
	busy(200);
	assert_int_equal(cores_pause_all(c, &t_paused), 0);
	read_all(c, &t, tb, sb);
	print_message("%u cores, running 200 ms: %u samples (%u of this "
		      "thread), %u switches (%u of this thread)\n",
		      n, t.samples, t.mine, t.switches, t.my_switches);
	assert_true(t.mine > 0);
	assert_true(t.my_switches > 0);
	/* CLOCK_MONOTONIC sample times, inside the running window. */
	assert_true(t.min_time >= t_resume);
	assert_true(t.max_time <= t_paused);

	/* Paused: a busy CPU records nothing on any core. */
	busy(100);
	read_all(c, &t, tb, sb);
	assert_int_equal(t.samples + t.switches, 0);

	/* Running again; a read while running pauses and restores. */
	t_resume2 = now_ns();
	assert_int_equal(cores_resume_all(c, NULL), 0);
	busy(100);
	read_all(c, &t, tb, sb);
	assert_true(t.mine > 0);
	assert_true(t.min_time >= t_resume2);
	for (unsigned int i = 0; i < n; i++) {
		enum core_state st;

		assert_int_equal(cores_state(c, i, &st), 0);
		assert_int_equal(st, CORE_RUNNING);
	}
	assert_int_equal(cores_pause_all(c, NULL), 0);
	cores_close(c);
	assert_int_equal(count_fds(), fds);
}

static void test_real_bad_fd_message(void **state)
{
	char err[128];

	/* The edge names the call, the CPU and strerror. */
	assert_int_equal(perf_sys_disable(&perf_sys_real, 1000, 3, true, err, sizeof(err)), -EBADF);
	assert_string_equal(err, "can't disable perf event on cpu 3: Bad file "
				 "descriptor");
	assert_int_equal(perf_sys_enable(&perf_sys_real, -1, 0, false, err, sizeof(err)), -EBADF);
	assert_int_equal(perf_sys_id(&perf_sys_real, 0, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(perf_sys_open(NULL, NULL, 0, -1, -1, 0, NULL, 0), -EINVAL);
	assert_int_equal(perf_sys_map_ring(&perf_sys_real, -1, 0, 4096, 0, true, NULL, NULL, 0),
			 -EINVAL);
	assert_int_equal(perf_sys_map_aux(&perf_sys_real, -1, 0, NULL, 4096, NULL, NULL, 0),
			 -EINVAL);
	assert_int_equal(perf_sys_unmap(&perf_sys_real, NULL, 0, 0, NULL, 0), -EINVAL);
	assert_int_equal(perf_sys_close(&perf_sys_real, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_sample),
		cmocka_unit_test(test_real_bad_fd_message),
	};

	integ_filter();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
