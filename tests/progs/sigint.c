// SPDX-License-Identifier: GPL-2.0
/*
 * sigint: works until SIGINT, then says so and exits 0, as Python's
 * http.server does on Ctrl-C ("Keyboard interrupt received, exiting.").
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;
static volatile unsigned long sink;

static void on_int(int sig)
{
	interrupted = 1;
}

int main(void)
{
	struct sigaction sa;
	struct timespec t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	printf("sigint: pid %d working\n", getpid());
	fflush(stdout);
	while (!interrupted) {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	}
	printf("Keyboard interrupt received, exiting.\n");
	return 0;
}
