// SPDX-License-Identifier: GPL-2.0
/*
 * work cpu|sys N: a fixed workload, timed from inside so that a tracer's
 * start-up is not counted. cpu: N million rounds of an integer hash; sys:
 * N thousand getppid() + 1-byte write to /dev/null. Prints elapsed ns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static volatile unsigned long sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __attribute__((noinline)) unsigned long hash_rounds(long n)
{
	unsigned long h = 5381;

	for (long i = 0; i < n; i++)
		h = (h * 33) ^ (h >> 7) ^ (unsigned long)i;
	return h;
}

static __attribute__((noinline)) void syscalls(long n)
{
	int fd = open("/dev/null", O_WRONLY);

	for (long i = 0; i < n; i++) {
		sink += syscall(SYS_getppid);
		if (write(fd, "x", 1) != 1)
			sink++;
	}
	close(fd);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	unsigned long long t0;

	if (argc < 3 || n <= 0)
		return 2;
	t0 = now_ns();
	if (!strcmp(argv[1], "cpu"))
		sink = hash_rounds(n * 1000000L);
	else
		syscalls(n * 1000L);
	printf("%llu\n", now_ns() - t0);
	return 0;
}
