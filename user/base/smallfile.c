// SPDX-License-Identifier: GPL-2.0
/* Small files read whole: see smallfile.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "smallfile.h"

int smallfile_read(const char *path, char *buf, size_t cap)
{
	ssize_t n;
	int fd, rc = 0;

	if (!path || !buf || cap < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, cap - 1);
	if (n < 0)
		rc = -errno;
	close(fd);
	if (rc)
		return rc;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return (int)n;
}

int smallfile_u64(const char *path, uint64_t *v)
{
	char text[32], *end;
	uint64_t n;
	int rc;

	rc = smallfile_read(path, text, sizeof(text));
	if (rc < 0)
		return rc;
	/* strtoull() would take a sign or leading blanks */
	if (text[0] < '0' || text[0] > '9')
		return -EINVAL;
	errno = 0;
	n = strtoull(text, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = n;
	return 0;
}
