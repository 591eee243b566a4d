/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's expected state (diag_expect.h). A golden state per machine
 * type is how fleets catch drift a working host does not show: a port
 * trained at a lower rate, a NIC in a x8 slot, another firmware. */
#include <arpa/inet.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor/diag_expect.h"
#include "doctor/diag_read.h"
#include "rdmatest/linerate.h"
#include "rdmatest/util.h"

enum scope { HOST, DEVICE, PORT };

/* Every key doctor knows: its scope, and how a difference reads. */
static const struct fact {
	const char *attr, *label, *unit;
	enum scope scope;
} facts[] = {
	{ "kernel", "kernel", "", HOST },
	{ "rdma_core", "rdma-core", "", HOST },
	{ "fw_ver", "firmware", "", DEVICE },
	{ "driver", "driver", "", DEVICE },
	{ "pcie_speed", "PCIe speed", "", DEVICE },
	{ "pcie_width", "PCIe lanes", "", DEVICE },
	{ "state", "state", "", PORT },
	{ "link_layer", "link layer", "", PORT },
	{ "rate_gbps", "rate", " Gb/s", PORT },
	{ "width", "width", "", PORT },
	{ "active_mtu", "active MTU", "", PORT },
	{ "gid_type", "GID type", "", PORT },
};

/* The fact a key names, and in `where` whose it is ("mlx5_0 port 1: ",
 * "mlx5_0: ", ""); NULL for a key doctor does not know. */
static const struct fact *fact_of(const char *key, char *where, size_t len)
{
	const char *dot = strrchr(key, '.'), *attr = dot ? dot + 1 : key;
	const char *slash = dot ? memchr(key, '/', (size_t)(dot - key)) : NULL;
	enum scope scope = !dot ? HOST : slash ? PORT : DEVICE;
	char *end;

	if (scope == PORT && (strtoul(slash + 1, &end, 10) == 0 || end != dot))
		return NULL;
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		if (strcmp(facts[i].attr, attr) || facts[i].scope != scope)
			continue;
		if (scope == PORT)
			snprintf(where, len, "%.*s port %.*s: ", (int)(slash - key), key,
				 (int)(dot - slash - 1), slash + 1);
		else
			snprintf(where, len, "%.*s%s", dot ? (int)(dot - key) : 0, key,
				 dot ? ": " : "");
		return &facts[i];
	}
	return NULL;
}

int rt_diag_expect_known(const struct rt_diag_expect *x, unsigned *line, char *why,
			 size_t why_len)
{
	char where[160];

	for (int i = 0; i < x->n; i++)
		if (!fact_of(x->e[i].key, where, sizeof(where))) {
			*line = x->e[i].line;
			snprintf(why, why_len, "%s: not a key doctor knows (kernel, rdma_core, "
				 "DEV.fw_ver, DEV/PORT.rate_gbps, ...: doctor(1))", x->e[i].key);
			return -1;
		}
	return 0;
}

bool rt_diag_expect_names_port(const struct rt_diag_expect *x, const char *dev,
			       unsigned port)
{
	char prefix[96];
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "%s/%u.", dev, port);

	for (int i = 0; x && i < x->n; i++)
		if (!strncmp(x->e[i].key, prefix, n))
			return true;
	return false;
}

static void add_read(struct rt_diag_expect *x, const char *key, const char *path)
{
	char v[RT_DIAG_EXPECT_VALUE];

	if (rt_diag_read_at(v, sizeof(v), "%s", path))
		rt_diag_expect_add(x, key, "%s", v);
}

/* The device's firmware, driver, and its PCI function's link now. */
static void device_facts(const struct rt_diag_env *e, const char *dev,
			 struct rt_diag_expect *x)
{
	static const char *const files[][2] = {
		{ "fw_ver", "fw_ver" },
		{ "pcie_speed", "device/current_link_speed" },
		{ "pcie_width", "device/current_link_width" },
	};
	char path[512], key[RT_DIAG_EXPECT_KEY], link[PATH_MAX];
	ssize_t n;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(key, sizeof(key), "%s.%s", dev, files[i][0]);
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/%s", e->sysfs, dev,
			 files[i][1]);
		add_read(x, key, path);
	}
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/driver", e->sysfs, dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		snprintf(key, sizeof(key), "%s.driver", dev);
		rt_diag_expect_add(x, key, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1
								     : link);
	}
}

/* The type of the GIDs that carry an address ("RoCE v2" when any does):
 * the one the applets use. "" when none does. */
static void gid_type(const struct rt_diag_env *e, const struct rt_diag_port *p,
		     char *type, size_t len)
{
	char gid[64], t[24];
	struct in6_addr a;

	type[0] = '\0';
	for (unsigned i = 0; i < 256 && strcmp(type, "RoCE v2"); i++) {
		if (!rt_diag_read_at(gid, sizeof(gid), "%s/class/infiniband/%s/ports/%u/gids/%u",
				     e->sysfs, p->dev, p->port, i))
			break;
		if (inet_pton(AF_INET6, gid, &a) != 1 || IN6_IS_ADDR_UNSPECIFIED(&a) ||
		    IN6_IS_ADDR_LINKLOCAL(&a))
			continue;
		if (rt_diag_read_at(t, sizeof(t), "%s/class/infiniband/%s/ports/%u/"
				    "gid_attrs/types/%u", e->sysfs, p->dev, p->port, i))
			rt_strlcpy(type, t, len);
	}
}

/* The port's lanes ("4X"), from its rate file; "" when that does not say. */
static void port_width(const struct rt_diag_port *p, char *buf, size_t len)
{
	struct rt_linerate r;
	unsigned speed, width;

	buf[0] = '\0';
	if (!rt_linerate_parse(p->rate, &speed, &width) &&
	    !rt_linerate_of(speed, width, !strcmp(p->link, "Ethernet"), 0, &r))
		snprintf(buf, len, "%uX", r.lanes);
}

/* Adds DEV/PORT.attr with `value` when the value is known (not ""). */
static void port_fact(struct rt_diag_expect *x, const struct rt_diag_port *p,
		      const char *attr, const char *value)
{
	char key[RT_DIAG_EXPECT_KEY];

	snprintf(key, sizeof(key), "%s/%u.%s", p->dev, p->port, attr);
	if (value[0])
		rt_diag_expect_add(x, key, "%s", value);
}

static void port_facts(const struct rt_diag_env *e, const struct rt_diag_port *p,
		       struct rt_diag_expect *x)
{
	/* "4: ACTIVE": the word, not the kernel's number */
	const char *state = strchr(p->state, ':') ? strchr(p->state, ':') + 1 : p->state;
	char v[32];

	port_fact(x, p, "state", state + strspn(state, " "));
	port_fact(x, p, "link_layer", p->link);
	snprintf(v, sizeof(v), "%g", p->rate_gbps);
	port_fact(x, p, "rate_gbps", p->rate_gbps > 0 ? v : "");
	port_width(p, v, sizeof(v));
	port_fact(x, p, "width", v);
	snprintf(v, sizeof(v), "%d", p->active_mtu);
	port_fact(x, p, "active_mtu", p->active_mtu > 0 ? v : "");
	gid_type(e, p, v, sizeof(v));
	port_fact(x, p, "gid_type", v);
}

void rt_diag_expect_facts(const struct rt_diag_env *e, const struct rt_diag *d,
			  const char *rdma_core, bool all, struct rt_diag_expect *x)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/sys/kernel/osrelease", e->proc);
	add_read(x, "kernel", path);
	if (rdma_core && rdma_core[0])
		rt_diag_expect_add(x, "rdma_core", "%s", rdma_core);
	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];

		if (p->unused && !all)
			continue;
		/* a device's facts once, with its first port that is kept */
		snprintf(path, sizeof(path), "%s.fw_ver", p->dev);
		if (!rt_diag_expect_get(x, path))
			device_facts(e, p->dev, x);
		port_facts(e, p, x);
	}
}

/* Numbers compare as numbers ("400" is "400.0"), the rest as text. */
static bool same_value(const char *a, const char *b)
{
	char *ea, *eb;
	double va = strtod(a, &ea), vb = strtod(b, &eb);

	if (ea != a && !*ea && eb != b && !*eb)
		return va == vb;
	return !strcmp(a, b);
}

static void differs(struct rt_diag *d, const struct rt_diag_expect_entry *want,
		    const char *found, const char *file)
{
	char where[160], fix[192];
	const struct fact *f = fact_of(want->key, where, sizeof(where));

	snprintf(fix, sizeof(fix), "find what changed (cable, slot, firmware, kernel), or if "
		 "it is meant, save the state again: doctor --save-expect %.60s", file);
	if (found)
		rt_diag_add(d, RT_DIAG_FAIL, "expect", fix, "%s%s %s%s, expected %s", where,
			    f->label, found, f->unit, want->value);
	else
		rt_diag_add(d, RT_DIAG_FAIL, "expect", fix, "%s%s not found, expected %s%s",
			    where, f->label, want->value, f->unit);
}

void rt_diag_expect_check(const struct rt_diag_env *e, struct rt_diag *d,
			  const char *rdma_core, const struct rt_diag_expect *want,
			  const char *file)
{
	struct rt_diag_expect have;
	int bad = 0;

	rt_diag_expect_init(&have);
	rt_diag_expect_facts(e, d, rdma_core, true, &have);
	for (int i = 0; i < want->n; i++) {
		const char *found = rt_diag_expect_get(&have, want->e[i].key);

		if (found && same_value(found, want->e[i].value))
			continue;
		bad++;
		differs(d, &want->e[i], found, file);
	}
	if (!bad)
		rt_diag_add(d, RT_DIAG_PASS, "expect", NULL, "%d facts as %s expects", want->n,
			    file);
	rt_diag_expect_free(&have);
}

struct soname_search {
	char *buf;
	size_t len;
};

static int find_ibverbs(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct soname_search *s = arg;
	char real[PATH_MAX];
	const char *v;

	(void)size;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "/libibverbs.so") ||
	    !realpath(info->dlpi_name, real))
		return 0;
	/* libibverbs.so.1.<ABI>.<rdma-core release>: the release follows the
	 * ABI number (rdma-core's buildlib names its libraries so) */
	v = strstr(real, "/libibverbs.so.1.");
	v = v ? strchr(v + strlen("/libibverbs.so.1."), '.') : NULL;
	if (v && v[1])
		rt_strlcpy(s->buf, v + 1, s->len);
	return 1;
}

void rt_diag_rdma_core_version(char *buf, size_t len)
{
	struct soname_search s = { buf, len };

	buf[0] = '\0';
	dl_iterate_phdr(find_ibverbs, &s);
}
