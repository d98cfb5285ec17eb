/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writes one staged snapshot as a directory, atomically:
 *
 *     OUT/.snapshot-NNNNNN.tmp/   built here, then renamed to
 *     OUT/snapshot-NNNNNN/        perf.data, ptbpf.json,
 *                                 trace.json, cpus/<id>.intelpt_trace,
 *                                 cpus/<id>.perf_context_switch_trace,
 *                                 vdso.so (the target's [vdso] image)
 *
 * A reader sees a snapshot directory only once it is complete. Files are
 * created with O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, directories 0700, and
 * given to the invoking user when ptbpf runs through sudo. Any failure
 * (a full disk, an I/O error, the directory removed under us) removes the
 * temporary directory: nothing half-written stays behind.
 *
 * Which snapshots stay (--max-size, --max-snapshots) is snapkeep.h's.
 */
#ifndef PTBPF_SNAPWRITE_H
#define PTBPF_SNAPWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfhost.h"
#include "ptbpfjson.h"
#include "base/snapshot.h"

/* Which files a snapshot directory holds (--format): one bit per row of
 * snapwrite_formats[]. */
enum snapwrite_format_bits {
	SNAPWRITE_PERF = 1 << 0, /* perf.data */
	SNAPWRITE_LLDB = 1 << 1, /* trace.json and cpus/ (backend_ops.lldb) */
	SNAPWRITE_ALL = SNAPWRITE_PERF | SNAPWRITE_LLDB,
};

struct snapwrite_job;
struct backend_ops;

/*
 * One output format: the one place --format's parser, the backend check,
 * --max-size's estimate, the writer and ptbpf.json's "files" look. A new
 * format is a row here and its write function.
 */
struct snapwrite_format {
	unsigned int bit; /* SNAPWRITE_* */
	const char *name; /* --format's word and ptbpf.json's "files" key */
	/* whether a snapshot of backend @be can be written in it (a fact of its row) */
	bool (*writes)(const struct backend_ops *be);
	/* bytes on disk for a snapshot whose trace is @staged bytes; @block:
	 * the filesystem's block, in which each file ends */
	uint64_t (*estimate)(const struct snapshot *s, uint64_t staged, uint64_t block);
	int (*write)(struct snapwrite_job *job);
};

extern const struct snapwrite_format snapwrite_formats[];
extern const unsigned int snapwrite_nr_formats;

/*
 * Sets *@bits to the formats named in the comma-separated @list.
 * Returns 0, or -EINVAL for an empty list or an unknown name.
 */
int snapwrite_format_parse(const char *list, unsigned int *bits);

/* The names of the formats @bits, comma-separated, into @buf (@len bytes). */
void snapwrite_format_names(unsigned int bits, char *buf, size_t len);

/* Of the formats @bits (0: all), those backend @b writes. */
unsigned int snapwrite_formats_for(unsigned int bits, enum ptbpf_backend b);

/*
 * Whether backend @b writes any of @bits. Returns 0, or -EINVAL with one
 * line in @err naming the backend a format needs and what @b writes.
 */
int snapwrite_formats_check(unsigned int bits, enum ptbpf_backend b, char *err, size_t errlen);

/*
 * What @snap will take on disk at most, written in @bits as
 * snapwrite_snapshot writes them: each
 * format's estimate for its @staged bytes of trace, and what every
 * snapshot has besides (ptbpf.json, the directory), in @block units.
 */
uint64_t snapwrite_estimate(const struct snapshot *snap, unsigned int bits, uint64_t staged,
			    uint64_t block);

struct snapwrite_opts {
	/* an existing directory ptbpf made: its name, for messages and @path */
	const char *out_dir;
	/*
	 * That directory, opened once by the caller: everything is made
	 * relative to it, so the path swapped for a symlink afterwards
	 * changes nothing. -1: @out_dir is opened for this one call (tools
	 * and tests that write one snapshot).
	 */
	int dirfd;
	int uid, gid; /* owner of what is created; -1 leaves it as is */
	unsigned int formats; /* SNAPWRITE_*; 0 means all */
	const struct perfhost *host; /* NULL: from uname(2) */
	/* perf's build-id cache to add the target's objects to with each
	 * perf.data (perf archive reads it); NULL: none */
	const char *buildid_cache;
};

/*
 * Writes @snap under @opts->out_dir as "snapshot-NNNNNN" (NNNNNN =
 * @snap->id, zero-padded to at least six digits, SNAPFMT_NAME_FMT): the formats of @opts->formats
 * that the snapshot's backend writes (snapwrite_formats_for; all it writes
 * when it writes none of them), and ptbpf.json always. On success the final path is
 * copied to @path (@path_len bytes; may be NULL).
 *
 * On failure @err (@err_len bytes; may be NULL) gets one line naming the
 * file and the reason, and no directory of this snapshot is left.
 *
 * Returns 0 on success.
 * Returns -EINVAL if @snap, @opts or @opts->out_dir is NULL, or @snap->id
 * is 0 or above SNAPFMT_ID_MAX (then @err says so).
 * Returns -EEXIST if the final directory already exists, or something that
 * is not a directory (a symlink) has the temporary one's name; a temporary
 * directory a killed run left is removed first.
 * Returns -ENAMETOOLONG if the snapshot was written but @path_len cannot
 * hold its path (never cut): PATH_MAX + 32 bytes always can.
 * Returns the -errno of the failed step otherwise: -ENOSPC, -EIO, -ENOENT
 * (the output directory vanished), -EACCES, -EPERM (chown), -EBADMSG (a
 * malformed staged record) ...
 */
int snapwrite_snapshot(const struct snapshot *snap, const struct snapwrite_opts *opts, char *path,
		       size_t path_len, char *err, size_t err_len);

/*
 * Removes the temporary snapshot directories (".snapshot-NNNNNN.tmp", our
 * own names only, never through a symlink) that a run killed mid-snapshot
 * left in @outfd; call it holding the output directory's lock, so none is
 * a live run's. *@bytes (may be NULL) gets what they held.
 * Returns the number removed (>= 0), or -errno of reading @outfd.
 */
int snapwrite_remove_stale(int outfd, uint64_t *bytes);

/*
 * The ids of the snapshot directories in the output directory @outfd,
 * highest first, into *@ids (malloc'd) and *@n. Returns 0, -EINVAL, or
 * -errno of reading @outfd, -ENOMEM.
 */
int snapwrite_list(int outfd, uint64_t **ids, size_t *n);

/*
 * The bytes snapshot @id takes on disk in @outfd: the blocks of its files
 * and directories, itself included (what `du -s -B1` counts).
 * Returns 0, or -errno (-ENOENT: no such snapshot).
 */
int snapwrite_size(int outfd, uint64_t id, uint64_t *bytes);

/*
 * Whether @snap is written with the vDSO image (SNAPFMT_VDSO): ptbpf has
 * one (snap_run.vdso) and a process of the snapshot maps it (a 64-bit
 * x86-64 one: snap_process.vdso); ptbpf.json and trace.json say so then.
 */
bool snapwrite_vdso_saved(const struct snapshot *snap);

/*
 * What the directory of @snap holds when the formats @written (SNAPWRITE_*)
 * are written, as ptbpf.json says it: @files (snapwrite_nr_formats rows)
 * gets one row per format in snapwrite_formats[]' order, and @dir points
 * at them and says whether vdso.so is there (snapwrite_vdso_saved).
 */
void snapwrite_contents(const struct snapshot *snap, unsigned int written,
			struct ptbpfjson_file *files, struct ptbpfjson_dir *dir);

/* Removes snapshot @id from @outfd. Returns 0 or -errno. */
int snapwrite_remove(int outfd, uint64_t id);

#endif /* PTBPF_SNAPWRITE_H */
