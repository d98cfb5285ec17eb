// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline as a Perfetto trace: a protobuf Trace, i.e. a run of
 * "repeated TracePacket packet = 1" fields, each written as soon as it is
 * made. See tlout.h for what is drawn, tests/perfetto_trace.proto for the
 * part of upstream's schema used here (the field numbers below are
 * upstream's, protos/perfetto/trace/).
 *
 * Why this format and not only the JSON one: Perfetto reads its own
 * format natively; slices that begin at one timestamp (many calls within
 * one Intel PT timing packet) keep the order they were written in on
 * their sequence, and the file is several times smaller (names interned).
 *
 * Each track is described once (TrackDescriptor: a process, a thread with
 * its process as parent, a CPU under one "CPUs" track, a counter), before
 * its first event. Events go on sequences (trusted_packet_sequence_id,
 * one for the facts and one per core, each in time order): the first
 * packet of a sequence clears its incremental state and defines the
 * sequence's own incremental clock (id 64, sequence-scoped): a
 * ClockSnapshot pairs it with CLOCK_MONOTONIC (perf's clock on x86) at the
 * sequence's first event, and TracePacketDefaults makes it the clock of
 * every packet on the sequence, so each event's timestamp is the ns since
 * the one before (a byte or two where Intel PT gives many events per
 * timing packet, not eight). An event earlier than the last on its
 * sequence (the next snapshot's, or a fact out of order) names
 * CLOCK_MONOTONIC itself and its absolute time, leaving the incremental
 * clock where it was. Every event name is interned on its sequence
 * (InternedData.event_names) the first time it is used there. Another
 * ClockSnapshot pairs CLOCK_MONOTONIC with CLOCK_REALTIME so the UI shows
 * times of day.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pbuf.h"
#include "tlout.h"

/* Trace, TracePacket */
#define F_TRACE_PACKET 1
#define F_PKT_TIMESTAMP 8
#define F_PKT_CLOCK_ID 58
#define F_PKT_SEQ_ID 10
#define F_PKT_TRACK_EVENT 11
#define F_PKT_INTERNED 12
#define F_PKT_SEQ_FLAGS 13
#define F_PKT_CLOCK_SNAPSHOT 6
#define F_PKT_DEFAULTS 59
#define F_PKT_TRACK_DESC 60
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE 2
/* TracePacketDefaults */
#define F_DEF_CLOCK_ID 58
/* ClockSnapshot, ClockSnapshot.Clock, BuiltinClock */
#define F_CS_CLOCKS 1
#define F_CS_PRIMARY 2
#define F_CLK_ID 1
#define F_CLK_TS 2
#define F_CLK_INCREMENTAL 3
#define CLOCK_REALTIME_ID 1
#define CLOCK_MONOTONIC_ID 3
/* the first of the user-defined, sequence-scoped clock ids */
#define CLOCK_SEQ_ID 64
/* TrackDescriptor, ProcessDescriptor, ThreadDescriptor, CounterDescriptor */
#define F_TD_UUID 1
#define F_TD_NAME 2
#define F_TD_PROCESS 3
#define F_TD_THREAD 4
#define F_TD_PARENT 5
#define F_TD_COUNTER 8
#define F_PD_PID 1
#define F_PD_NAME 6
#define F_THD_PID 1
#define F_THD_TID 2
#define F_THD_NAME 5
#define F_CD_UNIT 3
#define UNIT_SIZE_BYTES 3
/* TrackEvent */
#define F_TE_ANNOT 4
#define F_TE_TYPE 9
#define F_TE_NAME_IID 10
#define F_TE_TRACK 11
#define F_TE_COUNTER 30
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define TYPE_INSTANT 3
#define TYPE_COUNTER 4
/* InternedData, EventName */
#define F_ID_EVENT_NAMES 2
#define F_EN_IID 1
#define F_EN_NAME 2
/* DebugAnnotation */
#define F_DA_BOOL 2
#define F_DA_UINT 3
#define F_DA_INT 4
#define F_DA_DOUBLE 5
#define F_DA_STRING 6
#define F_DA_NAME 10

/* A set of strings (interned names) or of numbers (described tracks). */
struct hset {
	struct hent {
		uint64_t key; /* a track's uuid, or the string's hash */
		char *str; /* NULL: a number */
		uint64_t val;
	} * v;
	size_t n, cap; /* cap: a power of two, or 0 */
};

/* Names met last on a sequence, by where they are: see name_iid(). */
#define NAME_CACHE 64

struct seq {
	bool started;
	uint64_t clock; /* the incremental clock's time: of its last event */
	struct hset names; /* name → iid */
	uint64_t next_iid;
	struct {
		const char *at; /* the caller's pointer */
		const char *str; /* the interned copy (names' own) */
		uint64_t iid;
		uint64_t epoch; /* names_epoch + 1 of a begin_call's name, else 0 */
	} cache[NAME_CACHE];
};

struct tlpf {
	struct pbuf p; /* the packets made, not yet written */
	size_t pk, pk_start; /* the open packet: its body, its field */
	bool pk_open;
	uint64_t last_key, last_uuid; /* the track of the last event */
	struct hset tracks; /* uuids described */
	struct seq *seqs[TL_SEQS];
	unsigned int cur; /* sequence of the next events */
	bool failed; /* out of memory: the file is incomplete */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h | 1; /* never 0: 0 marks a free slot */
}

/* The entry for @key (and @str), or the free slot where it would go. */
static struct hent *hset_slot(struct hset *h, uint64_t key, const char *str)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ULL >> 7) & (h->cap - 1);

	for (;; i = (i + 1) & (h->cap - 1)) {
		struct hent *e = &h->v[i];

		if (!e->key || (e->key == key && (!str || !strcmp(e->str, str))))
			return e;
	}
}

static int hset_grow(struct hset *h)
{
	struct hset bigger = { 0 };
	size_t i;

	if (h->cap && (h->n + 1) * 2 <= h->cap)
		return 0;
	bigger.cap = h->cap ? h->cap * 2 : 64;
	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return -ENOMEM;
	for (i = 0; i < h->cap; i++)
		if (h->v[i].key)
			*hset_slot(&bigger, h->v[i].key, h->v[i].str) = h->v[i];
	bigger.n = h->n;
	free(h->v);
	*h = bigger;
	return 0;
}

/* Finds @key/@str; adds it (with @val) when missing. Returns the entry,
 * *@added saying which; NULL when out of memory. */
static struct hent *hset_get(struct hset *h, uint64_t key, const char *str, uint64_t val,
			     bool *added)
{
	struct hent *e;

	*added = false;
	if (hset_grow(h))
		return NULL;
	e = hset_slot(h, key, str);
	if (e->key)
		return e;
	e->str = NULL;
	if (str) {
		e->str = strdup(str);
		if (!e->str)
			return NULL;
	}
	e->key = key;
	e->val = val;
	h->n++;
	*added = true;
	return e;
}

static void hset_free(struct hset *h)
{
	size_t i;

	for (i = 0; i < h->cap; i++)
		free(h->v[i].str);
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* Which track @t is, as a key of the set of tracks described. */
static uint64_t key(const struct tl_track *t)
{
	return (uint64_t)(t->kind + 1) << 56 | (uint64_t)t->pid << 24 | t->id;
}

/* The root of the CPU tracks. */
#define CPUS_KEY ((uint64_t)(TL_CPU + 1) << 56 | 0xffffff)

static struct tlpf *st(struct tl_writer *w)
{
	return w->priv;
}

/*
 * The uuid of the track described for @k: numbered from 1 in the order
 * they were described, so each event names its track in a byte or two.
 */
static uint64_t uuid(struct tl_writer *w, uint64_t k)
{
	struct tlpf *s = st(w);
	struct hent *e;

	if (!s->tracks.cap)
		return 0;
	e = hset_slot(&s->tracks, k, NULL);
	return e->key ? e->val : 0;
}

/*
 * Packets are made in place in the output buffer, each a Trace.packet
 * field (its length set when it closes), and the buffer goes to the file
 * a megabyte at a time: no copy, no stdio call per packet.
 */
#define OUT_CHUNK (1u << 20)

static void packet_open(struct tl_writer *w)
{
	struct tlpf *s = st(w);

	s->pk_start = s->p.len;
	s->pk = pbuf_begin(&s->p, F_TRACE_PACKET);
	s->pk_open = true;
}

/* Writes out what the buffer holds. */
static void drain(struct tl_writer *w)
{
	struct tlpf *s = st(w);

	if (s->p.len)
		fwrite_unlocked(s->p.b, 1, s->p.len, w->out);
	pbuf_reset(&s->p);
}

static void packet_close(struct tl_writer *w)
{
	struct tlpf *s = st(w);

	s->pk_open = false;
	if (s->p.nomem) {
		s->failed = true;
		s->p.nomem = false;
		s->p.len = s->pk_start; /* that packet is lost */
		return;
	}
	pbuf_end(&s->p, s->pk);
	w->nr_events++;
	if (s->p.len >= OUT_CHUNK)
		drain(w);
}

/* A packet left unmade (out of memory before its body). */
static void packet_drop(struct tl_writer *w)
{
	struct tlpf *s = st(w);

	if (s->pk_open)
		s->p.len = s->pk_start;
	s->pk_open = false;
	s->p.nomem = false;
}

/*
 * The sequence of the next events, its first packet written when @ns is
 * its first event's time: the incremental state cleared, the sequence's
 * clock defined at @ns and made the default.
 */
static struct seq *cur_seq(struct tl_writer *w, uint64_t ns)
{
	struct tlpf *s = st(w);
	struct seq *q = s->seqs[s->cur];
	size_t at, c;

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q) {
			s->failed = true;
			return NULL;
		}
		q->next_iid = 1;
		s->seqs[s->cur] = q;
	}
	if (!q->started) {
		packet_open(w);
		pbuf_varint(&s->p, F_PKT_SEQ_ID, s->cur + 1);
		pbuf_varint(&s->p, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		at = pbuf_begin(&s->p, F_PKT_CLOCK_SNAPSHOT);
		c = pbuf_begin(&s->p, F_CS_CLOCKS);
		pbuf_varint(&s->p, F_CLK_ID, CLOCK_SEQ_ID);
		pbuf_varint(&s->p, F_CLK_TS, ns);
		pbuf_varint(&s->p, F_CLK_INCREMENTAL, 1);
		pbuf_end(&s->p, c);
		c = pbuf_begin(&s->p, F_CS_CLOCKS);
		pbuf_varint(&s->p, F_CLK_ID, CLOCK_MONOTONIC_ID);
		pbuf_varint(&s->p, F_CLK_TS, ns);
		pbuf_end(&s->p, c);
		pbuf_varint(&s->p, F_CS_PRIMARY, CLOCK_MONOTONIC_ID);
		pbuf_end(&s->p, at);
		at = pbuf_begin(&s->p, F_PKT_DEFAULTS);
		pbuf_varint(&s->p, F_DEF_CLOCK_ID, CLOCK_SEQ_ID);
		pbuf_end(&s->p, at);
		packet_close(w);
		q->started = true;
		q->clock = ns;
	}
	return q;
}

/*
 * Starts a TrackDescriptor packet for @id, unless one was written and
 * @again is false (a name given again: the new descriptor replaces the
 * first, as Perfetto's SDK re-emits its own).
 */
static bool describe_start(struct tl_writer *w, uint64_t id, size_t *at, bool again)
{
	struct tlpf *s = st(w);
	struct hent *e;
	bool added;

	e = hset_get(&s->tracks, id, NULL, s->tracks.n + 1, &added);
	if (!e) {
		s->failed = true;
		return false;
	}
	if (!added && !again)
		return false;
	packet_open(w);
	pbuf_varint(&s->p, F_PKT_SEQ_ID, s->cur + 1);
	*at = pbuf_begin(&s->p, F_PKT_TRACK_DESC);
	pbuf_varint(&s->p, F_TD_UUID, e->val);
	return true;
}

static void describe_end(struct tl_writer *w, size_t at)
{
	pbuf_end(&st(w)->p, at);
	packet_close(w);
}

static void process_desc(struct tl_writer *w, uint32_t pid, const char *name, bool again)
{
	struct tl_track t = { TL_PROCESS, pid, 0 };
	struct tlpf *s = st(w);
	size_t at, pd;

	if (!describe_start(w, key(&t), &at, again))
		return;
	pd = pbuf_begin(&s->p, F_TD_PROCESS);
	pbuf_varint(&s->p, F_PD_PID, pid);
	if (name && *name)
		pbuf_str(&s->p, F_PD_NAME, name);
	pbuf_end(&s->p, pd);
	describe_end(w, at);
}

static void thread_desc(struct tl_writer *w, uint32_t pid, uint32_t tid, const char *name,
			bool again)
{
	struct tl_track p = { TL_PROCESS, pid, 0 }, t = { TL_THREAD, pid, tid };
	struct tlpf *s = st(w);
	size_t at, td;

	process_desc(w, pid, NULL, false);
	if (!describe_start(w, key(&t), &at, again))
		return;
	pbuf_varint(&s->p, F_TD_PARENT, uuid(w, key(&p)));
	td = pbuf_begin(&s->p, F_TD_THREAD);
	pbuf_varint(&s->p, F_THD_PID, pid);
	pbuf_varint(&s->p, F_THD_TID, tid);
	if (name && *name)
		pbuf_str(&s->p, F_THD_NAME, name);
	pbuf_end(&s->p, td);
	describe_end(w, at);
}

/* Track @t described before its first event. */
static void need_track(struct tl_writer *w, const struct tl_track *t)
{
	struct tl_track p = { TL_PROCESS, t->pid, 0 };
	struct tlpf *s = st(w);
	char name[48];
	size_t at, cd;

	if (t->kind == TL_THREAD) {
		thread_desc(w, t->pid, t->id, NULL, false);
	} else if (t->kind == TL_PROCESS) {
		process_desc(w, t->pid, NULL, false);
	} else if (t->kind == TL_CPU) {
		if (describe_start(w, CPUS_KEY, &at, false)) {
			pbuf_str(&s->p, F_TD_NAME, "CPUs: the traced tasks");
			describe_end(w, at);
		}
		if (describe_start(w, key(t), &at, false)) {
			pbuf_varint(&s->p, F_TD_PARENT, uuid(w, CPUS_KEY));
			snprintf(name, sizeof(name), "cpu %u", t->id);
			pbuf_str(&s->p, F_TD_NAME, name);
			describe_end(w, at);
		}
	} else {
		process_desc(w, t->pid, NULL, false);
		if (describe_start(w, key(t), &at, false)) {
			pbuf_varint(&s->p, F_TD_PARENT, uuid(w, key(&p)));
			pbuf_str(&s->p, F_TD_NAME, tl_counter_name(t, name, sizeof(name)));
			cd = pbuf_begin(&s->p, F_TD_COUNTER);
			pbuf_varint(&s->p, F_CD_UNIT, UNIT_SIZE_BYTES);
			pbuf_end(&s->p, cd);
			describe_end(w, at);
		}
	}
}

/*
 * The iid of @name on sequence @q, *@added when it is new there (to be
 * interned in this packet); 0 when out of memory. Names come again and
 * again from the same few places (a symbol table's strings): by the
 * caller's pointer first, before the hash. @epoch is names_epoch + 1 for a
 * begin_call's name, whose address alone says it while the epoch lasts;
 * 0 for any other, whose text is compared to be sure (a caller's buffer
 * holds another name at the next call).
 */
static uint64_t name_iid(struct tlpf *s, struct seq *q, const char *name, uint64_t epoch,
			 bool *added)
{
	unsigned int h = (unsigned int)((uintptr_t)name >> 3 ^ (uintptr_t)name >> 9) % NAME_CACHE;
	struct hent *e;

	*added = false;
	if (q->cache[h].at == name &&
	    ((epoch && q->cache[h].epoch == epoch) || !strcmp(q->cache[h].str, name))) {
		q->cache[h].epoch = epoch;
		return q->cache[h].iid;
	}
	e = hset_get(&q->names, hash_str(name), name, q->next_iid, added);
	if (!e) {
		s->failed = true;
		return 0;
	}
	q->cache[h].at = name;
	q->cache[h].str = e->str;
	q->cache[h].iid = e->val;
	q->cache[h].epoch = epoch;
	return e->val;
}

/* Room for an event's head: the packet's, its fields', the event's. */
#define EVENT_HEAD 64

/* Starts an event packet on the current sequence: its name's iid, the
 * name interned in this packet when new there; 0 for no name. @epoch: see
 * name_iid(). */
static size_t event_start(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			  const char *name, uint64_t epoch, unsigned int type)
{
	struct tlpf *s = st(w);
	bool added = false;
	uint64_t iid = 0;
	struct seq *q;
	uint64_t k = key(t);
	size_t at, in;
	uint8_t *d;

	/* most events are on the track of the one before */
	if (k != s->last_key) {
		need_track(w, t);
		s->last_key = k;
		s->last_uuid = uuid(w, k);
	}
	q = cur_seq(w, ns);
	if (!q)
		return 0;
	if (name) {
		iid = name_iid(s, q, name, epoch, &added);
		if (!iid)
			return 0;
	}
	packet_open(w);
	if (!pbuf_room(&s->p, EVENT_HEAD))
		return 0;
	/* the fixed fields at once: one check for room, not one a field */
	d = s->p.b + s->p.len;
	if (ns >= q->clock) {
		*d++ = F_PKT_TIMESTAMP << 3;
		d = pbuf_put_varint(d, ns - q->clock);
		q->clock = ns;
	} else {
		/* back in time: absolute, on the clock the sequence's is */
		*d++ = F_PKT_TIMESTAMP << 3;
		d = pbuf_put_varint(d, ns);
		d = pbuf_put_varint(d, F_PKT_CLOCK_ID << 3);
		d = pbuf_put_varint(d, CLOCK_MONOTONIC_ID);
	}
	*d++ = F_PKT_SEQ_ID << 3;
	d = pbuf_put_varint(d, s->cur + 1);
	*d++ = F_PKT_SEQ_FLAGS << 3;
	*d++ = SEQ_NEEDS_INCREMENTAL_STATE;
	s->p.len = (size_t)(d - s->p.b);
	if (added) {
		q->next_iid++;
		at = pbuf_begin(&s->p, F_PKT_INTERNED);
		in = pbuf_begin(&s->p, F_ID_EVENT_NAMES);
		pbuf_varint(&s->p, F_EN_IID, iid);
		pbuf_str(&s->p, F_EN_NAME, name);
		pbuf_end(&s->p, in);
		pbuf_end(&s->p, at);
		if (!pbuf_room(&s->p, EVENT_HEAD))
			return 0;
	}
	at = pbuf_begin(&s->p, F_PKT_TRACK_EVENT);
	d = s->p.b + s->p.len;
	*d++ = F_TE_TYPE << 3;
	*d++ = (uint8_t)type;
	*d++ = F_TE_TRACK << 3;
	d = pbuf_put_varint(d, s->last_uuid);
	if (iid) {
		*d++ = F_TE_NAME_IID << 3;
		d = pbuf_put_varint(d, iid);
	}
	s->p.len = (size_t)(d - s->p.b);
	return at;
}

static void event_end(struct tl_writer *w, size_t at)
{
	if (!at) {
		packet_drop(w);
		return;
	}
	pbuf_end(&st(w)->p, at);
	packet_close(w);
}

static void annotations(struct pbuf *p, const struct tl_arg *a, size_t n)
{
	size_t i, at;

	for (i = 0; i < n; i++) {
		at = pbuf_begin(p, F_TE_ANNOT);
		pbuf_str(p, F_DA_NAME, a[i].key);
		if (a[i].type == TLA_STR)
			pbuf_bytes(p, F_DA_STRING, a[i].s, a[i].len);
		else if (a[i].type == TLA_U64)
			pbuf_varint(p, F_DA_UINT, a[i].u);
		else if (a[i].type == TLA_I64)
			pbuf_varint(p, F_DA_INT, (uint64_t)a[i].i);
		else if (a[i].type == TLA_DBL)
			pbuf_double(p, F_DA_DOUBLE, a[i].d);
		else
			pbuf_varint(p, F_DA_BOOL, a[i].b);
		pbuf_end(p, at);
	}
}

static int pbegin(struct tl_writer *w)
{
	(void)w;
	return 0; /* a Trace has no head: packets only */
}

static int pend(struct tl_writer *w)
{
	struct tlpf *s = st(w);
	bool failed = s->failed;
	unsigned int i;

	drain(w);
	for (i = 0; i < TL_SEQS; i++)
		if (s->seqs[i]) {
			hset_free(&s->seqs[i]->names);
			free(s->seqs[i]);
		}
	hset_free(&s->tracks);
	pbuf_free(&s->p);
	free(s);
	w->priv = NULL;
	if (fflush(w->out) || ferror(w->out))
		return -EIO;
	return failed ? -ENOMEM : 0;
}

static void pprocess(struct tl_writer *w, uint32_t pid, const char *name)
{
	process_desc(w, pid, name, true);
}

static void pthread(struct tl_writer *w, uint32_t pid, uint32_t tid, const char *name)
{
	thread_desc(w, pid, tid, name, true);
}

static void pclock(struct tl_writer *w, uint64_t real, uint64_t mono)
{
	struct tlpf *s = st(w);
	size_t at, c;

	packet_open(w);
	pbuf_varint(&s->p, F_PKT_SEQ_ID, s->cur + 1);
	at = pbuf_begin(&s->p, F_PKT_CLOCK_SNAPSHOT);
	c = pbuf_begin(&s->p, F_CS_CLOCKS);
	pbuf_varint(&s->p, F_CLK_ID, CLOCK_MONOTONIC_ID);
	pbuf_varint(&s->p, F_CLK_TS, mono);
	pbuf_end(&s->p, c);
	c = pbuf_begin(&s->p, F_CS_CLOCKS);
	pbuf_varint(&s->p, F_CLK_ID, CLOCK_REALTIME_ID);
	pbuf_varint(&s->p, F_CLK_TS, real);
	pbuf_end(&s->p, c);
	/* the trace's own clock is the one its events are stamped with */
	pbuf_varint(&s->p, F_CS_PRIMARY, CLOCK_MONOTONIC_ID);
	pbuf_end(&s->p, at);
	packet_close(w);
}

static void psequence(struct tl_writer *w, unsigned int seq)
{
	st(w)->cur = seq < TL_SEQS ? seq : TL_SEQS - 1;
}

static void pbegin_slice(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			 const char *name, const struct tl_arg *a, size_t n)
{
	size_t at = event_start(w, t, ns, name, 0, TYPE_SLICE_BEGIN);

	if (at)
		annotations(&st(w)->p, a, n);
	event_end(w, at);
}

static void pbegin_call(struct tl_writer *w, const struct tl_track *t, uint64_t ns,
			const char *name)
{
	event_end(w, event_start(w, t, ns, name, w->names_epoch + 1, TYPE_SLICE_BEGIN));
}

static void pend_slice(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name)
{
	(void)name; /* an end closes the innermost open slice of its track */
	event_end(w, event_start(w, t, ns, NULL, 0, TYPE_SLICE_END));
}

static void pinstant(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name,
		     const struct tl_arg *a, size_t n)
{
	size_t at = event_start(w, t, ns, name, 0, TYPE_INSTANT);

	if (at)
		annotations(&st(w)->p, a, n);
	event_end(w, at);
}

static void pcounter(struct tl_writer *w, const struct tl_track *t, uint64_t ns, const char *name,
		     uint64_t v)
{
	size_t at = event_start(w, t, ns, NULL, 0, TYPE_COUNTER);

	(void)name; /* the track's name says what it counts */
	if (at)
		pbuf_varint(&st(w)->p, F_TE_COUNTER, v);
	event_end(w, at);
}

static const struct tl_writer_ops tlpf_ops = {
	.begin = pbegin,
	.end = pend,
	.process = pprocess,
	.thread = pthread,
	.clock = pclock,
	.sequence = psequence,
	.begin_slice = pbegin_slice,
	.begin_call = pbegin_call,
	.end_slice = pend_slice,
	.instant = pinstant,
	.counter = pcounter,
};

int tlpf_open(struct tl_writer *w, FILE *out)
{
	if (!w || !out)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->priv = calloc(1, sizeof(struct tlpf));
	if (!w->priv)
		return -ENOMEM;
	w->ops = &tlpf_ops;
	w->out = out;
	return w->ops->begin(w);
}
