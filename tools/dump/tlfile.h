/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --timeline's FILE, opened for writing without following a symlink or
 * writing into a file that is not the caller's own: ptbpf-dump may run as
 * root on a path in a directory another user controls.
 */
#ifndef PTBPF_DUMP_TLFILE_H
#define PTBPF_DUMP_TLFILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Opens @path for writing: a new regular file (mode 0666 less the umask),
 * or an existing one that is a regular file owned by us with one link,
 * emptied and written over. A symlink at @path (O_NOFOLLOW) and anything
 * else there (another user's file, a hard link, a FIFO, a device) are
 * refused before a byte of it changes; a FIFO does not block the open.
 * Returns the stream, or NULL with errno set and one line "@path: why" in
 * @err (ELOOP: a symlink; EPERM: not a regular file of ours with one link;
 * else open(2)'s, ftruncate(2)'s or fdopen(3)'s errno).
 */
FILE *tlfile_open(const char *path, char *err, size_t errlen);

#endif /* PTBPF_DUMP_TLFILE_H */
