/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run control and reporting options of the ib_* tests: their rows,
 * config and rules (-W, --cpu_util, -P, --run_infinitely, --report-both,
 * --reversed, -H/-U, --latency_gap, -C) and what they need at run time:
 * -W's port counters, --cpu_util's /proc/stat samples, -H/-U's kept
 * samples, -C's CPU frequency and --run_infinitely's ring of rows.
 *
 * -W: perftest reads /sys/class/infiniband/DEV/ports/PORT/NAME for each
 * name of its list when the connection is made and again after each row,
 * and prints each one's change on a line "\tNAME=DELTA", then an empty
 * line; so does this, each file read by core's portctr.h (at most
 * RT_PORTCTR_BYTES bytes, one unsigned decimal). A name that cannot be
 * read at the start exits 3
 * naming the file (perftest: "Unable to access performance counters",
 * exit 1); one that fails later prints "unreadable".
 *
 * -C (--report-cycles): the latency tests only (perftest: "Available only
 * on Latency tests"; the bandwidth tests refuse it by name). perftest
 * reports its figures in CPU cycles instead of µs: the table's and the
 * JSON's figures and -H/-U's samples ("#, cycles"), while its table header
 * still says [usec]; so does this. rdmatest times with the monotonic clock,
 * so a figure in cycles is its µs times the CPU's MHz, read from
 * /proc/cpuinfo's first "cpu MHz" line (what perftest compares its own
 * measurement with); a host without one exits 3 naming it. rdmatest's own
 * line after the table stays in usec, and --limit_lat/--limit_lat_max stay
 * in µs.
 *
 * Memory: at most RT_PT_CTR_MAX counters of names up to RT_PT_CTR_NAME
 * bytes, in the struct; -H/-U: one uint64_t per sample, at most
 * RT_PT_SAMPLES_MAX (32 MiB), allocated once per run; the ring:
 * RT_PT_INF_ROWS rows of RT_PT_ROW_FIELDS figures. */
#ifndef RDMATEST_PERFTEST_RUNCTL_H
#define RDMATEST_PERFTEST_RUNCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "rdmatest/log.h"
#include "rdmatest/opt.h"

/* The rows' config (struct rt_pt_cfg's `ctl`; the run reads it as
 * struct rt_pt_params's `opt.ctl`). */
struct rt_pt_runctl_cfg {
	const char *counters;  /* -W */
	long long latency_gap; /* µs */
	int run_inf, report_both, reversed;
	int cpu_util;          /* asked; the column is there with -D only */
	int histogram, unsorted, client_flag;
	int cycles;            /* -C */
};

/* Reporting rows of every test: -W, --cpu_util, -P. */
#define RT_PT_OPTS_REPORT \
	{ 'W', "report-counters", RT_OPT_STRING, RT_S(ctl.counters), 0, 0, NULL, "LIST", \
	  "port counters to report the change of after each row: names under " \
	  "/sys/class/infiniband/DEV/ports/PORT/, comma-separated " \
	  "(\"counters/port_xmit_data,hw_counters/rcvd_pkts\"), as perftest; " \
	  "one that cannot be read exits 3", NULL }, \
	{ 0, "cpu_util", RT_OPT_FLAG, RT_I(ctl.cpu_util), 0, 0, NULL, NULL, \
	  "-D: add perftest's CPU_Util[%] column, user time over user and idle " \
	  "time of /proc/stat's cpu line in the sample window (without -D a " \
	  "warning, as perftest)", NULL }, \
	{ 'P', "client", RT_OPT_FLAG, RT_I(ctl.client_flag), 0, 0, NULL, NULL, \
	  "perftest's hidden client flag: as in perftest the role follows HOST " \
	  "(without HOST a note says it serves)", NULL }

/* BW-only reporting and run control rows (--report-per-port:
 * perftest_dual.h). */
#define RT_PT_OPTS_REPORT_BW \
	{ 0, "run_infinitely", RT_OPT_FLAG, RT_I(ctl.run_inf), 0, 0, NULL, NULL, \
	  "send until SIGINT, a row every -D seconds (default 5) of that " \
	  "period's figures; SIGINT ends the sender with exit 0, as perftest " \
	  "25.01 (write, read, atomic: then the close exchange, the server says " \
	  "the client closed; send: the receiver prints rows too and ends when " \
	  "the sender closes; -b, not in send: each side sends and ends at its " \
	  "SIGINT or when the peer closed, rows count both directions). --json " \
	  "and --out_json keep the last 64 rows (rows_total counts all)", NULL }, \
	{ 0, "report-both", RT_OPT_FLAG, RT_I(ctl.report_both), 0, 0, NULL, NULL, \
	  "-b: after the summed row, this side's and the peer's rows apart " \
	  "(\"Local results\", \"Remote results\"); without -b a note says " \
	  "there is one direction", NULL }, \
	{ 0, "reversed", RT_OPT_FLAG, RT_I(ctl.reversed), 0, 0, NULL, NULL, \
	  "the server sends and the client receives (the exchange keeps its " \
	  "direction: the side with HOST connects); not with -R or -z, which " \
	  "perftest cannot run either", NULL }, \
	RT_PT_OPT_PER_PORT

/* Latency-only reporting rows. */
#define RT_PT_OPTS_REPORT_LAT \
	{ 'H', "report-histogram", RT_OPT_FLAG, RT_I(ctl.histogram), 0, 0, NULL, NULL, \
	  "-n mode: print every sample kept (all but the two largest), sorted, " \
	  "one way in usec, before the row, as perftest", NULL }, \
	{ 0, "report-histogrm", RT_OPT_FLAG, RT_I(ctl.histogram), 0, 0, NULL, NULL, \
	  "perftest's own spelling of --report-histogram", NULL }, \
	{ 'U', "report-unsorted", RT_OPT_FLAG, RT_I(ctl.unsorted), 0, 0, NULL, NULL, \
	  "-n mode: print every sample in the order taken, before the row, as " \
	  "perftest (the samples are kept: -n at most 4194304 with -H or -U)", NULL }, \
	{ 0, "latency_gap", RT_OPT_INT, RT_L(ctl.latency_gap), 0, 1000000, "0", "USEC", \
	  "wait USEC microseconds (spinning, as perftest) before each post; the " \
	  "samples include it", NULL }

/* -C: the latency tests. */
#define RT_PT_OPT_CYCLES \
	{ 'C', "report-cycles", RT_OPT_FLAG, RT_I(ctl.cycles), 0, 0, NULL, NULL, \
	  "report the table's figures (and the JSON's, and -H/-U's samples) in " \
	  "CPU cycles, as perftest: µs times /proc/cpuinfo's cpu MHz (none " \
	  "there: exit 3); the header still says usec, as perftest's", NULL }

/* The run control and reporting options' rules (perftest_runctl.c):
 * --run_infinitely (BW; not with -e, -a, send, -b), --reversed (not with
 * -R or -z; swaps the test role),
 * -H/-U (-n mode, -n bounded), --latency_gap, -C (exit 3 without a cpu
 * MHz in /proc/cpuinfo). Called by
 * rt_pt_params_init. */
struct rt_pt_params;
int rt_pt_report_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		       struct rt_error *err);
/* The notes on stderr of options taken where perftest takes them and they
 * change nothing (--cpu_util without -D, --report-both without -b, -P
 * without HOST): never taken in silence. */
struct rt_log;
void rt_pt_report_notes(const struct rt_pt_params *p, const struct rt_log *log);
#define RT_PT_SAMPLES_MAX (1u << 22) /* -H/-U keep every sample: 32 MiB */
#define RT_PT_INF_PERIOD 5u          /* its default -D, as perftest's */

struct rt_pt_lat_figures;
/* -C: every figure of f (in µs) in cycles, cycles_per_us of them a µs;
 * nothing when it is 0. */
void rt_pt_cycles_scale(double cycles_per_us, struct rt_pt_lat_figures *f);
/* The first "cpu MHz" of a /proc/cpuinfo text; 0 when there is none. */
double rt_pt_cpuinfo_mhz(const char *text);

#define RT_PT_CTR_MAX 16
#define RT_PT_CTR_NAME 96

struct rt_pt_ctr_one {
	char name[RT_PT_CTR_NAME];
	char path[RT_PT_CTR_NAME + 128];
	unsigned long long last, delta;
	bool ok;                /* the last read worked */
};

struct rt_pt_ctr {
	unsigned n;
	struct rt_pt_ctr_one c[RT_PT_CTR_MAX];
};

/* Checks a -W list: 1..RT_PT_CTR_MAX names, each non-empty, shorter than
 * RT_PT_CTR_NAME, relative and without "..". Exit 2 naming the fault. */
int rt_pt_ctr_check(const char *list, struct rt_error *err);
/* Reads every counter once (the start); exit 3 naming the first that
 * cannot be read. */
int rt_pt_ctr_open(struct rt_pt_ctr *k, const char *list, const char *dev,
		   unsigned port, struct rt_error *err);
/* Reads them again: each delta is the change since the last read. */
void rt_pt_ctr_read(struct rt_pt_ctr *k);
/* perftest's lines: "\tNAME=DELTA" each, then an empty one. */
void rt_pt_ctr_print(const struct rt_pt_ctr *k, const struct rt_log *log);
/* {"NAME": DELTA, ...} as the current JSON value (null for unreadable). */
void rt_pt_ctr_json(const struct rt_pt_ctr *k, struct rt_json *j);

/* --cpu_util: /proc/stat's first line, user and idle jiffies. */
struct rt_pt_cpu {
	unsigned long long user, idle;
};
/* false when /proc/stat cannot be read (the figure is then 0, as perftest). */
bool rt_pt_cpu_sample(struct rt_pt_cpu *s);
/* perftest's figure: user / (user + idle) of the change, in %. */
double rt_pt_cpu_util(const struct rt_pt_cpu *a, const struct rt_pt_cpu *b);
/* Parses a /proc/stat first line ("cpu  user nice system idle ..."). */
bool rt_pt_cpu_parse(const char *line, struct rt_pt_cpu *s);
/* perftest's column title and a row's cell, appended to its row. */
#define RT_PT_CPU_HEADER "    CPU_Util[%]"
void rt_pt_cpu_cell(char *buf, size_t len, double util);

/* The samples at a window's opening and closing, each taken the first
 * time `now` is at or past it. */
struct rt_pt_cpu_mark {
	struct rt_pt_cpu s[2];
	unsigned at;    /* samples taken: 2 when the figure is there */
};
void rt_pt_cpu_mark(struct rt_pt_cpu_mark *m, uint64_t now, uint64_t open,
		    uint64_t close);

/* -H/-U: the samples of one size in ns, in the order taken. */
struct rt_pt_samples {
	uint64_t *v;
	uint64_t n, cap;
	double cycles_per_us; /* -C: printed in cycles ("#, cycles"); 0: usec */
};
/* cap 0: nothing kept. */
void rt_pt_samples_init(struct rt_pt_samples *s, uint64_t cap);
void rt_pt_samples_add(struct rt_pt_samples *s, uint64_t ns);
/* perftest's lists: with -U "#, usec" and every sample in order; with -H
 * "#, usec" and all but the two largest, sorted (s is sorted after). Each
 * value is one way: ns / 1000 / rtt. */
void rt_pt_samples_print(struct rt_pt_samples *s, bool unsorted, bool histogram,
			 unsigned rtt, const struct rt_log *log);
void rt_pt_samples_free(struct rt_pt_samples *s);

/* --run_infinitely: the last RT_PT_INF_ROWS rows of RT_PT_ROW_FIELDS
 * named figures each, oldest first when walked. */
#define RT_PT_ROW_FIELDS 8
#define RT_PT_INF_ROWS 64u
struct rt_pt_ring_row {
	const char *key[RT_PT_ROW_FIELDS];
	double v[RT_PT_ROW_FIELDS];
	size_t n;
};

struct rt_pt_ring {
	struct rt_pt_ring_row row[RT_PT_INF_ROWS];
	uint64_t total;   /* rows ever put */
};
void rt_pt_ring_put(struct rt_pt_ring *r, const char *const *keys, const double *v,
		    size_t n);
/* Writes the kept rows as JSON objects into the open array of j. */
void rt_pt_ring_json(const struct rt_pt_ring *r, struct rt_json *j);

#endif
