// SPDX-License-Identifier: GPL-2.0
/*
 * A busy target: spin [THREADS] [churn]. THREADS threads spin (the main
 * thread too); with "churn", one more thread keeps creating short-lived
 * threads, so threads start and exit while the process is stopped and
 * continued.
 */
#include <pthread.h>
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
	pthread_t t;

	for (;;) {
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
		usleep(2000);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	pthread_t t;

	for (i = 1; i < n; i++)
		pthread_create(&t, NULL, spin, NULL);
	if (argc > 2 && !strcmp(argv[2], "churn"))
		pthread_create(&t, NULL, churn, NULL);
	spin(NULL);
	return 0;
}
