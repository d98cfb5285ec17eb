/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target's code as ptbpf-dump sees it: each module of a snapshot (an
 * ELF file and the address its file offset 0 was loaded at) read with
 * libelf, for two uses: libipt's image (the executable PT_LOAD segments at
 * their run-time addresses, so the instruction decoder can follow the
 * code), and the function symbols that name an address "func+0xoff".
 *
 * Why the bias is computed from the program headers: a PIE or a shared
 * object links at 0 and runs at its load address, a fixed executable runs
 * where it was linked; load - (p_vaddr - p_offset) of the first PT_LOAD is
 * right for both.
 */
#ifndef PTBPF_DUMP_SYMTAB_H
#define PTBPF_DUMP_SYMTAB_H

#include <stddef.h>
#include <stdint.h>
#include <intel-pt.h>

#include "snap.h"

/* Where separate debug files are, by build-id (perf's and gdb's default) */
#define DUMP_DEBUG_DIR "/usr/lib/debug"

struct dump_sym {
	uint64_t addr, size; /* run-time address */
	char *name; /* control characters escaped (textesc.h): only shown */
	int rank; /* which of two aliases wins: global > weak > local */
};

struct dump_elf {
	char *path;
	char *shown; /* its base name, control characters escaped (textesc.h) */
	uint64_t bias; /* run-time address - link-time address */
	uint64_t lo, hi; /* run-time range of its PT_LOAD segments */
	struct dump_sym *syms; /* sorted by address */
	size_t nr_syms;
};

struct dump_symtab {
	struct dump_elf *mods;
	size_t nr;
	/* with an image: its sections, which the code is read from */
	struct pt_image_section_cache *iscache;
};

/*
 * Reads every module of @s into @tab and, when @image is not NULL, adds
 * its executable segments to @image. A module that is missing or not an
 * ELF file is reported to @log and left out; the others still load.
 *
 * Returns 0 (also with modules left out).
 * Returns -EINVAL if @tab, @s or @log is NULL.
 * Returns -ENOMEM if memory runs out.
 */
int symtab_load(struct dump_symtab *tab, const struct dump_snap *s, struct pt_image *image,
		struct dump_log *log);

/* Releases what @tab owns; NULL is fine. */
void symtab_free(struct dump_symtab *tab);

/*
 * The function containing @ip: its name, with *@off set to @ip's offset in
 * it; NULL when no symbol covers @ip.
 */
const char *symtab_find(const struct dump_symtab *tab, uint64_t ip, uint64_t *off);

/*
 * The functions symtab_format_fast() found last, and the ranges they
 * cover: a loop runs through a few functions over and over.
 */
#define DUMP_SYM_CACHE 4

struct dump_sym_cache {
	struct {
		uint64_t lo, hi; /* [lo, hi): ip - lo is the offset in it */
		const char *name;
		size_t len;
	} e[DUMP_SYM_CACHE];
	unsigned int next; /* the entry replaced next */
	/*
	 * What the last call named: the function's (or module's) name and
	 * the address its offset counts from; NULL for a bare address. Two
	 * addresses with the same are in one function, at offsets that differ
	 * as the addresses do.
	 */
	const char *fn;
	uint64_t fn_lo;
};

/*
 * Writes @ip as symtab_format() does into @buf (at least 300 bytes),
 * without printf, and looks it up only when it is outside the functions
 * @c remembers (zero it before the first call): consecutive instructions
 * are mostly in a few functions. Sets @c->fn and @c->fn_lo. Returns the
 * end of what was written (no NUL).
 */
char *symtab_format_fast(const struct dump_symtab *tab, struct dump_sym_cache *c, uint64_t ip,
			 char *buf);

/* The base name of the module holding @ip, or NULL. */
const char *symtab_module(const struct dump_symtab *tab, uint64_t ip);

/*
 * Writes @ip as "func+0xoff", else "module+0xoff" (the file's base name
 * and the offset from its load address), else "0x..." into @buf of @len
 * bytes. Returns @buf.
 */
const char *symtab_format(const struct dump_symtab *tab, uint64_t ip, char *buf, size_t len);

/*
 * The function holding @ip, without the offset, as a timeline names a
 * slice: the symbol's name (which lives as long as @tab), else the module
 * symtab_format() names, written into @buf of @len bytes, else the bare
 * address there. Returns the name.
 */
const char *symtab_func_name(const struct dump_symtab *tab, uint64_t ip, char *buf, size_t len);

#endif /* PTBPF_DUMP_SYMTAB_H */
