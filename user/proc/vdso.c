// SPDX-License-Identifier: GPL-2.0
/* ptbpf's own vDSO image: see vdso.h. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "mapline.h"
#include "vdso.h"

bool vdso_abi_native(const unsigned char *hdr, size_t len)
{
	Elf64_Half machine;

	if (!hdr || len < EI_NIDENT + 4 || memcmp(hdr, ELFMAG, SELFMAG) ||
	    hdr[EI_CLASS] != ELFCLASS64 || hdr[EI_DATA] != ELFDATA2LSB)
		return false;
	/* e_machine follows e_type, right after e_ident */
	memcpy(&machine, hdr + EI_NIDENT + 2, sizeof(machine));
	return machine == EM_X86_64;
}

/* Whether [@off, @off + @n * @each) ends within @avail; its end in *@end. */
static bool fits(uint64_t off, uint64_t n, uint64_t each, size_t avail, uint64_t *end)
{
	if (n && each > (UINT64_MAX - off) / n)
		return false;
	*end = off + n * each;
	return *end <= avail;
}

int vdso_elf_size(const void *buf, size_t avail, size_t *len)
{
	const unsigned char *b = buf;
	uint64_t end, most;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;

	if (!buf || !len)
		return -EINVAL;
	if (avail < sizeof(eh) || !vdso_abi_native(b, avail))
		return -ENOEXEC;
	memcpy(&eh, b, sizeof(eh));
	if (eh.e_type != ET_DYN || eh.e_phentsize != sizeof(ph) ||
	    (eh.e_shnum && eh.e_shentsize != sizeof(Elf64_Shdr)))
		return -ENOEXEC;
	most = sizeof(eh);
	if (!fits(eh.e_phoff, eh.e_phnum, sizeof(ph), avail, &end))
		return -ENOEXEC;
	most = end > most ? end : most;
	if (!fits(eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr), avail, &end))
		return -ENOEXEC;
	most = end > most ? end : most;
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, b + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD)
			continue;
		if (!fits(ph.p_offset, 1, ph.p_filesz, avail, &end))
			return -ENOEXEC;
		most = end > most ? end : most;
	}
	*len = (size_t)most;
	return 0;
}

/* The length of the [vdso] mapping of @maps that starts at @addr; 0: none. */
static int mapping_len(const char *maps, uint64_t addr, size_t *len)
{
	struct snap_map m;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	*len = 0;
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (!*len && getline(&line, &cap, f) > 0) {
		if (mapline_parse(line, &m) != 1)
			continue;
		if (m.path && !strcmp(m.path, "[vdso]") && m.start == addr)
			*len = m.len;
		free(m.path);
	}
	free(line);
	fclose(f);
	return *len ? 0 : -ENOENT;
}

int vdso_image_read(const char *maps, struct vdso_image *img)
{
	unsigned long addr = getauxval(AT_SYSINFO_EHDR);
	size_t avail, len;
	int ret;

	if (!img)
		return -EINVAL;
	memset(img, 0, sizeof(*img));
	if (!addr)
		return -ENOENT;
	/* only what the mapping holds is read: past it may be unmapped */
	ret = mapping_len(maps ? maps : "/proc/self/maps", addr, &avail);
	if (ret)
		return ret;
	ret = vdso_elf_size((const void *)addr, avail, &len);
	if (ret)
		return ret;
	img->data = (const void *)addr;
	img->len = len;
	img->addr = addr;
	if (buildid_mem(img->data, img->len, img->build_id, &img->build_id_len))
		img->build_id_len = 0;
	return 0;
}
