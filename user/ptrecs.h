/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The intel_pt event's own records (ITRACE_START, AUX, LOST) and the
 * switch records of a CPU, read together: which thread the CPU runs, and
 * what the kernel said about the PT data of a window.
 *
 * Why: a PT window (the bytes since the last read) starts wherever the
 * last read left off, often in the middle of a thread's time on the CPU.
 * Its switch-in, or the kernel's ITRACE_START (written once, at the
 * event's first start), lies in an earlier window, and a decoder that
 * learns the thread only from those attributes the start of the window
 * to no thread at all. The cores keep the thread each CPU runs across
 * reads, so the writer can name it at the start of each window.
 */
#ifndef PTBPF_PTRECS_H
#define PTBPF_PTRECS_H

#include <stddef.h>
#include <linux/types.h>

#include "snapdata.h"

/* The thread on one CPU as the records so far tell; tid 0: none known. */
struct ptrecs_cpu {
	__u32 pid, tid;
};

/*
 * Follow one CPU through a window's records in time order: the switch
 * records @sb (@sb_len bytes, sample IDs of @sb_type) and the PT event's
 * records @pt (@pt_type). A switch-in or ITRACE_START names the thread
 * that runs from then on, a task-bound switch-out ends it (tid 0), a
 * CPU-wide switch-out names the next one. @st holds the state before the
 * records on entry, after them on return. Records that can't be parsed
 * are passed over.
 */
void ptrecs_follow(struct ptrecs_cpu *st, const __u8 *sb, size_t sb_len, __u64 sb_type,
		   const __u8 *pt, size_t pt_len, __u64 pt_type);

/*
 * The AUX flags and losses of @core's PT records (core->ptrec) into its
 * aux_truncated, aux_collision, aux_partial and ptrec_lost counts.
 */
void ptrecs_facts(struct snap_core *core);

#endif /* PTBPF_PTRECS_H */
