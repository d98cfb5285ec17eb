// SPDX-License-Identifier: GPL-2.0
/*
 * /proc reader tests: a maps line (mapline.c), a fake /proc tree, then the
 * real /proc/self.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/mapline.h"
#include "proc/procinfo.h"

struct map_case {
	const char *line;
	int ret;
	__u64 start, len, pgoff;
	__u32 prot, maj, min;
	__u64 ino;
	const char *path;
};

static const struct map_case map_cases[] = {
	{ "55d0c0a00000-55d0c0a21000 r-xp 00001000 fd:01 1835 /usr/bin/cat\n", 1, 0x55d0c0a00000,
	  0x21000, 0x1000, PROT_READ | PROT_EXEC, 0xfd, 1, 1835, "/usr/bin/cat" },
	/* a path with spaces, and the padding before it */
	{ "7f0000000000-7f0000001000 r-xp 00000000 08:02 42"
	  "                         /opt/my app/lib x.so\n",
	  1, 0x7f0000000000, 0x1000, 0, PROT_READ | PROT_EXEC, 8, 2, 42, "/opt/my app/lib x.so" },
	/* a removed file, a newline the kernel escaped, a non-UTF-8 byte */
	{ "1000-2000 --xp 00000000 00:00 7 /tmp/a\\012b\xff (deleted)\n", 1, 0x1000, 0x1000, 0,
	  PROT_EXEC, 0, 0, 7, "/tmp/a\\012b\xff (deleted)" },
	{ "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n", 1, 0x7ffd1000, 0x2000, 0,
	  PROT_READ | PROT_EXEC, 0, 0, 0, "[vdso]" },
	/* anonymous JIT code: executable, no path */
	{ "3000-4000 rwxp 00000000 00:00 0\n", 1, 0x3000, 0x1000, 0,
	  PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0, NULL },
	/* read-only file data (.eh_frame_hdr): kept for stack unwinding */
	{ "5000-6000 r--p 00000000 fd:01 9 /usr/lib/libc.so.6\n", 1, 0x5000, 0x1000, 0, PROT_READ,
	  0xfd, 1, 9, "/usr/lib/libc.so.6" },
	/* anonymous data: of no use to a reader */
	{ .line = "7000-8000 rw-p 00000000 00:00 0\n", .ret = 0 },
	{ .line = "5000-6000 r-xp", .ret = -EBADMSG },
	{ .line = "zz-6000 r-xp 00000000 fd:01 9 /x\n", .ret = -EBADMSG },
	{ .line = "6000-5000 r-xp 00000000 fd:01 9 /x\n", .ret = -EBADMSG },
	{ .line = "5000-6000 r-xp 00000000 fd01 9 /x\n", .ret = -EBADMSG },
	{ .line = "", .ret = -EBADMSG },
};

static void test_parse_map(void **state)
{
	struct snap_map m, garbage;
	unsigned int i;
	int ret;

	memset(&garbage, 0xa5, sizeof(garbage));
	for (i = 0; i < sizeof(map_cases) / sizeof(map_cases[0]); i++) {
		const struct map_case *c = &map_cases[i];

		m = garbage;
		ret = mapline_parse(c->line, &m);
		assert_int_equal(ret, c->ret);
		if (ret != 1) {
			/* nothing written for a skipped or bad line */
			assert_memory_equal(&m, &garbage, sizeof(m));
			continue;
		}
		assert_int_equal(m.start, c->start);
		assert_int_equal(m.len, c->len);
		assert_int_equal(m.pgoff, c->pgoff);
		assert_int_equal(m.prot, c->prot);
		assert_int_equal(m.maj, c->maj);
		assert_int_equal(m.min, c->min);
		assert_int_equal(m.ino, c->ino);
		if (c->path)
			assert_string_equal(m.path, c->path);
		else
			assert_null(m.path);
		free(m.path);
	}
	assert_int_equal(mapline_parse(NULL, &m), -EINVAL);
	assert_int_equal(mapline_parse("1-2 r-xp 0 0:0 0\n", NULL), -EINVAL);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void mk(const char *root, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0700), 0);
}

static void test_fake_tree(void **state)
{
	char root[] = "/tmp/ptbpf-procinfo-XXXXXX", p[PATH_MAX];
	char cmd[PATH_MAX + 16];
	struct snap_process pr;
	unsigned int i;

	assert_non_null(mkdtemp(root));
	mk(root, "123");
	mk(root, "123/task");
	for (i = 0; i < 3; i++) {
		static const char *const tids[] = { "130", "123", "125" };
		static const char *const names[] = { "worker\n", "fake\n", "" };

		snprintf(p, sizeof(p), "123/task/%s", tids[i]);
		mk(root, p);
		strcat(p, "/comm");
		put(root, p, names[i]);
	}
	mk(root, "123/task/not-a-tid");
	put(root, "123/comm", "fake\n");
	snprintf(p, sizeof(p), "%s/123/exe", root);
	assert_int_equal(symlink("/usr/bin/fake prog", p), 0);
	put(root, "123/maps",
	    "400000-401000 r--p 00000000 fd:01 1 /usr/bin/fake prog\n"
	    "401000-402000 r-xp 00001000 fd:01 1 /usr/bin/fake prog\n"
	    "3000-4000 rwxp 00000000 00:00 0\n"
	    "7f00000000-7f00001000 r-xp 00000000 fd:01 2 /lib/l\"q\".so\n");
	put(root, "123/statm", "1234 200 100 2 0 300 0\n");

	memset(&pr, 0xa5, sizeof(pr));
	assert_int_equal(procinfo_read(root, 123, &pr), 0);
	assert_int_equal(pr.pid, 123);
	assert_string_equal(pr.comm, "fake");
	assert_string_equal(pr.exe, "/usr/bin/fake prog");
	assert_int_equal(pr.nr_threads, 3);
	assert_int_equal(pr.threads[0].tid, 123); /* sorted by tid */
	assert_string_equal(pr.threads[0].comm, "fake");
	assert_int_equal(pr.threads[1].tid, 125);
	assert_string_equal(pr.threads[1].comm, "");
	assert_int_equal(pr.threads[2].tid, 130);
	assert_string_equal(pr.threads[2].comm, "worker");
	/* backed by a file, executable or not */
	assert_int_equal(pr.nr_maps, 3);
	assert_string_equal(pr.maps[0].path, "/usr/bin/fake prog");
	assert_int_equal(pr.maps[0].prot, PROT_READ);
	assert_string_equal(pr.maps[1].path, "/usr/bin/fake prog");
	assert_int_equal(pr.maps[1].pgoff, 0x1000);
	assert_string_equal(pr.maps[2].path, "/lib/l\"q\".so");
	assert_int_equal(pr.vdso, SNAP_VDSO_NONE); /* it maps none */
	procinfo_free(&pr);
	assert_int_equal(pr.nr_maps, 0);
	assert_null(pr.maps);

	/* a gone process: an error and an empty result */
	memset(&pr, 0xa5, sizeof(pr));
	assert_int_equal(procinfo_read(root, 999, &pr), -ENOENT);
	assert_int_equal(pr.nr_maps, 0);
	assert_int_equal(pr.nr_threads, 0);
	assert_null(pr.exe);
	/*
	 * Exiting: its memory gone once the maps were read (statm's size 0),
	 * or the process itself (no statm): what was read may end early and
	 * is no reading.
	 */
	put(root, "123/statm", "0 0 0 0 0 0 0\n");
	assert_int_equal(procinfo_read(root, 123, &pr), -ESRCH);
	assert_int_equal(pr.nr_maps, 0);
	assert_null(pr.maps);
	snprintf(p, sizeof(p), "%s/123/statm", root);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(procinfo_read(root, 123, &pr), -ESRCH);
	assert_int_equal(pr.nr_maps, 0);
	/* a maps file with garbage in it */
	put(root, "123/maps", "this is not a mapping\n");
	assert_int_equal(procinfo_read(root, 123, &pr), -EBADMSG);
	assert_null(pr.maps);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* An ELF header of class @cls and machine @machine at @root/@rel. */
static void put_elf(const char *root, const char *rel, unsigned char cls, __u16 machine)
{
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 0, 1, 1 };
	char p[PATH_MAX];
	FILE *f;

	h[4] = cls;
	memcpy(h + 18, &machine, sizeof(machine));
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(h, 1, sizeof(h), f), sizeof(h));
	fclose(f);
}

/*
 * @root/@exe (replaced) points at @target (under @root when it has no
 * leading '/'); process 77's [vdso] must then be @want.
 */
static void vdso_with_exe(const char *root, const char *exe, const char *target, int want)
{
	char link[PATH_MAX], to[PATH_MAX];
	struct snap_process pr;

	snprintf(link, sizeof(link), "%s/%s", root, exe);
	if (target[0] == '/')
		snprintf(to, sizeof(to), "%s", target);
	else
		snprintf(to, sizeof(to), "%s/%s", root, target);
	unlink(link);
	assert_int_equal(symlink(to, link), 0);
	assert_int_equal(procinfo_read(root, 77, &pr), 0);
	assert_int_equal(pr.vdso, want);
	procinfo_free(&pr);
}

/*
 * Whose [vdso] a process maps, by its executable's ELF header: a 64-bit
 * x86-64 program's is ptbpf's own image, a 32-bit one's is not; one whose
 * executable can't be read is told by the file the maps name, or the
 * [vdso]'s address, else unknown.
 */
static void test_vdso_abi(void **state)
{
	char root[] = "/tmp/ptbpf-procinfo-XXXXXX", cmd[PATH_MAX + 16], map[512];

	assert_non_null(mkdtemp(root));
	mk(root, "77");
	mk(root, "77/task");
	mk(root, "77/task/77");
	put(root, "77/task/77/comm", "prog\n");
	put(root, "77/comm", "prog\n");
	put(root, "77/statm", "1234 200 100 2 0 300 0\n");
	put(root, "77/maps",
	    "400000-401000 r-xp 00000000 fd:01 1 /usr/bin/prog\n"
	    "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n");
	put_elf(root, "prog64", 2 /* ELFCLASS64 */, 62 /* EM_X86_64 */);
	put_elf(root, "prog32", 1 /* ELFCLASS32 */, 3 /* EM_386 */);
	vdso_with_exe(root, "77/exe", "prog64", SNAP_VDSO_NATIVE);
	vdso_with_exe(root, "77/exe", "prog32", SNAP_VDSO_OTHER);
	/*
	 * an executable that can't be read (a process read as it died), and
	 * nothing else that tells: unknown, not "not a 64-bit program"
	 */
	vdso_with_exe(root, "77/exe", "/nonexistent/prog", SNAP_VDSO_UNKNOWN);
	/* ... but the file the maps name still can be */
	snprintf(map, sizeof(map),
		 "400000-401000 r-xp 00000000 fd:01 1 %s/prog64\n"
		 "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n",
		 root);
	put(root, "77/maps", map);
	vdso_with_exe(root, "77/exe", "/nonexistent/prog", SNAP_VDSO_NATIVE);
	snprintf(map, sizeof(map),
		 "400000-401000 r-xp 00000000 fd:01 1 %s/prog32\n"
		 "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n",
		 root);
	put(root, "77/maps", map);
	vdso_with_exe(root, "77/exe", "/nonexistent/prog", SNAP_VDSO_OTHER);
	/* ... or a [vdso] above 4 GiB, where only a 64-bit task maps */
	put(root, "77/maps",
	    "400000-401000 r-xp 00000000 fd:01 1 /nonexistent/prog\n"
	    "7ffd5a1f1000-7ffd5a1f3000 r-xp 00000000 00:00 0 [vdso]\n");
	vdso_with_exe(root, "77/exe", "/nonexistent/prog", SNAP_VDSO_NATIVE);
	put(root, "77/maps",
	    "400000-401000 r-xp 00000000 fd:01 1 /usr/bin/prog\n"
	    "7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]\n");
	/* a zombie leader has no exe: a live thread's tells */
	mk(root, "77/task/78");
	put(root, "77/task/78/comm", "worker\n");
	vdso_with_exe(root, "77/task/78/exe", "prog64", SNAP_VDSO_NATIVE);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_proc_self(void **state)
{
	char exe[PATH_MAX];
	uintptr_t here = (uintptr_t)test_proc_self;
	struct snap_process pr;
	bool tid = false, code = false;
	unsigned int i;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(procinfo_read(NULL, (__u32)getpid(), &pr), 0);
	assert_string_equal(pr.comm, "test_procinfo");
	assert_string_equal(pr.exe, exe);
	for (i = 0; i < pr.nr_threads; i++)
		tid |= pr.threads[i].tid == (__u32)gettid();
	assert_true(tid);
	/* the mapping that holds this function is this executable */
	for (i = 0; i < pr.nr_maps; i++) {
		const struct snap_map *m = &pr.maps[i];

		assert_true((m->prot & PROT_EXEC) || m->path);
		if (here >= m->start && here < m->start + m->len) {
			assert_string_equal(m->path, exe);
			code = true;
		}
	}
	assert_true(code);
	/* this test is a 64-bit x86-64 program: its [vdso] is ptbpf's */
	assert_int_equal(pr.vdso, SNAP_VDSO_NATIVE);
	procinfo_free(&pr);
}

static void test_invalid_args(void **state)
{
	struct snap_process pr;
	char longroot[PATH_MAX + 1];

	assert_int_equal(procinfo_read(NULL, 1, NULL), -EINVAL);
	assert_int_equal(procinfo_read(NULL, 0, &pr), -EINVAL);
	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[PATH_MAX] = '\0';
	assert_int_equal(procinfo_read(longroot, 1, &pr), -ENAMETOOLONG);
	procinfo_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_map),    cmocka_unit_test(test_fake_tree),
		cmocka_unit_test(test_vdso_abi),     cmocka_unit_test(test_proc_self),
		cmocka_unit_test(test_invalid_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
