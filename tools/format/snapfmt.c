// SPDX-License-Identifier: GPL-2.0
/* Snapshot directory names: see snapfmt.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapfmt.h"

uint64_t snapfmt_parse_name(const char *name)
{
	size_t plen = strlen(SNAPFMT_PREFIX);
	uint64_t id;
	char *end, canon[64];

	if (!name || strncmp(name, SNAPFMT_PREFIX, plen))
		return 0;
	if (name[plen] < '0' || name[plen] > '9')
		return 0;
	errno = 0;
	id = strtoull(name + plen, &end, 10);
	if (errno || *end || id == 0 || id > SNAPFMT_ID_MAX)
		return 0;
	/* only the names ptbpf writes, so a removal finds the same name */
	snprintf(canon, sizeof(canon), SNAPFMT_NAME_FMT, id);
	return strcmp(canon, name) ? 0 : id;
}

int snapfmt_compare_names(const char *a, const char *b)
{
	uint64_t x = snapfmt_parse_name(a), y = snapfmt_parse_name(b);

	if (x != y)
		return x < y ? -1 : 1;
	return x ? 0 : strcmp(a ? a : "", b ? b : "");
}

static const char *const backend_names[] = {
	[BACKEND_AUTO] = "auto",
	[BACKEND_INTEL_PT] = "intel-pt",
	[BACKEND_SAMPLE] = "sample",
};

const char *snapfmt_backend_name(enum ptbpf_backend b)
{
	if ((unsigned int)b >= sizeof(backend_names) / sizeof(backend_names[0]))
		return NULL;
	return backend_names[b];
}

int snapfmt_backend_parse(const char *name, bool allow_auto, enum ptbpf_backend *b)
{
	unsigned int i;

	for (i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (i == BACKEND_AUTO && !allow_auto)
			continue;
		if (!strcmp(name, backend_names[i])) {
			*b = (enum ptbpf_backend)i;
			return 0;
		}
	}
	return -EINVAL;
}
