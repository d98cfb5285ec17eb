// SPDX-License-Identifier: GPL-2.0
/*
 * load_snapshot(): which files of a snapshot directory are read, in what
 * order, and what one may stand in for another (see load.h).
 *
 * ptbpf.json first: it says the backend and the exact byte count of each
 * core. Then perf.data, which every backend writes by default and which
 * holds everything (samples, switches, modules, PT bytes). trace.json
 * gives the modules as LLDB sees them and, when perf.data is absent
 * (--format lldb), the cpus/ files stand in for its AUXTRACE and switches.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "dumpbe.h"
#include "snapfmt.h"
#include "load.h"
#include "snapparse.h"
#include "perfread.h"

struct load_ctx {
	struct dump_log *log;
	char path[4096];
};

/* Writes DIR/@name into @x->path; false (reported) when it does not fit. */
static bool join(struct load_ctx *x, const struct dump_snap *s, const char *name)
{
	int n = snprintf(x->path, sizeof(x->path), "%s/%s", s->dir, name);

	if (n < 0 || (size_t)n >= sizeof(x->path)) {
		snap_error(x->log, s->dir, -1, "path too long");
		return false;
	}
	return true;
}

/*
 * A path from trace.json must stay inside the snapshot: it is relative,
 * and has no ".." component.
 */
static bool inside_dir(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return false;
		p = strchr(p, '/');
		if (!p)
			break;
		p++;
	}
	return true;
}

/* The files one cpus[] entry of trace.json names, for what perf.data lacked. */
static void load_cpu_files(struct load_ctx *x, struct dump_snap *s, const struct snap_trace_cpu *tc)
{
	struct dump_core *c = snap_find_core(s, tc->cpu);
	const char *ipt = tc->ipt, *sw = tc->sw;
	uint8_t *buf;
	size_t len;
	int ret;

	if (!c)
		return;
	if (!inside_dir(ipt) || !inside_dir(sw)) {
		snap_error(x->log, SNAPFMT_TRACE_JSON, -1,
			   "cpu %d: trace paths must stay inside the snapshot", tc->cpu);
		return;
	}
	if (!c->trace && join(x, s, ipt)) {
		ret = snap_map_file(x->path, SNAP_DATA_MAX, &buf, &len);
		if (ret) {
			snap_error(x->log, x->path, -1, "%s", snap_file_error(ret));
		} else {
			c->trace = c->trace_own = buf;
			c->trace_len = c->trace_own_len = len;
			snprintf(c->trace_file, sizeof(c->trace_file), "%s", ipt);
		}
	}
	if (c->nr_sw || !join(x, s, sw))
		return;
	ret = snap_map_file(x->path, SNAP_DATA_MAX, &buf, &len);
	if (ret) {
		snap_error(x->log, x->path, -1, "%s", snap_file_error(ret));
		return;
	}
	/* LLDB's layout: exactly TID|TIME sample IDs */
	perfread_switches(c, buf, len, PERF_SAMPLE_TID | PERF_SAMPLE_TIME, sw, x->log);
	snap_unmap_file(buf, len);
}

/* Reads and parses @name (trace.json when @trace, else ptbpf.json); false
 * when the file is absent. */
static bool load_json(struct load_ctx *x, struct dump_snap *s, const char *name, bool trace)
{
	struct snap_trace_cpus cpus;
	uint8_t *buf;
	size_t len, i;
	int ret;

	if (!join(x, s, name))
		return false;
	ret = snap_read_file(x->path, SNAP_JSON_MAX, &buf, &len);
	if (ret == -ENOENT)
		return false;
	if (ret) {
		snap_error(x->log, x->path, -1, "%s", snap_file_error(ret));
		return true;
	}
	if (trace) {
		s->has_lldb = !snap_parse_trace_json(s, (char *)buf, len, name, x->log, &cpus);
		for (i = 0; i < cpus.nr; i++)
			load_cpu_files(x, s, &cpus.cpu[i]);
		snap_trace_cpus_free(&cpus);
	} else {
		snap_parse_meta(s, (char *)buf, len, name, x->log);
	}
	free(buf);
	return true;
}

static void load_perf(struct load_ctx *x, struct dump_snap *s)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (!join(x, s, SNAPFMT_PERF_DATA))
		return;
	ret = snap_map_file(x->path, SNAP_DATA_MAX, &buf, &len);
	if (ret == -ENOENT && dump_backend(s->backend)->aux)
		return; /* --format lldb: trace.json and cpus/ instead */
	if (ret) {
		snap_error(x->log, x->path, -1, "%s", snap_file_error(ret));
		return;
	}
	s->has_perf = !perfread_parse(s, buf, len, SNAPFMT_PERF_DATA, x->log);
	s->perf_mapped = true; /* perf_buf is buf now */
}

/*
 * The vDSO image ptbpf.json says the snapshot holds: a regular file of the
 * size it says, else reported, and the [vdso] stays a bare range.
 */
static void find_vdso(struct load_ctx *x, struct dump_snap *s)
{
	uint8_t *buf;
	size_t len;
	int ret;

	if (!s->vdso_saved || !join(x, s, SNAPFMT_VDSO))
		return;
	ret = snap_map_file(x->path, SNAP_JSON_MAX, &buf, &len);
	if (ret) {
		snap_error(x->log, x->path, -1, "%s", snap_file_error(ret));
		return;
	}
	snap_unmap_file(buf, len);
	if (len != s->vdso_bytes) {
		snap_error(x->log, x->path, -1, "ptbpf.json says %" PRIu64 " bytes, found %zu",
			   s->vdso_bytes, len);
		return;
	}
	s->vdso_path = strdup(x->path);
}

/* What ptbpf.json promised and the trace files did not deliver. */
static void check_cores(struct load_ctx *x, struct dump_snap *s)
{
	struct dump_core *c;
	unsigned int i;

	if (!dump_backend(s->backend)->aux)
		return;
	for (i = 0; i < s->nr_cores; i++) {
		c = &s->cores[i];
		if (c->in_meta && c->trace_len < c->bytes)
			snap_error(x->log, c->trace_file[0] ? c->trace_file : s->dir, -1,
				   "cpu %d: ptbpf.json says %" PRIu64 " bytes of trace, "
				   "found %zu",
				   c->cpu, c->bytes, c->trace_len);
	}
}

int load_snapshot(const char *dir, struct dump_snap *s, struct dump_log *log)
{
	struct load_ctx *x;

	if (!dir || !s || !log)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->dir = strdup(dir);
	x = calloc(1, sizeof(*x));
	if (!s->dir || !x) {
		free(x);
		return -ENOMEM;
	}
	x->log = log;
	if (!load_json(x, s, SNAPFMT_PTBPF_JSON, false)) {
		snap_error(log, dir, -1, "not a snapshot directory (no ptbpf.json)");
		free(x);
		return -ENOENT;
	}
	find_vdso(x, s);
	load_perf(x, s);
	if (dump_backend(s->backend)->aux && !load_json(x, s, SNAPFMT_TRACE_JSON, true) &&
	    !s->has_perf)
		snap_error(log, dir, -1, "neither perf.data nor trace.json: no trace to read");
	check_cores(x, s);
	free(x);
	return 0;
}
