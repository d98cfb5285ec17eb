/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the integration tests: start ptbpf and targets as real
 * processes, read events.jsonl as ptbpf writes it, and read the truth from
 * /proc. Everything a test starts it also ends; temp dirs are removed.
 */
#ifndef PTBPF_TESTS_INTEG_H
#define PTBPF_TESTS_INTEG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTBPF_BIN "./ptbpf"

/*
 * ptbpf fills perf's build-id cache as perf record does, in $HOME/.debug
 * (perf itself knows no other place but its config's): each test binary
 * runs ptbpf and perf with a HOME of its own, removed at exit, so the
 * tests leave nothing in root's home.
 */
static char integ_home[64];
static pid_t integ_home_owner;

static void integ_home_rm(void)
{
	char cmd[128];

	if (!integ_home[0] || getpid() != integ_home_owner)
		return; /* a forked child that exit()s leaves it be */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", integ_home);
	if (system(cmd))
		fprintf(stderr, "can't remove %s\n", integ_home);
}

__attribute__((constructor)) static void integ_home_init(void)
{
	integ_home_owner = getpid();
	snprintf(integ_home, sizeof(integ_home), "/tmp/ptbpf-test-home-%d",
		 (int)getpid());
	if (mkdir(integ_home, 0700) && errno != EEXIST)
		return;
	setenv("HOME", integ_home, 1);
	atexit(integ_home_rm);
}
#define PROGS ".output/tests/progs/"

/* The integration tests load BPF and open per-CPU events: root only. */
static inline void need_root(void)
{
	if (geteuid() != 0)
		skip();
}

static inline double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void msleep(int ms)
{
	usleep(ms * 1000);
}

/* Forks and execs @argv with stdout/stderr to @log (or inherited). */
static inline pid_t spawn(char *const argv[], const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		setpgid(0, 0); /* signals to the test do not reach it */
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Waits for @pid to exit; returns its shell-style status, -1 on timeout. */
static inline int wait_exit(pid_t pid, double timeout_s)
{
	double end = mono_s() + timeout_s;
	int st;

	while (mono_s() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		msleep(5);
	}
	return -1;
}

static inline void kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* /proc/PID/task/TID/@name into @buf (NUL-terminated); bytes read, or -1. */
static inline ssize_t read_task_file(pid_t pid, pid_t tid, const char *name,
				     char *buf, size_t len)
{
	char path[96];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* The state letter of a task in /proc (R, S, T, t, Z...), or 0. */
static inline char task_state(pid_t pid, pid_t tid)
{
	char buf[512], *p;

	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/*
 * True when the task is off its CPU: /proc shows T as soon as the state is
 * set, before the task has switched out, and a SIGCONT in that window
 * means it never stopped at all. wchan is "0" while it is on a CPU.
 */
static inline int task_off_cpu(pid_t pid, pid_t tid)
{
	char buf[64];

	return read_task_file(pid, tid, "wchan", buf, sizeof(buf)) > 0 &&
	       strcmp(buf, "0") != 0;
}

/* True when every thread of @pid is in state T or t, and off its CPU. */
static inline int all_stopped(pid_t pid)
{
	char path[64];
	struct dirent *de;
	int any = 0, ok = 1;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char s;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		s = task_state(pid, atoi(de->d_name));
		if (s == 0 || s == 'Z' || s == 'X')
			continue; /* gone meanwhile */
		any = 1;
		if ((s != 'T' && s != 't') ||
		    !task_off_cpu(pid, atoi(de->d_name)))
			ok = 0;
	}
	closedir(d);
	return any && ok;
}

static inline int wait_stopped(pid_t pid, int want, double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (mono_s() < end) {
		if (all_stopped(pid) == want)
			return 1;
		usleep(200);
	}
	return 0;
}

/* The whole of a file, NUL-terminated (malloc'd), or NULL. */
static inline char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

/* Number of lines of @dir/events.jsonl whose "event" is @name. */
static inline int count_events(const char *dir, const char *name)
{
	char path[512], pat[64], *buf, *p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	buf = slurp(path);
	if (!buf)
		return 0;
	for (p = buf; (p = strstr(p, pat)); p++)
		n++;
	free(buf);
	return n;
}

static inline int wait_events(const char *dir, const char *name, int n,
			      double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (mono_s() < end) {
		if (count_events(dir, name) >= n)
			return 1;
		usleep(200);
	}
	return count_events(dir, name) >= n;
}

/*
 * The event names of events.jsonl, in order, as one string "start stop run
 * ..." (malloc'd). Names in @skip (space separated) are left out.
 */
static inline char *event_sequence(const char *dir, const char *skip)
{
	char path[512], *buf, *line, *save, *out;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	buf = slurp(path);
	if (!buf)
		return strdup("");
	out = calloc(1, strlen(buf) + 1);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32] = "", padded[40];

		if (sscanf(line, "{\"event\":\"%31[^\"]\"", name) != 1)
			continue;
		snprintf(padded, sizeof(padded), " %s ", name);
		if (skip) {
			char sk[256];

			snprintf(sk, sizeof(sk), " %s ", skip);
			if (strstr(sk, padded))
				continue;
		}
		len += sprintf(out + len, "%s%s", len ? " " : "", name);
	}
	free(buf);
	return out;
}

/* Value of numeric field @key in the @nth (0-based) line of event @name. */
static inline long long event_field(const char *dir, const char *name, int nth,
				    const char *key)
{
	char path[512], pat[64], kpat[64], *buf, *p, *q;
	long long v = -1;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	snprintf(kpat, sizeof(kpat), "\"%s\":", key);
	buf = slurp(path);
	if (!buf)
		return -1;
	for (p = buf; (p = strstr(p, pat)); p++) {
		if (nth-- > 0)
			continue;
		q = strstr(p, kpat);
		if (q && (!strchr(p, '\n') || q < strchr(p, '\n')))
			v = strtoll(q + strlen(kpat), NULL, 10);
		break;
	}
	free(buf);
	return v;
}

/* String field @key of the @nth line of event @name, into @out. */
static inline int event_str(const char *dir, const char *name, int nth,
			    const char *key, char *out, size_t len)
{
	char path[512], pat[64], kpat[64], *buf, *p, *q, *nl;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	snprintf(kpat, sizeof(kpat), "\"%s\":\"", key);
	buf = slurp(path);
	if (!buf)
		return -1;
	out[0] = 0;
	for (p = buf; (p = strstr(p, pat)); p++) {
		if (nth-- > 0)
			continue;
		nl = strchr(p, '\n');
		q = strstr(p, kpat);
		if (q && (!nl || q < nl)) {
			q += strlen(kpat);
			snprintf(out, len, "%.*s", (int)(strcspn(q, "\"")), q);
			ret = 0;
		}
		break;
	}
	free(buf);
	return ret;
}

static inline char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/ptbpf-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

static inline void rm_rf(const char *dir)
{
	char cmd[600];

	if (!dir || strncmp(dir, "/tmp/ptbpf-test-", 16))
		return; /* never anything else */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "can't remove %s\n", dir);
}

/* Programs of ours loaded in the kernel now (by name), via bpftool. */
static inline int loaded_progs_now(void)
{
	FILE *f = popen(
		"bpftool prog show 2>/dev/null | grep -c 'name handle_switch'",
		"r");
	int n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

/*
 * Programs of ours still loaded. The kernel frees a program after an RCU
 * grace period once its last fd and link are gone, so wait a little.
 */
static inline int loaded_ptbpf_progs(void)
{
	int i, n = 0;

	for (i = 0; i < 100; i++) {
		n = loaded_progs_now();
		if (n == 0)
			return 0;
		msleep(20);
	}
	return n;
}

/* Runs a command line through sh; returns its exit status, stderr in @err. */
static inline int run_capture(const char *cmd, char *err, size_t len)
{
	char full[2048];
	FILE *f;
	size_t n;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1 >/dev/null", cmd);
	f = popen(full, "r");
	if (!f)
		return -1;
	n = fread(err, 1, len - 1, f);
	err[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif /* PTBPF_TESTS_INTEG_H */
