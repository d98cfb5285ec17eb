// SPDX-License-Identifier: GPL-2.0
/*
 * ifunc.c: an IFUNC (libc's strlen) resolves to the implementation this
 * process's own loader bound, not to its resolver; one in a file this
 * process does not map (libm's cosf32) is refused with its candidates.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "target/elfsym.h"
#include "target/ifunc.h"

static size_t (*volatile strlen_ptr)(const char *) = strlen;

static int bias_of(struct dl_phdr_info *info, size_t size, void *ctx)
{
	uintptr_t *want = ctx;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && want[0] >= info->dlpi_addr + ph->p_vaddr &&
		    want[0] < info->dlpi_addr + ph->p_vaddr + ph->p_memsz) {
			want[1] = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static void test_strlen(void **state)
{
	struct elfsym_match m[ELFSYM_MAX_MATCHES];
	uintptr_t want[2] = { (uintptr_t)strlen_ptr, 0 };
	struct ifunc_impl impl;
	unsigned int nr = 0;
	char err[1024] = "";
	Dl_info info;

	/* what this process calls: the loader's binding of strlen */
	assert_true(dladdr((void *)strlen_ptr, &info));
	assert_int_equal(elfsym_find(info.dli_fname, "strlen", m, ELFSYM_MAX_MATCHES, &nr), 0);
	assert_int_equal(nr, 1);
	assert_true(m[0].ifunc);
	dl_iterate_phdr(bias_of, want);
	assert_int_equal(ifunc_resolve(info.dli_fname, "strlen", "/proc", 0, &impl,
				       "--trigger-on strlen@libc.so.6", err, sizeof(err)),
			 0);
	print_message("strlen: resolver at 0x%llx, implementation %s at 0x%llx\n",
		      (unsigned long long)m[0].addr, impl.name, (unsigned long long)impl.addr);
	assert_int_equal(impl.addr, want[0] - want[1]);
	assert_int_not_equal(impl.addr, m[0].addr);
	assert_true(impl.offset > 0);
}

static void test_not_mapped(void **state)
{
	struct ifunc_impl impl;
	char err[1024] = "";

	if (access("/lib/x86_64-linux-gnu/libm.so.6", R_OK))
		skip();
	assert_int_equal(ifunc_resolve("/lib/x86_64-linux-gnu/libm.so.6", "cosf32", "/proc", 0,
				       &impl, "--trigger-on cosf32@libm.so.6", err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "--trigger-on cosf32@libm.so.6: cosf32 in "
				    "/lib/x86_64-linux-gnu/libm.so.6 is an IFUNC"));
	assert_non_null(strstr(err, "candidates: cosf32"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strlen),
		cmocka_unit_test(test_not_mapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
