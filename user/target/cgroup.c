// SPDX-License-Identifier: GPL-2.0
/* --cgroup: see cgroup.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "base/errbuf.h"

int cgroup_of(const char *proc, pid_t pid, char *path, size_t len)
{
	char file[64], line[4096];
	int ret = -ENOENT;
	FILE *f;

	snprintf(file, sizeof(file), "%s/%d/cgroup", proc, pid);
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* cgroup v2 is the line with hierarchy 0 and no controllers */
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, len, "%s", line + 3);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int cgroup_mount(char *mnt, size_t len)
{
	char dev[256], dir[4096], type[64];
	int ret = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mounts", "re");
	if (!f)
		return -errno;
	/* /sys/fs/cgroup on a unified system, .../unified on a hybrid one */
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (strcmp(type, "cgroup2"))
			continue;
		snprintf(mnt, len, "%s", dir);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

int cgroup_open(const char *mnt, const char *proc, pid_t pid, const char *path, char *err,
		size_t errlen)
{
	char rel[4096], full[4200], found[4096];
	struct statfs sfs;
	int fd, ret;

	if (!mnt) {
		if (cgroup_mount(found, sizeof(found)))
			return errbuf_set(
				err, errlen, -ENOENT,
				"--cgroup needs cgroup v2, and no cgroup2 file system is mounted");
		mnt = found;
	}
	if (statfs(mnt, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return errbuf_set(err, errlen, -ENOENT,
				  "--cgroup needs cgroup v2 mounted at %s (it is not)", mnt);
	if (!path) {
		ret = cgroup_of(proc, pid, rel, sizeof(rel));
		if (ret)
			return errbuf_set(err, errlen, ret,
					  "can't find the cgroup v2 of process %d: %s", pid,
					  strerror(-ret));
		snprintf(full, sizeof(full), "%s%s", mnt, rel);
	} else if (path[0] == '/') {
		snprintf(full, sizeof(full), "%s", path);
	} else {
		snprintf(full, sizeof(full), "%s/%s", mnt, path);
	}
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open cgroup %s: %s", full,
				  strerror(-ret));
	}
	if (fstatfs(fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		close(fd);
		return errbuf_set(err, errlen, -EINVAL, "%s is not a cgroup v2 directory", full);
	}
	return fd;
}

/* Writes @pid into the cgroup.procs of directory @dir. */
static int move_to(const char *dir, pid_t pid)
{
	char file[4200], num[24];
	int fd, n, ret = 0;

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	fd = open(file, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(num, sizeof(num), "%d", pid);
	if (write(fd, num, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Whether the ptbpf run @owner that made a leaf still lives: a process of
 * that pid whose name is ptbpf's, or that runs our executable. A zombie,
 * or a pid reused by something else, is a dead run.
 */
static bool owner_lives(pid_t owner)
{
	char file[64], exe[PATH_MAX], self[PATH_MAX], comm[32] = "";
	ssize_t a, b;
	int fd;

	if (owner == getpid())
		return true;
	if (kill(owner, 0) && errno == ESRCH)
		return false;
	snprintf(file, sizeof(file), "/proc/%d/comm", owner);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		a = read(fd, comm, sizeof(comm) - 1);
		comm[a > 0 ? a : 0] = '\0';
		close(fd);
	}
	if (!strcmp(comm, "ptbpf\n"))
		return true;
	snprintf(file, sizeof(file), "/proc/%d/exe", owner);
	a = readlink(file, exe, sizeof(exe));
	if (a < 0)
		return errno != ENOENT; /* can't tell: left alone */
	b = readlink("/proc/self/exe", self, sizeof(self));
	return b < 0 || (a == b && !memcmp(exe, self, (size_t)a));
}

int cgroup_remove_stale(const char *dir)
{
	char path[PATH_MAX], canon[64];
	int child, owner, removed = 0;
	struct dirent *de;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		/* only our own names: "ptbpf-CHILD.OWNER", as written */
		if (sscanf(de->d_name, "ptbpf-%d.%d", &child, &owner) != 2 || child <= 0 ||
		    owner <= 0)
			continue;
		snprintf(canon, sizeof(canon), "ptbpf-%d.%d", child, owner);
		if (strcmp(canon, de->d_name) || owner_lives(owner))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		if (!cgroup_remove_leaf(path))
			removed++;
	}
	closedir(d);
	return removed;
}

int cgroup_make_leaf(const char *proc, pid_t child, char *path, size_t len, char *err,
		     size_t errlen)
{
	char mnt[4096], own[4096];
	int fd, ret;

	if (cgroup_mount(mnt, sizeof(mnt)))
		return errbuf_set(err, errlen, -ENOENT,
				  "--scope cgroup needs cgroup v2, and no cgroup2 file "
				  "system is mounted");
	ret = cgroup_of(proc, getpid(), own, sizeof(own));
	if (ret)
		return errbuf_set(err, errlen, ret, "can't find ptbpf's own cgroup v2: %s",
				  strerror(-ret));
	if ((size_t)snprintf(path, len, "%s%s", mnt, own) >= len)
		return errbuf_set(err, errlen, -ENAMETOOLONG, "cgroup path too long under %s%s",
				  mnt, own);
	/* the leaves runs killed before their end left (their owner is dead) */
	cgroup_remove_stale(path);
	/* the command's pid, and ours: a later run tells a dead run's leaf */
	if ((size_t)snprintf(path, len, "%s%s%sptbpf-%d.%d", mnt, own, strcmp(own, "/") ? "/" : "",
			     child, (int)getpid()) >= len)
		return errbuf_set(err, errlen, -ENAMETOOLONG, "cgroup path too long under %s%s",
				  mnt, own);
	if (mkdir(path, 0755)) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't make cgroup %s: %s", path,
				  strerror(-ret));
	}
	ret = move_to(path, child);
	if (ret) {
		rmdir(path);
		return errbuf_set(err, errlen, ret, "can't move the command into cgroup %s: %s",
				  path, strerror(-ret));
	}
	fd = cgroup_open(mnt, proc, child, path, err, errlen);
	if (fd < 0)
		cgroup_remove_leaf(path);
	return fd;
}

int cgroup_remove_leaf(const char *path)
{
	char parent[4200], line[32], file[4200];
	char *slash;
	FILE *f;

	snprintf(parent, sizeof(parent), "%s", path);
	slash = strrchr(parent, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	f = fopen(file, "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			move_to(parent, (pid_t)strtol(line, NULL, 10));
		fclose(f);
	}
	return rmdir(path) ? -errno : 0;
}
