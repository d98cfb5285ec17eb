// SPDX-License-Identifier: GPL-2.0
/* The reference walker of a user stack over CFI tables: see uwalk.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "uwalk.h"

int uwalk_map_init(struct uwalk_map *m, uint64_t start, uint64_t end, uint64_t offset,
		   const struct cfitab *tab)
{
	int rc = 0;

	if (!m || end <= start)
		return -EINVAL;
	*m = (struct uwalk_map){ .start = start, .end = end, .offset = offset };
	if (tab) {
		rc = cfitab_bias(tab, start, offset, &m->bias);
		if (!rc)
			m->tab = tab;
	}
	return rc;
}

const struct uwalk_map *uwalk_find_map(const struct uwalk_map *maps, unsigned int nr, uint64_t addr)
{
	unsigned int lo = 0, hi = nr, mid;
	int step;

	/* the first mapping that starts past @addr */
	for (step = 0; step <= UWALK_MAP_STEPS && lo < hi; step++) {
		mid = lo + (hi - lo) / 2;
		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

uint32_t uwalk_rule(const struct uwalk_map *maps, unsigned int nr, uint64_t lookup)
{
	const struct uwalk_map *m = uwalk_find_map(maps, nr, lookup);

	if (!m || !m->tab)
		return CFITAB_NO_CFI;
	return cfitab_rule_at(m->tab, lookup - m->bias);
}

static int read_u64(uwalk_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	return read(ctx, addr, sizeof(*v), v) ? -EFAULT : 0;
}

int uwalk(const struct uwalk_map *maps, unsigned int nr, const struct uwalk_regs *regs,
	  uwalk_read_fn read, void *ctx, struct uwalk_result *out)
{
	uint64_t pc, sp, bp, cfa, ra;
	bool fell = false;
	unsigned int i;
	uint32_t rule;

	if (!regs || !read || !out || (!maps && nr) || nr > (1u << UWALK_MAP_STEPS))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	pc = regs->pc;
	sp = regs->sp;
	bp = regs->bp;
	out->stop = UWALK_STOP_DEPTH;
	for (i = 0; i < UWALK_MAX_FRAMES; i++) {
		if (fell)
			out->fallback |= 1ull << i;
		fell = false;
		out->pc[out->n++] = pc;
		if (i == UWALK_MAX_FRAMES - 1)
			break;
		/*
		 * a caller's pc is a return address: the call is the byte
		 * before it, in the caller's own row (the return address may
		 * be the next function's first byte, after a noreturn call)
		 */
		rule = uwalk_rule(maps, nr, i ? pc - 1 : pc);
		if (cfitab_kind(rule) == CFITAB_END) {
			out->stop = UWALK_STOP_END;
			break;
		}
		if (!cfitab_cfa(rule, sp, bp, pc, &cfa)) {
			if (cfa < sp + 8) {
				out->stop = UWALK_STOP_STACK;
				break;
			}
			if (read_u64(read, ctx, cfa - 8, &ra) ||
			    (cfitab_rbp_saved(rule) &&
			     read_u64(read, ctx, cfa + (int64_t)cfitab_rbp_off(rule), &bp))) {
				out->stop = UWALK_STOP_READ;
				break;
			}
		} else {
			/* no CFI here, or none a row can say: the frame pointer's step */
			if (bp < sp) {
				out->stop = UWALK_STOP_STACK;
				break;
			}
			cfa = bp + 16;
			if (read_u64(read, ctx, bp + 8, &ra) || read_u64(read, ctx, bp, &bp)) {
				out->stop = UWALK_STOP_READ;
				break;
			}
			fell = true;
		}
		if (!ra) {
			out->stop = UWALK_STOP_ZERO;
			break;
		}
		sp = cfa;
		pc = ra;
	}
	return 0;
}

const char *uwalk_stop_name(enum uwalk_stop stop)
{
	switch (stop) {
	case UWALK_STOP_END:
		return "end";
	case UWALK_STOP_ZERO:
		return "zero";
	case UWALK_STOP_READ:
		return "read";
	case UWALK_STOP_STACK:
		return "stack";
	case UWALK_STOP_DEPTH:
		return "depth";
	}
	return "?";
}
