// SPDX-License-Identifier: GPL-2.0
/*
 * manyforks N: forks N children that all live at once, each blocked in a
 * read of a pipe, then waits for SIGTERM or SIGINT; then it closes the
 * pipe (every child reads EOF and exits, also when the parent is killed),
 * reaps them and exits 0. For --follow's limit of processes followed at
 * once. Prints "forked N" when all are there.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, i, made = 0, sig, p[2];
	sigset_t set;
	char c;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe(p))
		return 1;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(p[1]);
			while (read(p[0], &c, 1) > 0)
				;
			_exit(0);
		}
		if (pid < 0)
			break;
		made++;
	}
	printf("forked %d\n", made);
	fflush(stdout);
	sigwait(&set, &sig);
	close(p[1]);
	while (wait(NULL) > 0)
		;
	return made == n ? 0 : 1;
}
