// SPDX-License-Identifier: GPL-2.0
/* The output directory: see outdir.h. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "outdir.h"
#include "snapfmt.h"

/*
 * @path without its trailing slashes ("/" stays): "link/" would make
 * open(2) follow the symlink whatever O_NOFOLLOW says, since the last
 * component is then the empty one after the slash.
 */
static int strip_slashes(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(out, path, n);
	out[n] = '\0';
	return 0;
}

/*
 * Gives the directory we just made, open as @fd, to @uid: through the fd,
 * never by path, since the parent may be the user's, who could put a
 * symlink to a root file where the new directory was between mkdir(2) and
 * chown(2). Only an empty directory of ours (links: itself and ".") is
 * given; one swapped in is refused.
 */
static int give_new_dir(int fd, int uid, int gid)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || st.st_nlink > 2)
		return -EPERM;
	return fchown(fd, uid, gid) ? -errno : 0;
}

int outdir_open(const char *arg, int uid, int gid, char *err, size_t errlen)
{
	char path[PATH_MAX];
	bool made = false;
	struct stat st;
	int fd, ret;

	if (strip_slashes(arg, path, sizeof(path)))
		return errbuf_set(err, errlen, -ENAMETOOLONG, "output path %s is too long", arg);
	if (mkdir(path, 0700) == 0) {
		made = true;
	} else if (errno == ENOENT) {
		/* the parents are the user's to make, with the owner they want */
		const char *slash = strrchr(path, '/');
		int plen = slash ? (int)(slash - path) : 0;
		char parent[PATH_MAX];

		snprintf(parent, sizeof(parent), "%.*s", plen ? plen : 1,
			 !slash ? "." :
			 plen	? path :
				  "/");
		/* a parent that is there refuses it (/proc, /sys): no mkdir -p helps */
		if (!stat(parent, &st))
			return errbuf_set(err, errlen, -ENOENT,
					  "can't create output directory %s: %s does not take new "
					  "directories (%s)",
					  path, parent, strerror(ENOENT));
		return errbuf_set(
			err, errlen, -ENOENT,
			"can't create output directory %s: %s does not exist (mkdir -p %s "
			"first)",
			path, parent, parent);
	} else if (errno != EEXIST) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't create output directory %s: %s", path,
				  strerror(-ret));
	}
	/* O_NOFOLLOW: a symlink planted at @path is refused, not followed */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP || ret == -ENOTDIR)
			return errbuf_set(
				err, errlen, ret,
				"output path %s is not a directory (or is a symlink): refusing to write there",
				path);
		return errbuf_set(err, errlen, ret, "can't open output directory %s: %s", path,
				  strerror(-ret));
	}
	ret = made && uid != -1 ? give_new_dir(fd, uid, gid) : 0;
	if (ret) {
		close(fd);
		return errbuf_set(err, errlen, ret, "can't give output directory %s to uid %d: %s",
				  path, uid, strerror(-ret));
	}
	if (fstat(fd, &st) || (st.st_uid != geteuid() && (uid == -1 || st.st_uid != (uid_t)uid))) {
		close(fd);
		return errbuf_set(
			err, errlen, -EPERM,
			"output directory %s is owned by uid %u, not by you: refusing to write there",
			path, (unsigned int)st.st_uid);
	}
	if (faccessat(fd, ".", W_OK, AT_EACCESS)) {
		ret = -errno;
		close(fd);
		return errbuf_set(err, errlen, ret, "output directory %s is not writable: %s", path,
				  strerror(-ret));
	}
	/*
	 * One run per directory: two would take the same snapshot numbers
	 * and lose each other's snapshots. The lock is the directory's own
	 * (no file to leave behind) and goes when this fd is closed, however
	 * ptbpf ends.
	 */
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = -errno;
		close(fd);
		if (ret == -EWOULDBLOCK)
			return errbuf_set(
				err, errlen, ret,
				"output directory %s is in use by another ptbpf run: give each run its own -o",
				path);
		return errbuf_set(err, errlen, ret, "can't lock output directory %s: %s", path,
				  strerror(-ret));
	}
	return fd;
}

uint64_t outdir_last_snapshot(int dirfd)
{
	uint64_t v, max = 0;
	struct dirent *de;
	DIR *d;
	int fd;

	fd = dup(dirfd);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		v = snapfmt_parse_name(de->d_name);
		if (v > max)
			max = v;
	}
	closedir(d);
	return max;
}
