// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the JSON reader and the two snapshot JSON files built on it
 * (ptbpf.json, trace.json). Whatever the bytes, no crash, no read past
 * them, no leak; a parsed document must give back what its getters say.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "snap.h"
#include "jsonread.h"

static void no_cpu(struct dump_snap *s, int cpu, const char *ipt,
		   const char *sw, void *ctx)
{
	/* the paths are NUL-terminated strings of the tree */
	(void)strlen(ipt);
	(void)strlen(sw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump_log log = { NULL, 0 };
	struct jread_err e;
	struct dump_snap s;
	struct jval *v;

	if (!jread_parse((const char *)data, size, &v, &e))
		jval_free(v);
	else if (e.off > size)
		__builtin_trap();
	memset(&s, 0, sizeof(s));
	snap_parse_meta(&s, (const char *)data, size, "ptbpf.json", &log);
	snap_parse_trace_json(&s, (const char *)data, size, "trace.json", &log,
			      no_cpu, NULL);
	snap_free(&s);
	return 0;
}
