// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a CPU is there to trace, from sysfs. See cpupresent.h.
 */
#include <stdio.h>
#include <unistd.h>

#include "cpupresent.h"
#include "base/errbuf.h"
#include "base/smallfile.h"

bool cpupresent_offline(const char *sysfs_root, int cpu)
{
	char path[256], online[8];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/online",
		 sysfs_root ? sysfs_root : "/sys", cpu);
	/* no file (cpu0 has none where it can't go offline): online */
	return smallfile_read(path, online, sizeof(online)) > 0 && online[0] == '0';
}

unsigned int cpupresent_count_online(const char *sysfs_root, const int *cpus, unsigned int n)
{
	unsigned int i, online = 0;

	for (i = 0; i < n; i++)
		online += !cpupresent_offline(sysfs_root, cpus ? cpus[i] : (int)i);
	return online;
}

bool cpupresent_missing(const char *sysfs_root, int cpu, char *err, size_t errlen)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d",
		 sysfs_root ? sysfs_root : "/sys", cpu);
	if (access(path, F_OK) == 0)
		return false;
	errbuf_set(err, errlen, 0,
		   "cpu %d does not exist (--cpus; this machine has %ld configured)", cpu,
		   sysconf(_SC_NPROCESSORS_CONF));
	return true;
}
