/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The UD receive ring and the tally of received datagrams (see udtally.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm/udtally.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

/* ---- the receive ring ---- */

uint32_t rt_mc_ring_slots(uint64_t want, unsigned nqps, size_t slot_len,
			  uint32_t max_wr)
{
	uint64_t cap = RT_MC_RING_MAX;

	slot_len = RT_MAX(slot_len, 1);
	cap = RT_MIN(cap, RT_MC_RING_QP_BYTES / slot_len);
	cap = RT_MIN(cap, RT_MC_RING_BYTES / RT_MAX(nqps, 1u) / slot_len);
	if (max_wr)
		cap = RT_MIN(cap, max_wr);
	cap = RT_MAX(cap, 1);
	return want == 0 ? 1 : (uint32_t)RT_MIN(want, cap);
}

static int post_slot(struct rt_mc_ring *r, struct rt_conn *c, uint32_t slot)
{
	if (rt_post_recv(rt_conn_res(c), r->buf, slot * r->slot_len, r->slot_len, slot, rt_conn_err(c)))
		return rt_conn_hook_result(c, -1, "posting a receive");
	r->posted++;
	return 0;
}

int rt_mc_ring_init(struct rt_mc_ring *r, struct rt_conn *c, uint32_t slots,
		    size_t slot_len)
{
	memset(r, 0, sizeof(*r));
	r->buf = rt_res_buf(rt_conn_res(c), slots * slot_len, IBV_ACCESS_LOCAL_WRITE, rt_conn_err(c));
	if (!r->buf)
		return rt_conn_hook_result(c, -1, "the receive ring");
	r->slots = slots;
	r->slot_len = slot_len;
	r->pending = rt_xcalloc(slots, sizeof(*r->pending));
	for (uint32_t i = 0; i < slots; i++)
		if (post_slot(r, c, i))
			return -1;
	return 0;
}

void rt_mc_ring_free(struct rt_mc_ring *r)
{
	free(r->pending);
	r->pending = NULL;
	r->npending = 0;
}

uint8_t *rt_mc_ring_payload(const struct rt_mc_ring *r, uint64_t slot)
{
	if (!r->buf || slot >= r->slots)
		return NULL;
	return r->buf->addr + slot * r->slot_len + RT_MC_GRH_LEN;
}

bool rt_mc_ring_take(struct rt_mc_ring *r, uint32_t slot)
{
	r->completed++;
	if (slot < r->slots && r->npending < r->slots)
		r->pending[r->npending++] = slot;
	if (r->completed != r->posted)
		return false;
	r->dry++;
	return true;
}

int rt_mc_ring_refill(struct rt_mc_ring *r, struct rt_conn *c)
{
	uint32_t n = r->npending;

	/* The reactor takes a bounded number of completions per round; while
	 * the CQ still holds some, reposting would hide that the device had
	 * run dry before them (rt_mc_ring_take could never see completed
	 * reach posted). Refill once the CQ has been read to its end. */
	if (rt_conn_cq_backlogged(c))
		return 0;
	r->npending = 0;
	for (uint32_t i = 0; i < n; i++)
		if (post_slot(r, c, r->pending[i]))
			return -1;
	return 0;
}

/* ---- accounting ---- */

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

void rt_mc_tally_init(struct rt_mc_tally *t, uint64_t per_sender,
		      uint64_t senders, size_t size)
{
	memset(t, 0, sizeof(*t));
	t->per_sender = per_sender;
	t->senders = senders;
	t->size = size;
}

void rt_mc_tally_free(struct rt_mc_tally *t)
{
	free(t->snd);
	t->snd = NULL;
	t->nsnd = t->cap = 0;
	memset(t->index, 0, sizeof(t->index));
}

/* Open addressing with linear probing over a table twice the size of
 * the most senders it holds, so a free slot always ends a probe. Ids come
 * from the network: a peer that picks colliding ones costs at most
 * RT_MC_SENDERS_MAX probes, never memory. */
static struct rt_mc_sender *sender_of(struct rt_mc_tally *t, uint64_t key)
{
	uint32_t h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) % RT_MC_INDEX_SLOTS;
	struct rt_mc_sender *s;

	while (t->index[h]) {
		if (t->snd[t->index[h] - 1].key == key)
			return &t->snd[t->index[h] - 1];
		h = (h + 1) % RT_MC_INDEX_SLOTS;
	}
	if (t->nsnd == RT_MC_SENDERS_MAX)
		return NULL;
	if (t->nsnd == t->cap) {
		t->cap = t->cap ? RT_MIN(t->cap * 2, (size_t)RT_MC_SENDERS_MAX) : 4;
		t->snd = rt_xrealloc(t->snd, t->cap * sizeof(*t->snd));
	}
	s = &t->snd[t->nsnd++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	t->index[h] = (uint16_t)t->nsnd;
	return s;
}

static bool sequenced(const struct rt_mc_sender *s)
{
	return !(s->key & RT_MC_KEY_QPN);
}

static void note_problem(struct rt_mc_tally *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note_problem(struct rt_mc_tally *t, const char *fmt, ...)
{
	va_list ap;

	if (t->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(t->problem, sizeof(t->problem), fmt, ap);
	va_end(ap);
}

#define WBIT(seq) (uint8_t)(1u << ((seq) % RT_MC_WINDOW % 8))
#define WBYTE(s, seq) ((s)->window[(seq) % RT_MC_WINDOW / 8])

/* seq at or past next: the window slides, forgetting what falls out. A
 * gap skipped while the ring ran dry since the sender's previous
 * datagram is the overrun's doing. */
static enum rt_mc_class advance(struct rt_mc_tally *t, struct rt_mc_sender *s,
				uint64_t seq)
{
	uint64_t gap = seq - s->next;

	if (gap && s->dry_last != t->dry)
		s->overrun += gap;
	if (gap >= RT_MC_WINDOW)
		memset(s->window, 0, sizeof(s->window));
	else
		for (uint64_t q = s->next; q < seq; q++)
			WBYTE(s, q) &= (uint8_t)~WBIT(q);
	WBYTE(s, seq) |= WBIT(seq);
	s->next = seq + 1;
	s->distinct++;
	t->distinct++;
	return RT_MC_NEW;
}

static enum rt_mc_class add_seq(struct rt_mc_tally *t, struct rt_mc_sender *s,
				uint64_t seq)
{
	enum rt_mc_class c;

	if (seq >= s->next) {
		c = advance(t, s, seq);
	} else if (s->next - seq > RT_MC_WINDOW) {
		t->late++;
		c = RT_MC_LATE;
	} else if (WBYTE(s, seq) & WBIT(seq)) {
		t->duplicates++;
		c = RT_MC_DUPLICATE;
	} else {
		WBYTE(s, seq) |= WBIT(seq);
		s->distinct++;
		t->distinct++;
		t->out_of_order++;
		c = RT_MC_OUT_OF_ORDER;
	}
	s->dry_last = t->dry;
	return c;
}

/* With --senders N the first N senders heard are the expected ones; a
 * sender heard after them must be a stranger on the group, and must not
 * stand in for an expected sender that stayed silent. */
static bool stranger(const struct rt_mc_tally *t, const struct rt_mc_sender *s)
{
	return t->senders && (uint64_t)(s - t->snd) >= t->senders;
}

static size_t expected_heard(const struct rt_mc_tally *t)
{
	return t->senders && t->nsnd > t->senders ? (size_t)t->senders : t->nsnd;
}

size_t rt_mc_tally_strangers(const struct rt_mc_tally *t)
{
	return t->nsnd - expected_heard(t);
}

/* A stranger's datagrams are counted, unchecked, as foreign; it is
 * remembered only to be named. */
static enum rt_mc_class add_stranger(struct rt_mc_tally *t, struct rt_mc_sender *s)
{
	t->foreign++;
	s->dry_last = t->dry;
	return RT_MC_FOREIGN;
}

static enum rt_mc_class add_valid(struct rt_mc_tally *t,
				  const struct rt_msg_hdr *h)
{
	struct rt_mc_sender *s;

	if (h->seq >= t->per_sender) {
		t->beyond++;
		return RT_MC_BEYOND;
	}
	s = sender_of(t, h->sender);
	if (!s) {
		t->foreign++;
		t->untracked++;
		return RT_MC_FOREIGN;
	}
	if (stranger(t, s))
		return add_stranger(t, s);
	return add_seq(t, s, h->seq);
}

/* Not ours to check: counted per source QPN. */
static enum rt_mc_class add_foreign(struct rt_mc_tally *t, uint32_t src_qp)
{
	struct rt_mc_sender *s = sender_of(t, RT_MC_KEY_QPN | src_qp);

	t->foreign++;
	if (!s) {
		t->untracked++;
		return RT_MC_FOREIGN;
	}
	s->distinct++;
	s->dry_last = t->dry;
	return RT_MC_FOREIGN;
}

enum rt_mc_class rt_mc_tally_add(struct rt_mc_tally *t, const uint8_t *buf,
				 size_t len, uint32_t src_qp, uint32_t *sender)
{
	struct rt_msg_hdr h = { 0 };
	size_t bad = 0;
	enum rt_msg_status st = rt_msg_check(buf, len, &h, &bad);

	*sender = 0;
	t->received++;
	if (len != t->size) {
		t->wrong_size++;
		note_problem(t, "a datagram of %zu bytes, expected %zu", len, t->size);
	}
	switch (st) {
	case RT_MSG_OK:
		*sender = h.sender;
		return add_valid(t, &h);
	case RT_MSG_BAD_LENGTH:
	case RT_MSG_CORRUPT:
		*sender = h.sender;
		t->corrupt++;
		if (st == RT_MSG_CORRUPT)
			note_problem(t, "sender 0x%08x seq %llu: corrupt at byte %zu",
				     h.sender, (unsigned long long)h.seq, bad);
		else
			note_problem(t, "sender 0x%08x seq %llu: length field says %u, "
				     "%zu bytes arrived", h.sender,
				     (unsigned long long)h.seq, h.len, len);
		return RT_MC_CORRUPT;
	default: /* short, other magic or version: not ours to check */
		return add_foreign(t, src_qp);
	}
}

void rt_mc_tally_dry(struct rt_mc_tally *t)
{
	t->dry++;
}

static uint64_t lacks(const struct rt_mc_tally *t, const struct rt_mc_sender *s)
{
	return t->per_sender - RT_MIN(s->distinct, t->per_sender);
}

/* Datagrams the senders not heard would send, less the untracked ones. */
static uint64_t unheard(const struct rt_mc_tally *t)
{
	uint64_t want = t->senders ? t->senders : !t->nsnd, n;

	n = want > t->nsnd ? sat_mul(want - t->nsnd, t->per_sender) : 0;
	return n > t->untracked ? n - t->untracked : 0;
}

uint64_t rt_mc_tally_missing(const struct rt_mc_tally *t)
{
	uint64_t lack = 0;

	for (size_t i = 0; i < expected_heard(t); i++)
		lack = sat_add(lack, lacks(t, &t->snd[i]));
	return sat_add(lack, unheard(t));
}

uint64_t rt_mc_tally_expected(const struct rt_mc_tally *t)
{
	uint64_t n = sat_add(rt_mc_tally_missing(t), t->untracked);

	for (size_t i = 0; i < expected_heard(t); i++)
		n = sat_add(n, RT_MIN(t->snd[i].distinct, t->per_sender));
	return n;
}

uint64_t rt_mc_tally_overrun(const struct rt_mc_tally *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < expected_heard(t); i++) {
		const struct rt_mc_sender *s = &t->snd[i];

		n = sat_add(n, s->overrun);
		/* without sequence numbers, any dry spell may have cost it */
		if (sequenced(s) ? s->dry_last != t->dry : t->dry != 0)
			n = sat_add(n, sequenced(s) ? t->per_sender - RT_MIN(s->next, t->per_sender)
						    : lacks(t, s));
	}
	return RT_MIN(n, rt_mc_tally_missing(t));
}

static const char *overrun_hint(const struct rt_mc_tally *t, uint64_t k,
				char *buf, size_t len)
{
	uint64_t need = sat_mul(t->nsnd, t->per_sender);
	char advice[64] = "pace the senders with --rate";

	if (need > t->ring && need <= t->ring_max)
		snprintf(advice, sizeof(advice), "give --senders %zu or --rate", t->nsnd);
	snprintf(buf, len, "receive ring of %u per QP overflowed: %llu datagrams "
		 "arrived while none were posted; %s", t->ring,
		 (unsigned long long)k, advice);
	return buf;
}

/* Sequenced senders short of the count: how many, where the first one
 * ended, and whether all of them ended there. */
static size_t stopped_short(const struct rt_mc_tally *t, uint64_t *first_end,
			    bool *same_end)
{
	size_t n = 0;

	*same_end = true;
	for (size_t i = 0; i < expected_heard(t); i++) {
		const struct rt_mc_sender *s = &t->snd[i];

		if (!sequenced(s) || s->next >= t->per_sender)
			continue;
		if (!n)
			*first_end = s->next;
		else if (s->next != *first_end)
			*same_end = false;
		n++;
	}
	return n;
}

static const char *cause_hint(const struct rt_mc_tally *t, char *buf, size_t len)
{
	uint64_t holes = 0, foreign_lack = 0, end = 0, k;
	size_t seq_senders = 0, short_senders;
	bool same_end;

	if (!rt_mc_tally_missing(t) || !t->nsnd || t->corrupt)
		return NULL;
	if ((k = rt_mc_tally_overrun(t)))
		return overrun_hint(t, k, buf, len);
	for (size_t i = 0; i < expected_heard(t); i++) {
		const struct rt_mc_sender *s = &t->snd[i];

		seq_senders += sequenced(s);
		if (sequenced(s))
			holes += s->next - s->distinct;
		else
			foreign_lack += lacks(t, s);
	}
	if (holes) {
		snprintf(buf, len, "%llu datagrams missing from gaps in the senders' "
			 "sequences while receives were posted: dropped on the way",
			 (unsigned long long)holes);
		return buf;
	}
	short_senders = stopped_short(t, &end, &same_end);
	if (short_senders && same_end && short_senders == seq_senders) {
		snprintf(buf, len, "nothing came after datagram %llu of %llu of every "
			 "sender, none missing before: a sender stopped or was cut "
			 "off, or its -C is smaller than ours",
			 (unsigned long long)end, (unsigned long long)t->per_sender);
		return buf;
	}
	if (short_senders) {
		snprintf(buf, len, "%zu of %zu senders stopped short with none missing "
			 "before (one after datagram %llu of %llu): a sender stopped or "
			 "was cut off, or its -C is smaller than ours", short_senders,
			 seq_senders, (unsigned long long)end,
			 (unsigned long long)t->per_sender);
		return buf;
	}
	if (foreign_lack) {
		snprintf(buf, len, "%llu datagrams short from senders without sequence "
			 "numbers (not rdmatest): dropped on the way, or a sender "
			 "stopped early", (unsigned long long)foreign_lack);
		return buf;
	}
	if (t->nsnd < t->senders) {
		snprintf(buf, len, "heard %zu of %llu senders, each complete: does "
			 "--senders match the senders' total -c?",
			 t->nsnd, (unsigned long long)t->senders);
		return buf;
	}
	return NULL;
}

/* Names the first stranger: an rdmatest sender id, or the source QPN of
 * a sender without our header. */
static void stranger_str(const struct rt_mc_tally *t, char *buf, size_t len)
{
	const struct rt_mc_sender *s = &t->snd[expected_heard(t)];

	if (sequenced(s))
		snprintf(buf, len, "sender id 0x%08x", (uint32_t)s->key);
	else
		snprintf(buf, len, "source QPN 0x%06x", (uint32_t)s->key);
}

const char *rt_mc_tally_hint(const struct rt_mc_tally *t, char *buf, size_t len)
{
	char cause[160], who[32];
	const char *c;
	size_t n = rt_mc_tally_strangers(t);

	if (!n || !rt_mc_tally_missing(t) || t->corrupt)
		return cause_hint(t, buf, len);
	c = cause_hint(t, cause, sizeof(cause));
	stranger_str(t, who, sizeof(who));
	/* the strangers first: a long cause may be cut at the end */
	snprintf(buf, len, "%zu sender%s beyond --senders %llu (first: %s) not "
		 "counted%s%s", n, n == 1 ? "" : "s",
		 (unsigned long long)t->senders, who, c ? "; " : "", c ? c : "");
	return buf;
}

const char *rt_mc_class_str(enum rt_mc_class c)
{
	switch (c) {
	case RT_MC_NEW:
		return "new";
	case RT_MC_OUT_OF_ORDER:
		return "out of order";
	case RT_MC_DUPLICATE:
		return "duplicate";
	case RT_MC_LATE:
		return "too late to tell from a duplicate";
	case RT_MC_BEYOND:
		return "beyond the count";
	case RT_MC_FOREIGN:
		return "foreign";
	case RT_MC_CORRUPT:
		return "corrupt";
	}
	return "?";
}
