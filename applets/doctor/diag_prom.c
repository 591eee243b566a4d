/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's gauges (diag_prom.h). One gauge per check, its worst finding
 * as 0 pass, 1 warn, 2 fail, so that one rule (== 2) alerts on any
 * check, and the label set stays the same from run to run (a level in a
 * label would make a new series each time it changes). */
#include <stdio.h>
#include <string.h>

#include "doctor/diag_prom.h"

static int count(const struct rt_diag *d, enum rt_diag_level level)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->lines[i].level == level;
	return n;
}

/* Each check once, in checklist order, with its worst level. */
static void checks(struct rt_prom *p, const struct rt_diag *d)
{
	rt_prom_gauge(p, "rdmatest_doctor_check",
		      "worst finding of each doctor check: 0 pass, 1 warn, 2 fail");
	for (int i = 0; i < d->n; i++) {
		const char *name = d->lines[i].check;
		int worst = 0, seen = 0;

		for (int k = 0; k < d->n; k++) {
			if (strcmp(d->lines[k].check, name))
				continue;
			seen += k < i;
			if ((int)d->lines[k].level > worst)
				worst = (int)d->lines[k].level;
		}
		if (!seen)
			rt_prom_sample(p, (const char *const[]){ "check", name, NULL }, worst);
	}
}

/* Per port: ACTIVE or not, the MTUs and the rates where known. */
#define PORT_GAUGES 5

static double port_value(const struct rt_diag_port *dp, int m)
{
	switch (m) {
	case 0: return strstr(dp->state, "ACTIVE") != NULL;
	case 1: return dp->active_mtu;
	case 2: return dp->ndev_mtu;
	case 3: return dp->rate_gbps * 1e9 / 8;
	}
	return dp->payload_gbps * 1e9 / 8;
}

static void ports(struct rt_prom *p, const struct rt_diag *d)
{
	const char *names[PORT_GAUGES] = { "rdmatest_doctor_port_active",
		"rdmatest_doctor_port_active_mtu_bytes", "rdmatest_doctor_port_netdev_mtu_bytes",
		"rdmatest_doctor_port_rate_bytes_per_second",
		"rdmatest_doctor_port_payload_bytes_per_second" };
	const char *helps[PORT_GAUGES] = { "1 when the port's state is ACTIVE",
		"the port's active MTU in bytes (verbs)", "the MTU of the port's netdev in bytes",
		"the port's signalling rate in bytes per second, from the kernel's (sysfs rate)",
		"the most RDMA WRITE payload the port carries at its active MTU, bytes per second" };

	for (int m = 0; m < PORT_GAUGES && d->nports; m++) {
		rt_prom_gauge(p, names[m], helps[m]);
		for (int i = 0; i < d->nports; i++) {
			const struct rt_diag_port *dp = &d->ports[i];
			double v = port_value(dp, m);
			char port[16];

			snprintf(port, sizeof(port), "%u", dp->port);
			if (m == 0 || v > 0)
				rt_prom_sample(p, (const char *const[]){ "device", dp->dev,
					       "port", port, NULL }, v);
		}
	}
}

void rt_diag_prom(struct rt_prom *p, const struct rt_diag *d, int exit_code, time_t now)
{
	checks(p, d);
	rt_prom_gauge_value(p, "rdmatest_doctor_failed",
			    "doctor findings that failed", count(d, RT_DIAG_FAIL));
	rt_prom_gauge_value(p, "rdmatest_doctor_warnings",
			    "doctor findings that warn", count(d, RT_DIAG_WARN));
	rt_prom_gauge_value(p, "rdmatest_doctor_passed",
			    "doctor findings that passed", count(d, RT_DIAG_PASS));
	rt_prom_gauge_value(p, "rdmatest_doctor_rdma_devices_present",
			    "1 when the host has an RDMA device", !d->no_rdma);
	rt_prom_gauge_value(p, "rdmatest_doctor_exit_code",
			    "doctor's exit status: 0 nothing failed, 1 something did, "
			    "3 no RDMA device", exit_code);
	ports(p, d);
	rt_prom_gauge_value(p, "rdmatest_doctor_last_run_timestamp_seconds",
			    "when doctor wrote this file (Unix time)", (double)now);
}
