// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump's --insn through the target's [vdso] (Intel PT, made here):
 * a snapshot of this very process, written by snapwrite with this
 * process's vDSO image as ptbpf writes it, holds a trace that enters
 * __vdso_clock_gettime and leaves after its first instruction (TIP.PGE,
 * then FUP and TIP.PGD: an asynchronous disable). The decoder reads that
 * instruction from the saved image: it decodes without an error, named by
 * the image's symbols. The same trace without the image (an older
 * snapshot) is a decode error, as before. With --format lldb the image is
 * trace.json's [vdso] module's file.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <capstone/capstone.h>
#include <cmocka.h>

#include "insn.h"
#include "load.h"
#include "summary.h"
#include "ptgen.h"
#include "output/snapwrite.h"
#include "testio.h"
#include "proc/vdso.h"

struct fixture {
	char dir[64], snap_dir[128];
	struct snapshot snap;
	struct snap_core core;
	struct vdso_image img;
	uint64_t func; /* __vdso_clock_gettime, run-time address */
	unsigned int first; /* its first instruction's length */
	bool foreign; /* the target is taken for a 32-bit one */
	/* records are read in place: aligned as the kernel's ring is */
	uint8_t pt[256] __attribute__((aligned(8)));
	uint8_t sb[256] __attribute__((aligned(8)));
	char *out, *err;
	size_t out_len, err_len;
};

/* The address of @name in the image (in its .dynsym), 0: none. */
static uint64_t image_sym(const struct vdso_image *img, const char *name)
{
	char *copy = malloc(img->len);
	Elf_Scn *scn = NULL;
	uint64_t at = 0;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	const char *n;
	size_t i;
	Elf *e;

	assert_non_null(copy);
	memcpy(copy, img->data, img->len);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	e = elf_memory(copy, img->len);
	assert_non_null(e);
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && sh.sh_entsize &&
		    (d = elf_getdata(scn, NULL)))
			for (i = 0; i < sh.sh_size / sh.sh_entsize; i++)
				if (gelf_getsym(d, (int)i, &sym) &&
				    (n = elf_strptr(e, sh.sh_link, sym.st_name)) &&
				    !strcmp(n, name))
					at = sym.st_value;
	elf_end(e);
	free(copy);
	return at ? img->addr + at : 0;
}

/* The length of the instruction at @ip of this process, not a branch. */
static unsigned int first_insn(uint64_t ip)
{
	unsigned int len, g;
	cs_insn *insn;
	csh cs;

	assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	assert_int_equal(cs_disasm(cs, (const uint8_t *)(uintptr_t)ip, 16, ip, 1, &insn), 1);
	len = insn->size;
	/* the trace has no TNT or TIP for it: it must not branch */
	for (g = 0; g < insn->detail->groups_count; g++)
		assert_true(insn->detail->groups[g] != CS_GRP_JUMP &&
			    insn->detail->groups[g] != CS_GRP_CALL &&
			    insn->detail->groups[g] != CS_GRP_RET);
	cs_free(insn, 1);
	cs_close(&cs);
	return len;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/ptbpf-vdso-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->snap_dir, sizeof(fx->snap_dir), "%s/snapshot-000001", fx->dir);
	assert_int_equal(vdso_image_read(NULL, &fx->img), 0);
	fx->func = image_sym(&fx->img, "__vdso_clock_gettime");
	assert_true(fx->func != 0);
	fx->first = first_insn(fx->func);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	procinfo_free(&fx->snap.proc);
	free(fx->out);
	free(fx->err);
	if (!getenv("PTBPF_TEST_KEEP"))
		rm_tree(fx->dir);
	free(fx);
	return 0;
}

/*
 * The trace: PSB+ at TSC 1000, TIP.PGE at __vdso_clock_gettime, FUP after
 * its first instruction, TIP.PGD; this thread switched in at 900. Written
 * with the vDSO image when @image, in @formats (0: all).
 */
static void make_snapshot(struct fixture *fx, bool image, unsigned int formats)
{
	struct snapwrite_opts o = {
		.out_dir = fx->dir, .dirfd = -1, .uid = -1, .gid = -1, .formats = formats
	};
	uint32_t pid = (uint32_t)getpid(), tid = (uint32_t)gettid();
	struct pt_packet pk[7];
	char err[256];
	size_t n = 0, off;

	assert_int_equal(ptgen_snapshot(&fx->snap, &fx->core), 0);
	/* this test is a 64-bit program with a [vdso], as ptbpf reads it */
	assert_int_equal(fx->snap.proc.vdso, SNAP_VDSO_NATIVE);
	if (fx->foreign)
		fx->snap.proc.vdso = SNAP_VDSO_OTHER;
	fx->snap.run.vdso = image ? &fx->img : NULL;
	memset(pk, 0, sizeof(pk));
	ptgen_psb(pk, 1000);
	pk[4].type = ppt_tip_pge;
	pk[4].payload.ip.ipc = pt_ipc_sext_48;
	pk[4].payload.ip.ip = fx->func;
	pk[5].type = ppt_fup;
	pk[5].payload.ip.ipc = pt_ipc_sext_48;
	pk[5].payload.ip.ip = fx->func + fx->first;
	pk[6].type = ppt_tip_pgd;
	pk[6].payload.ip.ipc = pt_ipc_suppressed;
	off = ptgen_packets(fx->pt, sizeof(fx->pt), 0, pk, 7);
	assert_true(off > 0);
	fx->core.trace = fx->pt;
	fx->core.trace_len = fx->core.head = off;
	n += ptgen_switch(fx->sb + n, true, pid, tid, 0, 0, 900);
	n += ptgen_switch(fx->sb + n, false, 0, 0, pid, tid, 900);
	fx->core.sideband = fx->sb;
	fx->core.sideband_len = n;
	assert_int_equal(snapwrite_snapshot(&fx->snap, &o, NULL, 0, err, sizeof(err)), 0);
}

/* ptbpf-dump --insn of the snapshot: its text, messages, error count. */
static unsigned int decode(struct fixture *fx)
{
	struct dump_log log = { NULL, 0 };
	struct pt_image *image = pt_image_alloc(NULL);
	struct dump_symtab tab;
	struct dump_snap ds;
	FILE *out;

	assert_non_null(image);
	log.err = open_memstream(&fx->err, &fx->err_len);
	out = open_memstream(&fx->out, &fx->out_len);
	assert_non_null(log.err);
	assert_non_null(out);
	assert_int_equal(load_snapshot(fx->snap_dir, &ds, &log), 0);
	assert_int_equal(symtab_load(&tab, &ds, image, &log), 0);
	assert_int_equal(insn_print(out, &ds, &ds.cores[0], image, &tab, &log), 0);
	symtab_free(&tab);
	pt_image_free(image);
	snap_free(&ds);
	fclose(out);
	fclose(log.err);
	return log.nr_errors;
}

static void insn_in_vdso(void **state, unsigned int formats)
{
	struct fixture *fx = *state;
	char want[128];

	make_snapshot(fx, true, formats);
	assert_int_equal(decode(fx), 0);
	assert_string_equal(fx->err, "");
	/* the one instruction, named by the image's .dynsym */
	snprintf(want, sizeof(want), "  %llx  __vdso_clock_gettime+0x0\n",
		 (unsigned long long)fx->func);
	if (!strstr(fx->out, want))
		fail_msg("no \"%s\" in:\n%s", want, fx->out);
	assert_non_null(strstr(fx->out, "cpu 0: 1 instructions of the target, 0 of other tasks, "
					"0 errors\n"));
}

static void test_insn_in_vdso(void **state)
{
	insn_in_vdso(state, 0);
}

/*
 * --format lldb: no perf.data, trace.json's [vdso] module (its "file" the
 * image) is the range the image fills.
 */
static void test_insn_in_vdso_lldb(void **state)
{
	insn_in_vdso(state, SNAPWRITE_LLDB);
}

/* An older snapshot, without the image: the [vdso] has no bytes to decode. */
static void test_insn_without_image(void **state)
{
	struct fixture *fx = *state;

	make_snapshot(fx, false, 0);
	assert_true(decode(fx) > 0);
	assert_null(strstr(fx->out, "__vdso_clock_gettime"));
	assert_non_null(strstr(fx->out, "  error at trace offset 0x"));
}

/*
 * A 32-bit target's [vdso] is another image: none is saved, and the
 * summary says why under the cause; its code is not decoded with ours.
 */
static void test_foreign_not_saved(void **state)
{
	struct fixture *fx = *state;
	struct dump_log log = { NULL, 0 };
	struct stat st;
	struct dump_snap ds;
	char path[256];
	FILE *out;

	fx->foreign = true;
	make_snapshot(fx, true, 0);
	snprintf(path, sizeof(path), "%s/vdso.so", fx->snap_dir);
	assert_int_equal(stat(path, &st), -1);
	assert_true(decode(fx) > 0);
	assert_null(strstr(fx->out, "__vdso_clock_gettime"));
	free(fx->out);
	free(fx->err);
	log.err = open_memstream(&fx->err, &fx->err_len);
	out = open_memstream(&fx->out, &fx->out_len);
	assert_int_equal(load_snapshot(fx->snap_dir, &ds, &log), 0);
	assert_int_equal(summary_text(out, &ds, NULL, &log), 0);
	snap_free(&ds);
	fclose(out);
	fclose(log.err);
	assert_non_null(strstr(fx->out, "\n  [vdso]: not saved: not a 64-bit x86-64 program"));
	assert_int_equal(log.nr_errors, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_insn_in_vdso, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insn_in_vdso_lldb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_insn_without_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_not_saved, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
