// SPDX-License-Identifier: GPL-2.0
/* The target's descendants from /proc: see descend.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "descend.h"

struct pair {
	pid_t pid, ppid;
};

/*
 * The parent in @proc/PID/stat: the field after the state, which follows
 * the last ')' (a comm may hold any byte). Returns it, or -1.
 */
static pid_t parent_of(const char *proc, const char *pid)
{
	char path[96], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	/* a zombie is no process to follow: its exit was before us */
	if (p[2] == 'Z' || p[2] == 'X')
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

/* Every process of @proc with its parent. */
static int scan(const char *proc, struct pair **out)
{
	struct pair *v = NULL, *grown;
	unsigned int n = 0, cap = 0;
	struct dirent *de;
	pid_t ppid;
	DIR *d;

	d = opendir(proc);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		ppid = parent_of(proc, de->d_name);
		if (ppid <= 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = grown;
		}
		v[n].pid = (pid_t)strtol(de->d_name, NULL, 10);
		v[n++].ppid = ppid;
	}
	closedir(d);
	*out = v;
	return (int)n;
}

int descend_list(const char *proc, pid_t root, pid_t **pids)
{
	struct pair *all = NULL;
	pid_t *v;
	int n, i, k, found = 0;

	*pids = NULL;
	n = scan(proc, &all);
	if (n < 0)
		return n;
	v = malloc((size_t)(n ? n : 1) * sizeof(*v));
	if (!v) {
		free(all);
		return -ENOMEM;
	}
	/*
	 * Breadth first: each found process's children are found after it.
	 * A pid reused while /proc was read could close a loop: no process
	 * is taken twice, so at most @n are.
	 */
	for (k = -1; k < found; k++) {
		pid_t parent = k < 0 ? root : v[k];

		for (i = 0; i < n; i++)
			if (all[i].ppid == parent && all[i].pid != root) {
				v[found++] = all[i].pid;
				all[i].ppid = 0; /* taken */
			}
	}
	free(all);
	*pids = v;
	return found;
}
