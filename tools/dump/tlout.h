/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the timeline draws, apart from how it is written: tracks (a
 * process, a thread, a CPU, a counter), slices that begin and end on a
 * track, instants with their facts as args, counter values. timeline.c
 * decides what goes on which track; a writer turns it into a file:
 * tljson.c Chrome's trace event JSON, tlpf.c Perfetto's protobuf.
 *
 * Times are perf clock ns (CLOCK_MONOTONIC on x86). Slices on a track
 * are given in the order they nest: a writer keeps that order, also for
 * slices that share a timestamp.
 */
#ifndef PTBPF_DUMP_TLOUT_H
#define PTBPF_DUMP_TLOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum tl_format {
	TL_FORMAT_JSON = 0, /* Chrome trace event JSON */
	TL_FORMAT_PERFETTO, /* Perfetto's TracePacket protobuf */
};

enum tl_track_kind {
	TL_THREAD = 0, /* id: the tid, pid: its process */
	TL_PROCESS, /* pid */
	TL_CPU, /* id: the cpu */
	TL_COUNTER, /* pid: its process; id: cpu << 8 | what (tl_counter) */
};

enum tl_counter { TL_CNT_BYTES = 0, TL_CNT_LOST = 1 };

struct tl_track {
	enum tl_track_kind kind;
	uint32_t pid, id;
};

enum tl_arg_type { TLA_STR = 0, TLA_U64, TLA_I64, TLA_DBL, TLA_BOOL };

/* One fact of an instant or a slice, by name. */
struct tl_arg {
	const char *key;
	enum tl_arg_type type;
	const char *s; /* TLA_STR: @len bytes, NULs allowed */
	size_t len;
	uint64_t u;
	int64_t i;
	double d;
	bool b;
};

/* String @s as arg @key; NULL (a fact an older ptbpf.json lacks) is "". */
static inline struct tl_arg tl_arg_str(const char *key, const char *s)
{
	if (!s)
		s = "";
	return (struct tl_arg){ .key = key, .type = TLA_STR, .s = s, .len = strlen(s) };
}

static inline struct tl_arg tl_arg_u64(const char *key, uint64_t v)
{
	return (struct tl_arg){ .key = key, .type = TLA_U64, .u = v };
}

static inline struct tl_arg tl_arg_i64(const char *key, int64_t v)
{
	return (struct tl_arg){ .key = key, .type = TLA_I64, .i = v };
}

/*
 * The pseudo-process the CPU tracks belong to in the JSON file (a pid
 * above any pid_max, so it names no real process).
 */
#define TL_CPUS_PID 0x7fffffffu

struct tl_writer;

struct tl_writer_ops {
	/* the file's head and tail; end returns 0 or -EIO, -ENOMEM */
	int (*begin)(struct tl_writer *w);
	int (*end)(struct tl_writer *w);
	/* a process or thread and its name (again: the name is replaced) */
	void (*process)(struct tl_writer *w, uint32_t pid, const char *name);
	void (*thread)(struct tl_writer *w, uint32_t pid, uint32_t tid, const char *name);
	/* CLOCK_REALTIME @real at perf clock @mono: times of day */
	void (*clock)(struct tl_writer *w, uint64_t real, uint64_t mono);
	/* which ordered stream the next events go on (0 .. TL_SEQS-1) */
	void (*sequence)(struct tl_writer *w, unsigned int seq);
	void (*begin_slice)(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			    const char *name, const struct tl_arg *args, size_t nr_args);
	/*
	 * A call's slice, without args: @name is a symbol table's string,
	 * unchanged until names_epoch moves on, so a writer may know it by
	 * its address alone: a call is the most common event, and comparing
	 * its name with the interned copy read memory far from the rest
	 * (2 % of the Perfetto timeline's user time here).
	 */
	void (*begin_call)(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			   const char *name);
	void (*end_slice)(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			  const char *name);
	void (*instant)(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			const char *name, const struct tl_arg *args, size_t nr_args);
	void (*counter)(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			const char *name, uint64_t v);
};

/*
 * The streams a writer keeps apart, each in time order of its own: the
 * facts (processes, snapshots, events.jsonl), a decoded flow each (a
 * core's trace, or a thread's samples), a CPU track each.
 */
#define TL_SEQS 1025
#define TL_SEQ_FACTS 0
#define TL_SEQ_FLOW(i) (1 + (i) % 512)
#define TL_SEQ_CPU(i) (513 + (i) % 512)

struct tl_writer {
	const struct tl_writer_ops *ops;
	FILE *out;
	uint64_t nr_events;
	/* moved on when begin_call's names may go: each snapshot its table */
	uint64_t names_epoch;
	void *priv; /* the writer's own state */
};

/* Chrome trace event JSON, and Perfetto's protobuf, onto @out. */
int tljson_open(struct tl_writer *w, FILE *out);
int tlpf_open(struct tl_writer *w, FILE *out);

/* The name of counter track @t ("cpu 3 bytes"), into @buf. */
const char *tl_counter_name(const struct tl_track *t, char *buf, size_t len);

#endif /* PTBPF_DUMP_TLOUT_H */
