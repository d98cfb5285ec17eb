/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one sample of the sample backend costs on this machine, measured
 * rather than assumed: a thread pinned to one CPU spins a fixed amount of
 * work, alternately unsampled and sampled by an event with the run's own
 * data attr (call chains, stack copies: the sample the target will pay
 * for) at a known period, in pairs side by side; a pair's difference in
 * time, over the samples the kernel took, is the cost of one, and the
 * median over the pairs is the figure (a hypervisor's steal or a cold
 * cache moves one pair, not the median). The time a spin waited for its
 * CPU (schedstat's run_delay) is taken out, so other load on the machine
 * lengthens the calibration, not the cost.
 *
 * A first phase samples at 4 kHz (two fifths of a CPU where a sample
 * costs 100 µs); when that costs the spin under 5 %, a second one samples
 * at the rate that should cost about 10 %, so that a cost of a
 * microsecond still shows.
 *
 * Errors: -errno with one line in the caller's buffer.
 */
#ifndef PTBPF_SAMPCOST_H
#define PTBPF_SAMPCOST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct sampcost {
	uint64_t sample_ns; /* the cost of one sample */
	unsigned int hz; /* the rate of the phase it comes from */
	unsigned int reps; /* pairs of spins in that phase */
	uint64_t plain_ns, sampled_ns; /* the median spin of each kind */
	uint64_t samples; /* samples in a sampled spin (median) */
	uint64_t took_ns; /* the whole calibration, wall clock */
};

#define SAMPCOST_MAX_PAIRS 64
/* a sampled spin takes at least this many samples, else it says nothing */
#define SAMPCOST_MIN_SAMPLES 4
/* no spin longer: the calibration's pairs would take seconds */
#define SAMPCOST_MAX_SPIN_MS 50

/*
 * How long a spin must be for @hz to take SAMPCOST_MIN_SAMPLES samples in
 * it: @spin_ns (0: 5 ms) or longer. A low @hz (the kernel lowers
 * kernel.perf_event_max_sample_rate by itself on a slow machine) needs
 * longer spins.
 *
 * Returns the spin in ns, or 0 when it would pass SAMPCOST_MAX_SPIN_MS
 * (or @hz is 0): at @hz no calibration can measure a sample's cost.
 */
uint64_t sampcost_spin_ns(unsigned int hz, uint64_t spin_ns);

/*
 * The figures of @n pairs of spins (at most SAMPCOST_MAX_PAIRS): the time
 * of each plain and each sampled spin and the samples the sampled one
 * took. Sets @out's plain_ns, sampled_ns, samples (medians), reps (@n)
 * and sample_ns: the median over the pairs of (sampled - plain) / taken,
 * a pair with no sample counting 0, and 0 when that median is negative.
 */
void sampcost_from_pairs(const uint64_t *plain, const uint64_t *sampled, const uint64_t *taken,
			 unsigned int n, struct sampcost *out);

/*
 * Measure on @cpu (-1: where the caller runs) with @attr (a sampling attr:
 * its period, inherit and enable bits are set here), sampling at most at
 * @max_hz, for spins of about @spin_ms each (0: 5 ms).
 *
 * Returns 0; -EINVAL for bad arguments; -ERANGE when @max_hz is too low
 * a rate for any spin to take samples (sampcost_spin_ns()); else the
 * -errno of the thread, the event or the schedstat file, with the line in
 * @err.
 */
int sampcost_measure(const struct perf_event_attr *attr, int cpu, unsigned int max_hz,
		     unsigned int spin_ms, struct sampcost *out, char *err, size_t errlen);

/*
 * The same in the background: sampcost_start() returns at once (NULL with
 * errno set when the thread can't start), sampcost_wait() waits for the
 * result and releases @job, returning what sampcost_measure() would.
 */
struct sampcost_job;
struct sampcost_job *sampcost_start(const struct perf_event_attr *attr, int cpu,
				    unsigned int max_hz, unsigned int spin_ms);
int sampcost_wait(struct sampcost_job *job, struct sampcost *out, char *err, size_t errlen);

#endif /* PTBPF_SAMPCOST_H */
