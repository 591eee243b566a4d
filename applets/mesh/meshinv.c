/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh host's inventory (meshinv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/diag_expect.h"
#include "mesh/meshinv.h"
#include "mesh/meshrails.h"
#include "rdmatest/linerate.h"
#include "rdmatest/util.h"

/* A fact into a wire field: cut to fit, "" when absent or not text the
 * decoder takes (a peer refuses the whole hello over one bad byte). */
static void take(char *out, size_t len, const char *v)
{
	rt_strlcpy(out, v ? v : "", len);
	if (!rt_mesh_inv_text_ok(out, len))
		out[0] = '\0';
}

static void dev_fact(const struct rt_diag_expect *x, const char *dev, const char *attr,
		     char *out, size_t len)
{
	char key[RT_DIAG_EXPECT_KEY];

	snprintf(key, sizeof(key), "%s.%s", dev, attr);
	take(out, len, rt_diag_expect_get(x, key));
}

void rt_mesh_inv_fill(const struct rt_diag_env *e, const struct rt_diag *d,
		      const char *rdma_core, struct rt_mesh_inv *inv,
		      struct rt_mesh_rail *rails, unsigned n)
{
	struct rt_diag_expect x;

	rt_diag_expect_init(&x);
	rt_diag_expect_facts(e, d, rdma_core, true, &x);
	take(inv->kernel, sizeof(inv->kernel), rt_diag_expect_get(&x, "kernel"));
	take(inv->rdma_core, sizeof(inv->rdma_core), rt_diag_expect_get(&x, "rdma_core"));
	for (unsigned i = 0; i < n; i++) {
		struct rt_mesh_rail *r = &rails[i];

		dev_fact(&x, r->dev, "fw_ver", r->fw, sizeof(r->fw));
		dev_fact(&x, r->dev, "driver", r->driver, sizeof(r->driver));
		dev_fact(&x, r->dev, "pcie_speed", r->pcie_speed, sizeof(r->pcie_speed));
		dev_fact(&x, r->dev, "pcie_width", r->pcie_width, sizeof(r->pcie_width));
	}
	rt_diag_expect_free(&x);
}

void rt_mesh_inv_outcome(const struct rt_diag *d, int from, struct rt_mesh_inv *inv)
{
	inv->expect = 1;
	inv->expect_diffs = 0;
	inv->expect_first[0] = '\0';
	for (int i = from; i < d->n && i < RT_DIAG_MAX; i++) {
		const struct rt_diag_line *l = &d->lines[i];

		if (l->level != RT_DIAG_FAIL || strcmp(l->check, "expect"))
			continue;
		if (!inv->expect_diffs++)
			rt_strlcpy(inv->expect_first, l->evidence, sizeof(inv->expect_first));
	}
	for (char *c = inv->expect_first; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x20 || *c > 0x7e)
			*c = '\'';
}

/* --expect's file, read and known to doctor, or exit 2 naming the line. */
static int load(const char *path, struct rt_diag_expect *want, struct rt_error *err)
{
	char why[256];
	unsigned line = 0;

	if (rt_diag_expect_load(want, path, &line, why, sizeof(why)) ||
	    rt_diag_expect_known(want, &line, why, sizeof(why)))
		return line ? rt_fail(err, RT_EXIT_USAGE, "--expect %s: line %u: %s", path, line, why)
			    : rt_fail(err, RT_EXIT_USAGE, "--expect %s: %s", path, why);
	return 0;
}

/* The rate the expected state gives each rail's port, for --min-line-rate
 * (rt_mesh_rail_payload_mbps). */
static void expected_rates(const struct rt_diag_expect *want, struct rt_mesh_rail *rails,
			   unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char key[RT_DIAG_EXPECT_KEY];
		const char *v;
		double gbps;

		snprintf(key, sizeof(key), "%s/%u.rate_gbps", rails[i].dev, rails[i].port);
		v = rt_diag_expect_get(want, key);
		gbps = v ? strtod(v, NULL) : 0;
		if (gbps >= 1 && gbps <= RT_LINERATE_MAX_GBPS)
			rails[i].want_gbps = (uint16_t)(gbps + 0.5);
	}
}

int rt_mesh_inv_local(const struct rt_diag_env *e, struct rt_diag *d, const char *expect,
		      struct rt_mesh_inv *inv, struct rt_mesh_rail *rails, unsigned *n,
		      struct rt_error *err)
{
	char rdma_core[RT_MESH_RDMA_CORE_LEN];
	struct rt_diag_expect want;
	int rc = 0;

	rt_diag_expect_init(&want);
	if (expect && load(expect, &want, err))
		rc = -1;
	rt_diag_rdma_core_version(rdma_core, sizeof(rdma_core));
	if (!rc && expect) {
		int from = d->n; /* the lines the check adds */

		rt_diag_expect_check(e, d, rdma_core, &want, expect);
		rt_mesh_inv_outcome(d, from, inv);
	}
	*n = rt_mesh_rails_find(e, d, rails);
	rt_mesh_inv_fill(e, d, rdma_core, inv, rails, *n);
	if (!rc && expect)
		expected_rates(&want, rails, *n);
	rt_diag_expect_free(&want);
	return rc;
}

static const struct {
	const char *key, *label, *unit;
} fields[RT_INV_FIELDS] = {
	[RT_INV_KERNEL] = {"kernel", "kernel", ""},
	[RT_INV_RDMA_CORE] = {"rdma_core", "rdma-core", ""},
	[RT_INV_FW] = {"fw_ver", "firmware", ""},
	[RT_INV_DRIVER] = {"driver", "driver", ""},
	[RT_INV_PCIE_SPEED] = {"pcie_speed", "PCIe speed", ""},
	[RT_INV_PCIE_WIDTH] = {"pcie_width", "PCIe width", ""},
	[RT_INV_RATE] = {"rate_gbps", "rate", " Gb/s"},
	[RT_INV_MTU] = {"mtu", "MTU", ""},
};

const char *rt_mesh_inv_field_key(unsigned field)
{
	return field < RT_INV_FIELDS ? fields[field].key : "?";
}

const char *rt_mesh_inv_field_label(unsigned field)
{
	return field < RT_INV_FIELDS ? fields[field].label : "?";
}

/* Node nd's value of field (on rail `rail` for a rail's) into v; false
 * when it has none to compare. */
static bool value_of(const struct rt_mesh_agg *g, uint32_t rank, unsigned field, int rail,
		     char *v, size_t len)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];
	const struct rt_mesh_rail *r = rail < 0 ? NULL : rt_mesh_rail_of(g, rank, (unsigned)rail);
	bool active = r && r->state == RT_RAIL_ACTIVE;

	v[0] = '\0';
	if (!nd->present || (rail >= 0 && !r))
		return false;
	switch (field) {
	case RT_INV_KERNEL: rt_strlcpy(v, nd->inv.kernel, len); break;
	case RT_INV_RDMA_CORE: rt_strlcpy(v, nd->inv.rdma_core, len); break;
	case RT_INV_FW: rt_strlcpy(v, r->fw, len); break;
	case RT_INV_DRIVER: rt_strlcpy(v, r->driver, len); break;
	case RT_INV_PCIE_SPEED: rt_strlcpy(v, r->pcie_speed, len); break;
	case RT_INV_PCIE_WIDTH: rt_strlcpy(v, r->pcie_width, len); break;
	case RT_INV_RATE:
		if (active && r->speed_mbps)
			snprintf(v, len, "%g", r->speed_mbps / 1e3);
		break;
	default: /* RT_INV_MTU */
		if (active && r->mtu)
			snprintf(v, len, "%u", r->mtu);
		break;
	}
	return v[0] != '\0';
}

struct tally {
	char v[RT_MESH_INV_DISTINCT][RT_MESH_INV_VALUE];
	uint32_t n[RT_MESH_INV_DISTINCT];
	unsigned k;
	uint32_t known; /* hosts with a value */
};

/* The field's values, in rank order: the first of the most counted wins
 * a tie, which is the lowest rank's of the tied values. -1: not judged. */
static int majority(const struct rt_mesh_agg *g, unsigned field, int rail, struct tally *t)
{
	char v[RT_MESH_INV_VALUE];
	unsigned best = 0;

	t->k = 0;
	t->known = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		unsigned j = 0;

		if (!value_of(g, i, field, rail, v, sizeof(v)))
			continue;
		t->known++;
		while (j < t->k && strcmp(t->v[j], v))
			j++;
		if (j == t->k && t->k == RT_MESH_INV_DISTINCT)
			continue;
		if (j == t->k) {
			rt_strlcpy(t->v[j], v, sizeof(t->v[j]));
			t->n[t->k++] = 0;
		}
		t->n[j]++;
	}
	for (unsigned j = 1; j < t->k; j++)
		if (t->n[j] > t->n[best])
			best = j;
	return t->known < 2 || t->n[best] == t->known ? -1 : (int)best;
}

static void record(struct rt_mesh_agg *g, uint32_t rank, unsigned field, int rail,
		   const char *value, const char *most)
{
	struct rt_mesh_drift *d = &g->drift[g->ndrift];

	if (g->ndrift++ >= RT_MESH_DRIFT_LIST)
		return;
	d->rank = rank;
	d->field = (uint8_t)field;
	d->rail = (int8_t)rail;
	rt_strlcpy(d->value, value, sizeof(d->value));
	rt_strlcpy(d->majority, most, sizeof(d->majority));
}

static void judge_field(struct rt_mesh_agg *g, unsigned field, int rail, struct tally *t)
{
	char v[RT_MESH_INV_VALUE];
	int best = majority(g, field, rail, t);

	for (uint32_t i = 0; best >= 0 && i < g->n; i++) {
		if (!value_of(g, i, field, rail, v, sizeof(v)) || !strcmp(v, t->v[best]))
			continue;
		g->drift_hosts += !g->nodes[i].drift;
		if (g->nodes[i].drift < UINT16_MAX)
			g->nodes[i].drift++;
		record(g, i, field, rail, v, t->v[best]);
	}
}

static int cmp_drift(const void *x, const void *y)
{
	const struct rt_mesh_drift *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->rail != b->rail)
		return a->rail < b->rail ? -1 : 1;
	return (int)a->field - (int)b->field;
}

/* Rank's host differs from the expected state, or did not check while
 * others did (a rank run without --expect). */
static bool expect_differs(const struct rt_mesh_agg *g, uint32_t rank)
{
	const struct rt_mesh_node *nd = &g->nodes[rank];

	return g->expect_on && nd->present && (!nd->inv.expect || nd->inv.expect_diffs);
}

bool rt_mesh_inv_failed(const struct rt_mesh_agg *g)
{
	return g->expect_bad || (g->expect_on && g->drift_hosts);
}

bool rt_mesh_inv_fails(const struct rt_mesh_agg *g, uint32_t rank)
{
	return rank < g->n && (expect_differs(g, rank) || (g->expect_on && g->nodes[rank].drift));
}

void rt_mesh_inv_judge(struct rt_mesh_agg *g)
{
	struct tally *t = rt_xcalloc(1, sizeof(*t));
	uint32_t rails = 0;

	g->ndrift = g->drift_hosts = g->expect_bad = 0;
	g->expect_on = false;
	for (uint32_t i = 0; i < g->n; i++)
		g->expect_on |= g->nodes[i].present && g->nodes[i].inv.expect;
	for (uint32_t i = 0; i < g->n; i++) {
		g->nodes[i].drift = 0;
		g->expect_bad += expect_differs(g, i);
		for (unsigned k = 0; g->nodes[i].present && k < g->nodes[i].nrails; k++)
			rails |= 1u << g->nodes[i].rails[k].rail;
	}
	judge_field(g, RT_INV_KERNEL, -1, t);
	judge_field(g, RT_INV_RDMA_CORE, -1, t);
	for (int r = 0; r < (int)RT_MESH_RAILS_MAX; r++)
		for (unsigned f = RT_INV_FW; (rails >> r & 1u) && f < RT_INV_FIELDS; f++)
			judge_field(g, f, r, t);
	qsort(g->drift, RT_MIN(g->ndrift, RT_MESH_DRIFT_LIST), sizeof(g->drift[0]), cmp_drift);
	free(t);
}

/* "rail 0 (mlx5_0) " for a rail's field, "" for the host's. */
static void where(const struct rt_mesh_agg *g, const struct rt_mesh_drift *d, char *buf,
		  size_t len)
{
	const struct rt_mesh_rail *r = d->rail < 0 ? NULL :
				       rt_mesh_rail_of(g, d->rank, (unsigned)d->rail);

	buf[0] = '\0';
	if (r)
		snprintf(buf, len, "rail %d (%s) ", d->rail, r->dev);
}

/* The hosts that differ from the expected state, at most `list`. */
static void expect_text(FILE *out, const struct rt_mesh_agg *g, uint32_t list)
{
	uint32_t shown = 0;

	for (uint32_t i = 0; i < g->n && g->expect_bad; i++) {
		const struct rt_mesh_inv *v = &g->nodes[i].inv;

		if (!expect_differs(g, i) || shown++ >= list)
			continue;
		if (!v->expect)
			fprintf(out, "host %u (%s) did not check the expected state (run without "
				"--expect)\n", i, g->nodes[i].host);
		else if (v->expect_diffs > 1)
			fprintf(out, "host %u (%s) differs from the expected state: %s (and %u "
				"more)\n", i, g->nodes[i].host, v->expect_first, v->expect_diffs - 1u);
		else
			fprintf(out, "host %u (%s) differs from the expected state: %s\n", i,
				g->nodes[i].host, v->expect_first);
	}
	if (shown > list)
		fprintf(out, "... and %u more hosts that differ from the expected state\n",
			shown - list);
}

void rt_mesh_inv_text(FILE *out, const struct rt_mesh_agg *g, uint32_t list)
{
	expect_text(out, g, list);
	uint32_t shown = RT_MIN(RT_MIN(g->ndrift, RT_MESH_DRIFT_LIST), list);
	char at[64];

	for (uint32_t i = 0; i < shown; i++) {
		const struct rt_mesh_drift *d = &g->drift[i];
		const char *unit = fields[d->field].unit;

		where(g, d, at, sizeof(at));
		fprintf(out, "inventory: host %u (%s) %s%s %s%s, most hosts %s%s\n", d->rank,
			g->nodes[d->rank].host, at, fields[d->field].label, d->value, unit,
			d->majority, unit);
	}
	if (g->ndrift > shown)
		fprintf(out, "... and %u more inventory differences (%u hosts differ)\n",
			g->ndrift - shown, g->drift_hosts);
}

void rt_mesh_inv_json(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "inventory_drift");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < RT_MIN(g->ndrift, RT_MESH_DRIFT_LIST); i++) {
		const struct rt_mesh_drift *d = &g->drift[i];

		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", d->rank);
		rt_json_kv_string(j, "host", g->nodes[d->rank].host);
		rt_json_kv_string(j, "field", fields[d->field].key);
		if (d->rail >= 0)
			rt_json_kv_uint(j, "rail", (unsigned)d->rail);
		rt_json_kv_string(j, "value", d->value);
		rt_json_kv_string(j, "majority", d->majority);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_kv_uint(j, "inventory_drift_total", g->ndrift);
	rt_json_kv_uint(j, "inventory_drift_hosts", g->drift_hosts);
	rt_json_kv_bool(j, "expect_checked", g->expect_on);
	rt_json_key(j, "expect_differ");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n && g->expect_bad; i++) {
		if (!expect_differs(g, i))
			continue;
		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", i);
		rt_json_kv_string(j, "host", g->nodes[i].host);
		rt_json_kv_bool(j, "checked", g->nodes[i].inv.expect);
		rt_json_kv_uint(j, "differences", g->nodes[i].inv.expect_diffs);
		rt_json_kv_string(j, "first", g->nodes[i].inv.expect_first);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

/* The hosts that differ from the expected state: one series each, its
 * first difference a label (a host's series exists while it differs). */
static void expect_prom(struct rt_prom *p, const struct rt_mesh_agg *g, uint32_t hosts)
{
	uint32_t listed = 0;

	rt_prom_gauge(p, "rdmatest_mesh_host_expect_differences", "facts of the expected "
		      "state (mesh --expect) the host differs in, its first as a label (0: it "
		      "did not check)");
	for (uint32_t i = 0; i < g->n && listed < hosts; i++) {
		char rank[16];

		if (!expect_differs(g, i))
			continue;
		listed++;
		snprintf(rank, sizeof(rank), "%u", i);
		rt_prom_sample(p, (const char *const[]){ "rank", rank, "host", g->nodes[i].host,
			       "first", g->nodes[i].inv.expect_first, NULL },
			       g->nodes[i].inv.expect_diffs);
	}
	rt_prom_gauge_value(p, "rdmatest_mesh_expect_differ_hosts", "hosts that differ from "
			    "the expected state (mesh --expect) or did not check it", g->expect_bad);
}

void rt_mesh_inv_prom(struct rt_prom *p, const struct rt_mesh_agg *g, uint32_t hosts)
{
	uint32_t listed = 0;

	rt_prom_gauge(p, "rdmatest_mesh_host_info", "1 for each host that said hello, its "
		      "kernel and rdma-core releases as labels (\"\": unknown)");
	for (uint32_t i = 0; i < g->n && listed < hosts; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];
		char rank[16];

		if (!nd->present)
			continue;
		listed++;
		snprintf(rank, sizeof(rank), "%u", i);
		rt_prom_sample(p, (const char *const[]){ "rank", rank, "host", nd->host, "kernel",
			       nd->inv.kernel, "rdma_core", nd->inv.rdma_core, NULL }, 1);
	}
	expect_prom(p, g, hosts);
	rt_prom_gauge_value(p, "rdmatest_mesh_inventory_drift_hosts", "hosts whose kernel, "
			    "rdma-core or a rail's firmware, driver, PCIe link, rate or MTU is not "
			    "the one most hosts have", g->drift_hosts);
}
