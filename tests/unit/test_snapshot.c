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
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
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
	pthread_t feeder;
	bool feeding, stop_feeder;
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
	signal(SIGPIPE, SIG_IGN); /* the feeder may write to a reader gone */
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

/*
 * Lets the writer through, from now on: a feeder thread opens the FIFO
 * for writing (which completes the writer's blocked open), writes one
 * mapping and closes it (EOF), for every open the writer makes.
 */
static void *feeder(void *arg)
{
	static const char line[] =
		"00400000-00401000 r-xp 00000000 08:01 42 /bin/true\n";
	struct fx *f = arg;
	ssize_t n;
	int fd;

	while (!__atomic_load_n(&f->stop_feeder, __ATOMIC_ACQUIRE)) {
		fd = open(f->maps, O_WRONLY);
		if (fd < 0)
			break;
		/* a reader that went away needs no line: ignore EPIPE */
		n = write(fd, line, sizeof(line) - 1);
		(void)n;
		close(fd);
	}
	return NULL;
}

static void unblock(struct fx *f)
{
	if (!f->feeding)
		assert_int_equal(pthread_create(&f->feeder, NULL, feeder, f),
				 0);
	f->feeding = true;
}

static void stop_feeder(struct fx *f)
{
	int fd;

	if (!f->feeding)
		return;
	__atomic_store_n(&f->stop_feeder, true, __ATOMIC_RELEASE);
	/* a reader of our own completes the feeder's blocked open */
	fd = open(f->maps, O_RDONLY | O_NONBLOCK);
	pthread_join(f->feeder, NULL);
	if (fd >= 0)
		close(fd);
	f->feeding = false;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	unblock(f);
	snapshots_stop(f->snaps);
	stop_feeder(f);
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
