/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What devices and ports report about themselves, for the applets that
 * show or check it (ibv_devices, ibv_devinfo, ibv_asyncwatch, doctor):
 * the device list, device and port attributes, and the GID table with
 * each entry's type. Querying only; every applet formats for itself.
 * Nothing here allocates beyond libibverbs' own device list: the GID
 * table is read one entry at a time. */
#ifndef RDMATEST_DEVQUERY_H
#define RDMATEST_DEVQUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"

struct rt_devlist {
	struct ibv_device **devs; /* NULL-terminated */
	int n;
};

/* The devices there are (possibly none). A list that cannot be had at all
 * (no RDMA support in the kernel: ENOSYS) fails with exit 3 and errno. */
int rt_devlist_open(struct rt_devlist *l, struct rt_error *err);
void rt_devlist_close(struct rt_devlist *l);
/* 0 when this host has an RDMA device; else exit 3 in err, the one "no
 * RDMA device" message (with how to get one). */
int rt_devices_present(struct rt_error *err);
/* The device called `name`, or NULL. */
struct ibv_device *rt_devlist_find(const struct rt_devlist *l, const char *name);
/* "rxe0, rxe1" for messages, truncated to len. */
void rt_devlist_names(const struct rt_devlist *l, char *buf, size_t len);
/* The device `name` (NULL: the first). None at all, or none of that name
 * (the message lists the devices there are): NULL, exit 3 in err. */
struct ibv_device *rt_devlist_pick(const struct rt_devlist *l, const char *name,
				   struct rt_error *err);

/* Device attributes (the extended set where the provider has it; zeroes
 * where it has not) and one port's attributes. Failures: exit 3 naming
 * the device (and port). */
int rt_dev_attrs(struct ibv_context *ctx, const char *name,
		 struct ibv_device_attr_ex *a, struct rt_error *err);
int rt_port_attrs(struct ibv_context *ctx, const char *name, uint8_t port,
		  struct ibv_port_attr *a, struct rt_error *err);

enum rt_gid_type {
	RT_GID_UNKNOWN, /* the kernel does not say: typically an unused entry */
	RT_GID_IB,      /* InfiniBand, and RoCE v1 ("IB/RoCE v1" in sysfs) */
	RT_GID_ROCE_V1,
	RT_GID_ROCE_V2,
};

struct rt_gid {
	unsigned index;
	union ibv_gid gid;
	enum rt_gid_type type;
};

/* Entry `index` of the port's GID table: its value (a table the port
 * claims must be readable, so a failure is exit 3) and its type
 * (RT_GID_UNKNOWN when it cannot be had). */
int rt_gid_get(struct ibv_context *ctx, const char *name, uint8_t port,
	       unsigned index, struct rt_gid *g, struct rt_error *err);
/* An entry is in use when its interface identifier (the last 8 bytes) is
 * not zero; unused entries read as zeroes or as a bare prefix. */
bool rt_gid_in_use(const union ibv_gid *gid);
/* "IB", "RoCE v1", "RoCE v2", or "unknown". */
const char *rt_gid_type_name(enum rt_gid_type t);

#endif
