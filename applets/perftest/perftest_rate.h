/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rate limiter of the ib_* tests (--rate_limit, --rate_units,
 * --rate_limit_type, --burst_size, --typical_pkt_size), as perftest has
 * it (its perftest_parameters.c, parser(); perftest_resources.c,
 * ctx_connect): the rows, their config, their rules and the pacing.
 *
 * The software rate limiter paces the sending side: bursts of
 * --burst_size messages (default -t), each burst starting one gap after
 * the previous one's start, the gap being burst / rate; a late burst
 * starts at once, so the average holds the rate. The device's limit (HW)
 * is the QP's packet pacing (ibv_modify_qp_rate_limit): exit 3 naming it
 * on a device without it; asked for implicitly (no --rate_limit_type) it
 * falls back to software pacing, as perftest.
 *
 * Memory: nothing is allocated here. */
#ifndef RDMATEST_PERFTEST_RATE_H
#define RDMATEST_PERFTEST_RATE_H

#include <stdbool.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

/* The rate limiter (--rate_limit_type): off, software pacing, the
 * device's per-QP rate limit (packet pacing), raw Ethernet pacing. */
enum rt_pt_rate_type { RT_PT_RATE_OFF, RT_PT_RATE_SW, RT_PT_RATE_HW, RT_PT_RATE_PP };
/* --rate_units: MiB/s, Gb/s (10^9 bit), packets per second. */
enum rt_pt_rate_unit { RT_PT_RATE_GBPS, RT_PT_RATE_MIBPS, RT_PT_RATE_PPS };

extern const struct rt_enum rt_pt_rate_units[]; /* --rate_units: M, g, p */
extern const struct rt_enum rt_pt_rate_types[]; /* --rate_limit_type: SW, HW, PP */

/* The rows' config (struct rt_pt_cfg's `rate`; the run reads it as
 * struct rt_pt_params's `opt.rate`, where the rules below settle
 * type and burst_size). */
struct rt_pt_rate_cfg {
	const char *limit;      /* --rate_limit */
	long long burst_size;   /* messages; the rules make 0 -t */
	long long typical_pkt_size;
	int units;              /* enum rt_pt_rate_unit */
	int type;               /* enum rt_pt_rate_type; HW for --rate_limit alone */
};

/* The rate limiter, every test (perftest's parser has it everywhere; the
 * tests it does not apply to refuse it by name). */
#define RT_PT_OPTS_RATE \
	{ 0, "rate_limit", RT_OPT_STRING, RT_S(rate.limit), 0, 0, NULL, "RATE", \
	  "BW tests: send at most RATE (--rate_units), all QPs together; without " \
	  "--rate_limit_type the device's limit (HW) is asked for and, on a link " \
	  "without one, software pacing is used instead, as perftest", NULL }, \
	{ 0, "rate_units", RT_OPT_ENUM, RT_I(rate.units), 0, 0, "g", "UNIT", \
	  "--rate_limit's unit", rt_pt_rate_units }, \
	{ 0, "rate_limit_type", RT_OPT_ENUM, RT_I(rate.type), 0, 0, "OFF", "TYPE", \
	  "SW: software pacing (bursts of --burst_size messages, spaced to the " \
	  "rate); HW: the QP's rate limit (packet pacing; exit 3 on a device " \
	  "without it, such as rxe); PP: raw Ethernet only (refused, as perftest)", \
	  rt_pt_rate_types }, \
	{ 0, "burst_size", RT_OPT_INT, RT_L(rate.burst_size), 0, 65535, NULL, "N", \
	  "messages per burst of the rate limiter (default -t); needs it", NULL }, \
	{ 0, "typical_pkt_size", RT_OPT_INT, RT_L(rate.typical_pkt_size), 0, 65535, NULL, \
	  "BYTES", "packet pacing's typical packet size: PP only, which needs raw " \
	  "Ethernet (refused, as perftest)", NULL }

struct rt_pt_params;
struct rt_pt_conn;

/* perftest's rules (exit 2 naming the option): --rate_limit a number
 * above 0 and alone asks for HW; --burst_size and --typical_pkt_size need
 * the limiter; BW tests only, not atomic nor two-way send; HW not with -R
 * or -z nor in packets; PP refused. Called by rt_pt_params_init. */
int rt_pt_rate_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		     struct rt_error *err);
/* After a sending side's QPs are up: the HW rate limit on each (or exit
 * 3, or software pacing in its place); sets c->pace_sw. */
int rt_pt_rate_up(struct rt_pt_conn *c, bool sends);

struct rt_pt_pacer {
	bool on;
	uint64_t gap_ns;     /* between burst starts */
	uint64_t next_ns;    /* the next burst's start */
	unsigned burst, left; /* messages per burst, left in this one */
};

/* For messages of `size` bytes starting at now_ns (off unless SW). */
void rt_pt_pacer_init(struct rt_pt_pacer *pc, const struct rt_pt_conn *c,
		      uint64_t size, uint64_t now_ns);
/* Whether a post of n messages may go now (starting a burst when its
 * time has come); rt_pt_pacer_sent counts them. */
bool rt_pt_pacer_may(struct rt_pt_pacer *pc, uint64_t now_ns);
void rt_pt_pacer_sent(struct rt_pt_pacer *pc, unsigned n);
/* Whether the pacer holds the next post back now; rt_pt_pacer_nap
 * sleeps while it does, at most RT_PT_PACER_NAP_NS at a time (a pacing
 * sender that spins takes the CPU that Soft-RoCE's own sending needs in
 * a one-CPU guest; the bursts' schedule is absolute, so a late wake-up
 * costs no rate). */
#define RT_PT_PACER_NAP_NS 200000u
bool rt_pt_pacer_holds(const struct rt_pt_pacer *pc, uint64_t now_ns);
void rt_pt_pacer_nap(const struct rt_pt_pacer *pc, uint64_t now_ns);
/* The pacing rate in messages per second (perftest's conversion). */
double rt_pt_rate_pps(double rate, enum rt_pt_rate_unit u, uint64_t size);

#endif
