// SPDX-License-Identifier: GPL-2.0
/*
 * snapstage.c and snapqueue.c: the bounded queue between the control path
 * and the writer.
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

#include "collect/cores.h"
#include "output/eventlog.h"
#include "sim_pmu.h"
#include "snapwire.h"
#include "testio.h"

#define PID 4242
#define NCPU 2

struct fx {
	char root[64], out[64], proc[96], maps[128];
	struct sim_pmu *sim;
	struct cores *cores;
	struct snapwire w; /* the writer, as main.c wires it */
	struct snap_run run; /* what the stager is given */
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
	if (!f->cores || f->outfd < 0 || eventlog_open(&f->log, f->outfd, -1, -1))
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
	static const char line[] = "00400000-00401000 r-xp 00000000 08:01 42 /bin/true\n";
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
		assert_int_equal(pthread_create(&f->feeder, NULL, feeder, f), 0);
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
	snapwire_stop(&f->w);
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

/* The run's facts as main.c gives them: the cores', and the target. */
static const struct snap_run *describe(struct fx *f)
{
	memset(&f->run, 0, sizeof(f->run));
	assert_int_equal(cores_describe(f->cores, &f->run), 0);
	f->run.pid = PID;
	return &f->run;
}

static int64_t stage(struct fx *f, int i)
{
	return snapstage_stage(f->w.stage, &(struct snap_cause){
						   .kind = SNAPCAUSE_STOP,
						   .ts = i,
						   .sig = 19,
					   });
}

/* The writer as main.c wires it, with @qc's queue and limits; resumed. */
static struct snapstage *wire(struct fx *f, struct snapqueue_config *qc)
{
	struct snapstage_config sc = { .run = describe(f), .first_id = 1, .verbosity = -1 };
	struct snapwrite_opts wo = {
		.out_dir = f->out,
		.dirfd = f->outfd,
		.uid = -1,
		.gid = -1,
		.formats = 1,
	};
	char err[256];

	assert_non_null(
		snapwire_start(&f->w, &wo, &sc, qc, f->cores, &f->log, f->proc, err, sizeof(err)));
	assert_int_equal(cores_resume_all(f->cores, &(uint64_t){ 0 }), 0);
	return f->w.stage;
}

static void test_full_queue_drops_oldest(void **state)
{
	struct fx *f = *state;
	struct snapqueue_config qc = {
		.queue_len = 1, /* one waiting, one being written */
		.verbosity = -1,
	};
	char path[160], *log;
	size_t len;
	int i, dirs = 0;

	wire(f, &qc);
	/* five stops in a row while the writer is stuck on the first */
	for (i = 1; i <= 5; i++) {
		assert_int_equal(sim_pmu_sample(f->sim, 0, PID, PID, 0x400100), 1);
		assert_int_equal(stage(f, i), i);
	}
	unblock(f);
	assert_int_equal(snapwire_stop(&f->w), 2);
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

static struct snapstage *start_writer(struct fx *f, unsigned long long max, unsigned int keep)
{
	struct snapqueue_config qc = {
		.verbosity = -1,
		.max_size = max,
		.max_snapshots = keep,
	};

	unblock(f);
	return wire(f, &qc);
}

static char *events(struct fx *f)
{
	char path[160];
	size_t len;

	snprintf(path, sizeof(path), "%s/events.jsonl", f->out);
	return read_whole(path, &len);
}

/* No new bytes on any core: nothing is written, and an event says so. */
static void test_no_new_bytes_is_skipped(void **state)
{
	struct fx *f = *state;
	char path[160], *log;

	start_writer(f, 0, 0);
	assert_int_equal(sim_pmu_sample(f->sim, 1, PID, PID, 0x400100), 1);
	assert_int_equal(stage(f, 1), 1);
	assert_int_equal(stage(f, 2), -ENODATA); /* nothing since the first */
	assert_int_equal(sim_pmu_sample(f->sim, 0, PID, PID, 0x400200), 1);
	assert_int_equal(stage(f, 3), 2); /* the skipped one used no id */
	assert_int_equal(snapwire_stop(&f->w), 2);
	log = events(f);
	assert_non_null(log);
	assert_int_equal(count(log, "\"event\":\"snapshot_skipped\""), 1);
	assert_non_null(strstr(log, "\"trigger_ts\":2,\"reason\":\"no new bytes\""));
	snprintf(path, sizeof(path), "%s/snapshot-000003", f->out);
	assert_int_not_equal(access(path, F_OK), 0);
	free(log);
}

/* Sum of the regular files' sizes under every snapshot directory. */
static unsigned long long dir_bytes(const char *out)
{
	char cmd[256];
	unsigned long long n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "find %s -mindepth 2 -type f -printf '%%s\\n' | awk '{s+=$1} END {print s+0}'",
		 out);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llu", &n), 1);
	pclose(p);
	return n;
}

/* Waits (5 s at most) until the writer logged snapshot @id. */
static void wait_written(struct fx *f, int id)
{
	char pat[64], *log = NULL;
	int tries;

	snprintf(pat, sizeof(pat), "\"snapshot\":%d,\"path\"", id);
	for (tries = 0; tries < 500; tries++) {
		free(log);
		log = events(f);
		if (log && strstr(log, pat))
			break;
		usleep(10000);
	}
	assert_non_null(log);
	if (!strstr(log, pat))
		fail_msg("no %s in:\n%s", pat, log);
	free(log);
}

/*
 * --max-size: after every snapshot the directory holds at most that many
 * bytes, the newest is there, and each removal is an event.
 */
static void test_max_size_removes_oldest(void **state)
{
	struct fx *f = *state;
	/*
	 * 256 KiB, of which events.jsonl's share is 64 KiB: a snapshot's estimate
	 * (its bytes, 64 KiB of headroom, a block for each file) fits the rest
	 */
	const unsigned long long max = 256 << 10;
	unsigned long long used;
	char path[160], *log;
	int i, j;

	start_writer(f, max, 0);
	for (i = 1; i <= 12; i++) {
		for (j = 0; j < 400; j++)
			sim_pmu_sample(f->sim, j & 1, PID, PID, 0x400000 + j);
		assert_int_equal(stage(f, i), i);
		wait_written(f, i);
		used = dir_bytes(f->out);
		assert_true(used <= max);
		snprintf(path, sizeof(path), "%s/snapshot-%06d", f->out, i);
		assert_int_equal(access(path, F_OK), 0);
	}
	assert_int_equal(snapwire_stop(&f->w), 12);
	log = events(f);
	assert_non_null(log);
	/* about 50 KiB each on disk, 115 KiB estimated: two or three stay */
	assert_true(count(log, "\"reason\":\"max_size\"") >= 8);
	assert_int_equal(count(log, "\"event\":\"snapshot_removed\""),
			 count(log, "\"reason\":\"max_size\""));
	snprintf(path, sizeof(path), "%s/snapshot-000001", f->out);
	assert_int_not_equal(access(path, F_OK), 0);
	free(log);
}

/* -n alone: the count, reported as such. */
static void test_max_snapshots_reported(void **state)
{
	struct fx *f = *state;
	char *log;
	int i;

	start_writer(f, 0, 2);
	for (i = 1; i <= 4; i++) {
		sim_pmu_sample(f->sim, 0, PID, PID, 0x400000 + i);
		assert_int_equal(stage(f, i), i);
		wait_written(f, i);
	}
	assert_int_equal(snapwire_stop(&f->w), 4);
	log = events(f);
	assert_non_null(log);
	assert_int_equal(count(log, "\"reason\":\"max_snapshots\""), 2);
	assert_non_null(strstr(log, "\"snapshot\":2,\"bytes\""));
	free(log);
}

/*
 * A stager needs its run's facts, cores and queue, a queue how to write
 * and its readings of /proc; NULL is fine where it says.
 */
static void test_start_invalid(void **state)
{
	struct fx *f = *state;
	struct snapstage_config sc = { .first_id = 1 };
	struct snapqueue_config qc = { 0 };
	struct snapqueue *q = (struct snapqueue *)f; /* never used: refused before */
	char err[256];

	unblock(f);
	memset(err, 'x', sizeof(err));
	errno = 0;
	assert_null(snapstage_start(&sc, f->cores, q, &f->log, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(err, "can't set up snapshot staging: Invalid argument");
	sc.run = describe(f);
	assert_null(snapstage_start(&sc, NULL, q, &f->log, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_null(snapstage_start(&sc, f->cores, NULL, &f->log, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	assert_null(snapstage_start(NULL, f->cores, q, &f->log, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(snapqueue_start(NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(snapqueue_start(&qc)); /* no write options, no readings */
	assert_int_equal(errno, EINVAL);
	snapstage_stop(NULL);
	assert_int_equal(snapqueue_stop(NULL), 0);
	snapqueue_follow(NULL, 1, false);
	snapqueue_refresh_proc(NULL);
	proccache_note_thread(NULL, 1, "x");
	assert_int_equal(proccache_follow(NULL, 1, false), -EINVAL);
	assert_int_equal(cores_describe(NULL, &f->run), -EINVAL);
	assert_int_equal(cores_describe(f->cores, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_new_bytes_is_skipped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_size_removes_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_snapshots_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_queue_drops_oldest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_invalid, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
