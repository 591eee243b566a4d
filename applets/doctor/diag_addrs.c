/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's address checks: the local addresses, which RDMA port carries
 * each, and which one the route to ADDR leaves from. */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "doctor/diag.h"
#include "doctor/diag_read.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

void rt_diag_local_addrs(struct rt_diag *d)
{
	struct ifaddrs *all, *i;

	if (getifaddrs(&all))
		return;
	for (i = all; i; i = i->ifa_next) {
		const struct sockaddr *sa = i->ifa_addr;
		struct rt_diag_addr *a;

		if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		if (sa->sa_family == AF_INET6 &&
		    IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr))
			continue;
		if (d->naddrs >= RT_DIAG_ADDRS)
			break;
		a = &d->addrs[d->naddrs++];
		rt_strlcpy(a->ifname, i->ifa_name, sizeof(a->ifname));
		memcpy(&a->sa, sa, sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
							    : sizeof(struct sockaddr_in6));
	}
	freeifaddrs(all);
}

static bool same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	union ibv_gid ga, gb;

	return !rt_addr_gid(a, &ga) && !rt_addr_gid(b, &gb) && !memcmp(&ga, &gb, sizeof(ga));
}

const char *rt_diag_ifname_of(const struct rt_diag *d, const struct sockaddr *sa)
{
	for (int i = 0; i < d->naddrs; i++)
		if (same_ip((const struct sockaddr *)&d->addrs[i].sa, sa))
			return d->addrs[i].ifname;
	return "";
}

const struct rt_diag_port *rt_diag_port_of(const struct rt_diag_env *e,
					   const struct rt_diag *d,
					   const struct sockaddr *sa, int *gid_index)
{
	const char *ifname = rt_diag_ifname_of(d, sa);
	union ibv_gid want;

	*gid_index = -1;
	if (rt_addr_gid(sa, &want))
		return NULL;
	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];

		if (!strcmp(p->link, "Ethernet")) {
			*gid_index = rt_roce_v2_gid_of(e->sysfs, p->dev, p->port, 256, &want,
						       NULL, 0);
			if (*gid_index >= 0)
				return p;
		} else if (ifname[0] && !strcmp(ifname, p->ndev)) {
			return p; /* IPoIB: the port's own netdev */
		}
	}
	return NULL;
}

/* An address no RDMA port carries is normal on a healthy host (a
 * management NIC): it is named in the PASS line, so that a test aimed at
 * it is understood; only a host where none is carried fails. */
void rt_diag_ipmap(const struct rt_diag_env *e, struct rt_diag *d)
{
	char carried[384] = "", others[256] = "", ports[256], ip[64];
	int n = 0;

	if (!d->nports)
		return;
	for (int i = 0; i < d->naddrs; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)&d->addrs[i].sa;
		const struct rt_diag_port *p;
		int idx;

		rt_addr_host_str(sa, ip, sizeof(ip));
		p = rt_diag_port_of(e, d, sa, &idx);
		if (p) {
			n++;
			rt_diag_append(carried, sizeof(carried), "%s%s (%s) on %s port %u", carried[0] ? ", " : "",
			       ip, d->addrs[i].ifname, p->dev, p->port);
			continue;
		}
		rt_diag_append(others, sizeof(others), "%s%s (%s)", others[0] ? ", " : "", ip,
		       d->addrs[i].ifname);
	}
	if (n) {
		rt_diag_add(d, RT_DIAG_PASS, "ipmap", NULL, "carried by RDMA ports: %s%s%s",
			    carried, others[0] ? "; not carried, so not for RDMA tests: " : "",
			    others);
		return;
	}
	rt_rdma_netdevs(e->sysfs, ports, sizeof(ports));
	rt_diag_add(d, RT_DIAG_FAIL, "ipmap", "give an RDMA port's netdev an IP address "
		    "(ip addr add ADDR/LEN dev IFACE): RDMA CM needs one",
		    "no local IP address is carried by an RDMA port (RDMA ports with IP: %s)",
		    ports);
}

static int route_source(const char *addr, struct sockaddr_storage *dst,
			struct sockaddr_storage *local)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai;
	socklen_t len = sizeof(*local);
	int fd, rc;

	if (getaddrinfo(addr, "4791", &hints, &ai))
		return -1;
	memcpy(dst, ai->ai_addr, ai->ai_addrlen);
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	/* a datagram connect only asks the routing table: nothing is sent */
	rc = fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) ||
	     getsockname(fd, (struct sockaddr *)local, &len) ? -1 : 0;
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return rc;
}

const struct rt_diag_port *rt_diag_route(const struct rt_diag_env *e,
					 struct rt_diag *d, const char *addr,
					 struct sockaddr_storage *local)
{
	struct sockaddr_storage dst;
	char src[64], ports[256], fix[256];
	const struct rt_diag_port *p;
	const char *ifname;
	int idx;

	if (route_source(addr, &dst, local)) {
		rt_diag_add(d, RT_DIAG_FAIL, "route", "check the address, and that a route "
			    "to it exists (ip route get ADDR)", "%s: no route (or not an "
			    "address): %s", addr, strerror(errno));
		return NULL;
	}
	rt_addr_host_str((struct sockaddr *)local, src, sizeof(src));
	ifname = rt_diag_ifname_of(d, (struct sockaddr *)local);
	p = rt_diag_port_of(e, d, (struct sockaddr *)local, &idx);
	if (p) {
		rt_diag_add(d, RT_DIAG_PASS, "route", NULL, "to %s leaves %s from %s: %s "
			    "port %u%s, GID index %d", addr, ifname[0] ? ifname : "?", src,
			    p->dev, p->port, same_ip((struct sockaddr *)&dst,
						     (struct sockaddr *)local) ? " (ADDR is local)" : "",
			    idx);
		return p;
	}
	rt_rdma_netdevs(e->sysfs, ports, sizeof(ports));
	snprintf(fix, sizeof(fix), "reach the peer over an RDMA port's netdev (RDMA ports "
		 "with IP: %.80s), i.e. use its address on that link, or add an RDMA device on %s",
		 ports, ifname[0] ? ifname : "that interface");
	rt_diag_add(d, RT_DIAG_FAIL, "route", fix, "to %s leaves %s from %s, which no "
		    "RDMA port carries (RDMA CM: ADDR_ERROR, No such device)", addr,
		    ifname[0] ? ifname : "?", src);
	return NULL;
}
