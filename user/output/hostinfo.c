// SPDX-License-Identifier: GPL-2.0
/* The machine, for perf.data's header: see hostinfo.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostinfo.h"
#include "base/smallfile.h"

#ifndef PTBPF_VERSION
#define PTBPF_VERSION "unknown"
#endif

static void path_of(char *buf, size_t len, const char *root, const char *p)
{
	snprintf(buf, len, "%s%s", root ? root : "", p);
}

/* The first line of @path, without its newline; "" when unreadable. */
static void first_line(const char *path, char *buf, size_t len)
{
	if (smallfile_read(path, buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* "model name : AMD EPYC" of the first processor, as perf's CPUDESC. */
static void read_cpudesc(struct hostinfo *h, const char *root)
{
	char path[512], line[512], *v;
	FILE *f;

	path_of(path, sizeof(path), root, "/proc/cpuinfo");
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) || !(v = strchr(line, ':')))
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(h->cpudesc, sizeof(h->cpudesc), "%s", v);
		h->host.cpudesc = h->cpudesc;
		break;
	}
	fclose(f);
}

static void read_mem(struct hostinfo *h, const char *root)
{
	char path[512], line[256];
	uint64_t kb;
	FILE *f;

	path_of(path, sizeof(path), root, "/proc/meminfo");
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1) {
			h->host.total_mem_kb = kb;
			break;
		}
	fclose(f);
}

/* ptbpf's own argv from /proc/self/cmdline (NUL separated). */
static int read_cmdline(struct hostinfo *h, const char *root)
{
	size_t len = 0, cap = 4096, i, n = 0;
	char path[512];
	ssize_t r;
	int fd;

	path_of(path, sizeof(path), root, "/proc/self/cmdline");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	h->cmdline = malloc(cap + 1);
	while (h->cmdline && (r = read(fd, h->cmdline + len, cap - len)) > 0)
		if ((len += (size_t)r) == cap)
			h->cmdline = realloc(h->cmdline, (cap *= 2) + 1);
	close(fd);
	if (!h->cmdline)
		return -ENOMEM;
	h->cmdline[len] = '\0';
	for (i = 0; i < len; i++)
		n += !h->cmdline[i];
	h->argv = calloc(n + 1, sizeof(*h->argv));
	if (!h->argv)
		return -ENOMEM;
	for (i = 0, n = 0; i < len; i += strlen(h->cmdline + i) + 1)
		h->argv[n++] = h->cmdline + i;
	h->host.argc = (unsigned int)n;
	h->host.argv = h->argv;
	return 0;
}

static int32_t topo_id(const char *root, unsigned int cpu, const char *name)
{
	char path[512], p[128], line[32];
	char *end;
	long v;

	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, name);
	path_of(path, sizeof(path), root, p);
	first_line(path, line, sizeof(line));
	v = strtol(line, &end, 10);
	return *line && !*end ? (int32_t)v : -1;
}

/* Adds @list to the distinct lists of one kind; returns -ENOMEM. */
static int add_list(struct hostinfo *h, unsigned int first, unsigned int *nr, const char *list)
{
	unsigned int i, total = h->topo.nr_cores + h->topo.nr_threads + h->topo.nr_dies;
	char **l;

	if (!*list)
		return 0;
	for (i = first; i < first + *nr; i++)
		if (!strcmp(h->lists[i], list))
			return 0;
	l = realloc(h->lists, (total + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	h->lists = l;
	l[total] = strdup(list);
	if (!l[total])
		return -ENOMEM;
	(*nr)++;
	return 0;
}

/*
 * One kind of sibling list over all CPUs. The kinds are gathered one after
 * the other, so each kind's lists are consecutive in h->lists.
 */
static int read_lists(struct hostinfo *h, const char *root, const char *file, unsigned int *nr,
		      unsigned int nr_cpus)
{
	unsigned int first = h->topo.nr_cores + h->topo.nr_threads + h->topo.nr_dies;
	char path[512], p[128], line[1024];
	unsigned int cpu;
	int rc = 0;

	for (cpu = 0; cpu < nr_cpus && !rc; cpu++) {
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%u/topology/%s", cpu, file);
		path_of(path, sizeof(path), root, p);
		first_line(path, line, sizeof(line));
		rc = add_list(h, first, nr, line);
	}
	return rc;
}

static int read_topology(struct hostinfo *h, const char *root, unsigned int nr_cpus)
{
	unsigned int cpu, cores;
	int rc;

	if (!nr_cpus || nr_cpus > HOSTINFO_MAX_CPUS)
		return 0;
	rc = read_lists(h, root, "core_siblings_list", &h->topo.nr_cores, nr_cpus);
	cores = h->topo.nr_cores;
	if (!rc)
		rc = read_lists(h, root, "thread_siblings_list", &h->topo.nr_threads, nr_cpus);
	if (!rc)
		rc = read_lists(h, root, "die_cpus_list", &h->topo.nr_dies, nr_cpus);
	if (rc)
		return rc;
	if (!cores || !h->topo.nr_threads)
		return 0; /* no sysfs topology: the feature is left out */
	h->cpus = calloc(nr_cpus, sizeof(*h->cpus));
	if (!h->cpus)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		h->cpus[cpu].core_id = topo_id(root, cpu, "core_id");
		h->cpus[cpu].socket_id = topo_id(root, cpu, "physical_package_id");
		h->cpus[cpu].die_id = topo_id(root, cpu, "die_id");
	}
	h->topo.core_siblings = (const char *const *)h->lists;
	h->topo.thread_siblings = (const char *const *)h->lists + cores;
	h->topo.die_siblings = (const char *const *)h->lists + cores + h->topo.nr_threads;
	h->topo.nr_cpus = nr_cpus;
	h->topo.cpus = h->cpus;
	h->host.topo = &h->topo;
	return 0;
}

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/* perf's CLOCK_DATA: the clock and the time of day, read back to back. */
static void read_clock(struct hostinfo *h, clockid_t clock)
{
	struct timespec res, tod, c;

	if (clock < 0 || clock_getres(clock, &res) || clock_gettime(CLOCK_REALTIME, &tod) ||
	    clock_gettime(clock, &c))
		return;
	h->host.clock_res_ns = ns_of(&res) ? ns_of(&res) : 1;
	h->host.clock_tod_ns = ns_of(&tod);
	h->host.clock_ns = ns_of(&c);
}

int hostinfo_read(struct hostinfo *h, const char *root, clockid_t clock, unsigned int nr_cpus)
{
	int rc;

	if (!h)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	if (uname(&h->uts) == 0) {
		h->host.hostname = h->uts.nodename;
		h->host.osrelease = h->uts.release;
		h->host.arch = h->uts.machine;
	}
	h->host.version = "ptbpf " PTBPF_VERSION;
	read_cpudesc(h, root);
	read_mem(h, root);
	read_clock(h, clock);
	rc = read_cmdline(h, root);
	if (!rc)
		rc = read_topology(h, root, nr_cpus);
	if (rc)
		hostinfo_free(h);
	return rc;
}

void hostinfo_free(struct hostinfo *h)
{
	unsigned int i, n;

	if (!h)
		return;
	n = h->topo.nr_cores + h->topo.nr_threads + h->topo.nr_dies;
	for (i = 0; h->lists && i < n; i++)
		free(h->lists[i]);
	free(h->lists);
	free(h->cpus);
	free(h->argv);
	free(h->cmdline);
	memset(h, 0, sizeof(*h));
}
