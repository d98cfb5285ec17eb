// SPDX-License-Identifier: GPL-2.0
/*
 * ptbpf-dump: the unprivileged reader of ptbpf's snapshots. Wiring only:
 * options → each snapshot directory → the summary, packet, instruction or
 * timeline module. Every problem with the input is counted in one
 * struct dump_log; the exit status says whether there was any.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dumpbe.h"
#include "symtab.h"
#include "insn.h"
#include "last.h"
#include "lastjoin.h"
#include "load.h"
#include "ptpkt.h"
#include "snap.h"
#include "summary.h"
#include "timeline.h"
#include "tlfile.h"
#include "json.h"
#include "opts.h"
#include "snapfmt.h"
#include "textesc.h"

#ifndef PTBPF_VERSION
#define PTBPF_VERSION "unknown"
#endif

struct dump_run {
	struct dump_opts o;
	struct dump_log log;
	struct json j; /* --json */
	struct dump_tl tl; /* --timeline */
	FILE *tl_file;
};

static bool want_core(const struct dump_run *r, const struct dump_core *c)
{
	return r->o.cpu < 0 || r->o.cpu == c->cpu;
}

/* --insn and --timeline: the modules as symbols, and as PT's image. */
static int decode(struct dump_run *r, const struct dump_snap *s)
{
	bool pt = dump_backend(s->backend)->aux;
	struct pt_image *image = pt ? pt_image_alloc(NULL) : NULL;
	struct dump_symtab tab;
	unsigned int i;
	int ret;

	if (pt && !image)
		return -ENOMEM;
	ret = symtab_load(&tab, s, image, &r->log);
	if (!ret && r->o.mode == DUMP_TIMELINE)
		ret = timeline_snapshot(&r->tl, s, image, &tab, &r->log);
	for (i = 0; !ret && r->o.mode == DUMP_INSN && i < s->nr_cores; i++)
		if (want_core(r, &s->cores[i]))
			ret = insn_print(stdout, s, &s->cores[i], image, &tab, &r->log);
	symtab_free(&tab);
	pt_image_free(image);
	return ret;
}

static int packets(struct dump_run *r, const struct dump_snap *s)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < s->nr_cores; i++)
		if (want_core(r, &s->cores[i]))
			ret = ptpkt_print(stdout, s, &s->cores[i], &r->log);
	return ret;
}

/*
 * The summary, with names for the sample backend's functions. A module
 * that is gone leaves addresses: no error in the snapshot's files.
 */
static int summary(struct dump_run *r, const struct dump_snap *s)
{
	struct dump_log quiet = { NULL, 0 };
	struct dump_symtab tab = { 0 };
	int ret = 0;

	if (dump_backend(s->backend)->samples)
		ret = symtab_load(&tab, s, NULL, &quiet);
	if (!ret && r->o.json)
		ret = summary_json(&r->j, s, &tab, &r->log);
	else if (!ret)
		ret = summary_text(stdout, s, &tab, &r->log);
	symtab_free(&tab);
	return ret;
}

/* --insn on a sample snapshot: no instructions, but every sample. */
static int sample_list(struct dump_run *r, const struct dump_snap *s)
{
	struct dump_log quiet = { NULL, 0 };
	struct dump_moments m = { 0 };
	struct dump_symtab tab = { 0 };
	size_t i;
	int ret;

	ret = symtab_load(&tab, s, NULL, &quiet);
	if (!ret)
		ret = last_moments_add(&m, s, 0, UINT64_MAX);
	if (!ret) {
		last_moments_sort(&m);
		textesc_fputs(s->dir, stdout);
		printf(": sample backend: no instructions; the target's %zu "
		       "samples, oldest first:\n",
		       m.n);
		for (i = 0; i < m.n; i++)
			if (r->o.cpu < 0 || r->o.cpu == m.v[i].cpu)
				last_moment_print(stdout, s, &m.v[i], s->cause_ts, &tab);
	}
	last_moments_free(&m);
	symtab_free(&tab);
	return ret;
}

static int one_snapshot(struct dump_run *r, const char *dir)
{
	bool pt, ret_ok;
	struct dump_snap s;
	int ret;

	ret = load_snapshot(dir, &s, &r->log);
	ret_ok = !ret;
	pt = dump_backend(s.backend)->aux;
	if (!ret_ok) {
		/* not a snapshot: reported; the next DIR still goes */
	} else if (r->o.mode == DUMP_SUMMARY) {
		ret = summary(r, &s);
	} else if (!pt && r->o.mode == DUMP_INSN) {
		ret = sample_list(r, &s);
	} else if (!pt && r->o.mode == DUMP_PACKETS) {
		textesc_fputs(dir, stdout);
		printf(": sample backend: no Intel PT packets\n");
	} else if (r->o.mode == DUMP_PACKETS) {
		textesc_fputs(dir, stdout);
		printf(":\n");
		ret = packets(r, &s);
	} else {
		if (r->o.mode == DUMP_INSN) {
			textesc_fputs(dir, stdout);
			printf(":\n");
		}
		ret = decode(r, &s);
	}
	snap_free(&s);
	return ret == -ENOENT ? 0 : ret;
}

static int is_snapshot_name(const struct dirent *de)
{
	return snapfmt_parse_name(de->d_name) != 0;
}

/* by number: snapshot-1000000 after snapshot-999999, as alphasort would not */
static int by_snapshot_number(const struct dirent **a, const struct dirent **b)
{
	return snapfmt_compare_names((*a)->d_name, (*b)->d_name);
}

/* events.jsonl of an output directory, into the timeline. */
static void run_timeline_events(struct dump_run *r, const char *out_dir)
{
	char path[4096];
	uint8_t *buf;
	size_t len;
	int ret;

	snprintf(path, sizeof(path), "%s/" SNAPFMT_EVENTS, out_dir);
	ret = snap_read_file(path, SNAP_EVENTS_MAX, &buf, &len);
	if (ret) {
		snap_error(&r->log, path, -1, "%s", snap_file_error(ret));
		return;
	}
	timeline_events(&r->tl, (char *)buf, len, path, &r->log);
	free(buf);
}

/* DIR: one snapshot, or an output directory of them in order. */
static int one_dir(struct dump_run *r, const char *dir)
{
	struct dirent **names;
	char path[4096], *copy;
	struct stat st;
	int i, n, ret = 0;

	snprintf(path, sizeof(path), "%s/ptbpf.json", dir);
	if (!stat(path, &st)) {
		ret = one_snapshot(r, dir);
		snprintf(path, sizeof(path), "%s", dir);
		copy = dirname(path);
		if (!ret && r->o.mode == DUMP_TIMELINE && !stat(strcat(copy, "/events.jsonl"), &st))
			run_timeline_events(r, dirname(copy));
		return ret;
	}
	n = scandir(dir, &names, is_snapshot_name, by_snapshot_number);
	if (n <= 0) {
		snap_error(&r->log, dir, -1,
			   n < 0 ? "%s" :
				   "neither a snapshot (no ptbpf.json) nor an "
				   "output directory (no snapshot-NNNNNN)%s",
			   n < 0 ? strerror(errno) : "");
		if (n == 0)
			free(names);
		return 0;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!ret)
			ret = one_snapshot(r, path);
		free(names[i]);
	}
	free(names);
	if (!ret && r->o.mode == DUMP_TIMELINE)
		run_timeline_events(r, dir);
	return ret;
}

static int begin(struct dump_run *r)
{
	enum tl_format fmt;
	char err[512];
	int ret;

	if (r->o.mode == DUMP_TIMELINE) {
		/* "-": standard output, as for most tools that write a file */
		r->tl_file = strcmp(r->o.timeline, "-") ?
				     tlfile_open(r->o.timeline, err, sizeof(err)) :
				     stdout;
		if (!r->tl_file) {
			ret = -errno;
			fprintf(stderr, "ptbpf-dump: %s\n", err);
			return ret;
		}
		if (r->o.timeline_format)
			fmt = strcmp(r->o.timeline_format, "perfetto") ? TL_FORMAT_JSON :
									 TL_FORMAT_PERFETTO;
		else
			fmt = timeline_format_of(r->o.timeline);
		return timeline_begin_fmt(&r->tl, r->tl_file, fmt);
	}
	if (r->o.json) {
		json_init_dyn(&r->j);
		json_obj_begin(&r->j, NULL);
		json_arr_begin(&r->j, "snapshots");
	}
	return 0;
}

static int finish(struct dump_run *r)
{
	int ret = 0;

	if (r->tl_file) {
		ret = timeline_end(&r->tl);
		if (r->tl_file == stdout ? fflush(stdout) || ferror(stdout) :
					   fclose(r->tl_file) != 0)
			ret = ret ? ret : -EIO;
		if (ret)
			fprintf(stderr, "ptbpf-dump: %s: write failed\n", r->o.timeline);
	}
	if (r->o.json) {
		json_arr_end(&r->j);
		json_u64(&r->j, "errors", r->log.nr_errors);
		json_obj_end(&r->j);
		ret = json_finish(&r->j);
		if (!ret)
			printf("%s\n", r->j.buf);
		json_free(&r->j);
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct dump_run r = { .log = { stderr, 0 } };
	char err[256];
	int i, ret;

	if (opts_parse(argc, argv, &r.o, err, sizeof(err))) {
		fprintf(stderr, "ptbpf-dump: %s\n", err);
		return 2;
	}
	if (r.o.help || r.o.version) {
		fputs(r.o.help ? opts_usage : "ptbpf-dump " PTBPF_VERSION "\n", stdout);
		return 0;
	}
	/* --packets and --insn print a line per packet or instruction:
	 * full buffering in big blocks, also to a terminal or a pipe */
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (begin(&r))
		return 1;
	if (r.o.mode == DUMP_LAST)
		ret = last_join_pid(stdout, r.o.dirs[0], r.o.last_ns, r.o.pid, &r.log);
	else
		for (ret = 0, i = 0; !ret && i < r.o.nr_dirs; i++)
			ret = one_dir(&r, r.o.dirs[i]);
	if (ret == -ENOENT || ret == -EOPNOTSUPP)
		ret = 0; /* reported, and counted as bad input */
	if (ret)
		fprintf(stderr, "ptbpf-dump: %s\n", strerror(-ret));
	if (finish(&r) || ret)
		return 1;
	if (fflush(stdout) || ferror(stdout))
		return 1;
	return r.log.nr_errors ? 1 : 0;
}
