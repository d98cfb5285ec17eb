// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf's own vDSO image (user/proc/vdso.h): the one this test process maps is
 * found, is an ELF shared object whose size covers its headers, code and
 * section table and stays inside its [vdso] mapping, and holds the
 * functions a reader names (__vdso_clock_gettime); images that are not a
 * 64-bit x86-64 ELF object, or whose headers point past what is readable,
 * are refused.
 */
#include <elf.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/vdso.h"

/* The [vdso] line of /proc/self/maps: its start and length. */
static void own_mapping(uint64_t *start, uint64_t *len)
{
	unsigned long long a, b;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	*start = *len = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2) {
			*start = a;
			*len = b - a;
		}
	fclose(f);
	assert_true(*len > 0);
}

static void test_own_image(void **state)
{
	const Elf64_Ehdr *eh;
	struct vdso_image img;
	uint64_t start, len;
	bool clock = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	char *copy;
	size_t i;
	Elf *e;

	own_mapping(&start, &len);
	assert_int_equal(vdso_image_read(NULL, &img), 0);
	assert_int_equal(img.addr, getauxval(AT_SYSINFO_EHDR));
	assert_int_equal(img.addr, start);
	assert_ptr_equal(img.data, (const void *)start);
	/* its ELF file's size: the section table ends it, inside the mapping */
	eh = img.data;
	assert_memory_equal(eh->e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(eh->e_type, ET_DYN);
	assert_int_equal(img.len, eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize);
	assert_true(img.len <= len);

	/* what a reader gets from the file: libelf on a copy of the bytes */
	copy = malloc(img.len);
	assert_non_null(copy);
	memcpy(copy, img.data, img.len);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	e = elf_memory(copy, img.len);
	assert_non_null(e);
	assert_int_equal(elf_kind(e), ELF_K_ELF);
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		assert_non_null(d);
		for (i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			assert_non_null(gelf_getsym(d, (int)i, &sym));
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, "__vdso_clock_gettime"))
				continue;
			clock = true;
			/* its code is in the bytes saved */
			assert_true(sym.st_value + sym.st_size <= img.len);
		}
	}
	assert_true(clock);
	elf_end(e);
	free(copy);
}

static void test_abi(void **state)
{
	unsigned char h[EI_NIDENT + 4];
	Elf64_Half machine = EM_X86_64;

	memset(h, 0, sizeof(h));
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = ELFDATA2LSB;
	memcpy(h + EI_NIDENT + 2, &machine, sizeof(machine));
	assert_true(vdso_abi_native(h, sizeof(h)));
	assert_false(vdso_abi_native(h, sizeof(h) - 1));
	assert_false(vdso_abi_native(NULL, sizeof(h)));
	/* x32 and i386: ELFCLASS32, another image */
	h[EI_CLASS] = ELFCLASS32;
	assert_false(vdso_abi_native(h, sizeof(h)));
	h[EI_CLASS] = ELFCLASS64;
	machine = EM_AARCH64;
	memcpy(h + EI_NIDENT + 2, &machine, sizeof(machine));
	assert_false(vdso_abi_native(h, sizeof(h)));
	h[0] = 'x';
	assert_false(vdso_abi_native(h, sizeof(h)));
}

/* A small image: the ELF header, one PT_LOAD, a section table at @shoff. */
static size_t fake_image(unsigned char *buf, size_t cap, uint64_t shoff)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };

	memset(buf, 0, cap);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 2;
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = ph.p_memsz = 0x300;
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	return shoff + 2 * sizeof(Elf64_Shdr);
}

static void test_size(void **state)
{
	static unsigned char buf[4096];
	Elf64_Ehdr eh;
	size_t len, want;

	want = fake_image(buf, sizeof(buf), 0x300);
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), 0);
	assert_int_equal(len, want);
	/* the section table before the code's end: the code ends it */
	fake_image(buf, sizeof(buf), 0x100);
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), 0);
	assert_int_equal(len, 0x300);
	/* one byte short of what the headers say: refused */
	want = fake_image(buf, sizeof(buf), 0x300);
	assert_int_equal(vdso_elf_size(buf, want - 1, &len), -ENOEXEC);
	/* a section table far past the mapping, or past 2^64 */
	fake_image(buf, sizeof(buf), 0x10000);
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), -ENOEXEC);
	fake_image(buf, sizeof(buf), UINT64_MAX - 8);
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), -ENOEXEC);
	/* not a shared object */
	fake_image(buf, sizeof(buf), 0x300);
	memcpy(&eh, buf, sizeof(eh));
	eh.e_type = ET_EXEC;
	memcpy(buf, &eh, sizeof(eh));
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), -ENOEXEC);
	/* not ELF at all, or too short for a header */
	memset(buf, 0, sizeof(buf));
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), &len), -ENOEXEC);
	assert_int_equal(vdso_elf_size(buf, 10, &len), -ENOEXEC);
	assert_int_equal(vdso_elf_size(NULL, sizeof(buf), &len), -EINVAL);
	assert_int_equal(vdso_elf_size(buf, sizeof(buf), NULL), -EINVAL);
}

/* A maps file without our [vdso] at its address: nothing is read. */
static void test_no_mapping(void **state)
{
	char path[] = "/tmp/ptbpf-vdso-XXXXXX";
	struct vdso_image img;
	int fd = mkstemp(path);
	const char text[] = "400000-401000 r-xp 00000000 fd:01 1 /usr/bin/x\n"
			    "1000-3000 r-xp 00000000 00:00 0 [vdso]\n";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);
	assert_int_equal(vdso_image_read(path, &img), -ENOENT);
	assert_null(img.data);
	assert_int_equal(img.len, 0);
	unlink(path);
	assert_int_equal(vdso_image_read("/nonexistent/maps", &img), -ENOENT);
	assert_int_equal(vdso_image_read(NULL, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_image),
		cmocka_unit_test(test_abi),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_no_mapping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
