// SPDX-License-Identifier: GPL-2.0
/* The second local twin() of tests/progs/trigger (see trigger.c). */
static volatile unsigned long sink;

static __attribute__((noinline)) void twin(void)
{
	sink += 3;
}

void twin_other(void)
{
	twin();
}
