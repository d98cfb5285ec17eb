// SPDX-License-Identifier: GPL-2.0
/*
 * The sample backend's rate for a run. See sampling.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "base/errbuf.h"
#include "evattr.h"
#include "json.h"
#include "sampling.h"

/* the backend asked, or the one auto picks, records samples */
static bool samples(const struct sampling_req *req)
{
	return backend_ops(backend_pick(req->backend, req->sysfs_root))->samples;
}

static void read_limits(struct sampling *s)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/kernel/perf_event_max_sample_rate", s->proc_sys);
	if (samprate_read_sysctl(path, &s->in.max_rate))
		s->in.max_rate = 0;
	snprintf(path, sizeof(path), "%s/kernel/perf_cpu_time_max_percent", s->proc_sys);
	/* 0 there means no limit: sustain up to the whole CPU */
	if (samprate_read_sysctl(path, &s->in.max_cpu_pct))
		s->in.max_cpu_pct = 0;
	else if (!s->in.max_cpu_pct || s->in.max_cpu_pct > 100)
		s->in.max_cpu_pct = 100;
}

/*
 * Why a sample's cost is unknown, in s->note: the kernel's own cap on the
 * rate when that is what left the calibration no samples to count
 * (-ERANGE), so the user sees the sysctl to raise, not a cost of 0.
 */
static void cost_note(struct sampling *s, int rc, const char *why)
{
	if (rc == -ERANGE && s->in.max_rate)
		snprintf(s->note, sizeof(s->note),
			 "a sample's cost can't be measured: kernel.perf_event_max_sample_rate "
			 "is %u Hz, too few samples to count",
			 s->in.max_rate);
	else
		snprintf(s->note, sizeof(s->note), "a sample's cost could not be measured (%s)",
			 why);
}

static int measure(struct sampling *s)
{
	unsigned int max = s->in.max_rate ? s->in.max_rate : 100000;
	char why[160];
	int rc;

	rc = sampcost_measure(&s->attr, s->cpu, max, 0, &s->cost, why, sizeof(why));
	s->measured = !rc;
	if (rc)
		cost_note(s, rc, why);
	return rc;
}

int sampling_begin(struct sampling *s, const struct sampling_req *req, char *err, size_t errlen)
{
	int rc;

	if (!s || !req)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->begun = true;
	s->on = samples(req);
	if (!s->on)
		return 0;
	s->cpu = req->cpu;
	s->proc_sys = req->proc_sys ? req->proc_sys : "/proc/sys";
	rc = evattr_sample(&s->attr, req->kernel, true, EVATTR_SAMPLE_FREQ);
	if (!rc)
		rc = evattr_sample_callgraph(&s->attr, req->call_graph, req->stack_size,
					     req->kernel);
	if (rc)
		return errbuf_set(err, errlen, rc, "--call-graph: %s",
				  rc == -EOPNOTSUPP ? "dwarf is not known on this architecture" :
						      "invalid stack size");
	read_limits(s);
	s->in.fixed_hz = req->fixed_hz;
	s->in.budget_pct = req->budget_pct > 0 ? req->budget_pct : SAMPRATE_DEFAULT_PCT;
	/* a thread that can't start: sampling_start() measures in line */
	s->job = sampcost_start(&s->attr, s->cpu, s->in.max_rate ? s->in.max_rate : 100000, 0);
	return 0;
}

int sampling_start(struct sampling *s, const struct sampling_req *req, char *err, size_t errlen)
{
	char why[160];
	int rc;

	if (!s || !req)
		return -EINVAL;
	if (!s->begun) {
		rc = sampling_begin(s, req, err, errlen);
		if (rc)
			return rc;
	}
	if (!s->on)
		return 0;
	if (s->job) {
		rc = sampcost_wait(s->job, &s->cost, why, sizeof(why));
		s->job = NULL;
		s->measured = !rc;
		if (rc)
			cost_note(s, rc, why);
	} else {
		measure(s);
	}
	if (s->measured)
		s->in.sample_ns = s->cost.sample_ns;
	/* the kernel may have lowered its bound while we sampled */
	read_limits(s);
	samprate_pick(&s->in, &s->pick);
	return 0;
}

void sampling_remark(const struct sampling *s, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (!s || !s->on)
		return;
	if (s->pick.line[0])
		snprintf(buf, len, "%s", s->pick.line);
	else if (s->note[0])
		snprintf(buf, len, "%s: sampling at %u Hz", s->note, s->pick.hz);
}

void sampling_summary(const struct sampling *s, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	buf[0] = '\0';
	if (!s || !s->on)
		return;
	if (!s->measured)
		snprintf(buf, len, "sampling %u Hz (cost unknown)", s->pick.hz);
	else if (!s->in.sample_ns)
		snprintf(buf, len, "sampling %u Hz (a sample's cost too small to measure)",
			 s->pick.hz);
	else
		snprintf(buf, len,
			 "sampling %u Hz, %.1f us a sample: %.2f %% of the target's time%s",
			 s->pick.hz, s->in.sample_ns / 1e3, s->pick.cost_pct,
			 s->in.fixed_hz ? "" : " (--overhead)");
}

struct sampling_watcher {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	uint64_t period_ns;
	/*
	 * what the thread measured last; fresh until sampling_poll() takes it.
	 * The rate follows the median of the last 3: one disturbed
	 * measurement moves nothing.
	 */
	struct sampcost cost;
	uint64_t last[3];
	unsigned int nr_last;
	bool fresh;
	struct perf_event_attr attr;
	int cpu;
	/* kernel.perf_event_max_sample_rate at the start (100000: none) */
	unsigned int max_hz;
};

static void *watch_main(void *arg)
{
	struct sampling_watcher *w = arg;
	struct sampcost cost;
	struct timespec until;
	char why[160];

	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += w->period_ns / 1000000000ULL;
		until.tv_nsec += w->period_ns % 1000000000ULL;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!w->stop && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
			;
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->lock);
		/* unlocked: a calibration takes a fraction of a second */
		/* within the kernel's cap: a throttled sample would count as free */
		if (!sampcost_measure(&w->attr, w->cpu, w->max_hz, 0, &cost, why, sizeof(why))) {
			pthread_mutex_lock(&w->lock);
			w->cost = cost;
			w->last[w->nr_last++ % 3] = cost.sample_ns;
			w->fresh = true;
			continue;
		}
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int sampling_watch(struct sampling *s, uint64_t period_ns)
{
	struct sampling_watcher *w;
	pthread_condattr_t ca;
	int rc;

	if (!s || !s->on || s->in.fixed_hz || !s->measured || s->watcher)
		return 0;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->period_ns = period_ns ? period_ns : SAMPLING_RECHECK_NS;
	w->attr = s->attr;
	w->cpu = s->cpu;
	w->max_hz = s->in.max_rate ? s->in.max_rate : 100000;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = -pthread_create(&w->th, NULL, watch_main, w);
	if (rc) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return rc;
	}
	s->watcher = w;
	return 0;
}

int sampling_poll(struct sampling *s, unsigned int *old_hz)
{
	struct sampling_watcher *w = s ? s->watcher : NULL;
	struct samprate next;
	struct sampcost cost;
	bool fresh;

	if (!w)
		return 0;
	pthread_mutex_lock(&w->lock);
	fresh = w->fresh;
	cost = w->cost;
	/* the median of the last 3, the cost in force filling in */
	if (w->nr_last) {
		uint64_t a = w->last[0], b = w->nr_last >= 2 ? w->last[1] : s->in.sample_ns,
			 c = w->nr_last >= 3 ? w->last[2] : s->in.sample_ns;

		cost.sample_ns = a > b ? (b > c ? b : a > c ? c : a) : (a > c ? a : b > c ? c : b);
	}
	w->fresh = false;
	pthread_mutex_unlock(&w->lock);
	if (!fresh)
		return 0;
	s->cost = cost;
	s->in.sample_ns = cost.sample_ns;
	read_limits(s);
	if (!samprate_recheck(&s->in, s->pick.hz, &next)) {
		s->pick.cost_pct = s->in.sample_ns ? s->in.sample_ns * (double)s->pick.hz / 1e7 :
						     -1;
		return 2;
	}
	if (old_hz)
		*old_hz = s->pick.hz;
	s->pick = next;
	return 1;
}

void sampling_stop(struct sampling *s)
{
	struct sampling_watcher *w = s ? s->watcher : NULL;

	/* a setup that failed before sampling_start() */
	if (s && s->job) {
		struct sampcost cost;

		sampcost_wait(s->job, &cost, NULL, 0);
		s->job = NULL;
	}

	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
	s->watcher = NULL;
}

void sampling_describe(const struct sampling *s, const char *how, struct snap_sampling *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	if (!s || !s->on)
		return;
	out->how = how;
	out->hz = s->pick.hz;
	out->why = s->pick.why;
	out->sample_ns = s->in.sample_ns;
	out->cost_pct = s->measured && s->in.sample_ns ? s->pick.cost_pct : -1;
	out->budget_pct = s->in.fixed_hz ? 0 : s->in.budget_pct;
}

void sampling_json(const struct snap_sampling *sp, struct json *j)
{
	if (!sp || !sp->how || !j)
		return;
	json_str(j, "sampling", sp->how);
	json_u64(j, "rate_hz", sp->hz);
	if (sp->why)
		json_str(j, "rate", sp->why);
	json_u64(j, "sample_cost_ns", sp->sample_ns);
	if (sp->cost_pct >= 0)
		json_double(j, "cost_pct", sp->cost_pct);
	if (sp->budget_pct > 0)
		json_double(j, "overhead_pct", sp->budget_pct);
}
