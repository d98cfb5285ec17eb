/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trigger-on at an IFUNC (STT_GNU_IFUNC, as libc's strlen, memcpy...):
 * the symbol's address is its resolver's, which runs once, when the
 * loader binds the name, and returns the implementation every call then
 * goes to (__strlen_avx2, __strlen_evex, __strlen_sse2... by the CPU's
 * features). A probe at the resolver sees one or two hits, ever.
 *
 * The implementation is found where the same question can be asked
 * without running anything new: when ptbpf itself has that very file
 * mapped (its own libc: the same device and inode), dlsym() in ptbpf
 * returns its resolver's choice on this machine, which is the target's
 * loader's choice too, unless the target's environment sets another
 * GLIBC_TUNABLES (then it is refused). Any other IFUNC is refused with its
 * candidates: ptbpf, as root, never loads a library to run its resolver.
 */
#ifndef PTBPF_IFUNC_H
#define PTBPF_IFUNC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ifunc_impl {
	uint64_t addr; /* its ELF address in the file */
	uint64_t offset; /* its file offset: where the uprobe goes */
	char name[128]; /* from .symtab, or "" (a stripped file) */
};

/*
 * The implementation of IFUNC @symbol of @path that a process with the
 * environment of @pid (0: ptbpf's own, as a command it starts gets)
 * calls, into @out.
 * Returns 0, or -ENOENT with one line in @err (after @what, e.g.
 * "--trigger-on strlen@libc.so.6") that names the candidates.
 */
int ifunc_resolve(const char *path, const char *symbol, const char *proc, pid_t pid,
		  struct ifunc_impl *out, const char *what, char *err, size_t errlen);

#endif /* PTBPF_IFUNC_H */
