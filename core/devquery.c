/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdmatest/devquery.h"

int rt_devlist_open(struct rt_devlist *l, struct rt_error *err)
{
	l->n = 0;
	l->devs = ibv_get_device_list(&l->n);
	if (!l->devs)
		return rt_fail_errno(err, RT_EXIT_ENV, errno,
				     "cannot list RDMA devices (is RDMA support loaded: "
				     "ib_uverbs and a driver?)");
	return 0;
}

void rt_devlist_close(struct rt_devlist *l)
{
	if (l->devs)
		ibv_free_device_list(l->devs);
	l->devs = NULL;
	l->n = 0;
}

struct ibv_device *rt_devlist_find(const struct rt_devlist *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(ibv_get_device_name(l->devs[i]), name))
			return l->devs[i];
	return NULL;
}

void rt_devlist_names(const struct rt_devlist *l, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (int i = 0; i < l->n && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 ibv_get_device_name(l->devs[i]));

		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static int no_device(struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_ENV, "no RDMA device found (load a driver, or "
		       "create a Soft-RoCE device: rdma link add rxe0 type rxe "
		       "netdev IFACE)");
}

int rt_devices_present(struct rt_error *err)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (list)
		ibv_free_device_list(list);
	return list && n > 0 ? 0 : no_device(err);
}

struct ibv_device *rt_devlist_pick(const struct rt_devlist *l, const char *name,
				   struct rt_error *err)
{
	struct ibv_device *d;
	char names[256];

	if (l->n <= 0)
		return no_device(err), NULL;
	if (!name)
		return l->devs[0];
	d = rt_devlist_find(l, name);
	if (d)
		return d;
	rt_devlist_names(l, names, sizeof(names));
	rt_fail(err, RT_EXIT_ENV, "-d %s: no such RDMA device (there are: %s)", name,
		names);
	return NULL;
}

int rt_dev_attrs(struct ibv_context *ctx, const char *name,
		 struct ibv_device_attr_ex *a, struct rt_error *err)
{
	int e;

	memset(a, 0, sizeof(*a));
	e = ibv_query_device_ex(ctx, NULL, a);
	if (e)
		return rt_fail_errno(err, RT_EXIT_ENV, e == -1 ? errno : e,
				     "%s: cannot query the device's attributes", name);
	return 0;
}

int rt_port_attrs(struct ibv_context *ctx, const char *name, uint8_t port,
		  struct ibv_port_attr *a, struct rt_error *err)
{
	int e;

	memset(a, 0, sizeof(*a));
	e = ibv_query_port(ctx, port, a);
	if (e)
		return rt_fail_errno(err, RT_EXIT_ENV, e == -1 ? errno : e,
				     "%s port %u: cannot query the port's attributes",
				     name, port);
	return 0;
}

static enum rt_gid_type gid_type(struct ibv_context *ctx, uint8_t port,
				 unsigned index)
{
	struct ibv_gid_entry e;

	if (ibv_query_gid_ex(ctx, port, index, &e, 0))
		return RT_GID_UNKNOWN;
	switch (e.gid_type) {
	case IBV_GID_TYPE_IB:
		return RT_GID_IB;
	case IBV_GID_TYPE_ROCE_V1:
		return RT_GID_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2:
		return RT_GID_ROCE_V2;
	}
	return RT_GID_UNKNOWN;
}

int rt_gid_get(struct ibv_context *ctx, const char *name, uint8_t port,
	       unsigned index, struct rt_gid *g, struct rt_error *err)
{
	int e;

	memset(g, 0, sizeof(*g));
	g->index = index;
	if (index > INT32_MAX)
		return rt_fail(err, RT_EXIT_ENV, "%s port %u: GID index %u out of range",
			       name, port, index);
	e = ibv_query_gid(ctx, port, (int)index, &g->gid);
	if (e)
		return rt_fail_errno(err, RT_EXIT_ENV, e == -1 ? errno : e,
				     "%s port %u: cannot read GID %u", name, port,
				     index);
	g->type = gid_type(ctx, port, index);
	return 0;
}

bool rt_gid_in_use(const union ibv_gid *gid)
{
	for (int i = 8; i < 16; i++)
		if (gid->raw[i])
			return true;
	return false;
}

const char *rt_gid_type_name(enum rt_gid_type t)
{
	switch (t) {
	case RT_GID_IB:
		return "IB";
	case RT_GID_ROCE_V1:
		return "RoCE v1";
	case RT_GID_ROCE_V2:
		return "RoCE v2";
	case RT_GID_UNKNOWN:
		break;
	}
	return "unknown";
}
