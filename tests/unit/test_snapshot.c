// SPDX-License-Identifier: GPL-2.0
/*
 * snapshot.c: the bounded queue between the control path and the writer.
 * The writer is stalled on purpose: the fake /proc it reads has a FIFO for
 * maps, so it blocks in open() until the test lets it go. Staging must
 * never wait for it; when the queue is full the oldest waiting snapshot is
 * dropped with a snapshot_error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cores.h"
#include "eventlog.h"
#include "sim_pmu.h"
#include "snapshot.h"
#include "testio.h"

#define PID 4242
#define NCPU 2

struct fx {
	char root[64], out[64], proc[96], maps[128];
	struct sim_pmu *sim;
	struct cores *cores;
	struct snapshots *snaps;
	struct eventlog log;
	int outfd;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct cores_config cc;
	char path[160], err[256];

	strcpy(f->root, "/tmp/ptbpf-test-snq-XXXXXX");
	strcpy(f->out, "/tmp/ptbpf-test-sno-XXXXXX");
	if (!mkdtemp(f->root) || !mkdtemp(f->out))
		return -1;
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->root);
	snprintf(path, sizeof(path), "%s/%d", f->proc, PID);
	if (mkdir(f->proc, 0700) || mkdir(path, 0700))
		return -1;
	snprintf(f->maps, sizeof(f->maps), "%s/maps", path);
	if (mkfifo(f->maps, 0600))
		return -1;
	f->sim = sim_pmu_new(NCPU, 8);
	cores_config_init(&cc);
	cc.backend = BACKEND_SAMPLE;
	cc.buffer_size = 16 << 10;
	cc.sideband_size = 16 << 10;
	cc.sysfs_root = f->root;
	f->cores = cores_open(&cc, sim_pmu_ops(f->sim), err, sizeof(err));
	f->outfd = open(f->out, O_RDONLY | O_DIRECTORY);
	if (!f->cores || f->outfd < 0 ||
	    eventlog_open(&f->log, f->outfd, -1, -1))
		return -1;
	*state = f;
	return 0;
}

/* Lets the writer through: maps becomes a plain file with one mapping. */
static void unblock(struct fx *f)
{
	char tmp[160];
	FILE *w;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.new", f->maps);
	w = fopen(tmp, "w");
	assert_non_null(w);
	fputs("00400000-00401000 r-xp 00000000 08:01 42 /bin/true\n", w);
	fclose(w);
	/* the writer blocked in open(): give it a writer end, then EOF */
	fd = open(f->maps, O_WRONLY | O_NONBLOCK);
	assert_int_equal(rename(tmp, f->maps), 0);
	if (fd >= 0)
		close(fd);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unblock(f);
	snapshots_stop(f->snaps);
	cores_close(f->cores);
	eventlog_close(&f->log);
	sim_pmu_free(f->sim);
	close(f->outfd);
	rm_tree(f->root);
	rm_tree(f->out);
	free(f);
	return 0;
}

static int count(const char *text, const char *pat)
{
	const char *p;
	int n = 0;

	for (p = text; (p = strstr(p, pat)); p++)
		n++;
	return n;
}

static void test_full_queue_drops_oldest(void **state)
{
	struct fx *f = *state;
	struct snapshots_config sc = {
		.out_dir = f->out,
		.dirfd = f->outfd,
		.uid = -1,
		.gid = -1,
		.formats = 1,
		.queue_len = 1, /* one waiting, one being written */
		.pid = PID,
		.first_id = 1,
		.proc_root = f->proc,
		.verbosity = -1,
	};
	char err[256], path[160], *log;
	size_t len;
	int i, dirs = 0;

	f->snaps = snapshots_start(&sc, f->cores, &f->log, err, sizeof(err));
	assert_non_null(f->snaps);
	/* five stops in a row while the writer is stuck on the first */
	for (i = 1; i <= 5; i++)
		assert_int_equal(snapshots_stage(f->snaps, "stop", i, 19), i);
	unblock(f);
	assert_int_equal(snapshots_stop(f->snaps), 2);
	f->snaps = NULL;
	snprintf(path, sizeof(path), "%s/events.jsonl", f->out);
	log = read_whole(path, &len);
	assert_non_null(log);
	/* the writer had one and one waited: 3 of 5 were dropped unwritten */
	assert_int_equal(count(log, "\"event\":\"snapshot_error\""), 3);
	assert_int_equal(count(log, "dropped unwritten"), 3);
	assert_int_equal(count(log, "\"event\":\"snapshot\""), 2);
	/* the newest one always survives */
	assert_non_null(strstr(log, "\"snapshot\":5,\"path\""));
	for (i = 1; i <= 5; i++) {
		snprintf(path, sizeof(path), "%s/snapshot-%06d", f->out, i);
		dirs += access(path, F_OK) == 0;
	}
	assert_int_equal(dirs, 2);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_queue_drops_oldest,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
