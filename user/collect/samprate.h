/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sample backend's rate, from what one sample costs here (sampcost.h):
 * with --overhead PCT the rate that keeps the target's sampling cost
 * within PCT of the time it runs; with -F a fixed rate, and what it will
 * cost. Either way within the kernel's bounds: kernel.perf_event_max_
 * sample_rate, and the rate at which sampling would take
 * kernel.perf_cpu_time_max_percent of a CPU (beyond it the kernel
 * throttles, and a target sampled faster than one sample's cost makes no
 * progress at all), so such a rate is lowered, with one line saying so.
 *
 * Pure logic: no system call, so a test reaches every branch.
 */
#ifndef PTBPF_SAMPRATE_H
#define PTBPF_SAMPRATE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#define SAMPRATE_DEFAULT_PCT 2.0 /* --overhead */
#define SAMPRATE_MIN_HZ 10 /* no budget goes below this */
/* the rate when the cost is too small to measure, or unknown */
#define SAMPRATE_FALLBACK_HZ 4000
#define SAMPRATE_DEFAULT_CPU_PCT 25 /* kernel.perf_cpu_time_max_percent */

struct samprate_in {
	uint64_t sample_ns; /* one sample's cost; 0: unknown or too small */
	double budget_pct; /* --overhead; ignored with @fixed_hz */
	unsigned int fixed_hz; /* -F; 0: none */
	unsigned int max_rate; /* kernel.perf_event_max_sample_rate; 0: none */
	unsigned int max_cpu_pct; /* kernel.perf_cpu_time_max_percent; 0: 25 */
};

struct samprate {
	unsigned int hz;
	double cost_pct; /* the target's estimated cost at @hz; -1: unknown */
	/*
	 * "budget" (--overhead chose it), "fixed" (-F as given), "lowered"
	 * (-F, or the budget's floor, lowered to what the kernel sustains)
	 */
	const char *why;
	char line[320]; /* what to say when it was lowered; "" otherwise */
};

/*
 * Pick the rate for @in into @out. Returns 0, or -EINVAL for NULL
 * arguments or a budget that is not a positive percentage.
 */
int samprate_pick(const struct samprate_in *in, struct samprate *out);

/*
 * While running: whether a new cost @sample_ns (a calibration again) moves
 * the rate @in would pick by more than a quarter from @cur_hz; the new
 * pick goes to @out. Never with a fixed -F rate. Returns 1 (change), 0.
 */
int samprate_recheck(const struct samprate_in *in, unsigned int cur_hz, struct samprate *out);

/* The number in sysctl file @path into *@v; -errno, -EINVAL when not one. */
int samprate_read_sysctl(const char *path, unsigned int *v);

#endif /* PTBPF_SAMPRATE_H */
