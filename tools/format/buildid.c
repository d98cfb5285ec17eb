// SPDX-License-Identifier: GPL-2.0
/* ELF build-ids: see buildid.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"

/* The note type of a build-id, in the "GNU" namespace (elf.h). */
#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* Looks for the note in one SHT_NOTE section or PT_NOTE segment. */
static int from_notes(Elf_Data *d, uint8_t *id, size_t *len)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz) {
			*len = nh.n_descsz < BUILDID_MAX ? nh.n_descsz : BUILDID_MAX;
			memcpy(id, (char *)d->d_buf + desc_off, *len);
			return 0;
		}
		off = next;
	}
	return -ENOENT;
}

static int scan(Elf *e, uint8_t *id, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n;

	/* sections first; a stripped file may have only the segment */
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    !from_notes(elf_getdata(scn, NULL), id, len))
			return 0;
	if (elf_getphdrnum(e, &n))
		return -ENOENT;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE &&
		    !from_notes(elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_NHDR), id,
				len))
			return 0;
	return -ENOENT;
}

int buildid_read(const char *path, uint8_t *id, size_t *len)
{
	int fd, rc;
	Elf *e;

	if (!path || !id || !len)
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	/* O_NONBLOCK: a FIFO at a module's path is not waited on; not ELF */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	rc = e && elf_kind(e) == ELF_K_ELF ? scan(e, id, len) : -ENOEXEC;
	elf_end(e);
	close(fd);
	return rc;
}

int buildid_mem(const void *buf, size_t size, uint8_t *id, size_t *len)
{
	char *copy;
	int rc;
	Elf *e;

	if (!buf || !id || !len)
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, size);
	e = elf_memory(copy, size);
	rc = e && elf_kind(e) == ELF_K_ELF ? scan(e, id, len) : -ENOEXEC;
	elf_end(e);
	free(copy);
	return rc;
}

void buildid_hex(const uint8_t *id, size_t len, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * len] = '\0';
}
