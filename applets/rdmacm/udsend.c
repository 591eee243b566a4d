/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The paced round-robin UD sender (see udsend.h). */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "rdmacm/udsend.h"
#include "rdmatest/util.h"
#include "rdmatest/verify.h"
#include "rdmatest/xfer.h"

void rt_ud_tx_init(struct rt_ud_tx *s, size_t nlanes, uint64_t count,
		   size_t size, long long rate)
{
	*s = (struct rt_ud_tx){ .nlanes = nlanes, .count = count, .size = size,
				.rate = rate };
	s->lanes = rt_xcalloc(RT_MAX(nlanes, 1), sizeof(*s->lanes));
	if (getrandom(&s->id_base, sizeof(s->id_base), 0) != sizeof(s->id_base))
		s->id_base = (uint32_t)(rt_now_ns() ^ ((uint64_t)getpid() << 16));
	for (size_t i = 0; i < nlanes; i++)
		s->lanes[i].sender_id = s->id_base + (uint32_t)i;
}

bool rt_ud_tx_own(const struct rt_ud_tx *s, uint32_t sender_id)
{
	return (uint32_t)(sender_id - s->id_base) < s->nlanes;
}

void rt_ud_tx_free(struct rt_ud_tx *s)
{
	free(s->lanes);
	s->lanes = NULL;
	s->nlanes = 0;
}

uint32_t rt_ud_tx_depth(uint64_t count, uint32_t max_depth)
{
	return (uint32_t)RT_MAX(RT_MIN(count, (uint64_t)max_depth), 1);
}

int rt_ud_lane_setup(struct rt_ud_tx *s, size_t i, struct rt_res *res,
		     uint32_t depth, struct rt_error *err)
{
	struct rt_ud_lane *l = &s->lanes[i];

	l->res = res;
	l->err = err;
	l->depth = RT_MAX(depth, 1);
	l->buf = rt_res_buf(res, l->depth * RT_MAX(s->size, 1), IBV_ACCESS_LOCAL_WRITE, err);
	return l->buf ? 0 : -1;
}

void rt_ud_lane_ready(struct rt_ud_lane *l, struct ibv_ah *ah, uint32_t qpn,
		      uint32_t qkey)
{
	l->ah = ah;
	l->qpn = qpn;
	l->qkey = qkey;
	l->ready = true;
}

/* A double, because rate x elapsed_ns overflows 64 bits after about
 * 30 minutes at the highest rate. */
uint64_t rt_ud_tx_allowed(long long rate, uint64_t elapsed_ns)
{
	if (rate <= 0)
		return UINT64_MAX;
	return (uint64_t)((double)elapsed_ns / 1e9 * (double)rate) + 1;
}

long long rt_ud_tx_tick_ms(long long rate)
{
	return rate > 0 ? RT_MAX(1, RT_MIN(100, 1000 / rate)) : 0;
}

void rt_ud_tx_start(struct rt_ud_tx *s, uint64_t now)
{
	s->t0 = now;
}

static bool can_post(const struct rt_ud_tx *s, const struct rt_ud_lane *l)
{
	return l->ready && l->posted < s->count && l->posted - l->completed < l->depth;
}

/* How many this lane's turn posts: one when paced (the clock allows them
 * one by one, lane after lane), else what its depth and count leave, up
 * to RT_POST_LIST_MAX in one chain. */
static size_t turn_size(const struct rt_ud_tx *s, const struct rt_ud_lane *l,
			uint64_t allowed)
{
	uint64_t room;

	if (s->rate > 0)
		return 1;
	room = RT_MIN(l->depth - (l->posted - l->completed), s->count - l->posted);
	return (size_t)RT_MIN(RT_MIN(room, allowed - s->posted), (uint64_t)RT_POST_LIST_MAX);
}

static int post_turn(struct rt_ud_tx *s, struct rt_ud_lane *l, size_t n)
{
	struct rt_ud_dest to = { .ah = l->ah, .qpn = l->qpn, .qkey = l->qkey,
				 .imm_be = htobe32(l->res->qp->qp_num) };
	size_t offs[RT_POST_LIST_MAX], posted;
	int rc;

	for (size_t i = 0; i < n; i++) {
		offs[i] = (size_t)((l->posted + i) % l->depth) * s->size;
		rt_msg_fill(l->buf->addr + offs[i], s->size, l->sender_id, l->posted + i);
	}
	rc = rt_post_ud_sends(l->res, l->buf, offs, n, s->size, &to, l->posted,
			      &posted, l->err);
	l->posted += posted;
	s->posted += posted;
	if (rc)
		l->ready = false;
	return rc;
}

struct rt_ud_lane *rt_ud_tx_post_due(struct rt_ud_tx *s, uint64_t now)
{
	uint64_t allowed = rt_ud_tx_allowed(s->rate, now - s->t0);
	size_t n = s->nlanes, idle = 0;

	while (s->posted < allowed && n && idle < n) {
		struct rt_ud_lane *l = &s->lanes[s->next++ % n];

		if (!can_post(s, l)) {
			idle++;
			continue;
		}
		idle = 0;
		if (post_turn(s, l, turn_size(s, l, allowed)))
			return l;
	}
	return NULL;
}

void rt_ud_tx_completed(const struct rt_ud_tx *s, struct rt_ud_lane *l,
			uint64_t now)
{
	if (++l->completed == s->count)
		l->t_done = now;
}

bool rt_ud_tx_done(const struct rt_ud_tx *s)
{
	for (size_t i = 0; i < s->nlanes; i++)
		if (s->lanes[i].completed < s->count)
			return false;
	return true;
}

uint64_t rt_ud_tx_completions(const struct rt_ud_tx *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nlanes; i++)
		n += s->lanes[i].completed;
	return n;
}

void rt_ud_tx_progress(const struct rt_ud_tx *s, char *buf, size_t len)
{
	snprintf(buf, len, "%llu of %llu send completions",
		 (unsigned long long)rt_ud_tx_completions(s),
		 (unsigned long long)s->count * s->nlanes);
}

double rt_ud_tx_seconds(const struct rt_ud_tx *s)
{
	uint64_t last = 0;

	for (size_t i = 0; i < s->nlanes; i++)
		last = RT_MAX(last, s->lanes[i].t_done);
	return s->t0 && last > s->t0 ? (double)(last - s->t0) / 1e9 : 0;
}
