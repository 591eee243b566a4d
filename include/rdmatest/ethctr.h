/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A RoCE port's Ethernet counters that its sysfs directories (portctr.h)
 * lack: the pause frames its netdev received and sent (PFC per priority,
 * and the link-wide pause) and the packets its physical port discarded.
 * The kernel keeps them only in the driver's statistics, which `ethtool
 * -S` prints: they are read with the same SIOCETHTOOL calls
 * (ETHTOOL_GDRVINFO for the driver's name and the statistics' count,
 * ETHTOOL_GSTRINGS for their names, ETHTOOL_GSTATS for their values),
 * and those whose names portctr.h's table knows (rt_portctr_ethtool:
 * mlx5's rx_prioN_pause, tx_prioN_pause, rx_pause_ctrl_phy,
 * tx_pause_ctrl_phy, rx_discards_phy, tx_discards_phy; bnxt_en's
 * rx_pfc_ena_frames_priN, tx_pfc_ena_frames_priN; ice's
 * rx_priority_N_xoff.nic, tx_priority_N_xoff.nic) are added to a
 * port's table as the driver's own counters (hw), classified as
 * congestion: reported, never judged.
 *
 * A driver that names its statistics otherwise (virtio_net and veth, the
 * lab's Soft-RoCE links) or lists none (lo) gives nothing: the reading says how many
 * it listed, so a caller can say so plainly.
 *
 * Memory: one reading allocates room for RT_ETHCTR_STATS_MAX statistics
 * of 40 bytes (name and value: 1.25 MiB, of which only the driver's list
 * is touched), freed before it returns; one socket, closed likewise. */
#ifndef RDMATEST_ETHCTR_H
#define RDMATEST_ETHCTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/portctr.h"

/* Statistics a driver may list (mlx5 lists about 40 a channel: some
 * thousands); a longer list is refused, not read. */
#define RT_ETHCTR_STATS_MAX 32768u
/* ETHTOOL_GSTRINGS' fixed name width (linux/ethtool.h's ETH_GSTRING_LEN) */
#define RT_ETHCTR_NAME_LEN 32u

struct rt_ethctr_reading {
	char driver[32];  /* ETHTOOL_GDRVINFO's, "" when not asked */
	unsigned listed;  /* statistics the driver lists */
	unsigned kept;    /* of those, added to the table */
	/* on failure: which call or check failed ("ETHTOOL_GDRVINFO", ...),
	 * and its errno (0 for a check of the driver's answer) */
	const char *why;
	int err;
};

/* The netdev behind RoCE port `port` of `dev` under `sysfs`: its GID 0's
 * (gid_attrs/ndevs/0), into out. False on an InfiniBand port or when the
 * name does not fit. */
bool rt_ethctr_netdev(const char *sysfs, const char *dev, unsigned port, char *out,
		      size_t len);
/* Adds the counters rt_portctr_ethtool knows from one driver's list:
 * `names` is n fixed-width names of RT_ETHCTR_NAME_LEN bytes (NUL-padded,
 * or not terminated when the name fills them), `values` their values
 * (the kernel's __u64, an unsigned long long on every Linux ABI), in the
 * layout the kernel returns. Returns how many were added. */
unsigned rt_ethctr_pick(const char *names, const unsigned long long *values, unsigned n,
			struct rt_portctrs *t);
/* Reads netdev's statistics through SIOCETHTOOL and adds the known ones
 * to t. 0, or -1 with the cause in r->why and r->err (no such netdev,
 * a driver without statistics: EOPNOTSUPP; more than the bound; a count
 * that changed between the calls). */
int rt_ethctr_read(const char *netdev, struct rt_portctrs *t, struct rt_ethctr_reading *r);
/* Whether a sysfs root is the running kernel's ("/sys"), whose netdevs
 * have drivers to ask; a tree elsewhere (the tests' fakes) has none. */
bool rt_ethctr_live(const char *sysfs);
/* What mesh reads around a test: when `sysfs` is live and the port is
 * RoCE, its netdev's known counters are added to t.
 * Returns how many were added; any failure adds none, silently: a port's
 * Ethernet counters are evidence, never a condition of its test. */
unsigned rt_ethctr_add(const char *sysfs, const char *dev, unsigned port,
		       struct rt_portctrs *t);

#endif
