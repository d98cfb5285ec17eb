/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT at the packet level, with libipt's packet decoder: the counts a
 * snapshot summary shows, and the one-line-per-packet listing of
 * `ptbpf-dump --packets`.
 *
 * A per-core AUX buffer is cyclic, so a stream usually starts in the middle
 * of a packet: decoding begins at the first PSB. After a decode error the
 * walk goes on at the next PSB, as libipt's own tools do, and says where it
 * stopped, why, and where it picked up again. libipt's -pte_* codes never
 * leave this module: callers see messages and counts.
 */
#ifndef PTBPF_DUMP_PTPKT_H
#define PTBPF_DUMP_PTPKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <intel-pt.h>

#include "snap.h"

/* Packet kinds counted: libipt's enum pt_packet_type, ppt_invalid..ppt_ptw */
#define DUMP_PT_KINDS (ppt_ptw + 1)

struct dump_pt_stats {
	uint64_t kinds[DUMP_PT_KINDS]; /* packets of each kind */
	uint64_t packets, psb, ovf;
	uint64_t errors; /* decode errors, each followed by a resync */
	uint64_t first_error_off; /* offset in the trace of the first one */
	char first_error[64]; /* and why */
	uint64_t head_skipped; /* bytes before the first PSB */
	uint64_t tail_skipped; /* bytes after the last error with no PSB */
	bool has_psb; /* a PSB was found at all */
	bool has_tsc;
	uint64_t first_tsc, last_tsc;
};

/*
 * Called for each packet at @off (relative to the trace) with @ctx; @id is
 * the same non-zero number each time the same bytes are the packet (what
 * a caller made of them it can keep by it), 0 when not known.
 */
typedef void (*dump_pt_pkt_fn)(void *ctx, uint64_t off, const struct pt_packet *pkt, uint32_t id);
/*
 * Called for each error at @off, with libipt's reason @why; @resync is the
 * offset of the next PSB, or the end of the trace when there is none.
 */
typedef void (*dump_pt_err_fn)(void *ctx, uint64_t off, const char *why, uint64_t resync);

/*
 * Fills @cfg for decoding @len bytes at @buf of snapshot @s: the CPU
 * (family/model/stepping and its errata, for Intel vendors), MTC frequency,
 * nominal ratio and CPUID 0x15 ratio that ptbpf.json recorded.
 */
void ptpkt_config(const struct dump_snap *s, const uint8_t *buf, size_t len, struct pt_config *cfg);

/*
 * Walks every packet of the trace @cfg describes, from its first PSB to its
 * end, counting into @st (zeroed first) and calling @pkt_fn and @err_fn
 * (either may be NULL) with @ctx.
 *
 * A packet is decoded by what its bytes are alone (its header says how
 * many there are), and a trace repeats the same few over and over (TNTs,
 * compressed TIPs, MTCs): each packet libipt decoded is kept by its bytes,
 * and the same bytes met again are that packet, without libipt; libipt is
 * set to the next offset it has not seen when it is needed again. Only
 * bytes libipt decoded without an error are kept, so errors are its own.
 *
 * Returns 0, also when the trace had errors (@st->errors).
 * Returns -EINVAL if @cfg or @st is NULL.
 * Returns -ENOMEM if libipt cannot allocate its decoder.
 */
int ptpkt_scan(const struct pt_config *cfg, struct dump_pt_stats *st, dump_pt_pkt_fn pkt_fn,
	       dump_pt_err_fn err_fn, void *ctx);

/* "psb", "tnt.8", "tip.pge" ... for kind @type; "?" when out of range. */
const char *ptpkt_kind_name(int type);

/*
 * Writes a packet's payload as text ("0x7f001000 (sext48)", "!.!" for
 * TNT bits, taken first) into @buf of @len bytes; "" for payload-less
 * kinds. Returns @buf.
 */
const char *ptpkt_payload(const struct pt_packet *pkt, char *buf, size_t len);

/*
 * Prints core @c's packets of snapshot @s to @out, one line each: offset
 * in the trace (hex), kind, payload. Errors are shown in place and
 * reported to @log with the file and its offset.
 *
 * Returns 0, or -ENOMEM.
 */
int ptpkt_print(FILE *out, const struct dump_snap *s, const struct dump_core *c,
		struct dump_log *log);

#endif /* PTBPF_DUMP_PTPKT_H */
