/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's counter check: what each port's sysfs counters (counters.h)
 * say about its link. A link error counter counts since the port came
 * up or its counters were reset, so any above zero is a WARN: the link
 * has dropped or corrupted packets, which a test that passes may not
 * show. The transport ones (retransmits, sequence errors, congestion
 * notifications) rise on a healthy fabric under load, so they are only
 * named here: a test that moves data judges them per packet. */
#include <inttypes.h>
#include <stdio.h>

#include "doctor/diag.h"
#include "doctor/diag_read.h"

/* "symbol_error 12, link_downed 255 (saturated)" for the non-zero
 * counters of class `cls`; returns how many. */
static int list_class(char *buf, size_t len, const struct rt_diag_counters *t,
		      enum rt_diag_counter_class cls)
{
	int n = 0;

	for (int i = 0; i < t->n; i++) {
		const struct rt_diag_counter *c = &t->c[i];

		if (c->cls != cls || !c->value)
			continue;
		rt_diag_append(buf, len, "%s%s %" PRIu64 "%s", n++ ? ", " : "", c->name,
			       c->value, c->saturated ? " (saturated: at least)" : "");
	}
	return n;
}

/* Returns whether it warned. */
static bool link_errors(struct rt_diag *d, const struct rt_diag_port *p,
			const struct rt_diag_counters *t)
{
	char errs[256] = "";

	if (!list_class(errs, sizeof(errs), t, RT_DIAG_CTR_LINK))
		return false;
	rt_diag_add(d, RT_DIAG_WARN, "counters", "the link drops or corrupts packets: "
		    "check the cable, transceiver and switch port, then compare a later reading",
		    "%s port %u: link errors since the counters were reset: %s", p->dev,
		    p->port, errs);
	return true;
}

void rt_diag_port_counters(const struct rt_diag_env *e, struct rt_diag *d)
{
	char transport[320] = "";
	int read = 0, counted = 0, warned = 0;

	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];
		const struct rt_diag_counters *t = &d->counters[i];
		char some[256] = "";

		/* an unused port's are read for --json, not judged: a spare
		 * port's link_downed says nothing about the host */
		if (!rt_diag_counters_read(e->sysfs, p->dev, p->port, &d->counters[i]) ||
		    p->unused)
			continue;
		read++;
		counted += t->n;
		warned += link_errors(d, p, t);
		if (list_class(some, sizeof(some), t, RT_DIAG_CTR_TRANSPORT))
			rt_diag_append(transport, sizeof(transport), "%s%s port %u %s",
				       transport[0] ? "; " : "", p->dev, p->port, some);
	}
	if (!read || warned)
		return;
	rt_diag_add(d, RT_DIAG_PASS, "counters", NULL, "%d port%s, %d counters, no link "
		    "errors%s%s", read, read == 1 ? "" : "s", counted,
		    transport[0] ? "; retransmits and congestion since reset (judged per "
		    "packet by tests that move data): " : "", transport);
}
