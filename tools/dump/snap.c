// SPDX-License-Identifier: GPL-2.0
/* Loading a snapshot directory: see snap.h (perf.data in perfread.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "snapfmt.h"
#include "snap.h"
#include "jsonread.h"

void snap_error(struct dump_log *log, const char *file, long long off,
		const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	log->nr_errors++;
	if (!log->err)
		return;
	fputs("ptbpf-dump: ", log->err);
	if (file)
		fprintf(log->err, "%s: ", file);
	if (off >= 0)
		fprintf(log->err, "offset 0x%llx: ", (unsigned long long)off);
	va_start(ap, fmt);
	vfprintf(log->err, fmt, ap);
	va_end(ap);
	fputc('\n', log->err);
}

int snap_read_file(const char *path, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *b;
	size_t got = 0;
	ssize_t n = 0;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return ret;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	/* a file that shrinks meanwhile gives what is there */
	while (got < (size_t)st.st_size &&
	       (n = read(fd, b + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (n < 0 && got < (size_t)st.st_size)
		ret = -errno;
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
}

/* Reports a missing or wrong-typed field @name of @file. */
static void field_error(struct dump_log *log, const char *file,
			const char *name, int ret, const char *want)
{
	snap_error(log, file, -1, "field \"%s\" %s", name,
		   ret == -ENOENT	   ? "is missing" :
		   !strcmp(want, "number") ? "is not a number that fits" :
					     want);
}

/* True when @v is an array; else says why field @name is not. */
static bool need_array(const struct jval *v, const char *name, const char *file,
		       struct dump_log *log)
{
	if (v && v->type == JT_ARR)
		return true;
	field_error(log, file, name, v ? -EINVAL : -ENOENT, "is not an array");
	return false;
}

static uint64_t need_u64(const struct jval *o, const char *key,
			 const char *file, const char *where,
			 struct dump_log *log)
{
	char name[96];
	uint64_t v = 0;
	int ret = jval_get_u64(o, key, &v);

	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "number");
	}
	return v;
}

static bool need_bool(const struct jval *o, const char *key, const char *file,
		      const char *where, struct dump_log *log)
{
	char name[96];
	bool v = false;
	int ret = jval_get_bool(o, key, &v);

	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "is not true or false");
	}
	return v;
}

/* Copies string member @key into @out (@len bytes); "" when absent. */
static void need_str(const struct jval *o, const char *key, char *out,
		     size_t len, const char *file, const char *where,
		     struct dump_log *log, bool nullable)
{
	const struct jval *v = jval_get(o, key);
	char name[96];
	const char *s;
	int ret;

	out[0] = '\0';
	if (nullable && v && v->type == JT_NULL)
		return;
	ret = jval_get_str(o, key, &s);
	if (ret) {
		snprintf(name, sizeof(name), "%s%s", where, key);
		field_error(log, file, name, ret, "is not a string");
		return;
	}
	snprintf(out, len, "%s", s);
}

struct dump_core *snap_find_core(struct dump_snap *s, int cpu)
{
	struct dump_core *c;
	unsigned int i;

	for (i = 0; i < s->nr_cores; i++)
		if (s->cores[i].cpu == cpu)
			return &s->cores[i];
	c = realloc(s->cores, (s->nr_cores + 1) * sizeof(*c));
	if (!c)
		return NULL;
	s->cores = c;
	c = &s->cores[s->nr_cores++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	return c;
}

static void meta_cores(struct dump_snap *s, const struct jval *arr,
		       const char *file, struct dump_log *log)
{
	const struct jval *o;
	struct dump_core *c;
	char where[32];
	int64_t cpu;
	size_t i;

	if (!need_array(arr, "cores", file, log))
		return;
	for (i = 0; (o = jval_at(arr, i)); i++) {
		snprintf(where, sizeof(where), "cores[%zu].", i);
		if (jval_get_i64(o, "cpu", &cpu) || cpu < 0 || cpu > 1 << 20) {
			snap_error(log, file, -1,
				   "field \"%scpu\" is missing or not a CPU",
				   where);
			continue;
		}
		c = snap_find_core(s, (int)cpu);
		if (!c)
			return;
		c->in_meta = true;
		c->bytes = need_u64(o, "bytes", file, where, log);
		c->sideband_bytes =
			need_u64(o, "sideband_bytes", file, where, log);
		c->wrapped = need_bool(o, "wrapped", file, where, log);
		c->lost_bytes = need_u64(o, "lost_bytes", file, where, log);
		/* newer fields: a snapshot without them lost no switch record */
		if (jval_get(o, "sideband_wrapped"))
			c->sb_wrapped = need_bool(o, "sideband_wrapped", file,
						  where, log);
		if (jval_get(o, "sideband_lost_bytes"))
			c->sb_lost_bytes = need_u64(o, "sideband_lost_bytes",
						    file, where, log);
	}
}

static void meta_process(struct dump_snap *s, const struct jval *p,
			 const char *file, struct dump_log *log)
{
	const struct jval *arr = jval_get(p, "threads"), *o;
	struct dump_thread *t;
	char where[40];
	size_t i;

	if (!p || p->type != JT_OBJ) {
		field_error(log, file, "process", p ? -EINVAL : -ENOENT,
			    "is not an object");
		return;
	}
	need_str(p, "comm", s->comm, sizeof(s->comm), file, "process.", log,
		 false);
	if (!need_array(arr, "process.threads", file, log))
		return;
	t = calloc(arr->n ? arr->n : 1, sizeof(*t));
	if (!t)
		return;
	s->threads = t;
	for (i = 0; (o = jval_at(arr, i)); i++) {
		snprintf(where, sizeof(where), "process.threads[%zu].", i);
		t[s->nr_threads].tid =
			(uint32_t)need_u64(o, "tid", file, where, log);
		need_str(o, "comm", t[s->nr_threads].comm, sizeof(t->comm),
			 file, where, log, false);
		s->nr_threads++;
	}
}

static void meta_cpu(struct dump_snap *s, const struct jval *root,
		     const char *file, struct dump_log *log)
{
	const struct jval *tc = jval_get(root, "time_conv");
	const struct jval *cpu = jval_get(root, "cpu");
	const struct jval *ptx = jval_get(root, "ptxed");

	s->conv.valid = need_bool(tc, "valid", file, "time_conv.", log);
	s->conv.time_shift =
		(uint16_t)need_u64(tc, "time_shift", file, "time_conv.", log);
	s->conv.time_mult =
		(uint32_t)need_u64(tc, "time_mult", file, "time_conv.", log);
	s->conv.time_zero = need_u64(tc, "time_zero", file, "time_conv.", log);
	need_str(cpu, "vendor", s->cpu.vendor, sizeof(s->cpu.vendor), file,
		 "cpu.", log, false);
	s->cpu.family =
		(unsigned int)need_u64(cpu, "family", file, "cpu.", log);
	s->cpu.model = (unsigned int)need_u64(cpu, "model", file, "cpu.", log);
	s->cpu.stepping =
		(unsigned int)need_u64(cpu, "stepping", file, "cpu.", log);
	if (s->backend != BACKEND_INTEL_PT)
		return;
	if (jval_get_hex(jval_get(root, "attr"), "config", &s->pt_config))
		field_error(log, file, "attr.config", -EINVAL,
			    "is missing or not a \"0x...\" string");
	/* ptxed's options: optional, an older ptbpf.json may lack them */
	if (ptx) {
		uint64_t v;

		if (!jval_get_u64(ptx, "mtc_freq", &v))
			s->cpu.mtc_freq = (uint32_t)v;
		if (!jval_get_u64(ptx, "tsc_ctc_ratio_n", &v))
			s->cpu.tsc_ctc_ratio_n = (uint32_t)v;
		if (!jval_get_u64(ptx, "tsc_ctc_ratio_d", &v))
			s->cpu.tsc_ctc_ratio_d = (uint32_t)v;
		if (!jval_get_u64(ptx, "max_nonturbo_ratio", &v))
			s->cpu.max_nonturbo_ratio = (uint32_t)v;
	}
}

/* The trigger's details and the clock pair: optional, newer ptbpf only. */
static void meta_trigger(struct dump_snap *s, const struct jval *root)
{
	const struct jval *clock = jval_get(root, "clock");
	const char *str;
	uint64_t v;
	int64_t i;

	if (!jval_get_str(root, "stop_kind", &str))
		snprintf(s->stop_kind, sizeof(s->stop_kind), "%s", str);
	if (!jval_get_u64(root, "trigger_tid", &v))
		s->trigger_tid = (uint32_t)v;
	if (!jval_get_i64(root, "si_code", &i)) {
		s->has_si_code = true;
		s->si_code = (int)i;
	}
	jval_get_hex(root, "ip", &s->ip);
	s->has_addr = !jval_get_hex(root, "addr", &s->addr);
	jval_get_u64(root, "folded_stops", &s->folded_stops);
	jval_get_u64(root, "run_start_ns", &s->run_start_ns);
	if (clock && (jval_get_u64(clock, "realtime_ns", &s->realtime_ns) ||
		      jval_get_u64(clock, "monotonic_ns", &s->monotonic_ns)))
		s->realtime_ns = s->monotonic_ns = 0;
}

static void meta_head(struct dump_snap *s, const struct jval *root,
		      const char *file, struct dump_log *log)
{
	char backend[16];

	s->id = need_u64(root, "snapshot", file, "", log);
	need_str(root, "backend", backend, sizeof(backend), file, "", log,
		 false);
	if (snapfmt_backend_parse(backend, false, &s->backend) && backend[0])
		snap_error(log, file, -1, "unknown backend \"%s\"", backend);
	need_str(root, "trigger", s->trigger, sizeof(s->trigger), file, "", log,
		 false);
	need_str(root, "signal", s->signal, sizeof(s->signal), file, "", log,
		 true);
	s->trigger_ts = need_u64(root, "trigger_ts", file, "", log);
	s->pid = (uint32_t)need_u64(root, "pid", file, "", log);
	meta_trigger(s, root);
	/* older snapshots may lack it: a stream, as before --full existed */
	if (jval_get_bool(root, "full", &s->full))
		s->full = false;
}

int snap_parse_meta(struct dump_snap *s, const char *buf, size_t len,
		    const char *file, struct dump_log *log)
{
	struct jread_err e = { 0, "" };
	struct jval *root;
	int ret;

	ret = jread_parse(buf, len, &root, &e);
	if (ret == -EBADMSG)
		snap_error(log, file, (long long)e.off, "not JSON: %s", e.why);
	if (ret)
		return ret;
	if (root->type != JT_OBJ) {
		snap_error(log, file, 0, "not a JSON object but %s",
			   jval_type_name(root->type));
		jval_free(root);
		return -EBADMSG;
	}
	meta_head(s, root, file, log);
	meta_cores(s, jval_get(root, "cores"), file, log);
	meta_cpu(s, root, file, log);
	meta_process(s, jval_get(root, "process"), file, log);
	jval_free(root);
	return 0;
}

static void trace_modules(struct dump_snap *s, const struct jval *proc,
			  const char *file, struct dump_log *log)
{
	const struct jval *mods = jval_get(proc, "modules"), *m;
	struct dump_module *out;
	const char *path;
	size_t i;

	if (!need_array(mods, "processes[0].modules", file, log))
		return;
	out = calloc(mods->n ? mods->n : 1, sizeof(*out));
	if (!out)
		return;
	for (i = 0; i < s->nr_modules; i++)
		free(s->modules[i].path);
	free(s->modules);
	s->modules = out;
	s->nr_modules = 0;
	for (i = 0; (m = jval_at(mods, i)); i++) {
		if (jval_get_str(m, "systemPath", &path) ||
		    jval_get_hex(m, "loadAddress", &out[s->nr_modules].load)) {
			snap_error(log, file, -1,
				   "processes[0].modules[%zu]: needs a string "
				   "\"systemPath\" and a \"0x...\" loadAddress",
				   i);
			continue;
		}
		out[s->nr_modules].path = strdup(path);
		if (out[s->nr_modules].path)
			s->nr_modules++;
	}
}

int snap_parse_trace_json(struct dump_snap *s, const char *buf, size_t len,
			  const char *file, struct dump_log *log,
			  void (*cpu_cb)(struct dump_snap *s, int cpu,
					 const char *ipt, const char *sw,
					 void *ctx),
			  void *ctx)
{
	struct jread_err e = { 0, "" };
	const struct jval *cpus, *c;
	const char *ipt, *sw;
	struct jval *root;
	int64_t id;
	size_t i;
	int ret;

	ret = jread_parse(buf, len, &root, &e);
	if (ret == -EBADMSG)
		snap_error(log, file, (long long)e.off, "not JSON: %s", e.why);
	if (ret)
		return ret;
	if (root->type != JT_OBJ) {
		snap_error(log, file, 0, "not a JSON object");
		jval_free(root);
		return -EBADMSG;
	}
	trace_modules(s, jval_at(jval_get(root, "processes"), 0), file, log);
	cpus = jval_get(root, "cpus");
	need_array(cpus, "cpus", file, log);
	for (i = 0; (c = jval_at(cpus, i)); i++) {
		if (jval_get_i64(c, "id", &id) || id < 0 || id > 1 << 20 ||
		    jval_get_str(c, "iptTrace", &ipt) ||
		    jval_get_str(c, "contextSwitchTrace", &sw)) {
			snap_error(log, file, -1,
				   "cpus[%zu]: needs \"id\", \"iptTrace\" and "
				   "\"contextSwitchTrace\"",
				   i);
			continue;
		}
		if (cpu_cb)
			cpu_cb(s, (int)id, ipt, sw, ctx);
	}
	jval_free(root);
	return 0;
}

uint64_t snap_tsc_to_ns(const struct snap_tsc_conv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (!c->valid || c->time_shift >= 64)
		return tsc;
	/* split as the kernel documents it so tsc * mult cannot overflow */
	quot = tsc >> c->time_shift;
	rem = tsc & ((1ULL << c->time_shift) - 1);
	return c->time_zero + quot * c->time_mult +
	       ((rem * c->time_mult) >> c->time_shift);
}

void snap_core_task(const struct dump_core *core, uint64_t t, int32_t *pid,
		    int32_t *tid)
{
	size_t lo = 0, hi = core->nr_sw;

	/* the last switch at or before @t: records are in time order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (core->sw[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		*pid = *tid = -1;
		return;
	}
	*pid = core->sw[lo - 1].pid;
	*tid = core->sw[lo - 1].tid;
}

const char *snap_thread_comm(const struct dump_snap *s, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < s->nr_threads; i++)
		if (s->threads[i].tid == tid)
			return s->threads[i].comm;
	return "";
}

void snap_free(struct dump_snap *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < s->nr_cores; i++) {
		free(s->cores[i].trace_own);
		free(s->cores[i].sw);
		free(s->cores[i].samples);
	}
	for (i = 0; i < s->nr_modules; i++)
		free(s->modules[i].path);
	free(s->cores);
	free(s->threads);
	free(s->modules);
	free(s->perf_buf);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}
