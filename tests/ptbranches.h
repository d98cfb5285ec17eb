/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A second traced function for the Intel PT tests, hand-written so its
 * bytes, and so the offsets perf and libipt print, are known. Two paths
 * through it differ in one branch: x != 1 (path A): xor, cmp, jne
 * (taken), add $2, test, je (not taken), add $3, ret. x == 1 (path B): jne
 * not taken, so add $1 runs too. ptgen_encode() makes the PT of a path:
 * TIP.PGE at ptgen_branches, TNT with the path's two bits, TIP.PGD to the
 * return address.
 */
#ifndef PTBPF_TESTS_PTBRANCHES_H
#define PTBPF_TESTS_PTBRANCHES_H

#include <stdint.h>

__asm__(".text\n"
	".globl ptgen_branches\n"
	".type ptgen_branches, @function\n"
	"ptgen_branches:\n"
	"	xor %eax, %eax\n" /* +0x0, 2 bytes */
	"	cmp $1, %edi\n" /* +0x2, 3 */
	"	jne 1f\n" /* +0x5, 2 */
	"	add $1, %eax\n" /* +0x7, 3 */
	"1:	add $2, %eax\n" /* +0xa, 3 */
	"	test %edi, %edi\n" /* +0xd, 2 */
	"	je 2f\n" /* +0xf, 2 */
	"	add $3, %eax\n" /* +0x11, 3 */
	"2:	ret\n" /* +0x14 */
	".size ptgen_branches, .-ptgen_branches\n");
int ptgen_branches(int x);

/* One path through ptgen_branches: its TNT bits and instructions. */
struct ptgen_branch_path {
	const char *name;
	uint8_t tnt; /* 2 bits, the first (jne) in the MSB; 1 = taken */
	unsigned int n;
	unsigned int offs[9];
};

static const struct ptgen_branch_path ptgen_branches_a = { "A",
							   0x2,
							   8,
							   { 0x0, 0x2, 0x5, 0xa, 0xd, 0xf, 0x11,
							     0x14 } };
static const struct ptgen_branch_path ptgen_branches_b = { "B",
							   0x0,
							   9,
							   { 0x0, 0x2, 0x5, 0x7, 0xa, 0xd, 0xf,
							     0x11, 0x14 } };

#endif /* PTBPF_TESTS_PTBRANCHES_H */
