/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Feeds N latency samples (default 10^8) into the statistics and prints
 * the time per sample and the process's peak RSS, to show that memory
 * stays flat however long a run is. `meson test --benchmark stats-memory`
 * runs it; an argument sets N. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "rdmatest/stats.h"
#include "rdmatest/util.h"

static long max_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ull;
	uint64_t x = 88172645463325252ull, t0, ns;
	long rss0 = max_rss_kib();
	struct rt_hist *h = rt_xcalloc(1, sizeof(*h));
	struct rt_summary s;

	t0 = rt_now_ns();
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13; /* xorshift: RTT-like 2..66 µs with a rare tail */
		x ^= x >> 7;
		x ^= x << 17;
		rt_hist_add(h, 2000 + (x & 0xffff) + ((x >> 20) % 1000 ? 0 : x >> 40));
	}
	rt_hist_summarize(h, &s);
	ns = rt_now_ns() - t0;
	printf("samples %" PRIu64 ": %.2f s, %.2f ns/sample; peak RSS %ld KiB "
	       "before, %ld KiB after\n", n, (double)ns / 1e9,
	       n ? (double)ns / (double)n : 0.0, rss0, max_rss_kib());
	printf("median %" PRIu64 " ns, p99 %" PRIu64 " ns, max %" PRIu64 " ns\n",
	       s.median, s.p99, s.max);
	free(h);
	return s.count == n ? 0 : 1;
}
