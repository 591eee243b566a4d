/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's pause check: on each used RoCE port's netdev, the counters of
 * a lossless class at work that only the driver's statistics hold
 * (core's ethctr.h: PFC pause frames received and sent per priority,
 * link-wide pause, the physical port's discards). Never a warning: a
 * lossless fabric pauses by design, and these count all the port's
 * traffic since the driver started; mesh reports their rises per test.
 * What matters here is saying plainly when the driver keeps none of them
 * (virtio_net under Soft-RoCE, for one): then nothing on this host can
 * show a pause storm, and the switches' counters are the only witness. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"
#include "rdmatest/util.h"

void rt_diag_pause_report(struct rt_diag *d, const char *where, int rc,
			  const struct rt_ethctr_reading *r, const struct rt_portctrs *t)
{
	char some[256] = "";
	int rose = 0;

	if (rc) {
		rt_diag_add(d, RT_DIAG_PASS, "pause", NULL, "%s: its driver's statistics cannot "
			    "be read (%s%s%s): pause frames and port discards not counted here",
			    where, r->why ? r->why : "?", r->err ? ": " : "",
			    r->err ? strerror(r->err) : "");
		return;
	}
	if (!r->kept) {
		rt_diag_add(d, RT_DIAG_PASS, "pause", NULL, "%s: none of the %u statistics %s "
			    "lists counts pause frames or port discards: a pause storm here is "
			    "seen only by the switch", where, r->listed,
			    r->driver[0] ? r->driver : "its driver");
		return;
	}
	for (int i = 0; i < t->n; i++)
		if (rt_portctr_ethtool(t->c[i].name) && t->c[i].value)
			rt_diag_append(some, sizeof(some), "%s%s %" PRIu64, rose++ ? ", " : "",
				       t->c[i].name, t->c[i].value);
	if (!rose)
		rt_diag_add(d, RT_DIAG_PASS, "pause", NULL, "%s: %u pause and discard counters "
			    "of %s, all 0 since the driver started", where, r->kept, r->driver);
	else
		rt_diag_add(d, RT_DIAG_PASS, "pause", NULL, "%s: since the driver started: %s "
			    "(all traffic's; mesh reports the rises during its tests)", where, some);
}

void rt_diag_pause(const struct rt_diag_env *e, struct rt_diag *d)
{
	struct rt_portctrs *t;

	if (!rt_ethctr_live(e->sysfs))
		return;
	t = rt_xmalloc(sizeof(*t));
	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];
		struct rt_ethctr_reading r;
		char where[128];
		int rc;

		if (!rt_diag_roce_netdev(d, i))
			continue;
		t->n = t->dropped = 0;
		rc = rt_ethctr_read(p->ndev, t, &r);
		snprintf(where, sizeof(where), "%s (%s port %u)", p->ndev, p->dev, p->port);
		rt_diag_pause_report(d, where, rc, &r, t);
	}
	free(t);
}
