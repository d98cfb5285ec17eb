/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whether a CPU is there to trace, as sysfs tells it
 * (<root>/devices/system/cpu/cpuN): a CPU may be configured but offline
 * (its `online` file says 0), or not exist at all (a --cpus typo). Tests
 * pass a fake root; NULL means "/sys". Nothing here fails: a file that
 * can't be read counts as "online", and perf_event_open() then has the
 * last word.
 */
#ifndef PTBPF_CPUPRESENT_H
#define PTBPF_CPUPRESENT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when sysfs says @cpu is offline. cpu0 often has no `online` file:
 * a missing or unreadable file means online.
 */
bool cpupresent_offline(const char *sysfs_root, int cpu);

/*
 * How many of the @n CPUs of @cpus (NULL: 0 .. @n - 1) are not offline.
 */
unsigned int cpupresent_count_online(const char *sysfs_root, const int *cpus, unsigned int n);

/*
 * perf_event_open() says EINVAL for a CPU number past the machine's. When
 * sysfs has no @cpu either, write that cause into @err ("cpu 9 does not
 * exist ...") and return true; else return false and leave @err alone.
 */
bool cpupresent_missing(const char *sysfs_root, int cpu, char *err, size_t errlen);

#endif /* PTBPF_CPUPRESENT_H */
