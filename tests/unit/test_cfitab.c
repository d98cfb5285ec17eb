// SPDX-License-Identifier: GPL-2.0
/*
 * cfitab.c: the compact table of an ELF file's CFI says, at every address
 * of every executable segment, what libdw itself says there. For each
 * address the test asks libdw (dwarf_cfi_addrframe(): .eh_frame, then
 * .debug_frame) and evaluates its answer with a small DWARF stack machine
 * of its own, over two sets of registers: the CFA, where the return
 * address and rbp are. The table's row must give the same CFA
 * (cfitab_cfa()) and the same rbp rule, be CFITAB_END where the return
 * address is undefined, CFITAB_NO_CFI where libdw has no FDE, and
 * CFITAB_UNSUPPORTED exactly where libdw's answer is outside what a row
 * holds (cfitab.h). Corpus: libc.so.6, the dynamic loader, the vDSO (from
 * memory), this test, and the stack walker's programs (tests/progs/uw/:
 * -O0 with frame pointers, -O2 without, with an IBT PLT; libcrashlib.so,
 * frameless; libuwlib.so, whose code has only .debug_frame). A table
 * changed by one row, or one address, must be caught.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/vdso.h"
#include "unwind/cfitab.h"

#define PROGS ".output/tests/progs/"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LDSO "/lib64/ld-linux-x86-64.so.2"

/* the registers a rule may read; anything else is outside the covered set */
struct regs {
	uint64_t rsp, rbp, rip;
};

/* two sets whose rsp - rbp differ: a CFA from the wrong one shows */
static const struct regs regsets[2] = {
	{ .rsp = 0x7ffc00001000, .rbp = 0x7ffc00002040 },
	{ .rsp = 0x20000008, .rbp = 0x10000000 },
};

/* The CFA a register rule's DW_OP_call_frame_cfa stands for. */
#define SOME_CFA 0x500000

static bool reg_value(const struct regs *r, uint64_t reg, uint64_t *v)
{
	switch (reg) {
	case 6:
		*v = r->rbp;
		return true;
	case 7:
		*v = r->rsp;
		return true;
	case 16:
		*v = r->rip;
		return true;
	}
	return false;
}

/*
 * libdw's ops evaluated over @r (@cfa for DW_OP_call_frame_cfa): true with
 * the value, false for an op outside this small machine (a dereference,
 * DW_OP_stack_value: a value rather than a location, other registers).
 */
static bool eval(const Dwarf_Op *ops, size_t n, const struct regs *r, uint64_t cfa, uint64_t *out)
{
	uint64_t st[16], v;
	int sp = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int a = ops[i].atom;

		if (sp >= 15)
			return false;
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = a - DW_OP_lit0;
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (!reg_value(r, a - DW_OP_breg0, &v))
				return false;
			st[sp++] = v + ops[i].number;
		} else if (a == DW_OP_bregx) {
			if (!reg_value(r, ops[i].number, &v))
				return false;
			st[sp++] = v + ops[i].number2;
		} else if (a == DW_OP_call_frame_cfa) {
			st[sp++] = cfa;
		} else if (a == DW_OP_constu || a == DW_OP_consts) {
			st[sp++] = ops[i].number;
		} else if (a == DW_OP_plus_uconst) {
			if (sp < 1)
				return false;
			st[sp - 1] += ops[i].number;
		} else if (a == DW_OP_plus || a == DW_OP_minus || a == DW_OP_and ||
			   a == DW_OP_shl || a == DW_OP_ge) {
			uint64_t x, y;

			if (sp < 2)
				return false;
			y = st[--sp];
			x = st[sp - 1];
			if (a == DW_OP_plus)
				x += y;
			else if (a == DW_OP_minus)
				x -= y;
			else if (a == DW_OP_and)
				x &= y;
			else if (a == DW_OP_shl)
				x = y < 64 ? x << y : 0;
			else
				x = (int64_t)x >= (int64_t)y;
			st[sp - 1] = x;
		} else {
			return false;
		}
	}
	if (sp != 1)
		return false;
	*out = st[0];
	return true;
}

/* What libdw says at one address, evaluated. */
enum loc { LOC_SAME, LOC_UNDEFINED, LOC_AT, LOC_OTHER };

static enum loc reg_loc(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops = NULL;
	uint64_t v;
	size_t n = 0;

	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return LOC_OTHER;
	if (!n)
		return ops ? LOC_UNDEFINED : LOC_SAME;
	/* a location: it must not depend on the registers, only on the CFA */
	if (!eval(ops, n, &regsets[0], SOME_CFA, &v))
		return LOC_OTHER;
	*off = (int64_t)(v - SOME_CFA);
	if (!eval(ops, n, &regsets[1], SOME_CFA, &v) || (int64_t)(v - SOME_CFA) != *off)
		return LOC_OTHER;
	return LOC_AT;
}

static char why[256];

/*
 * Whether @rule is libdw's answer @f (NULL: no FDE) at @addr; why not in
 * why[].
 */
static bool agree(Dwarf_Frame *f, uint32_t rule, uint64_t addr)
{
	enum cfitab_kind kind = cfitab_kind(rule);
	Dwarf_Addr start, end;
	int64_t ra_off = 0, rbp_off = 0, delta[2] = { 0, 0 };
	enum loc ra, rbp;
	Dwarf_Op *ops;
	bool signal, fits = true, cfa_ok = true;
	size_t n;
	int i;

	why[0] = '\0';
	if (!f) {
		snprintf(why, sizeof(why), "libdw: no CFI");
		return kind == CFITAB_NO_CFI;
	}
	if (dwarf_frame_info(f, &start, &end, &signal) < 0)
		fail_msg("dwarf_frame_info at 0x%llx", (unsigned long long)addr);
	if (signal) {
		snprintf(why, sizeof(why), "libdw: a signal frame");
		return kind == CFITAB_UNSUPPORTED;
	}
	ra = reg_loc(f, 16, &ra_off);
	if (ra == LOC_UNDEFINED) {
		snprintf(why, sizeof(why), "libdw: return address undefined");
		return kind == CFITAB_END;
	}
	rbp = reg_loc(f, 6, &rbp_off);
	if (dwarf_frame_cfa(f, &ops, &n))
		cfa_ok = false;
	for (i = 0; cfa_ok && i < 2; i++) {
		struct regs r = regsets[i];
		uint64_t want, got;

		r.rip = addr;
		if (!eval(ops, n, &r, 0, &want)) {
			cfa_ok = false;
			break;
		}
		/* what a row could not hold: an offset past its bits */
		delta[i] = (int64_t)(want - r.rsp);
		if (kind == CFITAB_RSP || kind == CFITAB_RBP || kind == CFITAB_PLT) {
			if (cfitab_cfa(rule, r.rsp, r.rbp, r.rip, &got) || got != want) {
				snprintf(why, sizeof(why), "CFA 0x%llx, the table's 0x%llx",
					 (unsigned long long)want, (unsigned long long)got);
				return false;
			}
		}
	}
	if (ra != LOC_AT || ra_off != -8 || rbp == LOC_UNDEFINED || rbp == LOC_OTHER || !cfa_ok) {
		snprintf(why, sizeof(why), "libdw: not covered (ra %d%+lld, rbp %d, cfa %d)", ra,
			 (long long)ra_off, rbp, cfa_ok);
		return kind == CFITAB_UNSUPPORTED;
	}
	if (rbp == LOC_AT &&
	    (rbp_off % 8 || rbp_off < CFITAB_RBP_OFF_MIN || rbp_off > CFITAB_RBP_OFF_MAX))
		fits = false;
	for (i = 0; i < 2; i++) {
		int64_t via_rbp = delta[i] + (int64_t)(regsets[i].rsp - regsets[i].rbp);

		if ((delta[i] < 0 || delta[i] > CFITAB_CFA_OFF_MAX) &&
		    (via_rbp < 0 || via_rbp > CFITAB_CFA_OFF_MAX))
			fits = false;
	}
	if (kind == CFITAB_UNSUPPORTED) {
		snprintf(why, sizeof(why), "libdw: a covered rule%s",
			 fits ? "" : " past a row's bits");
		return !fits;
	}
	if (kind != CFITAB_RSP && kind != CFITAB_RBP && kind != CFITAB_PLT) {
		snprintf(why, sizeof(why), "libdw: a CFA, the table: kind %d", kind);
		return false;
	}
	if ((rbp == LOC_AT) != (bool)cfitab_rbp_saved(rule) ||
	    (rbp == LOC_AT && rbp_off != cfitab_rbp_off(rule))) {
		snprintf(why, sizeof(why), "rbp %s%+lld, the table's %s%+d",
			 rbp == LOC_AT ? "at CFA" : "unchanged", (long long)rbp_off,
			 cfitab_rbp_saved(rule) ? "at CFA" : "unchanged", cfitab_rbp_off(rule));
		return false;
	}
	return true;
}

struct corpus {
	int fd;
	Elf *elf;
	Dwarf *dw; /* .debug_frame's owner, or NULL */
	Dwarf_CFI *eh, *debug;
};

static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (s = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(s, name))
			return true;
	return false;
}

static void corpus_cfi(struct corpus *c)
{
	c->eh = dwarf_getcfi_elf(c->elf);
	if (has_section(c->elf, ".debug_frame")) {
		c->dw = dwarf_begin_elf(c->elf, DWARF_C_READ, NULL);
		assert_non_null(c->dw);
		c->debug = dwarf_getcfi(c->dw);
	}
}

static void corpus_open(const char *path, struct corpus *c)
{
	memset(c, 0, sizeof(*c));
	elf_version(EV_CURRENT);
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0)
		fail_msg("%s: %s (make progs builds the corpus)", path, strerror(errno));
	c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(c->elf);
	corpus_cfi(c);
}

static void corpus_close(struct corpus *c)
{
	if (c->eh)
		dwarf_cfi_end(c->eh);
	if (c->dw)
		dwarf_end(c->dw);
	elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
}

struct tally {
	uint64_t addrs, mismatches, no_cfi, unsupported, end, plt, debug;
};

/*
 * Every address of every executable segment of @c against @tab: the
 * number that disagree (the first few shown, as @name says them).
 */
static uint64_t compare(const char *name, struct corpus *c, const struct cfitab *tab,
			struct tally *t)
{
	size_t nph, i;
	GElf_Phdr ph;
	uint64_t a;

	memset(t, 0, sizeof(*t));
	assert_int_equal(elf_getphdrnum(c->elf, &nph), 0);
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		for (a = ph.p_vaddr; a < ph.p_vaddr + ph.p_memsz; a++) {
			uint32_t rule = cfitab_rule_at(tab, a);
			Dwarf_Frame *f = NULL;

			if (!c->eh || dwarf_cfi_addrframe(c->eh, a, &f)) {
				f = NULL;
				if (c->debug && !dwarf_cfi_addrframe(c->debug, a, &f))
					t->debug++;
				else
					f = NULL;
			}
			t->addrs++;
			t->no_cfi += !f;
			t->unsupported += cfitab_kind(rule) == CFITAB_UNSUPPORTED;
			t->end += cfitab_kind(rule) == CFITAB_END;
			t->plt += cfitab_kind(rule) == CFITAB_PLT;
			if (!agree(f, rule, a) && t->mismatches++ < 5)
				print_message("  %s 0x%llx: rule 0x%08x: %s\n", name,
					      (unsigned long long)a, rule, why);
			free(f);
		}
	}
	return t->mismatches;
}

/* The table's own shape: sorted, no two neighbours alike, no CFI at its end. */
static void check_shape(const struct cfitab *tab)
{
	uint32_t i;

	for (i = 1; i < tab->nr; i++) {
		assert_true(tab->rows[i].start > tab->rows[i - 1].start);
		assert_int_not_equal(tab->rows[i].rule, tab->rows[i - 1].rule);
	}
	if (tab->nr)
		assert_int_equal(cfitab_kind(tab->rows[tab->nr - 1].rule), CFITAB_NO_CFI);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Builds @path's table, checks every address; the tally for more checks. */
static void check_file(const char *path, struct tally *t)
{
	struct cfitab tab;
	struct corpus c;
	double t0, ms;

	t0 = now_ms();
	assert_int_equal(cfitab_build(path, &tab), 0);
	ms = now_ms() - t0;
	check_shape(&tab);
	corpus_open(path, &c);
	compare(path, &c, &tab, t);
	print_message("%s: %u rows (%zu bytes), %u FDEs (%u .debug_frame), built in %.1f ms; "
		      "%llu addresses: %llu without CFI, %llu unsupported, %llu end, %llu PLT, "
		      "%llu from .debug_frame; %llu disagree\n",
		      path, tab.nr, (size_t)tab.nr * sizeof(tab.rows[0]), tab.fdes, tab.fdes_debug,
		      ms, (unsigned long long)t->addrs, (unsigned long long)t->no_cfi,
		      (unsigned long long)t->unsupported, (unsigned long long)t->end,
		      (unsigned long long)t->plt, (unsigned long long)t->debug,
		      (unsigned long long)t->mismatches);
	assert_true(tab.nr > 0);
	assert_int_equal(t->mismatches, 0);
	corpus_close(&c);
	cfitab_free(&tab);
}

static void test_libc(void **state)
{
	struct tally t;

	check_file(LIBC, &t);
	/* its .plt's lazy expression; __restore_rt, a signal frame; clone3's end */
	assert_true(t.plt > 0);
	assert_true(t.unsupported > 0);
	assert_true(t.end > 0);
}

static void test_ld_so(void **state)
{
	struct tally t;

	check_file(LDSO, &t);
}

static void test_self(void **state)
{
	struct tally t;

	check_file("/proc/self/exe", &t);
}

static void test_prog_O0(void **state)
{
	struct tally t;

	check_file(PROGS "uwstack-O0", &t);
	assert_true(t.end > 0); /* _start */
}

static void test_prog_O2(void **state)
{
	struct tally t;

	check_file(PROGS "uwstack-O2", &t);
	assert_true(t.plt > 0);
}

/* built with IBT: the lazy .plt's k is 9, .plt.sec's entries plain */
static void test_prog_ibt(void **state)
{
	struct cfitab tab;
	struct tally t;
	bool k9 = false;
	uint32_t i;

	check_file(PROGS "uwstack-ibt", &t);
	assert_int_equal(cfitab_build(PROGS "uwstack-ibt", &tab), 0);
	for (i = 0; i < tab.nr; i++)
		k9 |= cfitab_kind(tab.rows[i].rule) == CFITAB_PLT &&
		      cfitab_plt_k(tab.rows[i].rule) == 9;
	assert_true(k9);
	cfitab_free(&tab);
}

static void test_frameless_lib(void **state)
{
	struct tally t;

	check_file(PROGS "libcrashlib.so", &t);
}

/* its own code's CFI is in .debug_frame alone: the crt files' in .eh_frame */
static void test_debug_frame_lib(void **state)
{
	struct cfitab tab;
	struct tally t;

	check_file(PROGS "libuwlib.so", &t);
	assert_true(t.debug > 0);
	assert_int_equal(cfitab_build(PROGS "libuwlib.so", &tab), 0);
	assert_true(tab.fdes_debug > 0);
	cfitab_free(&tab);
}

/* from memory: ptbpf's own vDSO image, through cfitab_build_elf() */
static void test_vdso(void **state)
{
	struct vdso_image img;
	struct cfitab tab;
	struct corpus c;
	struct tally t;

	assert_int_equal(vdso_image_read(NULL, &img), 0);
	elf_version(EV_CURRENT);
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.elf = elf_memory((char *)img.data, img.len);
	assert_non_null(c.elf);
	assert_int_equal(cfitab_build_elf(c.elf, &tab), 0);
	check_shape(&tab);
	corpus_cfi(&c);
	compare("[vdso]", &c, &tab, &t);
	print_message("[vdso]: %u rows, %llu addresses, %llu disagree\n", tab.nr,
		      (unsigned long long)t.addrs, (unsigned long long)t.mismatches);
	assert_true(tab.nr > 0);
	assert_int_equal(t.mismatches, 0);
	corpus_close(&c);
	cfitab_free(&tab);
}

/*
 * A copy of @tab with row @i changed by @how: its CFA offset by 8, its
 * start one byte later, taken out (its predecessor's rule runs on), its
 * CFA from rbp instead of rsp, or rbp's rule the other one.
 */
enum perturb { PERTURB_CFA, PERTURB_START, PERTURB_DROP, PERTURB_BASE, PERTURB_RBP };

static void perturbed(const struct cfitab *tab, uint32_t i, enum perturb how, struct cfitab *out)
{
	*out = *tab;
	out->rows = malloc(tab->nr * sizeof(*tab->rows));
	assert_non_null(out->rows);
	memcpy(out->rows, tab->rows, tab->nr * sizeof(*tab->rows));
	switch (how) {
	case PERTURB_CFA:
		out->rows[i].rule += 8u << CFITAB_CFA_SHIFT;
		break;
	case PERTURB_START:
		out->rows[i].start++;
		break;
	case PERTURB_DROP:
		memmove(&out->rows[i], &out->rows[i + 1], (tab->nr - i - 1) * sizeof(*tab->rows));
		out->nr--;
		break;
	case PERTURB_BASE:
		out->rows[i].rule ^= CFITAB_RSP ^ CFITAB_RBP;
		break;
	case PERTURB_RBP:
		out->rows[i].rule ^= CFITAB_RBP_SAVED;
		break;
	}
}

static void test_one_row_off(void **state)
{
	static const char *const how_name[] = { "CFA offset + 8", "start + 1", "row dropped",
						"CFA from rbp", "rbp's rule flipped" };
	const char *path = PROGS "libcrashlib.so";
	struct cfitab tab, bad;
	struct corpus c;
	struct tally t;
	uint32_t i, mid = 0;
	int how;

	assert_int_equal(cfitab_build(path, &tab), 0);
	corpus_open(path, &c);
	assert_int_equal(compare(path, &c, &tab, &t), 0);
	/* a row of a function's body, between two other rows of CFI */
	for (i = tab.nr / 2; i + 2 < tab.nr; i++)
		if (cfitab_kind(tab.rows[i].rule) == CFITAB_RSP &&
		    cfitab_kind(tab.rows[i - 1].rule) == CFITAB_RSP &&
		    tab.rows[i + 1].start - tab.rows[i].start > 1) {
			mid = i;
			break;
		}
	assert_true(mid > 0);
	for (how = PERTURB_CFA; how <= PERTURB_RBP; how++) {
		uint64_t n;

		perturbed(&tab, mid, how, &bad);
		n = compare(path, &c, &bad, &t);
		print_message("%s: row %u (0x%x) %s: %llu addresses disagree\n", path, mid,
			      tab.rows[mid].start, how_name[how], (unsigned long long)n);
		if (how == PERTURB_START)
			assert_int_equal(n, 1); /* exactly the address it left */
		else
			assert_true(n >= 1);
		free(bad.rows);
	}
	/* and the last row: code past every FDE would seem to have CFI */
	perturbed(&tab, tab.nr - 1, PERTURB_DROP, &bad);
	assert_true(compare(path, &c, &bad, &t) > 0);
	free(bad.rows);
	corpus_close(&c);
	cfitab_free(&tab);
}

static void test_rule_packing(void **state)
{
	uint32_t r;
	uint64_t cfa;

	r = cfitab_rule(CFITAB_RSP, 16, 1, -16);
	assert_int_equal(cfitab_kind(r), CFITAB_RSP);
	assert_int_equal(cfitab_cfa_off(r), 16);
	assert_true(cfitab_rbp_saved(r));
	assert_int_equal(cfitab_rbp_off(r), -16);
	r = cfitab_rule(CFITAB_RBP, CFITAB_CFA_OFF_MAX, 1, CFITAB_RBP_OFF_MAX);
	assert_int_equal(cfitab_kind(r), CFITAB_RBP);
	assert_int_equal(cfitab_cfa_off(r), CFITAB_CFA_OFF_MAX);
	assert_int_equal(cfitab_rbp_off(r), CFITAB_RBP_OFF_MAX);
	assert_int_equal(cfitab_rbp_off(cfitab_rule(CFITAB_RSP, 8, 1, CFITAB_RBP_OFF_MIN)),
			 CFITAB_RBP_OFF_MIN);
	assert_false(cfitab_rbp_saved(cfitab_rule(CFITAB_RSP, 8, 0, -16)));
	/* what a row cannot hold */
	assert_int_equal(cfitab_rule(CFITAB_RSP, CFITAB_CFA_OFF_MAX + 1, 0, 0), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(CFITAB_RSP, -8, 0, 0), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(CFITAB_RSP, 8, 1, -12), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(CFITAB_RSP, 8, 1, CFITAB_RBP_OFF_MIN - 8), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(CFITAB_PLT, 8, 0, 16), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(7, 8, 0, 0), CFITAB_UNSUPPORTED);
	assert_int_equal(cfitab_rule(CFITAB_END, 8, 1, -16), CFITAB_END);
	/* the PLT: 8 more bytes once the entry's push ran */
	r = cfitab_rule(CFITAB_PLT, 8, 0, 11);
	assert_int_equal(cfitab_plt_k(r), 11);
	assert_int_equal(cfitab_cfa(r, 0x1000, 0, 0x2030, &cfa), 0);
	assert_int_equal(cfa, 0x1008);
	assert_int_equal(cfitab_cfa(r, 0x1000, 0, 0x203a, &cfa), 0);
	assert_int_equal(cfa, 0x1008);
	assert_int_equal(cfitab_cfa(r, 0x1000, 0, 0x203b, &cfa), 0);
	assert_int_equal(cfa, 0x1010);
	assert_int_equal(cfitab_cfa(cfitab_rule(CFITAB_RBP, 16, 1, -16), 0x1000, 0x2000, 0, &cfa),
			 0);
	assert_int_equal(cfa, 0x2010);
	assert_int_equal(cfitab_cfa(CFITAB_NO_CFI, 1, 2, 3, &cfa), -ENOENT);
	assert_int_equal(cfitab_cfa(CFITAB_END, 1, 2, 3, &cfa), -ENOENT);
}

static void test_find(void **state)
{
	struct cfitab_row rows[] = {
		{ 0x1000, cfitab_rule(CFITAB_RSP, 8, 0, 0) },
		{ 0x1004, cfitab_rule(CFITAB_RSP, 16, 0, 0) },
		{ 0x1010, CFITAB_NO_CFI },
		{ 0x1020, CFITAB_END },
		{ 0x1030, CFITAB_NO_CFI },
	};
	struct cfitab tab = { .rows = rows, .nr = 5 };

	assert_null(cfitab_find(&tab, 0xfff));
	assert_int_equal(cfitab_rule_at(&tab, 0xfff), CFITAB_NO_CFI);
	assert_ptr_equal(cfitab_find(&tab, 0x1000), &rows[0]);
	assert_ptr_equal(cfitab_find(&tab, 0x1003), &rows[0]);
	assert_ptr_equal(cfitab_find(&tab, 0x1004), &rows[1]);
	assert_ptr_equal(cfitab_find(&tab, 0x100f), &rows[1]);
	assert_ptr_equal(cfitab_find(&tab, 0x1010), &rows[2]);
	assert_ptr_equal(cfitab_find(&tab, 0x102f), &rows[3]);
	assert_ptr_equal(cfitab_find(&tab, 0xffffffff), &rows[4]);
	/* past the table's 32 bits: none */
	assert_null(cfitab_find(&tab, 0x100001000ull));
	tab.base = 0x7f0000000000ull;
	assert_null(cfitab_find(&tab, 0x1000));
	assert_ptr_equal(cfitab_find(&tab, 0x7f0000001008ull), &rows[1]);
	tab.nr = 0;
	assert_null(cfitab_find(&tab, 0x1000));
	assert_null(cfitab_find(NULL, 0x1000));
}

static int bias_of(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uint64_t *want = ctx;

	if (!strcmp(info->dlpi_name, LIBC) || strstr(info->dlpi_name, "/libc.so.6")) {
		want[0] = info->dlpi_addr;
		return 1;
	}
	return 0;
}

/* libc's executable mapping in this process: its bias is the loader's */
static void test_bias(void **state)
{
	unsigned long long start, end, pgoff;
	uint64_t want[1] = { 0 }, bias = 0;
	char line[512], perm[8], path[256];
	struct cfitab tab;
	bool found = false;
	FILE *f;

	dl_iterate_phdr(bias_of, want);
	assert_true(want[0] != 0);
	assert_int_equal(cfitab_build(LIBC, &tab), 0);
	f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &start, &end, perm, &pgoff,
			   path) != 5 ||
		    !strstr(path, "/libc.so.6"))
			continue;
		if (perm[2] == 'x') {
			assert_int_equal(cfitab_bias(&tab, start, pgoff, &bias), 0);
			assert_int_equal(bias, want[0]);
			found = true;
		} else if (pgoff == 0) {
			/* the headers' segment is not code */
			assert_int_equal(cfitab_bias(&tab, start, pgoff, &bias), -ERANGE);
		}
	}
	fclose(f);
	assert_true(found);
	assert_int_equal(cfitab_bias(NULL, 0, 0, &bias), -EINVAL);
	cfitab_free(&tab);
}

static void test_errors(void **state)
{
	struct cfitab tab;

	assert_int_equal(cfitab_build(NULL, &tab), -EINVAL);
	assert_int_equal(cfitab_build(LIBC, NULL), -EINVAL);
	assert_int_equal(cfitab_build("/nonexistent/ptbpf", &tab), -ENOENT);
	assert_int_equal(cfitab_build("/proc/self/status", &tab), -ENOEXEC);
	assert_int_equal(cfitab_build_elf(NULL, &tab), -EINVAL);
	cfitab_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule_packing),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bias),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_ld_so),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_prog_O0),
		cmocka_unit_test(test_prog_O2),
		cmocka_unit_test(test_prog_ibt),
		cmocka_unit_test(test_frameless_lib),
		cmocka_unit_test(test_debug_frame_lib),
		cmocka_unit_test(test_one_row_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
