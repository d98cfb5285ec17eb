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

#include <stdint.h>

#include "json.h"

#define EVENTLOG_LINE_MAX 4096

struct eventlog {
	int fd;
	int err; /* first write error, 0 or -errno */
	struct json j;
	char line[EVENTLOG_LINE_MAX];
};

/*
 * Opens (appends to) events.jsonl inside the directory @dirfd, mode 0600,
 * refusing a symlink, and chowns it to @uid/@gid unless they are -1.
 * Returns 0 or -errno.
 */
int eventlog_open(struct eventlog *log, int dirfd, int uid, int gid);
/* Starts a line with "event", "ts" (CLOCK_MONOTONIC ns) and "pid". */
struct json *eventlog_begin(struct eventlog *log, const char *event,
			    uint64_t ts, int pid);
/* Ends and writes the line. Returns 0 or -errno (and keeps it in err). */
int eventlog_end(struct eventlog *log);
void eventlog_close(struct eventlog *log);

/* "SIGSEGV" for 11; "SIG42" for a signal without a name; NULL for 0. */
const char *signal_name(int sig, char *buf, size_t len);
/* CLOCK_MONOTONIC now, in ns: the clock of bpf_ktime_get_ns(). */
uint64_t now_ns(void);

#endif /* PTBPF_EVENTLOG_H */
