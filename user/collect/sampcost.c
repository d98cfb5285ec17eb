// SPDX-License-Identifier: GPL-2.0
/*
 * The per-sample cost calibration. See sampcost.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "base/clock.h"
#include "base/errbuf.h"
#include "sampcost.h"

#define PAIRS 15 /* odd: the median is one pair's; at most SAMPCOST_MAX_PAIRS */
#define RING_PAGES 16 /* overwritten backwards: any size holds the newest */
#define FIRST_HZ 4000
#define LOUD_HZ 20000 /* the second phase's rate at most */

struct calib {
	struct perf_event_attr attr;
	int cpu;
	unsigned int max_hz;
	uint64_t spin_ns;
	struct sampcost out;
	int rc;
	char err[160];
};

static volatile unsigned long calib_sink;

static __attribute__((noinline)) void spin(unsigned long n)
{
	unsigned long h = 5381;

	for (unsigned long i = 0; i < n; i++)
		h = (h * 33) ^ (h >> 7) ^ i;
	calib_sink = h;
}

/* This thread's run_delay (ns waited on a run queue), -1 when unknown. */
static int64_t run_delay(int fd)
{
	uint64_t run, delay;
	char buf[128];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%" SCNu64 " %" SCNu64, &run, &delay) == 2 ? (int64_t)delay : -1;
}

/*
 * One spin of @n rounds: its time on the CPU (interrupts included). The
 * clock brackets the run_delay reads: a wait ends (and is added) while the
 * thread is back on its CPU, so every wait between the reads lies within
 * the clock's span, and none is taken out twice.
 */
static int timed_spin(int sfd, unsigned long n, uint64_t *ns)
{
	uint64_t t0 = clock_now_ns(), t1;
	int64_t d0 = run_delay(sfd), d1;

	spin(n);
	d1 = run_delay(sfd);
	t1 = clock_now_ns();
	if (d0 < 0 || d1 < d0)
		return -EIO;
	*ns = t1 - t0 > (uint64_t)(d1 - d0) ? t1 - t0 - (uint64_t)(d1 - d0) : 0;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

void sampcost_from_pairs(const uint64_t *plain, const uint64_t *sampled, const uint64_t *taken,
			 unsigned int n, struct sampcost *out)
{
	int64_t per[SAMPCOST_MAX_PAIRS], p[SAMPCOST_MAX_PAIRS], s[SAMPCOST_MAX_PAIRS],
		t[SAMPCOST_MAX_PAIRS], cost;
	unsigned int i;

	if (!out)
		return;
	n = n > SAMPCOST_MAX_PAIRS ? SAMPCOST_MAX_PAIRS : n;
	out->reps = n;
	if (!n || !plain || !sampled || !taken) {
		out->plain_ns = out->sampled_ns = out->samples = out->sample_ns = 0;
		return;
	}
	for (i = 0; i < n; i++) {
		/* a pair with no sample says nothing of a sample's cost */
		per[i] = taken[i] ? ((int64_t)sampled[i] - (int64_t)plain[i]) / (int64_t)taken[i] :
				    0;
		p[i] = (int64_t)plain[i];
		s[i] = (int64_t)sampled[i];
		t[i] = (int64_t)taken[i];
	}
	out->plain_ns = (uint64_t)median(p, n);
	out->sampled_ns = (uint64_t)median(s, n);
	out->samples = (uint64_t)median(t, n);
	cost = median(per, n);
	/* quicker with samples than without is noise: a sample costs no less than 0 */
	out->sample_ns = cost > 0 ? (uint64_t)cost : 0;
}

uint64_t sampcost_spin_ns(unsigned int hz, uint64_t spin_ns)
{
	uint64_t need;

	if (!hz)
		return 0;
	spin_ns = spin_ns ? spin_ns : 5000000ULL;
	need = (SAMPCOST_MIN_SAMPLES * 1000000000ULL + hz - 1) / hz;
	if (need > SAMPCOST_MAX_SPIN_MS * 1000000ULL)
		return 0;
	return need > spin_ns ? need : spin_ns;
}

/*
 * One spin of each kind, in the order @sampled_first says, @fd enabled for
 * the sampled one: their times and the samples the timer took.
 */
static int one_pair(int sfd, int fd, unsigned long rounds, __u64 period, bool sampled_first,
		    uint64_t *plain, uint64_t *sampled, uint64_t *taken)
{
	__u64 c0, c1; /* the counter, as read(2) gives it */
	int rc = 0;

	if (!sampled_first)
		rc = timed_spin(sfd, rounds, plain);
	if (!rc && (read(fd, &c0, sizeof(c0)) != sizeof(c0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)))
		rc = -errno;
	if (!rc)
		rc = timed_spin(sfd, rounds, sampled);
	if (!rc &&
	    (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) || read(fd, &c1, sizeof(c1)) != sizeof(c1)))
		rc = -errno;
	if (!rc && sampled_first)
		rc = timed_spin(sfd, rounds, plain);
	/* the timer fires once a period of the event's own time */
	*taken = rc ? 0 : (c1 - c0) / period;
	return rc;
}

/*
 * One phase at @hz: PAIRS pairs of a plain and a sampled spin, each pair
 * side by side (in turn which first, so that a drift favours neither).
 * Each pair gives a cost a sample; the median of those is the cost. A
 * pair is its own baseline: a hypervisor's steal or a cold cache that
 * lengthens one spin moves one pair's figure, not the median, where a
 * floor taken over each kind apart came out at half the cost a long run
 * pays.
 */
static int phase(struct calib *k, int sfd, unsigned long rounds, unsigned int hz)
{
	uint64_t plain[PAIRS], sampled[PAIRS], taken[PAIRS];
	__u64 period = 1000000000ULL / hz; /* attr.sample_period */
	struct perf_event_attr a = k->attr;
	size_t len = (RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	unsigned int i;
	void *ring;
	int fd, rc = 0;

	a.freq = 0;
	a.sample_period = period;
	a.disabled = 1;
	a.inherit = a.inherit_thread = a.enable_on_exec = 0;
	fd = syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errbuf_set(k->err, sizeof(k->err), -errno, "calibration event: %s",
				  strerror(errno));
	/* write_backward: a read-only ring the kernel overwrites */
	ring = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		rc = errbuf_set(k->err, sizeof(k->err), -errno, "calibration ring: %s",
				strerror(errno));
		close(fd);
		return rc;
	}
	for (i = 0; i < PAIRS && !rc; i++)
		rc = one_pair(sfd, fd, rounds, period, i & 1, &plain[i], &sampled[i], &taken[i]);
	munmap(ring, len);
	close(fd);
	if (rc)
		return errbuf_set(k->err, sizeof(k->err), rc, "calibration spin: %s",
				  strerror(-rc));
	sampcost_from_pairs(plain, sampled, taken, PAIRS, &k->out);
	k->out.hz = hz;
	return 0;
}

/* Rounds of spin() that take about @ns here (the least of 3 tries). */
static unsigned long rounds_for(int sfd, uint64_t ns)
{
	unsigned long n = 100000;
	uint64_t t, best;
	int i;

	for (;;) {
		best = ~0ULL;
		for (i = 0; i < 3; i++)
			if (!timed_spin(sfd, n, &t) && t && t < best)
				best = t;
		if ((best != ~0ULL && best >= 1000000) || n > (1UL << 40))
			break;
		n *= 4;
	}
	return best != ~0ULL ? (unsigned long)((double)n * ns / best) : n;
}

static void *calib_main(void *arg)
{
	struct calib *k = arg;
	unsigned long rounds;
	unsigned int hz;
	char path[64];
	int sfd;

	if (k->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(k->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			k->rc = errbuf_set(k->err, sizeof(k->err), -errno,
					   "calibration on cpu %d: %s", k->cpu, strerror(errno));
			return NULL;
		}
	}
	snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	sfd = open(path, O_RDONLY | O_CLOEXEC);
	if (sfd < 0) {
		k->rc = errbuf_set(k->err, sizeof(k->err), -errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	hz = k->max_hz < FIRST_HZ ? k->max_hz : FIRST_HZ;
	/* a capped rate: spins long enough to take samples, or no figure at all */
	k->spin_ns = sampcost_spin_ns(hz, k->spin_ns);
	if (!k->spin_ns) {
		k->rc = errbuf_set(k->err, sizeof(k->err), -ERANGE,
				   "%u Hz takes too few samples to measure", hz);
		close(sfd);
		return NULL;
	}
	rounds = rounds_for(sfd, k->spin_ns);
	k->rc = phase(k, sfd, rounds, hz);
	/*
	 * Under 5 % at the first rate: sample faster, to about 10 %, so that
	 * a small cost stands out of the spin's own variation.
	 */
	if (!k->rc && k->out.sample_ns * k->out.samples * 20 < k->out.plain_ns && hz < k->max_hz) {
		double per = k->out.sample_ns ? (double)k->out.sample_ns : 500.0;
		double want = 0.10 * 1e9 / per;

		hz = want > LOUD_HZ ? LOUD_HZ : (unsigned int)want;
		if (hz > k->max_hz)
			hz = k->max_hz;
		if (hz > FIRST_HZ)
			k->rc = phase(k, sfd, rounds, hz);
	}
	close(sfd);
	return NULL;
}

struct sampcost_job {
	struct calib k;
	pthread_t th;
	uint64_t t0;
};

struct sampcost_job *sampcost_start(const struct perf_event_attr *attr, int cpu,
				    unsigned int max_hz, unsigned int spin_ms)
{
	struct sampcost_job *job;
	int rc;

	if (!attr || !max_hz) {
		errno = EINVAL;
		return NULL;
	}
	job = calloc(1, sizeof(*job));
	if (!job)
		return NULL;
	job->t0 = clock_now_ns();
	job->k.attr = *attr;
	job->k.cpu = cpu;
	job->k.max_hz = max_hz;
	job->k.spin_ns = (spin_ms ? spin_ms : 5) * 1000000ULL;
	/* a thread of its own: pinned, and its event bound to it alone */
	rc = pthread_create(&job->th, NULL, calib_main, &job->k);
	if (rc) {
		free(job);
		errno = rc;
		return NULL;
	}
	return job;
}

int sampcost_wait(struct sampcost_job *job, struct sampcost *out, char *err, size_t errlen)
{
	int rc;

	if (!job || !out)
		return -EINVAL;
	pthread_join(job->th, NULL);
	rc = job->k.rc;
	if (rc)
		errbuf_set(err, errlen, rc, "%s", job->k.err);
	else
		*out = job->k.out;
	out->took_ns = clock_now_ns() - job->t0;
	free(job);
	return rc;
}

int sampcost_measure(const struct perf_event_attr *attr, int cpu, unsigned int max_hz,
		     unsigned int spin_ms, struct sampcost *out, char *err, size_t errlen)
{
	struct sampcost_job *job;

	if (!attr || !out || !max_hz)
		return -EINVAL;
	job = sampcost_start(attr, cpu, max_hz, spin_ms);
	if (!job)
		return errbuf_set(err, errlen, -errno, "calibration thread: %s", strerror(errno));
	return sampcost_wait(job, out, err, errlen);
}
