// SPDX-License-Identifier: GPL-2.0
/* The intel-pt pipeline tests' fixture: see ptfix.h. */
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include "ptfix.h"
#include "testio.h"

/* A second thread of this process, with a name, that waits to be ended. */
static void *helper_main(void *arg)
{
	struct ptfix *f = arg;
	char c;

	__atomic_store_n(&f->tid2, (__u32)syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (read(f->helper_pipe[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

int ptfix_setup(void **state, const char *tag, const char *comm, bool tasks)
{
	struct ptfix *f = calloc(1, sizeof(*f));
	char name[16];

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/ptbpf-test-%s-XXXXXX", tag);
	snprintf(f->out, sizeof(f->out), "/tmp/ptbpf-test-%s-out-XXXXXX", tag);
	if (!mkdtemp(f->root) || sim_sysfs_intel_pt(f->root, PT_TYPE) || !mkdtemp(f->out))
		return -1;
	f->sim = sim_pmu_new(NCPU, PT_TYPE);
	f->outfd = open(f->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f->log.fd = -1;
	f->cgroup_fd = -1;
	f->pid = (__u32)getpid();
	f->tid = (__u32)syscall(SYS_gettid);
	snprintf(f->comm, sizeof(f->comm), "%s", comm);
	if (!f->sim || f->outfd < 0 || pipe(f->helper_pipe) ||
	    pthread_create(&f->helper, NULL, helper_main, f))
		return -1;
	snprintf(name, sizeof(name), "%s-helper", tag);
	pthread_setname_np(f->helper, name);
	while (!__atomic_load_n(&f->tid2, __ATOMIC_ACQUIRE))
		usleep(1000);
	if (tasks &&
	    (sim_pmu_task(f->sim, f->pid, f->tid) || sim_pmu_task(f->sim, f->pid, f->tid2)))
		return -1;
	*state = f;
	return 0;
}

int ptfix_teardown(void **state)
{
	struct ptfix *f = *state;
	char cmd[160];
	int rc;

	snapwire_stop(&f->w);
	cores_close(f->cores);
	eventlog_close(&f->log);
	/* every descriptor and mapping of the simulated kernel is gone */
	rc = sim_pmu_open_fds(f->sim) || sim_pmu_mappings(f->sim);
	sim_pmu_free(f->sim);
	rc |= sim_sysfs_remove(f->root);
	close(f->outfd);
	if (write(f->helper_pipe[1], "x", 1) != 1)
		rc = 1;
	pthread_join(f->helper, NULL);
	close(f->helper_pipe[0]);
	close(f->helper_pipe[1]);
	/* PTBPF_TEST_KEEP=1 keeps the snapshots, to look at them by hand */
	if (getenv("PTBPF_TEST_KEEP"))
		fprintf(stderr, "kept %s\n", f->out);
	else {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->out);
		rc |= system(cmd);
	}
	free(f);
	return rc ? -1 : 0;
}

__u64 ptfix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void ptfix_start(struct ptfix *f, enum ptbpf_scope scope, int state, unsigned int triggers)
{
	pid_t tids[2] = { (pid_t)f->tid, (pid_t)f->tid2 };
	struct cores_config cc;
	struct snapstage_config sc = { .run = &f->run, .first_id = 1, .verbosity = -1 };
	struct snapwrite_opts wo = {
		.out_dir = f->out,
		.uid = -1,
		.gid = -1,
		.formats = SNAPWRITE_ALL,
	};
	struct snapqueue_config qc = { .verbosity = -1 };

	cores_config_init(&cc);
	cc.buffer_size = BUF;
	cc.sideband_size = 16 << 10;
	cc.sysfs_root = f->root;
	cc.backend = BACKEND_INTEL_PT;
	cc.scope = scope;
	cc.tids = tids;
	cc.nr_tids = 2;
	cc.cgroup_fd = f->cgroup_fd;
	cc.enable_on_exec = f->on_exec;
	cc.follow = f->follow;
	cc.pause_points = f->points;
	cc.nr_pause_points = f->nr_points;
	f->cores = cores_open(&cc, sim_pmu_ops(f->sim), f->err, sizeof(f->err));
	if (!f->cores)
		fail_msg("cores_open: %s", f->err);
	assert_int_equal(cores_count(f->cores), NCPU);
	assert_int_equal(eventlog_open(&f->log, f->outfd, -1, -1), 0);
	wo.dirfd = f->outfd;
	assert_int_equal(cores_describe(f->cores, &f->run), 0);
	f->run.pid = f->pid;
	f->run.full = f->full;
	if (!snapwire_start(&f->w, &wo, &sc, &qc, f->cores, &f->log, f->proc_root, f->err,
			    sizeof(f->err)))
		fail_msg("snapwire_start: %s", f->err);
	f->hands = (struct ctlops){
		.ctl = &f->ctl,
		.cores = f->cores,
		.stage = f->w.stage,
		.queue = f->w.queue,
		.procs = &f->w.procs,
	};
	control_init(&f->ctl, &f->log, (int)f->pid, triggers, false, -1, &ctlops_ops, &f->hands);
	/* as main.c: in process scope the kernel cuts at the switches */
	if (scope != SCOPE_AUTO)
		control_set_scope(&f->ctl, scope_name(scope), "", scope == SCOPE_PROCESS);
	/* collection starts paused, resumed once the target runs */
	assert_false(sim_pmu_running(f->sim, 0));
	control_start(&f->ctl, state, "intel-pt", BUF, NULL);
	/* running, or held in process scope (the kernel cuts): on at once;
	 * armed on exec: enabled by the kernel at the exec */
	if (!f->on_exec) {
		assert_true(sim_pmu_running(f->sim, 0));
		assert_true(sim_pmu_running(f->sim, 1));
	}
}

/* An event of @kind about this thread, of a process of two threads. */
static void event_of(struct ptfix *f, enum ptbpf_event_kind kind, struct ptbpf_event *e)
{
	memset(e, 0, sizeof(*e));
	e->ts = ptfix_now();
	e->kind = kind;
	e->tgid = f->pid;
	e->tid = f->tid;
	e->nr_threads = 2;
}

void ptfix_event(struct ptfix *f, enum ptbpf_event_kind kind)
{
	struct ptbpf_event e;

	event_of(f, kind, &e);
	e.sig = kind == PTBPF_EV_STOP ? SIGSTOP : kind == PTBPF_EV_FATAL ? SIGSEGV : SIGCONT;
	e.cause = PTBPF_CAUSE_SIGNAL;
	snprintf(e.comm, sizeof(e.comm), "%s", f->comm);
	ctlops_event(&f->hands, &e);
}

void ptfix_hit(struct ptfix *f, __u64 ip)
{
	struct ptbpf_event e;

	event_of(f, PTBPF_EV_HIT, &e);
	e.ip = ip;
	control_event(&f->ctl, &e, ptfix_now());
}

void ptfix_wait_written(struct ptfix *f, unsigned int n)
{
	char path[128];
	unsigned int i, got = 0;
	size_t len;
	char *buf, *p;

	snprintf(path, sizeof(path), "%s/events.jsonl", f->out);
	for (i = 0; i < 6000 && got < n; i++) {
		buf = read_whole(path, &len);
		got = 0;
		for (p = buf; (p = strstr(p, "\"event\":\"snapshot\"")); p++)
			got++;
		free(buf);
		if (got < n)
			usleep(10000);
	}
	assert_true(got >= n);
}

void ptfix_drain(struct ptfix *f, unsigned long written)
{
	f->hands.stage = NULL;
	f->hands.queue = NULL;
	f->hands.procs = NULL;
	assert_int_equal(snapwire_stop(&f->w), written);
}
