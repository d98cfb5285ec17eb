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

/* The most symlinks one path may go through, as the kernel's MAXSYMLINKS. */
#define OUTDIR_MAX_LINKS 40

/* One walk of the output path: whom it is for, and how far it went. */
struct walk {
	const char *arg; /* the path as given, for the error line */
	uid_t user; /* the sudo user, or us */
	int links; /* symlinks followed so far */
	bool refused; /* a symlink not followed, said in @err */
	char *err;
	size_t errlen;
};

/*
 * Whether a symlink owned by @link_uid, in a directory @dir, may be
 * followed. fs.protected_symlinks' rule, which some machines turn off,
 * made stricter since the follower is root: the user's own symlinks are
 * theirs to aim anywhere (they could name the target themselves); root's
 * are followed only from a directory no one else can write to, where no
 * one else could have put one there (a hard link to a root symlink needs
 * only write access to the directory when fs.protected_hardlinks is off);
 * anyone else's is never followed, wherever it is.
 */
static bool link_trusted(uid_t link_uid, const struct stat *dir, uid_t user)
{
	uid_t me = geteuid();

	if (link_uid == user)
		return true;
	if (link_uid != 0 && link_uid != me)
		return false;
	if (dir->st_uid != 0 && dir->st_uid != me && dir->st_uid != user)
		return false;
	return !(dir->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Checks the symlink open as @lfd (its name the first @len bytes of
 * @text) in the directory @dirfd, and reads where it points into @target.
 * Returns 0, or -errno with one line in @w->err (-EPERM: not trusted).
 */
static int read_link(int dirfd, int lfd, const char *text, size_t len, char *target, size_t size,
		     struct walk *w)
{
	struct stat lst, dst;
	ssize_t n;

	if (fstat(lfd, &lst) || fstat(dirfd, &dst))
		return errbuf_set(w->err, w->errlen, -errno, "can't open output directory %s: %s",
				  w->arg, strerror(errno));
	w->refused = !link_trusted(lst.st_uid, &dst, w->user);
	if (w->refused && lst.st_uid != w->user && lst.st_uid != 0 && lst.st_uid != geteuid())
		return errbuf_set(
			w->err, w->errlen, -EPERM,
			"output path %s: symlink %.*s is owned by uid %u: refusing to follow it",
			w->arg, (int)len, text, (unsigned int)lst.st_uid);
	if (w->refused)
		return errbuf_set(
			w->err, w->errlen, -EPERM,
			"output path %s: symlink %.*s is in a directory others can write to: refusing to follow it",
			w->arg, (int)len, text);
	if (++w->links > OUTDIR_MAX_LINKS)
		return -ELOOP;
	/* through the fd: the link read is the one whose owner was checked */
	n = readlinkat(lfd, "", target, size);
	if (n < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	target[n] = '\0';
	return 0;
}

/*
 * Walks @text from the directory @dirfd (an O_PATH fd, taken over: closed,
 * or returned), a component at a time with O_NOFOLLOW, so no symlink is
 * followed by the kernel: each is checked (read_link()) and its target
 * walked the same way. ".." is the parent of the directory reached, as
 * the kernel has it.
 * Returns an O_PATH fd of the directory reached, or -errno (-EPERM: a
 * symlink not followed, with its line in @w->err; -ENOENT, -ENOTDIR,
 * -ELOOP, -ENAMETOOLONG as open(2) would).
 */
static int walk(int dirfd, const char *text, struct walk *w)
{
	char name[NAME_MAX + 1], *target;
	const char *p = text, *q;
	struct stat st;
	int fd, ret;

	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			return dirfd;
		for (q = p; *q && *q != '/'; q++)
			;
		if ((size_t)(q - p) > NAME_MAX) {
			close(dirfd);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, q - p);
		name[q - p] = '\0';
		fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			close(dirfd);
			return ret;
		}
		if (S_ISDIR(st.st_mode)) {
			close(dirfd);
			dirfd = fd;
		} else if (S_ISLNK(st.st_mode)) {
			target = malloc(PATH_MAX);
			ret = target ? read_link(dirfd, fd, text, q - text, target, PATH_MAX, w) :
				       -ENOMEM;
			close(fd);
			if (!ret && target[0] == '/') {
				/* an absolute target starts again from / */
				close(dirfd);
				dirfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				ret = dirfd < 0 ? -errno : 0;
			}
			if (!ret)
				dirfd = ret = walk(dirfd, target, w);
			else if (dirfd >= 0)
				close(dirfd);
			free(target);
			if (ret < 0)
				return ret;
		} else {
			close(fd);
			close(dirfd);
			return -ENOTDIR;
		}
		p = q;
	}
}

/*
 * The directory @path names, open O_PATH, reached by walk() from / or
 * from the current directory (the user's own choice, as a relative path
 * says). Returns the fd, or -errno as walk().
 */
static int walk_path(const char *path, struct walk *w)
{
	int fd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	return fd < 0 ? -errno : walk(fd, path, w);
}

int outdir_open(const char *arg, int uid, int gid, char *err, size_t errlen)
{
	struct walk w = { arg, uid == -1 ? geteuid() : (uid_t)uid, 0, false, err, errlen };
	char path[PATH_MAX], parent[PATH_MAX];
	const char *slash, *last;
	bool made = false;
	struct stat st;
	int pfd, fd, ret, plen;

	if (strip_slashes(arg, path, sizeof(path)))
		return errbuf_set(err, errlen, -ENAMETOOLONG, "output path %s is too long", arg);
	w.arg = path;
	slash = strrchr(path, '/');
	plen = slash ? (int)(slash - path) : 0;
	snprintf(parent, sizeof(parent), "%.*s", plen ? plen : 1, !slash ? "." : plen ? path : "/");
	/* "/" has no last component: it is its own parent's "." */
	last = !slash ? path : slash[1] ? slash + 1 : ".";
	/*
	 * The parent is walked, never given to the kernel whole: a symlink
	 * someone else planted on the way would take a root process where
	 * they like (fs.protected_symlinks may be off).
	 */
	pfd = walk_path(parent, &w);
	if (w.refused)
		return pfd;
	if (pfd == -ENOENT)
		/* the parents are the user's to make, with the owner they want */
		return errbuf_set(
			err, errlen, -ENOENT,
			"can't create output directory %s: %s does not exist (mkdir -p %s "
			"first)",
			path, parent, parent);
	if (pfd < 0)
		return errbuf_set(err, errlen, pfd, "can't create output directory %s: %s", path,
				  strerror(-pfd));
	if (mkdirat(pfd, last, 0700) == 0) {
		made = true;
	} else if (errno == ENOENT) {
		/* a parent that is there refuses it (/proc, /sys): no mkdir -p helps */
		close(pfd);
		return errbuf_set(err, errlen, -ENOENT,
				  "can't create output directory %s: %s does not take new "
				  "directories (%s)",
				  path, parent, strerror(ENOENT));
	} else if (errno != EEXIST) {
		ret = -errno;
		close(pfd);
		return errbuf_set(err, errlen, ret, "can't create output directory %s: %s", path,
				  strerror(-ret));
	}
	/* O_NOFOLLOW: a symlink planted at @path is refused, not followed */
	fd = openat(pfd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	close(pfd);
	if (fd < 0) {
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
