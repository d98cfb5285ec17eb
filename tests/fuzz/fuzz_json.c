// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the reader's JSON path, json-c behind jsondoc.h, and the two
 * snapshot JSON files read through it (ptbpf.json, trace.json). Whatever
 * the bytes, no crash, no read past them, no leak; an error is placed
 * inside the text, a document walks (every member, every item) with the
 * getters in agreement with the types, and trace.json's cpus come back as
 * data with their paths as strings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapparse.h"
#include "jsondoc.h"

/* Every value under @v, as the reader's parsers may meet it. */
static void walk(const struct json_object *v)
{
	struct jsondoc_member *m;
	const char *s;
	size_t i, n, len;
	uint64_t u;
	int64_t i64;
	double d;
	bool b;

	switch (jsondoc_type(v)) {
	case JSONDOC_OBJECT:
		if (jsondoc_members(v, &m, &n))
			return;
		if (n != jsondoc_len(v))
			__builtin_trap();
		for (i = 0; i < n; i++) {
			if (!jsondoc_has(v, m[i].key))
				__builtin_trap();
			walk(m[i].val);
		}
		free(m);
		return;
	case JSONDOC_ARRAY:
		for (i = 0; i < jsondoc_len(v); i++)
			walk(jsondoc_at(v, i));
		return;
	case JSONDOC_STRING:
		if (jsondoc_str(v, &s, &len) || strlen(s) > len)
			__builtin_trap();
		return;
	case JSONDOC_INT:
		/* one of the two fits, and a u64 and an i64 agree where both do */
		if (jsondoc_u64(v, &u) && jsondoc_i64(v, &i64))
			__builtin_trap();
		if (!jsondoc_u64(v, &u) && !jsondoc_i64(v, &i64) && (uint64_t)i64 != u)
			__builtin_trap();
		/* fallthrough */
	case JSONDOC_DOUBLE:
		if (jsondoc_double(v, &d))
			__builtin_trap();
		return;
	case JSONDOC_BOOL:
		if (jsondoc_bool(v, &b))
			__builtin_trap();
		return;
	case JSONDOC_NULL:
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dump_log log = { NULL, 0 };
	struct snap_trace_cpus cpus;
	struct jsondoc_err e;
	struct json_object *v;
	struct dump_snap s;
	size_t i;

	if (!jsondoc_parse((const char *)data, size, &v, &e)) {
		walk(v);
		jsondoc_free(v);
	} else if (e.off > size) {
		__builtin_trap();
	}
	memset(&s, 0, sizeof(s));
	snap_parse_meta(&s, (const char *)data, size, "ptbpf.json", &log);
	if (!snap_parse_trace_json(&s, (const char *)data, size, "trace.json", &log, &cpus)) {
		for (i = 0; i < cpus.nr; i++)
			if (cpus.cpu[i].cpu < 0 ||
			    strlen(cpus.cpu[i].ipt) + strlen(cpus.cpu[i].sw) > size)
				__builtin_trap();
		snap_trace_cpus_free(&cpus);
	}
	snap_free(&s);
	return 0;
}
