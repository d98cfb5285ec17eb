// SPDX-License-Identifier: GPL-2.0
/* An IFUNC's implementation, as the target's loader chose it: see ifunc.h. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "base/errbuf.h"
#include "ifunc.h"

struct mapped {
	dev_t dev;
	ino_t ino;
	char name[4096]; /* as the loader names it, for dlopen(RTLD_NOLOAD) */
	uintptr_t bias; /* dlpi_addr: run-time address - ELF address */
	bool found;
};

static bool same_file(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return path && *path && !stat(path, &st) && st.st_dev == dev && st.st_ino == ino;
}

static int find_mapped(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct mapped *m = ctx;

	(void)size;
	if (!same_file(info->dlpi_name, m->dev, m->ino))
		return 0;
	snprintf(m->name, sizeof(m->name), "%s", info->dlpi_name);
	m->bias = (uintptr_t)info->dlpi_addr;
	m->found = true;
	return 1;
}

/* GLIBC_TUNABLES of process @pid's environment, or NULL; malloc'd. */
static char *target_tunables(const char *proc, pid_t pid, bool *readable)
{
	char path[64], *buf = NULL, *p, *v = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd;

	*readable = false;
	snprintf(path, sizeof(path), "%s/%d/environ", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = len + 65536);

			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0) {
			*readable = n == 0;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	if (!buf)
		return NULL;
	buf[len] = '\0';
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		if (!strncmp(p, "GLIBC_TUNABLES=", 15)) {
			v = strdup(p + 15);
			break;
		}
	free(buf);
	return v;
}

/* The reason the target may choose otherwise than ptbpf, or NULL. */
static const char *other_choice(const char *proc, pid_t pid)
{
	const char *mine = getenv("GLIBC_TUNABLES");
	bool readable;
	char *theirs;
	bool same;

	if (!pid)
		return NULL; /* a command started here: ptbpf's environment */
	theirs = target_tunables(proc, pid, &readable);
	if (!readable) {
		free(theirs);
		return "its environment can't be read (GLIBC_TUNABLES may choose another)";
	}
	same = (!theirs && !mine) || (theirs && mine && !strcmp(theirs, mine));
	free(theirs);
	return same ? NULL : "its GLIBC_TUNABLES differs from ptbpf's and may choose another";
}

/* Returns -ENOENT with the line: the symbol's implementation is not known. */
static int refuse(const char *path, const char *symbol, const char *why, const char *what,
		  char *err, size_t errlen)
{
	char similar[512];
	int n = elfsym_similar(path, symbol, 8, similar, sizeof(similar));

	return errbuf_set(err, errlen, -ENOENT,
			  "%s: %s in %s is an IFUNC: its address is its resolver's, which runs "
			  "once, at load; %s; candidates: %s (name one, or give OBJECT:OFFSET)",
			  what, symbol, path, why,
			  n > 0 ? similar : "none named in its symbol tables");
}

int ifunc_resolve(const char *path, const char *symbol, const char *proc, pid_t pid,
		  struct ifunc_impl *out, const char *what, char *err, size_t errlen)
{
	struct mapped m = { 0 };
	const char *why;
	struct stat st;
	Dl_info info;
	void *h, *impl;
	uint64_t addr;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st))
		return errbuf_set(err, errlen, -ENOENT, "%s: %s: %s", what, path, strerror(errno));
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	dl_iterate_phdr(find_mapped, &m);
	if (!m.found)
		return refuse(path, symbol,
			      "ptbpf does not map that file, so the choice its resolver "
			      "made in the target can't be asked",
			      what, err, errlen);
	why = other_choice(proc, pid);
	if (why)
		return refuse(path, symbol, why, what, err, errlen);
	/* already loaded: RTLD_NOLOAD maps and runs nothing new */
	h = dlopen(m.name, RTLD_LAZY | RTLD_NOLOAD);
	impl = h ? dlsym(h, symbol) : NULL;
	if (h)
		dlclose(h);
	if (!impl || !dladdr(impl, &info) || !same_file(info.dli_fname, m.dev, m.ino))
		return refuse(path, symbol, "its resolver's choice is not in that file", what, err,
			      errlen);
	addr = (uint64_t)((uintptr_t)impl - m.bias);
	if (elfsym_addr_offset(path, addr, &out->offset))
		return refuse(path, symbol, "its resolver's choice is in no loaded segment", what,
			      err, errlen);
	out->addr = addr;
	elfsym_name_at(path, addr, out->name, sizeof(out->name));
	return 0;
}
