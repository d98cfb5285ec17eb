// SPDX-License-Identifier: GPL-2.0
/* --trigger-on points: see hitpoint.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "base/errbuf.h"
#include "ifunc.h"
#include "hitpoint.h"

/* Where the dynamic loader looks when neither the cache nor RPATH says. */
static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
	NULL,
};

static int parse_num(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

int hitpoint_parse(const char *spec, struct hitpoint *p, char *err, size_t errlen)
{
	const char *at, *colon;

	memset(p, 0, sizeof(*p));
	p->spec = spec;
	if (!spec || !*spec)
		return errbuf_set(err, errlen, -EINVAL, "empty --trigger-on");
	if (!strncmp(spec, "0x", 2) || !strncmp(spec, "0X", 2)) {
		p->kind = HITPOINT_ADDR;
		if (parse_num(spec, &p->addr))
			goto bad;
		return 0;
	}
	colon = strrchr(spec, ':');
	if (colon) {
		p->kind = HITPOINT_OFFSET;
		if (colon == spec || parse_num(colon + 1, &p->offset) ||
		    (size_t)(colon - spec) >= sizeof(p->object))
			goto bad;
		memcpy(p->object, spec, colon - spec);
		return 0;
	}
	p->kind = HITPOINT_SYMBOL;
	at = strchr(spec, '@');
	if (at == spec || (at && !at[1]))
		goto bad;
	if ((size_t)(at ? at - spec : (long)strlen(spec)) >= sizeof(p->symbol) ||
	    (at && strlen(at + 1) >= sizeof(p->object)))
		goto bad;
	if (at) {
		memcpy(p->symbol, spec, at - spec);
		strcpy(p->object, at + 1);
	} else {
		strcpy(p->symbol, spec);
	}
	return 0;
bad:
	return errbuf_set(err, errlen, -EINVAL,
			  "invalid --trigger-on '%s': use SYMBOL[@OBJECT], 0xADDR or "
			  "OBJECT:OFFSET",
			  spec);
}

int hitpoint_find_exe(const char *name, const char *path_env, char *out, size_t len)
{
	const char *p, *end;
	char dir[PATH_MAX];

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, F_OK) ? -ENOENT : 0;
	}
	for (p = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin"; *p;
	     p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(dir, sizeof(dir), "%.*s", (int)(end - p), p);
		snprintf(out, len, "%s/%s", *dir ? dir : ".", name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* "libc.so.6" is named by "libc.so.6", "libc.so" and "libc". */
static bool names_file(const char *want, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(want);

	base = base ? base + 1 : path;
	return !strcmp(base, want) ||
	       (!strncmp(base, want, n) && (base[n] == '.' || base[n] == '-'));
}

/* A file the running target maps, named @want, into @out. */
static int object_in_maps(const struct hitpoint_where *w, const char *want, char *out, size_t len)
{
	char path[96], line[PATH_MAX + 128];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/maps", w->proc, w->pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (ret && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		if (names_file(want, file)) {
			/* its own mount namespace: through the target's root */
			if (access(file, F_OK))
				snprintf(out, len, "%s/%d/root%s", w->proc, w->pid, file);
			else
				snprintf(out, len, "%s", file);
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

static int object_in_dirs(const struct hitpoint_where *w, const char *want, char *out, size_t len)
{
	const char *p, *end;
	unsigned int i;

	for (p = w->lib_path ? w->lib_path : ""; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(out, len, "%.*s/%s", (int)(end - p), p, want);
		if (end > p && access(out, R_OK) == 0)
			return 0;
	}
	for (i = 0; lib_dirs[i]; i++) {
		snprintf(out, len, "%s/%s", lib_dirs[i], want);
		if (access(out, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/*
 * The running executable's path from its /proc link @link, when this
 * process sees the same file there (not deleted, same mount namespace);
 * else the link itself, which the kernel resolves to the very inode.
 */
static void exe_path(const char *link, char *out, size_t len)
{
	char real[PATH_MAX];
	struct stat a, b;
	ssize_t n = readlink(link, real, sizeof(real) - 1);

	if (n > 0) {
		real[n] = '\0';
		if (!stat(real, &a) && !stat(link, &b) && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			snprintf(out, len, "%s", real);
			return;
		}
	}
	snprintf(out, len, "%s", link);
}

/* The file @p names: the executable, a path, or a library by name. */
static int find_object(struct hitpoint *p, const struct hitpoint_where *w, char *err, size_t errlen)
{
	char exe[PATH_MAX];
	int ret;

	if (w->pid) {
		snprintf(exe, sizeof(exe), "%s/%d/exe", w->proc, w->pid);
	} else if (hitpoint_find_exe(w->exe, getenv("PATH"), exe, sizeof(exe)))
		return errbuf_set(err, errlen, -ENOENT, "--trigger-on %s: can't find %s", p->spec,
				  w->exe);
	if (!p->object[0] || names_file(p->object, w->pid ? "" : exe)) {
		if (w->pid)
			exe_path(exe, p->path, sizeof(p->path));
		else
			snprintf(p->path, sizeof(p->path), "%s", exe);
		return 0;
	}
	if (strchr(p->object, '/')) {
		snprintf(p->path, sizeof(p->path), "%s", p->object);
		ret = access(p->path, R_OK) ? -ENOENT : 0;
	} else if (w->pid) {
		ret = object_in_maps(w, p->object, p->path, sizeof(p->path));
		/* the executable itself, by its name */
		if (ret) {
			char real[PATH_MAX];
			ssize_t n = readlink(exe, real, sizeof(real) - 1);

			if (n > 0) {
				real[n] = '\0';
				if (names_file(p->object, real)) {
					snprintf(p->path, sizeof(p->path), "%s", exe);
					ret = 0;
				}
			}
		}
	} else {
		ret = object_in_dirs(w, p->object, p->path, sizeof(p->path));
	}
	if (!ret)
		return 0;
	if (strchr(p->object, '/'))
		return errbuf_set(err, errlen, -ENOENT, "--trigger-on %s: no file %s", p->spec,
				  p->object);
	if (w->pid)
		return errbuf_set(err, errlen, -ENOENT,
				  "--trigger-on %s: process %d maps no file named %s", p->spec,
				  w->pid, p->object);
	return errbuf_set(err, errlen, -ENOENT,
			  "--trigger-on %s: no library %s in LD_LIBRARY_PATH "
			  "or the system's library directories",
			  p->spec, p->object);
}

/* Returns -ENOENT with the line, and the names like it as a hint. */
static int missing(const struct hitpoint *p, char *err, size_t errlen)
{
	char similar[512];
	int n = elfsym_similar(p->path, p->symbol, 6, similar, sizeof(similar));

	return errbuf_set(err, errlen, -ENOENT,
			  "--trigger-on %s: no function %s in %s (.symtab, .dynsym)%s%s", p->spec,
			  p->symbol, p->path, n > 0 ? "; similar: " : "", n > 0 ? similar : "");
}

static void ambiguous(const struct hitpoint *p, const struct elfsym_match *m, unsigned int nr,
		      char *err, size_t errlen)
{
	size_t used;
	unsigned int i;

	used = (size_t)snprintf(err, errlen,
				"--trigger-on %s: %u functions named %s in %s:", p->spec, nr,
				p->symbol, p->path);
	for (i = 0; i < nr && i < ELFSYM_MAX_MATCHES && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s %s at 0x%" PRIx64 " (%s)",
					 i ? "," : "", p->symbol, m[i].addr,
					 m[i].local ? "local" : "global");
	if (used < errlen)
		snprintf(err + used, errlen - used, "; name one as OBJECT:OFFSET or 0xADDR");
}

/*
 * An IFUNC: the implementation its resolver chose, or refused with the
 * candidates (ifunc.h); the choice is said once the run starts.
 */
static int resolve_ifunc(struct hitpoint *p, const struct hitpoint_where *w, char *err,
			 size_t errlen)
{
	struct ifunc_impl impl;
	char what[HITPOINT_SYM_MAX + 32];
	int ret;

	snprintf(what, sizeof(what), "--trigger-on %s", p->spec);
	ret = ifunc_resolve(p->path, p->symbol, w->proc, w->pid, &impl, what, err, errlen);
	if (ret)
		return ret;
	p->addr = impl.addr;
	p->offset = impl.offset;
	snprintf(p->note, sizeof(p->note),
		 "--trigger-on %s: an IFUNC; probed at the implementation its resolver chooses "
		 "here, %s%s0x%" PRIx64,
		 p->spec, impl.name, impl.name[0] ? " at " : "", impl.addr);
	return 0;
}

static int resolve_symbol(struct hitpoint *p, const struct hitpoint_where *w, char *err,
			  size_t errlen)
{
	struct elfsym_match m[ELFSYM_MAX_MATCHES];
	unsigned int nr = 0;
	int ret;

	ret = elfsym_find(p->path, p->symbol, m, ELFSYM_MAX_MATCHES, &nr);
	if (ret)
		return errbuf_set(
			err, errlen, ret, "--trigger-on %s: can't read %s: %s", p->spec, p->path,
			ret == -ENOEXEC ? "not an ELF file with symbols" : strerror(-ret));
	if (!nr)
		return missing(p, err, errlen);
	if (nr > 1) {
		ambiguous(p, m, nr, err, errlen);
		return -EEXIST;
	}
	if (m[0].ifunc)
		return resolve_ifunc(p, w, err, errlen);
	p->addr = m[0].addr;
	p->offset = m[0].offset;
	return 0;
}

int hitpoint_resolve(struct hitpoint *p, const struct hitpoint_where *w, char *err, size_t errlen)
{
	int ret;

	if (!p || !w || (!w->pid && !w->exe))
		return -EINVAL;
	ret = find_object(p, w, err, errlen);
	if (ret)
		return ret;
	if (p->kind == HITPOINT_SYMBOL)
		return resolve_symbol(p, w, err, errlen);
	if (p->kind == HITPOINT_OFFSET)
		return 0;
	ret = elfsym_addr_offset(p->path, p->addr, &p->offset);
	if (ret)
		return errbuf_set(err, errlen, ret, "--trigger-on %s: %s", p->spec,
				  ret == -ERANGE ? "no loaded segment of the "
						   "executable holds that address" :
						   strerror(-ret));
	return 0;
}
