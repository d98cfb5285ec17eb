/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trigger-on points: a spec as the user gave it, parsed, and resolved to
 * the file and file offset a uprobe goes in, before anything is attached.
 *
 *   SYMBOL[@OBJECT]   a function of OBJECT (default: the target's
 *                     executable) by its name in .symtab or .dynsym
 *   0xADDR            an address of the executable, as its ELF file (nm)
 *                     gives it
 *   OBJECT:OFFSET     a file offset in OBJECT
 *
 * OBJECT is a path (it has a '/'), or a name: for --pid, a file the target
 * maps whose name is OBJECT or begins with "OBJECT." (libc matches
 * libc.so.6); for a command not yet started, a file of that name in
 * LD_LIBRARY_PATH or the system's library directories.
 */
#ifndef PTBPF_HITPOINT_H
#define PTBPF_HITPOINT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HITPOINT_SYM_MAX 256

enum hitpoint_kind {
	HITPOINT_SYMBOL,
	HITPOINT_ADDR,
	HITPOINT_OFFSET,
};

struct hitpoint {
	const char *spec; /* as given (the argv string) */
	enum hitpoint_kind kind;
	char symbol[HITPOINT_SYM_MAX]; /* SYMBOL; "" for the others */
	char object[PATH_MAX]; /* OBJECT as given; "" for the executable */
	uint64_t addr; /* 0xADDR, or the symbol's ELF address */
	/* resolved */
	char path[PATH_MAX]; /* the file the uprobe goes in */
	uint64_t offset; /* file offset of the first instruction */
	char note[HITPOINT_SYM_MAX + 256]; /* what resolving chose, to say; or "" */
};

/* Where names are looked up. */
struct hitpoint_where {
	const char *proc; /* "/proc" */
	pid_t pid; /* --pid: read its maps; 0: a command not yet started */
	const char *exe; /* a command: its argv[0] (searched in PATH) */
	const char *lib_path; /* LD_LIBRARY_PATH-like list, or NULL */
};

/*
 * Parses @spec into @p (nothing resolved yet).
 * Returns 0, or -EINVAL with one line in @err.
 */
int hitpoint_parse(const char *spec, struct hitpoint *p, char *err, size_t errlen);

/*
 * Resolves @p: finds its object and the file offset. A symbol that is not
 * there, or is there more than once (two local functions of that name), is
 * an error naming the candidates. An IFUNC is resolved to the
 * implementation the target calls, said in @p->note, or refused with its
 * candidates (ifunc.h).
 * Returns 0, or -errno with one line in @err: -ENOENT (no such object or
 * symbol), -EEXIST (more than one), -ERANGE (an address outside the
 * object's loaded segments), -ENOEXEC (not ELF, no symbols).
 */
int hitpoint_resolve(struct hitpoint *p, const struct hitpoint_where *w, char *err, size_t errlen);

/*
 * The command @name as execvp() would find it in @path_env (PATH; NULL:
 * the default), into @out. Returns 0 or -ENOENT.
 */
int hitpoint_find_exe(const char *name, const char *path_env, char *out, size_t len);

#endif /* PTBPF_HITPOINT_H */
