/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vDSO image a snapshot carries (SNAPFMT_VDSO), so that a reader can
 * name the functions of a target's [vdso] mapping and decode code there.
 *
 * Why ptbpf's own: the kernel maps one image into every process of one
 * ABI, and ptbpf is a 64-bit x86-64 process, so the image at its own
 * AT_SYSINFO_EHDR is byte for byte the one in every 64-bit x86-64 target
 * (perf record saves its own the same way). A 32-bit or x32 target maps
 * another image: none is written for it (snap_process.vdso says which).
 * Read once, at start: about 8 KiB that stay mapped for the whole run.
 */
#ifndef PTBPF_VDSO_H
#define PTBPF_VDSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid.h"

struct vdso_image {
	const void *data; /* in ptbpf's own [vdso] mapping */
	size_t len; /* the ELF file's bytes: headers, segments, section table */
	uint64_t addr; /* where it is mapped in ptbpf */
	/* its GNU build-id, perf's name for it (BUILD_ID, the cache); 0: none */
	uint8_t build_id[BUILDID_MAX];
	size_t build_id_len;
};

/*
 * The size of the ELF image at @buf, of which @avail bytes are readable:
 * the furthest end of its ELF header, program headers, PT_LOAD file bytes
 * and section header table. The image must be a 64-bit little-endian
 * x86-64 shared object (ET_DYN), as the kernel's x86-64 vDSO is.
 *
 * Returns 0 with *@len set.
 * Returns -EINVAL if an argument is NULL.
 * Returns -ENOEXEC if @buf is not such an ELF image, or its headers point
 * past @avail bytes.
 */
int vdso_elf_size(const void *buf, size_t avail, size_t *len);

/*
 * Finds ptbpf's own vDSO: getauxval(AT_SYSINFO_EHDR) is its start, the
 * [vdso] line of @maps ("/proc/self/maps" when NULL; tests pass another)
 * that starts there bounds what may be read, vdso_elf_size() its size.
 *
 * Returns 0 with @img filled (its build-id when it has one).
 * Returns -EINVAL if @img is NULL.
 * Returns -ENOENT if the kernel gave ptbpf no vDSO (vdso=0), or @maps has
 * no [vdso] mapping at its address.
 * Returns -ENOEXEC if the image is not a 64-bit x86-64 ELF shared object.
 * Returns the -errno of opening @maps otherwise.
 */
int vdso_image_read(const char *maps, struct vdso_image *img);

/*
 * Whether the ELF header at @hdr (@len bytes: at least 20) is of a 64-bit
 * x86-64 program: one whose [vdso] is ptbpf's own image.
 */
bool vdso_abi_native(const unsigned char *hdr, size_t len);

#endif /* PTBPF_VDSO_H */
