/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The receiving side of UD datagram traffic (see udrecv.h). */
#include <stdio.h>
#include <string.h>

#include "rdmacm/udrecv.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

void rt_ud_rx_init(struct rt_ud_rx *q, struct rt_conn *c, uint64_t per_sender,
		   uint64_t senders, size_t size)
{
	memset(q, 0, sizeof(*q));
	q->conn = c;
	rt_mc_tally_init(&q->tally, per_sender, senders, size);
}

uint32_t rt_ud_rx_slots(const struct rt_ud_rx *q, uint64_t want, unsigned nqps,
			uint32_t max_wr)
{
	return want ? rt_mc_ring_slots(want, nqps, q->tally.size + RT_MC_GRH_LEN, max_wr) : 0;
}

int rt_ud_rx_post(struct rt_ud_rx *q, uint32_t slots, unsigned nqps, uint32_t max_wr)
{
	q->tally.ring = slots;
	q->tally.ring_max = rt_ud_rx_slots(q, UINT64_MAX, nqps, max_wr);
	return slots ? rt_mc_ring_init(&q->ring, q->conn, slots,
				       q->tally.size + RT_MC_GRH_LEN) : 0;
}

void rt_ud_rx_free(struct rt_ud_rx *q)
{
	rt_mc_tally_free(&q->tally);
	rt_mc_ring_free(&q->ring);
}

int rt_ud_rx_take(struct rt_ud_rx *q, const struct ibv_wc *wc, uint64_t now,
		  enum rt_mc_class *cls, uint32_t *sender)
{
	uint64_t slot = RT_WR_N(wc->wr_id);
	uint8_t *payload = rt_mc_ring_payload(&q->ring, slot);
	size_t got = wc->byte_len > RT_MC_GRH_LEN ? wc->byte_len - RT_MC_GRH_LEN : 0;

	if (!payload)
		return rt_conn_fail(q->conn, RT_EXIT_FAIL, "receive completion of "
				    "unknown slot %llu", (unsigned long long)slot);
	*cls = rt_mc_tally_add(&q->tally, payload,
			       RT_MIN(got, q->ring.slot_len - RT_MC_GRH_LEN),
			       wc->src_qp, sender);
	if (rt_mc_ring_take(&q->ring, (uint32_t)slot))
		rt_mc_tally_dry(&q->tally);
	q->t_last = now;
	if (!q->t_first)
		q->t_first = now;
	return 0;
}

void rt_ud_rx_refill(struct rt_ud_rx *rx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rx[i].conn && rx[i].ring.npending && rt_conn_state(rx[i].conn) != RT_CONN_FAILED)
			rt_mc_ring_refill(&rx[i].ring, rx[i].conn);
}

bool rt_ud_rx_complete(const struct rt_ud_rx *rx, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rt_mc_tally_missing(&rx[i].tally))
			return false;
	return true;
}

uint64_t rt_ud_rx_received(const struct rt_ud_rx *rx, size_t n)
{
	uint64_t got = 0;

	for (size_t i = 0; i < n; i++)
		got += rx[i].tally.received;
	return got;
}

static uint64_t ms_ns(long long ms)
{
	return ms > 0 ? (uint64_t)ms * 1000000u : 0;
}

bool rt_ud_rx_over(const struct rt_ud_rx *rx, size_t n, uint64_t now,
		   uint64_t t_ready, long long first_ms, long long quiet_ms)
{
	uint64_t last = 0;

	if (rt_ud_rx_complete(rx, n))
		return true;
	for (size_t i = 0; i < n; i++)
		last = RT_MAX(last, rx[i].t_last);
	if (!last)
		return now - t_ready >= ms_ns(first_ms);
	return now - last >= ms_ns(quiet_ms);
}

uint64_t rt_ud_rx_missing(const struct rt_ud_rx *rx, size_t n, uint64_t *expected)
{
	uint64_t missing = 0;

	*expected = 0;
	for (size_t i = 0; i < n; i++) {
		missing += rt_mc_tally_missing(&rx[i].tally);
		*expected += rt_mc_tally_expected(&rx[i].tally);
	}
	return missing;
}

/* Why datagrams are missing: an overrun QP's hint first (it explains
 * the loss of the others too), else the first short QP's. */
static const char *shortfall_hint(const struct rt_ud_rx *rx, size_t n, char *buf,
				  size_t len)
{
	const struct rt_mc_tally *first = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct rt_mc_tally *t = &rx[i].tally;

		if (rt_mc_tally_overrun(t))
			return rt_mc_tally_hint(t, buf, len);
		if (!first && rt_mc_tally_missing(t))
			first = t;
	}
	return first ? rt_mc_tally_hint(first, buf, len) : NULL;
}

int rt_ud_rx_judge(const struct rt_ud_rx *rx, size_t n, long long quiet_ms,
		   struct rt_error *e)
{
	uint64_t expected, missing = rt_ud_rx_missing(rx, n, &expected);
	const char *hint;
	char buf[224];

	for (size_t i = 0; i < n; i++) {
		const struct rt_mc_tally *t = &rx[i].tally;

		if (t->corrupt)
			return rt_fail(e, RT_EXIT_FAIL, "QP %zu: %llu corrupt datagrams, "
				       "first: %s", i, (unsigned long long)t->corrupt, t->problem);
		if (t->wrong_size)
			return rt_fail(e, RT_EXIT_FAIL, "QP %zu: %s (does the sender's -S "
				       "match?)", i, t->problem);
	}
	if (!missing)
		return 0;
	hint = shortfall_hint(rx, n, buf, sizeof(buf));
	return rt_fail(e, RT_EXIT_FAIL, "lost %llu of %llu datagrams: none arrived "
		       "for %.3g s after the last one (%s)",
		       (unsigned long long)missing, (unsigned long long)expected,
		       (double)quiet_ms / 1000.0, hint ? hint :
		       "dropped on the way, or a sender stopped");
}

double rt_ud_rx_seconds(const struct rt_ud_rx *rx, size_t n)
{
	uint64_t first = 0, last = 0;

	for (size_t i = 0; i < n; i++) {
		if (rx[i].t_first && (!first || rx[i].t_first < first))
			first = rx[i].t_first;
		last = RT_MAX(last, rx[i].t_last);
	}
	return first && last > first ? (double)(last - first) / 1e9 : 0;
}

void rt_ud_rx_json(struct rt_json *j, const struct rt_ud_rx *q, bool receiver)
{
	const struct rt_mc_tally *t = &q->tally;
	struct rt_ud_rx_sum s = { 0 };

	rt_ud_rx_sum_add(&s, q, receiver);
	rt_ud_rx_sum_json(j, &s, true);
	rt_json_kv_uint(j, "senders_seen", t->nsnd);
	rt_json_kv_uint(j, "receive_ring", q->ring.slots);
	rt_json_kv_uint(j, "ring_ran_dry", q->ring.dry);
	rt_json_kv_uint(j, "overrun", receiver ? rt_mc_tally_overrun(t) : 0);
	rt_json_kv_double(j, "receive_seconds", q->t_first
			  ? (double)(q->t_last - q->t_first) / 1e9 : 0);
}

void rt_ud_rx_sum_add(struct rt_ud_rx_sum *s, const struct rt_ud_rx *q, bool receiver)
{
	const struct rt_mc_tally *t = &q->tally;

	s->received += t->received;
	s->distinct += t->distinct;
	s->lost += receiver ? rt_mc_tally_missing(t) : 0;
	s->dup += t->duplicates;
	s->ooo += t->out_of_order;
	s->late += t->late;
	s->beyond += t->beyond;
	s->foreign += t->foreign;
	s->untracked += t->untracked;
	s->corrupt += t->corrupt;
	s->wrong_size += t->wrong_size;
}

void rt_ud_rx_sum_json(struct rt_json *j, const struct rt_ud_rx_sum *s, bool all)
{
	rt_json_kv_uint(j, "received", s->received);
	if (all)
		rt_json_kv_uint(j, "distinct", s->distinct);
	rt_json_kv_uint(j, "lost", s->lost);
	rt_json_kv_uint(j, "duplicates", s->dup);
	rt_json_kv_uint(j, "out_of_order", s->ooo);
	if (all) {
		rt_json_kv_uint(j, "late", s->late);
		rt_json_kv_uint(j, "beyond_count", s->beyond);
	}
	rt_json_kv_uint(j, "unverified", s->foreign);
	if (all)
		rt_json_kv_uint(j, "untracked", s->untracked);
	rt_json_kv_uint(j, "corrupt", s->corrupt);
	if (all)
		rt_json_kv_uint(j, "wrong_size", s->wrong_size);
}

void rt_ud_rx_sum_str(const struct rt_ud_rx_sum *s, unsigned nqps, char *buf,
		      size_t len)
{
	char extra[96] = "";

	if (s->foreign || s->corrupt)
		snprintf(extra, sizeof(extra), ", %llu unverified, %llu corrupt",
			 (unsigned long long)s->foreign, (unsigned long long)s->corrupt);
	snprintf(buf, len, "received %llu datagrams on %u QP%s: %llu lost, %llu "
		 "duplicate, %llu out of order%s", (unsigned long long)s->received,
		 nqps, nqps == 1 ? "" : "s", (unsigned long long)s->lost,
		 (unsigned long long)s->dup, (unsigned long long)s->ooo, extra);
}
