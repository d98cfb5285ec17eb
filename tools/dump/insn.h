/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The instruction flow of one core's Intel PT, with libipt's block
 * decoder over the snapshot's image, each instruction given to the task
 * that ran it: the core's context-switch records say who was on the core
 * at each moment, and the decoder's TSC, converted to perf time with the
 * snapshot's conversion, says which moment it is.
 *
 * Why blocks: libipt's instruction decoder does all its work (the image
 * lookup, the instruction decode, the trace query) once per instruction;
 * the block decoder caches what it learnt per block of code and gives a
 * run of instructions at once, its first and last address. The ones in
 * between are read from the image's section cache and decoded here, as
 * libipt's ptxed does (capstone in place of XED: the length, the class,
 * and a direct jump's or call's target, which the block follows), each
 * decoded once and kept by address; and each block's run of them is kept,
 * so a block met again (code runs the same paths over) costs a lookup.
 *
 * Errors in the middle (code outside the image, a bad packet, an overflow)
 * are reported in place and decoding goes on at the next PSB. Other
 * processes' code is not in the image, so a failure while one of them is
 * on the core is expected and only counted.
 */
#ifndef PTBPF_DUMP_INSN_H
#define PTBPF_DUMP_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <intel-pt.h>

#include "symtab.h"
#include "snap.h"

/* Where an instruction was, and who ran it when. */
struct dump_insn_at {
	const struct dump_core *core;
	int32_t pid, tid; /* -1 when no switch record says */
	uint64_t time; /* perf clock ns */
	bool target; /* pid is the target's, or unknown */
};

/* One instruction: its address, size and class (enum pt_insn_class). */
struct dump_insn {
	uint64_t ip;
	uint8_t size, iclass;
};

/* The instructions of one block, in the order they ran. */
struct dump_insn_run {
	const struct dump_insn *v;
	unsigned int n;
	/*
	 * The same non-zero id each time the same block is given again
	 * (whoever formats a block can keep what it made by it); 0 for a
	 * block given once only (cut short by an error, or not kept).
	 */
	uint64_t id;
};

struct dump_insn_ops {
	/* the instructions of each block decoded, all run by one task */
	void (*run)(void *ctx, const struct dump_insn_at *at, const struct dump_insn_run *r);
	/* a decode error at trace offset @off; decoding resumes at @resync
	 * (the trace's length when there is no PSB left) */
	void (*error)(void *ctx, const struct dump_insn_at *at, uint64_t off, const char *why,
		      uint64_t resync);
};

/*
 * At most this many instructions in a row (checked every few thousand) without
 * the decoder moving on in the trace: more is a loop of direct branches (a
 * wrong image, or a "jmp ."), reported as an error at that offset.
 */
#define DUMP_INSN_MAX_UNTRACED (1 << 16)

struct dump_insn_stats {
	uint64_t target_insns, other_insns;
	uint64_t errors; /* reported: while the target (or nobody known) ran */
	uint64_t other_errors; /* while another process ran: expected */
};

/*
 * Decodes core @c of snapshot @s over @image (with its sections in
 * @tab's section cache: symtab_load() with @image), calling @ops (members
 * may be NULL) with @ctx, and counting into @st (zeroed first; may be
 * NULL).
 *
 * Returns 0, also when there were decode errors.
 * Returns -EINVAL if @s, @c, @image, @tab or @ops is NULL.
 * Returns -ENOMEM if libipt cannot allocate its decoder.
 */
int insn_walk(const struct dump_snap *s, const struct dump_core *c, struct pt_image *image,
	      const struct dump_symtab *tab, const struct dump_insn_ops *ops, void *ctx,
	      struct dump_insn_stats *st);

/*
 * Prints the target's instructions on core @c, one "  ADDRESS" line each
 * (hex, no leading zeros), under a "tid N (comm) at T s" line at each
 * change of thread; errors in place, and reported to @log with file and
 * offset. A line names its function, "  ADDRESS  func+0xoff", when the
 * line above is not an instruction of the same function: an unnamed
 * line's offset is the named line's plus the difference of their
 * addresses. Half the bytes of naming every line (4 GB of text for 64 MiB
 * of trace, the kernel's copy of it cost more than the decoding).
 *
 * Returns 0, or -ENOMEM.
 */
int insn_print(FILE *out, const struct dump_snap *s, const struct dump_core *c,
	       struct pt_image *image, const struct dump_symtab *tab, struct dump_log *log);

#endif /* PTBPF_DUMP_INSN_H */
