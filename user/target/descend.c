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
#include "target.h"

struct pair {
	pid_t pid, ppid;
};

/* The parent of process @pid (a decimal string), or -1. */
static pid_t parent_of(const char *proc, const char *pid)
{
	struct target_stat st;
	char path[96];

	snprintf(path, sizeof(path), "%s/%s/stat", proc, pid);
	if (target_read_stat(path, &st))
		return -1;
	/* a zombie is no process to follow: its exit was before us */
	if (st.state == 'Z' || st.state == 'X')
		return -1;
	return st.ppid;
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
