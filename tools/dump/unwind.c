// SPDX-License-Identifier: GPL-2.0
/* DWARF unwinding with libdwfl: see unwind.h. */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snapfmt.h"
#include "unwind.h"

/* perf_event_x86_regs numbers (asm/perf_regs.h) */
enum {
	PR_AX = 0,
	PR_BX,
	PR_CX,
	PR_DX,
	PR_SI,
	PR_DI,
	PR_BP,
	PR_SP,
	PR_IP,
	PR_R8 = 16,
	PR_NR = 24,
};

/* x86-64 DWARF register numbers 0..16 in perf's numbering (16: the RA, rip) */
static const int dwarf_to_perf[17] = {
	PR_AX,	   PR_DX,     PR_CX,	 PR_BX,	    PR_SI,     PR_DI,	  PR_BP,     PR_SP, PR_R8,
	PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6, PR_R8 + 7, PR_IP,
};

struct dump_unwind {
	Dwfl *dwfl;
	const struct dump_symtab *tab;
	/* the sample being unwound, its registers by perf number */
	const struct dump_sample *cur;
	uint64_t regs[PR_NR];
	uint64_t *pcs;
	size_t nr, max;
};

static const Dwfl_Callbacks offline_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct dump_unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct dump_unwind *u = arg;

	(void)dwfl;
	*thread_argp = u;
	return tid == (pid_t)u->cur->tid;
}

/* Only the stack copy: what was not copied is not known. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dump_unwind *u = arg;
	uint64_t sp = u->regs[PR_SP];

	(void)dwfl;
	if (addr < sp || addr - sp > u->cur->stack_len || u->cur->stack_len - (addr - sp) < 8)
		return false;
	memcpy(result, u->cur->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dump_unwind *u = arg;
	Dwarf_Word r[17];
	unsigned int i;

	for (i = 0; i < 17; i++)
		r[i] = u->regs[dwarf_to_perf[i]];
	return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ET_EXEC files are loaded where they were linked: no bias. */
static bool is_exec(const char *path)
{
	unsigned char h[18];
	bool ret = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) && !memcmp(h, ELFMAG, SELFMAG))
		ret = (h[16] | h[17] << 8) == ET_EXEC;
	close(fd);
	return ret;
}

/*
 * The [vdso] of @pr's process when the snapshot's image backs it: a module
 * of that file at the range's start, so its CFI unwinds out of it.
 */
static bool vdso_of(const struct dump_snap *s, const char *word, const struct dump_range *ranges,
		    unsigned int nr, struct dump_module *out)
{
	unsigned int i;

	if (!s->vdso_path || !word || strcmp(word, SNAPFMT_VDSO))
		return false;
	for (i = 0; i < nr; i++)
		if (!strcmp(ranges[i].name, "[vdso]")) {
			out->path = s->vdso_path;
			out->load = ranges[i].start;
			return true;
		}
	return false;
}

static int open_modules(struct dump_unwind **up, const struct dump_module *mods,
			unsigned int nr_mods, uint32_t pid, const struct dump_symtab *tab)
{
	struct dump_unwind *u;
	unsigned int i, nr = 0;
	const char *base;

	*up = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->tab = tab;
	u->dwfl = dwfl_begin(&offline_cbs);
	if (!u->dwfl) {
		free(u);
		return -ENOMEM;
	}
	dwfl_report_begin(u->dwfl);
	for (i = 0; i < nr_mods; i++) {
		base = strrchr(mods[i].path, '/');
		base = base ? base + 1 : mods[i].path;
		if (dwfl_report_elf(u->dwfl, base, mods[i].path, -1,
				    is_exec(mods[i].path) ? 0 : mods[i].load, false))
			nr++;
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	/* no ELF: no module, and no machine to unwind for */
	if (!nr || !dwfl_attach_state(u->dwfl, NULL, (pid_t)pid, &thread_cbs, u)) {
		unwind_close(u);
		return -ENOENT;
	}
	*up = u;
	return 0;
}

int unwind_open(struct dump_unwind **up, const struct dump_snap *s, const struct dump_symtab *tab)
{
	struct dump_module *mods;
	int ret;

	mods = calloc(s->nr_modules + 1, sizeof(*mods));
	if (!mods)
		return -ENOMEM;
	if (s->nr_modules)
		memcpy(mods, s->modules, s->nr_modules * sizeof(*mods));
	ret = open_modules(up, mods,
			   s->nr_modules + vdso_of(s, s->vdso, s->ranges, s->nr_ranges,
						   &mods[s->nr_modules]),
			   s->pid, tab);
	free(mods);
	return ret;
}

/* One process's modules, and its unwinder once opened. */
struct uwproc {
	uint32_t pid;
	struct dump_module *mods;
	unsigned int nr;
	bool tried; /* the unwinder was opened, or failed to */
	struct dump_unwind *u;
};

struct dump_uwctx {
	struct uwproc *procs;
	unsigned int nr;
	bool copied;
};

struct dump_uwctx *unwind_ctx_new(void)
{
	return calloc(1, sizeof(struct dump_uwctx));
}

static int copy_proc(struct uwproc *p, const struct dump_snap *s, const struct dump_proc *pr)
{
	struct dump_module vdso;
	unsigned int i;

	p->pid = pr->pid;
	p->mods = calloc(pr->nr_modules + 1, sizeof(*p->mods));
	if (!p->mods)
		return -ENOMEM;
	for (i = 0; i < pr->nr_modules; i++) {
		p->mods[i].load = pr->modules[i].load;
		p->mods[i].path = strdup(pr->modules[i].path);
		if (!p->mods[i].path)
			return -ENOMEM;
		p->nr++;
	}
	if (vdso_of(s, pr->vdso, pr->ranges, pr->nr_ranges, &vdso)) {
		p->mods[p->nr].load = vdso.load;
		p->mods[p->nr].path = strdup(vdso.path);
		if (!p->mods[p->nr].path)
			return -ENOMEM;
		p->nr++;
	}
	return 0;
}

int unwind_ctx_modules(struct dump_uwctx *c, const struct dump_snap *s)
{
	unsigned int i;
	int ret;

	if (!c || c->copied)
		return 0;
	c->copied = true;
	c->procs = calloc(s->nr_procs ? s->nr_procs : 1, sizeof(*c->procs));
	if (!c->procs)
		return -ENOMEM;
	/* each process's samples unwind through its own modules */
	for (i = 0; i < s->nr_procs; i++) {
		ret = copy_proc(&c->procs[c->nr++], s, &s->procs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void unwind_ctx_free(struct dump_uwctx *c)
{
	unsigned int i, k;

	if (!c)
		return;
	for (i = 0; i < c->nr; i++) {
		unwind_close(c->procs[i].u);
		for (k = 0; k < c->procs[i].nr; k++)
			free(c->procs[i].mods[k].path);
		free(c->procs[i].mods);
	}
	free(c->procs);
	free(c);
}

size_t unwind_ctx_stack(struct dump_uwctx *c, const struct dump_sample *smp, uint64_t *ips,
			size_t max)
{
	struct uwproc *p = NULL;
	unsigned int i;
	int n;

	if (!c || !smp->regs || !smp->stack)
		return 0;
	for (i = 0; i < c->nr && !p; i++)
		if (c->procs[i].pid == smp->pid)
			p = &c->procs[i];
	if (!p)
		return 0;
	if (!p->tried) {
		p->tried = true;
		open_modules(&p->u, p->mods, p->nr, p->pid, NULL);
	}
	n = p->u ? unwind_sample(p->u, smp, ips, max) : 0;
	return n > 0 ? (size_t)n : 0;
}

void unwind_close(struct dump_unwind *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	free(u);
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct dump_unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/* a return address is past its call: look the call up */
	u->pcs[u->nr++] = activation ? pc : pc - 1;
	return u->nr < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int unwind_sample(struct dump_unwind *u, const struct dump_sample *smp, uint64_t *pcs, size_t max)
{
	unsigned int r, k = 0;

	if (!u || !smp || !smp->regs || !smp->stack || !pcs || !max)
		return -EINVAL;
	memset(u->regs, 0, sizeof(u->regs));
	for (r = 0; r < PR_NR; r++)
		if (smp->regs_mask & (1ULL << r))
			memcpy(&u->regs[r], smp->regs + 8 * k++, 8);
	u->cur = smp;
	u->pcs = pcs;
	u->nr = 0;
	u->max = max;
	/* an unwind ends in an error where the CFI or the copy ends: the
	 * frames found up to there stand */
	dwfl_getthread_frames(u->dwfl, (pid_t)smp->tid, frame_cb, u);
	if (!u->nr)
		pcs[u->nr++] = smp->ip;
	return (int)u->nr;
}

/*
 * The scopes around @pc (module address), innermost first, in the
 * concrete tree: dwarf_getscopes() goes on from an inlined call to its
 * abstract definition's scopes, not to the function it was inlined into.
 */
static int concrete_scopes(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);

	*out = NULL;
	if (n > 0)
		n = dwarf_getscopes_die(&scopes[0], out);
	free(scopes);
	return n;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n;

	/* the linkage name first, as gdb shows C's asm-renamed functions */
	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return n;
}

static void set_file(struct dump_frame *f, const char *path, int line)
{
	const char *b;

	if (!path || line <= 0)
		return;
	b = strrchr(path, '/');
	snprintf(f->file, sizeof(f->file), "%s", b ? b + 1 : path);
	f->line = line;
}

/* The file and line an inlined call @die was made from. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, struct dump_frame *f)
{
	Dwarf_Attribute a;
	Dwarf_Word file, line;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) ||
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || file >= nfiles)
		return;
	set_file(f, dwarf_filesrc(files, file, NULL, NULL), (int)line);
}

int unwind_describe(struct dump_unwind *u, uint64_t pc, bool first, struct dump_frame *out,
		    size_t max)
{
	Dwarf_Addr bias = 0, low, shown = first ? pc : pc + 1;
	Dwarf_Die *cu = NULL, *scopes = NULL;
	Dwfl_Module *mod = u ? dwfl_addrmodule(u->dwfl, pc) : NULL;
	const char *mname = NULL, *name, *src;
	Dwfl_Line *line;
	int n = 0, i, nscopes = 0, lineno = 0;
	struct dump_frame *f;

	if (!max)
		return 0;
	if (mod)
		mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (mod)
		cu = dwfl_module_addrdie(mod, pc, &bias);
	/* an assembler's subprogram has the label's name, not the symbol's
	 * that perf and gdb show (__clone3 for clone3): the symbol table's */
	if (cu && dwarf_srclang(cu) != DW_LANG_Mips_Assembler)
		nscopes = concrete_scopes(cu, pc - bias, &scopes);
	for (i = 0; i < nscopes && (size_t)n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		name = die_name(&scopes[i]);
		if (!name)
			break;
		f = &out[n];
		memset(f, 0, sizeof(*f));
		f->pc = shown;
		f->inlined = tag == DW_TAG_inlined_subroutine;
		snprintf(f->module, sizeof(f->module), "%s", mname ? mname : "");
		if (!f->inlined && !dwarf_entrypc(&scopes[i], &low) && shown >= low + bias)
			snprintf(f->func, sizeof(f->func), "%s+0x%" PRIx64, name,
				 (uint64_t)(shown - low - bias));
		else
			snprintf(f->func, sizeof(f->func), "%s", name);
		/* the innermost: the line of pc; an outer one: its call's */
		if (!n) {
			line = dwfl_module_getsrc(mod, pc);
			src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
			set_file(f, src, lineno);
		} else {
			call_site(cu, &scopes[i - 1], f);
		}
		n++;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(scopes);
	if (n)
		return n;
	/* no debug info: the symbol table's name, the line if known */
	f = &out[0];
	memset(f, 0, sizeof(*f));
	f->pc = shown;
	symtab_format(u ? u->tab : NULL, shown, f->func, sizeof(f->func));
	snprintf(f->module, sizeof(f->module), "%s", mname ? mname : "");
	line = mod ? dwfl_module_getsrc(mod, pc) : NULL;
	src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	set_file(f, src, lineno);
	return 1;
}

/* The physical function around @pc, and the module's bias. */
static bool subprogram_at(struct dump_unwind *u, uint64_t pc, Dwarf_Die *out, Dwarf_Addr *bias,
			  Dwfl_Module **mod)
{
	Dwarf_Die *cu, *scopes = NULL;
	int n, i;
	bool ok = false;

	*mod = dwfl_addrmodule(u->dwfl, pc);
	cu = *mod ? dwfl_module_addrdie(*mod, pc, bias) : NULL;
	if (!cu || dwarf_srclang(cu) == DW_LANG_Mips_Assembler)
		return false;
	n = concrete_scopes(cu, pc - *bias, &scopes);
	for (i = 0; i < n && !ok; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			ok = true;
		}
	free(scopes);
	return ok;
}

static bool is_call_site(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site;
}

/* The function a call site calls; false for an indirect call. */
static bool call_target(Dwarf_Die *site, Dwarf_Die *target)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr(site, DW_AT_call_origin, &a), target) ||
	       dwarf_formref_die(dwarf_attr(site, DW_AT_abstract_origin, &a), target);
}

static bool symbol_addr(Dwfl_Module *mod, const char *name, Dwarf_Addr *addr);

/*
 * Where function @die (of module @mod, @bias) starts: its own address, or
 * for a declaration (a call to another unit) its symbol's, by the name
 * the source gives it, then by its linkage name.
 */
static bool die_entry(Dwfl_Module *mod, Dwarf_Addr bias, Dwarf_Die *die, Dwarf_Addr *addr)
{
	Dwarf_Attribute a;
	const char *n;

	if (!dwarf_entrypc(die, addr)) {
		*addr += bias;
		return true;
	}
	n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	if (n && symbol_addr(mod, n, addr))
		return true;
	n = die_name(die);
	return n && symbol_addr(mod, n, addr);
}

/*
 * The call site under @die (any depth) whose @attr address (plus @bias)
 * is @addr, or, with @tail_to, the tail call to the function at that
 * address.
 */
static bool find_site(Dwfl_Module *mod, Dwarf_Die *die, unsigned int attr, Dwarf_Addr addr,
		      Dwarf_Addr bias, bool tail, Dwarf_Die *out)
{
	Dwarf_Die child, target;
	Dwarf_Attribute a;
	Dwarf_Addr at;

	if (dwarf_child(die, &child))
		return false;
	do {
		if (is_call_site(&child)) {
			if (tail) {
				if ((dwarf_hasattr(&child, DW_AT_call_tail_call) ||
				     dwarf_hasattr(&child, DW_AT_GNU_tail_call)) &&
				    call_target(&child, &target) &&
				    die_entry(mod, bias, &target, &at) && at == addr) {
					*out = child;
					return true;
				}
			} else if ((!dwarf_formaddr(dwarf_attr(&child, attr, &a), &at) ||
				    !dwarf_formaddr(dwarf_attr(&child, DW_AT_low_pc, &a), &at)) &&
				   at + bias == addr) {
				*out = child;
				return true;
			}
			continue;
		}
		/* call sites sit in lexical blocks and inlined calls too */
		if (dwarf_haschildren(&child) && dwarf_tag(&child) != DW_TAG_subprogram &&
		    find_site(mod, &child, attr, addr, bias, tail, out))
			return true;
	} while (!dwarf_siblingof(&child, &child));
	return false;
}

/* The address of function @name in @mod, from its symbol table. */
static bool symbol_addr(Dwfl_Module *mod, const char *name, Dwarf_Addr *addr)
{
	int i, n = dwfl_module_getsymtab(mod);
	const char *sname;
	GElf_Sym sym;
	GElf_Addr a;

	for (i = 1; i < n; i++) {
		sname = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);
		if (sname && GELF_ST_TYPE(sym.st_info) == STT_FUNC && !strcmp(sname, name)) {
			*addr = a;
			return true;
		}
	}
	return false;
}

int unwind_tail_call(struct dump_unwind *u, uint64_t callee, uint64_t caller,
		     struct dump_frame *out)
{
	Dwarf_Addr bias, tbias, at, from, to;
	Dwarf_Die fn, site, target, def;
	struct dump_frame inner[16];
	Dwfl_Module *mod, *tmod;
	Dwarf_Attribute a;
	const char *name;

	/* the callee's start, and the function the caller's call went to */
	if (!u || !subprogram_at(u, callee, &fn, &bias, &mod) || dwarf_entrypc(&fn, &to) ||
	    !subprogram_at(u, caller, &fn, &bias, &mod) ||
	    !find_site(mod, &fn, DW_AT_call_return_pc, caller + 1, bias, false, &site) ||
	    !call_target(&site, &target) || !die_entry(mod, bias, &target, &from))
		return 0;
	to += bias;
	if (from == to)
		return 0;
	/* it went to another one, which jumped on to the callee: find that jump */
	if (!subprogram_at(u, from, &def, &tbias, &tmod) || !(name = die_name(&def)) ||
	    !find_site(tmod, &def, 0, to, tbias, true, &site))
		return 0;
	/* the jump's address: gcc gives the address after it */
	if (!dwarf_formaddr(dwarf_attr(&site, DW_AT_call_pc, &a), &at))
		at += tbias;
	else if (!dwarf_formaddr(dwarf_attr(&site, DW_AT_call_return_pc, &a), &at) ||
		 !dwarf_formaddr(dwarf_attr(&site, DW_AT_low_pc, &a), &at))
		at += tbias - 1;
	else
		return 0;
	/* named as gdb names it: the innermost function there, no offset */
	if (unwind_describe(u, at, true, inner, 16) < 1)
		return 0;
	*out = inner[0];
	out->inlined = false;
	out->tail_call = true;
	out->func[strcspn(out->func, "+")] = '\0';
	return 1;
}

const char *unwind_frame_str(const struct dump_frame *f, char *buf, size_t len)
{
	char where[128] = "";

	if (f->file[0])
		snprintf(where, sizeof(where), " (%s:%d)", f->file, f->line);
	else if (f->module[0])
		snprintf(where, sizeof(where), " (%s)", f->module);
	snprintf(buf, len, "%s%s%s", f->func,
		 f->inlined   ? " [inlined]" :
		 f->tail_call ? " [tail call]" :
				"",
		 where);
	return buf;
}
