// SPDX-License-Identifier: GPL-2.0
/* events.jsonl: see eventlog.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eventlog.h"
#include "ptbpf_types.h"

int eventlog_open(struct eventlog *log, int dirfd, int uid, int gid)
{
	struct stat st;
	int ret;

	memset(log, 0, sizeof(*log));
	/*
	 * O_NONBLOCK: a FIFO planted here would hold open(2) until a reader
	 * came (ENXIO instead); for a regular file it changes nothing.
	 */
	log->fd = openat(dirfd, "events.jsonl",
			 O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
				 O_NONBLOCK | O_CLOEXEC,
			 0600);
	if (log->fd < 0)
		return -errno;
	if (fstat(log->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto fail;
	}
	if (uid != -1 && fchown(log->fd, uid, gid) < 0) {
		ret = -errno;
		goto fail;
	}
	return 0;
fail:
	close(log->fd);
	log->fd = -1;
	return ret;
}

void eventlog_init(struct eventlog *log)
{
	memset(log, 0, sizeof(*log));
	log->fd = -1;
}

void eventlog_set_run(struct eventlog *log, const char *run)
{
	snprintf(log->run, sizeof(log->run), "%s", run ? run : "");
}

void eventlog_new_run(char *buf)
{
	unsigned long long v = 0;
	struct timespec ts;

	/* unique enough to tell runs apart; not a secret */
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (unsigned long long)ts.tv_sec * 1000000007ULL ^
		    (unsigned long long)ts.tv_nsec ^
		    ((unsigned long long)getpid() << 40);
	}
	snprintf(buf, EVENTLOG_RUN_LEN + 1, "%016llx", v);
}

struct json *eventlog_begin(struct eventlog *log, const char *event,
			    uint64_t ts, int pid)
{
	struct json *j = &log->j;

	json_init(j, log->line, sizeof(log->line) - 1);
	json_obj_begin(j, NULL);
	json_str(j, "event", event);
	json_u64(j, "ts", ts);
	json_i64(j, "pid", pid);
	if (log->run[0])
		json_str(j, "run", log->run);
	return j;
}

int eventlog_end(struct eventlog *log)
{
	struct json *j = &log->j;
	ssize_t n;
	int ret;

	json_obj_end(j);
	ret = json_finish(j);
	if (ret)
		return ret;
	j->buf[j->len++] = '\n'; /* json_finish left room for the NUL */
	if (log->fd < 0)
		return -EBADF;
	/* O_APPEND and one write: lines never interleave or tear */
	n = write(log->fd, j->buf, j->len);
	if (n < 0 || (size_t)n != j->len) {
		ret = n < 0 ? -errno : -EIO;
		if (!log->err)
			log->err = ret;
		return ret;
	}
	return 0;
}

void eventlog_close(struct eventlog *log)
{
	if (log->fd >= 0)
		close(log->fd);
	log->fd = -1;
}

const char *signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev;

	if (sig <= 0)
		return NULL;
	abbrev = sigabbrev_np(sig);
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "SIG%d", sig);
	return buf;
}

int signal_number(const char *name)
{
	const char *abbrev;
	int sig;

	if (!name)
		return 0;
	if (!strncmp(name, "SIG", 3))
		name += 3;
	for (sig = 1; sig < 65; sig++) {
		abbrev = sigabbrev_np(sig);
		if (abbrev && !strcmp(abbrev, name))
			return sig;
	}
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void clock_pair(uint64_t *real, uint64_t *mono)
{
	struct timespec a, r, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*real = (uint64_t)r.tv_sec * 1000000000ULL + r.tv_nsec;
	*mono = ((uint64_t)a.tv_sec * 1000000000ULL + a.tv_nsec) / 2 +
		((uint64_t)b.tv_sec * 1000000000ULL + b.tv_nsec) / 2;
}

static const char *const stop_kinds[PTBPF_STOP_KIND_MAX] = {
	[PTBPF_STOP_GROUP] = "group_stop",
	[PTBPF_STOP_SIGNAL] = "signal_delivery",
	[PTBPF_STOP_BREAKPOINT] = "breakpoint",
	[PTBPF_STOP_SINGLESTEP] = "single_step",
	[PTBPF_STOP_HW_BREAKPOINT] = "hw_breakpoint",
	[PTBPF_STOP_INTERRUPT] = "interrupt",
	[PTBPF_STOP_PTRACE_EVENT] = "ptrace_event",
	[PTBPF_STOP_SYSCALL] = "syscall",
};

const char *stop_kind_name(unsigned int kind)
{
	return kind < PTBPF_STOP_KIND_MAX ? stop_kinds[kind] : NULL;
}

/* include/uapi/asm-generic/siginfo.h: codes > 0 depend on the signal */
const char *si_code_name(int sig, int code)
{
	static const char *const segv[] = { NULL, "SEGV_MAPERR", "SEGV_ACCERR",
					    "SEGV_BNDERR", "SEGV_PKUERR" };
	static const char *const bus[] = { NULL, "BUS_ADRALN", "BUS_ADRERR",
					   "BUS_OBJERR" };
	static const char *const trap[] = { NULL, "TRAP_BRKPT", "TRAP_TRACE",
					    "TRAP_BRANCH", "TRAP_HWBKPT" };

	switch (code) {
	case 0:
		return "SI_USER";
	case 0x80:
		return "SI_KERNEL";
	case -1:
		return "SI_QUEUE";
	case -6:
		return "SI_TKILL";
	}
	if (code < 0)
		return NULL;
	if (sig == SIGSEGV && code < 5)
		return segv[code];
	if (sig == SIGBUS && code < 4)
		return bus[code];
	if (sig == SIGTRAP && code < 5)
		return trap[code];
	return NULL;
}

const char *hex_addr(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "0x%llx", (unsigned long long)v);
	return buf;
}
