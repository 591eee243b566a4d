/* The local checks of doctor (diag.h). Each reads what the kernel says
 * (sysfs, procfs, /dev) and adds one or a few lines; none of them waits
 * on anything but a file read. */
#include <arpa/inet.h>
#include <errno.h>
#include <glob.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdmatest/addr.h"
#include "rdmatest/devquery.h"
#include "doctor/diag.h"
#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

const struct rt_diag_env rt_diag_env_real = { "/sys", "/proc", "/dev" };

/* What the default tests register (rstream's rsockets: about 2 x 128 KiB
 * of buffers per socket plus their queues), with room to spare: the old
 * distribution default of 64 KiB fails them. */
#define MEMLOCK_NEED (1ULL << 20)

void rt_diag_add(struct rt_diag *d, enum rt_diag_level level, const char *check,
		 const char *fix, const char *fmt, ...)
{
	struct rt_diag_line *l;
	va_list ap;

	if (d->n >= RT_DIAG_MAX) {
		d->dropped++;
		return;
	}
	l = &d->lines[d->n++];
	l->level = level;
	rt_strlcpy(l->check, check, sizeof(l->check));
	rt_strlcpy(l->fix, fix && level != RT_DIAG_PASS ? fix : "", sizeof(l->fix));
	va_start(ap, fmt);
	vsnprintf(l->evidence, sizeof(l->evidence), fmt, ap);
	va_end(ap);
}

const char *rt_diag_level_name(enum rt_diag_level l)
{
	return l == RT_DIAG_FAIL ? "FAIL" : l == RT_DIAG_WARN ? "WARN" : "PASS";
}

const struct rt_diag_line *rt_diag_first(const struct rt_diag *d,
					 enum rt_diag_level level)
{
	for (int i = 0; i < d->n; i++)
		if (d->lines[i].level == level)
			return &d->lines[i];
	return NULL;
}

int rt_diag_exit(const struct rt_diag *d)
{
	if (d->no_rdma)
		return RT_EXIT_ENV;
	return rt_diag_first(d, RT_DIAG_FAIL) ? RT_EXIT_FAIL : RT_EXIT_OK;
}

static bool exists(const char *root, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	return stat(path, &st) == 0;
}

static bool read_at(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool read_at(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	buf[0] = '\0';
	return rt_read_line(path, buf, len);
}

/* Appends ", text" (or text) to buf within len. */
static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* The names matching dir/pattern (sorted, as glob gives them), each into
 * names[] up to max; returns how many there are. glob, not readdir: the
 * order is stable and nothing is shared between calls. */
static int list(const char *dir, const char *pattern, char names[][64], int max)
{
	char path[512];
	glob_t g;
	int n = 0;

	if (snprintf(path, sizeof(path), "%s/%s", dir, pattern) >= (int)sizeof(path) ||
	    glob(path, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++, n++)
		if (n < max)
			rt_strlcpy(names[n], strrchr(g.gl_pathv[i], '/') + 1, 64);
	globfree(&g);
	return n;
}

/* ---- modules and device nodes ------------------------------------------ */

void rt_diag_modules(const struct rt_diag_env *e, struct rt_diag *d)
{
	static const char *const need[] = { "ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm" };
	char have[128] = "", missing[128] = "", rel[64];

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		snprintf(rel, sizeof(rel), "module/%s", need[i]);
		append(exists(e->sysfs, rel) ? have : missing, sizeof(have), "%s ", need[i]);
	}
	if (missing[0])
		rt_diag_add(d, RT_DIAG_FAIL, "modules",
			    "load them: modprobe ib_uverbs rdma_ucm (and the NIC's RDMA "
			    "driver, or rdma_rxe for Soft-RoCE)",
			    "missing: %sloaded: %s", missing, have[0] ? have : "none");
	else
		rt_diag_add(d, RT_DIAG_PASS, "modules", NULL, "loaded or built in: %s%s", have,
			    exists(e->sysfs, "module/rdma_rxe") ? "rdma_rxe" : "");
}

void rt_diag_devnodes(const struct rt_diag_env *e, struct rt_diag *d)
{
	char path[512], names[160] = "", found[8][64];
	int uverbs;

	snprintf(path, sizeof(path), "%s/infiniband", e->dev);
	uverbs = list(path, "uverbs*", found, 8);
	for (int i = 0; i < uverbs && i < 8; i++)
		append(names, sizeof(names), "%s ", found[i]);
	if (!exists(e->dev, "infiniband/rdma_cm"))
		rt_diag_add(d, RT_DIAG_FAIL, "devnodes",
			    "load rdma_ucm (modprobe rdma_ucm) and, in a container, pass "
			    "/dev/infiniband/rdma_cm in",
			    "%s/infiniband/rdma_cm is missing (RDMA CM applets cannot run); "
			    "uverbs nodes: %s", e->dev, uverbs ? names : "none");
	else if (!uverbs && d->no_rdma)
		rt_diag_add(d, RT_DIAG_PASS, "devnodes", NULL, "%s/infiniband/rdma_cm; no "
			    "uverbs node, as there is no device (see devices)", e->dev);
	else if (!uverbs)
		rt_diag_add(d, RT_DIAG_FAIL, "devnodes",
			    "load ib_uverbs and a device driver and, in a container, pass "
			    "/dev/infiniband/uverbs* in",
			    "no %s/infiniband/uverbs* node: no device can be opened", e->dev);
	else
		rt_diag_add(d, RT_DIAG_PASS, "devnodes", NULL, "%s/infiniband: rdma_cm %s",
			    e->dev, names);
}

/* ---- devices and ports -------------------------------------------------- */

static void read_port(const struct rt_diag_env *e, const char *dev, unsigned port,
		      struct rt_diag_port *p)
{
	const char *base = e->sysfs;
	char mtu[16];

	memset(p, 0, sizeof(*p));
	rt_strlcpy(p->dev, dev, sizeof(p->dev));
	p->port = port;
	read_at(p->state, sizeof(p->state), "%s/class/infiniband/%s/ports/%u/state", base, dev, port);
	read_at(p->phys, sizeof(p->phys), "%s/class/infiniband/%s/ports/%u/phys_state", base, dev, port);
	read_at(p->link, sizeof(p->link), "%s/class/infiniband/%s/ports/%u/link_layer", base, dev, port);
	read_at(p->rate, sizeof(p->rate), "%s/class/infiniband/%s/ports/%u/rate", base, dev, port);
	/* GID 0's netdev; a Soft-RoCE device also names its parent */
	if (!read_at(p->ndev, sizeof(p->ndev), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		     base, dev, port))
		read_at(p->ndev, sizeof(p->ndev), "%s/class/infiniband/%s/parent", base, dev);
	if (!p->ndev[0])
		return;
	read_at(p->ndev_state, sizeof(p->ndev_state), "%s/class/net/%s/operstate", base, p->ndev);
	if (read_at(mtu, sizeof(mtu), "%s/class/net/%s/mtu", base, p->ndev))
		p->ndev_mtu = atoi(mtu);
}

static void add_ports(const struct rt_diag_env *e, struct rt_diag *d, const char *dev)
{
	char path[512], ports[RT_DIAG_PORTS][64];
	int n;

	snprintf(path, sizeof(path), "%.400s/class/infiniband/%.63s/ports", e->sysfs, dev);
	n = list(path, "[0-9]*", ports, RT_DIAG_PORTS);
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
	n = list(path, "*", devs, RT_DIAG_PORTS);
	for (int i = 0; i < n; i++) {
		append(names, sizeof(names), "%s%s", i ? ", " : "",
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

		if (ctx && !rt_port_attrs(ctx, p->dev, (uint8_t)p->port, &a, &err))
			p->active_mtu = rt_mtu_bytes(a.active_mtu);
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

static void judge_port(struct rt_diag *d, const struct rt_diag_port *p)
{
	char fix[192], mtu[96] = "";
	bool eth = !strcmp(p->link, "Ethernet");

	if (p->active_mtu)
		snprintf(mtu, sizeof(mtu), ", active MTU %d", p->active_mtu);
	if (p->ndev[0])
		append(mtu, sizeof(mtu), ", netdev %s %s MTU %d", p->ndev,
		       p->ndev_state[0] ? p->ndev_state : "?", p->ndev_mtu);
	if (!strstr(p->state, "ACTIVE")) {
		if (p->ndev[0] && strcmp(p->ndev_state, "up"))
			snprintf(fix, sizeof(fix), "bring the link up: ip link set %s up "
				 "(and check the cable or the peer port)", p->ndev);
		else
			snprintf(fix, sizeof(fix), "check the link (cable, switch port)%s",
				 eth ? "" : " and that a subnet manager runs (opensm)");
		rt_diag_add(d, RT_DIAG_FAIL, "ports", fix, "%s port %u: %s (phys %s), %s%s",
			    p->dev, p->port, p->state, p->phys, p->link, mtu);
		return;
	}
	if (eth && p->active_mtu && p->ndev_mtu && p->active_mtu > roce_mtu_for(p->ndev_mtu)) {
		snprintf(fix, sizeof(fix), "raise %s's MTU to at least %d (ip link set %s "
			 "mtu %d) or the RDMA MTU will not fit", p->ndev,
			 p->active_mtu + 100, p->ndev, p->active_mtu + 100);
		rt_diag_add(d, RT_DIAG_FAIL, "ports", fix, "%s port %u: active MTU %d does "
			    "not fit netdev %s MTU %d", p->dev, p->port, p->active_mtu,
			    p->ndev, p->ndev_mtu);
		return;
	}
	rt_diag_add(d, RT_DIAG_PASS, "ports", NULL, "%s port %u: %s (phys %s), %s, %s%s",
		    p->dev, p->port, p->state, p->phys, p->link,
		    p->rate[0] ? p->rate : "rate ?", mtu);
}

void rt_diag_ports(struct rt_diag *d)
{
	for (int i = 0; i < d->nports; i++)
		judge_port(d, &d->ports[i]);
}

/* ---- addresses, GIDs and which port carries which address --------------- */

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

static const char *ip_str(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = sa->sa_family == AF_INET
		? (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
		: (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

	if (!inet_ntop(sa->sa_family, a, buf, (socklen_t)len))
		rt_strlcpy(buf, "?", len);
	return buf;
}

/* The GID table of one RoCE port: entries in use, with type and netdev. */
static void gid_table(const struct rt_diag_env *e, const struct rt_diag_port *p,
		      char *buf, size_t len)
{
	char gid[64], type[24], ndev[32];
	union ibv_gid g;

	for (unsigned i = 0; i < 256; i++) {
		if (!read_at(gid, sizeof(gid), "%s/class/infiniband/%s/ports/%u/gids/%u",
			     e->sysfs, p->dev, p->port, i))
			break;
		if (inet_pton(AF_INET6, gid, g.raw) != 1 || !rt_gid_in_use(&g))
			continue;
		read_at(type, sizeof(type), "%s/class/infiniband/%s/ports/%u/gid_attrs/types/%u",
			e->sysfs, p->dev, p->port, i);
		read_at(ndev, sizeof(ndev), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
			e->sysfs, p->dev, p->port, i);
		append(buf, len, "%s[%u] %s %s %s", buf[0] ? "; " : "", i, gid,
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
			ip_str(sa, ip, len);
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

		ip_str(sa, ip, sizeof(ip));
		p = rt_diag_port_of(e, d, sa, &idx);
		if (p) {
			n++;
			append(carried, sizeof(carried), "%s%s (%s) on %s port %u", carried[0] ? ", " : "",
			       ip, d->addrs[i].ifname, p->dev, p->port);
			continue;
		}
		append(others, sizeof(others), "%s%s (%s)", others[0] ? ", " : "", ip,
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

/* ---- limits and namespaces ----------------------------------------------- */

/* In the initial user namespace: its uid_map maps all of them. Outside
 * it, capabilities do not count for locked memory (the kernel asks the
 * initial namespace), though CapEff lists them. */
static bool initial_userns(const struct rt_diag_env *e)
{
	char path[512], map[64], *p = map, *end;
	unsigned long long v[3];

	snprintf(path, sizeof(path), "%s/self/uid_map", e->proc);
	if (!rt_read_line(path, map, sizeof(map)))
		return true; /* no user namespaces */
	for (int i = 0; i < 3; i++, p = end) {
		v[i] = strtoull(p, &end, 10);
		if (end == p)
			return false;
	}
	return !v[0] && !v[1] && v[2] == 4294967295ULL;
}

bool rt_diag_has_ipc_lock(const struct rt_diag_env *e)
{
	char path[512], line[128];
	unsigned long long caps = 0;
	bool found = false;
	FILE *f;

	if (!initial_userns(e))
		return false;
	snprintf(path, sizeof(path), "%s/self/status", e->proc);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *end;

		if (strncmp(line, "CapEff:", 7))
			continue;
		caps = strtoull(line + 7, &end, 16);
		found = end != line + 7;
	}
	if (f)
		fclose(f);
	return found && (caps & (1ULL << 14)); /* CAP_IPC_LOCK */
}

void rt_diag_memlock(struct rt_diag *d, unsigned long long limit, bool ipc_lock)
{
	const char *fix = "raise it: ulimit -l unlimited (or LimitMEMLOCK=infinity, "
			  "memlock in /etc/security/limits.conf, docker --ulimit memlock=-1)";

	if (limit == (unsigned long long)RLIM_INFINITY)
		rt_diag_add(d, RT_DIAG_PASS, "memlock", NULL, "unlimited");
	else if (limit >= MEMLOCK_NEED)
		rt_diag_add(d, RT_DIAG_PASS, "memlock", NULL, "%llu KiB (the default tests "
			    "need %llu KiB)", limit >> 10, MEMLOCK_NEED >> 10);
	else if (ipc_lock)
		rt_diag_add(d, RT_DIAG_WARN, "memlock", fix, "%llu KiB, below the %llu KiB the "
			    "default tests need; this process has CAP_IPC_LOCK and passes, "
			    "unprivileged users fail ibv_reg_mr", limit >> 10, MEMLOCK_NEED >> 10);
	else
		rt_diag_add(d, RT_DIAG_FAIL, "memlock", fix, "%llu KiB, below the %llu KiB the "
			    "default tests need (ibv_reg_mr fails: Cannot allocate memory)",
			    limit >> 10, MEMLOCK_NEED >> 10);
}

static void ns_id(const struct rt_diag_env *e, const char *pid, char *buf, size_t len)
{
	char path[512];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/ns/net", e->proc, pid);
	n = readlink(path, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

void rt_diag_netns(const struct rt_diag_env *e, struct rt_diag *d)
{
	char self[64], init[64], mode[8];
	bool shared;

	ns_id(e, "self", self, sizeof(self));
	ns_id(e, "1", init, sizeof(init));
	/* ib_core's netns_mode at load time; `rdma system set netns` changes it */
	read_at(mode, sizeof(mode), "%s/module/ib_core/parameters/netns_mode", e->sysfs);
	shared = mode[0] != 'N';
	if (!self[0] || !init[0] || !strcmp(self, init)) {
		rt_diag_add(d, RT_DIAG_PASS, "netns", NULL, "initial network namespace %s; "
			    "rdma subsystem %s", self[0] ? self : "?", shared ? "shared" : "exclusive");
		return;
	}
	if (!shared && !d->nports)
		rt_diag_add(d, RT_DIAG_FAIL, "netns", "move a device in: rdma dev set DEV "
			    "netns NAME (exclusive mode gives each device to one namespace)",
			    "namespace %s (not the initial %s), rdma subsystem exclusive, no "
			    "device here", self, init);
	else
		rt_diag_add(d, RT_DIAG_WARN, "netns", "RDMA CM needs the RDMA port's netdev "
			    "(or a macvlan/ipvlan on it) in this namespace; Soft-RoCE works "
			    "only in the initial one",
			    "namespace %s (not the initial %s), rdma subsystem %s", self, init,
			    shared ? "shared" : "exclusive");
}

void rt_diag_local(const struct rt_diag_env *e, struct rt_diag *d, bool verbs)
{
	struct rlimit rl = { 0 };

	rt_diag_modules(e, d);
	rt_diag_devices(e, d);
	rt_diag_devnodes(e, d);
	if (verbs)
		rt_diag_port_mtus(d);
	rt_diag_ports(d);
	rt_diag_local_addrs(d);
	rt_diag_gids(e, d);
	rt_diag_ipmap(e, d);
	getrlimit(RLIMIT_MEMLOCK, &rl);
	rt_diag_memlock(d, (unsigned long long)rl.rlim_cur, rt_diag_has_ipc_lock(e));
	rt_diag_netns(e, d);
}

/* ---- the route to ADDR ---------------------------------------------------- */

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
	ip_str((struct sockaddr *)local, src, sizeof(src));
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

/* ---- the hint for other applets ------------------------------------------- */

static bool address_error(const struct rt_error *err)
{
	return !strcmp(err->phase, "resolve-addr") || !strcmp(err->phase, "resolve-route") ||
	       strstr(err->event, "ADDR_ERROR") || strstr(err->event, "ROUTE_ERROR") ||
	       strstr(err->reason, "no RDMA device owns");
}

/* The first IPv4 address in text ("192.0.2.2:7174", "to 192.0.2.2"),
 * the peer an address error names; false if there is none. */
static bool peer_in(const char *text, char *ip, size_t len)
{
	for (const char *p = text; *p; p++) {
		size_t n = strspn(p, "0123456789.");
		struct in_addr a;
		char word[16];

		if (n >= 7 && n < sizeof(word) && (p == text || !strchr("0123456789.", p[-1]))) {
			memcpy(word, p, n);
			word[n] = '\0';
			if (inet_pton(AF_INET, word, &a) == 1) {
				rt_strlcpy(ip, word, len);
				return true;
			}
		}
		p += n ? n - 1 : 0;
	}
	return false;
}

/* The finding that applies to err: the first local FAIL; for an address
 * error without one, the route to the peer it names when no RDMA port
 * carries that route. NULL when doctor has nothing to add. */
static const struct rt_diag_line *applies(const struct rt_diag_env *e, struct rt_diag *d,
					  const struct rt_error *err)
{
	const struct rt_diag_line *l = rt_diag_first(d, RT_DIAG_FAIL);
	struct sockaddr_storage local;
	char ip[16];

	if (l || !address_error(err) || !peer_in(err->reason, ip, sizeof(ip)))
		return l;
	rt_diag_route(e, d, ip, &local);
	return rt_diag_first(d, RT_DIAG_FAIL);
}

void rt_diag_hint(struct rt_error *err, const struct rt_diag_env *e)
{
	const struct rt_diag_line *l;
	struct rt_diag *d;

	if (!err->set || (err->exit_code != RT_EXIT_ENV && !address_error(err)))
		return;
	d = rt_xcalloc(1, sizeof(*d));
	rt_diag_local(e, d, false);
	l = applies(e, d, err);
	if (l)
		snprintf(err->hint, sizeof(err->hint), "rdmatest doctor: %s FAIL: %.190s",
			 l->check, l->fix);
	free(d);
}

void rt_diag_failure_hint(const char *applet, struct rt_error *err)
{
	if (strcmp(applet, "doctor"))
		rt_diag_hint(err, &rt_diag_env_real);
}
