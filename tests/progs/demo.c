// SPDX-License-Identifier: GPL-2.0
/*
 * The demo target: a small "server" that hashes requests in a loop, and
 * crashes (a NULL dereference in parse_request) when it gets SIGUSR1.
 * It sleeps 100 us every 4096 requests; "demo busy" never sleeps.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t poison;
static volatile unsigned long served;

static void on_usr1(int sig)
{
	poison = 1;
}

static __attribute__((noinline)) unsigned long hash(const char *s, size_t n)
{
	unsigned long h = 5381;

	while (n--)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* volatile: the compiler may not prove it NULL and drop the access */
static const char *volatile no_request;

static __attribute__((noinline)) const char *parse_request(const char *req)
{
	const char *space;

	if (poison)
		req = no_request;
	space = strchr(req, ' '); /* poisoned: reads address 0 */
	return space ? space + 1 : req;
}

static __attribute__((noinline)) void serve(const char *req)
{
	const char *path = parse_request(req);

	served += hash(path, strlen(path));
}

int main(int argc, char **argv)
{
	static const char *reqs[] = { "GET /index.html", "GET /style.css", "POST /api/v1/items",
				      "GET /favicon.ico" };
	int busy = argc > 1 && !strcmp(argv[1], "busy");
	unsigned long i;

	signal(SIGUSR1, on_usr1);
	printf("demo: pid %d serving\n", getpid());
	fflush(stdout);
	for (i = 0;; i++) {
		serve(reqs[i % 4]);
		if (!busy && i % 4096 == 0)
			usleep(100);
	}
	return 0;
}
