// SPDX-License-Identifier: GPL-2.0
/*
 * toggle ROUNDS: the cost of pausing and resuming per-core collection, on
 * the sample backend's real events (libptbpf's cores_*). Pinned to CPU 0,
 * it times cores_pause_all + cores_resume_all over every core, and one
 * core's group ioctl on its own: CPU 0 (local: no cross-CPU call) and
 * the last CPU (remote: the kernel runs the disable on that CPU through an
 * IPI). Prints "name value" lines, ns per call.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cores.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static __u64 median(__u64 *v, int n)
{
	qsort(v, n, sizeof(*v), cmp);
	return v[n / 2];
}

/* Median ns of one pause of core @idx alone. */
static __u64 one_core(struct cores *c, unsigned int idx, int rounds, __u64 *v)
{
	for (int i = 0; i < rounds; i++) {
		__u64 t0;

		cores_set_state(c, idx, CORE_RUNNING);
		t0 = now_ns();
		cores_set_state(c, idx, CORE_PAUSED);
		v[i] = now_ns() - t0;
	}
	return median(v, rounds);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	__u64 *pv = calloc(rounds, sizeof(*pv));
	__u64 *rv = calloc(rounds, sizeof(*rv));
	struct cores_config cfg;
	struct cores *c;
	unsigned int n;
	char err[256];
	cpu_set_t set;

	if (rounds <= 0 || !pv || !rv)
		return 2;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	cores_config_init(&cfg);
	cfg.backend = BACKEND_SAMPLE;
	cfg.buffer_size = 64 << 10;
	c = cores_open(&cfg, NULL, err, sizeof(err));
	if (!c) {
		fprintf(stderr, "toggle: %s\n", err);
		return 1;
	}
	n = cores_count(c);
	for (int i = 0; i < rounds; i++) {
		__u64 t0 = now_ns(), t1, t2;

		cores_resume_all(c, &t1);
		t1 = now_ns();
		cores_pause_all(c, &t2);
		t2 = now_ns();
		rv[i] = t1 - t0;
		pv[i] = t2 - t1;
	}
	printf("cores %u\n", n);
	printf("pause_all_ns %llu\n", (unsigned long long)median(pv, rounds));
	printf("resume_all_ns %llu\n", (unsigned long long)median(rv, rounds));
	printf("pause_local_ns %llu\n",
	       (unsigned long long)one_core(c, 0, rounds, pv));
	if (n > 1)
		printf("pause_remote_ns %llu\n",
		       (unsigned long long)one_core(c, n - 1, rounds, pv));
	cores_close(c);
	free(pv);
	free(rv);
	return 0;
}
