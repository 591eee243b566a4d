/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "doctor/diag_report.h"

static int count(const struct rt_diag *d, enum rt_diag_level level)
{
	int n = 0;

	for (int i = 0; i < d->n; i++)
		n += d->lines[i].level == level;
	return n;
}

static void json_positive(struct rt_json *j, const char *key, double v)
{
	if (v > 0)
		rt_json_kv_double(j, key, v);
	else
		rt_json_kv_string(j, key, NULL);
}

void rt_diag_print(FILE *f, const struct rt_diag *d)
{
	for (int i = 0; i < d->n; i++) {
		const struct rt_diag_line *l = &d->lines[i];

		fprintf(f, "%s %-10s %s%s%s\n", rt_diag_level_name(l->level), l->check,
			l->evidence, l->fix[0] ? " -- fix: " : "", l->fix);
	}
	if (d->dropped)
		fprintf(f, "WARN %-10s %d more findings not shown (at most %d lines, %d ports)\n",
			"doctor", d->dropped, RT_DIAG_MAX, RT_DIAG_PORTS);
	fprintf(f, "doctor: %d passed, %d warnings, %d failed\n", count(d, RT_DIAG_PASS),
		count(d, RT_DIAG_WARN), count(d, RT_DIAG_FAIL));
}

/* Every counter the port has, those doctor does not know too. */
static void json_counters(struct rt_json *j, const struct rt_diag_counters *t)
{
	rt_json_key(j, "counters");
	rt_json_array_begin(j);
	for (int i = 0; i < t->n; i++) {
		const struct rt_diag_counter *c = &t->c[i];

		rt_json_object_begin(j);
		rt_json_kv_string(j, "name", c->name);
		rt_json_kv_string(j, "dir", c->hw ? "hw_counters" : "counters");
		rt_json_kv_string(j, "class", rt_diag_counter_class_name(c->cls));
		rt_json_kv_uint(j, "value", c->value);
		rt_json_kv_bool(j, "saturated", c->saturated);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_kv_int(j, "counters_dropped", t->dropped);
}

/* Each port's facts, rates and counters; a figure not known is null. */
static void json_ports(struct rt_json *j, const struct rt_diag *d)
{
	rt_json_key(j, "ports");
	rt_json_array_begin(j);
	for (int i = 0; i < d->nports; i++) {
		const struct rt_diag_port *p = &d->ports[i];

		rt_json_object_begin(j);
		rt_json_kv_string(j, "device", p->dev);
		rt_json_kv_uint(j, "port", p->port);
		rt_json_kv_string(j, "link_layer", p->link);
		json_positive(j, "active_mtu", p->active_mtu);
		json_positive(j, "rate_gbps", p->rate_gbps);
		json_positive(j, "payload_gbps", p->payload_gbps);
		json_counters(j, &d->counters[i]);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

void rt_diag_json(struct rt_json *j, const struct rt_diag *d)
{
	rt_json_key(j, "checks");
	rt_json_array_begin(j);
	for (int i = 0; i < d->n; i++) {
		const struct rt_diag_line *l = &d->lines[i];

		rt_json_object_begin(j);
		rt_json_kv_string(j, "check", l->check);
		rt_json_kv_string(j, "level", rt_diag_level_name(l->level));
		rt_json_kv_string(j, "evidence", l->evidence);
		rt_json_kv_string(j, "fix", l->fix[0] ? l->fix : NULL);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_kv_int(j, "passed", count(d, RT_DIAG_PASS));
	rt_json_kv_int(j, "warnings", count(d, RT_DIAG_WARN));
	rt_json_kv_int(j, "failed", count(d, RT_DIAG_FAIL));
	rt_json_kv_int(j, "dropped", d->dropped);
	rt_json_kv_bool(j, "rdma", !d->no_rdma);
	json_ports(j, d);
}
