// SPDX-License-Identifier: GPL-2.0
/*
 * The system-call edge: perf_event_open, mmap, ioctl, close. See perf_sys.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "perf_sys.h"

static int real_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	/* glibc has no wrapper for perf_event_open. */
	long fd = syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static int real_mmap(void *ctx, int fd, size_t len, int prot, off_t offset, void **addr)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, offset);

	if (p == MAP_FAILED)
		return -errno;
	*addr = p;
	return 0;
}

static int real_munmap(void *ctx, void *addr, size_t len)
{
	return munmap(addr, len) ? -errno : 0;
}

static int real_ioctl(void *ctx, int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg) < 0 ? -errno : 0;
}

static int real_close(void *ctx, int fd)
{
	return close(fd) ? -errno : 0;
}

static int real_read(void *ctx, int fd, __u64 *value)
{
	ssize_t n = read(fd, value, sizeof(*value));

	return n == sizeof(*value) ? 0 : n < 0 ? -errno : -EIO;
}

const struct perf_sys_ops perf_sys_real = {
	.open = real_open,
	.mmap = real_mmap,
	.munmap = real_munmap,
	.ioctl = real_ioctl,
	.close = real_close,
	.read = real_read,
};

/*
 * "<what>: <strerror>" into @err. strerrordesc_np() and not strerror(): it
 * neither translates nor allocates, so this is safe on the control path.
 */
static int fail(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	const char *desc = strerrordesc_np(-rc);
	va_list ap;
	int n;

	if (!err || !errlen)
		return rc;
	va_start(ap, fmt);
	n = vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - n, ": %s", desc ? desc : "Unknown error");
	return rc;
}

int perf_sys_open(const struct perf_sys_ops *sys, struct perf_event_attr *attr, int cpu, pid_t pid,
		  int group_fd, unsigned long flags, char *err, size_t errlen)
{
	int fd;

	if (!sys || !attr)
		return fail(-EINVAL, err, errlen, "can't open perf event on cpu %d", cpu);
	fd = sys->open(sys->ctx, attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
	if (fd == -EACCES || fd == -EPERM)
		return fail(fd, err, errlen,
			    "can't open perf event on cpu %d (run as root or "
			    "with CAP_PERFMON)",
			    cpu);
	if (fd < 0)
		return fail(fd, err, errlen, "can't open perf event on cpu %d", cpu);
	return fd;
}

int perf_sys_map_ring(const struct perf_sys_ops *sys, int fd, int cpu, size_t page_size,
		      size_t data_size, bool writable, struct perf_event_mmap_page **page,
		      char *err, size_t errlen)
{
	int prot = PROT_READ | (writable ? PROT_WRITE : 0);
	void *p = NULL;
	int rc;

	if (!sys || !page || !page_size)
		return fail(-EINVAL, err, errlen, "can't map the perf ring of cpu %d", cpu);
	rc = sys->mmap(sys->ctx, fd, page_size + data_size, prot, 0, &p);
	if (rc < 0)
		return fail(rc, err, errlen, "can't map the perf ring of cpu %d (%zu bytes)", cpu,
			    page_size + data_size);
	*page = p;
	return 0;
}

int perf_sys_map_aux(const struct perf_sys_ops *sys, int fd, int cpu,
		     struct perf_event_mmap_page *page, size_t aux_size, void **aux, char *err,
		     size_t errlen)
{
	void *p = NULL;
	int rc;

	if (!sys || !page || !aux || !aux_size)
		return fail(-EINVAL, err, errlen, "can't map the AUX area of cpu %d", cpu);
	/* The kernel reads these two fields of the page at mmap time. */
	page->aux_offset = page->data_offset + page->data_size;
	page->aux_size = aux_size;
	/* Read-only: the kernel then runs the AUX area in overwrite mode. */
	rc = sys->mmap(sys->ctx, fd, aux_size, PROT_READ, (off_t)page->aux_offset, &p);
	if (rc < 0)
		return fail(rc, err, errlen, "can't map the AUX area of cpu %d (%zu bytes)", cpu,
			    aux_size);
	*aux = p;
	return 0;
}

int perf_sys_unmap(const struct perf_sys_ops *sys, void *addr, size_t len, int cpu, char *err,
		   size_t errlen)
{
	int rc;

	if (!sys || !addr)
		return fail(-EINVAL, err, errlen, "can't unmap the perf ring of cpu %d", cpu);
	rc = sys->munmap(sys->ctx, addr, len);
	if (rc < 0)
		return fail(rc, err, errlen, "can't unmap the perf ring of cpu %d", cpu);
	return 0;
}

static int toggle(const struct perf_sys_ops *sys, int fd, int cpu, bool group, bool on, char *err,
		  size_t errlen)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int rc = -EBADF;

	if (!sys)
		rc = -EINVAL;
	else if (fd >= 0)
		rc = sys->ioctl(sys->ctx, fd, req, group ? PERF_IOC_FLAG_GROUP : 0);
	if (rc < 0)
		return fail(rc, err, errlen, "can't %s perf event on cpu %d",
			    on ? "enable" : "disable", cpu);
	return 0;
}

int perf_sys_enable(const struct perf_sys_ops *sys, int fd, int cpu, bool group, char *err,
		    size_t errlen)
{
	return toggle(sys, fd, cpu, group, true, err, errlen);
}

int perf_sys_disable(const struct perf_sys_ops *sys, int fd, int cpu, bool group, char *err,
		     size_t errlen)
{
	return toggle(sys, fd, cpu, group, false, err, errlen);
}

int perf_sys_id(const struct perf_sys_ops *sys, int fd, int cpu, __u64 *id, char *err,
		size_t errlen)
{
	int rc = -EBADF;

	if (!sys || !id)
		rc = -EINVAL;
	else if (fd >= 0)
		rc = sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_ID, (unsigned long)id);
	if (rc < 0)
		return fail(rc, err, errlen, "can't get the id of perf event on cpu %d", cpu);
	return 0;
}

int perf_sys_set_output(const struct perf_sys_ops *sys, int fd, int out_fd, int cpu, char *err,
			size_t errlen)
{
	int rc = -EBADF;

	if (!sys)
		rc = -EINVAL;
	else if (fd >= 0 && out_fd >= 0)
		rc = sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)out_fd);
	if (rc < 0)
		return fail(rc, err, errlen, "can't redirect perf event output on cpu %d", cpu);
	return 0;
}

int perf_sys_close(const struct perf_sys_ops *sys, int *fd)
{
	int rc;

	if (!sys || !fd)
		return -EINVAL;
	if (*fd < 0)
		return 0;
	rc = sys->close(sys->ctx, *fd);
	/* Linux releases the descriptor even when close() fails. */
	*fd = -1;
	return rc;
}

int perf_sys_read(const struct perf_sys_ops *sys, int fd, __u64 *value)
{
	sys = sys ? sys : &perf_sys_real;
	if (!value || fd < 0)
		return -EINVAL;
	return sys->read ? sys->read(sys->ctx, fd, value) : -EOPNOTSUPP;
}

int perf_sys_period(const struct perf_sys_ops *sys, int fd, __u64 period)
{
	sys = sys ? sys : &perf_sys_real;
	if (fd < 0 || !period)
		return -EINVAL;
	return sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period);
}
