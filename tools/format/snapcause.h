/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What asked for a snapshot, its cause: one kind, written as its name in
 * events.jsonl and ptbpf.json (key "trigger", kept from before the cause
 * had its word) and read back into the kind by ptbpf-dump.
 * The one place the names are spelled. A new kind is a value here and its
 * name in snapcause.c.
 */
#ifndef PTBPF_SNAPCAUSE_H
#define PTBPF_SNAPCAUSE_H

enum snap_cause_kind {
	SNAPCAUSE_UNKNOWN, /* a name this program doesn't know (a newer ptbpf's) */
	SNAPCAUSE_STOP, /* "stop": the target stopped (signal, ptrace, breakpoint) */
	SNAPCAUSE_FATAL, /* "fatal": a fatal signal or fault */
	SNAPCAUSE_EXIT, /* "exit": the target exited */
	SNAPCAUSE_REQUESTED, /* "requested": SIGUSR2 asked (kill -USR2) */
	SNAPCAUSE_HIT, /* "trigger": a --trigger-on point was reached */
	SNAPCAUSE_END, /* "end": the run ended with data not in a snapshot yet */
	SNAPCAUSE_NR,
};

/* The kind's name; NULL for SNAPCAUSE_UNKNOWN and out of range. */
const char *snapcause_name(enum snap_cause_kind k);

/* The kind named @name; SNAPCAUSE_UNKNOWN for any other name and NULL. */
enum snap_cause_kind snapcause_parse(const char *name);

#endif /* PTBPF_SNAPCAUSE_H */
