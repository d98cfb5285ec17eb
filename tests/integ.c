// SPDX-License-Identifier: GPL-2.0
/* The integration tests' helpers: see integ.h. */
#include "integ.h"

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
	snprintf(integ_home, sizeof(integ_home), "/tmp/ptbpf-test-home-%d", (int)getpid());
	if (mkdir(integ_home, 0700) && errno != EEXIST)
		return;
	setenv("HOME", integ_home, 1);
	atexit(integ_home_rm);
}

void need_root(void)
{
	if (geteuid() != 0)
		skip();
}

double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void msleep(int ms)
{
	usleep(ms * 1000);
}

pid_t spawn(char *const argv[], const char *log)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0) {
		/*
		 * its own process group keeps tests/run.sh's timeout from reaching it:
		 * a test killed at its deadline takes what it started along instead
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
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

int wait_exit(pid_t pid, double timeout_s)
{
	double end = mono_s() + timeout_s;
	int st;

	while (mono_s() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (r < 0)
			return -1;
		msleep(5);
	}
	return -1;
}

void kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

ssize_t read_task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len)
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

char task_state(pid_t pid, pid_t tid)
{
	char buf[512], *p;

	if (read_task_file(pid, tid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

int task_off_cpu(pid_t pid, pid_t tid)
{
	char buf[64];

	return read_task_file(pid, tid, "wchan", buf, sizeof(buf)) > 0 && strcmp(buf, "0") != 0;
}

int all_stopped(pid_t pid)
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
		if ((s != 'T' && s != 't') || !task_off_cpu(pid, atoi(de->d_name)))
			ok = 0;
	}
	closedir(d);
	return any && ok;
}

int wait_stopped(pid_t pid, int want, double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (mono_s() < end) {
		if (all_stopped(pid) == want)
			return 1;
		usleep(200);
	}
	return 0;
}

long long cpu_ms(pid_t pid)
{
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	p = strrchr(buf, ')'); /* comm may hold spaces */
	if (!p || sscanf(p + 2,
			 "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			 "%llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (long long)(ut + st) * 1000 / sysconf(_SC_CLK_TCK);
}

int wait_cpu(pid_t pid, long long ms, double timeout_s)
{
	double end = mono_s() + timeout_s;
	long long from = cpu_ms(pid), now;

	while (from >= 0 && mono_s() < end) {
		now = cpu_ms(pid);
		if (now < 0)
			return 0;
		if (now - from >= ms)
			return 1;
		msleep(5);
	}
	return 0;
}

char *run_out(const char *cmd, int *status)
{
	size_t len = 0, cap = 1 << 16, n;
	char *out = malloc(cap);
	FILE *p = popen(cmd, "r");
	int st;

	assert_non_null(out);
	assert_non_null(p);
	while ((n = fread(out + len, 1, cap - 1 - len, p)) > 0) {
		len += n;
		if (cap - 1 - len < 4096) {
			out = realloc(out, cap *= 2);
			assert_non_null(out);
		}
	}
	out[len] = '\0';
	st = pclose(p);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return out;
}

long run_count(const char *cmd)
{
	char *out = run_out(cmd, NULL);
	char *end;
	long n = strtol(out, &end, 10);

	if (end == out)
		n = -1;
	free(out);
	return n;
}

long samples_with(const char *out, pid_t pid, const char *text)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "for d in %s/snapshot-*; do perf script -G -F comm,pid,ip,sym "
		 "-i $d/perf.data 2>/dev/null; done | awk '$2 == %d' | "
		 "grep -c -- '%s'",
		 out, pid, text);
	return run_count(cmd);
}

char *slurp(const char *path)
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

void whole_lines(char *buf)
{
	char *nl = buf ? strrchr(buf, '\n') : NULL;

	if (nl)
		nl[1] = '\0';
	else if (buf)
		buf[0] = '\0';
}

/*
 * events.jsonl's whole lines: a line ptbpf is writing may be seen in part
 * (the kernel grows the file a page at a time within one write).
 */
static char *slurp_events(const char *dir)
{
	char path[PATH_MAX + 32], *buf;

	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	buf = slurp(path);
	whole_lines(buf);
	return buf;
}

int count_events(const char *dir, const char *name)
{
	char pat[64], *buf, *p;
	int n = 0;

	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	buf = slurp_events(dir);
	if (!buf)
		return 0;
	for (p = buf; (p = strstr(p, pat)); p++)
		n++;
	free(buf);
	return n;
}

int wait_events(const char *dir, const char *name, int n, double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (mono_s() < end) {
		if (count_events(dir, name) >= n)
			return 1;
		usleep(200);
	}
	return count_events(dir, name) >= n;
}

char *event_sequence(const char *dir, const char *skip)
{
	char *buf, *line, *save, *out;
	size_t len = 0;

	buf = slurp_events(dir);
	if (!buf)
		return strdup("");
	out = calloc(1, strlen(buf) + 1);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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

long long event_field(const char *dir, const char *name, int nth, const char *key)
{
	char pat[64], kpat[64], *buf, *p, *q;
	long long v = -1;

	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	snprintf(kpat, sizeof(kpat), "\"%s\":", key);
	buf = slurp_events(dir);
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

int event_str(const char *dir, const char *name, int nth, const char *key, char *out, size_t len)
{
	char pat[64], kpat[64], *buf, *p, *q, *nl;
	int ret = -1;

	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	snprintf(kpat, sizeof(kpat), "\"%s\":\"", key);
	buf = slurp_events(dir);
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

char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/ptbpf-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

void rm_rf(const char *dir)
{
	char cmd[600];

	if (!dir || strncmp(dir, "/tmp/ptbpf-test-", 16))
		return; /* never anything else */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "can't remove %s\n", dir);
}

char *fx_dir(char *out, size_t out_len, char *log, size_t log_len)
{
	char *dir = make_tmpdir();

	if (!dir)
		return NULL;
	if (out)
		snprintf(out, out_len, "%s/out", dir);
	if (log)
		snprintf(log, log_len, "%s/ptbpf.stderr", dir);
	return dir;
}

void fx_show_log(const char *log)
{
	char *text = getenv("TEST_VERBOSE") ? slurp(log) : NULL;

	if (text)
		fprintf(stderr, "--- ptbpf stderr:\n%s", text);
	free(text);
}

void fx_end_ptbpf(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGINT);
	if (wait_exit(pid, 10) < 0)
		kill_wait(pid);
}

void fx_dir_remove(char *dir)
{
	rm_rf(dir);
	free(dir);
}

void held_note(struct held *h, enum held_kind k, unsigned id)
{
	int i;

	for (i = 0; i < h->n[k]; i++)
		if (h->id[k][i] == id)
			return;
	if (h->n[k] < (int)(sizeof(h->id[k]) / sizeof(h->id[k][0])))
		h->id[k][h->n[k]++] = id;
}

unsigned int fdinfo_id(pid_t pid, const char *fd, const char *key)
{
	char path[96], buf[2048], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	f = open(path, O_RDONLY);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	buf[n > 0 ? n : 0] = 0;
	p = strstr(buf, key);
	return p ? (unsigned int)strtoul(p + strlen(key) + 1, NULL, 10) : 0;
}

int held_add(struct held *h, pid_t pid)
{
	static const char *const kinds[HELD_KINDS][2] = {
		[HELD_PROG] = { "anon_inode:bpf-prog", "prog_id:" },
		[HELD_MAP] = { "anon_inode:bpf-map", "map_id:" },
		[HELD_LINK] = { "anon_inode:bpf_link", "link_id:" },
	};
	char path[300], target[128];
	struct dirent *de;
	int now = 0, perf = 0, k;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strcmp(target, "anon_inode:[perf_event]")) {
			perf++;
			now++;
			continue;
		}
		for (k = 0; k < HELD_KINDS; k++) {
			unsigned int id;

			if (strcmp(target, kinds[k][0]))
				continue;
			id = fdinfo_id(pid, de->d_name, kinds[k][1]);
			if (id) {
				held_note(h, k, id);
				now++;
			}
		}
	}
	closedir(d);
	if (perf > h->perf)
		h->perf = perf;
	return now;
}

int bpf_id_exists(enum held_kind kind, unsigned int id)
{
	static const int cmd[HELD_KINDS] = {
		[HELD_PROG] = BPF_PROG_GET_FD_BY_ID,
		[HELD_MAP] = BPF_MAP_GET_FD_BY_ID,
		[HELD_LINK] = BPF_LINK_GET_FD_BY_ID,
	};
	union bpf_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id; /* map_id and link_id share its place */
	fd = syscall(__NR_bpf, cmd[kind], &attr, sizeof(attr));
	if (fd >= 0) {
		close((int)fd);
		return 1;
	}
	return errno == ENOENT ? 0 : -1;
}

int held_left(const struct held *h)
{
	static const char *const names[HELD_KINDS] = { "program", "map", "link" };
	double end = mono_s() + 10;
	int k, i, left;

	for (;;) {
		left = 0;
		for (k = 0; k < HELD_KINDS; k++)
			for (i = 0; i < h->n[k]; i++)
				left += bpf_id_exists(k, h->id[k][i]) != 0;
		if (!left || mono_s() > end)
			break;
		msleep(20);
	}
	for (k = 0; left && k < HELD_KINDS; k++)
		for (i = 0; i < h->n[k]; i++)
			if (bpf_id_exists(k, h->id[k][i]) != 0)
				fprintf(stderr, "BPF %s id %u is still loaded\n", names[k],
					h->id[k][i]);
	return left;
}

int perf_fds(pid_t pid)
{
	struct held h;
	int n;

	memset(&h, 0, sizeof(h));
	n = held_add(&h, pid);
	return n < 0 ? 0 : h.perf;
}

long long held_bpf_global(const struct held *h, const char *var)
{
	long long v = -1;
	int i;

	for (i = 0; i < h->n[HELD_MAP] && v < 0; i++) {
		struct bpf_map_info info;
		__u32 len = sizeof(info), key = 0, j;
		const struct btf_type *t;
		struct btf_var_secinfo *vs;
		struct btf *btf;
		char *val;
		int fd;

		fd = bpf_map_get_fd_by_id(h->id[HELD_MAP][i]);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !strstr(info.name, ".bss") ||
		    !info.btf_id || !(btf = btf__load_from_kernel_by_id(info.btf_id))) {
			close(fd);
			continue;
		}
		t = btf__type_by_id(btf, info.btf_value_type_id);
		val = calloc(1, info.value_size);
		if (t && btf_is_datasec(t) && val && !bpf_map_lookup_elem(fd, &key, val)) {
			vs = btf_var_secinfos(t);
			for (j = 0; j < btf_vlen(t); j++, vs++) {
				const struct btf_type *vt = btf__type_by_id(btf, vs->type);

				if (vt && !strcmp(btf__name_by_offset(btf, vt->name_off), var) &&
				    vs->size == 8)
					memcpy(&v, val + vs->offset, 8);
			}
		}
		free(val);
		btf__free(btf);
		close(fd);
	}
	return v;
}

int run_held(const char *env, char *const argv[], char *err, size_t len, struct held *h,
	     double timeout_s)
{
	double end = mono_s() + timeout_s;
	int pfd[2], st = 0, ret = -1, traced = 0;
	size_t got = 0;
	pid_t pid;

	memset(h, 0, sizeof(*h));
	err[0] = 0;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL); /* as spawn() */
		dup2(null, 0);
		dup2(null, 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		if (env)
			putenv((char *)env);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	while (pid > 0) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		ssize_t n;

		while (got + 1 < len && (n = read(pfd[0], err + got, len - 1 - got)) > 0)
			got += n;
		err[got] = 0;
		if (r == 0) {
			if (traced)
				held_add(h, pid); /* what it holds meanwhile */
			if (mono_s() > end) {
				/* its exit stops at PTRACE_EVENT_EXIT too */
				kill(pid, SIGKILL);
				while (waitpid(pid, &st, 0) == pid && WIFSTOPPED(st))
					ptrace(PTRACE_CONT, pid, NULL, NULL);
				break;
			}
			usleep(1000);
			continue;
		}
		if (r < 0)
			break;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			break;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			held_add(h, pid);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else if (!traced) { /* its own SIGSTOP, before the exec */
			ptrace(PTRACE_SETOPTIONS, pid, NULL,
			       PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC);
			traced = 1;
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			ptrace(PTRACE_CONT, pid, NULL, NULL); /* exec */
		} else {
			/* a signal for it: deliver it */
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
		}
	}
	while (got + 1 < len) {
		ssize_t n = read(pfd[0], err + got, len - 1 - got);

		if (n <= 0)
			break;
		got += n;
	}
	err[got] = 0;
	close(pfd[0]);
	return ret;
}

int run_ptbpf_held(const char *env, const char *out, const char *args, char *err, size_t len,
		   struct held *h, double timeout_s)
{
	char words[1024], *argv[64], *w, *save;
	int n = 0, st;

	snprintf(words, sizeof(words), "%s", args);
	argv[n++] = PTBPF_BIN;
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	for (w = strtok_r(words, " ", &save); w && n < 63; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	st = run_held(env, argv, err, len, h, timeout_s);
	if (held_left(h))
		fail_msg("'%s': BPF objects left loaded", args);
	return st;
}

int run_capture(const char *cmd, char *err, size_t len)
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

void integ_filter(void)
{
	const char *filter = getenv("TEST_FILTER");

	if (filter)
		cmocka_set_test_filter(filter);
}
