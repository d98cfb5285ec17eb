/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line of /proc/PID/maps as a snap_map: the one parser of the kernel's
 * format, for the target's maps (procinfo.h) and ptbpf's own, where its
 * vDSO lies (vdso.h).
 */
#ifndef PTBPF_MAPLINE_H
#define PTBPF_MAPLINE_H

#include "base/snapshot.h"

/*
 * Parses one line of /proc/PID/maps into @m (the path is malloc'd, NULL
 * for an anonymous mapping; a path may hold spaces and any byte but '\n',
 * which the kernel writes as "\012").
 *
 * Returns 1 if the mapping is executable or backed by a file (or a
 * [name]) and @m was filled, 0 for other anonymous memory (@m untouched).
 * Returns -EINVAL if @line or @m is NULL.
 * Returns -EBADMSG if @line is not a maps line.
 * Returns -ENOMEM if copying the path fails.
 */
int mapline_parse(const char *line, struct snap_map *m);

#endif /* PTBPF_MAPLINE_H */
