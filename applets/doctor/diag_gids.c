/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's GID check: each RoCE port's GID table, and the index a RoCE v2
 * test should use, the applets' own choice (rt_roce_v2_gid_of). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/addr.h"
#include "rdmatest/devquery.h"
#include "doctor/diag.h"
#include "doctor/diag_read.h"

/* The GID table of one RoCE port: entries in use, with type and netdev. */
static void gid_table(const struct rt_diag_env *e, const struct rt_diag_port *p,
		      char *buf, size_t len)
{
	char gid[64], type[24], ndev[32];
	union ibv_gid g;

	for (unsigned i = 0; i < 256; i++) {
		if (!rt_diag_read_at(gid, sizeof(gid), "%s/class/infiniband/%s/ports/%u/gids/%u",
			     e->sysfs, p->dev, p->port, i))
			break;
		if (inet_pton(AF_INET6, gid, g.raw) != 1 || !rt_gid_in_use(&g))
			continue;
		rt_diag_read_at(type, sizeof(type), "%s/class/infiniband/%s/ports/%u/gid_attrs/types/%u",
			e->sysfs, p->dev, p->port, i);
		rt_diag_read_at(ndev, sizeof(ndev), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
			e->sysfs, p->dev, p->port, i);
		rt_diag_append(buf, len, "%s[%u] %s %s %s", buf[0] ? "; " : "", i, gid,
		       type[0] ? type : "?", ndev[0] ? ndev : "-");
	}
}

/* The index a RoCE v2 test should use on port p: the applets' choice for
 * the first IPv4 address of its netdev (else the first IPv6 one). */
static int recommend(const struct rt_diag_env *e, const struct rt_diag *d,
		     const struct rt_diag_port *p, char *ip, size_t len)
{
	for (int fam = 0; fam < 2; fam++)
		for (int i = 0; i < d->naddrs; i++) {
			const struct sockaddr *sa = (const struct sockaddr *)&d->addrs[i].sa;
			int idx;

			if (strcmp(d->addrs[i].ifname, p->ndev) ||
			    sa->sa_family != (fam ? AF_INET6 : AF_INET) ||
			    rt_diag_port_of(e, d, sa, &idx) != p || idx < 0)
				continue;
			rt_addr_host_str(sa, ip, len);
			return idx;
		}
	return -1;
}

void rt_diag_gids(const struct rt_diag_env *e, struct rt_diag *d)
{
	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];
		char table[384] = "", ip[64], fix[192];
		int idx;

		if (p->unused)
			continue; /* its ports line says so */
		if (strcmp(p->link, "Ethernet")) {
			rt_diag_add(d, RT_DIAG_PASS, "gids", NULL, "%s port %u is %s: tests "
				    "address it by LID, no GID index needed", p->dev, p->port,
				    p->link[0] ? p->link : "IB");
			continue;
		}
		gid_table(e, p, table, sizeof(table));
		idx = recommend(e, d, p, ip, sizeof(ip));
		if (idx >= 0) {
			rt_diag_add(d, RT_DIAG_PASS, "gids", NULL, "%s port %u: use GID index "
				    "%d (RoCE v2 of %s on %s: routable over UDP 4791, and the "
				    "entry rdmatest's verbs applets pick; perftest -x %d); "
				    "table: %s", p->dev, p->port, idx, ip, p->ndev, idx, table);
			continue;
		}
		snprintf(fix, sizeof(fix), "give %s an IP address (ip addr add ADDR/LEN dev "
			 "%s): the kernel then adds its RoCE v2 GID", p->ndev[0] ? p->ndev : "the netdev",
			 p->ndev[0] ? p->ndev : "IFACE");
		rt_diag_add(d, RT_DIAG_FAIL, "gids", fix, "%s port %u has no RoCE v2 GID "
			    "with an IP address (an all-zero or link-local GID fails as "
			    "\"modify QP to RTR\"); table: %s", p->dev, p->port,
			    table[0] ? table : "empty");
	}
}
