// SPDX-License-Identifier: GPL-2.0
/* --unit: see unit.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "cgroup.h"
#include "unit.h"

/* `systemctl show` prints KEY=VALUE lines: the value of @key, or NULL. */
static const char *value_of(const char *out, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = out;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			snprintf(val, len, "%.*s", (int)strcspn(p, "\n"), p);
			return val;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* Runs @prog show ... @unit; its standard output into @out. */
static int run_show(const char *prog, const char *unit, char *out, size_t len)
{
	int pfd[2], st;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 2);
		dup2(pfd[1], 1);
		execlp(prog, prog, "show", "--property=ControlGroup", "--property=MainPID", "--",
		       unit, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (got + 1 < len && (n = read(pfd[0], out + got, len - 1 - got)))
		if (n > 0)
			got += (size_t)n;
		else if (errno != EINTR)
			break;
	out[got] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(st))
		return -EIO;
	return WEXITSTATUS(st) == 127 ? -ENOENT : WEXITSTATUS(st) ? -EIO : 0;
}

int unit_resolve(const char *unit, const char *mnt, char *cg, size_t len, pid_t *main_pid,
		 char *err, size_t errlen)
{
	const char *prog = getenv("PTBPF_SYSTEMCTL");
	char out[8192], val[4096];
	struct stat st;
	int ret;

	if (!unit || !mnt || !cg || !main_pid)
		return -EINVAL;
	if (!prog || !*prog) {
		prog = "systemctl";
		if (stat(UNIT_SYSTEMD_RUNTIME, &st) || !S_ISDIR(st.st_mode))
			return errbuf_set(
				err, errlen, -ENOSYS,
				"--unit needs systemd, and it is not running here (no %s): name the cgroup with --cgroup=PATH instead",
				UNIT_SYSTEMD_RUNTIME);
	}
	ret = run_show(prog, unit, out, sizeof(out));
	if (ret)
		return errbuf_set(err, errlen, ret, "--unit %s: %s show failed: %s", unit, prog,
				  ret == -ENOENT ? "no such program" : "it said no");
	*main_pid = value_of(out, "MainPID", val, sizeof(val)) ? (pid_t)strtol(val, NULL, 10) : 0;
	if (!value_of(out, "ControlGroup", val, sizeof(val)) || val[0] != '/')
		return errbuf_set(err, errlen, -ESRCH,
				  "unit %s has no cgroup: it is not running (systemctl "
				  "start %s)",
				  unit, unit);
	snprintf(cg, len, "%s%s", mnt, val);
	return 0;
}

int unit_procs(const char *cg, pid_t **pids)
{
	char path[4200];
	pid_t *v = NULL, *grown;
	int n = 0, cap = 0;
	long pid;
	FILE *f;

	*pids = NULL;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%ld", &pid) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(v, (size_t)cap * sizeof(*v));
			if (!grown) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = grown;
		}
		v[n++] = (pid_t)pid;
	}
	fclose(f);
	*pids = v;
	return n;
}

pid_t unit_pick(const pid_t *pids, int n, pid_t main_pid)
{
	int i;

	for (i = 0; main_pid > 0 && i < n; i++)
		if (pids[i] == main_pid)
			return main_pid;
	return n > 0 ? pids[0] : 0;
}

pid_t unit_target(const char *unit, char *cg, size_t len, char *err, size_t errlen)
{
	char mnt[4096];
	pid_t main_pid, *pids, pid;
	int n;

	if (cgroup_mount(mnt, sizeof(mnt)))
		return errbuf_set(err, errlen, -ENOENT,
				  "--unit needs cgroup v2, and none is mounted");
	n = unit_resolve(unit, mnt, cg, len, &main_pid, err, errlen);
	if (n)
		return n;
	n = unit_procs(cg, &pids);
	pid = n > 0 ? unit_pick(pids, n, main_pid) : 0;
	free(pids);
	if (!pid)
		return errbuf_set(err, errlen, -ESRCH,
				  "unit %s has no process in %s: is it running?", unit, cg);
	return pid;
}
