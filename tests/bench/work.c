// SPDX-License-Identifier: GPL-2.0
/*
 * work cpu|sys|pipe|fork N: a fixed workload, timed from inside so that a
 * tracer's start-up is not counted. cpu: N million rounds of an integer
 * hash; sys: N thousand getppid() + 1-byte write to /dev/null; pipe: N
 * thousand round trips of a byte between two threads over two pipes; fork:
 * N fork + wait of a child that exits at once. Prints elapsed ns.
 * WORK_STOP=1: stops itself (SIGSTOP) once its threads exist and before the
 * clock starts, so that a tracer attaches by pid (perf record -p, ptbpf
 * --pid) and sends SIGCONT when it is ready.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static volatile unsigned long sink;

/*
 * WORK_CPUTIME=1: the process's CPU time (all its threads) instead of the
 * wall clock: what the tracer's interrupts and switches add is in it, the
 * time other load on the machine takes from it is not.
 */
static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(getenv("WORK_CPUTIME") ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
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

static int ping[2], pong[2];

/* The other end of the ping-pong: echoes every byte back. */
static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static __attribute__((noinline)) void pingpong(long n)
{
	char c = 'x';

	for (long i = 0; i < n; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
}

static __attribute__((noinline)) void forks(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	unsigned long long t0;
	pthread_t th;

	if (argc < 3 || n <= 0)
		return 2;
	if (!strcmp(argv[1], "pipe")) {
		if (pipe(ping) || pipe(pong) || pthread_create(&th, NULL, echo, NULL))
			return 1;
	}
	if (getenv("WORK_STOP"))
		raise(SIGSTOP);
	t0 = now_ns();
	if (!strcmp(argv[1], "cpu"))
		sink = hash_rounds(n * 1000000L);
	else if (!strcmp(argv[1], "pipe"))
		pingpong(n * 1000L);
	else if (!strcmp(argv[1], "fork"))
		forks(n);
	else
		syscalls(n * 1000L);
	printf("%llu\n", now_ns() - t0);
	return 0;
}
