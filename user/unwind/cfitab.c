// SPDX-License-Identifier: GPL-2.0
/* An ELF file's CFI as a compact table of unwind rows: see cfitab.h. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfitab.h"

/* x86-64's DWARF register numbers (the psABI's table) */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* The kernel maps a segment from its offset rounded down to a page. */
#define PAGE_MASK_4K (~(uint64_t)4095)

/* One FDE row, or its part that no earlier one covers: [start, end). */
struct ival {
	uint64_t start, end;
	uint32_t rule;
	uint32_t seq; /* the order read: of two at one start, the first wins */
};

struct ivals {
	struct ival *v;
	size_t n, cap;
};

struct build {
	Elf *elf;
	unsigned char ident[EI_NIDENT];
	struct cfitab *tab;
	/* each executable PT_LOAD's [vaddr, vaddr + memsz): rows outside are dropped */
	uint64_t code_lo[CFITAB_MAX_SEGS], code_hi[CFITAB_MAX_SEGS];
	unsigned int nr_code;
	struct ivals eh, debug;
	/* the CIE whose encoding was read last (FDEs mostly share one) */
	Dwarf_Off cie_off;
	int cie_enc; /* -1: none read yet */
};

uint32_t cfitab_rule(enum cfitab_kind kind, int64_t cfa_off, int rbp_saved, int64_t rbp_off)
{
	uint32_t rule;

	switch (kind) {
	case CFITAB_RSP:
	case CFITAB_RBP:
	case CFITAB_PLT:
		break;
	case CFITAB_NO_CFI:
	case CFITAB_END:
	case CFITAB_UNSUPPORTED:
		return kind;
	default:
		return CFITAB_UNSUPPORTED;
	}
	if (cfa_off < 0 || cfa_off > CFITAB_CFA_OFF_MAX)
		return CFITAB_UNSUPPORTED;
	rule = kind | (uint32_t)cfa_off << CFITAB_CFA_SHIFT;
	if (kind == CFITAB_PLT) {
		/* the pushes of a PLT entry leave rbp alone; k is a nibble's value */
		if (rbp_saved || rbp_off < 0 || rbp_off > 15)
			return CFITAB_UNSUPPORTED;
		return rule | (uint32_t)rbp_off << CFITAB_RBP_SHIFT;
	}
	if (!rbp_saved)
		return rule;
	if (rbp_off % 8 || rbp_off < CFITAB_RBP_OFF_MIN || rbp_off > CFITAB_RBP_OFF_MAX)
		return CFITAB_UNSUPPORTED;
	return rule | CFITAB_RBP_SAVED |
	       (uint32_t)(uint8_t)(int8_t)(rbp_off / 8) << CFITAB_RBP_SHIFT;
}

int cfitab_cfa(uint32_t rule, uint64_t rsp, uint64_t rbp, uint64_t rip, uint64_t *cfa)
{
	switch (cfitab_kind(rule)) {
	case CFITAB_RSP:
		*cfa = rsp + cfitab_cfa_off(rule);
		return 0;
	case CFITAB_RBP:
		*cfa = rbp + cfitab_cfa_off(rule);
		return 0;
	case CFITAB_PLT:
		*cfa = rsp + cfitab_cfa_off(rule) + ((rip & 15) >= cfitab_plt_k(rule) ? 8 : 0);
		return 0;
	default:
		return -ENOENT;
	}
}

/* Location ops "CFA + off" (a register saved at CFA + off), as libdw gives them. */
static bool cfa_plus(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		*off = 0;
		return true;
	}
	if (ops[1].atom != DW_OP_plus_uconst)
		return false;
	/* libdw carries a negative data-aligned offset in the unsigned operand */
	*off = (int64_t)ops[1].number;
	return true;
}

/*
 * binutils' lazy PLT: rsp + off, 8 more once the entry's push ran, which
 * the low nibble of rip tells (entries are 16 bytes, 16-aligned).
 */
static bool plt_expr(const Dwarf_Op *o, size_t n, int64_t *off, int64_t *k)
{
	if (n != 9 || o[0].atom != DW_OP_breg7 || o[1].atom != DW_OP_breg16 || o[1].number != 0 ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and || o[4].atom < DW_OP_lit0 ||
	    o[4].atom > DW_OP_lit15 || o[5].atom != DW_OP_ge || o[6].atom != DW_OP_lit3 ||
	    o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return false;
	*off = (int64_t)o[0].number;
	*k = o[4].atom - DW_OP_lit0;
	return true;
}

/* libdw's row @f as a rule: what cfitab.h says is covered, or not */
static uint32_t classify(Dwarf_Frame *f, bool signal)
{
	Dwarf_Op mem[3], *ops = NULL;
	int64_t off, rbp_off = 0;
	enum cfitab_kind kind;
	int rbp_saved = 0;
	size_t n = 0;

	if (signal)
		return CFITAB_UNSUPPORTED;
	if (dwarf_frame_register(f, REG_RA, mem, &ops, &n))
		return CFITAB_UNSUPPORTED;
	/* no ops: undefined (nothing called this frame), or "same value" */
	if (!n)
		return ops ? CFITAB_END : CFITAB_UNSUPPORTED;
	if (!cfa_plus(ops, n, &off) || off != -8)
		return CFITAB_UNSUPPORTED;
	if (dwarf_frame_cfa(f, &ops, &n))
		return CFITAB_UNSUPPORTED;
	if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number == REG_RSP)
		kind = CFITAB_RSP;
	else if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number == REG_RBP)
		kind = CFITAB_RBP;
	else if (plt_expr(ops, n, &off, &rbp_off))
		return cfitab_rule(CFITAB_PLT, off, 0, rbp_off);
	else
		return CFITAB_UNSUPPORTED;
	off = (int64_t)ops[0].number2;
	ops = NULL;
	if (dwarf_frame_register(f, REG_RBP, mem, &ops, &n))
		return CFITAB_UNSUPPORTED;
	/*
	 * no ops and NULL: the same value (unspecified is that too: rbp is
	 * callee-saved in the x86-64 ABI, libdw's default for it); no ops
	 * but @mem: undefined
	 */
	if (!n && ops)
		return CFITAB_UNSUPPORTED;
	if (n) {
		if (!cfa_plus(ops, n, &rbp_off))
			return CFITAB_UNSUPPORTED;
		rbp_saved = 1;
	}
	return cfitab_rule(kind, off, rbp_saved, rbp_off);
}

static int ivals_add(struct ivals *iv, uint64_t start, uint64_t end, uint32_t rule)
{
	struct ival *v;

	if (iv->n == iv->cap) {
		size_t cap = iv->cap ? iv->cap * 2 : 1024;

		v = realloc(iv->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		iv->v = v;
		iv->cap = cap;
	}
	iv->v[iv->n] = (struct ival){ .start = start, .end = end, .rule = rule, .seq = iv->n };
	iv->n++;
	return 0;
}

/* Little-endian (checked before), @n bytes at *@p. */
static uint64_t read_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * A pointer of encoding @enc (DW_EH_PE_*) at *@p, which moves past it.
 * @pcrel_base: the address *@p has in the file's image. Only absolute
 * and pc-relative values are read (all GCC, LLVM and binutils write).
 */
static int read_encoded(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t pcrel_base,
			uint64_t *val)
{
	static const unsigned char size[16] = {
		[DW_EH_PE_absptr] = 8, [DW_EH_PE_udata2] = 2, [DW_EH_PE_udata4] = 4,
		[DW_EH_PE_udata8] = 8, [DW_EH_PE_sdata2] = 2, [DW_EH_PE_sdata4] = 4,
		[DW_EH_PE_sdata8] = 8,
	};
	unsigned int n = size[enc & 0x0f];
	uint64_t v;

	if (!n || (enc & 0x70) > DW_EH_PE_pcrel || (enc & DW_EH_PE_indirect))
		return -ENOTSUP;
	if (end - *p < n)
		return -EBADMSG;
	v = read_le(*p, n);
	if ((enc & 0x0f) == DW_EH_PE_sdata2)
		v = (uint64_t)(int64_t)(int16_t)v;
	else if ((enc & 0x0f) == DW_EH_PE_sdata4)
		v = (uint64_t)(int64_t)(int32_t)v;
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += pcrel_base;
	*p += n;
	*val = v;
	return 0;
}

static unsigned int uleb_len(const uint8_t *p, const uint8_t *end)
{
	unsigned int n = 0;

	while (p + n < end && (p[n] & 0x80))
		n++;
	return n + 1;
}

/*
 * The encoding of the FDE addresses of the CIE at @off: its 'R'
 * augmentation (what precedes it in the augmentation data skipped), or
 * absolute without augmentation (.debug_frame's).
 */
static int cie_encoding(struct build *b, Elf_Data *data, bool eh, Dwarf_Off off)
{
	const uint8_t *d, *end;
	Dwarf_CFI_Entry e;
	Dwarf_Off next;
	const char *a;
	uint64_t skip;

	if (b->cie_enc >= 0 && b->cie_off == off)
		return b->cie_enc;
	if (dwarf_next_cfi(b->ident, data, eh, off, &next, &e) || !dwarf_cfi_cie_p(&e))
		return -EBADMSG;
	a = e.cie.augmentation;
	d = e.cie.augmentation_data;
	end = d + e.cie.augmentation_data_size;
	if (a[0] != 'z')
		return a[0] ? -ENOTSUP : DW_EH_PE_absptr;
	for (a++; *a; a++) {
		if (*a == 'R') {
			if (d >= end)
				return -EBADMSG;
			b->cie_off = off;
			b->cie_enc = *d;
			return *d;
		}
		if (*a == 'L') {
			d++;
		} else if (*a == 'P') {
			/* the personality routine's address: only its size matters */
			if (d >= end)
				return -EBADMSG;
			if ((d[0] & 0x0f) == DW_EH_PE_uleb128 ||
			    (d[0] & 0x0f) == DW_EH_PE_sleb128) {
				d += 1 + uleb_len(d + 1, end);
			} else {
				uint8_t penc = *d++;

				if (read_encoded(penc & 0x0f, &d, end, 0, &skip))
					return -ENOTSUP;
			}
		} else if (*a != 'S' && *a != 'B') {
			return -ENOTSUP;
		}
	}
	b->cie_off = off;
	b->cie_enc = DW_EH_PE_absptr;
	return DW_EH_PE_absptr;
}

/* The rows libdw gives in [lo, hi), one executable segment's part of an FDE. */
static int fde_rows(struct ivals *iv, Dwarf_CFI *cfi, uint64_t lo, uint64_t hi)
{
	uint64_t addr = lo;
	int rc;

	while (addr < hi) {
		Dwarf_Addr start, end;
		Dwarf_Frame *f;
		bool signal;
		uint32_t rule;

		/*
		 * libdw answers with another FDE where FDEs overlap, or none:
		 * the table says what libdw says, and none is no CFI (no row)
		 */
		if (dwarf_cfi_addrframe(cfi, addr, &f))
			return 0;
		if (dwarf_frame_info(f, &start, &end, &signal) < 0) {
			free(f);
			return -EBADMSG;
		}
		rule = classify(f, signal);
		free(f);
		if (end <= addr)
			return -EBADMSG;
		if (end > hi)
			end = hi;
		rc = ivals_add(iv, addr, end, rule);
		if (rc)
			return rc;
		addr = end;
	}
	return 0;
}

/* Every FDE of one CFI section (@data at address @addr), into @iv. */
static int read_fdes(struct build *b, Elf_Data *data, uint64_t addr, bool eh, Dwarf_CFI *cfi,
		     struct ivals *iv)
{
	const uint8_t *buf = data->d_buf;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	unsigned int i;
	bool in_code;
	int rc, enc;

	b->cie_enc = -1;
	while (off < data->d_size) {
		const uint8_t *p, *end;
		uint64_t start, len;

		rc = dwarf_next_cfi(b->ident, data, eh, off, &next, &e);
		if (rc > 0)
			break;
		if (rc < 0)
			return -EBADMSG;
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		enc = cie_encoding(b, data, eh, e.fde.CIE_pointer);
		if (enc == -ENOTSUP || enc == DW_EH_PE_omit)
			continue; /* an encoding not read: no rows, no CFI there */
		if (enc < 0)
			return enc;
		p = e.fde.start;
		end = e.fde.end;
		rc = read_encoded((uint8_t)enc, &p, end, addr + (uint64_t)(p - buf), &start);
		if (!rc)
			rc = read_encoded((uint8_t)enc & 0x0f, &p, end, 0, &len);
		if (rc == -ENOTSUP)
			continue;
		if (rc)
			return rc;
		for (i = 0, in_code = false; i < b->nr_code; i++) {
			uint64_t lo = start > b->code_lo[i] ? start : b->code_lo[i];
			uint64_t hi = start + len < b->code_hi[i] ? start + len : b->code_hi[i];

			if (lo >= hi)
				continue;
			in_code = true;
			rc = fde_rows(iv, cfi, lo, hi);
			if (rc)
				return rc;
		}
		b->tab->fdes += in_code;
		b->tab->fdes_debug += in_code && !eh;
	}
	return 0;
}

static int ival_cmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts @iv and cuts what an earlier row covers out of the later ones. */
static void ivals_disjoint(struct ivals *iv)
{
	uint64_t covered = 0;
	size_t i, n = 0;

	qsort(iv->v, iv->n, sizeof(*iv->v), ival_cmp);
	for (i = 0; i < iv->n; i++) {
		struct ival v = iv->v[i];

		if (n && v.start < covered)
			v.start = covered;
		if (v.start >= v.end)
			continue;
		iv->v[n++] = v;
		covered = v.end;
	}
	iv->n = n;
}

/* .debug_frame's rows where .eh_frame has none, added to .eh_frame's. */
static int ivals_fill(struct ivals *eh, const struct ivals *debug)
{
	size_t i, j = 0, n = eh->n;
	int rc;

	for (i = 0; i < debug->n; i++) {
		uint64_t s = debug->v[i].start, e = debug->v[i].end;

		while (j < n && eh->v[j].end <= s)
			j++;
		for (size_t k = j; k < n && eh->v[k].start < e && s < e; k++) {
			if (eh->v[k].start > s) {
				rc = ivals_add(eh, s, eh->v[k].start, debug->v[i].rule);
				if (rc)
					return rc;
			}
			if (eh->v[k].end > s)
				s = eh->v[k].end;
		}
		if (s < e) {
			rc = ivals_add(eh, s, e, debug->v[i].rule);
			if (rc)
				return rc;
		}
	}
	/* seq keeps the order: disjoint already, this only sorts */
	ivals_disjoint(eh);
	return 0;
}

static int row_add(struct cfitab *tab, size_t *cap, uint64_t vaddr, uint32_t rule)
{
	struct cfitab_row *rows;

	if (tab->nr && tab->rows[tab->nr - 1].rule == rule)
		return 0;
	if (tab->nr == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		rows = realloc(tab->rows, *cap * sizeof(*rows));
		if (!rows)
			return -ENOMEM;
		tab->rows = rows;
	}
	tab->rows[tab->nr++] =
		(struct cfitab_row){ .start = (uint32_t)(vaddr - tab->base), .rule = rule };
	return 0;
}

/* The disjoint sorted rows @iv as the table: gaps marked, equal neighbours one row. */
static int rows_emit(struct cfitab *tab, const struct ivals *iv)
{
	uint64_t end = 0;
	size_t i, cap = 0;
	int rc;

	if (!iv->n)
		return 0;
	end = iv->v[iv->n - 1].end;
	tab->base = end <= UINT32_MAX ? 0 : iv->v[0].start;
	if (end - tab->base > UINT32_MAX)
		return -EFBIG;
	for (i = 0; i < iv->n; i++) {
		if (i && iv->v[i].start > iv->v[i - 1].end) {
			rc = row_add(tab, &cap, iv->v[i - 1].end, CFITAB_NO_CFI);
			if (rc)
				return rc;
		}
		rc = row_add(tab, &cap, iv->v[i].start, iv->v[i].rule);
		if (rc)
			return rc;
	}
	return row_add(tab, &cap, end, CFITAB_NO_CFI);
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
			continue;
		s = elf_strptr(elf, shstrndx, sh->sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* The executable segments: where code is, and what cfitab_bias() reads. */
static int segments(struct build *b)
{
	struct cfitab *tab = b->tab;
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(b->elf, &n))
		return -ENOEXEC;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (tab->nr_seg == CFITAB_MAX_SEGS)
			return -ENOTSUP;
		b->code_lo[b->nr_code] = ph.p_vaddr;
		b->code_hi[b->nr_code++] = ph.p_vaddr + ph.p_memsz;
		tab->seg[tab->nr_seg++] = (struct cfitab_seg){ .vaddr = ph.p_vaddr,
							       .offset = ph.p_offset,
							       .filesz = ph.p_filesz };
	}
	return 0;
}

/* .eh_frame's FDEs, through libdw's reading of it (with .eh_frame_hdr). */
static int read_eh_frame(struct build *b)
{
	Dwarf_CFI *cfi;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int rc;

	scn = section(b->elf, ".eh_frame", &sh);
	if (!scn)
		return 0;
	data = elf_getdata(scn, NULL);
	cfi = dwarf_getcfi_elf(b->elf);
	if (!data || !data->d_buf || !cfi) {
		if (cfi)
			dwarf_cfi_end(cfi);
		return -EBADMSG;
	}
	rc = read_fdes(b, data, sh.sh_addr, true, cfi, &b->eh);
	dwarf_cfi_end(cfi);
	return rc;
}

/*
 * .debug_frame's, where there is one: libdw reads it through the Dwarf
 * handle. It only adds to .eh_frame's: one that libdw cannot read adds no
 * row, and fails nothing.
 */
static int read_debug_frame(struct build *b)
{
	Dwarf_CFI *cfi;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Dwarf *dw;
	int rc;

	if (!section(b->elf, ".debug_frame", &sh))
		return 0;
	/* first libdw: it decompresses the section in place (SHF_COMPRESSED) */
	dw = dwarf_begin_elf(b->elf, DWARF_C_READ, NULL);
	if (!dw)
		return 0;
	cfi = dwarf_getcfi(dw);
	scn = section(b->elf, ".debug_frame", &sh);
	data = scn && !(sh.sh_flags & SHF_COMPRESSED) ? elf_getdata(scn, NULL) : NULL;
	rc = cfi && data && data->d_buf ? read_fdes(b, data, 0, false, cfi, &b->debug) : -EBADMSG;
	dwarf_end(dw);
	if (rc && rc != -ENOMEM) {
		b->debug.n = 0;
		b->tab->fdes -= b->tab->fdes_debug;
		b->tab->fdes_debug = 0;
		rc = 0;
	}
	return rc;
}

int cfitab_build_elf(Elf *elf, struct cfitab *tab)
{
	struct build b = { .elf = elf, .tab = tab };
	GElf_Ehdr eh;
	char *id;
	int rc;

	if (!elf || !tab)
		return -EINVAL;
	memset(tab, 0, sizeof(*tab));
	id = elf_getident(elf, NULL);
	if (elf_kind(elf) != ELF_K_ELF || !id || !gelf_getehdr(elf, &eh))
		return -ENOEXEC;
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	memcpy(b.ident, id, EI_NIDENT);
	rc = segments(&b);
	if (!rc)
		rc = read_eh_frame(&b);
	if (!rc)
		rc = read_debug_frame(&b);
	if (!rc) {
		ivals_disjoint(&b.eh);
		ivals_disjoint(&b.debug);
		rc = ivals_fill(&b.eh, &b.debug);
	}
	if (!rc)
		rc = rows_emit(tab, &b.eh);
	free(b.eh.v);
	free(b.debug.v);
	if (rc)
		cfitab_free(tab);
	return rc;
}

int cfitab_build(const char *path, struct cfitab *tab)
{
	Elf *elf;
	int fd, rc;

	if (!path || !tab)
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	rc = elf ? cfitab_build_elf(elf, tab) : -ENOEXEC;
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

void cfitab_free(struct cfitab *tab)
{
	if (!tab)
		return;
	free(tab->rows);
	memset(tab, 0, sizeof(*tab));
}

const struct cfitab_row *cfitab_find(const struct cfitab *tab, uint64_t vaddr)
{
	uint32_t lo = 0, hi, mid, rel;
	int step;

	if (!tab || !tab->nr || vaddr < tab->base || vaddr - tab->base > UINT32_MAX)
		return NULL;
	rel = (uint32_t)(vaddr - tab->base);
	hi = tab->nr;
	/* the first row that starts past @rel: log2 of 2^32 rows at most */
	for (step = 0; step < 32 && lo < hi; step++) {
		mid = lo + (hi - lo) / 2;
		if (tab->rows[mid].start <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &tab->rows[lo - 1] : NULL;
}

uint32_t cfitab_rule_at(const struct cfitab *tab, uint64_t vaddr)
{
	const struct cfitab_row *row = cfitab_find(tab, vaddr);

	return row ? row->rule : CFITAB_NO_CFI;
}

int cfitab_bias(const struct cfitab *tab, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	unsigned int i;

	if (!tab || !bias)
		return -EINVAL;
	for (i = 0; i < tab->nr_seg; i++) {
		const struct cfitab_seg *s = &tab->seg[i];

		if (pgoff >= (s->offset & PAGE_MASK_4K) && pgoff < s->offset + s->filesz) {
			/* A is file offset A - start + pgoff, vaddr that - offset + vaddr */
			*bias = start - pgoff + s->offset - s->vaddr;
			return 0;
		}
	}
	return -ERANGE;
}
