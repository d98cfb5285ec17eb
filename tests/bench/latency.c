// SPDX-License-Identifier: GPL-2.0
/*
 * latency MODE CYCLES DIR [PTBPF]: stop -> "knows it stopped" and
 * continue -> "knows it runs" latency over CYCLES stop/continue cycles of a
 * busy target, as seen by one of three watchers:
 *
 *   ptbpf   ptbpf --pid (sample backend); "knows" = the pause (resume)
 *           event's ts, when the last core's ioctl returned
 *   poll    /proc/PID/stat read every 1 ms, the way a script would
 *   ptrace  PTRACE_SEIZE + waitpid, what a debugger learns and when
 *
 * The target is a child that spins for 2-4 ms (longer than a poll period), writes CLOCK_MONOTONIC to
 * shared memory and raises SIGSTOP: that time is the stop reference for
 * every watcher (the kernel's own switch-out time is only known to ptbpf,
 * which reports it too). The continue reference is the time just before
 * this program sends SIGCONT. Each figure prints as "name value" on stdout;
 * per-cycle figures go to DIR/latency-MODE.tsv.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_NS 3000000000ULL /* per wait; a miss is counted, not fatal */
#define SETTLE_US 1000 /* stopped 1-2x this long before SIGCONT */

struct shm {
	volatile uint64_t go; /* the watcher is ready: start cycling */
	volatile uint64_t seq; /* stops raised so far */
	volatile uint64_t t0; /* CLOCK_MONOTONIC just before the last raise */
};

struct cycle {
	uint64_t t0, stop_seen, t1, run_seen;
	/* ptbpf only: kernel stop/run ts and its own latency_ns */
	uint64_t k_stop, k_run, pause_lat, resume_lat, delivery;
};

static struct shm *shm;
static pid_t target = -1, tracer_child = -1;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void spin_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;

	while (now_ns() < end)
		sink++;
}

static void __attribute__((noreturn)) target_main(void)
{
	unsigned int r = getpid();

	while (!shm->go)
		spin_us(100);
	for (;;) {
		r = r * 1103515245 + 12345;
		spin_us(2000 + (r >> 8) % 2000);
		shm->t0 = now_ns();
		__atomic_store_n(&shm->seq, shm->seq + 1, __ATOMIC_RELEASE);
		raise(SIGSTOP);
	}
}

static void cleanup(void)
{
	if (target > 0) {
		kill(target, SIGKILL);
		waitpid(target, NULL, __WALL);
		target = -1;
	}
	if (tracer_child > 0) {
		kill(tracer_child, SIGINT);
		for (int i = 0; i < 100; i++) {
			if (waitpid(tracer_child, NULL, WNOHANG) == tracer_child) {
				tracer_child = -1;
				return;
			}
			usleep(50000);
		}
		kill(tracer_child, SIGKILL);
		waitpid(tracer_child, NULL, 0);
		tracer_child = -1;
	}
}

static void on_signal(int sig)
{
	cleanup();
	_exit(128 + sig);
}

static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : 0;
}

/* ---- poll: /proc/PID/stat every 1 ms on an absolute schedule ---- */

static struct timespec tick; /* free-running 1 ms schedule */
static uint64_t last_seq; /* the stop seen in the previous cycle */

static uint64_t poll_until(int want_stopped, uint64_t deadline)
{
	struct timespec *next = &tick;

	if (!tick.tv_sec)
		clock_gettime(CLOCK_MONOTONIC, &tick);
	while (now_ns() < deadline) {
		uint64_t now = now_ns();
		char s;

		/* the next tick after now: a timer would have fired (and seen
		 * nothing new) at those that passed meanwhile */
		do {
			next->tv_nsec += 1000000;
			if (next->tv_nsec >= 1000000000) {
				next->tv_nsec -= 1000000000;
				next->tv_sec++;
			}
		} while ((uint64_t)next->tv_sec * 1000000000ULL + next->tv_nsec <= now);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
		s = proc_state(target);
		if ((s == 'T' || s == 't') == want_stopped)
			return now_ns();
		/* it ran and stopped again between two polls: a run this
		 * poller never saw */
		if (!want_stopped && shm->seq != last_seq)
			return 0;
	}
	return 0;
}

/* ---- ptrace: PTRACE_SEIZE notifications ---- */

/*
 * Under PTRACE_SEIZE a SIGSTOP first shows as a signal-delivery-stop (the
 * first thing a debugger learns: *stop_seen), which we pass on; the
 * group-stop that follows is PTRACE_EVENT_STOP with the stop signal, left
 * in PTRACE_LISTEN so that a SIGCONT re-traps it as PTRACE_EVENT_STOP with
 * SIGTRAP (*run_seen), after which it is let go.
 * Returns 1 when the awaited edge (group-stop established, or resumed)
 * was seen, 0 on timeout.
 */
static int ptrace_until(int want_stopped, uint64_t *seen, uint64_t deadline)
{
	int st;

	while (now_ns() < deadline) {
		/* blocking, as a debugger waits; alarm() bounds the run */
		pid_t r = waitpid(target, &st, __WALL);
		int sig, ev;

		if (r < 0 || !WIFSTOPPED(st))
			return 0;
		sig = WSTOPSIG(st);
		ev = st >> 16;
		if (ev == PTRACE_EVENT_STOP && sig != SIGTRAP) {
			ptrace(PTRACE_LISTEN, target, 0, 0);
			if (want_stopped)
				return 1;
		} else if (ev == PTRACE_EVENT_STOP) {
			if (!want_stopped && !*seen)
				*seen = now_ns();
			ptrace(PTRACE_CONT, target, 0, 0);
			if (!want_stopped)
				return 1;
		} else {
			if (sig == SIGSTOP && want_stopped && !*seen)
				*seen = now_ns();
			ptrace(PTRACE_CONT, target, 0, (void *)(long)sig);
		}
	}
	return 0;
}

/* ---- ptbpf: tail DIR/out/events.jsonl ---- */

struct tail {
	int fd, ino; /* events.jsonl; inotify on it, to sleep until it grows */
	char buf[1 << 16];
	size_t len;
};

static long long field(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/*
 * Reads complete lines until one with event @name; fills @c from it and
 * from the lines before it. Returns 1, or 0 on timeout.
 */
static int tail_until(struct tail *t, const char *name, struct cycle *c, uint64_t deadline)
{
	char pat[64];

	snprintf(pat, sizeof(pat), "{\"event\":\"%s\"", name);
	while (now_ns() < deadline) {
		char *nl;
		ssize_t n;

		while ((nl = memchr(t->buf, '\n', t->len))) {
			int hit;

			*nl = 0;
			hit = !strncmp(t->buf, pat, strlen(pat));
			if (!strncmp(t->buf, "{\"event\":\"stop\"", 15)) {
				c->k_stop = field(t->buf, "ts");
				c->delivery = field(t->buf, "delivery_ns");
			} else if (!strncmp(t->buf, "{\"event\":\"run\"", 14)) {
				c->k_run = field(t->buf, "ts");
			} else if (hit && !strcmp(name, "pause")) {
				c->stop_seen = field(t->buf, "ts");
				c->pause_lat = field(t->buf, "latency_ns");
			} else if (hit && !strcmp(name, "resume")) {
				c->run_seen = field(t->buf, "ts");
				c->resume_lat = field(t->buf, "latency_ns");
			}
			t->len -= nl + 1 - t->buf;
			memmove(t->buf, nl + 1, t->len);
			if (hit)
				return 1;
		}
		if (t->len == sizeof(t->buf) - 1)
			t->len = 0; /* an absurd line: drop it */
		n = read(t->fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
		if (n > 0) {
			t->len += n;
		} else {
			struct pollfd p = { .fd = t->ino, .events = POLLIN };
			char ev[4096];

			if (poll(&p, 1, 100) > 0 && read(t->ino, ev, sizeof(ev)) < 0)
				usleep(100);
		}
	}
	return 0;
}

static int start_ptbpf(const char *ptbpf, const char *dir, struct tail *t)
{
	char out[512], log[512], pidbuf[16], path[600];
	struct cycle dummy = { 0 };
	uint64_t deadline;

	snprintf(out, sizeof(out), "%s/lat-ptbpf", dir);
	snprintf(log, sizeof(log), "%s/lat-ptbpf.log", dir);
	snprintf(pidbuf, sizeof(pidbuf), "%d", target);
	tracer_child = fork();
	if (tracer_child == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(fd, 1);
		dup2(fd, 2);
		/* cpu scope: the one that pauses and resumes on each transition */
		execl(ptbpf, ptbpf, "-q", "-t", "none", "-s", "64K", "--scope", "cpu", "-o", out,
		      "--pid", pidbuf, (char *)NULL);
		_exit(127);
	}
	snprintf(path, sizeof(path), "%s/events.jsonl", out);
	deadline = now_ns() + 20000000000ULL;
	while ((t->fd = open(path, O_RDONLY)) < 0 && now_ns() < deadline)
		usleep(10000);
	if (t->fd < 0)
		return -1;
	t->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	inotify_add_watch(t->ino, path, IN_MODIFY);
	/* collection is enabled once the target is known to run */
	return tail_until(t, "resume", &dummy, deadline) ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Prints "NAME_p50 V" and "NAME_p99 V" (ns) of the n values in @v. */
static void pct(const char *name, uint64_t *v, int n)
{
	if (n <= 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	printf("%s_p50 %llu\n", name, (unsigned long long)v[n / 2]);
	printf("%s_p99 %llu\n", name, (unsigned long long)v[(n * 99) / 100]);
}

static void report(const char *mode, const char *dir, struct cycle *c, int n, int missed)
{
	uint64_t *v = calloc(n + 1, sizeof(*v));
	char path[512];
	FILE *f;
	int i, k;

	snprintf(path, sizeof(path), "%s/latency-%s.tsv", dir, mode);
	f = fopen(path, "w");
	for (i = 0; f && i < n; i++)
		fprintf(f, "%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)c[i].t0,
			(unsigned long long)c[i].stop_seen, (unsigned long long)c[i].t1,
			(unsigned long long)c[i].run_seen, (unsigned long long)c[i].pause_lat,
			(unsigned long long)c[i].resume_lat);
	if (f)
		fclose(f);
	printf("cycles %d\nmissed %d\n", n, missed);
#define PCT(name, expr)                     \
	do {                                \
		for (i = k = 0; i < n; i++) \
			v[k++] = (expr);    \
		pct(name, v, k);            \
	} while (0)
	PCT("stop", c[i].stop_seen - c[i].t0);
	PCT("resume", c[i].run_seen - c[i].t1);
	if (!strcmp(mode, "ptbpf")) {
		PCT("stop_kernel", c[i].pause_lat);
		PCT("resume_kernel", c[i].resume_lat);
		PCT("raise_to_switch", c[i].k_stop - c[i].t0);
		PCT("delivery", c[i].delivery);
		PCT("sigcont_to_wake", c[i].k_run - c[i].t1);
	}
#undef PCT
	free(v);
}

static int cycle_once(const char *mode, struct tail *t, struct cycle *c)
{
	uint64_t seq, dl = now_ns() + TIMEOUT_NS;
	int ok;

	memset(c, 0, sizeof(*c));
	if (!strcmp(mode, "poll"))
		ok = (c->stop_seen = poll_until(1, dl)) != 0;
	else if (!strcmp(mode, "ptrace"))
		ok = ptrace_until(1, &c->stop_seen, dl) && c->stop_seen;
	else
		ok = tail_until(t, "pause", c, dl);
	c->t0 = shm->t0;
	seq = __atomic_load_n(&shm->seq, __ATOMIC_ACQUIRE);
	if (seq != last_seq + 1)
		ok = 0; /* not the stop we waited for */
	last_seq = seq;
	/* a random settle time, so the poller's tick has no fixed phase */
	usleep(SETTLE_US + random() % SETTLE_US);
	c->t1 = now_ns();
	kill(target, SIGCONT);
	dl = now_ns() + TIMEOUT_NS;
	if (!strcmp(mode, "poll"))
		ok &= (c->run_seen = poll_until(0, dl)) != 0;
	else if (!strcmp(mode, "ptrace"))
		ok &= ptrace_until(0, &c->run_seen, dl) && c->run_seen;
	else
		ok &= tail_until(t, "resume", c, dl);
	return ok && c->stop_seen > c->t0 && c->run_seen > c->t1 &&
	       c->stop_seen - c->t0 < TIMEOUT_NS;
}

int main(int argc, char **argv)
{
	struct tail *t = calloc(1, sizeof(*t));
	struct cycle *c;
	const char *mode, *dir;
	int n, i, good = 0, missed = 0;

	if (argc < 4 ||
	    (strcmp(argv[1], "ptbpf") && strcmp(argv[1], "poll") && strcmp(argv[1], "ptrace"))) {
		fprintf(stderr, "usage: latency ptbpf|poll|ptrace CYCLES DIR [PTBPF]\n");
		return 2;
	}
	mode = argv[1];
	n = atoi(argv[2]);
	dir = argv[3];
	c = calloc(n > 0 ? n : 1, sizeof(*c));
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED || !c || !t)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	alarm(10 + n / 50); /* a generous bound: ~6 ms a cycle */
	target = fork();
	if (target == 0)
		target_main();
	if (!strcmp(mode, "ptrace") && ptrace(PTRACE_SEIZE, target, 0, 0) < 0) {
		perror("latency: PTRACE_SEIZE");
		cleanup();
		return 1;
	}
	if (!strcmp(mode, "ptbpf") && start_ptbpf(argc > 4 ? argv[4] : "./ptbpf", dir, t)) {
		fprintf(stderr, "latency: ptbpf did not start (see %s)\n", dir);
		cleanup();
		return 1;
	}
	shm->go = 1;
	for (i = 0; i < n; i++) {
		if (cycle_once(mode, t, &c[good]))
			good++;
		else if (++missed > n / 4 + 5)
			break;
	}
	cleanup();
	report(mode, dir, c, good, missed);
	return 0;
}
