/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What rdmatest checks in the atomic tests (ib_atomic_bw, ib_atomic_lat),
 * where perftest 4.5 checks nothing. Each atomic returns the 8 bytes it
 * found: FETCH_AND_ADD adds 1, so on one counter, with the atomics of one
 * QP executed in order, the k-th (0-based) fetches first + k; perftest's
 * CMP_AND_SWAP compares with 0 and swaps in 0, so it never changes the
 * counter and every one fetches the first value. The first value itself
 * is whatever the server's buffer held (perftest fills it with random
 * bytes), so it is learnt, never assumed.
 *
 *   latency: one atomic at a time on one counter: every fetched value is
 *            checked as it comes (rt_pt_atomic_seq_check).
 *   bandwidth: the client walks 64 counters (perftest's cycle buffer in
 *            cache lines) with many atomics in flight, each result landing
 *            where the next round's will: so each counter is read before
 *            the run and after it (a FETCH_AND_ADD of 0, outside the
 *            measurement), and its last fetched value and the count of
 *            atomics it took are checked (rt_pt_atomic_counter_check): an
 *            atomic lost, done twice or returning a wrong value fails.
 *
 * A mismatch is exit 1 naming the message, the expected and the fetched
 * value. Memory: per checked QP, three values per counter (at most
 * RT_PT_ATOMIC_CHECK_QPS QPs). */
#ifndef RDMATEST_PERFTEST_ATOMIC_H
#define RDMATEST_PERFTEST_ATOMIC_H

#include <stdint.h>

#include "rdmatest/error.h"
#include "perftest/perftest_opts.h"

/* Beyond this many QPs the bandwidth test checks nothing: each checked
 * counter costs two round trips outside the measurement. */
#define RT_PT_ATOMIC_CHECK_QPS 8

/* The value the k-th (0-based) atomic on a counter that first held
 * `first` fetches. */
uint64_t rt_pt_atomic_expect(enum rt_pt_atomic a, uint64_t first, uint64_t k);

/* The values one QP's atomics fetched from one counter, in order. */
struct rt_pt_atomic_seq {
	uint64_t n;     /* values seen */
	uint64_t first; /* the first of them */
};

/* The next fetched value: the first is taken as it comes, every later one
 * must be rt_pt_atomic_expect's. 0, or -1 with err (exit 1) naming the
 * iteration (from 1), the expected and the fetched value. */
int rt_pt_atomic_seq_check(struct rt_pt_atomic_seq *s, enum rt_pt_atomic a,
			   uint64_t got, struct rt_error *err);

/* How many of n messages (k = 0 .. n-1, message k on counter k % counters)
 * counter c took. */
uint64_t rt_pt_atomic_hits(uint64_t n, unsigned counters, unsigned c);

/* One counter of a bandwidth run. */
struct rt_pt_atomic_counter {
	uint64_t before; /* read before the run */
	uint64_t last;   /* what the last atomic of the run on it fetched */
	uint64_t after;  /* read after the run */
	uint64_t hits;   /* atomics of the run on it */
};

/* The last fetched value must be the one its hits-th atomic fetches, the
 * value after the run what `hits` atomics leave. 0, or -1 with err (exit
 * 1) naming QP qp, counter c and, for the last value, its message (k,
 * from 0, of the QP's run: c + (hits - 1) × counters). */
int rt_pt_atomic_counter_check(const struct rt_pt_atomic_counter *x,
			       enum rt_pt_atomic a, unsigned qp, unsigned c,
			       unsigned counters, struct rt_error *err);

#endif
