/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The error convention of the modules that explain a failure in their
 * caller's buffer (cores, target, outdir, hitpoint, ...): return -errno, and
 * one line without the "ptbpf: " prefix in @err, which main.c prints once.
 */
#ifndef PTBPF_ERRBUF_H
#define PTBPF_ERRBUF_H

#include <stddef.h>

/*
 * Formats the line into @err (@errlen bytes; NULL or 0: no text wanted)
 * and returns @rc, so a failure reads `return errbuf_set(err, len, -EINVAL,
 * "...")`. Allocates nothing: fine on the control path.
 */
int errbuf_set(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* PTBPF_ERRBUF_H */
