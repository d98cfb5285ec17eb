/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The other processes of a --follow or --unit run, each summarized as the
 * snapshot's own process is: its threads and the samples of each, its
 * modules, its hottest functions and, before a stop, a fault or a hit,
 * its last samples, named from its own modules. The summary reads the
 * snapshot as the process the cause was in; these follow it, the run's
 * target first when the cause was elsewhere.
 */
#ifndef PTBPF_DUMP_PROCSUM_H
#define PTBPF_DUMP_PROCSUM_H

#include <stdio.h>

#include "snap.h"
#include "json.h"

/* Samples listed before the cause per followed process. */
#define DUMP_PROC_LAST 4

/*
 * Prints a section per process of @s other than the one it is read as, as
 * text. Returns 0, or -ENOMEM.
 */
int procsum_text(FILE *out, const struct dump_snap *s);

/*
 * The same as the member "followed_processes" (an array) of the JSON
 * object @j has open; nothing when there are none. Returns 0, or -ENOMEM.
 */
int procsum_json(struct json *j, const struct dump_snap *s);

#endif /* PTBPF_DUMP_PROCSUM_H */
