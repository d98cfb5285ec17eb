// SPDX-License-Identifier: GPL-2.0
/*
 * The sample backend's rate within a cost budget. See samprate.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samprate.h"
#include "base/smallfile.h"

static double cost_pct(uint64_t sample_ns, unsigned int hz)
{
	return sample_ns ? (double)sample_ns * hz / 1e7 : -1;
}

/* The fastest rate the kernel sustains: @pct of a CPU in samples. */
static unsigned int sustained(const struct samprate_in *in)
{
	unsigned int pct = in->max_cpu_pct ? in->max_cpu_pct : SAMPRATE_DEFAULT_CPU_PCT;
	double hz;

	if (!in->sample_ns)
		return in->max_rate ? in->max_rate : ~0U;
	hz = pct / 100.0 * 1e9 / (double)in->sample_ns;
	if (in->max_rate && hz > in->max_rate)
		return in->max_rate;
	return hz < 1 ? 1 : hz > 4e9 ? ~0U : (unsigned int)hz;
}

static int pick_fixed(const struct samprate_in *in, struct samprate *out)
{
	unsigned int top = sustained(in);

	out->hz = in->fixed_hz;
	out->why = "fixed";
	if (in->fixed_hz > top) {
		out->hz = top;
		out->why = "lowered";
		if (in->max_rate && top == in->max_rate &&
		    (!in->sample_ns ||
		     cost_pct(in->sample_ns, top) <
			     (in->max_cpu_pct ? in->max_cpu_pct : SAMPRATE_DEFAULT_CPU_PCT)))
			snprintf(
				out->line, sizeof(out->line),
				"-F %u: above kernel.perf_event_max_sample_rate: sampling at %u Hz",
				in->fixed_hz, top);
		else
			snprintf(out->line, sizeof(out->line),
				 "-F %u: a sample costs %.1f us here, so %u Hz would take %.0f %% "
				 "of a CPU, more than the kernel sustains "
				 "(kernel.perf_cpu_time_max_percent %u %%): sampling at %u Hz",
				 in->fixed_hz, in->sample_ns / 1e3, in->fixed_hz,
				 cost_pct(in->sample_ns, in->fixed_hz),
				 in->max_cpu_pct ? in->max_cpu_pct : SAMPRATE_DEFAULT_CPU_PCT, top);
	}
	out->cost_pct = cost_pct(in->sample_ns, out->hz);
	return 0;
}

int samprate_pick(const struct samprate_in *in, struct samprate *out)
{
	unsigned int top;
	double hz;

	if (!in || !out || (!in->fixed_hz && !(in->budget_pct > 0 && in->budget_pct <= 100)))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (in->fixed_hz)
		return pick_fixed(in, out);
	top = sustained(in);
	out->why = "budget";
	hz = in->sample_ns ? in->budget_pct / 100.0 * 1e9 / (double)in->sample_ns :
			     SAMPRATE_FALLBACK_HZ;
	if (hz > top)
		hz = top;
	if (hz < SAMPRATE_MIN_HZ && !in->sample_ns) {
		/* the kernel's cap alone: no cost to speak of, the cap is why */
		out->why = "lowered";
		snprintf(out->line, sizeof(out->line),
			 "--overhead %g: kernel.perf_event_max_sample_rate is %u Hz, below %u Hz: "
			 "sampling at %u Hz",
			 in->budget_pct, top, SAMPRATE_MIN_HZ, (unsigned int)hz);
	} else if (hz < SAMPRATE_MIN_HZ) {
		hz = SAMPRATE_MIN_HZ < top ? SAMPRATE_MIN_HZ : top;
		out->why = "lowered";
		snprintf(out->line, sizeof(out->line),
			 "--overhead %g: a sample costs %.1f us here, so even %u Hz takes %.2f %% "
			 "of the target's time: sampling at %u Hz",
			 in->budget_pct, in->sample_ns / 1e3, (unsigned int)hz,
			 cost_pct(in->sample_ns, (unsigned int)hz), (unsigned int)hz);
	}
	out->hz = (unsigned int)hz;
	out->cost_pct = cost_pct(in->sample_ns, out->hz);
	return 0;
}

int samprate_recheck(const struct samprate_in *in, unsigned int cur_hz, struct samprate *out)
{
	if (!in || !out || in->fixed_hz || !cur_hz || samprate_pick(in, out))
		return 0;
	/* a quarter either way: the calibration's own spread is not a change */
	return out->hz * 4 > cur_hz * 5 || out->hz * 5 < cur_hz * 4;
}

int samprate_read_sysctl(const char *path, unsigned int *v)
{
	uint64_t n;
	int rc;

	if (!path || !v)
		return -EINVAL;
	rc = smallfile_u64(path, &n);
	if (rc)
		return rc;
	if (n > ~0U)
		return -EINVAL;
	*v = (unsigned int)n;
	return 0;
}
