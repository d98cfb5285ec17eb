// SPDX-License-Identifier: GPL-2.0
/* What asked for a snapshot, its cause, and the names: see snapcause.h. */
#include <stddef.h>
#include <string.h>

#include "snapcause.h"

static const char *const names[SNAPCAUSE_NR] = {
	[SNAPCAUSE_STOP] = "stop",	     [SNAPCAUSE_FATAL] = "fatal", [SNAPCAUSE_EXIT] = "exit",
	[SNAPCAUSE_REQUESTED] = "requested", [SNAPCAUSE_HIT] = "trigger", [SNAPCAUSE_END] = "end",
};

const char *snapcause_name(enum snap_cause_kind k)
{
	return (unsigned int)k < SNAPCAUSE_NR ? names[k] : NULL;
}

enum snap_cause_kind snapcause_parse(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < SNAPCAUSE_NR; i++)
		if (names[i] && !strcmp(names[i], name))
			return (enum snap_cause_kind)i;
	return SNAPCAUSE_UNKNOWN;
}
