/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the integration tests: start ptbpf and targets as real
 * processes, read events.jsonl as ptbpf writes it, and read the truth from
 * /proc. Everything a test starts it also ends; temp dirs are removed.
 */
#ifndef PTBPF_TESTS_INTEG_H
#define PTBPF_TESTS_INTEG_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PTBPF_BIN "./ptbpf"

#define PROGS ".output/tests/progs/"

/* The integration tests load BPF and open per-CPU events: root only. */
void need_root(void);

/* TEST_FILTER=test_x runs only the tests it names (cmocka's glob). */
void integ_filter(void);

double mono_s(void);

void msleep(int ms);

/* Forks and execs @argv with stdout/stderr to @log (or inherited). */
pid_t spawn(char *const argv[], const char *log);

/* Waits for @pid to exit; returns its shell-style status, -1 on timeout. */
int wait_exit(pid_t pid, double timeout_s);

void kill_wait(pid_t pid);

/* /proc/PID/task/TID/@name into @buf (NUL-terminated); bytes read, or -1. */
ssize_t read_task_file(pid_t pid, pid_t tid, const char *name, char *buf, size_t len);

/* The state letter of a task in /proc (R, S, T, t, Z...), or 0. */
char task_state(pid_t pid, pid_t tid);

/*
 * True when the task is off its CPU: /proc shows T as soon as the state is
 * set, before the task has switched out, and a SIGCONT in that window
 * means it never stopped at all. wchan is "0" while it is on a CPU.
 */
int task_off_cpu(pid_t pid, pid_t tid);

/* True when every thread of @pid is in state T or t, and off its CPU. */
int all_stopped(pid_t pid);

int wait_stopped(pid_t pid, int want, double timeout_s);

/* CPU time @pid's threads have used (utime + stime), in ms; -1 if gone. */
long long cpu_ms(pid_t pid);

/*
 * Waits until @pid has run @ms more milliseconds on a CPU: what a test that
 * needs N samples of it needs, however loaded the machine is (a fixed sleep
 * gives a loaded machine's target too little CPU). 0 on timeout.
 */
int wait_cpu(pid_t pid, long long ms, double timeout_s);

/*
 * Runs @cmd through sh; returns its whole stdout (malloc'd) and, when
 * @status is not NULL, its exit status as a shell gives it.
 */
char *run_out(const char *cmd, int *status);

/* The number a command prints (a `grep -c`, a `wc -l`), or -1. */
long run_count(const char *cmd);

/*
 * Samples of process @pid in every snapshot under @out whose line of
 * `perf script -G -F comm,pid,ip,sym` (the sampled function, no call
 * chain) holds @text ("" for all of them).
 */
long samples_with(const char *out, pid_t pid, const char *text);

/* The whole of a file, NUL-terminated (malloc'd), or NULL. */
char *slurp(const char *path);

/* Cuts @buf after its last whole line (a line being written is not one yet). */
void whole_lines(char *buf);

/* Number of lines of @dir/events.jsonl whose "event" is @name. */
int count_events(const char *dir, const char *name);

int wait_events(const char *dir, const char *name, int n, double timeout_s);

/*
 * The event names of events.jsonl, in order, as one string "start stop run
 * ..." (malloc'd). Names in @skip (space separated) are left out.
 */
char *event_sequence(const char *dir, const char *skip);

/* Value of numeric field @key in the @nth (0-based) line of event @name. */
long long event_field(const char *dir, const char *name, int nth, const char *key);

/* String field @key of the @nth line of event @name, into @out. */
int event_str(const char *dir, const char *name, int nth, const char *key, char *out, size_t len);

char *make_tmpdir(void);

void rm_rf(const char *dir);

/*
 * The scratch folder of one test, with the paths of ptbpf's output
 * directory (@out, "DIR/out") and its stderr log (@log, "DIR/ptbpf.stderr")
 * in it; either may be NULL. Returns the folder (free() it after
 * fx_dir_remove()), or NULL.
 */
char *fx_dir(char *out, size_t out_len, char *log, size_t log_len);

/* Shows ptbpf's stderr @log when TEST_VERBOSE is set. */
void fx_show_log(const char *log);

/* Ends ptbpf @pid (when > 0) as a user does: SIGINT, SIGKILL after 10 s. */
void fx_end_ptbpf(pid_t pid);

/* Removes the scratch folder @dir of fx_dir() and frees it. */
void fx_dir_remove(char *dir);

/*
 * What one ptbpf process held, so that a test checks its own run and not a
 * system-wide count that any other ptbpf on the machine changes. BPF
 * programs, maps and links have ids (fdinfo prog_id/map_id/link_id); a perf
 * event has none, so it is counted per process: once the process is gone an
 * event can only live on through another holder, a BPF map (its id is
 * checked) or an inherited descriptor (perf_fds() of the target).
 */
enum held_kind { HELD_PROG, HELD_MAP, HELD_LINK, HELD_KINDS };

struct held {
	unsigned int id[HELD_KINDS][256];
	int n[HELD_KINDS];
	int perf; /* the most perf event descriptors seen at once */
};

void held_note(struct held *h, enum held_kind k, unsigned id);

/* The id after "@key:\t" in /proc/@pid/fdinfo/@fd, or 0. */
unsigned int fdinfo_id(pid_t pid, const char *fd, const char *key);

/*
 * Adds to @h what @pid holds now. Returns the number of BPF objects and
 * perf events it holds now, or -1 when the process is gone.
 */
int held_add(struct held *h, pid_t pid);

/* 1 when BPF object @id of @kind exists, 0 when it is gone, -1 unknown. */
int bpf_id_exists(enum held_kind kind, unsigned int id);

/*
 * How many of the BPF objects in @h still exist, after waiting for them to
 * go: the kernel frees a program after an RCU grace period once its last
 * descriptor and link are gone, later on a loaded machine. Names each one
 * left on stderr.
 */
int held_left(const struct held *h);

/* Number of perf event descriptors @pid holds (0 when it is gone). */
int perf_fds(pid_t pid);

/*
 * The value of global @var of the BPF program (in a map whose name ends
 * in ".bss") of the objects in @h, or -1: read by map id, with the
 * variable's offset from the map's BTF, so a test can wait for what the
 * BPF side counts (e.g. lost_events) while ptbpf itself is stopped.
 */
long long held_bpf_global(const struct held *h, const char *var);

/*
 * Runs @argv to its end (@env: one "NAME=value" more, or NULL), stdin and
 * stdout on /dev/null, stderr into @err. @h gets what it held, read every
 * millisecond while it runs and once more at PTRACE_EVENT_EXIT (it runs
 * traced only for that stop), where its descriptors are still open: what
 * it held at its last moment, even for a run that ends within microseconds.
 * Returns its status as a shell shows it, or -1 after @timeout_s (killed).
 */
int run_held(const char *env, char *const argv[], char *err, size_t len, struct held *h,
	     double timeout_s);

/*
 * Runs ptbpf -o @out @args (split at spaces) with run_held(): its status,
 * its stderr in @err, what it held in @h. Fails the test when a BPF object
 * it held is still loaded afterwards.
 */
int run_ptbpf_held(const char *env, const char *out, const char *args, char *err, size_t len,
		   struct held *h, double timeout_s);

/* Runs a command line through sh; returns its exit status, stderr in @err. */
int run_capture(const char *cmd, char *err, size_t len);

#endif /* PTBPF_TESTS_INTEG_H */
