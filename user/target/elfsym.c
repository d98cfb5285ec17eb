// SPDX-License-Identifier: GPL-2.0
/* Functions of an ELF file by name: see elfsym.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_open(const char *path, struct elf_file *f)
{
	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto bad;
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		goto bad;
	return 0;
bad:
	if (f->elf)
		elf_end(f->elf);
	close(f->fd);
	f->fd = -1;
	f->elf = NULL;
	return -ENOEXEC;
}

static void elf_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

static int vaddr_offset(Elf *elf, uint64_t addr, uint64_t *offset)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ERANGE;
}

static bool is_function(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF;
}

/* Calls @fn for every defined function of .symtab and .dynsym. */
typedef void (*sym_fn)(void *ctx, const char *name, const GElf_Sym *s);

static bool each_function(Elf *elf, sym_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	bool any = false;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		any = true;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s) || !is_function(&s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && *name)
				fn(ctx, name, &s);
		}
	}
	return any;
}

struct find_ctx {
	Elf *elf;
	const char *name;
	struct elfsym_match *out;
	unsigned int max, nr;
	/* addresses seen, for the count past @max */
	uint64_t seen[64];
	unsigned int nr_seen;
};

static void find_one(void *ctx, const char *name, const GElf_Sym *s)
{
	struct find_ctx *c = ctx;
	struct elfsym_match m = { 0 };
	unsigned int i;

	if (strcmp(name, c->name))
		return;
	/* .symtab and .dynsym both name an exported function: once */
	for (i = 0; i < c->nr_seen; i++)
		if (c->seen[i] == s->st_value)
			return;
	if (c->nr_seen < sizeof(c->seen) / sizeof(c->seen[0]))
		c->seen[c->nr_seen++] = s->st_value;
	m.addr = s->st_value;
	m.size = s->st_size;
	m.local = GELF_ST_BIND(s->st_info) == STB_LOCAL;
	m.ifunc = GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC;
	if (vaddr_offset(c->elf, m.addr, &m.offset))
		m.offset = m.addr; /* a relocatable object: no segments */
	if (c->nr < c->max)
		c->out[c->nr] = m;
	c->nr++;
}

int elfsym_find(const char *path, const char *name, struct elfsym_match *out, unsigned int max,
		unsigned int *nr)
{
	struct find_ctx c = { .name = name, .out = out, .max = max };
	struct elf_file f;
	bool any;
	int ret;

	if (!path || !name || (!out && max) || !nr)
		return -EINVAL;
	ret = elf_open(path, &f);
	if (ret)
		return ret;
	c.elf = f.elf;
	any = each_function(f.elf, find_one, &c);
	elf_close(&f);
	*nr = c.nr;
	return any ? 0 : -ENOEXEC;
}

struct similar_ctx {
	const char *part;
	unsigned int max, n;
	char *buf;
	size_t len, used;
};

static void similar_one(void *ctx, const char *name, const GElf_Sym *s)
{
	struct similar_ctx *c = ctx;
	int w;

	(void)s;
	if (c->n >= c->max || !strstr(name, c->part))
		return;
	/* the same name twice (.symtab and .dynsym) is one candidate */
	if (c->used && strstr(c->buf, name)) {
		const char *p = c->buf;
		size_t l = strlen(name);

		while ((p = strstr(p, name))) {
			if ((p == c->buf || p[-1] == ' ') && (p[l] == ',' || p[l] == '\0'))
				return;
			p += l;
		}
	}
	w = snprintf(c->buf + c->used, c->len - c->used, "%s%s", c->used ? ", " : "", name);
	if (w < 0 || (size_t)w >= c->len - c->used) {
		c->buf[c->used] = '\0';
		c->n = c->max; /* full */
		return;
	}
	c->used += (size_t)w;
	c->n++;
}

int elfsym_similar(const char *path, const char *part, unsigned int max, char *buf, size_t len)
{
	struct similar_ctx c = { .part = part, .max = max, .buf = buf, .len = len };
	struct elf_file f;
	int ret;

	if (!path || !part || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	ret = elf_open(path, &f);
	if (ret)
		return ret;
	each_function(f.elf, similar_one, &c);
	elf_close(&f);
	return (int)c.n;
}

int elfsym_addr_offset(const char *path, uint64_t addr, uint64_t *offset)
{
	struct elf_file f;
	int ret;

	if (!path || !offset)
		return -EINVAL;
	ret = elf_open(path, &f);
	if (ret)
		return ret;
	ret = vaddr_offset(f.elf, addr, offset);
	elf_close(&f);
	return ret;
}

struct name_ctx {
	uint64_t addr;
	char *buf;
	size_t len;
	int rank; /* of what buf holds: a global name over a local alias */
};

static void name_one(void *ctx, const char *name, const GElf_Sym *s)
{
	struct name_ctx *c = ctx;
	int rank = GELF_ST_BIND(s->st_info) == STB_LOCAL ? 1 : 2;

	if (s->st_value != c->addr || GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC || rank <= c->rank)
		return;
	snprintf(c->buf, c->len, "%s", name);
	c->rank = rank;
}

int elfsym_name_at(const char *path, uint64_t addr, char *buf, size_t len)
{
	struct name_ctx c = { .addr = addr, .buf = buf, .len = len };
	struct elf_file f;
	int ret;

	if (!path || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	ret = elf_open(path, &f);
	if (ret)
		return ret;
	each_function(f.elf, name_one, &c);
	elf_close(&f);
	return 0;
}
