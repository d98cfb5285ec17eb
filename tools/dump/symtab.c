// SPDX-License-Identifier: GPL-2.0
/* Modules, images and symbols: see symtab.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "snapfmt.h"
#include "symtab.h"
#include "textesc.h"
#include "fmtnum.h"

static size_t underscores(const char *name)
{
	return strspn(name, "_");
}

static int sym_cmp(const void *a, const void *b)
{
	const struct dump_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return y->rank - x->rank; /* the better alias first */
	/* as perf chooses among aliases: fewer leading underscores, then
	 * the longer name (clone3 over __clone3) */
	if (underscores(x->name) != underscores(y->name))
		return underscores(x->name) < underscores(y->name) ? -1 : 1;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) > strlen(y->name) ? -1 : 1;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Run-time range and bias from the PT_LOAD headers; image segments. */
static int segments(Elf *e, struct dump_elf *m, uint64_t load, struct pt_image *image,
		    struct pt_image_section_cache *iscache, struct dump_log *log)
{
	bool first = true;
	GElf_Phdr ph;
	size_t n, i;
	int isid;

	if (elf_getphdrnum(e, &n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) {
			m->bias = load - (ph.p_vaddr - ph.p_offset);
			m->lo = ph.p_vaddr + m->bias;
			first = false;
		}
		if (ph.p_vaddr + m->bias + ph.p_memsz > m->hi)
			m->hi = ph.p_vaddr + m->bias + ph.p_memsz;
		if (!image || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		/* through the section cache: the block decoder caches its
		 * blocks per cached section, and insn.c reads code from it */
		isid = pt_iscache_add_file(iscache, m->path, ph.p_offset, ph.p_filesz,
					   ph.p_vaddr + m->bias);
		if (isid < 0 || pt_image_add_cached(image, iscache, isid, NULL) < 0)
			snap_error(log, m->path, (int64_t)ph.p_offset,
				   "segment not usable by the decoder");
	}
	return first ? -EBADMSG : 0;
}

static int add_syms(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct dump_elf *m)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;
	GElf_Sym sym;
	const char *name;
	struct dump_sym *s;
	int type, bind;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	s = realloc(m->syms, (m->nr_syms + n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->syms = s;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		s = &m->syms[m->nr_syms];
		s->addr = sym.st_value + m->bias;
		s->size = sym.st_size;
		s->rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
		s->name = textesc_dup(name);
		if (!s->name)
			return -ENOMEM;
		m->nr_syms++;
	}
	return 0;
}

/* The .symtab of @e, added to @m; -ENOENT when it has none. */
static int add_symtab(Elf *e, struct dump_elf *m)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return add_syms(e, scn, &sh, m);
	return -ENOENT;
}

/*
 * A stripped file's full symbol table lives in its separate debug file,
 * found by build-id as perf and gdb find it (Debian's -dbg packages):
 * DUMP_DEBUG_DIR/.build-id/xx/rest.debug, linked at the same addresses.
 */
static int debug_symtab(const char *path, struct dump_elf *m)
{
	char hex[2 * BUILDID_MAX + 1], dbg[128];
	uint8_t id[BUILDID_MAX];
	int fd, ret = -ENOENT;
	size_t len;
	Elf *e;

	if (buildid_read(path, id, &len) || len < 2)
		return -ENOENT;
	buildid_hex(id, len, hex);
	snprintf(dbg, sizeof(dbg), DUMP_DEBUG_DIR "/.build-id/%.2s/%s.debug", hex, hex + 2);
	fd = open(dbg, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -ENOENT;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		ret = add_symtab(e, m);
	elf_end(e);
	close(fd);
	return ret;
}

static Elf_Scn *section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * PLT entries, named as perf names them: "strlen@plt". Each .rela.plt
 * relocation is one 16-byte entry, in order, in .plt.sec when the file
 * has one (IBT), else in .plt after its first, resolver entry.
 */
static int add_plt(Elf *e, struct dump_elf *m)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rela, *plt, *dyn;
	Elf_Data *rd, *dd;
	const char *name;
	struct dump_sym *s;
	uint64_t base;
	GElf_Rela r;
	GElf_Sym sym;
	size_t i, n;
	char buf[256];

	rela = section_named(e, ".rela.plt", &rsh);
	plt = section_named(e, ".plt.sec", &psh);
	base = plt ? psh.sh_addr : 0;
	if (!plt) {
		plt = section_named(e, ".plt", &psh);
		base = psh.sh_addr + 16;
	}
	if (!rela || !plt || rsh.sh_type != SHT_RELA || !rsh.sh_entsize ||
	    !(dyn = elf_getscn(e, rsh.sh_link)) || !gelf_getshdr(dyn, &dsh) ||
	    !(rd = elf_getdata(rela, NULL)) || !(dd = elf_getdata(dyn, NULL)))
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	if (n > (psh.sh_size - (base - psh.sh_addr)) / 16)
		n = (psh.sh_size - (base - psh.sh_addr)) / 16;
	s = realloc(m->syms, (m->nr_syms + n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	m->syms = s;
	for (i = 0; i < n; i++) {
		if (!gelf_getrela(rd, (int)i, &r) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(e, dsh.sh_link, sym.st_name)) || !*name)
			continue;
		s = &m->syms[m->nr_syms];
		s->addr = base + 16 * i + m->bias;
		s->size = 16;
		s->rank = 0;
		snprintf(buf, sizeof(buf), "%s@plt", name);
		s->name = strdup(buf);
		if (!s->name)
			return -ENOMEM;
		m->nr_syms++;
	}
	return 0;
}

/*
 * .symtab when the file has one (not stripped), else its debug file's,
 * else .dynsym: the names perf shows; and the PLT's entries.
 */
static int symbols(Elf *e, const char *path, struct dump_elf *m)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;
	int ret;

	ret = add_symtab(e, m);
	if (ret == -ENOENT)
		ret = debug_symtab(path, m);
	if (ret != -ENOENT)
		goto sort;
	while ((scn = elf_nextscn(e, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
	}
	ret = dyn ? add_syms(e, dyn, &dsh, m) : 0;
sort:
	if (ret != -ENOMEM && add_plt(e, m))
		ret = -ENOMEM;
	if (m->nr_syms)
		qsort(m->syms, m->nr_syms, sizeof(*m->syms), sym_cmp);
	return ret;
}

static int load_one(struct dump_elf *m, const struct dump_module *mod, struct pt_image *image,
		    struct pt_image_section_cache *iscache, struct dump_log *log)
{
	const char *base;
	struct stat st;
	int fd, ret = 0;
	Elf *e;

	base = strrchr(mod->path, '/');
	m->path = strdup(mod->path);
	m->shown = textesc_dup(base ? base + 1 : mod->path);
	if (!m->path || !m->shown)
		return -ENOMEM;
	/* a FIFO named as a module must not hang the reader */
	fd = open(mod->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snap_error(log, mod->path, -1, "module: %s", strerror(errno));
		return -ENOENT;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snap_error(log, mod->path, -1, "module: not a regular file");
		close(fd);
		return -ENOENT;
	}
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64) {
		snap_error(log, mod->path, 0, "module: not a 64-bit ELF file");
		ret = -EBADMSG;
	} else if (segments(e, m, mod->load, image, iscache, log)) {
		snap_error(log, mod->path, -1, "module: no loadable segment");
		ret = -EBADMSG;
	} else {
		ret = symbols(e, mod->path, m);
	}
	elf_end(e);
	close(fd);
	return ret;
}

static void free_one(struct dump_elf *m)
{
	size_t i;

	for (i = 0; i < m->nr_syms; i++)
		free(m->syms[i].name);
	free(m->syms);
	free(m->path);
	free(m->shown);
	memset(m, 0, sizeof(*m));
}

/*
 * A [vdso] whose image the snapshot holds: a module of that file loaded
 * at the range's start (the image's addresses count from its load
 * address), shown as "[vdso]". Returns 1 when it is not one (or the file
 * does not load: reported, the range stays a range), 0 or -ENOMEM.
 */
static int vdso_module(struct dump_elf *m, const struct dump_snap *s, const struct dump_range *rg,
		       struct pt_image *image, struct pt_image_section_cache *iscache,
		       struct dump_log *log)
{
	struct dump_module mod;
	int ret;

	if (!s->vdso_path || !s->vdso || strcmp(s->vdso, SNAPFMT_VDSO) ||
	    strcmp(rg->name, "[vdso]"))
		return 1;
	mod.path = s->vdso_path;
	mod.load = rg->start;
	ret = load_one(m, &mod, image, iscache, log);
	if (!ret && m->lo != rg->start) {
		snap_error(log, s->vdso_path, -1, "module: not loaded at its start, 0x%" PRIx64,
			   rg->start);
		ret = -EBADMSG;
	}
	if (!ret) {
		free(m->shown);
		m->shown = strdup(rg->name);
		if (!m->shown)
			ret = -ENOMEM;
		/* a range read from trace.json has no length: the image's */
		if (rg->end > m->hi)
			m->hi = rg->end;
	}
	if (ret)
		free_one(m);
	return ret == -ENOMEM ? ret : ret ? 1 : 0;
}

/* [vdso] and [uprobes]: modules without a file or a symbol, but a saved [vdso] */
static int add_ranges(struct dump_symtab *tab, const struct dump_snap *s, struct pt_image *image,
		      struct dump_log *log)
{
	struct dump_elf *m;
	unsigned int i;
	int ret;

	if (!s->nr_ranges)
		return 0;
	m = realloc(tab->mods, (tab->nr + s->nr_ranges) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	tab->mods = m;
	for (i = 0; i < s->nr_ranges; i++) {
		m = &tab->mods[tab->nr];
		memset(m, 0, sizeof(*m));
		ret = vdso_module(m, s, &s->ranges[i], image, tab->iscache, log);
		if (ret < 0)
			return ret;
		if (!ret) {
			tab->nr++;
			continue;
		}
		m->path = strdup(s->ranges[i].name);
		/* shown as it is: the reader made the name, "[...]" */
		m->shown = strdup(s->ranges[i].name);
		if (!m->path || !m->shown) {
			free(m->path);
			free(m->shown);
			return -ENOMEM;
		}
		m->lo = s->ranges[i].start;
		m->hi = s->ranges[i].end;
		tab->nr++;
	}
	return 0;
}

int symtab_load(struct dump_symtab *tab, const struct dump_snap *s, struct pt_image *image,
		struct dump_log *log)
{
	unsigned int i;
	int ret;

	if (!tab || !s || !log)
		return -EINVAL;
	memset(tab, 0, sizeof(*tab));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	tab->mods = calloc(s->nr_modules ? s->nr_modules : 1, sizeof(*tab->mods));
	if (!tab->mods)
		return -ENOMEM;
	if (image) {
		tab->iscache = pt_iscache_alloc(NULL);
		if (!tab->iscache)
			return -ENOMEM;
	}
	for (i = 0; i < s->nr_modules; i++) {
		ret = load_one(&tab->mods[tab->nr], &s->modules[i], image, tab->iscache, log);
		if (ret == -ENOMEM) {
			free_one(&tab->mods[tab->nr]);
			return ret;
		}
		if (ret)
			free_one(&tab->mods[tab->nr]);
		else
			tab->nr++;
	}
	return add_ranges(tab, s, image, log);
}

void symtab_free(struct dump_symtab *tab)
{
	size_t i;

	if (!tab)
		return;
	for (i = 0; i < tab->nr; i++)
		free_one(&tab->mods[i]);
	free(tab->mods);
	/* the image's sections hold their own references */
	pt_iscache_free(tab->iscache);
	memset(tab, 0, sizeof(*tab));
}

static const struct dump_elf *module_of(const struct dump_symtab *tab, uint64_t ip)
{
	size_t i;

	for (i = 0; i < tab->nr; i++)
		if (ip >= tab->mods[i].lo && ip < tab->mods[i].hi)
			return &tab->mods[i];
	return NULL;
}

/*
 * The symbol of @m covering @ip, and in [*@lo, *@hi) the addresses it
 * covers (the module's end or the next symbol bound an unsized one).
 */
static const struct dump_sym *sym_in(const struct dump_elf *m, uint64_t ip, uint64_t *from,
				     uint64_t *to)
{
	const struct dump_sym *s;
	size_t lo = 0, hi;

	hi = m->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &m->syms[lo - 1];
	/* the first of equal addresses is the preferred alias */
	while (s > m->syms && s[-1].addr == s->addr)
		s--;
	/* a sized symbol covers only its size; an unsized one up to the next */
	if (s->size && ip >= s->addr + s->size)
		return NULL;
	*from = s->addr;
	/* ... and a symbol starting inside it takes over from there */
	*to = s->size ? s->addr + s->size : m->hi;
	if (lo < m->nr_syms && m->syms[lo].addr < *to)
		*to = m->syms[lo].addr;
	if (*to > m->hi)
		*to = m->hi;
	return s;
}

const char *symtab_find(const struct dump_symtab *tab, uint64_t ip, uint64_t *off)
{
	const struct dump_elf *m = tab ? module_of(tab, ip) : NULL;
	const struct dump_sym *s;
	uint64_t lo, hi;

	if (!m || !(s = sym_in(m, ip, &lo, &hi)))
		return NULL;
	*off = ip - s->addr;
	return s->name;
}

char *symtab_format_fast(const struct dump_symtab *tab, struct dump_sym_cache *c, uint64_t ip,
			 char *buf)
{
	const struct dump_elf *m;
	const struct dump_sym *s;
	uint64_t lo, hi;
	unsigned int i;
	char *p = buf;

	for (i = 0; i < DUMP_SYM_CACHE; i++) {
		if (c->e[i].name && ip >= c->e[i].lo && ip < c->e[i].hi) {
			c->fn = c->e[i].name;
			c->fn_lo = c->e[i].lo;
			memcpy(p, c->e[i].name, c->e[i].len);
			p += c->e[i].len;
			*p++ = '+';
			return fmt_0x(p, ip - c->e[i].lo);
		}
	}
	m = tab ? module_of(tab, ip) : NULL;
	s = m ? sym_in(m, ip, &lo, &hi) : NULL;
	if (s && lo < hi) {
		i = c->next++ % DUMP_SYM_CACHE;
		c->e[i].lo = lo;
		c->e[i].hi = hi;
		c->e[i].name = s->name;
		c->e[i].len = strnlen(s->name, 256);
		c->fn = s->name;
		c->fn_lo = lo;
		memcpy(p, s->name, c->e[i].len);
		p += c->e[i].len;
		*p++ = '+';
		return fmt_0x(p, ip - s->addr);
	}
	c->fn = m ? m->shown : NULL;
	c->fn_lo = m ? m->lo : 0;
	if (!m)
		return fmt_0x(p, ip);
	p = fmt_str(p, m->shown, 256);
	return fmt_0x(fmt_str(p, "+", 1), ip - m->lo);
}

const char *symtab_module(const struct dump_symtab *tab, uint64_t ip)
{
	const struct dump_elf *m = tab ? module_of(tab, ip) : NULL;

	return m ? m->shown : NULL;
}

const char *symtab_format(const struct dump_symtab *tab, uint64_t ip, char *buf, size_t len)
{
	const struct dump_elf *m = tab ? module_of(tab, ip) : NULL;
	const char *name;
	uint64_t off;

	name = symtab_find(tab, ip, &off);
	if (name) {
		snprintf(buf, len, "%s+0x%" PRIx64, name, off);
	} else if (m) {
		snprintf(buf, len, "%s+0x%" PRIx64, m->shown, ip - m->lo);
	} else {
		snprintf(buf, len, "0x%" PRIx64, ip);
	}
	return buf;
}

const char *symtab_func_name(const struct dump_symtab *tab, uint64_t ip, char *buf, size_t len)
{
	uint64_t off;
	const char *name = symtab_find(tab, ip, &off);
	char *plus;

	if (name)
		return name;
	symtab_format(tab, ip, buf, len);
	/* "module+0x..." loses its offset; "0x..." has none */
	plus = strchr(buf, '+');
	if (plus && strncmp(buf, "0x", 2))
		*plus = '\0';
	return buf;
}
