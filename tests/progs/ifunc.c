// SPDX-License-Identifier: GPL-2.0
/*
 * Calls libc's strlen, an IFUNC, through the PLT: ifunc N GAP_MS calls it
 * N times, GAP_MS apart, then exits 0. --trigger-on strlen@libc.so.6 must
 * see these calls, at the implementation the loader bound, not the
 * resolver (which ran once, at load).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what strlen is given: not a constant the compiler could fold */
static char word[64];

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100, i;
	unsigned int gap_ms = argc > 2 ? (unsigned int)atoi(argv[2]) : 10;
	size_t total = 0;

	snprintf(word, sizeof(word), "%s", argv[0]);
	for (i = 0; i < n; i++) {
		total += strlen(word);
		usleep(gap_ms * 1000);
	}
	return total ? 0 : 1;
}
