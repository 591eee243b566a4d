/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The rails of this host for a mesh run: every RDMA port of the host,
 * ACTIVE or not, with an IP address (its GID table holds the address:
 * the IPv4-mapped RoCE v2 GID of its netdev's address, or for InfiniBand
 * its IPoIB netdev holds it) or without, so that a port that is DOWN or
 * lost its address is named, not left out. A rail's number is its port's place in (device, port) order,
 * device names compared with their digits as numbers (mlx5_2 before
 * mlx5_10), among all the host's ports: a port that lost its address
 * keeps its number and moves no other rail, so hosts are paired rail by
 * rail by the same ports. A rail without an address is judged
 * (meshagg.h: it lost the address when another host's rail of that
 * number has one) and tested over verbs alone (meshvtest.h), since the
 * RDMA CM needs an address. A host without an RDMA port lists no rail,
 * and its host name is tested, as before rails.
 * Built on doctor's facts (diag.h: the ports sysfs lists, the local
 * addresses, the active MTU), so that unit tests run on a fake tree.
 * A rail's speed is the port's active speed x width (sysfs gives the
 * active rate only: a port below what it could run at is not knowable
 * here) and its payload rate is linerate.h's at the active MTU.
 * Bounds: at most RT_MESH_RAILS_MAX (32) rails a host; doctor examines
 * RT_DIAG_PORTS (256) ports, so the rail bound binds: rails past the
 * 32nd are not taken; nothing is allocated. */
#ifndef RDMATEST_MESHRAILS_H
#define RDMATEST_MESHRAILS_H

#include "doctor/diag.h"
#include "mesh/meshwire.h"

/* The rails of d (after rt_diag_devices, rt_diag_local_addrs and, for
 * the MTU and payload rate, rt_diag_port_mtus and rt_diag_ports) into
 * out[RT_MESH_RAILS_MAX]; returns their count. */
unsigned rt_mesh_rails_find(const struct rt_diag_env *e, const struct rt_diag *d,
			    struct rt_mesh_rail *out);

/* --rails LIST|all (comma-separated rail numbers) or --devices
 * DEV[:PORT],... (not both: exit 2): keeps the chosen rails of
 * rails[0..*n) in order, their numbers unchanged. A list that is not of
 * that form is exit 2; a rail or device this host does not have is exit
 * 3 naming what it has. NULL for both keeps them all. */
int rt_mesh_rails_choose(struct rt_mesh_rail *rails, unsigned *n, const char *list,
			 const char *devices, struct rt_error *err);

/* The same checks of the two options' form alone (exit 2), before any
 * device is looked at. */
int rt_mesh_rails_check(const char *list, const char *devices, struct rt_error *err);

/* The rail whose address is `addr` (numeric), or -1. */
int rt_mesh_rail_of_addr(const struct rt_mesh_rail *rails, unsigned n, const char *addr);

#endif
