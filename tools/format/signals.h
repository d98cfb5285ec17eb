/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals by name, as events.jsonl and ptbpf.json spell them and
 * ptbpf-dump reads them back.
 */
#ifndef PTBPF_SIGNALS_H
#define PTBPF_SIGNALS_H

#include <stddef.h>

/* "SIGSEGV" for 11; "SIG42" for a signal without a name; NULL for 0. */
const char *signals_name(int sig, char *buf, size_t len);
/* 11 for "SIGSEGV" or "SEGV"; 0 when no signal has that name. */
int signals_number(const char *name);

/*
 * The symbolic name of si_code @code of signal @sig ("SEGV_MAPERR",
 * "SI_USER", "TRAP_BRKPT"...), or NULL when it has none here.
 */
const char *signals_code_name(int sig, int code);

#endif /* PTBPF_SIGNALS_H */
