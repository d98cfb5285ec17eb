// SPDX-License-Identifier: GPL-2.0
/*
 * A busy target: spin [THREADS] [MODE]. THREADS threads spin (the main
 * thread too). MODE:
 *   churn        one more thread keeps creating short-lived threads, so
 *                threads start and exit while the process is stopped and
 *                continued
 *   storm        as churn, without the pause between threads: events
 *                faster than any host's load slows them, to fill a ring
 *   block-abrt   SIGABRT is blocked (sigprocmask) in every thread
 *   ignore-abrt  SIGABRT is ignored (SIG_IGN)
 *   zombie       the main thread calls pthread_exit() once the others run:
 *                a zombie leader with live threads
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long sink;

static void *spin(void *arg)
{
	for (;;)
		sink++;
	return NULL;
}

static void *short_lived(void *arg)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink++;
	return NULL;
}

static void *churn(void *arg)
{
	int pause_us = (int)(long)arg;
	pthread_t t;

	for (;;) {
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
		if (pause_us)
			usleep(pause_us);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "";
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	sigset_t abrt;
	pthread_t t;

	sigemptyset(&abrt);
	sigaddset(&abrt, SIGABRT);
	/* before the threads start: they inherit the mask */
	if (!strcmp(mode, "block-abrt"))
		sigprocmask(SIG_BLOCK, &abrt, NULL);
	if (!strcmp(mode, "ignore-abrt"))
		signal(SIGABRT, SIG_IGN);
	for (i = 1; i < n; i++)
		pthread_create(&t, NULL, spin, NULL);
	if (!strcmp(mode, "churn"))
		pthread_create(&t, NULL, churn, (void *)2000L);
	if (!strcmp(mode, "storm"))
		pthread_create(&t, NULL, churn, (void *)0L);
	if (!strcmp(mode, "zombie") && n > 1)
		pthread_exit(NULL);
	spin(NULL);
	return 0;
}
