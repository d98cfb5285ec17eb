// SPDX-License-Identifier: GPL-2.0
/* Snapshot trigger kinds and their names: see snaptrig.h. */
#include <stddef.h>
#include <string.h>

#include "snaptrig.h"

static const char *const names[SNAPTRIG_NR] = {
	[SNAPTRIG_STOP] = "stop",	    [SNAPTRIG_FATAL] = "fatal", [SNAPTRIG_EXIT] = "exit",
	[SNAPTRIG_REQUESTED] = "requested", [SNAPTRIG_HIT] = "trigger", [SNAPTRIG_END] = "end",
};

const char *snaptrig_name(enum snaptrig k)
{
	return (unsigned int)k < SNAPTRIG_NR ? names[k] : NULL;
}

enum snaptrig snaptrig_parse(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < SNAPTRIG_NR; i++)
		if (names[i] && !strcmp(names[i], name))
			return (enum snaptrig)i;
	return SNAPTRIG_UNKNOWN;
}
