/* SPDX-License-Identifier: GPL-2.0 */
/* bpf/ptbpf.h for user space: the __u32 types it uses, and a size check. */
#ifndef PTBPF_TYPES_H
#define PTBPF_TYPES_H

#include <linux/types.h>

#include "ptbpf.h"

_Static_assert(sizeof(struct ptbpf_event) == 232,
	       "struct ptbpf_event must have the same layout as in BPF");
_Static_assert(sizeof(struct ptbpf_proc) == 32,
	       "struct ptbpf_proc must have the same layout as in BPF");

#endif /* PTBPF_TYPES_H */
