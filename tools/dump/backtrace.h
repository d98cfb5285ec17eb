/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backtrace at the fault: a fatal snapshot's crash record (registers
 * and stack of the thread that took the signal) unwound with unwind.h,
 * frame by frame as gdb's `bt` lists them, for the summary (text and
 * JSON).
 */
#ifndef PTBPF_DUMP_BACKTRACE_H
#define PTBPF_DUMP_BACKTRACE_H

#include <stdio.h>

#include "json.h"
#include "snap.h"
#include "symtab.h"
#include "unwind.h"

/*
 * The frames of @s's crash record into @out (@max), inlined calls
 * expanded. Returns how many, 0 when @s has none, or -ENOMEM.
 */
int backtrace_crash(const struct dump_snap *s, const struct dump_symtab *tab,
		    struct dump_frame *out, size_t max);

/*
 * "  backtrace at the fault (tid N, ...):" then "    #0 func+0x10
 * (file.c:42)" a line per frame; nothing when @s has no crash record.
 */
int backtrace_text(FILE *out, const struct dump_snap *s, const struct dump_symtab *tab);

/* "backtrace": [{"pc", "function", "inlined", "file", "line", "module"}] */
int backtrace_json(struct json *j, const struct dump_snap *s, const struct dump_symtab *tab);

#endif /* PTBPF_DUMP_BACKTRACE_H */
