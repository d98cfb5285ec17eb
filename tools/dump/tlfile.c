// SPDX-License-Identifier: GPL-2.0
/* --timeline's FILE: see tlfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tlfile.h"

/* Sets errno to @e, says "@path: @why" in @err; returns NULL. */
static FILE *refuse(int e, const char *path, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", path, why);
	errno = e;
	return NULL;
}

FILE *tlfile_open(const char *path, char *err, size_t errlen)
{
	char why[64];
	struct stat st;
	FILE *f;
	int fd;

	/*
	 * No O_TRUNC: the file is emptied only once fstat(2) says it is ours.
	 * O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of waiting.
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
	if (fd < 0 && errno == ELOOP)
		return refuse(ELOOP, path, "is a symlink: refusing to write through it", err,
			      errlen);
	if (fd < 0 && errno == ENXIO)
		return refuse(EPERM, path, "is not a regular file: refusing to write to it", err,
			      errlen);
	if (fd < 0)
		return refuse(errno, path, strerror(errno), err, errlen);
	why[0] = '\0';
	if (fstat(fd, &st))
		snprintf(why, sizeof(why), "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, sizeof(why), "is not a regular file: refusing to write to it");
	else if (st.st_uid != geteuid())
		snprintf(why, sizeof(why), "is owned by uid %u: refusing to write to it",
			 (unsigned int)st.st_uid);
	else if (st.st_nlink != 1)
		/* a hard link: the file is someone else's too, perhaps root's */
		snprintf(why, sizeof(why), "has more than one link: refusing to write to it");
	if (why[0]) {
		close(fd);
		return refuse(EPERM, path, why, err, errlen);
	}
	if (ftruncate(fd, 0) || fcntl(fd, F_SETFL, 0)) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		close(fd);
		return refuse(EIO, path, why, err, errlen);
	}
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		close(fd);
		return refuse(ENOMEM, path, why, err, errlen);
	}
	return f;
}
