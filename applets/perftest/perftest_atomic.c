/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <inttypes.h>

#include "perftest/perftest_atomic.h"

uint64_t rt_pt_atomic_expect(enum rt_pt_atomic a, uint64_t first, uint64_t k)
{
	/* unsigned wrap-around is what the 64-bit counter does too */
	return a == RT_PT_FETCH_ADD ? first + k : first;
}

static const char *name(enum rt_pt_atomic a)
{
	return a == RT_PT_FETCH_ADD ? "FETCH_AND_ADD" : "CMP_AND_SWAP";
}

int rt_pt_atomic_seq_check(struct rt_pt_atomic_seq *s, enum rt_pt_atomic a,
			   uint64_t got, struct rt_error *err)
{
	uint64_t want;

	if (!s->n++) {
		s->first = got;
		return 0;
	}
	want = rt_pt_atomic_expect(a, s->first, s->n - 1);
	if (got == want)
		return 0;
	return rt_fail(err, RT_EXIT_FAIL, "atomic check: the %s of iteration %" PRIu64
		       " fetched %#" PRIx64 ", expected %#" PRIx64 " (the first fetched %#"
		       PRIx64 ")", name(a), s->n, got, want, s->first);
}

uint64_t rt_pt_atomic_hits(uint64_t n, unsigned counters, unsigned c)
{
	if (!counters || c >= counters)
		return 0;
	return n / counters + (c < n % counters);
}

int rt_pt_atomic_counter_check(const struct rt_pt_atomic_counter *x,
			       enum rt_pt_atomic a, unsigned qp, unsigned c,
			       unsigned counters, struct rt_error *err)
{
	uint64_t want;

	if (x->hits) {
		want = rt_pt_atomic_expect(a, x->before, x->hits - 1);
		if (x->last != want)
			return rt_fail(err, RT_EXIT_FAIL, "atomic check: QP %u, counter %u: "
				       "the %s of message %" PRIu64 " (the last of %" PRIu64
				       " on it) fetched %#" PRIx64 ", expected %#" PRIx64,
				       qp, c, name(a), c + (x->hits - 1) * counters, x->hits,
				       x->last, want);
	}
	want = rt_pt_atomic_expect(a, x->before, x->hits);
	if (x->after != want)
		return rt_fail(err, RT_EXIT_FAIL, "atomic check: QP %u, counter %u holds "
			       "%#" PRIx64 " after the run, expected %#" PRIx64 " (%" PRIu64
			       " %s from %#" PRIx64 "): an atomic was lost, done twice or "
			       "done by someone else", qp, c, x->after, want, x->hits,
			       name(a), x->before);
	return 0;
}
