// SPDX-License-Identifier: GPL-2.0
/*
 * rss CMD [ARG...]: runs CMD, passes SIGINT/SIGTERM on to it, and prints
 * its peak resident set (wait4's ru_maxrss, KiB) on stderr as
 * "maxrss_kib N" once it exits. Exits with CMD's status.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int st;

	if (argc < 2)
		return 2;
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	child = fork();
	if (child == 0) {
		execvp(argv[1], &argv[1]);
		_exit(127);
	}
	while (wait4(child, &st, 0, &ru) < 0)
		;
	fprintf(stderr, "maxrss_kib %ld\n", ru.ru_maxrss);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
