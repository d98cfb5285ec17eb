/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One x86-64 ELF file's call frame information (CFI) compiled into a
 * compact table of unwind rows, for a stack walker that cannot run DWARF
 * (the BPF program on the sampling path; uwalk.h is its reference in C).
 *
 * Read with elfutils' libdw, not by a parser of ptbpf's own: the FDEs of
 * .eh_frame, and of .debug_frame where the file has one, are enumerated
 * with dwarf_next_cfi() (only each FDE's address range is decoded here,
 * from its CIE's pointer encoding); every row of an FDE is libdw's answer
 * at an address (dwarf_cfi_addrframe(), dwarf_frame_info() for the row's
 * range, dwarf_frame_cfa(), dwarf_frame_register()). Where .eh_frame and
 * .debug_frame both describe an address, .eh_frame's row is kept (it is
 * what the program itself unwinds with).
 *
 * The table: rows sorted by address, 8 bytes each (struct cfitab_row): a
 * start and a rule that holds until the next row's start. Rows are keyed
 * by ELF virtual address less the table's base (0 unless the file's code
 * lies above 4 GiB), so one bias per mapping (cfitab_bias()) turns a
 * process's address into the table's. Adjacent rows with the same rule
 * are one row; the end of an FDE that no other FDE follows at once has a
 * CFITAB_NO_CFI row, so an address outside every FDE (and past the last)
 * is known to have no CFI; before the first row there is none either.
 *
 * What a row covers, exactly (everything x86-64 compilers emit for
 * ordinary functions; the return address at CFA-8 in every one):
 *   CFITAB_RSP   CFA = rsp + off
 *   CFITAB_RBP   CFA = rbp + off
 *   CFITAB_PLT   CFA = rsp + off + ((rip & 15) >= k ? 8 : 0): the
 *                expression binutils' ld emits for a lazy .plt (k = 11;
 *                in libc.so.6 and any PIE: DW_OP_breg7 (rsp) off;
 *                DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and; DW_OP_litk;
 *                DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus), and its
 *                IBT variant (k = 9: endbr64 before the push); the
 *                entries of .plt.sec and .plt.got are CFITAB_RSP
 * and in each of them rbp either unchanged (the rule "same value", or
 * none: rbp is callee-saved in the x86-64 ABI, and libdw's default for
 * it is the same value) or saved at CFA + rbp_off, a multiple of 8.
 *   CFITAB_END   the return address is undefined: the outermost frame
 *                (_start, a thread's clone3 mark theirs so); a walk
 *                stops there
 * What is not covered, marked CFITAB_UNSUPPORTED (a walker falls back to
 * the frame pointer there, and says so):
 *   - a CFA that is any other DWARF expression (a signal trampoline's,
 *     glibc's __restore_rt: rsp + 160 dereferenced; a stack GCC
 *     realigned: DW_OP_breg6 -8; DW_OP_deref), or any other register
 *     plus an offset (rbx in the dynamic loader's _dl_runtime_resolve,
 *     rdi in longjmp, r10 while GCC realigns a stack);
 *   - a signal frame (an FDE of augmentation "S");
 *   - a return address anywhere but at CFA-8, or rbp undefined or saved
 *     by any other rule (in a register, as an expression, val_offset);
 *   - offsets a row cannot hold: a CFA offset past CFITAB_CFA_OFF_MAX or
 *     below 0, an rbp offset not a multiple of 8 or outside
 *     [CFITAB_RBP_OFF_MIN, CFITAB_RBP_OFF_MAX].
 * Hand-written assembly with CFI of the kinds above is covered like
 * compiled code; without CFI it is CFITAB_NO_CFI (frame pointers too).
 * Not read: .eh_frame of a file without section headers (only
 * PT_GNU_EH_FRAME), a separate debug file's .debug_frame, a .debug_frame
 * libdw cannot read (.eh_frame's rows stay), FDE addresses encoded other
 * than absolute or pc-relative, and files that are not 64-bit
 * little-endian x86-64.
 */
#ifndef PTBPF_CFITAB_H
#define PTBPF_CFITAB_H

#include <gelf.h>
#include <stdint.h>

/* What a row's rule is (its low 3 bits). */
enum cfitab_kind {
	CFITAB_RSP = 0, /* CFA = rsp + off */
	CFITAB_RBP = 1, /* CFA = rbp + off */
	CFITAB_PLT = 2, /* CFA = rsp + off + ((rip & 15) >= k ? 8 : 0) */
	CFITAB_UNSUPPORTED = 3, /* CFI a row cannot say: fall back */
	CFITAB_NO_CFI = 4, /* no FDE covers the address: fall back */
	CFITAB_END = 5, /* return address undefined: the outermost frame */
};

/*
 * A rule, packed in 32 bits:
 *   bits  0-2   enum cfitab_kind
 *   bit   3     rbp saved at CFA + rbp_off (else unchanged)
 *   bits  4-11  rbp_off / 8, signed; for CFITAB_PLT: k
 *   bits 12-31  the CFA offset, unsigned
 * CFITAB_UNSUPPORTED, CFITAB_NO_CFI and CFITAB_END carry nothing else.
 */
#define CFITAB_KIND_MASK 0x7u
#define CFITAB_RBP_SAVED 0x8u
#define CFITAB_RBP_SHIFT 4
#define CFITAB_CFA_SHIFT 12
#define CFITAB_CFA_OFF_MAX ((1 << (32 - CFITAB_CFA_SHIFT)) - 1)
#define CFITAB_RBP_OFF_MIN (-128 * 8)
#define CFITAB_RBP_OFF_MAX (127 * 8)

/* One row: @rule holds from @start to the next row's start. */
struct cfitab_row {
	uint32_t start; /* ELF virtual address less cfitab.base */
	uint32_t rule;
};

/* The executable PT_LOAD segments, where a mapping's bias comes from. */
#define CFITAB_MAX_SEGS 4

struct cfitab_seg {
	uint64_t vaddr, offset, filesz;
};

struct cfitab {
	uint64_t base; /* a row's start + base = its ELF virtual address */
	struct cfitab_row *rows; /* sorted by start, malloc'd */
	uint32_t nr;
	struct cfitab_seg seg[CFITAB_MAX_SEGS];
	unsigned int nr_seg;
	/* what it was read from */
	uint32_t fdes; /* FDEs of code whose rows were read, both sections */
	uint32_t fdes_debug; /* of which from .debug_frame */
};

static inline enum cfitab_kind cfitab_kind(uint32_t rule)
{
	return (enum cfitab_kind)(rule & CFITAB_KIND_MASK);
}

/* The CFA offset of a CFITAB_RSP, CFITAB_RBP or CFITAB_PLT rule. */
static inline uint32_t cfitab_cfa_off(uint32_t rule)
{
	return rule >> CFITAB_CFA_SHIFT;
}

/* Whether the rule restores rbp from CFA + cfitab_rbp_off(). */
static inline int cfitab_rbp_saved(uint32_t rule)
{
	return (rule & CFITAB_RBP_SAVED) != 0;
}

static inline int32_t cfitab_rbp_off(uint32_t rule)
{
	return (int32_t)(int8_t)(uint8_t)(rule >> CFITAB_RBP_SHIFT) * 8;
}

/* k of a CFITAB_PLT rule: from (rip & 15) >= k on, 8 more bytes pushed. */
static inline uint32_t cfitab_plt_k(uint32_t rule)
{
	return (rule >> CFITAB_RBP_SHIFT) & 0xff;
}

/*
 * Packs a rule: @kind, the CFA offset @cfa_off, and for CFITAB_RSP and
 * CFITAB_RBP whether rbp is saved (@rbp_saved) at CFA + @rbp_off, for
 * CFITAB_PLT k in @rbp_off. A value the row cannot hold (see the limits
 * above) makes it CFITAB_UNSUPPORTED; the kinds without a CFA ignore the
 * rest.
 */
uint32_t cfitab_rule(enum cfitab_kind kind, int64_t cfa_off, int rbp_saved, int64_t rbp_off);

/*
 * The CFA of a frame under @rule, from its registers @rsp, @rbp and @rip
 * (@rip is the frame's own pc: for a caller's frame, the return address).
 * Returns 0 with *@cfa set, or -ENOENT when the rule's kind has no CFA
 * (CFITAB_UNSUPPORTED, CFITAB_NO_CFI, CFITAB_END).
 */
int cfitab_cfa(uint32_t rule, uint64_t rsp, uint64_t rbp, uint64_t rip, uint64_t *cfa);

/*
 * Compiles the CFI of the ELF file @path into @tab (rows malloc'd:
 * cfitab_free()). A file without any CFI is a table of no rows (every
 * address CFITAB_NO_CFI).
 *
 * Returns 0.
 * Returns -EINVAL if @path or @tab is NULL.
 * Returns -errno of open().
 * Returns the errors of cfitab_build_elf().
 */
int cfitab_build(const char *path, struct cfitab *tab);

/*
 * The same from an ELF handle @elf (a file, or an image in memory through
 * elf_memory(): the vDSO's); @elf stays the caller's.
 *
 * Returns 0.
 * Returns -EINVAL if @elf or @tab is NULL.
 * Returns -ENOEXEC if @elf is not an ELF file, or its program headers
 * cannot be read (a file without any has no code: no rows).
 * Returns -ENOTSUP if it is not 64-bit little-endian x86-64, or has more
 * than CFITAB_MAX_SEGS executable segments.
 * Returns -EBADMSG if libdw cannot read its CFI, or an FDE's rows.
 * Returns -EFBIG if its code spans more than 4 GiB.
 * Returns -ENOMEM.
 */
int cfitab_build_elf(Elf *elf, struct cfitab *tab);

/* Frees @tab's rows (NULL is fine); @tab is empty afterwards. */
void cfitab_free(struct cfitab *tab);

/*
 * The row of @tab that covers ELF virtual address @vaddr: a binary search
 * of at most 32 steps, as the BPF program will search. Returns NULL when
 * no row starts at or before @vaddr (no CFI there either).
 */
const struct cfitab_row *cfitab_find(const struct cfitab *tab, uint64_t vaddr);

/* The rule at @vaddr: cfitab_find()'s, or CFITAB_NO_CFI when it finds none. */
uint32_t cfitab_rule_at(const struct cfitab *tab, uint64_t vaddr);

/*
 * The bias of a mapping of @tab's file at @start from file offset
 * @pgoff (as /proc/PID/maps or an MMAP2 record give them): an address A of
 * the mapping is ELF virtual address A - *@bias. The executable segment
 * whose file bytes hold @pgoff gives it (the kernel maps each PT_LOAD
 * from its page-aligned offset).
 *
 * Returns 0 with *@bias set.
 * Returns -EINVAL if @tab or @bias is NULL.
 * Returns -ERANGE if no executable segment holds @pgoff.
 */
int cfitab_bias(const struct cfitab *tab, uint64_t start, uint64_t pgoff, uint64_t *bias);

#endif /* PTBPF_CFITAB_H */
