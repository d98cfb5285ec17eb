// SPDX-License-Identifier: GPL-2.0
/* The backtrace at the fault: see backtrace.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "backtrace.h"
#include "fmtnum.h"

int backtrace_crash(const struct dump_snap *s, const struct dump_symtab *tab,
		    struct dump_frame *out, size_t max)
{
	uint64_t pcs[DUMP_UNWIND_MAX];
	struct dump_unwind *u = NULL;
	int nr, i, ret;
	size_t n = 0;

	if (!s->has_crash || !max)
		return 0;
	ret = unwind_open(&u, s, tab);
	if (ret == -ENOMEM)
		return ret;
	/* no module to unwind with: the faulting function alone */
	nr = u ? unwind_sample(u, &s->crash, pcs, DUMP_UNWIND_MAX) : 0;
	if (nr <= 0) {
		pcs[0] = s->crash.ip;
		nr = 1;
	}
	for (i = 0; i < nr && n < max; i++) {
		n += (size_t)unwind_describe(u, pcs[i], i == 0, out + n, max - n);
		if (i + 1 < nr && n < max)
			n += (size_t)unwind_tail_call(u, pcs[i], pcs[i + 1], out + n);
	}
	unwind_close(u);
	return (int)n;
}

/*
 * The crash record's frames, in a malloc'd *@frames the caller frees;
 * returns how many (0 and NULL when @s has no crash record) or -errno.
 */
static int crash_frames(const struct dump_snap *s, const struct dump_symtab *tab,
			struct dump_frame **frames)
{
	struct dump_frame *f;
	int n;

	*frames = NULL;
	if (!s->has_crash)
		return 0;
	f = calloc(DUMP_UNWIND_MAX, sizeof(*f));
	if (!f)
		return -ENOMEM;
	n = backtrace_crash(s, tab, f, DUMP_UNWIND_MAX);
	if (n < 0)
		free(f);
	else
		*frames = f;
	return n;
}

int backtrace_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab)
{
	struct dump_frame *f;
	char line[512];
	int n, i;

	n = crash_frames(s, tab, &f);
	if (n < 0 || !f)
		return n;
	fprintf(out, "  backtrace at the %s (tid %u; registers and %" PRIu64 " bytes of stack",
		s->crash_at[0] ? s->crash_at : "fault", s->crash.tid, s->crash.stack_len);
	if (s->crash_capture_ns)
		fprintf(out, ", captured in %.1f us", s->crash_capture_ns / 1e3);
	fputs("):\n", out);
	for (i = 0; i < n; i++)
		fprintf(out, "    #%d %s\n", i, unwind_frame_str(&f[i], line, sizeof(line)));
	free(f);
	return 0;
}

int backtrace_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab)
{
	struct dump_frame *f;
	char hex[24];
	int n, i;

	n = crash_frames(s, tab, &f);
	if (n < 0 || !f)
		return n;
	json_obj_begin(j, "crash");
	json_u64(j, "tid", s->crash.tid);
	json_u64(j, "stack_bytes", s->crash.stack_len);
	if (s->crash_at[0])
		json_str(j, "at", s->crash_at);
	if (s->crash_capture_ns)
		json_u64(j, "capture_ns", s->crash_capture_ns);
	json_arr_begin(j, "backtrace");
	for (i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "pc", fmt_addr(f[i].pc, hex, sizeof(hex)));
		json_str(j, "function", f[i].func);
		json_bool(j, "inlined", f[i].inlined);
		if (f[i].file[0]) {
			json_str(j, "file", f[i].file);
			json_u64(j, "line", (uint64_t)f[i].line);
		}
		if (f[i].module[0])
			json_str(j, "module", f[i].module);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	free(f);
	return 0;
}
