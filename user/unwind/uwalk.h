/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reference walker of a user stack over cfitab.h's tables, in plain C
 * and written as the BPF program on the sampling path will walk: bounded
 * frames (UWALK_MAX_FRAMES), a bounded binary search for the mapping and
 * for the row, the stack read through a callback (a stack copy, another
 * process's memory, or bpf_probe_read_user() later), no allocation. It is
 * what the BPF walk is proven against, and what proves the tables.
 *
 * One frame: its pc is looked up (for every frame but the first, pc - 1:
 * a return address may be the first byte of the next function, or past
 * the end of a noreturn call's FDE); the row's CFA from rsp or rbp; the
 * return address read at CFA - 8; rbp read back where the row saved it;
 * rsp = CFA. Where a pc has no row of its own (no mapping, no table, no
 * CFI there, or a row cfitab.h does not cover: a signal trampoline, a
 * realigned stack) the step is the frame pointer's instead: the return
 * address at rbp + 8, the caller's rbp at rbp, rsp = rbp + 16; the frame
 * it finds is marked (uwalk_result.fallback), since a function without a
 * frame pointer makes it skip or invent a caller. The walk stops at a
 * CFITAB_END row (the outermost frame), at a return address of 0, at a
 * read that fails, at a CFA or rbp that does not move up the stack, or
 * after UWALK_MAX_FRAMES.
 */
#ifndef PTBPF_UWALK_H
#define PTBPF_UWALK_H

#include <stddef.h>
#include <stdint.h>

#include "cfitab.h"

#define UWALK_MAX_FRAMES 64
/* steps of the binary search among the mappings: 2^16 of them at most */
#define UWALK_MAP_STEPS 16

/* One executable mapping of the walked process, with its file's table. */
struct uwalk_map {
	uint64_t start, end; /* [start, end) */
	uint64_t offset; /* the file offset mapped at start */
	const struct cfitab *tab; /* NULL: no CFI (anonymous code, a JIT) */
	uint64_t bias; /* an address less bias is the ELF vaddr: uwalk_map_init() */
};

/*
 * Reads @len bytes of the walked process at @addr into @buf; 0, or a
 * negative value when they cannot be read (the walk stops there).
 */
typedef int (*uwalk_read_fn)(void *ctx, uint64_t addr, size_t len, void *buf);

/* The registers a walk starts from: the sample's, or a debugger's. */
struct uwalk_regs {
	uint64_t pc, sp, bp;
};

/* Why a walk ended. */
enum uwalk_stop {
	UWALK_STOP_END, /* a CFITAB_END row: the outermost frame */
	UWALK_STOP_ZERO, /* a return address of 0 (a frame chain's end) */
	UWALK_STOP_READ, /* a read that failed */
	UWALK_STOP_STACK, /* a CFA or rbp below the frame's rsp: not a stack */
	UWALK_STOP_DEPTH, /* UWALK_MAX_FRAMES frames */
};

struct uwalk_result {
	uint64_t pc[UWALK_MAX_FRAMES]; /* [0] the sampled pc, then return addresses */
	unsigned int n;
	/* bit i: pc[i] was found by a frame pointer step (not by CFI) */
	uint64_t fallback;
	enum uwalk_stop stop;
};

/*
 * Sets @m to the mapping [@start, @end) of file offset @offset, with
 * @tab (NULL: none) and the bias cfitab_bias() gives for it.
 *
 * Returns 0.
 * Returns -EINVAL if @m is NULL or @end <= @start.
 * Returns -ERANGE if @offset is not in an executable segment of @tab's
 * file (@m then has no table: the walk falls back there).
 */
int uwalk_map_init(struct uwalk_map *m, uint64_t start, uint64_t end, uint64_t offset,
		   const struct cfitab *tab);

/*
 * The mapping of @maps (@nr of them, sorted by start, disjoint; nr <=
 * 2^UWALK_MAP_STEPS) that holds @addr, by a binary search of at most
 * UWALK_MAP_STEPS + 1 steps, or NULL.
 */
const struct uwalk_map *uwalk_find_map(const struct uwalk_map *maps, unsigned int nr,
				       uint64_t addr);

/*
 * The rule for the frame whose pc (or return address less one) is
 * @lookup: its mapping's table's, or CFITAB_NO_CFI.
 */
uint32_t uwalk_rule(const struct uwalk_map *maps, unsigned int nr, uint64_t lookup);

/*
 * Walks the stack from @regs over @maps (@nr mappings, sorted by start,
 * disjoint; nr <= 2^UWALK_MAP_STEPS), reading the stack with @read(@ctx,
 * ...), into @out: the pcs from the innermost, which frames a frame
 * pointer step found, and why the walk stopped.
 *
 * Returns 0 (@out holds at least @regs->pc).
 * Returns -EINVAL if @regs, @read or @out is NULL, or @maps is NULL with
 * @nr > 0, or @nr is past the search's bound.
 */
int uwalk(const struct uwalk_map *maps, unsigned int nr, const struct uwalk_regs *regs,
	  uwalk_read_fn read, void *ctx, struct uwalk_result *out);

/* "end", "zero", "read", "stack", "depth": a stop reason's name. */
const char *uwalk_stop_name(enum uwalk_stop stop);

#endif /* PTBPF_UWALK_H */
