/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What asked for a snapshot: one kind, written as its name in events.jsonl
 * and ptbpf.json ("trigger") and read back into the kind by ptbpf-dump.
 * The one place the names are spelled. A new kind is a value here and its
 * name in snaptrig.c.
 */
#ifndef PTBPF_SNAPTRIG_H
#define PTBPF_SNAPTRIG_H

enum snaptrig {
	SNAPTRIG_UNKNOWN, /* a name this program doesn't know (a newer ptbpf's) */
	SNAPTRIG_STOP, /* "stop": the target stopped (signal, ptrace, breakpoint) */
	SNAPTRIG_FATAL, /* "fatal": a fatal signal or fault */
	SNAPTRIG_EXIT, /* "exit": the target exited */
	SNAPTRIG_REQUESTED, /* "requested": SIGUSR2 asked (kill -USR2) */
	SNAPTRIG_HIT, /* "trigger": a --trigger-on point was reached */
	SNAPTRIG_END, /* "end": the run ended with data not in a snapshot yet */
	SNAPTRIG_NR,
};

/* The kind's name; NULL for SNAPTRIG_UNKNOWN and out of range. */
const char *snaptrig_name(enum snaptrig k);

/* The kind named @name; SNAPTRIG_UNKNOWN for any other name and NULL. */
enum snaptrig snaptrig_parse(const char *name);

#endif /* PTBPF_SNAPTRIG_H */
