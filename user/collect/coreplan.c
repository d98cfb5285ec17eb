// SPDX-License-Identifier: GPL-2.0
/*
 * The plan of a per-core trace: scope, backend, attrs, sizes. See
 * coreplan.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "coreplan.h"
#include "base/errbuf.h"
#include "evattr.h"
#include "snapfmt.h"

int coreplan_round_size(size_t request, size_t page_size, size_t *size)
{
	size_t pages, pow2 = 1;

	if (!request || !page_size || !size)
		return -EINVAL;
	pages = request / page_size + (request % page_size != 0);
	while (pow2 < pages) {
		if (pow2 > ((size_t)-1 / 2) / page_size)
			return -E2BIG;
		pow2 <<= 1;
	}
	*size = pow2 * page_size;
	return 0;
}

/* Human-readable size for messages: "4 MiB", "96 KiB", "100 bytes". */
static const char *human(size_t n, char *buf, size_t len)
{
	if (n >= (1UL << 20) && !(n % (1UL << 20)))
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && !(n % 1024))
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
	return buf;
}

static int pick_scope(struct coreplan *plan, const struct cores_config *cfg, char *err,
		      size_t errlen)
{
	plan->scope = cfg->scope != SCOPE_AUTO ? cfg->scope :
		      cfg->cgroup_fd >= 0      ? SCOPE_CGROUP :
						 SCOPE_CPU;
	plan->pid = -1;
	plan->flags = 0;
	switch (plan->scope) {
	case SCOPE_PROCESS:
		if (!cfg->tids || !cfg->nr_tids || cfg->tids[0] <= 0)
			return errbuf_set(err, errlen, -EINVAL,
					  "process scope needs the target's threads");
		plan->pid = cfg->tids[0];
		return 0;
	case SCOPE_CGROUP:
		if (cfg->cgroup_fd < 0)
			return errbuf_set(err, errlen, -EINVAL, "cgroup scope needs a cgroup");
		/* A cgroup event takes the cgroup fd where a pid would go. */
		plan->pid = cfg->cgroup_fd;
		plan->flags = PERF_FLAG_PID_CGROUP;
		return 0;
	case SCOPE_CPU:
		return 0;
	default:
		return errbuf_set(err, errlen, -EINVAL, "unknown scope");
	}
}

/*
 * The backend asked for, or with --backend auto the first of the table
 * that this machine has (saying why the others were passed over), and its
 * data event.
 */
static int pick_backend(struct coreplan *plan, const struct cores_config *cfg, size_t *psb,
			char *err, size_t errlen)
{
	const struct backend_ops *be, *next;
	char why[256] = "";
	unsigned int i;
	int rc;

	*psb = 0;
	if (cfg->backend != BACKEND_AUTO) {
		if (!backend_known(cfg->backend))
			return errbuf_set(err, errlen, -EINVAL, "unknown backend");
		plan->backend = cfg->backend;
		plan->ops = backend_ops(cfg->backend);
		return plan->ops->data_attr(cfg, &plan->data_attr, psb, &plan->cpu_info, err,
					    errlen);
	}
	for (i = 0; (be = backend_nth(i)); i++) {
		plan->backend = be->id;
		plan->ops = be;
		why[0] = '\0';
		rc = be->data_attr(cfg, &plan->data_attr, psb, &plan->cpu_info, why, sizeof(why));
		next = backend_nth(i + 1);
		if (rc != -ENOENT || !next)
			return rc && why[0] ? errbuf_set(err, errlen, rc, "%s", why) : rc;
		corecfg_report(cfg, "backend: %s (%s)", snapfmt_backend_name(next->id), why);
	}
	return errbuf_set(err, errlen, -ENOENT, "no backend");
}

/*
 * Process scope: the events follow the threads the target creates
 * (inherit), but not the processes it forks (inherit_thread: the kernel
 * copies them only for CLONE_THREAD), unless --follow asks for those too.
 * Inherited events write into the parent event's ring, so one ring per
 * CPU still holds every thread.
 */
static void scope_attrs(struct coreplan *plan, const struct cores_config *cfg)
{
	if (plan->scope != SCOPE_PROCESS)
		return;
	/*
	 * Task-bound sampling events too, as perf record -p opens them: no
	 * timer runs on a CPU where the target does not (per-CPU events
	 * behind a BPF filter made every process there pay the interrupts).
	 */
	plan->sb_attr.inherit = 1;
	plan->sb_attr.inherit_thread = !cfg->follow;
	plan->data_attr.inherit = 1;
	plan->data_attr.inherit_thread = !cfg->follow;
	if (cfg->enable_on_exec) {
		/*
		 * the leader only: siblings follow it in and out (cores.c
		 * opens the switch event armed too: side-band records reach
		 * an enabled member whatever its leader's state)
		 */
		plan->data_attr.disabled = 1;
		plan->data_attr.enable_on_exec = 1;
		plan->sb_attr.disabled = 0;
	}
}

static int pick_sizes(struct coreplan *plan, const struct cores_config *cfg, size_t psb,
		      unsigned int nr_cpus, char *err, size_t errlen)
{
	size_t req = cfg->buffer_size ? cfg->buffer_size : CORES_DEFAULT_BUFFER;
	uint64_t limit = cfg->total_limit ? cfg->total_limit : CORES_DEFAULT_TOTAL_LIMIT;
	char buf_str[32], psb_str[32];
	uint64_t total;

	if (coreplan_round_size(req, plan->page_size, &plan->buf_size) ||
	    coreplan_round_size(cfg->sideband_size ? cfg->sideband_size : CORES_DEFAULT_SIDEBAND,
				plan->page_size, &plan->sb_size))
		return errbuf_set(err, errlen, -EINVAL, "buffer size %zu is not usable", req);
	if (plan->buf_size != req)
		corecfg_report(cfg, "per-core buffer size %zu rounded up to %s (%zu pages)", req,
			       human(plan->buf_size, buf_str, sizeof(buf_str)),
			       plan->buf_size / plan->page_size);
	if (plan->buf_size < psb)
		return errbuf_set(err, errlen, -EINVAL,
				  "a per-core buffer of %s can't hold one PSB "
				  "period (%s): raise --buffer-size to at least %s",
				  human(plan->buf_size, buf_str, sizeof(buf_str)),
				  human(psb, psb_str, sizeof(psb_str)), psb_str);
	plan->rec_size = plan->ops->rec_pages * plan->page_size;
	/* what each core maps: two rings' metadata pages and data, the AUX area */
	total = (uint64_t)nr_cpus *
		(plan->buf_size + plan->sb_size + plan->rec_size + 2 * plan->page_size);
	if (total > limit)
		return errbuf_set(err, errlen, -E2BIG,
				  "buffers of %u cores need %" PRIu64 " MiB, more than the "
				  "limit of %" PRIu64 " MiB: lower --buffer-size (now %s) "
				  "or trace fewer CPUs with --cpus",
				  nr_cpus, total >> 20, limit >> 20,
				  human(plan->buf_size, buf_str, sizeof(buf_str)));
	return 0;
}

int coreplan_make(const struct cores_config *cfg, size_t page_size, unsigned int nr_online,
		  struct coreplan *plan, char *err, size_t errlen)
{
	size_t psb;
	int rc;

	if (!cfg || !plan || !page_size)
		return -EINVAL;
	memset(plan, 0, sizeof(*plan));
	plan->page_size = page_size;
	rc = pick_scope(plan, cfg, err, errlen);
	if (!rc)
		rc = pick_backend(plan, cfg, &psb, err, errlen);
	if (!rc)
		rc = evattr_sideband(&plan->sb_attr, plan->ops->clockid, !cfg->start_running);
	if (!rc)
		scope_attrs(plan, cfg);
	if (!rc)
		rc = pick_sizes(plan, cfg, psb, nr_online, err, errlen);
	return rc;
}

bool coreplan_starts_running(const struct coreplan *plan, const struct cores_config *cfg)
{
	return cfg->start_running || (plan->scope == SCOPE_PROCESS && cfg->enable_on_exec);
}
