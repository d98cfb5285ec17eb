/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DWARF unwinding of a sample's user registers and stack copy (the crash
 * record, --call-graph dwarf samples) with elfutils' libdwfl, as perf's
 * unwinder does: the snapshot's modules are reported to one Dwfl, whose
 * CFI (.eh_frame, .debug_frame, separate debug files by build-id) walks
 * the frames, reading the stack only from the copy. Frames are then named
 * as gdb names them: inlined calls are frames of their own, with the
 * function's name, file and line from DWARF where there is debug info,
 * else the module's symbol.
 */
#ifndef PTBPF_DUMP_UNWIND_H
#define PTBPF_DUMP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snap.h"
#include "symtab.h"

/* How deep an unwind goes: far deeper than any stack copy holds. */
#define DUMP_UNWIND_MAX 128

struct dump_unwind;

/* One frame as shown: a physical frame, or a call inlined into it. */
struct dump_frame {
	uint64_t pc; /* the instruction: the return address - 1 past #0 */
	bool inlined; /* a call the compiler inlined into the next frame */
	/* a function that ended in a jump to the previous frame's: no frame
	 * of its own on the stack, found from the call sites' DWARF */
	bool tail_call;
	char func[160]; /* "walk_list", or "func+0x1c" from the symbol table */
	char file[96]; /* the source file's base name; "" when unknown */
	int line; /* 0 when unknown */
	char module[64]; /* the module's base name; "" when none */
};

/*
 * Reports @s's modules to a new unwinder; @tab names what DWARF can't.
 * Returns 0 and sets *@u, or -ENOMEM; -ENOENT when no module could be
 * reported (*@u NULL). Release with unwind_close().
 */
int unwind_open(struct dump_unwind **u, const struct dump_snap *s, const struct dump_symtab *tab);

/*
 * A snapshot's unwinding context for its --call-graph dwarf samples
 * (dump_sample.uw): each process's modules as perf.data maps them, copied
 * when the file has been read, and an unwinder per process opened at its
 * first use: a sample unwinds through its own process's modules. Owned by
 * the snapshot, whose snap_free() calls the unwind_ctx_free() it was given
 * with it (dump_snap.uw_free); it does not move with it.
 */
struct dump_uwctx;

struct dump_uwctx *unwind_ctx_new(void);

/* The modules of each process of @s, copied once perf.data has been read; -ENOMEM. */
int unwind_ctx_modules(struct dump_uwctx *c, const struct dump_snap *s);

void unwind_ctx_free(struct dump_uwctx *c);

/*
 * @smp's frames as perfread_sample_stack() gives them (the IP, then each
 * return address - 1), unwound from its registers and stack copy: how
 * many, or 0 when it can't be (no module, no registers).
 */
size_t unwind_ctx_stack(struct dump_uwctx *c, const struct dump_sample *smp, uint64_t *ips,
			size_t max);

void unwind_close(struct dump_unwind *u);

/*
 * The physical frames of @smp (its registers and stack copy): their
 * return addresses, the sampled IP first, into @pcs (@max). Returns how
 * many (at least 1 when @smp has an IP), or -EINVAL when @smp has no
 * registers or stack.
 */
int unwind_sample(struct dump_unwind *u, const struct dump_sample *smp, uint64_t *pcs, size_t max);

/*
 * The frames shown for physical frame @pc (@first: the sampled IP itself,
 * not a return address): the calls inlined there, innermost first, then
 * the function. Returns how many were written to @out (@max), at least 1.
 */
int unwind_describe(struct dump_unwind *u, uint64_t pc, bool first, struct dump_frame *out,
		    size_t max);

/*
 * gdb's tail-call frame: when the call at return address @caller + 1
 * (physical frame @caller, as unwind_sample() gives it) went to another
 * function than the one of @callee, which that function reached with a
 * tail call (DW_AT_call_tail_call), that function as a frame into @out.
 * Returns 1 then, else 0.
 */
int unwind_tail_call(struct dump_unwind *u, uint64_t callee, uint64_t caller,
		     struct dump_frame *out);

/* "#3 level1+0xc (crashpath.c:87)" style text of @f, into @buf. */
const char *unwind_frame_str(const struct dump_frame *f, char *buf, size_t len);

#endif /* PTBPF_DUMP_UNWIND_H */
