// SPDX-License-Identifier: GPL-2.0
/* perf's build-id cache: see buildcache.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildcache.h"
#include "fileout.h"
#include "proc/vdso.h"
#include "buildid.h"

/* copy_file() reads and writes this much at a time */
#define COPY_CHUNK 65536

const char *buildcache_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME");
	int n;

	if (!buf || !len || !home || *home != '/')
		return NULL;
	n = snprintf(buf, len, "%s/.debug", home);
	return n > 0 && (size_t)n < len ? buf : NULL;
}

/* mkdir -p of @path (modified in place and restored). */
static int mkdir_p(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Opens @to's temporary name (its path into @tmp), for tmp_publish(). */
static int tmp_open(const char *to, char *tmp, size_t len)
{
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.tmp", to) >= len)
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	return fd < 0 ? -errno : fd;
}

/*
 * Closes @fd and, when @rc is 0, renames @tmp to @to: renamed only when
 * whole, a reader never sees half an object. Returns @rc or the -errno.
 */
static int tmp_publish(int fd, const char *tmp, const char *to, int rc)
{
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, to))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	char tmp[PATH_MAX + 8], *buf;
	int in, out, rc = 0;
	ssize_t n;

	/* on the heap: the writer thread's stack is the stack limit's size */
	buf = malloc(COPY_CHUNK);
	if (!buf)
		return -ENOMEM;
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		rc = -errno;
		free(buf);
		return rc;
	}
	out = tmp_open(to, tmp, sizeof(tmp));
	if (out < 0) {
		close(in);
		free(buf);
		return out;
	}
	while (!rc && (n = read(in, buf, COPY_CHUNK)) != 0)
		rc = n < 0 ? -errno : fileout_write_all(out, buf, (size_t)n, NULL);
	close(in);
	free(buf);
	return tmp_publish(out, tmp, to, rc);
}

/* Writes @len bytes at @buf as @to, whole or not at all (as copy_file). */
static int write_file(const void *buf, size_t len, const char *to)
{
	char tmp[PATH_MAX + 8];
	int out = tmp_open(to, tmp, sizeof(tmp));

	if (out < 0)
		return out;
	return tmp_publish(out, tmp, to, fileout_write_all(out, buf, len, NULL));
}

/*
 * Makes DIR/@name/@hexid/@base (from @path's file, or @buf's @len bytes
 * when @path is NULL) and its .build-id link, as perf lays them out.
 */
static int add_object(const char *dir, const char *name, const char *hexid, const char *base,
		      const char *path, const void *buf, size_t len)
{
	char obj[PATH_MAX], file[PATH_MAX + 8], link_dir[PATH_MAX], target[PATH_MAX],
		lname[PATH_MAX];
	int rc;

	if ((size_t)snprintf(obj, sizeof(obj), "%s%s/%s", dir, name, hexid) >= sizeof(obj) ||
	    (size_t)snprintf(link_dir, sizeof(link_dir), "%s/.build-id/%.2s", dir, hexid) >=
		    sizeof(link_dir) ||
	    (size_t)snprintf(target, sizeof(target), "../..%s/%s", name, hexid) >= sizeof(target) ||
	    (size_t)snprintf(lname, sizeof(lname), "%s/%s", link_dir, hexid + 2) >= sizeof(lname))
		return -ENAMETOOLONG;
	snprintf(file, sizeof(file), "%s/%s", obj, base);
	if (access(file, F_OK) == 0)
		return 0;
	rc = mkdir_p(obj);
	if (!rc && !path)
		rc = write_file(buf, len, file);
	else if (!rc && link(path, file)) /* EXDEV and friends: a copy */
		rc = errno == EEXIST ? 0 : copy_file(path, file);
	if (!rc)
		rc = mkdir_p(link_dir);
	if (!rc && symlink(target, lname) && errno != EEXIST)
		rc = -errno;
	return rc;
}

int buildcache_add_vdso(const char *dir, const struct vdso_image *v)
{
	char hex[2 * BUILDID_MAX + 1];

	if (!dir || !v || !v->data || v->build_id_len < 2)
		return -EINVAL;
	buildid_hex(v->build_id, v->build_id_len, hex);
	/* perf's own names: the directory "[vdso]", the file "vdso" */
	return add_object(dir, "/[vdso]", hex, "vdso", NULL, v->data, v->len);
}

int buildcache_add(const char *dir, const char *path, const char *hexid)
{
	if (!dir || !path || !hexid || path[0] != '/' || strlen(hexid) < 3)
		return -EINVAL;
	return add_object(dir, path, hexid, "elf", path, NULL, 0);
}

int buildcache_add_process(const char *dir, const struct snap_process *p)
{
	char hex[2 * BUILDID_MAX + 1];
	uint8_t id[BUILDID_MAX];
	unsigned int i, k;
	int rc, first = 0;
	size_t len;

	if (!dir || !p)
		return -EINVAL;
	for (i = 0; i < p->nr_maps; i++) {
		const struct snap_map *m = &p->maps[i];

		if (!(m->prot & PROT_EXEC) || !m->path || m->path[0] != '/')
			continue;
		for (k = 0; k < i; k++)
			if ((p->maps[k].prot & PROT_EXEC) && p->maps[k].path &&
			    !strcmp(p->maps[k].path, m->path))
				break;
		if (k < i || buildid_read(m->path, id, &len))
			continue;
		buildid_hex(id, len, hex);
		rc = buildcache_add(dir, m->path, hex);
		if (rc && !first)
			first = rc;
	}
	return first;
}
