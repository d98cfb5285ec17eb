// SPDX-License-Identifier: GPL-2.0
/*
 * uwalk.c, the reference stack walker, over stacks made by hand: each
 * kind of row (rsp, rbp, rbp restored where it was saved, the PLT's
 * nibble), a caller's
 * pc looked up one byte back (a return address that is the next
 * function's first byte), the frame-pointer step where there is no CFI
 * (marked), and each way a walk ends (the end row, a zero return address,
 * a failed read, a frame below the stack pointer, the depth bound); the
 * mapping search; and this test's own stack, walked over the tables of
 * the files it maps, against glibc's backtrace() (libgcc's unwinder).
 */
#include <errno.h>
#include <execinfo.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unwind/cfitab.h"
#include "unwind/uwalk.h"

/* A made-up process: one file mapped at MAP_START, its code at vaddr 0x1000. */
#define MAP_START 0x555500000000ull
#define CODE(vaddr) (MAP_START + (vaddr))
#define STACK_TOP 0x7ffd00010000ull
#define STACK_SIZE 0x1000

static uint64_t stack[STACK_SIZE / 8];

static uint64_t *slot(uint64_t addr)
{
	return &stack[(addr - (STACK_TOP - STACK_SIZE)) / 8];
}

static int read_stack(void *ctx, uint64_t addr, size_t len, void *buf)
{
	if (addr < STACK_TOP - STACK_SIZE || addr + len > STACK_TOP || addr + len < addr)
		return -EFAULT;
	memcpy(buf, (const char *)stack + (addr - (STACK_TOP - STACK_SIZE)), len);
	return 0;
}

/*
 * The file's functions (ELF vaddrs):
 *   0x1000 leaf:    rsp + 8 at entry, rsp + 24 from 0x1004
 *   0x1010 framed:  rbp-based from 0x1014, rbp saved at CFA - 16; its
 *                   call returns to 0x1020, the first byte of:
 *   0x1020 other:   a row nothing could walk (rsp + 0x4000)
 *   0x1030 outer:   the end row (_start's)
 *   0x1040 plt:     a lazy PLT entry, k = 11
 *   0x1050..        no CFI
 *   0x1060 gpr:     pushed rbp and uses it as a register: rsp + 24, the
 *                   caller's rbp at CFA - 24
 *   0x1070..        no CFI
 */
static struct cfitab_row rows[16];
static struct cfitab tab = { .rows = rows,
			     .seg = { { .vaddr = 0, .offset = 0, .filesz = 0x2000 } },
			     .nr_seg = 1 };
static struct uwalk_map map;

static int setup(void **state)
{
	uint32_t n = 0;

	rows[n++] = (struct cfitab_row){ 0x1000, cfitab_rule(CFITAB_RSP, 8, 0, 0) };
	rows[n++] = (struct cfitab_row){ 0x1004, cfitab_rule(CFITAB_RSP, 24, 0, 0) };
	rows[n++] = (struct cfitab_row){ 0x1010, cfitab_rule(CFITAB_RSP, 8, 0, 0) };
	rows[n++] = (struct cfitab_row){ 0x1011, cfitab_rule(CFITAB_RSP, 16, 1, -16) };
	rows[n++] = (struct cfitab_row){ 0x1014, cfitab_rule(CFITAB_RBP, 16, 1, -16) };
	rows[n++] = (struct cfitab_row){ 0x1020, cfitab_rule(CFITAB_RSP, 0x4000, 0, 0) };
	rows[n++] = (struct cfitab_row){ 0x1030, CFITAB_END };
	rows[n++] = (struct cfitab_row){ 0x1040, cfitab_rule(CFITAB_PLT, 8, 0, 11) };
	rows[n++] = (struct cfitab_row){ 0x1050, CFITAB_NO_CFI };
	rows[n++] = (struct cfitab_row){ 0x1060, cfitab_rule(CFITAB_RSP, 24, 1, -24) };
	rows[n++] = (struct cfitab_row){ 0x1070, CFITAB_NO_CFI };
	tab.nr = n;
	memset(stack, 0, sizeof(stack));
	return uwalk_map_init(&map, MAP_START, MAP_START + 0x2000, 0, &tab);
}

static void walk(const struct uwalk_regs *r, struct uwalk_result *out)
{
	assert_int_equal(uwalk(&map, 1, r, read_stack, NULL, out), 0);
}

/*
 * leaf (at 0x1008: rsp + 24) <- framed (rbp-based) <- outer (end): the
 * caller's pc is the return address, rbp comes back from framed's frame.
 */
static void test_rsp_rbp_end(void **state)
{
	uint64_t sp = STACK_TOP - 0x200, fp = STACK_TOP - 0x100;
	struct uwalk_regs r = { .pc = CODE(0x1008), .sp = sp, .bp = fp };
	struct uwalk_result out;

	/* leaf: CFA sp + 24, its return address into framed at 0x1018 */
	*slot(sp + 16) = CODE(0x1018);
	/* framed: CFA fp + 16; saved rbp at CFA - 16 = fp, return address into outer */
	*slot(fp + 8) = CODE(0x1034);
	*slot(fp) = STACK_TOP - 0x40;
	walk(&r, &out);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.pc[0], CODE(0x1008));
	assert_int_equal(out.pc[1], CODE(0x1018));
	assert_int_equal(out.pc[2], CODE(0x1034));
	assert_int_equal(out.fallback, 0);
	assert_int_equal(out.stop, UWALK_STOP_END);
}

/*
 * framed's call is its last instruction: its return address 0x1020 is
 * other's first byte, whose row walks nowhere. Looked up at 0x101f, the
 * call's own byte, framed's row is used.
 */
static void test_pc_minus_one(void **state)
{
	uint64_t sp = STACK_TOP - 0x200, fp = STACK_TOP - 0x100;
	struct uwalk_regs r = { .pc = CODE(0x1000), .sp = sp, .bp = fp };
	struct uwalk_result out;

	/* leaf at its entry: CFA sp + 8 */
	*slot(sp) = CODE(0x1020);
	*slot(fp + 8) = CODE(0x1034);
	*slot(fp) = 0;
	walk(&r, &out);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.pc[1], CODE(0x1020));
	assert_int_equal(out.pc[2], CODE(0x1034));
	assert_int_equal(out.stop, UWALK_STOP_END);
	assert_int_equal(out.fallback, 0);
	/* the first frame's own pc is not a return address: other's own row */
	r.pc = CODE(0x1020);
	walk(&r, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.stop, UWALK_STOP_READ);
}

/*
 * gpr (rbp a register there, holding anything) <- framed, whose CFA is
 * rbp's: the walk needs the rbp gpr saved, not the one it holds.
 */
static void test_rbp_restored(void **state)
{
	uint64_t sp = STACK_TOP - 0x200, fp = STACK_TOP - 0x100;
	struct uwalk_regs r = { .pc = CODE(0x1064), .sp = sp, .bp = 0x1234 };
	struct uwalk_result out;

	*slot(sp + 16) = CODE(0x1018);
	*slot(sp) = fp;
	*slot(fp + 8) = CODE(0x1034);
	walk(&r, &out);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.pc[1], CODE(0x1018));
	assert_int_equal(out.pc[2], CODE(0x1034));
	assert_int_equal(out.stop, UWALK_STOP_END);
}

/* inside the PLT entry: before its push rsp + 8, after it rsp + 16 */
static void test_plt_nibble(void **state)
{
	uint64_t sp = STACK_TOP - 0x200;
	struct uwalk_regs r = { .pc = CODE(0x1046), .sp = sp, .bp = 0 };
	struct uwalk_result out;

	*slot(sp) = CODE(0x1034);
	*slot(sp + 8) = CODE(0x1038);
	walk(&r, &out);
	assert_int_equal(out.n, 2);
	assert_int_equal(out.pc[1], CODE(0x1034));
	r.pc = CODE(0x104b);
	walk(&r, &out);
	assert_int_equal(out.n, 2);
	assert_int_equal(out.pc[1], CODE(0x1038));
}

/* no CFI (a pc in no mapping, then one past every FDE): the frame pointer's step, marked */
static void test_frame_pointer_fallback(void **state)
{
	uint64_t sp = STACK_TOP - 0x200, fp = STACK_TOP - 0x180, fp2 = STACK_TOP - 0x100;
	struct uwalk_regs r = { .pc = 0x400000, .sp = sp, .bp = fp };
	struct uwalk_result out;

	*slot(fp + 8) = CODE(0x1058);
	*slot(fp) = fp2;
	*slot(fp2 + 8) = CODE(0x1034);
	*slot(fp2) = 0;
	walk(&r, &out);
	assert_int_equal(out.n, 3);
	assert_int_equal(out.pc[1], CODE(0x1058));
	assert_int_equal(out.pc[2], CODE(0x1034));
	assert_int_equal(out.fallback, (1u << 1) | (1u << 2));
	assert_int_equal(out.stop, UWALK_STOP_END);
	/* the same without any mapping at all */
	assert_int_equal(uwalk(NULL, 0, &r, read_stack, NULL, &out), 0);
	assert_int_equal(out.fallback & 6, 6);
}

static void test_stops(void **state)
{
	uint64_t sp = STACK_TOP - 0x200;
	struct uwalk_regs r = { .pc = CODE(0x1000), .sp = sp, .bp = 0 };
	struct uwalk_result out;
	unsigned int i;

	/* a return address of 0 */
	*slot(sp) = 0;
	walk(&r, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.stop, UWALK_STOP_ZERO);
	/* a CFA outside what can be read */
	r.sp = STACK_TOP;
	walk(&r, &out);
	assert_int_equal(out.stop, UWALK_STOP_READ);
	/* no CFI and rbp below rsp: no frame there */
	r = (struct uwalk_regs){ .pc = CODE(0x1078), .sp = sp, .bp = sp - 64 };
	walk(&r, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.stop, UWALK_STOP_STACK);
	/* frames without end: 64 of them, then the bound */
	r = (struct uwalk_regs){ .pc = CODE(0x1000), .sp = STACK_TOP - STACK_SIZE, .bp = 0 };
	for (i = 0; i < STACK_SIZE / 8; i++)
		stack[i] = CODE(0x1001);
	walk(&r, &out);
	assert_int_equal(out.n, UWALK_MAX_FRAMES);
	assert_int_equal(out.stop, UWALK_STOP_DEPTH);
	assert_int_equal(out.pc[UWALK_MAX_FRAMES - 1], CODE(0x1001));
	assert_int_equal(uwalk(&map, 1, NULL, read_stack, NULL, &out), -EINVAL);
	assert_int_equal(uwalk(NULL, 1, &r, read_stack, NULL, &out), -EINVAL);
	assert_string_equal(uwalk_stop_name(UWALK_STOP_END), "end");
}

static void test_find_map(void **state)
{
	struct uwalk_map maps[5];
	unsigned int i;

	for (i = 0; i < 5; i++)
		assert_int_equal(uwalk_map_init(&maps[i], 0x1000 * (2 * i + 1),
						0x1000 * (2 * i + 2), 0, NULL),
				 0);
	assert_null(uwalk_find_map(maps, 5, 0xfff));
	for (i = 0; i < 5; i++) {
		assert_ptr_equal(uwalk_find_map(maps, 5, 0x1000 * (2 * i + 1)), &maps[i]);
		assert_ptr_equal(uwalk_find_map(maps, 5, 0x1000 * (2 * i + 2) - 1), &maps[i]);
		assert_null(uwalk_find_map(maps, 5, 0x1000 * (2 * i + 2)));
	}
	assert_null(uwalk_find_map(maps, 0, 0x1000));
	assert_int_equal(uwalk_map_init(&maps[0], 0x2000, 0x1000, 0, NULL), -EINVAL);
	/* an offset in no executable segment: the mapping has no table */
	assert_int_equal(uwalk_map_init(&maps[0], 0x1000, 0x2000, 0x8000, &tab), -ERANGE);
	assert_null(maps[0].tab);
	assert_int_equal(uwalk_rule(maps, 1, 0x1000), CFITAB_NO_CFI);
}

/* this process: its executable mappings, each with its file's table */
static struct uwalk_map own_maps[128];
static struct cfitab own_tabs[128];
static unsigned int nr_own;
static uint64_t stack_lo, stack_hi;

static void own_maps_read(void)
{
	unsigned long long start, end, pgoff;
	char line[600], perm[8], path[512];
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &start, &end, perm, &pgoff,
			   path) < 4)
			continue;
		if (!strcmp(path, "[stack]")) {
			stack_lo = start;
			stack_hi = end;
		}
		if (perm[2] != 'x' || nr_own == 128)
			continue;
		if (path[0] == '/' && !cfitab_build(path, &own_tabs[nr_own]))
			uwalk_map_init(&own_maps[nr_own], start, end, pgoff, &own_tabs[nr_own]);
		else
			uwalk_map_init(&own_maps[nr_own], start, end, pgoff, NULL);
		nr_own++;
	}
	fclose(f);
	assert_true(stack_hi > stack_lo);
}

static int read_own(void *ctx, uint64_t addr, size_t len, void *buf)
{
	if (addr < stack_lo || addr + len > stack_hi)
		return -EFAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

static __attribute__((noinline)) void walk_here(struct uwalk_result *out, void **bt, int *nbt)
{
	struct uwalk_regs r;

	/* rip, rsp and rbp of this very instruction, as a sample would have them */
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(r.pc), "=r"(r.sp), "=r"(r.bp));
	assert_int_equal(uwalk(own_maps, nr_own, &r, read_own, NULL, out), 0);
	*nbt = backtrace(bt, 64);
}

static __attribute__((noinline)) void walk_deeper(int n, struct uwalk_result *out, void **bt,
						  int *nbt)
{
	if (n)
		walk_deeper(n - 1, out, bt, nbt);
	else
		walk_here(out, bt, nbt);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

static void test_own_stack(void **state)
{
	struct uwalk_result out;
	void *bt[64];
	int nbt = 0, i;

	own_maps_read();
	walk_deeper(3, &out, bt, &nbt);
	print_message("own stack: %u frames walked (%s), backtrace() %d\n", out.n,
		      uwalk_stop_name(out.stop), nbt);
	assert_true(nbt >= 6);
	/* backtrace()'s first is its own return address in walk_here, the walk's that pc */
	for (i = 1; i < nbt; i++)
		assert_int_equal(out.pc[i], (uintptr_t)bt[i]);
	assert_int_equal(out.n, nbt);
	assert_int_equal(out.fallback, 0);
	assert_int_equal(out.stop, UWALK_STOP_END);
	for (i = 0; i < (int)nr_own; i++)
		cfitab_free(&own_tabs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rsp_rbp_end, setup),
		cmocka_unit_test_setup(test_pc_minus_one, setup),
		cmocka_unit_test_setup(test_rbp_restored, setup),
		cmocka_unit_test_setup(test_plt_nibble, setup),
		cmocka_unit_test_setup(test_frame_pointer_fallback, setup),
		cmocka_unit_test_setup(test_stops, setup),
		cmocka_unit_test_setup(test_find_map, setup),
		cmocka_unit_test(test_own_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
