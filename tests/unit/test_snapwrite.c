// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot directory tests: the layout a user finds, modes and owner,
 * atomic rename, refusal to overwrite, cleanup after a full disk (a 1 MiB
 * tmpfs, when root), rotation, and the short-write loop underneath.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <sys/mman.h>

#include "output/fileout.h"
#include "output/snapwrite.h"
#include "testio.h"
#include "proc/vdso.h"
#include "snapfmt.h"

struct fixture {
	char dir[64];
	bool mounted;
	struct snapshot snap;
	struct snap_core core[2];
	struct snap_thread thr;
	struct snap_map map;
	__u8 pt[64];
	__u8 *big;
	struct snapwrite_opts o;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct snapshot *s;
	unsigned int i;

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-snapwrite-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	s = &fx->snap;
	s->id = 7;
	s->run.backend = BACKEND_INTEL_PT;
	s->why.kind = SNAPCAUSE_STOP;
	s->run.pid = 4242;
	s->run.data_attr.type = 8;
	s->run.sb_attr.type = PERF_TYPE_SOFTWARE;
	s->run.sb_attr.config = PERF_COUNT_SW_DUMMY;
	s->run.sb_attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	s->run.sb_attr.sample_id_all = 1;
	strcpy(s->run.cpu_info.vendor, "GenuineIntel");
	memset(fx->pt, 0x02, sizeof(fx->pt)); /* PT bytes of some kind */
	for (i = 0; i < 2; i++) {
		fx->core[i].cpu = (int)i * 3; /* cpus 0 and 3 */
		fx->core[i].trace = fx->pt;
		fx->core[i].trace_len = sizeof(fx->pt);
		fx->core[i].tsc = 1000;
	}
	s->nr_cores = 2;
	s->cores = fx->core;
	s->proc.pid = 4242;
	strcpy(s->proc.comm, "target");
	fx->thr.tid = 4242;
	strcpy(fx->thr.comm, "target");
	s->proc.nr_threads = 1;
	s->proc.threads = &fx->thr;
	fx->map.start = 0x400000;
	fx->map.len = 0x1000;
	fx->map.prot = PROT_READ | PROT_EXEC;
	fx->map.path = "/usr/bin/true";
	s->proc.nr_maps = 1;
	s->proc.maps = &fx->map;
	fx->o.out_dir = fx->dir;
	fx->o.dirfd = -1;
	fx->o.uid = fx->o.gid = -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	if (fx->mounted)
		umount2(fx->dir, MNT_DETACH);
	rm_tree(fx->dir);
	free(fx->big);
	free(fx);
	return 0;
}

static void assert_mode(const char *dir, const char *name, mode_t mode, uid_t uid)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(lstat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal(st.st_uid, uid);
}

/* Names in @dir, sorted and joined with spaces. */
static void listing(const char *dir, char *out, size_t len)
{
	struct dirent **ents;
	int n, i;

	out[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n >= 0);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, "..")) {
			if (out[0])
				strncat(out, " ", len - strlen(out) - 1);
			strncat(out, ents[i]->d_name, len - strlen(out) - 1);
		}
		free(ents[i]);
	}
	free(ents);
}

struct layout_case {
	enum ptbpf_backend backend;
	unsigned int formats;
	const char *top; /* what the snapshot directory holds */
	const char *cpus; /* what cpus/ holds, NULL: no cpus/ */
	const char *files; /* ptbpf.json's "files": what is there */
};

static void test_layout(void **state)
{
	static const struct layout_case cases[] = {
		{ BACKEND_INTEL_PT, 0, "cpus perf.data ptbpf.json trace.json",
		  "0.intelpt_trace 0.perf_context_switch_trace "
		  "3.intelpt_trace 3.perf_context_switch_trace",
		  "\"files\":{\"perf\":true,\"lldb\":true}" },
		{ BACKEND_INTEL_PT, SNAPWRITE_PERF, "perf.data ptbpf.json", NULL,
		  "\"files\":{\"perf\":true,\"lldb\":false}" },
		{ BACKEND_INTEL_PT, SNAPWRITE_LLDB, "cpus ptbpf.json trace.json",
		  "0.intelpt_trace 0.perf_context_switch_trace "
		  "3.intelpt_trace 3.perf_context_switch_trace",
		  "\"files\":{\"perf\":false,\"lldb\":true}" },
		/* samples have no LLDB bundle, whatever was asked */
		{ BACKEND_SAMPLE, 0, "perf.data ptbpf.json", NULL,
		  "\"files\":{\"perf\":true,\"lldb\":false}" },
		{ BACKEND_SAMPLE, SNAPWRITE_LLDB, "perf.data ptbpf.json", NULL,
		  "\"files\":{\"perf\":true,\"lldb\":false}" },
	};
	struct fixture *fx = *state;
	char path[256], want[128], got[256], sub[300], *json;
	unsigned int i;
	size_t len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx->snap.id = i + 1;
		fx->snap.run.backend = cases[i].backend;
		fx->core[0].trace_len = fx->core[1].trace_len =
			cases[i].backend == BACKEND_SAMPLE ? 0 : 64;
		fx->o.formats = cases[i].formats;
		memset(path, 'x', sizeof(path));
		assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, path, sizeof(path), NULL, 0),
				 0);
		snprintf(want, sizeof(want), "%s/snapshot-%06u", fx->dir, i + 1);
		assert_string_equal(path, want);
		listing(path, got, sizeof(got));
		assert_string_equal(got, cases[i].top);
		if (cases[i].cpus) {
			snprintf(sub, sizeof(sub), "%s/cpus", path);
			listing(sub, got, sizeof(got));
			assert_string_equal(got, cases[i].cpus);
			assert_mode(path, "cpus", 0700, getuid());
			assert_mode(path, "cpus/3.intelpt_trace", 0600, getuid());
		}
		assert_mode(fx->dir, path + strlen(fx->dir) + 1, 0700, getuid());
		assert_mode(path, "ptbpf.json", 0600, getuid());
		snprintf(sub, sizeof(sub), "%s/ptbpf.json", path);
		json = read_whole(sub, &len);
		if (!strstr(json, cases[i].files))
			fail_msg("case %u: no %s in %s", i, cases[i].files, json);
		free(json);
	}
	/* no temporary directory stays behind */
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, "snapshot-000001 snapshot-000002 "
				 "snapshot-000003 snapshot-000004 "
				 "snapshot-000005");
}

/* Stops and --trigger-on hits folded in are told apart in ptbpf.json. */
static void test_folded_counts(void **state)
{
	struct fixture *fx = *state;
	char path[256], sub[300], *json;
	size_t len;

	fx->snap.why.folded = 1;
	fx->snap.why.folded_hits = 48;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, path, sizeof(path), NULL, 0), 0);
	snprintf(sub, sizeof(sub), "%s/ptbpf.json", path);
	json = read_whole(sub, &len);
	assert_non_null(strstr(json, "\"folded_stops\":1,"));
	assert_non_null(strstr(json, "\"folded_hits\":48"));
	free(json);
}

static void test_ipt_bytes_and_owner(void **state)
{
	struct fixture *fx = *state;
	char path[256], p[300];
	__u8 buf[128];
	int fd;

	if (geteuid() != 0)
		skip();
	fx->o.uid = 65534;
	fx->o.gid = 65534;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, path, sizeof(path), NULL, 0), 0);
	assert_mode(fx->dir, "snapshot-000007", 0700, 65534);
	assert_mode(path, "perf.data", 0600, 65534);
	assert_mode(path, "cpus/0.perf_context_switch_trace", 0600, 65534);
	snprintf(p, sizeof(p), "%s/cpus/3.intelpt_trace", path);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), sizeof(fx->pt));
	assert_memory_equal(buf, fx->pt, sizeof(fx->pt));
	close(fd);
}

/*
 * The vDSO image: written as vdso.so (0600, new, its bytes) and named in
 * ptbpf.json when a 64-bit target maps it, counted in the estimate; not
 * for a 32-bit target, whose [vdso] ptbpf.json says is not saved.
 */
static void test_vdso_file(void **state)
{
	struct fixture *fx = *state;
	char path[256], p[300], got[256], *json;
	struct vdso_image img;
	__u8 buf[16384];
	size_t len;
	uint64_t plain, with;
	int fd;

	assert_int_equal(vdso_image_read(NULL, &img), 0);
	assert_true(img.len <= sizeof(buf));
	fx->snap.run.backend = BACKEND_SAMPLE;
	fx->core[0].trace_len = fx->core[1].trace_len = 0; /* no records */
	fx->o.formats = SNAPWRITE_PERF;
	plain = snapwrite_estimate(&fx->snap, fx->o.formats, 0, 4096);
	fx->snap.run.vdso = &img;
	fx->snap.proc.vdso = SNAP_VDSO_NATIVE;
	with = snapwrite_estimate(&fx->snap, fx->o.formats, 0, 4096);
	assert_int_equal(with - plain, (img.len + 4095) / 4096 * 4096);
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, path, sizeof(path), NULL, 0), 0);
	listing(path, got, sizeof(got));
	assert_string_equal(got, "perf.data ptbpf.json vdso.so");
	assert_mode(path, "vdso.so", 0600, getuid());
	snprintf(p, sizeof(p), "%s/vdso.so", path);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), img.len);
	assert_memory_equal(buf, img.data, img.len);
	close(fd);
	snprintf(p, sizeof(p), "%s/ptbpf.json", path);
	json = read_whole(p, &len);
	snprintf(got, sizeof(got), "\"vdso\":{\"file\":\"vdso.so\",\"bytes\":%zu}", img.len);
	if (!strstr(json, got) || !strstr(json, "\"vdso\":\"vdso.so\""))
		fail_msg("no %s in %s", got, json);
	free(json);

	/* a 32-bit target: its vDSO is not ptbpf's, none is written */
	fx->snap.id++;
	fx->snap.proc.vdso = SNAP_VDSO_OTHER;
	assert_int_equal(snapwrite_estimate(&fx->snap, fx->o.formats, 0, 4096), plain);
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, path, sizeof(path), NULL, 0), 0);
	listing(path, got, sizeof(got));
	assert_string_equal(got, "perf.data ptbpf.json");
	snprintf(p, sizeof(p), "%s/ptbpf.json", path);
	json = read_whole(p, &len);
	assert_null(strstr(json, "\"file\":\"vdso.so\""));
	assert_non_null(strstr(json, "\"vdso\":\"not saved: "));
	free(json);
}

/* An existing snapshot or temp dir is never overwritten or removed. */
static void test_refuses_existing(void **state)
{
	struct fixture *fx = *state;
	char err[256], p[256], got[256];

	snprintf(p, sizeof(p), "%s/snapshot-000007", fx->dir);
	assert_int_equal(mkdir(p, 0700), 0);
	memset(err, 'x', sizeof(err));
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "snapshot-000007: File exists"));
	assert_int_equal(rmdir(p), 0);
	/* a symlink at the temporary name is refused, not followed nor removed */
	snprintf(p, sizeof(p), "%s/.snapshot-000007.tmp", fx->dir);
	assert_int_equal(symlink("/tmp", p), 0);
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)), -EEXIST);
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, ".snapshot-000007.tmp");
	unlink(p);
}

/*
 * A temporary directory a killed run left (with files, as mid-snapshot):
 * the snapshot of that number is written all the same, over it.
 */
static void test_stale_tmp_replaced(void **state)
{
	struct fixture *fx = *state;
	char err[256], p[256], got[256];
	int fd;

	snprintf(p, sizeof(p), "%s/.snapshot-000007.tmp", fx->dir);
	assert_int_equal(mkdir(p, 0700), 0);
	strcat(p, "/perf.data");
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "PERFILE2", 8), 8);
	close(fd);
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)), 0);
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, "snapshot-000007");
}

/*
 * snapwrite_remove_stale(): every temporary directory of ours goes, with
 * what it held counted; other names, and a symlink with our name (its
 * target untouched), stay.
 */
static void test_remove_stale(void **state)
{
	static const char *const keep[] = { ".snapshot-1.tmp", ".snapshot-000011.tmpx",
					    "snapshot-000011.tmp", ".snapshot-0000011.tmp" };
	struct fixture *fx = *state;
	char p[256], got[512], target[256];
	uint64_t bytes;
	unsigned int i;
	int fd, dfd;

	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/.snapshot-%06u.tmp", fx->dir, i + 1);
		assert_int_equal(mkdir(p, 0700), 0);
		strcat(p, "/perf.data");
		fd = open(p, O_CREAT | O_WRONLY, 0600);
		assert_int_equal(write(fd, "0123456789", 10), 10);
		close(fd);
	}
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", fx->dir, keep[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(target, sizeof(target), "%s/snapshot-1", fx->dir);
	assert_int_equal(mkdir(target, 0700), 0);
	snprintf(p, sizeof(p), "%s/.snapshot-000003.tmp", fx->dir);
	assert_int_equal(symlink("snapshot-1", p), 0);
	dfd = open(fx->dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(snapwrite_remove_stale(dfd, &bytes), 2);
	assert_true(bytes >= 20); /* as the disk counts it: blocks */
	assert_int_equal(snapwrite_remove_stale(dfd, &bytes), 0);
	close(dfd);
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, ".snapshot-0000011.tmp .snapshot-000003.tmp .snapshot-000011.tmpx "
				 ".snapshot-1.tmp snapshot-000011.tmp snapshot-1");
	assert_int_equal(snapwrite_remove_stale(-1, NULL), -EBADF);
}

static void test_enospc_cleans_up(void **state)
{
	struct fixture *fx = *state;
	char err[256], got[256];
	unsigned int i;
	int ret;

	if (geteuid() != 0)
		skip();
	assert_int_equal(mount("tmpfs", fx->dir, "tmpfs", 0, "size=1m"), 0);
	fx->mounted = true;
	/* 2 cores x 768 KiB: the second core's file can't fit */
	fx->big = malloc(768 * 1024);
	assert_non_null(fx->big);
	memset(fx->big, 0x02, 768 * 1024);
	for (i = 0; i < 2; i++) {
		fx->core[i].trace = fx->big;
		fx->core[i].trace_len = 768 * 1024;
	}
	memset(err, 'x', sizeof(err));
	ret = snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err));
	assert_int_equal(ret, -ENOSPC);
	print_message("error: %s\n", err);
	assert_non_null(strstr(err, "snapshot 7: "));
	assert_non_null(strstr(err, "No space left on device"));
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, "");
	/* the next, smaller snapshot goes through */
	fx->core[0].trace_len = fx->core[1].trace_len = 4096;
	fx->snap.id = 8;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)), 0);
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, "snapshot-000008");
	assert_int_equal(umount(fx->dir), 0);
	fx->mounted = false;
}

static void test_vanished_dir(void **state)
{
	struct fixture *fx = *state;
	struct snapwrite_opts o = fx->o;
	char err[256], p[128];

	snprintf(p, sizeof(p), "%s/gone", fx->dir);
	o.out_dir = p;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "gone: No such file or directory"));
}

/*
 * The snapshots of a directory, highest id first (as numbers), strangers
 * and temporaries left out; one removed with what it holds.
 */
static void test_list_remove(void **state)
{
	struct fixture *fx = *state;
	char p[256], got[512];
	uint64_t *ids;
	unsigned int i;
	size_t n;
	int fd, dfd;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/snapshot-%06u", fx->dir, i == 2 ? 10 : i + 1);
		assert_int_equal(mkdir(p, 0700), 0);
		strcat(p, "/perf.data");
		fd = open(p, O_CREAT | O_WRONLY, 0600);
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/snapshot-1", fx->dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/.snapshot-000011.tmp", fx->dir);
	mkdir(p, 0700);
	dfd = open(fx->dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(snapwrite_list(dfd, &ids, &n), 0);
	assert_int_equal(n, 3);
	assert_true(ids[0] == 10 && ids[1] == 2 && ids[2] == 1);
	free(ids);
	assert_int_equal(snapwrite_remove(dfd, 2), 0);
	listing(fx->dir, got, sizeof(got));
	assert_string_equal(got, ".snapshot-000011.tmp snapshot-000001 snapshot-000010 snapshot-1");
	assert_int_equal(snapwrite_remove(dfd, 2), -ENOENT);
	close(dfd);
	assert_int_equal(snapwrite_list(-1, &ids, &n), -EINVAL);
}

/*
 * The output directory swapped for a symlink after it was opened: the
 * snapshots and their removal stay in the directory that was opened, and
 * the symlink's target is not touched.
 */
static void test_swapped_dir(void **state)
{
	struct fixture *fx = *state;
	struct snapwrite_opts o = fx->o;
	char moved[300], other[300], p[400], got[512], err[256];
	unsigned long long first;
	int dfd;

	snprintf(moved, sizeof(moved), "%s/out", fx->dir);
	snprintf(other, sizeof(other), "%s/other", fx->dir);
	assert_int_equal(mkdir(moved, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	snprintf(p, sizeof(p), "%s/snapshot-000001", other);
	assert_int_equal(mkdir(p, 0700), 0); /* the removal must spare it */
	dfd = open(moved, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	snprintf(p, sizeof(p), "%s/out.moved", fx->dir);
	assert_int_equal(rename(moved, p), 0);
	assert_int_equal(symlink(other, moved), 0);
	o.out_dir = moved;
	o.dirfd = dfd;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, err, sizeof(err)), 0);
	first = fx->snap.id;
	fx->snap.id = 8;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, err, sizeof(err)), 0);
	assert_int_equal(snapwrite_remove(dfd, first), 0);
	listing(p, got, sizeof(got));
	assert_string_equal(got, "snapshot-000008");
	listing(other, got, sizeof(got));
	assert_string_equal(got, "snapshot-000001");
	close(dfd);
	unlink(moved);
}

static void test_invalid_args(void **state)
{
	struct fixture *fx = *state;
	struct snapwrite_opts o = fx->o;

	assert_int_equal(snapwrite_snapshot(NULL, &fx->o, NULL, 0, NULL, 0), -EINVAL);
	assert_int_equal(snapwrite_snapshot(&fx->snap, NULL, NULL, 0, NULL, 0), -EINVAL);
	o.out_dir = NULL;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, NULL, 0), -EINVAL);
	/* past the names' range: refused, and the reason said (never "") */
	fx->snap.id = SNAPFMT_ID_MAX + 1;
	{
		char err[256] = "";

		assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)),
				 -EINVAL);
		assert_string_equal(err, "snapshot 1000000000000: number outside 1 to "
					 "999999999999, the names' range");
	}
	/* a broken staged record: the error names the file */
	fx->snap.id = 3;
	fx->core[0].sideband = fx->pt;
	fx->core[0].sideband_len = 12;
	{
		char err[256], got[64];

		assert_int_equal(snapwrite_snapshot(&fx->snap, &fx->o, NULL, 0, err, sizeof(err)),
				 -EBADMSG);
		assert_non_null(strstr(err, "perf.data: Bad message"));
		listing(fx->dir, got, sizeof(got));
		assert_string_equal(got, "");
	}
}

/* A write function that takes at most 3 bytes a call, with an EINTR. */
static int calls;
static ssize_t short_write(int fd, const void *buf, size_t len)
{
	if (++calls == 2) {
		errno = EINTR;
		return -1;
	}
	return write(fd, buf, len < 3 ? len : 3);
}

static ssize_t fail_write(int fd, const void *buf, size_t len)
{
	if (++calls == 3) {
		errno = EIO;
		return -1;
	}
	return write(fd, buf, len < 3 ? len : 3);
}

static void test_short_writes(void **state)
{
	static const char msg[] = "0123456789abcdef";
	struct fixture *fx = *state;
	char p[128], buf[64];
	int fd;

	snprintf(p, sizeof(p), "%s/f", fx->dir);
	fd = open(p, O_CREAT | O_RDWR | O_EXCL, 0600);
	assert_true(fd >= 0);
	calls = 0;
	assert_int_equal(fileout_write_all(fd, msg, 16, short_write), 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 0), 16);
	assert_memory_equal(buf, msg, 16);
	calls = 0;
	assert_int_equal(fileout_write_all(fd, msg, 16, fail_write), -EIO);
	assert_int_equal(fileout_write_all(-1, msg, 16, NULL), -EINVAL);
	assert_int_equal(fileout_write_all(fd, NULL, 16, NULL), -EINVAL);
	close(fd);
}

/*
 * Which formats a backend writes comes from a fact of its row: perf.data
 * for every backend, the LLDB bundle where LLDB reads the trace; none for
 * a backend not resolved. A refused --format names the first backend of
 * the table that writes it.
 */
static void test_formats_by_row(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(snapwrite_formats_for(0, BACKEND_INTEL_PT), SNAPWRITE_ALL);
	assert_int_equal(snapwrite_formats_for(0, BACKEND_SAMPLE), SNAPWRITE_PERF);
	assert_int_equal(snapwrite_formats_for(SNAPWRITE_LLDB, BACKEND_SAMPLE), 0);
	assert_int_equal(snapwrite_formats_for(0, BACKEND_AUTO), 0);
	assert_int_equal(snapwrite_formats_for(0, (enum ptbpf_backend)99), 0);
	assert_int_equal(snapwrite_formats_check(SNAPWRITE_ALL, BACKEND_SAMPLE, err, sizeof(err)),
			 0);
	assert_int_equal(snapwrite_formats_check(SNAPWRITE_LLDB, BACKEND_SAMPLE, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--format lldb needs the intel-pt backend: the sample backend "
				 "writes perf (use --format perf)");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_layout),		  T(test_ipt_bytes_and_owner),
		T(test_refuses_existing), T(test_stale_tmp_replaced),
		T(test_remove_stale),	  T(test_enospc_cleans_up),
		T(test_vanished_dir),	  T(test_list_remove),
		T(test_swapped_dir),	  T(test_invalid_args),
		T(test_short_writes),	  T(test_folded_counts),
		T(test_vdso_file),	  cmocka_unit_test(test_formats_by_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
