/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor's provider check: what each device can do of what the applets
 * need. RC and UD are proven by creating a QP of each type (a provider
 * that lists the device but cannot make QPs fails here, not in a test);
 * the rest is read from the device attributes. */
#include <stdio.h>
#include <string.h>

#include "rdmatest/devquery.h"
#include "doctor/diag.h"

static bool make_qp(struct ibv_pd *pd, struct ibv_cq *cq, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp)
		ibv_destroy_qp(qp);
	return qp != NULL;
}

struct caps {
	bool rc, ud, xrc, odp;
	int mcast;
};

static int probe(struct ibv_context *ctx, const char *name, struct caps *c,
		 struct rt_error *err)
{
	struct ibv_device_attr_ex a;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	if (rt_dev_attrs(ctx, name, &a, err))
		return -1;
	c->xrc = a.orig_attr.device_cap_flags & IBV_DEVICE_XRC;
	c->odp = a.odp_caps.general_caps & IBV_ODP_SUPPORT;
	c->mcast = a.orig_attr.max_mcast_grp;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 2, NULL, NULL, 0) : NULL;
	if (cq) {
		c->rc = make_qp(pd, cq, IBV_QPT_RC);
		c->ud = make_qp(pd, cq, IBV_QPT_UD);
		ibv_destroy_cq(cq);
	}
	if (pd)
		ibv_dealloc_pd(pd);
	return 0;
}

/* RC and UD carry almost every applet, multicast mckey; XRC (which rxe
 * and many providers lack) only ibv_xsrq_pingpong and ODP none, so their
 * absence is evidence, not a warning. */
static void judge(struct rt_diag *d, const char *name, const struct caps *c)
{
	char ev[256];

	snprintf(ev, sizeof(ev), "%s: RC %s, UD %s (QPs created), multicast %d groups, "
		 "XRC %s, iomap for rsockets %s (RC RDMA write), ODP %s", name,
		 c->rc ? "yes" : "NO", c->ud ? "yes" : "NO", c->mcast,
		 c->xrc ? "yes" : "no (only ibv_xsrq_pingpong needs it: it exits 3 here)",
		 c->rc ? "yes" : "no", c->odp ? "yes" : "no (no applet needs it)");
	if (!c->rc || !c->ud)
		rt_diag_add(d, RT_DIAG_FAIL, "caps", "check the provider library "
			    "(libibverbs/*.so, /etc/libibverbs.d) matches the kernel driver, "
			    "and the device's resource limits", "%s", ev);
	else if (!c->mcast)
		rt_diag_add(d, RT_DIAG_WARN, "caps", "mckey needs multicast: use a device "
			    "with multicast groups", "%s", ev);
	else
		rt_diag_add(d, RT_DIAG_PASS, "caps", NULL, "%s", ev);
}

void rt_diag_caps(struct rt_diag *d)
{
	struct rt_error err = { 0 };
	struct rt_devlist l;

	if (d->no_rdma || rt_devlist_open(&l, &err))
		return;
	for (int i = 0; i < l.n; i++) {
		const char *name = ibv_get_device_name(l.devs[i]);
		struct ibv_context *ctx = ibv_open_device(l.devs[i]);
		struct caps c = { 0 };

		memset(&err, 0, sizeof(err));
		if (!ctx || probe(ctx, name, &c, &err))
			rt_diag_add(d, RT_DIAG_FAIL, "caps", "check /dev/infiniband "
				    "permissions and the provider library", "%s: cannot open or "
				    "query the device%s%s", name, err.set ? ": " : "", err.reason);
		else
			judge(d, name, &c);
		if (ctx)
			ibv_close_device(ctx);
	}
	if (!l.n)
		rt_diag_add(d, RT_DIAG_FAIL, "caps", "install the provider library for the "
			    "device (rdma-core's libibverbs providers, e.g. librxe)",
			    "sysfs lists devices but libibverbs finds none (no provider?)");
	rt_devlist_close(&l);
}
