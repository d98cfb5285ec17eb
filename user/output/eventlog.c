// SPDX-License-Identifier: GPL-2.0
/* events.jsonl: see eventlog.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "eventlog.h"
#include "snapfmt.h"
#include "base/ptbpf_types.h"

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
	log->unreserved = EVENTLOG_RESERVE; /* reserved at the first line */
	/* a file made now is ours: the only kind that is given to @uid */
	log->fd = openat(dirfd, SNAPFMT_EVENTS, flags | O_CREAT | O_EXCL, 0600);
	if (log->fd >= 0) {
		if (uid != -1 && fchown(log->fd, uid, gid) < 0) {
			ret = -errno;
			goto fail;
		}
		log->created = true;
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

uint64_t eventlog_share(uint64_t max_size)
{
	uint64_t share = max_size / 8;

	if (share < 64 * 1024)
		share = 64 * 1024;
	if (share > 64ULL << 20)
		share = 64ULL << 20;
	/* a tiny --max-size: half for the snapshots all the same */
	if (share > max_size / 2)
		share = max_size / 2;
	return share;
}

int eventlog_rot_init(struct eventlog_rot *rot, struct eventlog *log, int dirfd, int uid, int gid,
		      uint64_t cap)
{
	struct stat st;

	memset(rot, 0, sizeof(*rot));
	pthread_mutex_init(&rot->lock, NULL);
	rot->dirfd = dirfd;
	rot->uid = uid;
	rot->gid = gid;
	rot->cap = cap;
	if (fstat(log->fd, &st))
		return -errno;
	rot->bytes = (uint64_t)st.st_size;
	eventlog_rot_join(log, rot);
	return 0;
}

void eventlog_rot_join(struct eventlog *log, struct eventlog_rot *rot)
{
	if (rot)
		pthread_mutex_lock(&rot->lock);
	log->rot = rot;
	log->gen = rot ? rot->gen : 0;
	if (rot)
		pthread_mutex_unlock(&rot->lock);
}

/* @log writes to @fd from now on, a file with nothing reserved yet. */
static void use_fd(struct eventlog *log, int fd)
{
	close(log->fd);
	log->fd = fd;
	log->reserved = false;
	log->unreserved = EVENTLOG_RESERVE; /* reserved at the next line */
}

/*
 * Another writer rotated the file: this one's fd is on events.jsonl.1 now,
 * the new events.jsonl is the one to append to. Under rot->lock.
 */
static void rot_follow(struct eventlog *log)
{
	struct eventlog_rot *rot = log->rot;
	int fd;

	if (log->gen == rot->gen)
		return;
	struct stat st;

	fd = openat(rot->dirfd, SNAPFMT_EVENTS,
		    O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return; /* the old one still takes the lines */
	/* the one the other writer made, unless swapped meanwhile */
	if (fstat(fd, &st) || adoptable(&st, rot->uid)) {
		close(fd);
		return;
	}
	use_fd(log, fd);
	log->gen = rot->gen;
}

/*
 * The file passed half its share: events.jsonl becomes events.jsonl.1 (the
 * one before is lost), a new one is made (O_EXCL: ours), and its first line
 * says what was lost. Under rot->lock.
 */
static void rot_rotate(struct eventlog *log)
{
	struct eventlog_rot *rot = log->rot;
	char line[512];
	struct stat st;
	uint64_t lost = 0;
	int fd, n;

	if (!fstatat(rot->dirfd, SNAPFMT_EVENTS ".1", &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISREG(st.st_mode))
		lost = (uint64_t)st.st_size;
	if (renameat(rot->dirfd, SNAPFMT_EVENTS, rot->dirfd, SNAPFMT_EVENTS ".1"))
		return;
	fd = openat(rot->dirfd, SNAPFMT_EVENTS,
		    O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return; /* the lines go on to events.jsonl.1 */
	if (rot->uid != -1 && fchown(fd, rot->uid, rot->gid)) {
		/* not the user's to read: better none than a root file there */
		unlinkat(rot->dirfd, SNAPFMT_EVENTS, 0);
		close(fd);
		return;
	}
	use_fd(log, fd);
	rot->gen++;
	log->gen = rot->gen;
	rot->lost_bytes += lost;
	n = snprintf(line, sizeof(line),
		     "{\"event\":\"warning\",\"ts\":%" PRIu64 ",\"pid\":0%s%s%s,\"reason\":"
		     "\"events_rotated\",\"max_bytes\":%" PRIu64 ",\"lost_bytes\":%" PRIu64 ","
		     "\"lost_total\":%" PRIu64 "}\n",
		     clock_now_ns(), log->run[0] ? ",\"run\":\"" : "", log->run,
		     log->run[0] ? "\"" : "", rot->cap, lost, rot->lost_bytes);
	rot->bytes = write(fd, line, (size_t)n) == n ? (uint64_t)n : 0;
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
	uint64_t v = 0;
	struct timespec ts;

	/* unique enough to tell runs apart; not a secret */
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		v = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		    ((uint64_t)getpid() << 40);
	}
	snprintf(buf, EVENTLOG_RUN_LEN + 1, "%016" PRIx64, v);
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
 * Keeps EVENTLOG_RESERVE bytes allocated past the file's end, renewed
 * after each quarter of it that @log wrote (@wrote bytes now): a system
 * call or two each 16 KiB, not each line. With the other writer's lines,
 * half of it is left at least. A failure (the disk full already) leaves
 * what was reserved; a filesystem without fallocate(2) is not asked again.
 */
static void reserve(struct eventlog *log, size_t wrote)
{
	uint64_t want;
	off_t end;

	log->unreserved += wrote;
	if (log->no_reserve || log->fd < 0 || log->unreserved < EVENTLOG_RESERVE / 4)
		return;
	log->unreserved = 0;
	/* O_APPEND writes go there, whoever wrote last */
	end = lseek(log->fd, 0, SEEK_END);
	if (end < 0)
		return;
	want = (uint64_t)end + EVENTLOG_RESERVE;
	/* with --max-size the file rotates there: its share holds no more */
	if (log->rot && want > log->rot->cap / 2)
		want = log->rot->cap / 2;
	if (want <= (uint64_t)end)
		return;
	if (!fallocate(log->fd, FALLOC_FL_KEEP_SIZE, end, (off_t)(want - (uint64_t)end)))
		log->reserved = true;
	else if (errno == EOPNOTSUPP || errno == ENOSYS)
		log->no_reserve = true;
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
	reserve(log, (size_t)n);
	return 0;
}

static int fail(struct eventlog *log, int ret)
{
	if (!log->err)
		log->err = ret;
	return ret;
}

static int write_line(struct eventlog *log);

int eventlog_end(struct eventlog *log)
{
	struct json *j = &log->j;
	int ret;

	json_obj_end(j);
	ret = json_finish(j);
	if (ret)
		return ret;
	j->buf[j->len++] = '\n'; /* json_finish left room for the NUL */
	if (log->fd < 0)
		return -EBADF;
	if (log->rot) {
		pthread_mutex_lock(&log->rot->lock);
		rot_follow(log);
		ret = write_line(log);
		if (!ret) {
			log->rot->bytes += j->len;
			if (log->rot->bytes > log->rot->cap / 2)
				rot_rotate(log);
		}
		pthread_mutex_unlock(&log->rot->lock);
		return ret;
	}
	return write_line(log);
}

/* Writes the line built in log->j, after those that wait. */
static int write_line(struct eventlog *log)
{
	struct json *j = &log->j;
	ssize_t n;
	int ret;

	log->used = true;
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
	reserve(log, j->len);
	return 0;
}

bool eventlog_waiting(const struct eventlog *log)
{
	return log && log->fd >= 0 && log->pending_len;
}

int eventlog_flush(struct eventlog *log)
{
	int ret;

	if (!eventlog_waiting(log))
		return 0;
	if (!log->rot)
		return flush_pending(log);
	pthread_mutex_lock(&log->rot->lock);
	rot_follow(log);
	ret = flush_pending(log);
	pthread_mutex_unlock(&log->rot->lock);
	return ret;
}

void eventlog_trim(struct eventlog *log)
{
	struct stat st;

	if (log->fd < 0 || !log->reserved)
		return;
	/* to the same size: the blocks past the end go back */
	if (!fstat(log->fd, &st) && ftruncate(log->fd, st.st_size) == 0)
		log->reserved = false;
}

void eventlog_close(struct eventlog *log)
{
	if (log->fd >= 0) {
		flush_pending(log);
		close(log->fd);
	}
	log->fd = -1;
}

bool eventlog_drop_unused(struct eventlog *log, int dirfd)
{
	struct stat mine, named;

	if (log->fd < 0 || !log->created || log->used || dirfd < 0 || fstat(log->fd, &mine) ||
	    mine.st_size)
		return false;
	/* the name is looked at last: a file put there since is not ours */
	if (fstatat(dirfd, SNAPFMT_EVENTS, &named, AT_SYMLINK_NOFOLLOW) ||
	    named.st_dev != mine.st_dev || named.st_ino != mine.st_ino)
		return false;
	return !unlinkat(dirfd, SNAPFMT_EVENTS, 0);
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
