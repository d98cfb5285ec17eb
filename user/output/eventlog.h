/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OUT/events.jsonl: one JSON object per line, written with one write(2) so
 * a reader never sees half a line. Building a line allocates nothing.
 *
 *	struct json *j = eventlog_begin(log, "stop", ts, pid);
 *	json_u64(j, "tid", tid);
 *	eventlog_end(log);
 */
#ifndef PTBPF_EVENTLOG_H
#define PTBPF_EVENTLOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* A line holds a path of PATH_MAX bytes even when every byte is escaped. */
#define EVENTLOG_LINE_MAX (8 * 4096)
/*
 * Lines a write could not put down (a full disk) wait here, in order, and
 * go before the next line or at close: the disk frees up when the writer
 * removes a snapshot it could not finish.
 */
#define EVENTLOG_PENDING_MAX (64 * 1024)
/*
 * Room kept allocated past the end of events.jsonl (fallocate(2),
 * FALLOC_FL_KEEP_SIZE): when snapshots fill the disk, the lines that say
 * so (snapshot_error, the stops after it) still have blocks of their own.
 * Renewed after each quarter of it a writer wrote (half of it is left at
 * least with both writers); with --max-size never past the point
 * of rotation, so the share holds it; given back by eventlog_trim().
 */
#define EVENTLOG_RESERVE (64 * 1024)
/* "run": 16 hex digits, new for every run of ptbpf */
#define EVENTLOG_RUN_LEN 16

/*
 * --max-size covers events.jsonl too: its share of the budget is @cap
 * bytes, the file and its one older generation, events.jsonl.1, together.
 * Past @cap / 2 the file is rotated: events.jsonl.1 (what it held is lost,
 * counted) is replaced by it, and a new events.jsonl begins with a
 * `warning` ("events_rotated") that says so. Both writers of the file (the
 * control and the snapshot writer thread) share one of these.
 */
struct eventlog_rot {
	pthread_mutex_t lock;
	int dirfd, uid, gid;
	uint64_t cap; /* bytes of events.jsonl and events.jsonl.1 */
	uint64_t bytes; /* in events.jsonl now */
	unsigned int gen; /* rotations so far: a writer with an older one reopens */
	uint64_t lost_bytes; /* of the generations removed */
};

/*
 * events.jsonl's share of --max-size @max_size: an eighth, 64 KiB to 64
 * MiB, at most half. The snapshots get the rest.
 */
uint64_t eventlog_share(uint64_t max_size);

struct eventlog {
	struct eventlog_rot *rot; /* NULL: no --max-size, the file only grows */
	unsigned int gen;
	int fd;
	int err; /* first write error, 0 or -errno */
	bool reserved; /* blocks past the file's end are ours to give back */
	uint64_t unreserved; /* bytes written since the reserve was renewed */
	bool no_reserve; /* the filesystem has no fallocate(2) */
	bool created; /* events.jsonl was made by eventlog_open() */
	bool used; /* a line was written, or tried */
	char run[EVENTLOG_RUN_LEN + 1]; /* "" until eventlog_set_run() */
	struct json j;
	char line[EVENTLOG_LINE_MAX];
	size_t pending_len; /* bytes waiting in pending[] */
	uint64_t dropped; /* lines that found pending[] full */
	char pending[EVENTLOG_PENDING_MAX];
};

/* Not open yet (fd -1): eventlog_close() is safe, lines go nowhere. */
void eventlog_init(struct eventlog *log);

/*
 * Opens (appends to) events.jsonl inside the directory @dirfd. A new one is
 * created (O_EXCL, mode 0600) and chowned to @uid/@gid unless they are -1;
 * one that is there is used only if it is a regular file with one link,
 * owned by us or by @uid, and is never chowned (a hard link planted by the
 * user who owns the directory would hand them the file it links to). It
 * never waits in open(2): a FIFO or anything else is refused.
 * Returns 0 or -errno: -EINVAL or -ENXIO (not a regular file), -ELOOP (a
 * symlink), -EMLINK (more than one link), -EPERM (another owner), -EAGAIN
 * (swapped while opened); eventlog_refusal() says them in words.
 */
int eventlog_open(struct eventlog *log, int dirfd, int uid, int gid);
/*
 * Starts @rot for the directory @dirfd (@uid/@gid own a new file) with
 * @cap bytes for the events, and makes @log rotate with it; its file's
 * size now counts. Returns 0 or -errno.
 */
int eventlog_rot_init(struct eventlog_rot *rot, struct eventlog *log, int dirfd, int uid, int gid,
		      uint64_t cap);
/* Makes @log (opened later, on the same directory) rotate with @rot. */
void eventlog_rot_join(struct eventlog *log, struct eventlog_rot *rot);

/* Why eventlog_open() refused the file that is there, or NULL. */
const char *eventlog_refusal(int ret);
/*
 * Every line from now on says which run wrote it ("run": @run, 16 hex
 * digits from eventlog_new_run()): runs of ptbpf one after the other append
 * to one events.jsonl.
 */
void eventlog_set_run(struct eventlog *log, const char *run);
/* A new run id into @buf (EVENTLOG_RUN_LEN + 1 bytes). */
void eventlog_new_run(char *buf);
/* Starts a line with "event", "ts" (CLOCK_MONOTONIC ns), "pid" and "run". */
struct json *eventlog_begin(struct eventlog *log, const char *event, uint64_t ts, int pid);
/*
 * Ends and writes the line, after any that wait from a failed write.
 * Returns 0 or -errno (and keeps it in err); a line that could not be
 * written waits (up to EVENTLOG_PENDING_MAX bytes) for the next call.
 */
int eventlog_end(struct eventlog *log);
/* Lines wait from a failed write (a full disk, a stalled pipe). */
bool eventlog_waiting(const struct eventlog *log);
/*
 * Writes the lines that wait, if it can now: a full disk that freed room
 * (a failed snapshot removed) must not hold a stop line until the next
 * event, which a stopped target may never cause. Returns 0 when none is
 * left waiting, or -errno.
 */
int eventlog_flush(struct eventlog *log);
/*
 * Gives back the room reserved past the file's end (EVENTLOG_RESERVE).
 * Only when no other writer of the file is left (the output directory is
 * locked to one run): a line appended meanwhile would be cut.
 */
void eventlog_trim(struct eventlog *log);
/* Writes what waits, if it can, and closes the file. */
void eventlog_close(struct eventlog *log);
/*
 * A run that failed at setup leaves no empty events.jsonl behind: removes
 * the file from the directory @dirfd when @log made it, no line went to it
 * through @log, it is still empty (the snapshot writer's log writes to it
 * too) and the name still is that file. One that was there before is kept,
 * as is one a run wrote to. Call before eventlog_close().
 * Returns true when it removed the file.
 */
bool eventlog_drop_unused(struct eventlog *log, int dirfd);

/* "breakpoint" for PTBPF_STOP_BREAKPOINT...; NULL for unknown. */
const char *eventlog_stop_kind(unsigned int kind);

#endif /* PTBPF_EVENTLOG_H */
