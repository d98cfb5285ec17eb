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
#include "snapfmt.h"
#include "ptbpf_types.h"

/*
 * Whether an events.jsonl that is already there may be appended to: only
 * what an earlier run made, a regular file with one link, owned by us or
 * by @uid. A second link is someone's hard link to a file elsewhere
 * (a root file, with sudo): writing to it would write there.
 */
static int adoptable(const struct stat *st, int uid)
{
	if (S_ISLNK(st->st_mode))
		return -ELOOP;
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	if (st->st_nlink != 1)
		return -EMLINK;
	if (st->st_uid != geteuid() && (uid == -1 || st->st_uid != (uid_t)uid))
		return -EPERM;
	return 0;
}

int eventlog_open(struct eventlog *log, int dirfd, int uid, int gid)
{
	/*
	 * O_NONBLOCK: a FIFO planted here would hold open(2) until a reader
	 * came (ENXIO instead); for a regular file it changes nothing.
	 */
	const int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	struct stat before, st;
	int ret;

	memset(log, 0, sizeof(*log));
	/* a file made now is ours: the only kind that is given to @uid */
	log->fd = openat(dirfd, SNAPFMT_EVENTS, flags | O_CREAT | O_EXCL, 0600);
	if (log->fd >= 0) {
		if (uid != -1 && fchown(log->fd, uid, gid) < 0) {
			ret = -errno;
			goto fail;
		}
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	/* one that is there: looked at before it is opened, then again */
	if (fstatat(dirfd, SNAPFMT_EVENTS, &before, AT_SYMLINK_NOFOLLOW))
		return -errno;
	ret = adoptable(&before, uid);
	if (ret)
		return ret;
	log->fd = openat(dirfd, SNAPFMT_EVENTS, flags);
	if (log->fd < 0)
		return -errno;
	if (fstat(log->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	ret = adoptable(&st, uid);
	if (!ret && (st.st_dev != before.st_dev || st.st_ino != before.st_ino))
		ret = -EAGAIN; /* swapped meanwhile */
	if (ret)
		goto fail;
	return 0;
fail:
	close(log->fd);
	log->fd = -1;
	return ret;
}

const char *eventlog_refusal(int ret)
{
	switch (ret) {
	case -EINVAL:
	case -ENXIO:
		return "is not a regular file (a FIFO or device?)";
	case -ELOOP:
		return "is a symlink";
	case -EMLINK:
		return "has more than one link (a hard link to another file?)";
	case -EPERM:
		return "is owned by another user";
	case -EAGAIN:
		return "was replaced while it was opened";
	}
	return NULL;
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
		v = (unsigned long long)ts.tv_sec * 1000000007ULL ^ (unsigned long long)ts.tv_nsec ^
		    ((unsigned long long)getpid() << 40);
	}
	snprintf(buf, EVENTLOG_RUN_LEN + 1, "%016llx", v);
}

struct json *eventlog_begin(struct eventlog *log, const char *event, uint64_t ts, int pid)
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

/* Keeps @len bytes of @buf for later; a line that does not fit is lost. */
static void keep(struct eventlog *log, const char *buf, size_t len)
{
	if (len > sizeof(log->pending) - log->pending_len) {
		log->dropped++;
		return;
	}
	memcpy(log->pending + log->pending_len, buf, len);
	log->pending_len += len;
}

/*
 * Writes what waits. Returns 0 when nothing is left waiting, or -errno.
 * Only a write that put nothing down leaves a line whole: the rest of a
 * short write stays to finish the line it began.
 */
static int flush_pending(struct eventlog *log)
{
	ssize_t n;

	if (!log->pending_len)
		return 0;
	n = write(log->fd, log->pending, log->pending_len);
	if (n > 0) {
		memmove(log->pending, log->pending + n, log->pending_len - (size_t)n);
		log->pending_len -= (size_t)n;
	}
	if (log->pending_len)
		return n < 0 ? -errno : -ENOSPC;
	return 0;
}

static int fail(struct eventlog *log, int ret)
{
	if (!log->err)
		log->err = ret;
	return ret;
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
	ret = flush_pending(log);
	if (ret) {
		/* after the ones that wait, in order */
		keep(log, j->buf, j->len);
		return fail(log, ret);
	}
	/* O_APPEND and one write: lines never interleave or tear */
	n = write(log->fd, j->buf, j->len);
	if (n < 0 || (size_t)n != j->len) {
		ret = n < 0 ? -errno : -EIO;
		keep(log, j->buf + (n > 0 ? n : 0), j->len - (n > 0 ? n : 0));
		return fail(log, ret);
	}
	return 0;
}

void eventlog_close(struct eventlog *log)
{
	if (log->fd >= 0) {
		flush_pending(log);
		close(log->fd);
	}
	log->fd = -1;
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

const char *eventlog_stop_kind(unsigned int kind)
{
	return kind < PTBPF_STOP_KIND_MAX ? stop_kinds[kind] : NULL;
}
