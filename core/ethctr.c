/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A RoCE port's netdev's pause and discard counters, read as `ethtool -S`
 * reads them (ethctr.h). */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rdmatest/ethctr.h"
#include "rdmatest/util.h"

_Static_assert(RT_ETHCTR_NAME_LEN == ETH_GSTRING_LEN, "the kernel's name width");

bool rt_ethctr_netdev(const char *sysfs, const char *dev, unsigned port, char *out,
		      size_t len)
{
	char path[512], name[64];

	/* read whole, so that a longer name is refused, not cut to one */
	if (!rt_portctr_path(path, sizeof(path), sysfs, dev, port, "gid_attrs/ndevs/0") ||
	    !rt_read_line(path, name, sizeof(name)) || !name[0] || strlen(name) >= IFNAMSIZ ||
	    strlen(name) >= len)
		return false;
	rt_strlcpy(out, name, len);
	return true;
}

unsigned rt_ethctr_pick(const char *names, const unsigned long long *values, unsigned n,
			struct rt_portctrs *t)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i++) {
		char name[RT_ETHCTR_NAME_LEN + 1];

		memcpy(name, names + (size_t)i * RT_ETHCTR_NAME_LEN, RT_ETHCTR_NAME_LEN);
		name[RT_ETHCTR_NAME_LEN] = '\0';
		if (rt_portctr_ethtool(name) && rt_portctr_add(t, name, true, values[i]))
			kept++;
	}
	return kept;
}

/* One SIOCETHTOOL call on netdev with `cmd` (an ethtool_* struct). */
static int ethtool(int fd, const char *netdev, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	rt_strlcpy(ifr.ifr_name, netdev, sizeof(ifr.ifr_name));
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

static int failed(struct rt_ethctr_reading *r, const char *why, int err)
{
	r->why = why;
	r->err = err;
	return -1;
}

/* The names, then the values, of the driver's r->listed statistics;
 * either call answering another count is a list that changed between
 * them (a channel added), refused rather than misread. The buffers have
 * room for the bound, not for r->listed: the kernel writes as many as
 * the driver counts at each call, whatever count it is given (Linux's
 * net/ethtool/ioctl.c, ethtool_get_strings and ethtool_get_stats), so a
 * list that grew between the calls must not run past them. calloc maps
 * zero pages for so large a block: only what the kernel writes becomes
 * resident. */
static int read_list(int fd, const char *netdev, struct rt_portctrs *t,
		     struct rt_ethctr_reading *r)
{
	size_t n = r->listed, room = RT_ETHCTR_STATS_MAX;
	struct ethtool_gstrings *names = calloc(1, sizeof(*names) + room * ETH_GSTRING_LEN);
	struct ethtool_stats *stats = calloc(1, sizeof(*stats) + room * sizeof(uint64_t));
	int rc = 0;

	if (!names || !stats) {
		rc = failed(r, "memory for the statistics", ENOMEM);
		goto out;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = (uint32_t)n;
	stats->cmd = ETHTOOL_GSTATS;
	stats->n_stats = (uint32_t)n;
	if (ethtool(fd, netdev, names))
		rc = failed(r, "ETHTOOL_GSTRINGS", errno);
	else if (ethtool(fd, netdev, stats))
		rc = failed(r, "ETHTOOL_GSTATS", errno);
	else if (names->len != n || stats->n_stats != n)
		rc = failed(r, "the statistics' count changed while read", 0);
	else
		r->kept = rt_ethctr_pick((const char *)names->data, stats->data, (unsigned)n, t);
out:
	free(names);
	free(stats);
	return rc;
}

int rt_ethctr_read(const char *netdev, struct rt_portctrs *t, struct rt_ethctr_reading *r)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	int fd, rc;

	*r = (struct rt_ethctr_reading){ 0 };
	if (strlen(netdev) >= IFNAMSIZ)
		return failed(r, "a netdev name over IFNAMSIZ", EINVAL);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return failed(r, "socket", errno);
	if (ethtool(fd, netdev, &info)) {
		rc = failed(r, "ETHTOOL_GDRVINFO", errno);
	} else {
		rt_strlcpy(r->driver, info.driver, sizeof(r->driver));
		r->listed = info.n_stats;
		if (!info.n_stats)
			rc = failed(r, "the driver lists no statistics", EOPNOTSUPP);
		else if (info.n_stats > RT_ETHCTR_STATS_MAX)
			rc = failed(r, "more statistics than rdmatest reads", 0);
		else
			rc = read_list(fd, netdev, t, r);
	}
	close(fd);
	return rc;
}

bool rt_ethctr_live(const char *sysfs)
{
	return !strcmp(sysfs, "/sys");
}

unsigned rt_ethctr_add(const char *sysfs, const char *dev, unsigned port,
		       struct rt_portctrs *t)
{
	struct rt_ethctr_reading r;
	char netdev[IFNAMSIZ];

	if (!rt_ethctr_live(sysfs) || !rt_ethctr_netdev(sysfs, dev, port, netdev, sizeof(netdev)))
		return 0;
	return rt_ethctr_read(netdev, t, &r) ? 0 : r.kept;
}
