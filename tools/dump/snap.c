// SPDX-License-Identifier: GPL-2.0
/* The snapshot's model and its files: see snap.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "snap.h"
#include "textesc.h"

void snap_error(struct dump_log *log, const char *file, int64_t off, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	if (!log)
		return;
	log->nr_errors++;
	if (!log->err)
		return;
	/* paths and names in it come from the snapshot: shown, never sent */
	fputs("ptbpf-dump: ", log->err);
	if (file) {
		textesc_fputs(file, log->err);
		fputs(": ", log->err);
	}
	if (off >= 0)
		fprintf(log->err, "offset 0x%" PRIx64 ": ", (uint64_t)off);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	textesc_fputs(why, log->err);
	fputc('\n', log->err);
}

/*
 * Opens @path for reading only when it is a regular file of at most @max
 * bytes: O_NONBLOCK, so that a FIFO or a device named ptbpf.json or
 * perf.data does not hang the open, and fstat() before any read. Returns
 * the descriptor, its size in *@size, or -errno (snap_file_error()).
 */
static int open_regular(const char *path, uint64_t max, size_t *size)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	ret = fstat(fd, &st)							? -errno :
	      S_ISDIR(st.st_mode)						? -EISDIR :
	      !S_ISREG(st.st_mode)						? -SNAP_ENOTREG :
	      (uint64_t)st.st_size > max || (uint64_t)st.st_size > SIZE_MAX - 1 ? -EFBIG :
										  0;
	if (ret) {
		close(fd);
		return ret;
	}
	*size = (size_t)st.st_size;
	return fd;
}

const char *snap_file_error(int ret)
{
	switch (ret) {
	case -SNAP_ENOTREG:
		return "not a regular file";
	case -EFBIG:
		return "larger than a snapshot's file can be: not read";
	default:
		return strerror(-ret);
	}
}

int snap_read_file(const char *path, uint64_t max, uint8_t **buf, size_t *len)
{
	size_t size, got = 0;
	ssize_t n = 0;
	uint8_t *b;
	int fd, ret = 0;

	fd = open_regular(path, max, &size);
	if (fd < 0)
		return fd;
	b = malloc(size + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	/* a file that shrinks meanwhile gives what is there */
	while (got < size && (n = read(fd, b + got, size - got)) > 0)
		got += (size_t)n;
	if (n < 0 && got < size)
		ret = -errno;
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
}

int snap_map_file(const char *path, uint64_t max, uint8_t **buf, size_t *len)
{
	size_t size;
	void *p;
	int fd;

	fd = open_regular(path, max, &size);
	if (fd < 0)
		return fd;
	*buf = NULL;
	*len = 0;
	if (!size) {
		close(fd);
		return 0;
	}
	/*
	 * Mapped, as perf maps perf.data: the parsers touch only what the
	 * file's headers declare, so a sparse or padded file costs what is
	 * read of it, not its size.
	 */
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	*buf = p;
	*len = size;
	return 0;
}

void snap_unmap_file(uint8_t *buf, size_t len)
{
	if (buf && len)
		munmap(buf, len);
}

struct dump_core *snap_find_core(struct dump_snap *s, int cpu)
{
	struct dump_core *c;
	unsigned int i;

	for (i = 0; i < s->nr_cores; i++)
		if (s->cores[i].cpu == cpu)
			return &s->cores[i];
	c = realloc(s->cores, (s->nr_cores + 1) * sizeof(*c));
	if (!c)
		return NULL;
	s->cores = c;
	c = &s->cores[s->nr_cores++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	return c;
}

const struct dump_proc *snap_proc_find(const struct dump_snap *s, uint32_t pid)
{
	unsigned int i;

	for (i = 0; s && i < s->nr_procs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

struct dump_proc *snap_proc_get(struct dump_snap *s, uint32_t pid)
{
	struct dump_proc *pr = (struct dump_proc *)snap_proc_find(s, pid);

	if (pr)
		return pr;
	pr = reallocarray(s->procs, s->nr_procs + 1, sizeof(*pr));
	if (!pr)
		return NULL;
	s->procs = pr;
	pr = &s->procs[s->nr_procs++];
	memset(pr, 0, sizeof(*pr));
	pr->pid = pid;
	/* the views may have pointed into the old array's entries' arrays,
	 * which did not move: only the entries did */
	return pr;
}

void snap_read_as(struct dump_snap *s, uint32_t pid)
{
	const struct dump_proc *pr = snap_proc_find(s, pid);

	s->pid = pid;
	s->comm[0] = '\0';
	s->threads = NULL;
	s->modules = NULL;
	s->ranges = NULL;
	s->vdso = "";
	s->nr_threads = s->nr_modules = s->nr_ranges = 0;
	if (!pr)
		return;
	s->vdso = pr->vdso;
	memcpy(s->comm, pr->comm, sizeof(s->comm));
	s->threads = pr->threads;
	s->nr_threads = pr->nr_threads;
	s->modules = pr->modules;
	s->nr_modules = pr->nr_modules;
	s->ranges = pr->ranges;
	s->nr_ranges = pr->nr_ranges;
}

bool snap_followed(const struct dump_snap *s, uint32_t pid)
{
	unsigned int i;

	if (pid == s->run_pid || pid == s->pid)
		return true;
	for (i = 0; i < s->nr_followed; i++)
		if (s->followed[i] == pid)
			return true;
	return false;
}

uint64_t snap_tsc_to_ns(const struct snap_tsc_conv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (!c->valid || c->time_shift >= 64)
		return tsc;
	/* split as the kernel documents it so tsc * mult cannot overflow */
	quot = tsc >> c->time_shift;
	rem = tsc & ((1ULL << c->time_shift) - 1);
	return c->time_zero + quot * c->time_mult + ((rem * c->time_mult) >> c->time_shift);
}

void snap_core_task(const struct dump_core *core, uint64_t t, int32_t *pid, int32_t *tid)
{
	size_t lo = 0, hi = core->nr_sw;

	/* the last switch at or before @t: records are in time order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (core->sw[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		*pid = *tid = -1;
		return;
	}
	*pid = core->sw[lo - 1].pid;
	*tid = core->sw[lo - 1].tid;
}

const char *snap_thread_comm(const struct dump_snap *s, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < s->nr_threads; i++)
		if (s->threads[i].tid == tid)
			return s->threads[i].comm;
	return "";
}

void snap_free(struct dump_snap *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_cores; i++) {
		snap_unmap_file(s->cores[i].trace_own, s->cores[i].trace_own_len);
		free(s->cores[i].sw);
		free(s->cores[i].samples);
	}
	if (s->uw)
		s->uw_free(s->uw);
	for (i = 0; i < s->nr_procs; i++) {
		struct dump_proc *pr = &s->procs[i];
		unsigned int k;

		for (k = 0; k < pr->nr_modules; k++)
			free(pr->modules[k].path);
		free(pr->modules);
		free(pr->ranges);
		free(pr->threads);
	}
	free(s->procs);
	free(s->cores);
	free(s->followed);
	free(s->vdso_path);
	if (s->perf_mapped)
		snap_unmap_file(s->perf_buf, s->perf_len);
	else
		free(s->perf_buf);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
