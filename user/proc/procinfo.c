// SPDX-License-Identifier: GPL-2.0
/* /proc/PID reader: see procinfo.h. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapline.h"
#include "procinfo.h"
#include "vdso.h"

/* e_ident and e_type, e_machine: what tells an ELF file's ABI */
#define ELF_ABI_BYTES 20

/* Room for "/task/<tid>/comm" after the process directory. */
#define BASE_MAX (PATH_MAX - 64)

/* Keeps the executable file mappings, in the kernel's address order. */
static int read_maps(FILE *f, struct snap_process *p)
{
	struct snap_map m, *maps;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	while (getline(&line, &cap, f) > 0) {
		ret = mapline_parse(line, &m);
		if (ret < 0)
			break;
		if (ret == 0 || !m.path) {
			ret = 0;
			continue;
		}
		ret = 0;
		maps = reallocarray(p->maps, p->nr_maps + 1, sizeof(*maps));
		if (!maps) {
			free(m.path);
			ret = -ENOMEM;
			break;
		}
		p->maps = maps;
		p->maps[p->nr_maps++] = m;
	}
	free(line);
	return ret;
}

/* Reads the first line of @path into @buf, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		ret = ferror(f) ? -EIO : -ENODATA;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct snap_thread *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int add_thread(struct snap_process *p, const char *base, uint32_t tid)
{
	struct snap_thread *t;
	char path[PATH_MAX];

	t = reallocarray(p->threads, p->nr_threads + 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	p->threads = t;
	t = &p->threads[p->nr_threads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	snprintf(path, sizeof(path), "%s/task/%u/comm", base, tid);
	/* a thread that exits while we look keeps an empty name */
	read_line(path, t->comm, sizeof(t->comm));
	return 0;
}

static int read_threads(struct snap_process *p, const char *base)
{
	char path[PATH_MAX];
	struct dirent *de;
	unsigned long tid;
	char *end;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/task", base);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		errno = 0;
		tid = strtoul(de->d_name, &end, 10);
		if (errno || *end || end == de->d_name || !tid || tid > UINT32_MAX)
			continue;
		ret = add_thread(p, base, (uint32_t)tid);
	}
	closedir(d);
	if (!ret && p->nr_threads)
		qsort(p->threads, p->nr_threads, sizeof(*p->threads), cmp_tid);
	return ret;
}

static int read_exe(struct snap_process *p, const char *base)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/exe", base);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0; /* a zombie or kernel thread has none */
	target[n] = '\0';
	p->exe = strdup(target);
	return p->exe ? 0 : -ENOMEM;
}

/*
 * Whether the task at @base still had its memory after its maps were read
 * (statm's size is 0 once it let go of it; no statm: it is gone). Maps
 * are read a few hundred bytes at a time, and a task that exits between
 * two reads ends them early: a reading of what was left is no reading.
 */
static bool still_mapped(const char *base)
{
	char path[PATH_MAX], line[128];

	snprintf(path, sizeof(path), "%s/statm", base);
	if (read_line(path, line, sizeof(line)))
		return false;
	return strtoull(line, NULL, 10) != 0;
}

static void drop_maps(struct snap_process *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	p->maps = NULL;
	p->nr_maps = 0;
}

/*
 * A leader that called pthread_exit() is a zombie with no mm: its maps and
 * exe are empty while the other threads run on. Their own
 * /proc/PID/task/TID entries still show the process's.
 */
static int read_from_thread(struct snap_process *p, const char *base)
{
	char tbase[PATH_MAX], path[PATH_MAX];
	unsigned int i;
	int ret = 0;
	FILE *f;

	for (i = 0; i < p->nr_threads && !p->nr_maps && !ret; i++) {
		if (p->threads[i].tid == p->pid)
			continue;
		snprintf(tbase, sizeof(tbase), "%s/task/%u", base, p->threads[i].tid);
		snprintf(path, sizeof(path), "%s/maps", tbase);
		f = fopen(path, "re");
		if (!f)
			continue; /* it exited meanwhile */
		ret = read_maps(f, p);
		fclose(f);
		if (!ret && p->nr_maps && !still_mapped(tbase))
			drop_maps(p);
		if (!ret && p->nr_maps && !p->exe)
			ret = read_exe(p, tbase);
	}
	return ret;
}

/*
 * The ABI of the ELF file @path by its header: SNAP_VDSO_NATIVE for a
 * 64-bit x86-64 one, SNAP_VDSO_OTHER for another, SNAP_VDSO_UNKNOWN when
 * it can't be opened or read.
 */
static enum snap_vdso elf_abi(const char *path)
{
	unsigned char hdr[ELF_ABI_BYTES];
	ssize_t n;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return SNAP_VDSO_UNKNOWN;
	n = (ssize_t)fread(hdr, 1, sizeof(hdr), f);
	fclose(f);
	if (n != (ssize_t)sizeof(hdr))
		return SNAP_VDSO_UNKNOWN;
	return vdso_abi_native(hdr, sizeof(hdr)) ? SNAP_VDSO_NATIVE : SNAP_VDSO_OTHER;
}

/* The executable's path as the maps name it: the first file mapped. */
static const char *mapped_exe(const struct snap_process *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_maps; i++)
		if (p->maps[i].path && p->maps[i].path[0] == '/')
			return p->maps[i].path;
	return NULL;
}

/*
 * Whose [vdso] @p maps: ptbpf's own image only when its executable is a
 * 64-bit x86-64 ELF file; a 32-bit or x32 program maps another one. The
 * header is read through /proc (the file may be gone from its path), a
 * live thread's for a zombie leader; a process read as it dies has no exe
 * there any more (about one crash in 25), so then the file by its path
 * (readlink's, else the maps'), and last the [vdso]'s own address: above
 * 4 GiB only a 64-bit task maps anything (a 32-bit or x32 one is limited
 * to 4 GiB). Below it, nothing tells: unknown, never a false "not 64-bit".
 */
static enum snap_vdso vdso_of(const struct snap_process *p, const char *base)
{
	enum snap_vdso abi;
	char path[PATH_MAX];
	unsigned int i, v;

	for (v = 0; v < p->nr_maps; v++)
		if (p->maps[v].path && !strcmp(p->maps[v].path, "[vdso]"))
			break;
	if (v == p->nr_maps)
		return SNAP_VDSO_NONE;
	snprintf(path, sizeof(path), "%s/exe", base);
	abi = elf_abi(path);
	/* a zombie leader has none: its live threads' is the process's */
	for (i = 0; abi == SNAP_VDSO_UNKNOWN && i < p->nr_threads; i++) {
		snprintf(path, sizeof(path), "%s/task/%u/exe", base, p->threads[i].tid);
		abi = elf_abi(path);
	}
	if (abi == SNAP_VDSO_UNKNOWN && p->exe)
		abi = elf_abi(p->exe);
	if (abi == SNAP_VDSO_UNKNOWN && mapped_exe(p))
		abi = elf_abi(mapped_exe(p));
	if (abi == SNAP_VDSO_UNKNOWN && p->maps[v].start > 0xffffffffULL)
		abi = SNAP_VDSO_NATIVE;
	return abi;
}

int procinfo_read(const char *proc_root, uint32_t pid, struct snap_process *p)
{
	char base[BASE_MAX], path[PATH_MAX];
	FILE *f;
	int ret;

	if (!p || !pid)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (snprintf(base, sizeof(base), "%s/%u", proc_root ? proc_root : "/proc", pid) >=
	    (int)sizeof(base))
		return -ENAMETOOLONG;
	snprintf(path, sizeof(path), "%s/maps", base);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = read_maps(f, p);
	fclose(f);
	if (!ret && p->nr_maps && !still_mapped(base))
		ret = -ESRCH;
	snprintf(path, sizeof(path), "%s/comm", base);
	if (!ret)
		read_line(path, p->comm, sizeof(p->comm));
	if (!ret)
		ret = read_exe(p, base);
	if (!ret)
		ret = read_threads(p, base);
	if (!ret && !p->nr_maps)
		ret = read_from_thread(p, base);
	if (!ret)
		p->vdso = vdso_of(p, base);
	if (ret) {
		procinfo_free(p);
		p->pid = pid;
	}
	return ret;
}

void procinfo_free(struct snap_process *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->threads);
	free(p->exe);
	memset(p, 0, sizeof(*p));
}
