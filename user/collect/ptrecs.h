/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The intel_pt event's own records (ITRACE_START, AUX, LOST) and the
 * switch records of a CPU, read together: which thread the CPU runs, and
 * what the kernel said about the PT data of a window.
 *
 * Why: a PT window (the bytes since the last read) starts wherever the
 * last read left off, often in the middle of a thread's time on the CPU.
 * Its switch-in, or the kernel's ITRACE_START (written at the
 * schedule-ins until the event's PT first started), lies in an earlier
 * window, and a decoder that learns the thread only from those
 * attributes the start of the window to no thread at all. The cores keep the thread each CPU runs across
 * reads, so the writer can name it at the start of each window.
 */
#ifndef PTBPF_PTRECS_H
#define PTBPF_PTRECS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "base/snapshot.h"

/* The thread on one CPU as the records so far tell; tid 0: none known. */
struct ptrecs_cpu {
	uint32_t pid, tid;
};

/* From @time on, the CPU ran @pid/@tid (0: none known). */
struct ptrecs_step {
	uint64_t time;
	uint32_t pid, tid;
};

/*
 * --full: a window reaches back past the last read, so the thread that
 * starts it is the one on the CPU before the snapshot's oldest record,
 * which the reads before told. The last @cap steps of one CPU, oldest at
 * @first; @base the state before them, known from base.time on when
 * @base_known (never after a gap: records lost unseen).
 */
struct ptrecs_hist {
	struct ptrecs_step *step;
	unsigned int cap, first, n;
	struct ptrecs_step base;
	bool base_known;
};

/* A history of @cap steps, nothing ran yet; 0, -EINVAL (@cap 0) or -ENOMEM. */
int ptrecs_hist_init(struct ptrecs_hist *h, unsigned int cap);
void ptrecs_hist_free(struct ptrecs_hist *h);
/* Switch records were lost unseen: nothing before now is known. */
void ptrecs_hist_gap(struct ptrecs_hist *h);
/*
 * The thread on the CPU just before @time into @st, from @h. Returns
 * false when @h does not reach back that far (or lost records there).
 */
bool ptrecs_hist_before(const struct ptrecs_hist *h, uint64_t time, struct ptrecs_cpu *st);

/*
 * Follow one CPU through a window's records in time order: the switch
 * records @sb (@sb_len bytes, sample IDs of @sb_type) and the PT event's
 * records @pt (@pt_type). A switch-in or ITRACE_START names the thread
 * that runs from then on, a task-bound switch-out ends it (tid 0), a
 * CPU-wide switch-out names the next one. @st holds the state before the
 * records on entry, after them on return. Records that can't be parsed
 * are passed over. @h (NULL: none) gets each step newer than its last
 * (a --full read holds records an earlier read had).
 */
void ptrecs_follow(struct ptrecs_cpu *st, struct ptrecs_hist *h, const uint8_t *sb, size_t sb_len,
		   __u64 sb_type, const uint8_t *pt, size_t pt_len, __u64 pt_type);

/*
 * The time of the oldest record of @sb and @pt (as ptrecs_follow() takes
 * them) into @time; false when there is none.
 */
bool ptrecs_first_time(const uint8_t *sb, size_t sb_len, __u64 sb_type, const uint8_t *pt,
		       size_t pt_len, __u64 pt_type, __u64 *time);

/*
 * The AUX flags and losses of @core's PT records (core->ptrec) into its
 * aux_truncated, aux_collision, aux_partial and ptrec_lost counts.
 */
void ptrecs_facts(struct snap_core *core);

#endif /* PTBPF_PTRECS_H */
