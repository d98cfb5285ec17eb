// SPDX-License-Identifier: GPL-2.0
/*
 * What perf.data's header says about the machine (hostinfo.c) from a
 * made-up /proc and sysfs, and ELF build-ids (buildid.c) against readelf.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "output/buildcache.h"
#include "proc/vdso.h"
#include "buildid.h"
#include "output/hostinfo.h"

static char root[64];

static void put_n(const char *rel, const char *text, size_t len)
{
	char path[256], cmd[300];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

static int setup(void **state)
{
	strcpy(root, "/tmp/ptbpf-hostinfo-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

#define CPU "/sys/devices/system/cpu/cpu"

static void test_fake_tree(void **state)
{
	struct hostinfo h;
	unsigned int i;
	char p[128];

	put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n"
			     "model name\t: Fake CPU @ 2.00GHz\n\n"
			     "processor\t: 1\nmodel name\t: Other\n");
	put("/proc/meminfo", "MemFree: 5 kB\nMemTotal:       16384 kB\n");
	put_n("/proc/self/cmdline", "ptbpf\0-o\0out dir\0", 17);
	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), CPU "%u/topology/core_siblings_list", i);
		put(p, "0-2\n");
		snprintf(p, sizeof(p), CPU "%u/topology/thread_siblings_list", i);
		put(p, i < 2 ? "0-1\n" : "2\n");
		snprintf(p, sizeof(p), CPU "%u/topology/core_id", i);
		put(p, i < 2 ? "0\n" : "1\n");
		snprintf(p, sizeof(p), CPU "%u/topology/physical_package_id", i);
		put(p, "0\n");
	}
	/* cpu3 is offline: no topology files */
	memset(&h, 0xa5, sizeof(h));
	assert_int_equal(hostinfo_read(&h, root, CLOCK_MONOTONIC, 4), 0);
	assert_string_equal(h.host.cpudesc, "Fake CPU @ 2.00GHz");
	assert_int_equal(h.host.total_mem_kb, 16384);
	assert_int_equal(h.host.argc, 3);
	assert_string_equal(h.host.argv[2], "out dir");
	assert_non_null(h.host.topo);
	assert_int_equal(h.topo.nr_cores, 1);
	assert_string_equal(h.topo.core_siblings[0], "0-2");
	assert_int_equal(h.topo.nr_threads, 2);
	assert_string_equal(h.topo.thread_siblings[1], "2");
	assert_int_equal(h.topo.nr_dies, 0);
	assert_int_equal(h.topo.nr_cpus, 4);
	assert_int_equal(h.topo.cpus[2].core_id, 1);
	assert_int_equal(h.topo.cpus[3].core_id, -1);
	assert_int_equal(h.topo.cpus[3].socket_id, -1);
	assert_int_equal(h.topo.cpus[0].die_id, -1);
	assert_true(h.host.clock_res_ns > 0 && h.host.clock_ns > 0);
	assert_true(h.host.clock_tod_ns > h.host.clock_ns);
	assert_non_null(h.host.hostname);
	hostinfo_free(&h);
	assert_null(h.host.topo);
}

/* Nothing readable: those features are left out, nothing made up. */
static void test_empty_tree(void **state)
{
	struct hostinfo h;

	assert_int_equal(hostinfo_read(&h, root, -1, 2), 0);
	assert_null(h.host.cpudesc);
	assert_int_equal(h.host.total_mem_kb, 0);
	assert_int_equal(h.host.argc, 0);
	assert_null(h.host.topo);
	assert_int_equal(h.host.clock_res_ns, 0);
	hostinfo_free(&h);
	assert_int_equal(hostinfo_read(NULL, root, -1, 2), -EINVAL);
	hostinfo_free(NULL);
}

/* Our own executable's build-id, as readelf -n prints it. */
static void test_build_id(void **state)
{
	char exe[256], cmd[400], want[64] = "", hex[41];
	__u8 id[BUILDID_MAX];
	size_t len = 0;
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: //p'", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	pclose(f);
	want[strcspn(want, "\n")] = 0;
	assert_int_equal(buildid_read(exe, id, &len), 0);
	assert_int_equal(len, 20);
	buildid_hex(id, len, hex);
	assert_string_equal(hex, want);
	put("/not-elf", "just text\n");
	snprintf(cmd, sizeof(cmd), "%s/not-elf", root);
	assert_int_equal(buildid_read(cmd, id, &len), -ENOEXEC);
	snprintf(cmd, sizeof(cmd), "%s/missing", root);
	assert_int_equal(buildid_read(cmd, id, &len), -ENOENT);
	assert_int_equal(buildid_read(NULL, id, &len), -EINVAL);
	assert_int_equal(buildid_read(exe, NULL, &len), -EINVAL);
	assert_int_equal(buildid_read(exe, id, NULL), -EINVAL);
}

/* An ELF without a build-id note. */
static void test_no_build_id(void **state)
{
	char cmd[400], path[128];
	__u8 id[BUILDID_MAX];
	size_t len;

	snprintf(path, sizeof(path), "%s/noid.o", root);
	snprintf(cmd, sizeof(cmd), "echo 'int x;' | cc -x c -c -o '%s' - 2>/dev/null", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(buildid_read(path, id, &len), -ENOENT);
}

/* perf's cache layout: DIR/PATH/ID/elf, and DIR/.build-id/xx/rest -> it */
static void test_buildcache(void **state)
{
	char exe[256], dir[128], p[700], link[700], hex[41];
	__u8 id[BUILDID_MAX];
	struct stat st;
	size_t len;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	assert_int_equal(buildid_read(exe, id, &len), 0);
	buildid_hex(id, len, hex);
	snprintf(dir, sizeof(dir), "%s/cache", root);
	assert_int_equal(buildcache_add(dir, exe, hex), 0);
	snprintf(p, sizeof(p), "%s%s/%s/elf", dir, exe, hex);
	assert_int_equal(stat(p, &st), 0);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	snprintf(p, sizeof(p), "../..%s/%s", exe, hex);
	assert_string_equal(link, p);
	/* again: already there, left alone */
	assert_int_equal(buildcache_add(dir, exe, hex), 0);
	assert_int_equal(buildcache_add(dir, "relative", hex), -EINVAL);
	assert_int_equal(buildcache_add(dir, exe, "ab"), -EINVAL);
	assert_int_equal(buildcache_add(NULL, exe, hex), -EINVAL);
	snprintf(p, sizeof(p), "%s/missing", root);
	assert_int_equal(buildcache_add(dir, p, hex), -ENOENT);
}

/* The vDSO as perf record caches it: DIR/[vdso]/ID/vdso, its bytes. */
static void test_buildcache_vdso(void **state)
{
	char dir[128], p[700], link[700], hex[41];
	static char buf[65536];
	struct vdso_image v;
	ssize_t n;
	int fd;

	assert_int_equal(vdso_image_read(NULL, &v), 0);
	/* the kernel links its vDSO with a SHA-1 build-id */
	assert_int_equal(v.build_id_len, 20);
	buildid_hex(v.build_id, v.build_id_len, hex);
	snprintf(dir, sizeof(dir), "%s/cache", root);
	assert_int_equal(buildcache_add_vdso(dir, &v), 0);
	snprintf(p, sizeof(p), "%s/[vdso]/%s/vdso", dir, hex);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, v.len);
	assert_memory_equal(buf, v.data, v.len);
	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	n = readlink(p, link, sizeof(link) - 1);
	assert_true(n > 0);
	link[n] = 0;
	snprintf(p, sizeof(p), "../../[vdso]/%s", hex);
	assert_string_equal(link, p);
	/* again: already there, left alone */
	assert_int_equal(buildcache_add_vdso(dir, &v), 0);
	v.build_id_len = 0;
	assert_int_equal(buildcache_add_vdso(dir, &v), -EINVAL);
	assert_int_equal(buildcache_add_vdso(NULL, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fake_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buildcache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buildcache_vdso, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
