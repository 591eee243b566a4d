/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's DCB check: on each used RoCE port's netdev, the PFC
 * priorities, the trust mode and the DSCP-to-priority map, where the
 * driver shows them to any user in sysfs (mlx5's class/net/IF/qos/: pfc,
 * trust, dscp2prio), and whether the traffic class the tests use
 * (--tclass, DSCP = tclass >> 2) lands on a priority PFC protects. A
 * driver that shows none of it (rxe, siw, most others) is said to, and
 * not judged: the switch and NIC may still be set right. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/diag.h"
#include "doctor/diag_dcb.h"

/* ---- the qos files' text ------------------------------------------------ */

int rt_dcb_parse_pfc(const char *text, uint8_t *mask)
{
	int n = 0;

	*mask = 0;
	for (const char *p = text; *p; p++) {
		if (*p == ',' || isspace((unsigned char)*p))
			continue;
		if ((*p != '0' && *p != '1') || n == RT_DCB_PRIOS ||
		    isdigit((unsigned char)p[1]))
			return -1;
		*mask |= (uint8_t)((*p - '0') << n++);
	}
	return n == RT_DCB_PRIOS ? 0 : -1;
}

int rt_dcb_parse_trust(const char *text, enum rt_dcb_trust *trust)
{
	char low[128];
	size_t i;
	bool dscp, pcp;

	for (i = 0; text[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)tolower((unsigned char)text[i]);
	low[i] = '\0';
	dscp = strstr(low, "dscp") != NULL;
	pcp = strstr(low, "pcp") != NULL;
	if (dscp == pcp)
		return -1;
	*trust = dscp ? RT_DCB_TRUST_DSCP : RT_DCB_TRUST_PCP;
	return 0;
}

/* One "prio:P dscp:D,D,..." line (up to its end or a newline) into
 * prio_of; returns how many it mapped, or -1. */
static int map_line(const char *line, int prio_of[RT_DCB_DSCPS])
{
	const char *p = strstr(line, "prio:"), *eol = strchr(line, '\n'), *v;
	char *end;
	long prio;
	int n = 0;

	if (!p || (eol && p > eol))
		return 0; /* a header line */
	prio = strtol(p + 5, &end, 10);
	v = strstr(end, "dscp:");
	if (end == p + 5 || prio < 0 || prio >= RT_DCB_PRIOS || !v || (eol && v > eol))
		return -1;
	for (v += 5; *v && *v != '\n'; v = end) {
		long dscp;

		if (*v == ',' || *v == ' ' || *v == '\t') {
			end = (char *)v + 1;
			continue;
		}
		dscp = strtol(v, &end, 10);
		if (end == v || dscp < 0 || dscp >= RT_DCB_DSCPS || prio_of[dscp] >= 0)
			return -1;
		prio_of[dscp] = (int)prio;
		n++;
	}
	return n ? n : -1;
}

int rt_dcb_parse_dscp2prio(const char *text, int prio_of[RT_DCB_DSCPS])
{
	int total = 0;

	for (int i = 0; i < RT_DCB_DSCPS; i++)
		prio_of[i] = -1;
	for (const char *line = text; line && *line; line = strchr(line, '\n')) {
		int n;

		if (*line == '\n')
			line++;
		n = map_line(line, prio_of);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/* ---- reading and judging ------------------------------------------------ */

/* The whole file, at most RT_DCB_FILE_MAX bytes; 0, 1 when it does not
 * exist, -1 when it cannot be read whole. */
static int read_qos(const struct rt_diag_env *e, const char *ndev, const char *name,
		    char *buf, size_t len)
{
	char path[512];
	bool whole;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/net/%s/qos/%s", e->sysfs, ndev, name);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	whole = n < len - 1 && !ferror(f); /* a full buffer may have more */
	fclose(f);
	return whole ? 0 : -1;
}

/* Reads the three files into *dcb; NULL, or the name of one that exists
 * but is not understood. */
static const char *read_dcb(const struct rt_diag_env *e, const char *ndev, struct rt_dcb *dcb)
{
	char buf[RT_DCB_FILE_MAX];
	int rc;

	*dcb = (struct rt_dcb){ .trust = RT_DCB_TRUST_UNKNOWN };
	for (int i = 0; i < RT_DCB_DSCPS; i++)
		dcb->prio_of[i] = -1;
	rc = read_qos(e, ndev, "pfc", buf, sizeof(buf));
	dcb->has_pfc = rc <= 0;
	if (rc < 0 || (!rc && rt_dcb_parse_pfc(buf, &dcb->pfc)))
		return "pfc";
	rc = read_qos(e, ndev, "trust", buf, sizeof(buf));
	dcb->has_trust = rc <= 0;
	if (rc < 0 || (!rc && rt_dcb_parse_trust(buf, &dcb->trust)))
		return "trust";
	rc = read_qos(e, ndev, "dscp2prio", buf, sizeof(buf));
	dcb->has_map = rc <= 0;
	if (rc < 0 || (!rc && rt_dcb_parse_dscp2prio(buf, dcb->prio_of) < 0))
		return "dscp2prio";
	return NULL;
}

static void prio_list(uint8_t mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int p = 0; p < RT_DCB_PRIOS; p++)
		if (mask >> p & 1)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", buf[0] ? "," : "", p);
}

/* The first DSCP mapped to a priority of `mask`, or -1. */
static int dscp_into(const struct rt_dcb *dcb, uint8_t mask)
{
	for (int dscp = 0; dscp < RT_DCB_DSCPS; dscp++)
		if (dcb->prio_of[dscp] >= 0 && (mask >> dcb->prio_of[dscp] & 1))
			return dscp;
	return -1;
}

static void judge_map(struct rt_diag *d, const char *where, const struct rt_dcb *dcb,
		      const char *pfc)
{
	int dscp = d->tclass >> 2, prio = dcb->prio_of[dscp], good = dscp_into(dcb, dcb->pfc);
	char fix[192], lands[32];

	if (prio >= 0 && (dcb->pfc >> prio & 1)) {
		rt_diag_add(d, RT_DIAG_PASS, "dcb", NULL, "%s: trust dscp; tclass %d -> DSCP %d "
			    "-> priority %d, which PFC protects (PFC on %s)", where, d->tclass,
			    dscp, prio, pfc);
		return;
	}
	if (good >= 0)
		snprintf(fix, sizeof(fix), "give the tests a class whose DSCP maps to %s "
			 "(doctor --tclass %d, rping --tos %d: DSCP %d -> priority %d), or map "
			 "DSCP %d to a PFC priority", pfc, good << 2, good << 2, good,
			 dcb->prio_of[good], dscp);
	else
		snprintf(fix, sizeof(fix), "map the tests' DSCP (%d) to a PFC priority (%s) "
			 "in the NIC's dscp2prio and on the switches", dscp, pfc);
	if (prio >= 0)
		snprintf(lands, sizeof(lands), "priority %d", prio);
	else
		snprintf(lands, sizeof(lands), "no priority in dscp2prio");
	rt_diag_add(d, RT_DIAG_WARN, "dcb", fix, "%s: trust dscp; tclass %d -> DSCP %d -> %s, "
		    "but PFC is on priority %s only: this class's RDMA traffic is lossy", where,
		    d->tclass, dscp, lands, pfc);
}

static void judge(struct rt_diag *d, const char *where, const struct rt_dcb *dcb)
{
	char pfc[32];

	prio_list(dcb->pfc, pfc, sizeof(pfc));
	if (!dcb->has_pfc)
		rt_diag_add(d, RT_DIAG_PASS, "dcb", NULL, "%s: PFC not exposed by the driver "
			    "(trust %s); not judged", where, dcb->trust == RT_DCB_TRUST_DSCP ? "dscp" :
			    dcb->trust == RT_DCB_TRUST_PCP ? "pcp" : "not exposed");
	else if (!dcb->pfc)
		rt_diag_add(d, RT_DIAG_PASS, "dcb", NULL, "%s: PFC on no priority: RoCE runs "
			    "lossy (fine where ECN congestion control is on end to end)", where);
	else if (dcb->trust == RT_DCB_TRUST_PCP)
		rt_diag_add(d, RT_DIAG_PASS, "dcb", NULL, "%s: trust pcp, PFC on %s: the priority "
			    "is the VLAN tag's, not the DSCP; --tclass not judged", where, pfc);
	else if (!dcb->has_map)
		rt_diag_add(d, RT_DIAG_WARN, "dcb", "read the NIC's DSCP map with its vendor's "
			    "tool and check that the tests' DSCP lands on a PFC priority",
			    "%s: PFC on %s, but no DSCP map exposed: cannot tell where tclass %d "
			    "lands", where, pfc, d->tclass);
	else
		judge_map(d, where, dcb, pfc);
}

static void check_netdev(const struct rt_diag_env *e, struct rt_diag *d,
			 const struct rt_diag_port *p)
{
	char where[128], text[RT_DCB_FILE_MAX];
	struct rt_dcb dcb;
	const char *bad;

	snprintf(where, sizeof(where), "%s (%s port %u)", p->ndev, p->dev, p->port);
	bad = read_dcb(e, p->ndev, &dcb);
	if (bad) {
		if (read_qos(e, p->ndev, bad, text, sizeof(text)) < 0)
			snprintf(text, sizeof(text), "(unreadable or over %d bytes)",
				 RT_DCB_FILE_MAX);
		text[strcspn(text, "\n")] = '\0';
		rt_diag_add(d, RT_DIAG_WARN, "dcb", "read the settings with the NIC vendor's "
			    "tool", "%s: qos/%s not understood (\"%.48s\"); not judged", where,
			    bad, text);
	} else if (!dcb.has_pfc && !dcb.has_trust && !dcb.has_map) {
		rt_diag_add(d, RT_DIAG_PASS, "dcb", NULL, "%s: PFC, trust mode and DSCP map not "
			    "exposed by the driver; not judged (the switches may still set them)",
			    where);
	} else {
		judge(d, where, &dcb);
	}
}

void rt_diag_dcb(const struct rt_diag_env *e, struct rt_diag *d)
{
	for (int i = 0; i < d->nports; i++)
		if (rt_diag_roce_netdev(d, i))
			check_netdev(e, d, &d->ports[i]);
}
