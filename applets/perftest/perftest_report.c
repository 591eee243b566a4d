/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "perftest/perftest_report.h"
#include "rdmatest/util.h"

#define MIB 1048576.0
#define GBIT_BYTES 125000000.0

double rt_pt_bw_unit(bool gbits)
{
	return gbits ? GBIT_BYTES : MIB;
}

void rt_pt_bw_figures(struct rt_pt_bw_report *r, uint64_t size, uint64_t msgs,
		      uint64_t elapsed_ns, uint64_t best_ns, bool gbits)
{
	double secs = (double)elapsed_ns / 1e9, unit = rt_pt_bw_unit(gbits);

	r->size = size;
	r->iters = msgs;
	r->bw_avg = secs > 0 ? (double)size * (double)msgs / secs / unit : 0;
	r->msg_rate = secs > 0 ? (double)msgs / (secs * 1e6) : 0;
	r->bw_peak = best_ns ? (double)size / ((double)best_ns / 1e9) / unit : 0;
}

const char *rt_pt_bw_header(bool gbits)
{
	return gbits ? " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
		     : " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
}

void rt_pt_bw_row(char *buf, size_t len, const struct rt_pt_bw_report *r,
		  bool gbits)
{
	if (gbits && r->bw_avg < 0.1)
		snprintf(buf, len, " %-7" PRIu64 "    %" PRIu64 "           %-7.6f"
			 "            %-7.6f            %-7.6f", r->size, r->iters,
			 r->bw_peak, r->bw_avg, r->msg_rate);
	else
		snprintf(buf, len, " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2f"
			 "            %-7.2f\t\t   %-7.6f", r->size, r->iters,
			 r->bw_peak, r->bw_avg, r->msg_rate);
}

void rt_pt_lat_add(struct rt_pt_lat *l, uint64_t ns)
{
	rt_hist_add(&l->hist, ns);
	if (l->hist.count == 1 || ns > l->top[0]) {
		l->top[1] = l->top[0];
		l->top[0] = ns;
	} else if (l->hist.count == 2 || ns > l->top[1]) {
		l->top[1] = ns;
	}
	l->sum += (double)ns;
	l->sumsq += (double)ns * (double)ns;
}

/* ceil(x * n) for x = num / den, in integers. */
static uint64_t ceil_frac(uint64_t n, uint64_t num, uint64_t den)
{
	return n / den * num + (n % den * num + den - 1) / den;
}

/* The sample at 0-based sorted index i of all samples. */
static double at(const struct rt_pt_lat *l, uint64_t i)
{
	if (i + 1 >= l->hist.count)
		return (double)l->top[0];
	if (i + 2 == l->hist.count)
		return (double)l->top[1];
	return (double)rt_hist_rank(&l->hist, i + 1);
}

/* perftest's deviation of the n smallest samples around mean_us: each
 * difference truncated toward zero to whole units before squaring, as
 * perftest's int temporary does. Walks the buckets upwards, a bucket's
 * samples valued at its middle (clamped to the histogram's range). */
static double truncated_stdev(const struct rt_pt_lat *l, uint64_t n, double q,
			      double mean_us)
{
	double sum = 0;
	uint64_t left = n, lo, hi;

	for (size_t b = 0; b < RT_HIST_BUCKETS && left; b++) {
		uint64_t c = RT_MIN(l->hist.bucket[b], left);
		double v, d;

		if (!c)
			continue;
		rt_hist_bucket_range(b, &lo, &hi);
		v = (double)RT_MAX(RT_MIN(lo + (hi - lo) / 2, l->hist.max), l->hist.min);
		d = trunc(mean_us - v / q);
		sum += d * d * (double)c;
		left -= c;
	}
	return n ? sqrt(sum / (double)n) : 0;
}

bool rt_pt_lat_figures(const struct rt_pt_lat *l, unsigned rtt_factor,
		       struct rt_pt_lat_figures *f)
{
	uint64_t total = l->hist.count, n = total - 2;
	double q = 1000.0 * (rtt_factor ? rtt_factor : 1), mean, var, sum, sumsq;

	if (total < 3)
		return false;
	sum = l->sum - (double)l->top[0] - (double)l->top[1];
	sumsq = l->sumsq - (double)l->top[0] * (double)l->top[0] -
		(double)l->top[1] * (double)l->top[1];
	mean = sum / (double)n;
	var = sumsq / (double)n - mean * mean;
	f->samples = total;
	f->t_min = (double)l->hist.min / q;
	f->t_max = at(l, n) / q;
	f->t_typical = (n % 2 == 0 ? (at(l, n / 2) + at(l, n / 2 - 1)) / 2
				   : at(l, n / 2)) / q;
	f->t_avg = mean / q;
	f->t_stdev = truncated_stdev(l, n, q, mean / q);
	f->stdev = var > 0 ? sqrt(var) / q : 0;
	f->p99 = at(l, ceil_frac(n, 99, 100)) / q;
	f->p999 = at(l, ceil_frac(n, 999, 1000)) / q;
	f->max = (double)l->top[0] / q;
	f->p50 = at(l, ceil_frac(total, 50, 100) - 1) / q;
	f->p90 = at(l, ceil_frac(total, 90, 100) - 1) / q;
	f->p99_all = at(l, ceil_frac(total, 99, 100) - 1) / q;
	f->p999_all = at(l, ceil_frac(total, 999, 1000) - 1) / q;
	f->p9999_all = at(l, ceil_frac(total, 9999, 10000) - 1) / q;
	return true;
}

const char *rt_pt_lat_header(void)
{
	return " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
	       "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]"
	       "   99.9% percentile[usec] ";
}

void rt_pt_lat_row(char *buf, size_t len, uint64_t size, uint64_t iters,
		   const struct rt_pt_lat_figures *f)
{
	snprintf(buf, len, " %-7" PRIu64 " %" PRIu64 "          %-7.2f        %-7.2f"
		 "      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f",
		 size, iters, f->t_min, f->t_max, f->t_typical, f->t_avg,
		 f->t_stdev, f->p99, f->p999);
}

uint64_t rt_pt_peak_ns(const uint64_t *tpost, const uint64_t *tcomp, uint64_t n,
		       unsigned post_list, unsigned cq_mod)
{
	uint64_t best = 0, stride = cq_mod ? cq_mod : 1;

	for (uint64_t i = 0; i < n; i += post_list ? post_list : 1) {
		for (uint64_t j = (i + stride) / stride * stride - 1; j < n + stride - 1; j += stride) {
			uint64_t jj = j < n ? j : n - 1, t;

			if (!tcomp[jj] || tcomp[jj] < tpost[i])
				continue;
			t = (tcomp[jj] - tpost[i]) / (jj - i + 1);
			if (!best || t < best)
				best = t;
		}
	}
	return best;
}

void rt_pt_bw_sum(struct rt_pt_bw_report *a, const struct rt_pt_bw_report *b)
{
	a->bw_peak += b->bw_peak;
	a->bw_avg += b->bw_avg;
	a->msg_rate += b->msg_rate;
}
