/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine as perf.data's header describes it (perf record's features):
 * uname, the CPU's name, memory, ptbpf's own command line, the CPU
 * topology from sysfs, and a reading of a clock next to the time of day.
 * Read on the writer thread when a perf.data is written, never on the
 * control path.
 */
#ifndef PTBPF_HOSTINFO_H
#define PTBPF_HOSTINFO_H

#include <sys/utsname.h>
#include <time.h>

#include "perfhost.h"

#define HOSTINFO_MAX_CPUS 4096

struct hostinfo {
	struct perfhost host; /* points into the members below */
	struct utsname uts;
	char cpudesc[128];
	char *cmdline; /* /proc/self/cmdline, NULs between the args */
	const char **argv;
	struct perfhost_topology topo;
	char **lists; /* every sibling list the topology names */
	struct perfhost_cpu_topo *cpus;
};

/*
 * Fills @h from the live system: /proc and sysfs under @root ("" or NULL:
 * the real ones; tests pass a fake tree), @clock (the data event's
 * clockid, or -1 for none) read next to CLOCK_REALTIME, topology for
 * @nr_cpus CPUs. Whatever can't be read is left out of the file, not made
 * up. Release with hostinfo_free().
 *
 * Returns 0, -EINVAL for a NULL @h, -ENOMEM.
 */
int hostinfo_read(struct hostinfo *h, const char *root, clockid_t clock, unsigned int nr_cpus);

void hostinfo_free(struct hostinfo *h);

#endif /* PTBPF_HOSTINFO_H */
