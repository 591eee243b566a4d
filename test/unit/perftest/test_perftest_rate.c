/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rate limiter (perftest_rate.h): perftest's rules, the rate's units
 * and the software pacer's bursts and gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "pt_parse.h"
#include "perftest/perftest_rate.h"

#define RT_CFG struct rt_pt_cfg

static const struct rt_opt send_opts[] = {
	RT_PT_OPTS_CONN, RT_PT_OPT_SIZE("65536"), RT_PT_OPT_ITERS("1000"),
	RT_PT_OPT_TX_DEPTH("128"), RT_PT_OPT_RX_DEPTH("512"), RT_PT_OPT_INLINE("0"),
	RT_PT_OPTS_RUN, RT_PT_OPTS_BW, RT_PT_OPTS_RATE, RT_PT_OPTS_MCG, { 0 },
};

/* Parses the NULL-terminated arguments with ib_send_bw's table as test t. */
static int parse(struct rt_pt_params *p, struct rt_error *err, struct rt_pt_test t, ...)
{
	va_list ap;
	int rc;

	va_start(ap, t);
	rc = pt_vparse(p, err, send_opts, "ib_send_bw", t, ap);
	va_end(ap);
	return rc;
}

static const struct rt_pt_test send_bw = { RT_PT_SEND, RT_PT_BW };
static const struct rt_pt_test write_bw = { RT_PT_WRITE, RT_PT_BW };
static const struct rt_pt_test send_lat = { RT_PT_SEND, RT_PT_LAT };

static void rate_rules(void **state)
{
	struct rt_pt_params p;
	struct rt_error err;

	(void)state;
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "2.5", NULL), 0);
	assert_int_equal(p.opt.rate.type, RT_PT_RATE_HW);
	assert_false(p.rate_type_given);
	assert_int_equal(p.opt.rate.burst_size, 128);
	assert_true(p.rate_limit == 2.5);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "40", "--rate_units", "M",
			       "--rate_limit_type", "SW", "--burst_size", "8", NULL), 0);
	assert_int_equal(p.opt.rate.type, RT_PT_RATE_SW);
	assert_true(p.rate_type_given);
	assert_int_equal(p.opt.rate.units, RT_PT_RATE_MIBPS);
	assert_int_equal(p.opt.rate.burst_size, 8);
	assert_int_equal(parse(&p, &err, send_bw, "--burst_size", "8", NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit_type", "SW", NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "1", "--rate_limit_type",
			       "PP", NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "1", "--rate_units", "p",
			       NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "1", "--rate_units", "p",
			       "--rate_limit_type", "SW", NULL), 0);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "1", "-b",
			       "--rate_limit_type", "SW", NULL), -1);
	assert_int_equal(parse(&p, &err, write_bw, "--rate_limit", "1", "-b",
			       "--rate_limit_type", "SW", NULL), 0);
	assert_int_equal(parse(&p, &err, send_lat, "--rate_limit", "1",
			       "--rate_limit_type", "SW", NULL), -1);
	assert_int_equal(parse(&p, &err, send_bw, "--rate_limit", "-1", NULL), -1);
}

static void rate_units(void **state)
{
	(void)state;
	/* 1 Gb/s of 4 KiB messages; 4 MiB/s of 4 KiB; 1000 pps */
	assert_true(rt_pt_rate_pps(1, RT_PT_RATE_GBPS, 4096) > 30517.5 &&
		    rt_pt_rate_pps(1, RT_PT_RATE_GBPS, 4096) < 30517.6);
	assert_true(rt_pt_rate_pps(4, RT_PT_RATE_MIBPS, 4096) == 1024);
	assert_true(rt_pt_rate_pps(1000, RT_PT_RATE_PPS, 4096) == 1000);
}

/* 1024 messages a second in bursts of 4: a burst every 3.90625 ms; a late
 * burst starts at once and the next keeps the schedule. */
static void pacer(void **state)
{
	struct rt_pt_params p = { .rate_limit = 4,
				  .opt.rate = { .units = RT_PT_RATE_MIBPS, .burst_size = 4 } };
	struct rt_pt_conn c = { .p = &p, .pace_sw = true };
	struct rt_pt_pacer pc;
	uint64_t t0 = 1000000000ull;

	(void)state;
	rt_pt_pacer_init(&pc, &c, 4096, t0);
	assert_true(pc.on);
	assert_int_equal(pc.gap_ns, 3906250);
	for (int i = 0; i < 4; i++) {
		assert_true(rt_pt_pacer_may(&pc, t0));
		rt_pt_pacer_sent(&pc, 1);
	}
	assert_false(rt_pt_pacer_may(&pc, t0 + 1000));
	assert_true(rt_pt_pacer_may(&pc, t0 + 3906250));
	rt_pt_pacer_sent(&pc, 4); /* a post list of 4: the whole burst */
	/* at 4 gaps the bursts of 2 and 3 gaps are late: they go at once,
	 * then the one of 4 gaps, on time; the next waits */
	for (int i = 0; i < 3; i++) {
		assert_true(rt_pt_pacer_may(&pc, t0 + 4 * 3906250ull));
		rt_pt_pacer_sent(&pc, 4);
	}
	assert_false(rt_pt_pacer_may(&pc, t0 + 4 * 3906250ull));
	c.pace_sw = false;
	rt_pt_pacer_init(&pc, &c, 4096, t0);
	assert_true(rt_pt_pacer_may(&pc, t0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_rules),
		cmocka_unit_test(rate_units),
		cmocka_unit_test(pacer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
