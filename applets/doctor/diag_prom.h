/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checklist as Prometheus gauges (`doctor --prom FILE`, for
 * node-exporter's textfile collector; names in README.md, "doctor and
 * Prometheus"). Bounded by the checklist's own bounds: at most
 * RT_DIAG_MAX checks and RT_DIAG_PORTS ports: a few KiB for a host with
 * a few ports, and at the bound (256 ports, five gauge lines each of at
 * most ~150 bytes with a 63-character device name) under 200 KiB. */
#ifndef RDMATEST_DIAG_PROM_H
#define RDMATEST_DIAG_PROM_H

#include <time.h>

#include "doctor/diag.h"
#include "rdmatest/prom.h"

/* `exit_code`: the checklist's verdict (rt_diag_exit); `now`: the run. */
void rt_diag_prom(struct rt_prom *p, const struct rt_diag *d, int exit_code, time_t now);

#endif
