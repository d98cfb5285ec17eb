// SPDX-License-Identifier: GPL-2.0
/* Buffered, short-write-safe file output: see fileout.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fileout.h"

int fileout_write_all(int fd, const void *buf, size_t len, fileout_write_fn fn)
{
	const uint8_t *p = buf;
	ssize_t n;

	if (fd < 0 || (!buf && len))
		return -EINVAL;
	if (!fn)
		fn = write;
	while (len) {
		n = fn(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno ? -errno : -EIO;
		}
		/* write(2) returns 0 only for a 0-byte request: do not spin */
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void fileout_init(struct fileout *o, int fd)
{
	o->fd = fd;
	o->err = fd < 0 ? -EBADF : 0;
	o->off = 0;
	o->len = 0;
	o->write_fn = write;
}

static void drain(struct fileout *o)
{
	if (o->err || !o->len)
		return;
	o->err = fileout_write_all(o->fd, o->buf, o->len, o->write_fn);
	o->len = 0;
}

void fileout_write(struct fileout *o, const void *buf, size_t len)
{
	if (o->err || !len)
		return;
	if (!buf) {
		o->err = -EINVAL;
		return;
	}
	o->off += len;
	if (o->len + len <= sizeof(o->buf)) {
		memcpy(o->buf + o->len, buf, len);
		o->len += len;
		return;
	}
	/* too big to buffer (AUX data): write it straight through */
	drain(o);
	if (!o->err)
		o->err = fileout_write_all(o->fd, buf, len, o->write_fn);
}

void fileout_zero(struct fileout *o, size_t len)
{
	static const uint8_t zeros[256];
	size_t n;

	while (len && !o->err) {
		n = len < sizeof(zeros) ? len : sizeof(zeros);
		fileout_write(o, zeros, n);
		len -= n;
	}
}

int fileout_flush(struct fileout *o)
{
	drain(o);
	return o->err;
}

int fileout_pwrite(struct fileout *o, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;
	ssize_t n;

	if (fileout_flush(o))
		return o->err;
	if (!buf && len)
		return o->err = -EINVAL;
	while (len) {
		n = pwrite(o->fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return o->err = (n < 0 && errno) ? -errno : -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}
