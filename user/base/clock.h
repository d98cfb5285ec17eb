/* SPDX-License-Identifier: GPL-2.0 */
/* The clocks the tracer stamps with. */
#ifndef PTBPF_CLOCK_H
#define PTBPF_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns: the clock of bpf_ktime_get_ns(). */
uint64_t clock_now_ns(void);

/*
 * CLOCK_REALTIME and CLOCK_MONOTONIC in ns, read together (the realtime
 * read between two monotonic ones, their midpoint kept), so that any "ts"
 * converts to a time of day: real = ts - @mono + @real.
 */
void clock_pair(uint64_t *real, uint64_t *mono);

#endif /* PTBPF_CLOCK_H */
