/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's build-id cache ($HOME/.debug), filled as perf
 * record fills it at the end of a recording: perf archive packs a
 * perf.data's objects from there, and perf report finds the exact object
 * a build-id names there after the file on disk was replaced. Layout:
 *
 *   DIR/<absolute path>/<build-id>/elf        the object (hard link or copy)
 *   DIR/.build-id/<2 hex>/<38 hex>  ->  ../../<absolute path>/<build-id>
 */
#ifndef PTBPF_BUILDCACHE_H
#define PTBPF_BUILDCACHE_H

#include <stddef.h>

#include "base/snapshot.h"

/*
 * The cache perf uses, $HOME/.debug (perf sets PERF_BUILDID_DIR from it for
 * its scripts, perf archive among them), into @buf of @len bytes. Returns
 * @buf, or NULL when HOME is unset or relative (or too long): then no
 * cache is filled.
 */
const char *buildcache_dir(char *buf, size_t len);

/*
 * Adds the ELF file @path, whose build-id is @hexid, to the cache @dir
 * (created when missing). An object already there is left alone.
 *
 * Returns 0.
 * Returns -EINVAL if an argument is NULL, @path is not absolute or @hexid
 * is shorter than 3 characters.
 * Returns the -errno of the failed mkdir, link, copy or symlink.
 */
int buildcache_add(const char *dir, const char *path, const char *hexid);

/*
 * Adds every file @p has code mapped from and that has a build-id.
 * Returns 0, or the first error of buildcache_add() (the rest are tried).
 */
int buildcache_add_process(const char *dir, const struct snap_process *p);

struct vdso_image;

/*
 * Adds the vDSO image @v (with its build-id) to the cache @dir as perf
 * record adds its own: DIR/[vdso]/<build-id>/vdso, and the .build-id link
 * to it. An image already there is left alone.
 *
 * Returns 0.
 * Returns -EINVAL if an argument is NULL or @v has no build-id.
 * Returns the -errno of the failed mkdir, write or symlink.
 */
int buildcache_add_vdso(const char *dir, const struct vdso_image *v);

#endif /* PTBPF_BUILDCACHE_H */
