// SPDX-License-Identifier: GPL-2.0
/* One line of /proc/PID/maps: see mapline.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mapline.h"

/* Parses a hex number ending at @end's char; advances *@s. */
static int hex(const char **s, char end, uint64_t *v)
{
	char *e;

	errno = 0;
	*v = strtoull(*s, &e, 16);
	if (errno || e == *s || *e != end)
		return -EBADMSG;
	*s = e + 1;
	return 0;
}

/* "start-end perms offset maj:min inode" */
static int parse_fields(const char **s, struct snap_map *m, char perms[5])
{
	uint64_t start, end, maj, min;
	char *e;

	if (hex(s, '-', &start) || hex(s, ' ', &end) || end < start)
		return -EBADMSG;
	if (strlen(*s) < 5 || (*s)[4] != ' ')
		return -EBADMSG;
	memcpy(perms, *s, 4);
	perms[4] = '\0';
	*s += 5;
	if (hex(s, ' ', &m->pgoff) || hex(s, ':', &maj) || hex(s, ' ', &min))
		return -EBADMSG;
	errno = 0;
	m->ino = strtoull(*s, &e, 10);
	if (errno || e == *s || (*e != ' ' && *e != '\n' && *e != '\0'))
		return -EBADMSG;
	*s = e;
	m->start = start;
	m->len = end - start;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	return 0;
}

int mapline_parse(const char *line, struct snap_map *m)
{
	struct snap_map tmp = { 0 };
	const char *s = line;
	char perms[5];
	size_t len;

	if (!line || !m)
		return -EINVAL;
	if (parse_fields(&s, &tmp, perms))
		return -EBADMSG;
	tmp.prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
		   (perms[2] == 'x' ? PROT_EXEC : 0);
	/* the path starts after the padding; it may itself hold spaces */
	while (*s == ' ')
		s++;
	len = strcspn(s, "\n");
	/*
	 * Unwinding a user stack from a copy of it (perf's --call-graph
	 * dwarf) reads .eh_frame_hdr through the read-only mapping that
	 * holds it: file-backed mappings count too, executable or not.
	 */
	if (perms[2] != 'x' && !len)
		return 0;
	if (len) {
		tmp.path = strndup(s, len);
		if (!tmp.path)
			return -ENOMEM;
	}
	*m = tmp;
	return 1;
}
