/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's error and traffic counters as the kernel keeps them in sysfs:
 * /sys/class/infiniband/DEV/ports/N/counters/ (the InfiniBand port
 * counters, the same on every HCA that has them) and .../hw_counters/
 * (named by the provider: mlx5, Soft-RoCE's rxe, ...), read into a fixed
 * table and each name classified. Nothing here judges or prints: doctor
 * turns the table into findings (diag_counters.c); a test that moves data
 * can read it before and after and compare (rt_diag_counter_delta).
 * Calls only core and doctor's sysfs reads (diag_read.h). */
#ifndef RDMATEST_COUNTERS_H
#define RDMATEST_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

/* Counters kept per port, both directories together (mlx5 has about 70);
 * more are counted in `dropped`. */
#define RT_DIAG_COUNTERS_MAX 128
/* Bytes read from one counter file: a 64-bit decimal and its newline. */
#define RT_DIAG_COUNTER_BYTES 32

enum rt_diag_counter_class {
	RT_DIAG_CTR_UNKNOWN, /* a name not in the table: --json only */
	RT_DIAG_CTR_INFO,    /* traffic: packets and bytes */
	RT_DIAG_CTR_TRANSPORT, /* retransmits, sequence and access errors, congestion */
	RT_DIAG_CTR_LINK,    /* the physical link or the port: any is wrong */
};

struct rt_diag_counter {
	char name[48];
	bool hw;           /* from hw_counters/, else counters/ */
	enum rt_diag_counter_class cls;
	bool saturated;    /* at the most its field holds: the count may be higher */
	uint64_t value;
};

struct rt_diag_counters {
	struct rt_diag_counter c[RT_DIAG_COUNTERS_MAX];
	int n, dropped;
};

/* Reads every counter of port `port` of `dev` under `sysfs` ("/sys" but in
 * tests), counters/ first, each directory in name order. A file that
 * cannot be read or does not hold a number is left out. Returns how many
 * were kept (0: neither directory, as on a device without counters). */
int rt_diag_counters_read(const char *sysfs, const char *dev, unsigned port,
			  struct rt_diag_counters *out);
enum rt_diag_counter_class rt_diag_counter_class(const char *name);
/* "link", "transport", "info" or "unknown" (the --json names). */
const char *rt_diag_counter_class_name(enum rt_diag_counter_class cls);
/* How much `name` rose from `before` to `after` (0 when either lacks it,
 * or it went down: a reset); at least that much when `after` is
 * saturated. */
uint64_t rt_diag_counter_delta(const struct rt_diag_counters *before,
			       const struct rt_diag_counters *after, const char *name,
			       bool hw);

#endif
