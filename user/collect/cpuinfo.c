// SPDX-License-Identifier: GPL-2.0
/* The processor from /proc/cpuinfo: see cpuinfo.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cpuinfo.h"

/* "key\t\t: value" lines; the first processor's block ends at a blank line. */
static int parse_line(const char *line, struct snap_cpu_info *info, unsigned int *seen)
{
	const char *colon = strchr(line, ':');
	const char *val = colon ? colon + 1 : NULL;
	size_t klen;

	if (!colon)
		return 0;
	klen = (size_t)(colon - line);
	while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
		klen--;
	while (*val == ' ')
		val++;
	if (klen == 9 && !strncmp(line, "vendor_id", 9)) {
		snprintf(info->vendor, sizeof(info->vendor), "%.*s", (int)strcspn(val, "\n"), val);
		*seen |= 1;
	} else if (klen == 10 && !strncmp(line, "cpu family", 10)) {
		*seen |= sscanf(val, "%u", &info->family) == 1 ? 2 : 0;
	} else if (klen == 5 && !strncmp(line, "model", 5)) {
		sscanf(val, "%u", &info->model);
	} else if (klen == 8 && !strncmp(line, "stepping", 8)) {
		sscanf(val, "%u", &info->stepping);
	}
	return 0;
}

int cpuinfo_read(const char *path, struct snap_cpu_info *info)
{
	unsigned int seen = 0;
	char line[512];
	FILE *f;

	if (!info)
		return -EINVAL;
	f = fopen(path ? path : "/proc/cpuinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '\n' && seen)
			break; /* the first processor is enough */
		parse_line(line, info, &seen);
	}
	fclose(f);
	return (seen & 3) == 3 ? 0 : -ENOENT;
}
