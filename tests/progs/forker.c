// SPDX-License-Identifier: GPL-2.0
/*
 * forker MS: forks a child that spins in child_spin() while the parent
 * spins in parent_spin(), both for MS milliseconds (default 2000); the
 * parent then reaps the child and exits 0. Known names for the scope
 * tests: a forked child is another process, not one of the target's
 * threads.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) void child_spin(double until)
{
	while (now_s() < until)
		sink++;
}

static __attribute__((noinline)) void parent_spin(double until)
{
	while (now_s() < until)
		sink += 2;
}

int main(int argc, char **argv)
{
	double until = now_s() + (argc > 1 ? atoi(argv[1]) : 2000) / 1e3;
	pid_t pid = fork();

	if (pid == 0) {
		child_spin(until);
		_exit(0);
	}
	parent_spin(until);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return 0;
}
