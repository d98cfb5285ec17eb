// SPDX-License-Identifier: GPL-2.0
/* --follow: one control per process over one collection (see follow.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "follow.h"
#include "base/clock.h"

/* The real collection runs while any member wants it (cpu, cgroup scope). */
static int real_toggle(struct follow *f, bool on, uint64_t *done)
{
	int ret;

	if (f->real_on == on || !f->ops) {
		*done = clock_now_ns();
		return 1; /* left as it is */
	}
	ret = (on ? f->ops->resume : f->ops->pause)(f->ops_ctx, done);
	if (!ret)
		f->real_on = on;
	return ret;
}

static int set_on(struct follow_member *m, bool on, uint64_t *done)
{
	struct follow *f = m->f;

	if (m->on != on) {
		m->on = on;
		f->nr_on += on ? 1 : -1;
	}
	return real_toggle(f, f->nr_on > 0, done);
}

/* Off CPU for the collection only once no member has a thread to run. */
static void set_off(struct follow_member *m, bool off)
{
	struct follow *f = m->f;

	if (m->off != off) {
		m->off = off;
		f->nr_can_run += off ? -1 : 1;
	}
	if (f->ops && f->ops->offcpu)
		f->ops->offcpu(f->ops_ctx, f->nr_can_run == 0);
}

static int group_pause(void *ctx, uint64_t *done)
{
	return set_on(ctx, false, done);
}

static int group_resume(void *ctx, uint64_t *done)
{
	return set_on(ctx, true, done);
}

/*
 * A followed process's exit by exit() (any code: no signal) is no
 * snapshot: a fork-per-request server would write one a request. The
 * target's own exit, and the last exit of the run, still are.
 */
static bool quiet_exit(const struct follow_member *m, const struct snap_cause *cause)
{
	const struct follow *f = m->f;

	return cause->kind == SNAPCAUSE_EXIT && !cause->sig && m != &f->root && f->tmpl &&
	       !(f->tmpl->triggers & TRIGGER_CHILD_EXIT) && follow_live(f) > 1;
}

static int group_snapshot(void *ctx, const struct snap_cause *cause)
{
	struct follow *f = ((struct follow_member *)ctx)->f;

	if (quiet_exit(ctx, cause))
		return 0;

	return f->ops && f->ops->snapshot ? f->ops->snapshot(f->ops_ctx, cause) : 0;
}

static void group_offcpu(void *ctx, bool off)
{
	set_off(ctx, off);
}

static const struct control_ops group_ops = {
	.pause = group_pause,
	.resume = group_resume,
	.snapshot = group_snapshot,
	.offcpu = group_offcpu,
};

const struct control_ops *follow_ops(void)
{
	return &group_ops;
}

void follow_init(struct follow *f, const struct control_ops *ops, void *ops_ctx,
		 const struct follow_probe *probe)
{
	memset(f, 0, sizeof(*f));
	f->ops = ops;
	f->ops_ctx = ops_ctx;
	if (probe)
		f->probe = *probe;
	f->root.f = f;
	/* until its control says otherwise, the target neither runs nor wants */
	f->root.off = true;
}

void *follow_root(struct follow *f)
{
	return &f->root;
}

void follow_start(struct follow *f, struct control *root, pid_t pid)
{
	f->root.ctl = root;
	f->root.pid = pid;
	f->tmpl = root;
}

static struct follow_member *find(const struct follow *f, pid_t pid, unsigned int *idx)
{
	unsigned int i;

	for (i = 0; i < f->nr_kids; i++)
		if (f->kids[i]->pid == pid) {
			if (idx)
				*idx = i;
			return f->kids[i];
		}
	return NULL;
}

/* A new process: its own control, set up as the target's, running. */
static struct follow_member *join(struct follow *f, pid_t pid)
{
	struct control *t = f->tmpl;
	struct follow_member *m, **grown;
	uint64_t done;

	m = find(f, pid, NULL);
	if (m || !t)
		return m;
	if (f->nr_kids == f->cap_kids) {
		unsigned int cap = f->cap_kids ? 2 * f->cap_kids : 16;

		grown = realloc(f->kids, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		f->kids = grown;
		f->cap_kids = cap;
	}
	m = calloc(1, sizeof(*m));
	if (m)
		m->ctl = calloc(1, sizeof(*m->ctl));
	if (!m || !m->ctl) {
		free(m);
		return NULL;
	}
	m->f = f;
	m->pid = pid;
	m->off = true;
	control_init(m->ctl, t->log.events, pid, t->triggers, t->no_pause, t->log.verbosity,
		     &group_ops, m);
	m->ctl->min_interval_ns = t->min_interval_ns;
	m->ctl->log.member = true;
	m->ctl->log.t0 = t->log.t0;
	m->ctl->log.real0 = t->log.real0;
	m->ctl->log.mono0 = t->log.mono0;
	control_set_scope(m->ctl, t->scope, t->scope_why, t->kernel_cut);
	/* forked by a running process, before its own first instruction */
	m->ctl->target = PTBPF_PROC_RUNNING;
	set_off(m, false);
	if (set_on(m, true, &done) >= 0)
		m->ctl->running = true;
	f->kids[f->nr_kids++] = m;
	f->joined++;
	if (f->probe.member)
		f->probe.member(f->probe.ctx, pid, false);
	return m;
}

/* A member whose exit is applied leaves: nothing of it holds the cores. */
static void settle(struct follow *f, struct follow_member *m)
{
	unsigned int i;
	uint64_t done;

	if (!m->ctl || m->ctl->target != PTBPF_PROC_EXITED)
		return;
	set_off(m, true);
	set_on(m, false, &done);
	if (m == &f->root) {
		f->root_gone = true;
		return;
	}
	/* a folded stop of it gets its snapshot: no later tick will come */
	control_flush(m->ctl);
	if (f->probe.member)
		f->probe.member(f->probe.ctx, m->pid, true);
	if (find(f, m->pid, &i))
		f->kids[i] = f->kids[--f->nr_kids];
	f->left++;
	free(m->ctl);
	free(m);
}

void follow_event(struct follow *f, const struct ptbpf_event *e, uint64_t recv_ns)
{
	struct follow_member *m;

	/*
	 * A --trigger-on hit in any process is the run's: its limit and its
	 * --min-history are the target's control's to count.
	 */
	if ((pid_t)e->tgid == f->root.pid || e->kind == PTBPF_EV_HIT)
		m = &f->root;
	else if (e->kind == PTBPF_EV_FORK || e->kind == PTBPF_EV_JOIN)
		m = join(f, (pid_t)e->tgid);
	else
		m = find(f, (pid_t)e->tgid, NULL);
	if (!m || !m->ctl)
		return;
	control_event(m->ctl, e, recv_ns);
	settle(f, m);
}

int follow_adopt(struct follow *f, pid_t pid, int state)
{
	struct follow_member *m = join(f, pid);
	uint64_t done;

	if (!m)
		return -ENOMEM;
	if (state != PTBPF_PROC_STOPPED)
		return 0;
	m->ctl->target = PTBPF_PROC_STOPPED;
	set_off(m, true);
	/* as a stop would: the cores wait for it only in process scope */
	if (!m->ctl->kernel_cut && !m->ctl->no_pause && set_on(m, false, &done) >= 0)
		m->ctl->running = false;
	return 0;
}

unsigned int follow_live(const struct follow *f)
{
	return f->nr_kids + (f->root_gone ? 0 : 1);
}

unsigned int follow_others(const struct follow *f, pid_t *pids, unsigned int max)
{
	unsigned int i;

	for (i = 0; i < f->nr_kids && i < max; i++)
		pids[i] = f->kids[i]->pid;
	return f->nr_kids;
}

void follow_root_gone(struct follow *f)
{
	uint64_t done;

	if (f->root_gone)
		return;
	f->root_gone = true;
	set_off(&f->root, true);
	set_on(&f->root, false, &done);
}

static void resync_one(struct follow *f, struct follow_member *m)
{
	uint64_t seq = 0;
	int state = f->probe.state ? f->probe.state(f->probe.ctx, m->pid, &seq) :
				     PTBPF_PROC_UNKNOWN;

	control_resync(m->ctl, state, seq);
	settle(f, m);
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return a && (!b || a < b) ? a : b;
}

uint64_t follow_timers(struct follow *f, uint64_t now)
{
	uint64_t next = 0, gap, fatal;
	struct follow_member *m;
	unsigned int i;

	/* backwards: a member that leaves takes the last one's place */
	for (i = f->nr_kids; i-- > 0;) {
		m = f->kids[i];
		gap = control_gap_deadline(m->ctl);
		if (gap && now >= gap) {
			resync_one(f, m);
			if (i >= f->nr_kids || f->kids[i] != m)
				continue;
			gap = 0;
		}
		fatal = control_fatal_check(m->ctl,
					    f->probe.dying && f->probe.dying(f->probe.ctx, m->pid),
					    f->probe.state ?
						    f->probe.state(f->probe.ctx, m->pid, NULL) :
						    PTBPF_PROC_UNKNOWN,
					    now);
		next = earliest(next, earliest(gap, fatal));
	}
	return next;
}

/* Members for the processes the BPF side follows that have none. */
static void join_unknown(struct follow *f)
{
	pid_t pids[PTBPF_MAX_FOLLOW];
	int n, i;

	if (!f->probe.list)
		return;
	n = f->probe.list(f->probe.ctx, pids, PTBPF_MAX_FOLLOW);
	for (i = 0; i < n; i++)
		if (pids[i] != f->root.pid && !find(f, pids[i], NULL))
			join(f, pids[i]);
}

void follow_resync(struct follow *f)
{
	unsigned int i;

	join_unknown(f);
	for (i = f->nr_kids; i-- > 0;)
		if (i < f->nr_kids)
			resync_one(f, f->kids[i]);
}

uint64_t follow_deadline(const struct follow *f)
{
	uint64_t next = 0;
	unsigned int i;

	for (i = 0; i < f->nr_kids; i++)
		next = earliest(next, control_deadline(f->kids[i]->ctl));
	return next;
}

void follow_tick(struct follow *f, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < f->nr_kids; i++)
		control_tick(f->kids[i]->ctl, now);
}

void follow_finish(struct follow *f)
{
	uint64_t done;

	real_toggle(f, false, &done);
}

void follow_free(struct follow *f)
{
	unsigned int i;

	for (i = 0; i < f->nr_kids; i++) {
		free(f->kids[i]->ctl);
		free(f->kids[i]);
	}
	free(f->kids);
	f->kids = NULL;
	f->nr_kids = f->cap_kids = 0;
}
