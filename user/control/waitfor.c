// SPDX-License-Identifier: GPL-2.0
/* --wait-for: see waitfor.h. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "base/errbuf.h"
#include "base/ptbpf_types.h"
#include "ptbpf.skel.h"
#include "loop.h"
#include "base/say.h"
#include "base/status.h"
#include "target/target.h"
#include "waitfor.h"
#include "watch/watch.h"

/* How often the wait looks for a signal that came between two polls. */
#define WAITFOR_POLL_MS 100
/* How long a held process may take to reach its stop (1 ms a look). */
#define WAITFOR_STOP_MS 2000

static int on_event(void *ctx, void *data, size_t size)
{
	const struct ptbpf_event *e = data;

	if (size >= sizeof(*e) && e->kind == PTBPF_EV_EXEC)
		*(pid_t *)ctx = (pid_t)e->tgid;
	return 0;
}

/* What the BPF side compares: the file, or the name as comm keeps it. */
static int set_match(struct ptbpf_bpf *skel, const char *name, char *err, size_t errlen)
{
	struct stat st;

	if (!strchr(name, '/')) {
		/* comm: the first TASK_COMM_LEN - 1 bytes of the name */
		snprintf((char *)skel->rodata->waitfor_comm, PTBPF_COMM_LEN, "%s", name);
		return 0;
	}
	if (stat(name, &st))
		return errbuf_set(err, errlen, -ENOENT, "--wait-for %s: %s", name, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return errbuf_set(err, errlen, -ENOENT, "--wait-for %s: not a regular file", name);
	skel->rodata->waitfor_ino = st.st_ino;
	/* the kernel's dev_t: major << 20 | minor (include/linux/kdev_t.h) */
	skel->rodata->waitfor_dev = (__u32)(major(st.st_dev) << 20 | minor(st.st_dev));
	return 0;
}

static int load(struct ptbpf_bpf **skelp, const char *name, bool verbose, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct bpf_program *prog;
	struct ptbpf_bpf *skel;
	const char *btf;
	int ret;

	ret = watch_check(verbose, &btf, err, errlen);
	if (ret)
		return ret;
	opts.btf_custom_path = btf;
	skel = *skelp = ptbpf_bpf__open_opts(&opts);
	if (!skel) {
		ret = -errno;
		return errbuf_set(err, errlen, ret, "can't open the BPF object: %s",
				  strerror(-ret));
	}
	/* the exec hook alone: there is no target to watch yet */
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.handle_waitfor);
	ret = set_match(skel, name, err, errlen);
	if (ret)
		return ret;
	ret = ptbpf_bpf__load(skel);
	if (ret)
		return errbuf_set(
			err, errlen, ret,
			"can't load the BPF program: %s (run with -v for the verifier's log)",
			strerror(-ret));
	return 0;
}

/* Polls until the hook names a pid or a terminating signal comes. */
static pid_t wait_pid(struct ptbpf_bpf *skel, struct ring_buffer *rb, pid_t *pid, const char *name,
		      char *err, size_t errlen)
{
	int n;

	while (!*pid) {
		if (loop_setup_signal())
			return errbuf_set(err, errlen, -EINTR, "interrupted while waiting for %s",
					  name);
		n = ring_buffer__poll(rb, WAITFOR_POLL_MS);
		if (n < 0 && n != -EINTR)
			return errbuf_set(err, errlen, n, "can't wait for %s: %s", name,
					  strerror(-n));
		/* an event the ring had no room for: the hook's word says it */
		if (!*pid)
			*pid = (pid_t)__atomic_load_n(&skel->bss->waitfor_pid, __ATOMIC_SEQ_CST);
	}
	return *pid;
}

/*
 * The SIGSTOP is pending from the exec on, but the task stops only on its
 * way back to user space: until then /proc shows it running. Waiting for
 * the stop makes the run begin, every time, with the target stopped.
 */
static void wait_stopped(pid_t pid)
{
	char tid[16];
	int i;

	snprintf(tid, sizeof(tid), "%d", pid);
	for (i = 0; i < WAITFOR_STOP_MS; i++) {
		char st = target_thread_state("/proc", pid, tid);

		if (st == 'T' || st == 't' || !st || st == 'Z' || st == 'X')
			return; /* stopped, or gone: attaching will say */
		usleep(1000);
	}
}

pid_t waitfor_exec(const char *name, int verbosity, char *err, size_t errlen)
{
	struct ptbpf_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct bpf_link *link = NULL;
	pid_t pid = 0, held = 0;
	int ret;

	ret = load(&skel, name, verbosity > 0, err, errlen);
	if (ret)
		goto out;
	link = bpf_program__attach(skel->progs.handle_waitfor);
	if (!link) {
		ret = -errno;
		errbuf_set(err, errlen, ret, "can't attach the BPF program: %s", strerror(-ret));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &pid, NULL);
	if (!rb) {
		ret = -errno;
		errbuf_set(err, errlen, ret, "can't open the BPF ring buffer: %s", strerror(-ret));
		goto out;
	}
	if (verbosity >= 0)
		status_say_f("ptbpf: waiting for a process to exec %s", name);
	ret = wait_pid(skel, rb, &pid, name, err, errlen);
out:
	ring_buffer__free(rb);
	bpf_link__destroy(link);
	if (skel)
		held = (pid_t)skel->bss->waitfor_pid;
	ptbpf_bpf__destroy(skel);
	/* a process held at the moment the wait failed is let go */
	if (ret < 0 && held > 0)
		kill(held, SIGCONT);
	if (ret > 0)
		wait_stopped(ret);
	return ret;
}
