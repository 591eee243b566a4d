/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's checklist: why RDMA does or does not work on this host, one
 * line per finding (PASS, WARN or FAIL) with its evidence and, for
 * anything but PASS, the fix in one sentence. The checks read sysfs,
 * procfs and /dev under roots given in struct rt_diag_env, so that unit
 * tests run them on a fake tree; only the verbs probes (active MTU,
 * provider capabilities) and the network probes (diag_peer.h) need the
 * real thing. Memory: a fixed RT_DIAG_MAX lines, the rest counted, and
 * RT_DIAG_PORTS ports with their counters: about 3 MiB, allocated zeroed
 * and touched only as far as the host has ports. */
#ifndef RDMATEST_DIAG_H
#define RDMATEST_DIAG_H

#include <stdbool.h>
#include <sys/socket.h>

#include "rdmatest/ethctr.h"
#include "rdmatest/portctr.h"
#include "doctor/expect.h"
#include "rdmatest/error.h"

enum rt_diag_level { RT_DIAG_PASS, RT_DIAG_WARN, RT_DIAG_FAIL };

#define RT_DIAG_PORTS 256 /* ports examined; more are counted in `dropped` */
/* lines kept, more are counted in `dropped`: a few for each port (its
 * state, GIDs, counters, DCB, expected state) and the host's own */
#define RT_DIAG_MAX (3 * RT_DIAG_PORTS + 64)
#define RT_DIAG_ADDRS 32 /* local addresses examined */

struct rt_diag_line {
	enum rt_diag_level level;
	char check[16];
	char evidence[384];
	char fix[192]; /* "" for PASS */
};

/* What a port says about itself (sysfs), and its active and largest MTU
 * (verbs). */
struct rt_diag_port {
	char dev[64];
	unsigned port;
	char state[24], phys[24], link[16], rate[48];
	char ndev[32];      /* the netdev behind it, "" if none */
	char ndev_state[16];
	int ndev_mtu;       /* 0: unknown */
	/* Not ACTIVE, no local address on its netdev and not named by the
	 * --expect file (rt_diag_ports): a spare or uncabled port, reported
	 * but not judged. */
	bool unused;
	int active_mtu;     /* bytes; 0: not asked (no verbs) */
	int max_mtu;        /* the largest the port supports, bytes; 0: not asked */
	/* From rate and active_mtu (rt_diag_ports, core/linerate.h), 0 when
	 * the rate file does not say: the kernel's nominal rate and the most
	 * RDMA WRITE payload at the active MTU. */
	double rate_gbps, payload_gbps;
};

struct rt_diag_addr {
	char ifname[32];
	struct sockaddr_storage sa;
};

struct rt_diag {
	struct rt_diag_line lines[RT_DIAG_MAX];
	int n, dropped;
	bool no_rdma;  /* no device at all: exit 3 */
	struct rt_diag_port ports[RT_DIAG_PORTS];
	int nports;
	/* counters[i]: ports[i]'s sysfs counters (rt_diag_port_counters) */
	struct rt_portctrs counters[RT_DIAG_PORTS];
	struct rt_diag_addr addrs[RT_DIAG_ADDRS];
	int naddrs;
	/* the --expect file, or NULL: a port it names is never unused */
	const struct rt_diag_expect *expect;
	/* the traffic class the tests use (--tclass, 0..255): the DCB check
	 * asks whether its DSCP (tclass >> 2) lands on a PFC priority */
	int tclass;
};

/* Where the checks look: "/sys", "/proc", "/dev", "/lib/modules" but in
 * tests. `modules` may be NULL: the modules check then cannot tell a
 * kernel without RDMA modules from one whose modules are not loaded. */
struct rt_diag_env {
	const char *sysfs, *proc, *dev, *modules;
};
extern const struct rt_diag_env rt_diag_env_real;

/* ---- the finding recorder (diag_finding.c), below every check ---------- */
void rt_diag_add(struct rt_diag *d, enum rt_diag_level level, const char *check,
		 const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
const char *rt_diag_level_name(enum rt_diag_level l);
/* The first line at `level`, or NULL. */
const struct rt_diag_line *rt_diag_first(const struct rt_diag *d,
					 enum rt_diag_level level);
/* 0 nothing failed, 1 something did, 3 no RDMA device at all. */
int rt_diag_exit(const struct rt_diag *d);

/* ---- the local checks, in checklist order ------------------------------ */
void rt_diag_modules(const struct rt_diag_env *e, struct rt_diag *d);
/* Lists the devices and fills d->ports from sysfs, in natural order
 * (mlx5_2 before mlx5_10). */
void rt_diag_devices(const struct rt_diag_env *e, struct rt_diag *d);
/* After rt_diag_devices: no uverbs node is only a finding with devices. */
void rt_diag_devnodes(const struct rt_diag_env *e, struct rt_diag *d);
/* Adds the active MTU of every port (verbs); without devices a no-op. */
void rt_diag_port_mtus(struct rt_diag *d);
/* After rt_diag_local_addrs: a port that is not ACTIVE fails, unless it
 * is unused (no address on its netdev, not named by d->expect): then one
 * PASS line says so. */
void rt_diag_ports(struct rt_diag *d);
/* Reads each port's counters into d->counters; a link error counter above
 * zero is a WARN naming it, the retransmit and congestion ones are named
 * in the PASS line (diag_counters.c, docs/man/doctor.1). */
void rt_diag_port_counters(const struct rt_diag_env *e, struct rt_diag *d);
/* Each used RoCE port's netdev: PFC, trust mode and DSCP map where the
 * driver shows them in sysfs (qos/), and whether d->tclass lands on a
 * PFC priority (a WARN when PFC protects others only); a driver that
 * shows nothing is a PASS saying so (diag_dcb.c). */
void rt_diag_dcb(const struct rt_diag_env *e, struct rt_diag *d);
/* Whether ports[i] is the port a RoCE netdev's checks (dcb, pause) run
 * through: used, Ethernet, with a netdev, and the first such port of
 * that netdev, so that each netdev is checked once (diag_ports.c). */
bool rt_diag_roce_netdev(const struct rt_diag *d, int i);
/* Each used RoCE port's netdev, on the running kernel only (e->sysfs
 * "/sys"): its driver's pause and discard counters (core's ethctr.h),
 * a PASS line listing those above zero, or saying plainly that the
 * driver keeps none or its statistics cannot be read (diag_pause.c). */
void rt_diag_pause(const struct rt_diag_env *e, struct rt_diag *d);
/* That line for one netdev, `where` "eth2 (mlx5_0 port 1)", from a
 * reading's outcome (rc: rt_ethctr_read's) and the table it filled. */
void rt_diag_pause_report(struct rt_diag *d, const char *where, int rc,
			  const struct rt_ethctr_reading *r, const struct rt_portctrs *t);
/* Local addresses: from getifaddrs, loopback and IPv6 link-local left out. */
void rt_diag_local_addrs(struct rt_diag *d);
void rt_diag_gids(const struct rt_diag_env *e, struct rt_diag *d);
void rt_diag_ipmap(const struct rt_diag_env *e, struct rt_diag *d);
/* `limit` in bytes (RLIM_INFINITY: unlimited); `ipc_lock`: the process
 * may lock memory beyond it (CAP_IPC_LOCK). */
void rt_diag_memlock(struct rt_diag *d, unsigned long long limit, bool ipc_lock);
/* CAP_IPC_LOCK in the effective set of `proc`/self/status, and in the
 * initial user namespace (the one the kernel asks). */
bool rt_diag_has_ipc_lock(const struct rt_diag_env *e);
void rt_diag_netns(const struct rt_diag_env *e, struct rt_diag *d);
/* GPUDirect RDMA on a host with an NVIDIA or AMD GPU (diag_gpu.c): the
 * peer memory module or dma-buf path, each RDMA device's nearest GPU and
 * ACS between them, PCIe links below their maximum, the IOMMU mode.
 * Without a GPU it adds nothing. */
void rt_diag_gpu(const struct rt_diag_env *e, struct rt_diag *d);
/* Provider capabilities of each device (opens it, creates RC and UD QPs). */
void rt_diag_caps(struct rt_diag *d);
/* Every local check above but caps, in order (active MTUs only with
 * `verbs`); rt_diag_caps comes after it (diag_caps.c). */
void rt_diag_local(const struct rt_diag_env *e, struct rt_diag *d, bool verbs);

/* The port carrying local address `sa` and the RoCE v2 GID index the
 * applets pick for it (rt_roce_v2_gid_of); NULL when none carries it. */
const struct rt_diag_port *rt_diag_port_of(const struct rt_diag_env *e,
					   const struct rt_diag *d,
					   const struct sockaddr *sa, int *gid_index);
/* The interface holding local address `sa` ("" if none). */
const char *rt_diag_ifname_of(const struct rt_diag *d, const struct sockaddr *sa);

/* With ADDR: the local address and interface the route to it leaves
 * through, and whether an RDMA port carries that. Returns the port (NULL
 * when the check failed) and the local address in *local. */
const struct rt_diag_port *rt_diag_route(const struct rt_diag_env *e,
					 struct rt_diag *d, const char *addr,
					 struct sockaddr_storage *local);

/* For the other applets' error: puts into err->hint the doctor finding
 * that explains it, if any: the first FAIL among the checks that bear on
 * the error (device checks for a device error, memlock for a memory
 * registration, GIDs for a GID error, and for an address or route error
 * those and the route to the IPv4 peer its reason names). Nothing for a
 * usage error, an error about an option's value ("-d nosuch: no such
 * device", "--hosts: ..."), one that carries a finding already, or any
 * other error (a host list, a launcher, a peer's). */
void rt_diag_hint(struct rt_error *err, const struct rt_diag_env *e);
/* rt_main_hooks.failure_hint (applet.h): rt_diag_hint on this host, for
 * any applet but doctor, which reports its own findings. */
void rt_diag_failure_hint(const char *applet, struct rt_error *err);

#endif
