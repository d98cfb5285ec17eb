// SPDX-License-Identifier: GPL-2.0
/*
 * forkserver N MS [DELAY_MS [nowait]]: a server that sleeps DELAY_MS
 * (default 0), then forks N workers. Each worker prints "worker PID" on
 * stdout, spins in worker_spin() for MS milliseconds of its own CPU time
 * (so a stopped worker resumes where it was, its work still to do) and
 * exits 0; the parent waits for them all and exits 0, or with "nowait"
 * exits at once, leaving them running. The --follow tests: every worker
 * is another process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Mostly its own code: the clock is read once every 100000 rounds. */
static __attribute__((noinline)) void worker_spin(double secs)
{
	double until = cpu_s() + secs;
	unsigned long i;

	while (cpu_s() < until)
		for (i = 0; i < 100000; i++)
			sink++;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, i;
	double secs = (argc > 2 ? atoi(argv[2]) : 1000) / 1e3;
	int delay_ms = argc > 3 ? atoi(argv[3]) : 0;

	if (delay_ms > 0)
		usleep(delay_ms * 1000);

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			printf("worker %d\n", (int)getpid());
			fflush(stdout);
			worker_spin(secs);
			_exit(0);
		}
		if (pid < 0)
			return 1;
	}
	if (argc > 4 && !strcmp(argv[4], "nowait"))
		return 0;
	while (wait(NULL) > 0)
		;
	return 0;
}
