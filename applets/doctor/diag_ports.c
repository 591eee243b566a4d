/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's device and port checks: the devices sysfs lists, each port's
 * state and link, and whether its active MTU fits its netdev's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/devquery.h"
#include "rdmatest/linerate.h"
#include "doctor/diag.h"
#include "doctor/diag_expect.h"
#include "doctor/diag_read.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

/* netdevs looked at beside one device (IPoIB child interfaces included) */
#define RT_DIAG_NETDEVS 32

/* An InfiniBand port's GIDs name no netdev: its IPoIB netdev is the one
 * beside it under the device's PCI function whose dev_port is the port's
 * number less one (the kernel's ipoib driver numbers them so). */
static void ipoib_ndev(const struct rt_diag_env *e, struct rt_diag_port *p)
{
	char dir[512], names[RT_DIAG_NETDEVS][64], devport[16];
	int n;

	snprintf(dir, sizeof(dir), "%.400s/class/infiniband/%.63s/device/net", e->sysfs, p->dev);
	n = rt_diag_list(dir, "*", names, RT_DIAG_NETDEVS);
	for (int i = 0; i < n && i < RT_DIAG_NETDEVS; i++)
		if (rt_diag_read_at(devport, sizeof(devport), "%s/%s/dev_port", dir, names[i]) &&
		    strtoul(devport, NULL, 10) + 1 == p->port) {
			rt_strlcpy(p->ndev, names[i], sizeof(p->ndev));
			return;
		}
}

static void read_port(const struct rt_diag_env *e, const char *dev, unsigned port,
		      struct rt_diag_port *p)
{
	const char *base = e->sysfs;
	char mtu[16];

	memset(p, 0, sizeof(*p));
	rt_strlcpy(p->dev, dev, sizeof(p->dev));
	p->port = port;
	rt_diag_read_at(p->state, sizeof(p->state), "%s/class/infiniband/%s/ports/%u/state", base, dev, port);
	rt_diag_read_at(p->phys, sizeof(p->phys), "%s/class/infiniband/%s/ports/%u/phys_state", base, dev, port);
	rt_diag_read_at(p->link, sizeof(p->link), "%s/class/infiniband/%s/ports/%u/link_layer", base, dev, port);
	rt_diag_read_at(p->rate, sizeof(p->rate), "%s/class/infiniband/%s/ports/%u/rate", base, dev, port);
	/* GID 0's netdev; a Soft-RoCE device also names its parent */
	if (!rt_diag_read_at(p->ndev, sizeof(p->ndev), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		     base, dev, port))
		rt_diag_read_at(p->ndev, sizeof(p->ndev), "%s/class/infiniband/%s/parent", base, dev);
	if (!p->ndev[0] && !strcmp(p->link, "InfiniBand"))
		ipoib_ndev(e, p);
	if (!p->ndev[0])
		return;
	rt_diag_read_at(p->ndev_state, sizeof(p->ndev_state), "%s/class/net/%s/operstate", base, p->ndev);
	if (rt_diag_read_at(mtu, sizeof(mtu), "%s/class/net/%s/mtu", base, p->ndev))
		p->ndev_mtu = atoi(mtu);
}

static void add_ports(const struct rt_diag_env *e, struct rt_diag *d, const char *dev)
{
	char path[512], ports[RT_DIAG_PORTS][64];
	int n;

	snprintf(path, sizeof(path), "%.400s/class/infiniband/%.63s/ports", e->sysfs, dev);
	n = rt_diag_list(path, "[0-9]*", ports, RT_DIAG_PORTS);
	for (int i = 0; i < n; i++) {
		if (i >= RT_DIAG_PORTS || d->nports >= RT_DIAG_PORTS) {
			d->dropped++;
			continue;
		}
		read_port(e, dev, (unsigned)strtoul(ports[i], NULL, 10), &d->ports[d->nports++]);
	}
}

void rt_diag_devices(const struct rt_diag_env *e, struct rt_diag *d)
{
	char path[512], names[256] = "", devs[RT_DIAG_PORTS][64];
	int n;

	snprintf(path, sizeof(path), "%s/class/infiniband", e->sysfs);
	n = rt_diag_list(path, "*", devs, RT_DIAG_PORTS);
	for (int i = 0; i < n; i++) {
		rt_diag_append(names, sizeof(names), "%s%s", i ? ", " : "",
		       i < RT_DIAG_PORTS ? devs[i] : "...");
		if (i < RT_DIAG_PORTS)
			add_ports(e, d, devs[i]);
	}
	d->no_rdma = n == 0;
	if (!n)
		rt_diag_add(d, RT_DIAG_FAIL, "devices",
			    "load the NIC's RDMA driver, or create a Soft-RoCE device: rdma "
			    "link add rxe0 type rxe netdev IFACE",
			    "no RDMA device in %s/class/infiniband", e->sysfs);
	else
		rt_diag_add(d, RT_DIAG_PASS, "devices", NULL, "%d: %s", n, names);
}

void rt_diag_port_mtus(struct rt_diag *d)
{
	struct rt_error err = { 0 };
	struct rt_devlist l;

	if (!d->nports || rt_devlist_open(&l, &err))
		return;
	for (int i = 0; i < d->nports; i++) {
		struct rt_diag_port *p = &d->ports[i];
		struct ibv_device *dev = rt_devlist_find(&l, p->dev);
		struct ibv_context *ctx = dev ? ibv_open_device(dev) : NULL;
		struct ibv_port_attr a;

		if (ctx && !rt_port_attrs(ctx, p->dev, (uint8_t)p->port, &a, &err)) {
			p->active_mtu = rt_mtu_bytes(a.active_mtu);
			p->max_mtu = rt_mtu_bytes(a.max_mtu);
		}
		if (ctx)
			ibv_close_device(ctx);
	}
	rt_devlist_close(&l);
}

/* The largest IB MTU that fits a RoCE frame on a netdev of `mtu` bytes
 * (headers: IP, UDP, BTH and ICRC take less than 100 bytes). */
static int roce_mtu_for(int mtu)
{
	int best = 0;

	for (int m = 256; m <= 4096; m *= 2)
		if (m + 100 <= mtu)
			best = m;
	return best;
}

/* Gb/s to three figures, whole numbers from 100: "392", "54.5", "2.31". */
static void gbps(char *buf, size_t len, double v)
{
	snprintf(buf, len, v >= 100 ? "%.0f" : "%.3g", v);
}

/* The port's figures at IB MTU `mtu` (0: the rates alone), from its
 * sysfs rate file; -1 when that does not say. */
static int port_rate(const struct rt_diag_port *p, int mtu, struct rt_linerate *r)
{
	unsigned speed, width;

	if (rt_linerate_parse(p->rate, &speed, &width))
		return -1;
	return rt_linerate_of(speed, width, !strcmp(p->link, "Ethernet"), (unsigned)mtu, r);
}

/* "rate 400 Gb/s (4X NDR), at most 392 Gb/s RDMA payload at active MTU
 * 4096", or the rate file as it is when it cannot be read. */
static void rate_text(char *buf, size_t len, const struct rt_diag_port *p)
{
	struct rt_linerate r;
	char nom[16], pay[16];

	if (port_rate(p, p->active_mtu, &r)) {
		snprintf(buf, len, "%s", p->rate[0] ? p->rate : "rate ?");
		if (p->active_mtu)
			rt_diag_append(buf, len, ", active MTU %d", p->active_mtu);
		return;
	}
	gbps(nom, sizeof(nom), r.nominal_gbps);
	gbps(pay, sizeof(pay), r.payload_gbps);
	snprintf(buf, len, "rate %s Gb/s (%uX %s)", nom, r.lanes, r.speed);
	if (r.mtu)
		rt_diag_append(buf, len, ", at most %s Gb/s RDMA payload at active MTU %u",
			       pay, r.mtu);
}

/* The largest MTU the port could run at: its own largest and, on
 * Ethernet, the largest the netdev's MTU fits (the driver derives the
 * RoCE MTU from it). 0 when verbs were not asked. */
static int usable_mtu(const struct rt_diag_port *p, bool eth)
{
	int fit = eth && p->ndev_mtu ? roce_mtu_for(p->ndev_mtu) : 0;

	if (!p->max_mtu)
		return 0;
	return fit && fit < p->max_mtu ? fit : p->max_mtu;
}

/* A port below the MTU it could use carries less payload: a WARN that
 * names how much. Returns whether it warned. */
static bool small_mtu(struct rt_diag *d, const struct rt_diag_port *p, bool eth)
{
	int best = usable_mtu(p, eth);
	struct rt_linerate now, could;
	char a[16], b[16], fix[192];

	if (!p->active_mtu || best <= p->active_mtu || port_rate(p, p->active_mtu, &now) ||
	    port_rate(p, best, &could))
		return false;
	gbps(a, sizeof(a), now.payload_gbps);
	gbps(b, sizeof(b), could.payload_gbps);
	if (eth)
		snprintf(fix, sizeof(fix), "the RoCE MTU follows the netdev's: set it again "
			 "(ip link set %s mtu %d) and check the NIC's own MTU limit",
			 p->ndev, p->ndev_mtu);
	else
		snprintf(fix, sizeof(fix), "the subnet manager sets it to what both ends of "
			 "the link support: check the switch port's MTU cap");
	rt_diag_add(d, RT_DIAG_WARN, "ports", fix, "%s port %u: active MTU %d of the %d "
		    "it could use carries at most %s Gb/s RDMA payload, not %s", p->dev,
		    p->port, p->active_mtu, best, a, b);
	return true;
}

/* ", netdev eth0 up MTU 1500", or "" without a netdev. */
static void ndev_text(char *buf, size_t len, const struct rt_diag_port *p)
{
	buf[0] = '\0';
	if (p->ndev[0])
		rt_diag_append(buf, len, ", netdev %s %s MTU %d", p->ndev,
			       p->ndev_state[0] ? p->ndev_state : "?", p->ndev_mtu);
}

/* ", active MTU 1024, netdev eth0 up MTU 1500", what is known of it. */
static void mtu_text(char *buf, size_t len, const struct rt_diag_port *p)
{
	buf[0] = '\0';
	if (p->active_mtu)
		snprintf(buf, len, ", active MTU %d", p->active_mtu);
	ndev_text(buf + strlen(buf), len - strlen(buf), p);
}

static void port_down(struct rt_diag *d, const struct rt_diag_port *p, bool eth)
{
	char fix[192], mtu[96];

	mtu_text(mtu, sizeof(mtu), p);
	if (p->ndev[0] && strcmp(p->ndev_state, "up"))
		snprintf(fix, sizeof(fix), "bring the link up: ip link set %s up "
			 "(and check the cable or the peer port)", p->ndev);
	else
		snprintf(fix, sizeof(fix), "check the link (cable, switch port)%s",
			 eth ? "" : " and that a subnet manager runs (opensm)");
	rt_diag_add(d, RT_DIAG_FAIL, "ports", fix, "%s port %u: %s (phys %s), %s%s",
		    p->dev, p->port, p->state, p->phys, p->link, mtu);
}

/* Whether a local address sits on the port's netdev: an operator who
 * gave it one means to use it. */
static bool has_address(const struct rt_diag *d, const struct rt_diag_port *p)
{
	for (int i = 0; p->ndev[0] && i < d->naddrs; i++)
		if (!strcmp(d->addrs[i].ifname, p->ndev))
			return true;
	return false;
}

/* A spare port, an uncabled second port or an onboard NIC nobody uses:
 * failing it would drain a healthy node. */
static void port_unused(struct rt_diag *d, const struct rt_diag_port *p)
{
	char ndev[96];

	ndev_text(ndev, sizeof(ndev), p);
	rt_diag_add(d, RT_DIAG_PASS, "ports", NULL, "%s port %u: unused: %s (phys %s), %s%s, "
		    "no local address; not judged (name it in an --expect file to require "
		    "it)", p->dev, p->port, p->state, p->phys, p->link, ndev);
}

static void judge_port(struct rt_diag *d, struct rt_diag_port *p)
{
	char fix[192], mtu[96], rate[128];
	bool eth = !strcmp(p->link, "Ethernet");

	p->unused = !strstr(p->state, "ACTIVE") && !has_address(d, p) &&
		    !rt_diag_expect_names_port(d->expect, p->dev, p->port);
	if (p->unused)
		return port_unused(d, p);
	if (!strstr(p->state, "ACTIVE"))
		return port_down(d, p, eth);
	if (eth && p->active_mtu && p->ndev_mtu && p->active_mtu > roce_mtu_for(p->ndev_mtu)) {
		snprintf(fix, sizeof(fix), "raise %s's MTU to at least %d (ip link set %s "
			 "mtu %d) or the RDMA MTU will not fit", p->ndev,
			 p->active_mtu + 100, p->ndev, p->active_mtu + 100);
		rt_diag_add(d, RT_DIAG_FAIL, "ports", fix, "%s port %u: active MTU %d does "
			    "not fit netdev %s MTU %d", p->dev, p->port, p->active_mtu,
			    p->ndev, p->ndev_mtu);
		return;
	}
	if (small_mtu(d, p, eth))
		return;
	rate_text(rate, sizeof(rate), p);
	ndev_text(mtu, sizeof(mtu), p);
	rt_diag_add(d, RT_DIAG_PASS, "ports", NULL, "%s port %u: %s (phys %s), %s, %s%s",
		    p->dev, p->port, p->state, p->phys, p->link, rate, mtu);
}

/* Kept on the port for --json and --prom. */
static void port_figures(struct rt_diag_port *p)
{
	struct rt_linerate r;

	p->rate_gbps = p->payload_gbps = 0;
	if (port_rate(p, p->active_mtu, &r))
		return;
	p->rate_gbps = r.nominal_gbps;
	p->payload_gbps = r.payload_gbps;
}

bool rt_diag_roce_netdev(const struct rt_diag *d, int i)
{
	const struct rt_diag_port *p = &d->ports[i];

	if (p->unused || strcmp(p->link, "Ethernet") || !p->ndev[0])
		return false;
	for (int j = 0; j < i; j++)
		if (!d->ports[j].unused && !strcmp(d->ports[j].ndev, p->ndev))
			return false;
	return true;
}

void rt_diag_ports(struct rt_diag *d)
{
	for (int i = 0; i < d->nports; i++) {
		port_figures(&d->ports[i]);
		judge_port(d, &d->ports[i]);
	}
}
