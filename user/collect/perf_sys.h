/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system-call edge of per-core collection: perf_event_open, mmap and
 * munmap of the perf ring and of the AUX area, the ENABLE/DISABLE/ID/SET_OUTPUT/
 * SET_BPF ioctls
 * and close. Nothing else in ptbpf makes these calls, so a test can put a
 * simulated kernel (tests/sim/sim_pmu.c) in place of the real one by passing
 * another struct perf_sys_ops.
 *
 * Every wrapper returns 0 (or a descriptor) on success and -errno on
 * failure; on failure it also writes one line that names the call, the CPU
 * and strerror(errno) into @err (e.g. "can't disable perf event on cpu 3:
 * Bad file descriptor"). @err may be NULL when the caller does not want the
 * text. No wrapper allocates or prints: they are used on the control path.
 */
#ifndef PTBPF_PERF_SYS_H
#define PTBPF_PERF_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include <linux/perf_event.h>

/*
 * The raw calls. Each returns -errno on failure (never sets errno only);
 * @ctx is the table's own ctx, for a simulated kernel's state.
 */
struct perf_sys_ops {
	/* Returns the new descriptor or -errno. */
	int (*open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		    unsigned long flags);
	/* Maps @len bytes of @fd at @offset; stores the address in @addr. */
	int (*mmap)(void *ctx, int fd, size_t len, int prot, off_t offset, void **addr);
	int (*munmap)(void *ctx, void *addr, size_t len);
	int (*ioctl)(void *ctx, int fd, unsigned long request, unsigned long arg);
	int (*close)(void *ctx, int fd);
	void *ctx;
	/* The event's count (read(2) without read_format); NULL: -EOPNOTSUPP. */
	int (*read)(void *ctx, int fd, __u64 *value);
};

/* The real kernel. */
extern const struct perf_sys_ops perf_sys_real;

/*
 * Open one per-CPU event: on every task (@pid -1), a cgroup's (a cgroup fd
 * with PERF_FLAG_PID_CGROUP in @flags), or one thread's (@pid a tid). PERF_FLAG_FD_CLOEXEC is always added.
 *
 * Returns the descriptor, or -errno from perf_event_open: -ENODEV or -ENOENT
 * for an offline CPU or an unknown PMU, -EACCES/-EPERM without CAP_PERFMON.
 * Returns -EINVAL if @sys or @attr is NULL.
 */
int perf_sys_open(const struct perf_sys_ops *sys, struct perf_event_attr *attr, int cpu, pid_t pid,
		  int group_fd, unsigned long flags, char *err, size_t errlen);

/*
 * Map the metadata page plus @data_size bytes of ring (0, or a power-of-two
 * number of pages). @writable maps it read-write (the reader owns data_tail
 * and may set aux_offset/aux_size); read-only puts the data ring in
 * overwrite mode.
 *
 * Returns -EINVAL for NULL arguments, else -errno from mmap.
 */
int perf_sys_map_ring(const struct perf_sys_ops *sys, int fd, int cpu, size_t page_size,
		      size_t data_size, bool writable, struct perf_event_mmap_page **page,
		      char *err, size_t errlen);

/*
 * Map the AUX area of @aux_size bytes behind a ring mapped writable: sets
 * aux_offset (right after the data ring, as the kernel requires
 * aux_offset >= data_offset + data_size) and aux_size in @page, then maps it
 * read-only, which makes the kernel run the AUX area in overwrite mode: the
 * newest data wins and aux_head is a position inside the buffer.
 *
 * Returns -EINVAL for NULL arguments or a zero size, else -errno from mmap.
 */
int perf_sys_map_aux(const struct perf_sys_ops *sys, int fd, int cpu,
		     struct perf_event_mmap_page *page, size_t aux_size, void **aux, char *err,
		     size_t errlen);

/* Returns -EINVAL for a NULL @addr, else -errno from munmap. */
int perf_sys_unmap(const struct perf_sys_ops *sys, void *addr, size_t len, int cpu, char *err,
		   size_t errlen);

/*
 * PERF_EVENT_IOC_ENABLE / _DISABLE on @fd; @group adds
 * PERF_IOC_FLAG_GROUP so one call switches the leader and its siblings.
 * Returns -EBADF for a negative @fd, else -errno from ioctl.
 */
int perf_sys_enable(const struct perf_sys_ops *sys, int fd, int cpu, bool group, char *err,
		    size_t errlen);
int perf_sys_disable(const struct perf_sys_ops *sys, int fd, int cpu, bool group, char *err,
		     size_t errlen);

/*
 * PERF_EVENT_IOC_ID: the id the kernel puts in every record's sample id.
 * Returns -EINVAL for a NULL @id, -EBADF for a negative @fd, else -errno.
 */
int perf_sys_id(const struct perf_sys_ops *sys, int fd, int cpu, __u64 *id, char *err,
		size_t errlen);

/*
 * PERF_EVENT_IOC_SET_OUTPUT: @fd's records go into @out_fd's ring (and AUX
 * area) from now on. The kernel wants both on the same CPU with the same
 * clock. Returns -EBADF for a negative descriptor, else -errno from ioctl.
 */
int perf_sys_set_output(const struct perf_sys_ops *sys, int fd, int out_fd, int cpu, char *err,
			size_t errlen);

/*
 * Close *@fd when it is not -1 and set it to -1. Returns 0, or -errno from
 * close (the descriptor is gone all the same).
 */
int perf_sys_close(const struct perf_sys_ops *sys, int *fd);

/*
 * The count of event @fd (for cpu-clock: the ns it was scheduled in).
 * Returns 0, -EOPNOTSUPP where @sys has no read, or -errno.
 */
int perf_sys_read(const struct perf_sys_ops *sys, int fd, __u64 *value);

/*
 * A new sample period for event @fd (PERF_EVENT_IOC_PERIOD; for cpu-clock,
 * whose frequency the kernel turns into a period when it opens it, ns).
 */
int perf_sys_period(const struct perf_sys_ops *sys, int fd, __u64 period);

#endif /* PTBPF_PERF_SYS_H */
