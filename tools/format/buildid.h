/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GNU build-id of an ELF file (its NT_GNU_BUILD_ID note), the name perf
 * and debuggers find an object's exact copy and debug info by, on this or
 * another machine (perf buildid-list, perf archive, debuginfod).
 */
#ifndef PTBPF_BUILDID_H
#define PTBPF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* perf keeps at most 20 bytes (SHA-1); longer ids are cut to that */
#define BUILDID_MAX 20

/*
 * Reads the build-id of the ELF file @path into @id (BUILDID_MAX bytes)
 * and its length into *@len.
 *
 * Returns 0.
 * Returns -EINVAL if an argument is NULL.
 * Returns -ENOENT if the file has no GNU build-id note.
 * Returns -ENOEXEC if it is not an ELF file.
 * Returns the -errno of opening it.
 */
int buildid_read(const char *path, uint8_t *id, size_t *len);

/*
 * As buildid_read(), of the ELF image of @size bytes at @buf (read only:
 * a copy is parsed, so @buf may be read-only memory).
 * Returns -ENOMEM when the copy can't be made.
 */
int buildid_mem(const void *buf, size_t size, uint8_t *id, size_t *len);

/* Writes @id (@len bytes) as lower-case hex into @buf (2 * @len + 1). */
void buildid_hex(const uint8_t *id, size_t len, char *buf);

#endif /* PTBPF_BUILDID_H */
