/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine as perf.data's header features describe it (perf record's
 * HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, TOTAL_MEM, CMDLINE,
 * CPU_TOPOLOGY, CLOCK_DATA, and how BUILD_ID reads a file's build-id):
 * the facts only, no code. Apart from both sides: hostinfo.h reads them
 * from the live system, perfdata.h writes them into a file, and a test
 * makes them up; so neither side needs the other's header for the type.
 */
#ifndef PTBPF_PERFHOST_H
#define PTBPF_PERFHOST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

/* One CPU's place in the machine (CPU_TOPOLOGY); -1 when unknown. */
struct perfhost_cpu_topo {
	int32_t core_id, socket_id, die_id;
};

/*
 * CPU_TOPOLOGY as perf reads it: the distinct sibling lists ("0-3") of
 * cores, threads and dies, then every CPU's ids up to NRCPUS' "available".
 */
struct perfhost_topology {
	unsigned int nr_cores, nr_threads, nr_dies;
	const char *const *core_siblings, *const *thread_siblings, *const *die_siblings;
	unsigned int nr_cpus;
	const struct perfhost_cpu_topo *cpus;
};

/* Where perf's header features come from; NULL/0 members are left out. */
struct perfhost {
	const char *hostname, *osrelease, *version, *arch;
	const char *cpudesc; /* /proc/cpuinfo "model name" */
	uint64_t total_mem_kb;
	unsigned int argc; /* CMDLINE: ptbpf's own command line */
	const char *const *argv;
	const struct perfhost_topology *topo;
	/* CLOCKID/CLOCK_DATA (when the data event has use_clockid): the
	 * clock's resolution, and one reading of it next to CLOCK_REALTIME */
	uint64_t clock_res_ns, clock_tod_ns, clock_ns;
	/* BUILD_ID: reads the GNU build-id of @path; NULL: buildid_read() */
	int (*build_id)(const char *path, uint8_t *id, size_t *len);
};

#endif /* PTBPF_PERFHOST_H */
