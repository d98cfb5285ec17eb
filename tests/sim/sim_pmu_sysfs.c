// SPDX-License-Identifier: GPL-2.0
/*
 * Fake sysfs trees for PMU discovery tests. See sim_pmu.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "sim_pmu.h"

static int mkdir_parents(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return 0;
}

int sim_sysfs_write(const char *root, const char *rel, const char *text)
{
	char path[512];
	ssize_t n;
	int fd, rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	rc = mkdir_parents(path);
	if (rc)
		return rc;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	rc = n == (ssize_t)strlen(text) ? 0 : -EIO;
	close(fd);
	return rc;
}

#define PT "bus/event_source/devices/intel_pt/"

/* What a Skylake client shows (bit positions from the kernel's pt.c). */
static const char *const skylake[][2] = {
	{ PT "format/pt", "config:0\n" },
	{ PT "format/cyc", "config:1\n" },
	{ PT "format/pwr_evt", "config:4\n" },
	{ PT "format/fup_on_ptw", "config:5\n" },
	{ PT "format/mtc", "config:9\n" },
	{ PT "format/tsc", "config:10\n" },
	{ PT "format/noretcomp", "config:11\n" },
	{ PT "format/ptw", "config:12\n" },
	{ PT "format/branch", "config:13\n" },
	{ PT "format/mtc_period", "config:14-17\n" },
	{ PT "format/cyc_thresh", "config:19-22\n" },
	{ PT "format/psb_period", "config:24-27\n" },
	{ PT "caps/cr3_filtering", "1\n" },
	{ PT "caps/psb_cyc", "1\n" },
	{ PT "caps/ip_filtering", "1\n" },
	{ PT "caps/mtc", "1\n" },
	{ PT "caps/ptwrite", "0\n" },
	{ PT "caps/power_event_trace", "0\n" },
	{ PT "caps/topa_output", "1\n" },
	{ PT "caps/topa_multiple_entries", "1\n" },
	{ PT "caps/single_range_output", "1\n" },
	{ PT "caps/output_subsys", "0\n" },
	{ PT "caps/payloads_lip", "0\n" },
	{ PT "caps/num_address_ranges", "2\n" },
	{ PT "caps/mtc_periods", "249\n" },
	{ PT "caps/cyc_thresholds", "3fff\n" },
	{ PT "caps/psb_periods", "3f\n" },
	{ PT "max_nonturbo_ratio", "24\n" },
	{ PT "tsc_art_ratio", "188:2\n" },
};

int sim_sysfs_intel_pt(const char *root, __u32 type)
{
	char text[16];
	unsigned int i;
	int rc;

	snprintf(text, sizeof(text), "%u\n", type);
	rc = sim_sysfs_write(root, PT "type", text);
	for (i = 0; !rc && i < sizeof(skylake) / sizeof(skylake[0]); i++)
		rc = sim_sysfs_write(root, skylake[i][0], skylake[i][1]);
	return rc;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path) ? -errno : 0;
}

int sim_sysfs_remove(const char *root)
{
	if (!root || strlen(root) < 6 || strncmp(root, "/tmp/", 5))
		return -EINVAL; /* only ever temp dirs */
	return nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
