// SPDX-License-Identifier: GPL-2.0
/* execer PROGRAM [ARG...]: runs a moment, then execs PROGRAM from a second thread. */
#include <pthread.h>
#include <unistd.h>

static char **next;

static void *do_exec(void *arg)
{
	usleep(50000);
	execv(next[0], next);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	next = &argv[1];
	/* exec from a non-leader thread: the kernel gives it the leader's pid */
	pthread_create(&t, NULL, do_exec, NULL);
	pthread_join(t, NULL);
	return 1;
}
