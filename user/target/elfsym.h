/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions of an ELF file by name, read with libelf from its .symtab and
 * .dynsym, and ELF addresses turned into the file offsets a uprobe takes
 * (the kernel places a uprobe by inode and offset, not by address).
 */
#ifndef PTBPF_ELFSYM_H
#define PTBPF_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_MATCHES 8

/* One function of that name: a distinct address. */
struct elfsym_match {
	uint64_t addr; /* st_value: the ELF virtual address */
	uint64_t size;
	uint64_t offset; /* where its first byte is in the file */
	bool local; /* STB_LOCAL (a static function) */
	bool ifunc; /* STT_GNU_IFUNC: the address is its resolver's */
};

/*
 * The functions named @name in the ELF file @path (STT_FUNC or
 * STT_GNU_IFUNC, defined), from .symtab and .dynsym; a function both
 * tables name is one match. At most @max go into @out; *@nr gets how many
 * there are (it may exceed @max).
 *
 * Returns 0 (*@nr may be 0: none of that name).
 * Returns -EINVAL for NULL arguments.
 * Returns -ENOEXEC when @path is not an ELF file, or has no symbol table.
 * Returns -errno of open().
 */
int elfsym_find(const char *path, const char *name, struct elfsym_match *out, unsigned int max,
		unsigned int *nr);

/*
 * Up to @max names of functions in @path whose name contains @part, into
 * @buf (@len bytes) as "a, b, c": the candidates named when @part itself is
 * not there. Returns how many were written, or -errno as elfsym_find().
 */
int elfsym_similar(const char *path, const char *part, unsigned int max, char *buf, size_t len);

/*
 * The file offset of ELF virtual address @addr of @path, through the
 * PT_LOAD segment that holds it.
 * Returns 0, -EINVAL for NULL arguments, -ERANGE when no loaded segment
 * holds @addr, -ENOEXEC when @path is not ELF, or -errno of open().
 */
int elfsym_addr_offset(const char *path, uint64_t addr, uint64_t *offset);

/*
 * The name of the function of @path that starts at ELF address @addr
 * (.symtab first: an IFUNC's implementations are local there), into @buf;
 * "" when none does. Returns 0 or -errno as elfsym_find().
 */
int elfsym_name_at(const char *path, uint64_t addr, char *buf, size_t len);

#endif /* PTBPF_ELFSYM_H */
