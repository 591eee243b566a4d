/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* This host's rails (meshrails.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshrails.h"
#include "rdmatest/addr.h"
#include "rdmatest/linerate.h"
#include "rdmatest/util.h"

static int cmp_port(const struct rt_diag_port *x, const struct rt_diag_port *y)
{
	int c = rt_natural_cmp(x->dev, y->dev);

	return c ? c : x->port < y->port ? -1 : x->port > y->port;
}

/* The first local address port p carries (IPv4 before IPv6), or -1. */
static int addr_of(const struct rt_diag_env *e, const struct rt_diag *d,
		   const struct rt_diag_port *p, int *gid)
{
	int v6 = -1, v6_gid = 0;

	for (int i = 0; i < d->naddrs; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&d->addrs[i].sa;
		int idx;

		if (rt_diag_port_of(e, d, sa, &idx) != p)
			continue;
		if (sa->sa_family == AF_INET) {
			*gid = idx;
			return i;
		}
		if (v6 < 0)
			v6 = i, v6_gid = idx;
	}
	*gid = v6_gid;
	return v6;
}

static void fill(const struct rt_diag *d, const struct rt_diag_port *p, int a,
		 int gid, struct rt_mesh_rail *r)
{
	struct rt_linerate lr;
	unsigned speed, width;
	bool eth = !strcmp(p->link, "Ethernet");
	int mtu = p->active_mtu;

	memset(r, 0, sizeof(*r));
	rt_strlcpy(r->dev, p->dev, sizeof(r->dev));
	r->port = (uint8_t)p->port;
	r->state = (uint8_t)atoi(p->state);
	if (r->state > RT_RAIL_ACTIVE_DEFER)
		r->state = RT_RAIL_NOP;
	r->link = eth ? RT_RAIL_ETHERNET : !strcmp(p->link, "InfiniBand") ? RT_RAIL_IB
									  : RT_RAIL_LINK_UNKNOWN;
	r->gid_index = gid > 0 && gid < 1024 ? (uint16_t)gid : 0;
	if (mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096)
		r->mtu = (uint16_t)mtu;
	if (!rt_linerate_parse(p->rate, &speed, &width) &&
	    !rt_linerate_of(speed, width, eth, r->mtu, &lr)) {
		r->lanes = (uint8_t)lr.lanes;
		r->speed_mbps = (uint32_t)(lr.nominal_gbps * 1000.0);
		r->payload_mbps = (uint32_t)(lr.payload_gbps * 1000.0);
		if (r->payload_mbps > r->speed_mbps)
			r->payload_mbps = r->speed_mbps;
	}
	if (a >= 0)
		rt_addr_host_str((const struct sockaddr *)&d->addrs[a].sa, r->addr, sizeof(r->addr));
}

unsigned rt_mesh_rails_find(const struct rt_diag_env *e, const struct rt_diag *d,
			    struct rt_mesh_rail *out)
{
	const struct rt_diag_port *order[RT_DIAG_PORTS];
	unsigned n = 0, k = 0;

	for (int i = 0; i < d->nports && i < RT_DIAG_PORTS; i++) {
		unsigned j = k++;

		/* insertion: tens of ports */
		while (j && cmp_port(order[j - 1], &d->ports[i]) > 0) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = &d->ports[i];
	}
	/* a rail's number is its port's place among all of them, so that a
	 * port that lost its address keeps its number and shifts no other */
	for (unsigned i = 0; i < k && n < RT_MESH_RAILS_MAX; i++) {
		int gid = 0, a = addr_of(e, d, order[i], &gid);

		fill(d, order[i], a, gid, &out[n]);
		out[n].rail = (uint8_t)n;
		n++;
	}
	return n;
}

static void what_we_have(const struct rt_mesh_rail *r, unsigned n, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u (%s port %u%s)",
					 i ? ", " : "", r[i].rail, r[i].dev, r[i].port,
					 r[i].addr[0] ? "" : ", no IP address");
	if (!n)
		rt_strlcpy(buf, "none: no RDMA port carries an IP address", len);
}

/* Rail numbers from "0,2": a mask of them, or -1 (message in err). */
static int parse_list(const char *list, uint32_t *mask, struct rt_error *err)
{
	const char *s = list;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = UINT32_MAX;
		return 0;
	}
	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : RT_MESH_RAILS_MAX;
		if (v >= RT_MESH_RAILS_MAX || errno || (*end && *end != ','))
			return rt_fail(err, RT_EXIT_USAGE, "--rails: '%s' is not all or a comma "
				       "list of rail numbers below %u", list, RT_MESH_RAILS_MAX);
		*mask |= 1u << v;
		if (!*end)
			return 0;
		s = end + 1;
	}
}

/* Whether "DEV" or "DEV:PORT" of devices names r. */
static bool named(const char *devices, const struct rt_mesh_rail *r)
{
	size_t dl = strlen(r->dev);

	for (const char *s = devices; *s;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len >= dl && !strncmp(s, r->dev, dl) &&
		    (len == dl || (s[dl] == ':' && strtoul(s + dl + 1, NULL, 10) == r->port)))
			return true;
		s += len + (end ? 1 : 0);
	}
	return false;
}

static int devices_ok(const char *devices, struct rt_error *err)
{
	const char *s = devices;

	for (;;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *colon = memchr(s, ':', len);
		char *pe;

		if (!len || colon == s ||
		    (colon && (colon + 1 == s + len || strtoul(colon + 1, &pe, 10) - 1 > 254 ||
			       pe != s + len)))
			return rt_fail(err, RT_EXIT_USAGE, "--devices: '%s' is not DEV[:PORT],... "
				       "(PORT 1..255)", devices);
		if (!end)
			return 0;
		s = end + 1;
	}
}

int rt_mesh_rails_check(const char *list, const char *devices, struct rt_error *err)
{
	uint32_t mask;

	if (list && devices)
		return rt_fail(err, RT_EXIT_USAGE, "--rails and --devices both choose rails: give one");
	return (list && parse_list(list, &mask, err)) || (devices && devices_ok(devices, err))
		       ? -1 : 0;
}

int rt_mesh_rails_choose(struct rt_mesh_rail *rails, unsigned *n, const char *list,
			 const char *devices, struct rt_error *err)
{
	char have[256];
	uint32_t mask = 0, seen = 0;
	unsigned k = 0;

	if (rt_mesh_rails_check(list, devices, err) || (list && parse_list(list, &mask, err)))
		return -1;
	if (!list && !devices)
		return 0;
	for (unsigned i = 0; i < *n; i++) {
		bool take = list ? (mask >> rails[i].rail) & 1u : named(devices, &rails[i]);

		if (take) {
			seen |= 1u << rails[i].rail;
			rails[k++] = rails[i];
		}
	}
	what_we_have(rails, *n, have, sizeof(have));
	if (list && mask != UINT32_MAX && (mask & ~seen))
		return rt_fail(err, RT_EXIT_ENV, "--rails %s: this host's rails are %s", list, have);
	if (devices && !k)
		return rt_fail(err, RT_EXIT_ENV, "--devices %s: no rail of this host; its rails "
			       "are %s", devices, have);
	*n = k;
	return 0;
}

int rt_mesh_rail_of_addr(const struct rt_mesh_rail *rails, unsigned n, const char *addr)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(rails[i].addr, addr))
			return (int)i;
	return -1;
}
