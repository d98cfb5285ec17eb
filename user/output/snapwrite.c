// SPDX-License-Identifier: GPL-2.0
/* Atomic snapshot directories: see snapwrite.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle.h"
#include "collect/backend.h"
#include "base/errbuf.h"
#include "fileout.h"
#include "json.h"
#include "perfdata.h"
#include "buildcache.h"
#include "ptbpfjson.h"
#include "snapfmt.h"
#include "snapwrite.h"
#include "proc/vdso.h"

#define TMP_FMT "." SNAPFMT_PREFIX "%06" PRIu64 ".tmp"
#define FINAL_FMT SNAPFMT_NAME_FMT

struct snapwrite_job {
	const struct snapshot *snap;
	const struct snapwrite_opts *opts;
	int dirfd; /* the temporary snapshot directory */
	bool made; /* we created it: ours to remove on failure */
	char *err;
	size_t err_len;
};

static int fail(struct snapwrite_job *job, int ret, const char *fmt, ...)
{
	char what[PATH_MAX + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (job->err && job->err_len)
		snprintf(job->err, job->err_len, "snapshot %" PRIu64 ": %s: %s", job->snap->id,
			 what, strerror(-ret));
	return ret;
}

/*
 * Hands @fd, which we just made, to the user the snapshot is for (sudo's),
 * when there is one. The directory is theirs: a directory could be swapped
 * for another between mkdirat(2) and openat(2), so only one of ours with
 * one link (a file made O_EXCL) or none below it (a directory) is given.
 */
static int chown_to_user(int fd, const struct snapwrite_opts *opts)
{
	struct stat st;

	if (opts->uid == -1 && opts->gid == -1)
		return 0;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid() || st.st_nlink > (S_ISDIR(st.st_mode) ? 2u : 1u))
		return -EPERM;
	return fchown(fd, opts->uid, opts->gid) ? -errno : 0;
}

static void tree_bytes(int fd, int depth, uint64_t *sum);

/* Removes everything under directory @fd (two levels deep at most). */
static void empty_dir(int fd, int depth)
{
	struct dirent *de;
	DIR *d;
	int sub;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno != EISDIR)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth > 0)
			empty_dir(sub, depth - 1);
		else if (sub >= 0)
			close(sub);
		unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* Removes directory @name under @parent and what it holds. */
static int remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	empty_dir(fd, 2);
	return unlinkat(parent, name, AT_REMOVEDIR) ? -errno : 0;
}

/* Creates @name in the snapshot directory: new, no symlink, 0600, ours. */
static int create(struct snapwrite_job *job, const char *name)
{
	int fd, ret;

	fd = openat(job->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(job, -errno, "%s", name);
	ret = chown_to_user(fd, job->opts);
	if (ret) {
		close(fd);
		return fail(job, ret, "%s: chown", name);
	}
	return fd;
}

/* Closes @fd; close(2) is where NFS and friends report deferred errors. */
static int finish(struct snapwrite_job *job, int fd, int ret, const char *name)
{
	if (close(fd) && !ret)
		ret = -errno;
	return ret ? fail(job, ret, "%s", name) : 0;
}

static int write_perf(struct snapwrite_job *job)
{
	int fd = create(job, SNAPFMT_PERF_DATA);

	if (fd < 0)
		return fd;
	/* like perf record: a missing cache costs perf archive, not the data */
	if (job->opts->buildid_cache) {
		unsigned int i;

		buildcache_add_process(job->opts->buildid_cache, &job->snap->proc);
		for (i = 0; i < job->snap->nr_more; i++)
			buildcache_add_process(job->opts->buildid_cache, &job->snap->more[i]);
		if (snapwrite_vdso_saved(job->snap))
			buildcache_add_vdso(job->opts->buildid_cache, job->snap->run.vdso);
	}
	return finish(job, fd, perfdata_write(fd, job->snap, job->opts->host), SNAPFMT_PERF_DATA);
}

/*
 * Writes @name from the document @j, which its builder returned @built
 * for (0: complete); frees @j.
 */
static int write_json(struct snapwrite_job *job, const char *name, struct json *j, int built)
{
	int fd, ret;

	if (built) {
		json_free(j);
		return fail(job, built, "%s", name);
	}
	fd = create(job, name);
	if (fd < 0) {
		json_free(j);
		return fd;
	}
	ret = fileout_write_all(fd, j->buf, j->len, NULL);
	json_free(j);
	return finish(job, fd, ret, name);
}

static int write_ipt(struct snapwrite_job *job, const struct snap_core *c)
{
	char name[64];
	int fd;

	bundle_cpu_path(name, sizeof(name), c->cpu, SNAPFMT_IPT_SUFFIX);
	fd = create(job, name);
	if (fd < 0)
		return fd;
	return finish(job, fd, fileout_write_all(fd, c->trace, c->trace_len, NULL), name);
}

static int write_switches(struct snapwrite_job *job, unsigned int idx)
{
	char name[64];
	int fd;

	bundle_cpu_path(name, sizeof(name), job->snap->cores[idx].cpu, SNAPFMT_SWITCH_SUFFIX);
	fd = create(job, name);
	if (fd < 0)
		return fd;
	return finish(job, fd, bundle_write_switch_trace(fd, job->snap, idx), name);
}

static int write_lldb(struct snapwrite_job *job)
{
	unsigned int i;
	struct json j;
	int fd, ret;

	if (mkdirat(job->dirfd, SNAPFMT_CPUS_DIR, 0700))
		return fail(job, -errno, "%s/", SNAPFMT_CPUS_DIR);
	fd = openat(job->dirfd, SNAPFMT_CPUS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(job, -errno, "%s/", SNAPFMT_CPUS_DIR);
	ret = chown_to_user(fd, job->opts);
	close(fd);
	if (ret)
		return fail(job, ret, "%s/: chown", SNAPFMT_CPUS_DIR);
	for (i = 0; i < job->snap->nr_cores && !ret; i++) {
		ret = write_ipt(job, &job->snap->cores[i]);
		if (!ret)
			ret = write_switches(job, i);
	}
	if (ret)
		return ret;
	json_init_dyn(&j);
	ret = bundle_trace_json(job->snap, snapwrite_vdso_saved(job->snap), &j);
	return write_json(job, SNAPFMT_TRACE_JSON, &j, ret);
}

/* perf.data: every record once, and perf's headers and features */
static uint64_t perf_estimate(const struct snapshot *s, uint64_t staged, uint64_t block)
{
	unsigned int i;
	uint64_t bytes;

	bytes = staged + 64 * 1024 + s->proc.nr_maps * 512ULL + s->proc.nr_threads * 128ULL;
	for (i = 0; i < s->nr_more; i++)
		bytes += s->more[i].nr_maps * 512ULL + s->more[i].nr_threads * 128ULL;
	return bytes + block;
}

/* the trace once more in cpus/, two files a core, and trace.json */
static uint64_t lldb_estimate(const struct snapshot *s, uint64_t staged, uint64_t block)
{
	return staged + (2 + 2ULL * s->nr_cores) * block;
}

/* perf.data holds what every backend records */
static bool any_backend(const struct backend_ops *be)
{
	(void)be;
	return true;
}

/* the LLDB bundle, of a trace LLDB reads (Intel PT's); the others have only perf.data */
static bool lldb_backend(const struct backend_ops *be)
{
	return be->lldb;
}

const struct snapwrite_format snapwrite_formats[] = {
	{ SNAPWRITE_PERF, "perf", any_backend, perf_estimate, write_perf },
	{ SNAPWRITE_LLDB, "lldb", lldb_backend, lldb_estimate, write_lldb },
};

#define NR_FORMATS (sizeof(snapwrite_formats) / sizeof(snapwrite_formats[0]))

const unsigned int snapwrite_nr_formats = NR_FORMATS;

int snapwrite_format_parse(const char *list, unsigned int *bits)
{
	const char *tok = list, *end;
	unsigned int v = 0, i;
	size_t len;

	if (!list || !*list)
		return -EINVAL;
	for (; tok; tok = *end ? end + 1 : NULL) {
		end = strchrnul(tok, ',');
		len = (size_t)(end - tok);
		for (i = 0; i < snapwrite_nr_formats; i++)
			if (strlen(snapwrite_formats[i].name) == len &&
			    !strncmp(snapwrite_formats[i].name, tok, len))
				break;
		if (i == snapwrite_nr_formats)
			return -EINVAL;
		v |= snapwrite_formats[i].bit;
	}
	*bits = v;
	return 0;
}

unsigned int snapwrite_formats_for(unsigned int bits, enum ptbpf_backend b)
{
	const struct backend_ops *be = backend_ops(b);
	unsigned int i, v = 0;

	if (!backend_known(b))
		return 0;
	for (i = 0; i < snapwrite_nr_formats; i++)
		if ((!bits || (bits & snapwrite_formats[i].bit)) && snapwrite_formats[i].writes(be))
			v |= snapwrite_formats[i].bit;
	return v;
}

void snapwrite_format_names(unsigned int bits, char *buf, size_t len)
{
	unsigned int i;
	size_t n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < snapwrite_nr_formats && n < len; i++)
		if (bits & snapwrite_formats[i].bit)
			n += snprintf(buf + n, len - n, "%s%s", n ? "," : "",
				      snapwrite_formats[i].name);
}

/* The first backend of the table that writes format @f; NULL: none. */
static const struct backend_ops *writer_of(const struct snapwrite_format *f)
{
	const struct backend_ops *be;
	unsigned int i;

	for (i = 0; (be = backend_nth(i)); i++)
		if (f->writes(be))
			return be;
	return NULL;
}

int snapwrite_formats_check(unsigned int bits, enum ptbpf_backend b, char *err, size_t errlen)
{
	const struct backend_ops *need = NULL;
	char asked[64], has[64];
	unsigned int i;

	if (snapwrite_formats_for(bits, b))
		return 0;
	snapwrite_format_names(bits, asked, sizeof(asked));
	snapwrite_format_names(snapwrite_formats_for(0, b), has, sizeof(has));
	/* the backend the first asked format needs, to name one (a format no
	 * backend writes would have none) */
	for (i = 0; i < snapwrite_nr_formats && !need; i++)
		if (bits & snapwrite_formats[i].bit)
			need = writer_of(&snapwrite_formats[i]);
	return errbuf_set(
		err, errlen, -EINVAL,
		"--format %s needs the %s backend: the %s backend writes %s (use --format %s)",
		asked, need ? snapfmt_backend_name(need->id) : "another", snapfmt_backend_name(b),
		has, has);
}

/*
 * What a snapshot of backend @b holds for the formats @bits: a backend
 * that writes none of them writes what it has (samples have no LLDB
 * bundle, whatever was asked; the command line refuses that beforehand).
 */
static unsigned int written_for(unsigned int bits, enum ptbpf_backend b)
{
	unsigned int v = snapwrite_formats_for(bits, b);

	return v ? v : snapwrite_formats_for(0, b);
}

uint64_t snapwrite_estimate(const struct snapshot *snap, unsigned int bits, uint64_t staged,
			    uint64_t block)
{
	unsigned int i, written = written_for(bits, snap->run.backend);
	/* ptbpf.json and the snapshot directory, a block each */
	uint64_t bytes = 2 * block;

	for (i = 0; i < snapwrite_nr_formats; i++)
		if (written & snapwrite_formats[i].bit)
			bytes += snapwrite_formats[i].estimate(snap, staged, block);
	/* the vDSO image: its bytes, in whole blocks */
	if (snapwrite_vdso_saved(snap) && block)
		bytes += (snap->run.vdso->len + block - 1) / block * block;
	return bytes;
}

bool snapwrite_vdso_saved(const struct snapshot *snap)
{
	unsigned int i;

	if (!snap->run.vdso || !snap->run.vdso->len)
		return false;
	if (snap->proc.vdso == SNAP_VDSO_NATIVE)
		return true;
	for (i = 0; i < snap->nr_more; i++)
		if (snap->more[i].vdso == SNAP_VDSO_NATIVE)
			return true;
	return false;
}

void snapwrite_contents(const struct snapshot *snap, unsigned int written,
			struct ptbpfjson_file *files, struct ptbpfjson_dir *dir)
{
	unsigned int i;

	for (i = 0; i < snapwrite_nr_formats; i++) {
		files[i].name = snapwrite_formats[i].name;
		files[i].written = written & snapwrite_formats[i].bit;
	}
	dir->files = files;
	dir->nr_files = snapwrite_nr_formats;
	dir->vdso = snapwrite_vdso_saved(snap);
}

/* ptbpf.json, last: its "files" says what is there, not what was asked. */
static int write_ptbpf_json(struct snapwrite_job *job, unsigned int written)
{
	struct ptbpfjson_file files[NR_FORMATS];
	struct ptbpfjson_dir dir;
	struct json j;

	snapwrite_contents(job->snap, written, files, &dir);
	json_init_dyn(&j);
	return write_json(job, SNAPFMT_PTBPF_JSON, &j, ptbpfjson_build(job->snap, &dir, &j));
}

/* The vDSO image, for every format: perf.data and trace.json alike. */
static int write_vdso(struct snapwrite_job *job)
{
	const struct vdso_image *v = job->snap->run.vdso;
	int fd = create(job, SNAPFMT_VDSO);

	if (fd < 0)
		return fd;
	return finish(job, fd, fileout_write_all(fd, v->data, v->len, NULL), SNAPFMT_VDSO);
}

static int write_all(struct snapwrite_job *job, unsigned int formats)
{
	unsigned int written = written_for(formats, job->snap->run.backend), i;
	int ret = 0;

	for (i = 0; i < snapwrite_nr_formats && !ret; i++)
		if (written & snapwrite_formats[i].bit)
			ret = snapwrite_formats[i].write(job);
	if (!ret && snapwrite_vdso_saved(job->snap))
		ret = write_vdso(job);
	if (!ret)
		ret = write_ptbpf_json(job, written);
	return ret;
}

/* Moves @tmp to @final, refusing to replace anything already there. */
static int publish(int outfd, const char *tmp, const char *final)
{
	if (renameat2(outfd, tmp, outfd, final, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* a filesystem without RENAME_NOREPLACE: check, then rename */
	if (faccessat(outfd, final, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(outfd, tmp, outfd, final) ? -errno : 0;
}

/*
 * Whether @name in @outfd is a temporary directory a run left when it died
 * mid-snapshot: our own name, a directory (a symlink is never followed or
 * taken). The output directory's lock says no live run writes there but
 * this one, so any such directory is stale.
 */
static bool stale_tmp(int outfd, const char *name)
{
	size_t len = strlen(name);
	struct stat st;
	char mid[64];

	/* "." SNAPFMT_NAME_FMT ".tmp": the name between is a snapshot's */
	if (name[0] != '.' || len < 6 || len - 5 >= sizeof(mid) || strcmp(name + len - 4, ".tmp"))
		return false;
	memcpy(mid, name + 1, len - 5);
	mid[len - 5] = '\0';
	if (!snapfmt_parse_name(mid))
		return false;
	return !fstatat(outfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode);
}

static int make_tmp(struct snapwrite_job *job, int outfd, const char *tmp)
{
	int ret;

	ret = mkdirat(outfd, tmp, 0700) ? -errno : 0;
	/* one a killed run left under this name goes first */
	if (ret == -EEXIST && stale_tmp(outfd, tmp) && !remove_tree(outfd, tmp))
		ret = mkdirat(outfd, tmp, 0700) ? -errno : 0;
	if (ret)
		return fail(job, ret, "%s/%s", job->opts->out_dir, tmp);
	job->made = true;
	job->dirfd = openat(outfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (job->dirfd < 0)
		return fail(job, -errno, "%s/%s", job->opts->out_dir, tmp);
	ret = chown_to_user(job->dirfd, job->opts);
	return ret ? fail(job, ret, "%s/%s: chown", job->opts->out_dir, tmp) : 0;
}

int snapwrite_snapshot(const struct snapshot *snap, const struct snapwrite_opts *opts, char *path,
		       size_t path_len, char *err, size_t err_len)
{
	struct snapwrite_job job = { snap, opts, -1, false, err, err_len };
	uint64_t id;
	char tmp[64], final[64];
	int outfd, ret;

	if (!snap || !opts || !opts->out_dir)
		return -EINVAL;
	/* a snapshot lost says why, never an empty reason */
	if (!snap->id || snap->id > SNAPFMT_ID_MAX) {
		if (err && err_len)
			snprintf(err, err_len,
				 "snapshot %" PRIu64 ": number outside 1 to %llu, the names' range",
				 snap->id, SNAPFMT_ID_MAX);
		return -EINVAL;
	}
	id = snap->id;
	snprintf(tmp, sizeof(tmp), TMP_FMT, id);
	snprintf(final, sizeof(final), FINAL_FMT, id);
	outfd = opts->dirfd >= 0 ?
			fcntl(opts->dirfd, F_DUPFD_CLOEXEC, 0) :
			open(opts->out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (outfd < 0)
		return fail(&job, -errno, "%s", opts->out_dir);
	if (faccessat(outfd, final, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		close(outfd);
		return fail(&job, -EEXIST, "%s/%s", opts->out_dir, final);
	}
	ret = make_tmp(&job, outfd, tmp);
	if (!ret)
		ret = write_all(&job, opts->formats);
	if (job.dirfd >= 0)
		close(job.dirfd);
	if (!ret) {
		ret = publish(outfd, tmp, final);
		if (ret)
			fail(&job, ret, "%s/%s", opts->out_dir, final);
	}
	if (ret && job.made)
		remove_tree(outfd, tmp);
	close(outfd);
	if (!ret && path && path_len &&
	    snprintf(path, path_len, "%s/%s", opts->out_dir, final) >= (int)path_len)
		return -ENAMETOOLONG; /* written, but never named cut */
	return ret;
}

int snapwrite_remove_stale(int outfd, uint64_t *bytes)
{
	uint64_t sum = 0;
	struct dirent *de;
	int fd, sub, removed = 0;
	DIR *d;

	if (bytes)
		*bytes = 0;
	if (outfd < 0)
		return -EBADF;
	fd = fcntl(outfd, F_DUPFD_CLOEXEC, 0);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (!stale_tmp(dirfd(d), de->d_name))
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			tree_bytes(sub, 2, &sum);
		if (!remove_tree(dirfd(d), de->d_name))
			removed++;
	}
	closedir(d);
	if (bytes)
		*bytes = sum;
	return removed;
}

static int cmp_desc(const void *pa, const void *pb)
{
	uint64_t left = *(const uint64_t *)pa;
	uint64_t right = *(const uint64_t *)pb;

	return left < right ? 1 : left > right ? -1 : 0;
}

/* Collects the ids of the snapshot directories in @d. */
static int list_ids(DIR *d, uint64_t **ids, size_t *n)
{
	uint64_t id, *p;
	struct dirent *de;
	size_t cap = 0;

	*ids = NULL;
	*n = 0;
	while ((de = readdir(d))) {
		id = snapfmt_parse_name(de->d_name);
		if (!id || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			p = reallocarray(*ids, cap, sizeof(*p));
			if (!p) {
				free(*ids);
				*ids = NULL;
				return -ENOMEM;
			}
			*ids = p;
		}
		(*ids)[(*n)++] = id;
	}
	qsort(*ids, *n, sizeof(**ids), cmp_desc);
	return 0;
}

int snapwrite_list(int outfd, uint64_t **ids, size_t *n)
{
	DIR *d;
	int fd, ret;

	if (outfd < 0 || !ids || !n)
		return -EINVAL;
	/* a descriptor of our own: closedir() closes it, rewind reads anew */
	fd = fcntl(outfd, F_DUPFD_CLOEXEC, 0);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	rewinddir(d);
	ret = list_ids(d, ids, n);
	closedir(d);
	return ret;
}

/*
 * Sums what the files and directories under directory @fd (closed here)
 * take on disk, as du(1) counts it: their blocks, not their apparent size
 * (a 100-byte file takes a 4 KiB block, a directory one too).
 */
static void tree_bytes(int fd, int depth, uint64_t *sum)
{
	struct dirent *de;
	struct stat st;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode))
			*sum += (uint64_t)st.st_blocks * 512;
		else if (S_ISDIR(st.st_mode) && depth > 0) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			*sum += (uint64_t)st.st_blocks * 512;
			if (sub >= 0)
				tree_bytes(sub, depth - 1, sum);
		}
	}
	closedir(d);
}

int snapwrite_size(int outfd, uint64_t id, uint64_t *bytes)
{
	char name[64];
	int fd;

	if (outfd < 0 || !bytes)
		return -EINVAL;
	snprintf(name, sizeof(name), FINAL_FMT, id);
	struct stat st;

	fd = openat(outfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the directory itself takes its blocks too */
	*bytes = fstat(fd, &st) ? 0 : (uint64_t)st.st_blocks * 512;
	tree_bytes(fd, 2, bytes);
	return 0;
}

int snapwrite_remove(int outfd, uint64_t id)
{
	char name[64];

	if (outfd < 0)
		return -EINVAL;
	snprintf(name, sizeof(name), FINAL_FMT, id);
	return remove_tree(outfd, name);
}
