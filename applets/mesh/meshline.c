/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The per-rank JSON lines, written (meshline.h). */
#include <stdio.h>

#include "mesh/meshline.h"
#include "rdmatest/portctr.h"

/* Inventory is written where known: a line without it reads as "". */
static void opt_string(struct rt_json *j, const char *key, const char *v)
{
	if (v[0])
		rt_json_kv_string(j, key, v);
}

void rt_mesh_line_hello(struct rt_json *j, const struct rt_mesh_hello *h)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "hello");
	rt_json_kv_uint(j, "rank", h->rank);
	rt_json_kv_uint(j, "size", h->size);
	rt_json_kv_string(j, "host", h->host);
	if (h->payload_mbps)
		rt_json_kv_uint(j, "payload_mbps", h->payload_mbps);
	opt_string(j, "kernel", h->inv.kernel);
	opt_string(j, "rdma_core", h->inv.rdma_core);
	if (h->inv.expect) {
		rt_json_kv_uint(j, "expect_diffs", h->inv.expect_diffs);
		opt_string(j, "expect_first", h->inv.expect_first);
	}
	rt_json_object_end(j);
}

/* The rises: "a.NAME" or "b.NAME" each, the packets sent, the count
 * left out. */
static void ctr_members(struct rt_json *j, const struct rt_mesh_ctrs *c)
{
	char key[8 + RT_PORTCTR_NAME];

	for (unsigned i = 0; i < c->n && i < RT_MESH_CTRS_MAX; i++) {
		snprintf(key, sizeof(key), "%s.%s", c->e[i].end == RT_MESH_END_A ? "a" : "b",
			 rt_portctr_id_name(c->e[i].id));
		rt_json_kv_uint(j, key, c->e[i].delta);
	}
	if (c->sent_known & 1u)
		rt_json_kv_uint(j, "sent_a", c->sent[0]);
	if (c->sent_known & 2u)
		rt_json_kv_uint(j, "sent_b", c->sent[1]);
	if (c->more)
		rt_json_kv_uint(j, "ctr_more", c->more);
}

/* A result's members, in a result line or a flaky one. */
static void result_members(struct rt_json *j, const struct rt_mesh_result *r)
{
	rt_json_kv_uint(j, "a", r->a);
	rt_json_kv_uint(j, "b", r->b);
	rt_json_kv_uint(j, "rail", r->rail);
	if (r->rail_b != r->rail)
		rt_json_kv_uint(j, "rail_b", r->rail_b);
	rt_json_kv_string(j, "status", rt_mesh_status_name(r->status));
	if (r->status == RT_MESH_OK)
		rt_json_kv_uint(j, "connect_ns", r->connect_ns);
	if (r->flags & RT_MESH_HAS_RTT) {
		rt_json_kv_uint(j, "rtt_p50_ns", r->rtt_p50_ns);
		rt_json_kv_uint(j, "rtt_p99_ns", r->rtt_p99_ns);
	}
	if (r->flags & RT_MESH_HAS_BW) {
		rt_json_kv_uint(j, "mbps", r->mbps);
		rt_json_kv_uint(j, "mbps_rev", r->mbps_rev);
	}
	if (r->flags & RT_MESH_HAS_CTR)
		ctr_members(j, &r->ctr);
}

/* A rail's fields, in a line or in the document's hellos. */
void rt_mesh_rail_fields(struct rt_json *j, const struct rt_mesh_rail *r)
{
	rt_json_kv_uint(j, "rail", r->rail);
	rt_json_kv_string(j, "dev", r->dev);
	rt_json_kv_uint(j, "port", r->port);
	rt_json_kv_uint(j, "gid_index", r->gid_index);
	rt_json_kv_string(j, "addr", r->addr);
	rt_json_kv_string(j, "link_layer", rt_rail_link_name(r->link));
	rt_json_kv_string(j, "state", rt_rail_state_name(r->state));
	rt_json_kv_uint(j, "lanes", r->lanes);
	rt_json_kv_uint(j, "mtu", r->mtu);
	rt_json_kv_uint(j, "speed_mbps", r->speed_mbps);
	rt_json_kv_uint(j, "payload_mbps", r->payload_mbps);
	if (r->want_gbps)
		rt_json_kv_uint(j, "want_gbps", r->want_gbps);
	opt_string(j, "fw_ver", r->fw);
	opt_string(j, "driver", r->driver);
	opt_string(j, "pcie_speed", r->pcie_speed);
	opt_string(j, "pcie_width", r->pcie_width);
	if (r->gpu_rel) { /* mesh --gpu: where this rail's buffers are */
		rt_json_kv_string(j, "gpu", r->gpu);
		rt_json_kv_string(j, "gpu_rel", rt_mesh_gpu_rel_name(r->gpu_rel));
	}
}

void rt_mesh_line_rail(struct rt_json *j, uint32_t rank, const struct rt_mesh_rail *r)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "rail");
	rt_json_kv_uint(j, "rank", rank);
	rt_mesh_rail_fields(j, r);
	rt_json_object_end(j);
}

void rt_mesh_line_result(struct rt_json *j, const struct rt_mesh_result *r)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "result");
	result_members(j, r);
	if (r->round)
		rt_json_kv_uint(j, "round", r->round);
	rt_json_object_end(j);
}

void rt_mesh_line_flaky(struct rt_json *j, const struct rt_mesh_link *first)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "flaky");
	result_members(j, &first->r);
	rt_json_kv_uint(j, "why", first->why);
	rt_json_object_end(j);
}

void rt_mesh_line_blame(struct rt_json *j, const struct rt_mesh_blame_end *e)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "blame");
	rt_json_kv_uint(j, "rank", e->rank);
	if (e->np >= 1)
		rt_json_kv_uint(j, "p1", e->partner[0]);
	if (e->np >= 2)
		rt_json_kv_uint(j, "p2", e->partner[1]);
	rt_json_object_end(j);
}
