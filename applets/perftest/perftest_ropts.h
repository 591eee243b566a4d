/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What the run control and reporting options (issue #40) need beside
 * their rules (perftest_opts.h, rt_pt_report_rules): -W's port counters,
 * --cpu_util's /proc/stat samples, -H/-U's kept samples, and
 * --run_infinitely's ring of rows.
 *
 * -W: perftest reads /sys/class/infiniband/DEV/ports/PORT/NAME for each
 * name of its list when the connection is made and again after each row,
 * and prints each one's change on a line "\tNAME=DELTA", then an empty
 * line; so does this. A name that cannot be read at the start exits 3
 * naming the file (perftest: "Unable to access performance counters",
 * exit 1); one that fails later prints "unreadable".
 *
 * Memory: at most RT_PT_CTR_MAX counters of names up to RT_PT_CTR_NAME
 * bytes, in the struct; -H/-U: one uint64_t per sample, at most
 * RT_PT_SAMPLES_MAX (32 MiB), allocated once per run; the ring:
 * RT_PT_INF_ROWS rows of RT_PT_ROW_FIELDS figures. */
#ifndef RDMATEST_PERFTEST_ROPTS_H
#define RDMATEST_PERFTEST_ROPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"
#include "rdmatest/json.h"
#include "rdmatest/log.h"

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
