// SPDX-License-Identifier: GPL-2.0
/* The BPF side, from user space: see watch.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/errbuf.h"
#include "base/ptbpf_types.h"
#include "ptbpf.skel.h"
#include "privs.h"
#include "base/say.h"
#include "target/target.h"
#include "watch.h"

#define DEFAULT_BTF "/sys/kernel/btf/vmlinux"

struct watch {
	struct ptbpf_bpf *skel;
	struct ring_buffer *rb;
	/* crash records, drained when a fatal event comes: they precede it */
	struct ring_buffer *crash_rb;
	watch_crash_cb crash_cb;
	watch_cb cb;
	void *ctx;
	pid_t tgid;
	bool follow;
	struct bpf_link *hit_links[WATCH_MAX_HITPOINTS];
	unsigned int nr_hit_links;
};

/* Every tracepoint the program attaches to, as its BTF typedef names it. */
static const char *const tracepoints[] = {
	"sched_switch",	      "sched_waking",	 "sched_process_fork", "sched_process_exit",
	"sched_process_exec", "signal_generate", "signal_deliver",
};

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	char line[1024];

	if (!libbpf_verbose)
		return 0;
	/* libbpf's lines carry their own "libbpf: " prefix */
	vsnprintf(line, sizeof(line), fmt, args);
	say("%s", line);
	return 0;
}

/* PTBPF_BTF names another vmlinux BTF file, as bcc tools' --btf does. */
static const char *btf_path(void)
{
	const char *p = getenv("PTBPF_BTF");

	return p && *p ? p : DEFAULT_BTF;
}

static int check_kernel(const char *path, char *err, size_t errlen)
{
	char name[64];
	struct btf *btf;
	size_t i;

	if (access(path, R_OK)) {
		return errbuf_set(
			err, errlen, -ENOENT,
			"this kernel has no BTF (%s: %s): ptbpf needs a kernel built with CONFIG_DEBUG_INFO_BTF=y",
			path, strerror(errno));
	}
	btf = btf__parse(path, NULL);
	if (!btf)
		return errbuf_set(err, errlen, -ENOENT, "can't read kernel BTF from %s: %s", path,
				  strerror(errno));
	for (i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", tracepoints[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0) {
			btf__free(btf);
			return errbuf_set(err, errlen, -ENOENT,
					  "this kernel has no %s tracepoint (BTF type %s missing)",
					  tracepoints[i], name);
		}
	}
	btf__free(btf);
	return 0;
}

static int on_crash(void *ctx, void *data, size_t size)
{
	const struct ptbpf_crash *c = data;
	struct watch *w = ctx;
	size_t len = offsetof(struct ptbpf_crash, stack);

	if (size < len || !w->crash_cb || c->stack_len > PTBPF_CRASH_STACK_MAX ||
	    size < len + c->stack_len)
		return 0;
	w->crash_cb(w->ctx, c, len + c->stack_len);
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct ptbpf_event *e = data;
	struct watch *w = ctx;

	if (size < sizeof(struct ptbpf_event))
		return 0;
	/* its crash record was submitted first, on the other ring */
	if (e->kind == PTBPF_EV_FATAL && w->crash_rb)
		ring_buffer__consume(w->crash_rb);
	return w->cb(w->ctx, data);
}

static int load(struct watch *w, const char *path, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	int ret;

	if (strcmp(path, DEFAULT_BTF))
		opts.btf_custom_path = path;
	w->skel = ptbpf_bpf__open_opts(&opts);
	if (!w->skel) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open the BPF object: %s",
				  strerror(-ret));
	}
	w->skel->rodata->targ_tgid = w->tgid;
	w->skel->rodata->follow = w->follow;
	/* --wait-for's program is loaded alone, before (waitfor.c) */
	bpf_program__set_autoload(w->skel->progs.handle_waitfor, false);
	ret = ptbpf_bpf__load(w->skel);
	if (ret) {
		return errbuf_set(
			err, errlen, ret,
			"can't load the BPF program: %s (run with -v for the verifier's log)",
			strerror(-ret));
	}
	/* a thread may be on any CPU since before the attach: look at all */
	memset(w->skel->bss->cpu_ran, 1, sizeof(w->skel->bss->cpu_ran));
	ret = ptbpf_bpf__attach(w->skel);
	if (ret)
		return errbuf_set(err, errlen, ret, "can't attach the BPF program: %s",
				  strerror(-ret));
	/* all attached: from here the programs act (before the thread scan) */
	__atomic_store_n(&w->skel->bss->armed, true, __ATOMIC_SEQ_CST);
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.events), on_event, w, NULL);
	if (!w->rb) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open the BPF ring buffer: %s",
				  strerror(-ret));
	}
	w->crash_rb = ring_buffer__new(bpf_map__fd(w->skel->maps.crashes), on_crash, w, NULL);
	if (!w->crash_rb) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open the BPF crash ring buffer: %s",
				  strerror(-ret));
	}
	return 0;
}

int watch_check(bool verbose, const char **btf, char *err, size_t errlen)
{
	const char *path = btf_path();
	int ret;

	ret = privs_check(err, errlen);
	if (!ret)
		ret = check_kernel(path, err, errlen);
	if (ret)
		return ret;
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
	/* NULL: the running kernel's own, which libbpf finds itself */
	*btf = strcmp(path, DEFAULT_BTF) ? path : NULL;
	return 0;
}

struct watch *watch_open(pid_t tgid, bool follow, bool verbose, watch_cb cb, void *ctx, char *err,
			 size_t errlen)
{
	const char *path = btf_path(), *custom;
	struct watch *w;
	int ret;

	ret = watch_check(verbose, &custom, err, errlen);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		errbuf_set(err, errlen, 0, "out of memory");
		return NULL;
	}
	w->tgid = tgid;
	w->follow = follow;
	w->cb = cb;
	w->ctx = ctx;
	ret = load(w, path, err, errlen);
	if (ret) {
		watch_close(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

#define THREAD_GONE -1 /* exited (Z, X) or no longer there */

/*
 * 'T' is a job-control stop, 't' a ptrace stop (fs/proc/array.c); 'Z' and
 * 'X' a thread that has exited: a leader that called pthread_exit() stays
 * in /proc as a zombie while its other threads run on.
 */
static int thread_state(const char *proc, pid_t tgid, const char *tid)
{
	char st = target_thread_state(proc, tgid, tid);

	if (!st || st == 'Z' || st == 'X')
		return THREAD_GONE;
	if (st == 'T')
		return PTBPF_THREAD_STOPPED;
	if (st == 't')
		return PTBPF_THREAD_TRACED;
	return PTBPF_THREAD_RUNNING;
}

/*
 * One thread found in /proc. Whoever inserts a slot counts it, whoever
 * deletes it uncounts it: the BPF program and this scan agree on that, so
 * a thread seen by both is counted once.
 */
static void register_thread(struct watch *w, const char *proc, const char *name)
{
	struct ptbpf_bpf__bss *bss = w->skel->bss;
	__u32 tid = (__u32)strtoul(name, NULL, 10);
	int state = thread_state(proc, w->tgid, name);
	__u32 st = (__u32)state;

	/* its exit has been (or will not be) seen: it is not a live thread */
	if (state == THREAD_GONE)
		return;
	if (bpf_map__update_elem(w->skel->maps.threads, &tid, sizeof(tid), &st, sizeof(st),
				 BPF_NOEXIST))
		return;
	__atomic_fetch_add(&bss->root.nr_live, 1, __ATOMIC_SEQ_CST);
	if (st != PTBPF_THREAD_RUNNING)
		__atomic_fetch_add(&bss->root.nr_stopped, 1, __ATOMIC_SEQ_CST);
	/*
	 * It may have passed its exit tracepoint before its slot existed:
	 * then nobody would delete it. PF_EXITING is set before that
	 * tracepoint, so a thread without it will still be seen exiting; one
	 * with it is deleted here or there, whichever comes first.
	 */
	if (!target_thread_exiting(proc, w->tgid, name))
		return;
	if (bpf_map__delete_elem(w->skel->maps.threads, &tid, sizeof(tid), 0))
		return;
	__atomic_fetch_sub(&bss->root.nr_live, 1, __ATOMIC_SEQ_CST);
	if (st != PTBPF_THREAD_RUNNING)
		__atomic_fetch_sub(&bss->root.nr_stopped, 1, __ATOMIC_SEQ_CST);
}

int watch_scan(struct watch *w, const char *proc)
{
	struct ptbpf_bpf__bss *bss = w->skel->bss;
	__u64 expected = PTBPF_WORD(0, PTBPF_PROC_UNKNOWN);
	__u32 state;
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%d/task", proc, w->tgid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			register_thread(w, proc, de->d_name);
	closedir(d);

	if (__atomic_load_n(&bss->root.nr_live, __ATOMIC_SEQ_CST) <= 0)
		return -ESRCH;
	state = __atomic_load_n(&bss->root.nr_stopped, __ATOMIC_SEQ_CST) >=
				__atomic_load_n(&bss->root.nr_live, __ATOMIC_SEQ_CST) ?
			PTBPF_PROC_STOPPED :
			PTBPF_PROC_RUNNING;
	/* from here on the BPF program reports process transitions */
	if (!__atomic_compare_exchange_n(&bss->root.word, &expected, PTBPF_WORD(0, state), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return PTBPF_WORD_STATE(expected) == PTBPF_PROC_EXITED ?
			       -ESRCH :
			       (int)PTBPF_WORD_STATE(expected);
	return (int)state;
}

/*
 * One thread of process @pid into the threads map (if no slot is there
 * yet), counted into @p. Returns whether it was counted.
 */
static bool adopt_thread(struct watch *w, const char *proc, pid_t pid, const char *name,
			 struct ptbpf_proc *p)
{
	__u32 tid = (__u32)strtoul(name, NULL, 10);
	int state = thread_state(proc, pid, name);
	__u32 st = (__u32)state;

	if (state == THREAD_GONE || bpf_map__update_elem(w->skel->maps.threads, &tid, sizeof(tid),
							 &st, sizeof(st), BPF_NOEXIST))
		return false;
	p->nr_live++;
	if (st != PTBPF_THREAD_RUNNING)
		p->nr_stopped++;
	return true;
}

int watch_adopt(struct watch *w, const char *proc, pid_t pid)
{
	struct ptbpf_proc p = { 0 };
	struct dirent *de;
	char path[64];
	__u32 key = (__u32)pid;
	int state;
	DIR *d;

	if (!w || !w->follow || pid == w->tgid)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
			adopt_thread(w, proc, pid, de->d_name, &p);
	closedir(d);
	if (p.nr_live <= 0)
		return -ESRCH;
	state = p.nr_stopped >= p.nr_live ? PTBPF_PROC_STOPPED : PTBPF_PROC_RUNNING;
	p.word = PTBPF_WORD(0, state);
	/* one it forked since: the BPF side has it already */
	if (bpf_map__update_elem(w->skel->maps.children, &key, sizeof(key), &p, sizeof(p),
				 BPF_NOEXIST))
		return -EEXIST;
	__atomic_fetch_add(&w->skel->bss->nr_children, 1, __ATOMIC_SEQ_CST);
	return state;
}

int watch_fd(const struct watch *w)
{
	return ring_buffer__epoll_fd(w->rb);
}

int watch_consume(struct watch *w)
{
	return ring_buffer__consume(w->rb);
}

uint64_t watch_lost(const struct watch *w)
{
	return __atomic_load_n(&w->skel->bss->lost_events, __ATOMIC_RELAXED);
}

int watch_state(const struct watch *w, uint64_t *seq)
{
	__u64 word = __atomic_load_n(&w->skel->bss->root.word, __ATOMIC_SEQ_CST);

	if (seq)
		*seq = PTBPF_WORD_SEQ(word);
	return (int)PTBPF_WORD_STATE(word);
}

int watch_cgroup(struct watch *w, int cgroup_fd)
{
	__u32 key = 0, fd = (__u32)cgroup_fd;
	int ret;

	ret = bpf_map__update_elem(w->skel->maps.targ_cgroup, &key, sizeof(key), &fd, sizeof(fd),
				   BPF_ANY);
	if (ret)
		return ret;
	__atomic_store_n(&w->skel->bss->watch_cgroup, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* A followed process's state from the children map; NULL when gone. */
static bool child_state(const struct watch *w, pid_t pid, struct ptbpf_proc *p)
{
	__u32 key = (__u32)pid;

	return bpf_map__lookup_elem(w->skel->maps.children, &key, sizeof(key), p, sizeof(*p), 0) ==
	       0;
}

int watch_proc_state(const struct watch *w, pid_t pid, uint64_t *seq)
{
	struct ptbpf_proc p;

	if (pid == w->tgid)
		return watch_state(w, seq);
	if (!child_state(w, pid, &p)) {
		/* it exits before it leaves the map: gone, its events told */
		if (seq)
			*seq = 0;
		return PTBPF_PROC_EXITED;
	}
	if (seq)
		*seq = PTBPF_WORD_SEQ(p.word);
	return (int)PTBPF_WORD_STATE(p.word);
}

bool watch_proc_dying(const struct watch *w, pid_t pid)
{
	struct ptbpf_proc p;

	if (pid == w->tgid)
		return watch_dying(w);
	return child_state(w, pid, &p) && p.fatal_dying;
}

int watch_children(const struct watch *w, pid_t *pids, int max)
{
	__u32 key, next;
	int n = 0;
	void *prev = NULL;

	while (n < max &&
	       !bpf_map__get_next_key(w->skel->maps.children, prev, &next, sizeof(next))) {
		pids[n++] = (pid_t)next;
		key = next;
		prev = &key;
	}
	return n;
}

uint64_t watch_follow_full(const struct watch *w)
{
	return __atomic_load_n(&w->skel->bss->follow_full, __ATOMIC_RELAXED);
}

bool watch_dying(const struct watch *w)
{
	return __atomic_load_n(&w->skel->bss->root.fatal_dying, __ATOMIC_SEQ_CST);
}

void watch_counts(const struct watch *w, int *live, int *stopped)
{
	*live = __atomic_load_n(&w->skel->bss->root.nr_live, __ATOMIC_SEQ_CST);
	*stopped = __atomic_load_n(&w->skel->bss->root.nr_stopped, __ATOMIC_SEQ_CST);
}

bool watch_cpu_take(struct watch *w, int cpu)
{
	unsigned int i = (unsigned int)cpu & (PTBPF_MAX_CPUS - 1);
	struct ptbpf_bpf__bss *bss;

	if (!w || cpu < 0)
		return true;
	bss = w->skel->bss;
	/* clear first: a switch-in after this marks it for the next time */
	return __atomic_exchange_n(&bss->cpu_ran[i], 0, __ATOMIC_SEQ_CST) ||
	       __atomic_load_n(&bss->cpu_on[i], __ATOMIC_SEQ_CST);
}

int watch_hitpoint(struct watch *w, const char *path, uint64_t offset, unsigned int point,
		   char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = point);
	struct bpf_link *l;

	if (!w || !path)
		return -EINVAL;
	if (w->nr_hit_links == WATCH_MAX_HITPOINTS)
		return errbuf_set(err, errlen, -ENOSPC, "more than %d trigger points",
				  WATCH_MAX_HITPOINTS);
	/* pid -1: every process; is_target() picks the target's hits */
	l = bpf_program__attach_uprobe_opts(w->skel->progs.trigger_hit, -1, path, (size_t)offset,
					    &opts);
	if (!l) {
		int ret = -errno;

		return errbuf_set(err, errlen, ret,
				  "can't put a uprobe in %s at offset 0x%" PRIx64 ": %s", path,
				  offset, strerror(-ret));
	}
	w->hit_links[w->nr_hit_links++] = l;
	return 0;
}

void watch_crashes(struct watch *w, unsigned int stack, watch_crash_cb cb)
{
	if (!w)
		return;
	w->crash_cb = cb;
	w->skel->data->crash_stack = stack > PTBPF_CRASH_STACK_MAX ? PTBPF_CRASH_STACK_MAX : stack;
}

uint64_t watch_crash_lost(const struct watch *w)
{
	return w ? __atomic_load_n(&w->skel->bss->crash_lost, __ATOMIC_RELAXED) : 0;
}

void watch_hitpoints_off(struct watch *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < w->nr_hit_links; i++)
		bpf_link__destroy(w->hit_links[i]);
	w->nr_hit_links = 0;
}

void watch_close(struct watch *w)
{
	if (!w)
		return;
	watch_hitpoints_off(w);
	ring_buffer__free(w->rb);
	ring_buffer__free(w->crash_rb);
	/* destroying the skeleton detaches every link and closes every fd */
	ptbpf_bpf__destroy(w->skel);
	free(w);
}
