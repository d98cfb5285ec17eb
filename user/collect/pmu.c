// SPDX-License-Identifier: GPL-2.0
/*
 * The intel_pt PMU: discovery from sysfs, its data event's attr, what a
 * decoder needs to know of it. See pmu.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "pmu.h"
#include "base/smallfile.h"

#define PT_DIR "bus/event_source/devices/intel_pt"

/* Parse all of @s as an unsigned number in @base. */
static int parse_u64(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int malformed(char *err, size_t errlen, const char *path, const char *text)
{
	return errbuf_set(err, errlen, -EINVAL, "malformed %s: \"%s\"", path, text);
}

int pmu_parse_format(const char *text, struct pmu_field *f)
{
	static const char *const words[] = { "config", "config1", "config2" };
	unsigned int lo, hi, w;
	const char *colon;
	int n = 0;

	if (!text || !f || !(colon = strchr(text, ':')))
		return -EINVAL;
	for (w = 0; w < 3; w++)
		if (strlen(words[w]) == (size_t)(colon - text) &&
		    !strncmp(text, words[w], colon - text))
			break;
	if (w == 3)
		return -EINVAL;
	if (sscanf(colon + 1, "%u-%u%n", &lo, &hi, &n) == 2) {
		/* "config:14-17" */
	} else if (sscanf(colon + 1, "%u%n", &lo, &n) == 1) {
		hi = lo;
	} else {
		return -EINVAL;
	}
	if (colon[1] < '0' || colon[1] > '9' ||
	    strspn(colon + 1 + n, "\n") != strlen(colon + 1 + n))
		return -EINVAL;
	if (lo > hi || hi > 63)
		return -EINVAL;
	f->word = w;
	f->lo = lo;
	f->hi = hi;
	return 0;
}

/* Call @fn for each plain entry of directory @dir. */
static int for_each_file(const char *dir,
			 int (*fn)(struct pmu_intel_pt *, const char *, const char *, char *,
				   size_t),
			 struct pmu_intel_pt *pmu, char *err, size_t errlen)
{
	char path[PMU_PATH_MAX + 64];
	struct dirent *de;
	int rc = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!rc && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			rc = -E2BIG;
		else
			rc = fn(pmu, de->d_name, path, err, errlen);
	}
	closedir(d);
	return rc;
}

static int add_format(struct pmu_intel_pt *pmu, const char *name, const char *path, char *err,
		      size_t errlen)
{
	struct pmu_field *f;
	char text[64];
	int rc;

	if (pmu->nr_formats == PMU_MAX_FORMATS || strlen(name) >= PMU_NAME_MAX)
		return -E2BIG;
	rc = smallfile_read(path, text, sizeof(text));
	if (rc < 0)
		return rc;
	f = &pmu->formats[pmu->nr_formats];
	if (pmu_parse_format(text, f))
		return malformed(err, errlen, path, text);
	strcpy(f->name, name);
	pmu->nr_formats++;
	return 0;
}

/* tsc_art_ratio is printed as "%u:%u" (CPUID 0x15 ebx:eax). */
static int parse_ratio(struct pmu_intel_pt *pmu, const char *path, const char *text, char *err,
		       size_t errlen)
{
	char tail;

	if (sscanf(text, "%u:%u%c", &pmu->tsc_art_n, &pmu->tsc_art_d, &tail) != 2)
		return malformed(err, errlen, path, text);
	return 0;
}

static int add_cap(struct pmu_intel_pt *pmu, const char *name, const char *path, char *err,
		   size_t errlen)
{
	struct pmu_cap *c;
	char text[64];
	int rc;

	if (pmu->nr_caps == PMU_MAX_CAPS || strlen(name) >= PMU_NAME_MAX)
		return -E2BIG;
	rc = smallfile_read(path, text, sizeof(text));
	if (rc < 0)
		return rc;
	c = &pmu->caps[pmu->nr_caps];
	if (!strcmp(name, "tsc_art_ratio"))
		return parse_ratio(pmu, path, text, err, errlen);
	if (!strcmp(name, "max_nonturbo_ratio")) {
		if (parse_u64(text, 10, &c->value) || c->value > UINT32_MAX)
			return malformed(err, errlen, path, text);
		pmu->max_nonturbo_ratio = (uint32_t)c->value;
		return 0;
	}
	/* The kernel prints every other intel_pt cap with "%x". */
	if (parse_u64(text, 16, &c->value))
		return malformed(err, errlen, path, text);
	strcpy(c->name, name);
	pmu->nr_caps++;
	return 0;
}

static int read_number(const char *dir, const char *file, uint64_t *v, char *err, size_t errlen)
{
	char path[PMU_PATH_MAX + 64], text[64];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	rc = smallfile_read(path, text, sizeof(text));
	if (rc < 0)
		return rc;
	if (parse_u64(text, 10, v))
		return malformed(err, errlen, path, text);
	return 0;
}

static int probe_files(struct pmu_intel_pt *pmu, char *err, size_t errlen)
{
	char dir[PMU_PATH_MAX + 16], text[64];
	uint64_t v;
	int rc;

	rc = read_number(pmu->path, "type", &v, err, errlen);
	if (rc == -ENOENT)
		return errbuf_set(err, errlen, rc, "no Intel PT PMU: %s/type not found", pmu->path);
	if (rc)
		return rc;
	if (v > UINT32_MAX)
		return malformed(err, errlen, "intel_pt/type", "(too big)");
	pmu->type = (__u32)v;
	/*
	 * The timing files sit next to `type` (the kernel's unnamed timing
	 * group); older trees had them under caps/, read below as well.
	 */
	rc = read_number(pmu->path, "max_nonturbo_ratio", &v, err, errlen);
	if (rc && rc != -ENOENT)
		return rc;
	pmu->max_nonturbo_ratio = rc ? 0 : (uint32_t)v;
	snprintf(dir, sizeof(dir), "%s/tsc_art_ratio", pmu->path);
	rc = smallfile_read(dir, text, sizeof(text));
	if (rc < 0 && rc != -ENOENT)
		return rc;
	if (rc >= 0 && parse_ratio(pmu, dir, text, err, errlen))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/format", pmu->path);
	rc = for_each_file(dir, add_format, pmu, err, errlen);
	if (rc)
		return rc;
	snprintf(dir, sizeof(dir), "%s/caps", pmu->path);
	return for_each_file(dir, add_cap, pmu, err, errlen);
}

int pmu_intel_pt_probe(const char *sysfs_root, struct pmu_intel_pt *pmu, char *err, size_t errlen)
{
	int rc;

	if (!pmu)
		return -EINVAL;
	memset(pmu, 0, sizeof(*pmu));
	if ((size_t)snprintf(pmu->path, sizeof(pmu->path), "%s/%s",
			     sysfs_root ? sysfs_root : "/sys", PT_DIR) >= sizeof(pmu->path))
		return -ENAMETOOLONG;
	if (access(pmu->path, F_OK))
		return errbuf_set(err, errlen, -errno, "no Intel PT PMU: %s not found", pmu->path);
	rc = probe_files(pmu, err, errlen);
	if (rc == -E2BIG)
		return errbuf_set(err, errlen, rc, "%s has more formats or caps than fit",
				  pmu->path);
	return rc;
}

const struct pmu_field *pmu_field(const struct pmu_intel_pt *pmu, const char *name)
{
	unsigned int i;

	if (!pmu || !name)
		return NULL;
	for (i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

int pmu_set_field(struct perf_event_attr *attr, const struct pmu_field *f, __u64 value)
{
	unsigned int width;
	__u64 mask, *word;

	if (!attr || !f || f->lo > f->hi || f->hi > 63 || f->word > 2)
		return -EINVAL;
	width = f->hi - f->lo + 1;
	mask = width == 64 ? ~0ULL : (1ULL << width) - 1;
	if (value & ~mask)
		return -ERANGE;
	word = f->word == 0 ? &attr->config : f->word == 1 ? &attr->config1 : &attr->config2;
	*word = (*word & ~(mask << f->lo)) | (value << f->lo);
	return 0;
}

int pmu_cap(const struct pmu_intel_pt *pmu, const char *name, uint64_t *value)
{
	unsigned int i;

	if (!pmu || !name || !value)
		return -EINVAL;
	for (i = 0; i < pmu->nr_caps; i++) {
		if (!strcmp(pmu->caps[i].name, name)) {
			*value = pmu->caps[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/* Set @name when the PMU has it; a missing optional format is fine. */
static int set_opt(const struct pmu_intel_pt *pmu, struct perf_event_attr *attr, const char *name,
		   __u64 v)
{
	const struct pmu_field *f = pmu_field(pmu, name);

	return f ? pmu_set_field(attr, f, v) : 0;
}

/*
 * From a bitmap of supported values (caps/psb_periods, mtc_periods): 3,
 * perf's default for both, when supported, else the smallest supported.
 */
static int pick_period(uint64_t bitmap)
{
	if (bitmap & (1u << 3))
		return 3;
	return bitmap ? __builtin_ctzll(bitmap) : -1;
}

static int set_periods(const struct pmu_intel_pt *pmu, struct perf_event_attr *attr,
		       size_t *psb_bytes)
{
	uint64_t cap, map;
	int p, rc = 0;

	/* PSBFreq n means a PSB every 2^(n+11) bytes; 0 is the default. */
	*psb_bytes = 1u << 11;
	if (!pmu_cap(pmu, "psb_cyc", &cap) && cap && !pmu_cap(pmu, "psb_periods", &map) &&
	    (p = pick_period(map)) >= 0 && pmu_field(pmu, "psb_period")) {
		rc = set_opt(pmu, attr, "psb_period", p);
		*psb_bytes = (size_t)1 << (p + 11);
	}
	if (!rc && !pmu_cap(pmu, "mtc", &cap) && cap && !pmu_cap(pmu, "mtc_periods", &map) &&
	    (p = pick_period(map)) >= 0 && pmu_field(pmu, "mtc") && pmu_field(pmu, "mtc_period")) {
		rc = set_opt(pmu, attr, "mtc", 1);
		if (!rc)
			rc = set_opt(pmu, attr, "mtc_period", p);
	}
	return rc;
}

int pmu_intel_pt_attr(const struct pmu_intel_pt *pmu, bool kernel, bool disabled,
		      struct perf_event_attr *attr, size_t *psb_bytes, char *err, size_t errlen)
{
	static const char *const needed[] = { "pt", "tsc" };
	size_t psb;
	unsigned int i;
	int rc = 0;

	if (!pmu || !attr)
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pmu->type;
	for (i = 0; i < 2 && !rc; i++) {
		/* pt: use config as given; tsc: threads are split by time. */
		if (!pmu_field(pmu, needed[i]))
			return errbuf_set(err, errlen, -EINVAL,
					  "%s/format/%s not found: this intel_pt PMU is not usable",
					  pmu->path, needed[i]);
		rc = set_opt(pmu, attr, needed[i], 1);
	}
	if (!rc)
		rc = set_opt(pmu, attr, "branch", 1);
	if (!rc)
		rc = set_periods(pmu, attr, &psb);
	if (rc)
		return rc;
	attr->exclude_kernel = !kernel;
	attr->exclude_hv = 1;
	attr->disabled = disabled;
	/*
	 * The event's own records (ITRACE_START, AUX, LOST) carry who, when
	 * and where, as the sideband's do: they are put in time order with
	 * the switches, and perf takes the CPU of ITRACE_START from them.
	 */
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CPU;
	if (psb_bytes)
		*psb_bytes = psb;
	return 0;
}

/* Read back the bits of @name from @attr's config words; 0 when absent. */
static __u64 get_field(const struct pmu_intel_pt *pmu, const struct perf_event_attr *attr,
		       const char *name)
{
	const struct pmu_field *f = pmu_field(pmu, name);
	unsigned int width;
	__u64 word;

	if (!f)
		return 0;
	word = f->word == 0 ? attr->config : f->word == 1 ? attr->config1 : attr->config2;
	width = f->hi - f->lo + 1;
	return (word >> f->lo) & (width == 64 ? ~0ULL : (1ULL << width) - 1);
}

/* The mask of attr.config that format field @name covers; 0 if elsewhere. */
static __u64 config_mask(const struct pmu_intel_pt *pmu, const char *name)
{
	const struct pmu_field *f = pmu_field(pmu, name);
	unsigned int width;

	if (!f || f->word != 0 || f->hi < f->lo || f->hi > 63)
		return 0;
	width = f->hi - f->lo + 1;
	return (width == 64 ? ~0ULL : ((1ULL << width) - 1)) << f->lo;
}

int pmu_cpu_info(const struct pmu_intel_pt *pmu, const struct perf_event_attr *attr,
		 struct snap_cpu_info *info)
{
	if (!pmu || !attr || !info)
		return -EINVAL;
	info->pt_tsc_mask = config_mask(pmu, "tsc");
	info->pt_noretcomp_mask = config_mask(pmu, "noretcomp");
	info->pt_mtc_mask = config_mask(pmu, "mtc");
	info->pt_mtc_period_mask = config_mask(pmu, "mtc_period");
	info->pt_cyc_mask = config_mask(pmu, "cyc");
	/* tsc_art_ratio is CPUID 0x15: TSC/ART = ebx/eax, which CTC runs on. */
	info->tsc_ctc_ratio_n = pmu->tsc_art_n;
	info->tsc_ctc_ratio_d = pmu->tsc_art_d;
	info->max_nonturbo_ratio = pmu->max_nonturbo_ratio;
	info->mtc = get_field(pmu, attr, "mtc") != 0;
	info->mtc_freq = info->mtc ? (uint32_t)get_field(pmu, attr, "mtc_period") : 0;
	return 0;
}
