/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A buffered file writer for the snapshot writers. Every write goes out
 * through a loop that resumes after short writes and EINTR: write(2) on a
 * regular file returns a short count when the disk fills up mid-buffer, and
 * the next call is the one that reports ENOSPC.
 *
 * Errors are sticky, as in json.h: after the first one every call is a
 * no-op and fileout_flush() reports it, so a writer can emit a whole file
 * and check once.
 */
#ifndef PTBPF_FILEOUT_H
#define PTBPF_FILEOUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#define FILEOUT_BUF_SIZE (64 * 1024)

typedef ssize_t (*fileout_write_fn)(int fd, const void *buf, size_t len);

struct fileout {
	int fd;
	int err; /* 0 or -errno, sticky */
	uint64_t off; /* bytes accepted so far: the file offset once flushed */
	size_t len; /* bytes waiting in buf */
	fileout_write_fn write_fn; /* write(2); tests put a fake here */
	uint8_t buf[FILEOUT_BUF_SIZE];
};

/*
 * Writes all @len bytes of @buf to @fd with @fn (write(2) when NULL),
 * resuming after short writes and EINTR.
 *
 * Returns 0 on success.
 * Returns -EINVAL if @buf is NULL while @len is not 0, or @fd is negative.
 * Returns -EIO if the write function wrote nothing and reported no error.
 * Returns the -errno of the failed write otherwise (-ENOSPC, -EIO, ...).
 */
int fileout_write_all(int fd, const void *buf, size_t len, fileout_write_fn fn);

/*
 * Starts buffered output to @fd at offset 0 of the caller's bookkeeping.
 * A negative @fd makes every later call fail with -EBADF.
 */
void fileout_init(struct fileout *o, int fd);

/* Appends @len bytes of @buf (NULL @buf with @len != 0 sets -EINVAL). */
void fileout_write(struct fileout *o, const void *buf, size_t len);

/* Appends @len zero bytes: padding. */
void fileout_zero(struct fileout *o, size_t len);

/*
 * Writes out what is buffered.
 *
 * Returns 0, or the first error any call on @o met (sticky).
 */
int fileout_flush(struct fileout *o);

/*
 * Flushes, then writes @len bytes of @buf at file offset @off with
 * pwrite(2), resuming after short writes (used to fill in a header once
 * the sizes are known). The buffered position is not moved.
 *
 * Returns 0 or the first error (sticky), -EINVAL for a NULL @buf.
 */
int fileout_pwrite(struct fileout *o, const void *buf, size_t len, uint64_t off);

#endif /* PTBPF_FILEOUT_H */
