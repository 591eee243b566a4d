/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* cmtime's tables and JSON (cmtime_report.h). */
#include <stdio.h>

#include "rdmacm/cmtime_report.h"
#include "rdmacm/cmtsync.h"
#include "rdmatest/util.h"

static const char *const step_names[RT_CMT_ST_COUNT] = {
	"full connect", "create id", "bind addr", "resolve addr", "resolve route",
	"create qp", "init qp attr", "init qp", "rtr qp attr", "rtr qp",
	"rts qp attr", "rts qp", "cm connect", "establish", "disconnect",
	"destroy id", "destroy qp",
};


static const struct {
	enum rt_cmt_step_id step;
	const char *name;
} v44_rows[] = {
	{ RT_CMT_ST_CREATE_ID, "create id" }, { RT_CMT_ST_BIND, "bind addr" },
	{ RT_CMT_ST_RESOLVE_ADDR, "resolve addr" }, { RT_CMT_ST_RESOLVE_ROUTE, "resolve route" },
	{ RT_CMT_ST_CREATE_QP, "create qp" }, { RT_CMT_ST_CONNECT, "connect" },
	{ RT_CMT_ST_DISCONNECT, "disconnect" }, { RT_CMT_ST_DESTROY_ID, "destroy" },
};

/* v44: a server takes part in accepting only: create qp and connect. */
static bool shown(const struct rt_cmt_ctx *x, int s)
{
	if (x->server)
		return s == RT_CMT_ST_CREATE_QP || s == RT_CMT_ST_CONNECT;
	return s != RT_CMT_ST_BIND || x->cfg->src;
}

static double span_us(const struct rt_cmt_stat *s)
{
	return s->last > s->first ? (double)(s->last - s->first) / 1e3 : 0;
}

/* v44's columns: total ms, slowest connection in ms, fastest in µs
 * (999999999.00 when no connection has a time), total µs per connection */
void rt_cmt_print_v44(const struct rt_cmt_ctx *x, unsigned n)
{
	FILE *f = x->run->log.human;

	if (!f)
		return;
	fprintf(f, "step              total ms     max ms     min us  us / conn\n");
	for (size_t i = 0; i < ARRAY_SIZE(v44_rows); i++) {
		const struct rt_cmt_stat *st = &x->st[v44_rows[i].step];
		double total = span_us(st);

		if (!shown(x, (int)v44_rows[i].step))
			continue;
		fprintf(f, "%-13s: %11.2f%11.2f%11.2f%11.2f\n", v44_rows[i].name,
			total / 1e3, (double)st->h.max / 1e6,
			st->h.count ? (double)st->h.min / 1e3 : 999999999.,
			n ? total / n : 0);
	}
}

/* v56's: the connection count and kind, threads, then every row in µs */
void rt_cmt_print_v56(const struct rt_cmt_ctx *x, unsigned n)
{
	FILE *f = x->run->log.human;
	char line[160];

	if (!f)
		return;
	fprintf(f, "%s        %10u\n", x->qpless ? "cm_conn" : "qp_conn", n);
	fprintf(f, "threads        %10d\n", 1);
	fprintf(f, "step             avg/iter  total(us)    us/conn    sum(us)    max(us)    min(us)\n");
	for (int s = 0; s < RT_CMT_ST_COUNT; s++) {
		const struct rt_cmt_stat *st = &x->st[s];
		struct rt_cmt_step r = {
			.span = st->last > st->first ? (st->last - st->first) / 1000 : 0,
			.sum = st->h.sum_lo / 1000, .max = st->h.max / 1000,
			.min = st->h.min / 1000, .count = st->h.count,
		};

		/* as upstream: the sum of full connect means nothing */
		if (s == RT_CMT_ST_FULL_CONNECT)
			r.sum = 0;
		rt_cmt_row_format(line, sizeof(line), step_names[s], &r, n);
		fputs(line, f);
	}
}

static const char *json_name(const struct rt_cmt_ctx *x, int s)
{
	if (!x->v56)
		for (size_t i = 0; i < ARRAY_SIZE(v44_rows); i++)
			if ((int)v44_rows[i].step == s)
				return v44_rows[i].name;
	return step_names[s];
}

void rt_cmt_report_json(struct rt_cmt_ctx *x, unsigned n)
{
	struct rt_json *j = &x->run->results;
	double secs = (double)(x->t_connected - x->t_start) / 1e9;

	rt_json_kv_string(j, "role", x->server ? "server" : "client");
	rt_json_kv_string(j, "proto", x->v56 ? "v56" : "v44");
	rt_json_kv_uint(j, "connections", n);
	rt_json_kv_double(j, "seconds", secs);
	rt_json_kv_double(j, "connections_per_second", secs > 0 ? n / secs : 0);
	rt_json_key(j, "total_ms");
	rt_json_object_begin(j);
	for (int s = 0; s < RT_CMT_ST_COUNT; s++)
		if (x->v56 ? x->st[s].h.count || x->st[s].last : shown(x, s))
			rt_json_kv_double(j, json_name(x, s), span_us(&x->st[s]) / 1e3);
	rt_json_object_end(j);
	rt_json_key(j, "steps_us");
	rt_json_object_begin(j);
	for (int s = 0; s < RT_CMT_ST_COUNT; s++) {
		struct rt_summary sum;

		if (x->v56 ? !x->st[s].h.count : !shown(x, s))
			continue;
		rt_hist_summarize(&x->st[s].h, &sum);
		rt_json_key(j, json_name(x, s));
		rt_summary_json(j, &sum, 1000);
	}
	rt_json_object_end(j);
}

