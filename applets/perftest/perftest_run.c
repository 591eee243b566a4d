/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An ib_* applet's run around its test's session: perftest 4.5's printed
 * blocks (perftest's perftest_parameters.c, ctx_print_test_info), the
 * rows in text, --json and --out_json, -w/-y, -h, -V. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_run.h"
#include "perftest/perftest_imm.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/util.h"

/* ---- names and the information block ------------------------------------ */

/* perftest 4.5 is "duplex" only with -b: its latency servers print no TX
 * depth and its send_lat client no RX depth (seen in the lab). */
static bool duplex(const struct rt_pt_params *p)
{
	return p->opt.bidir;
}

static void depths(const struct rt_pt_conn *c, const struct rt_log *l)
{
	const struct rt_pt_params *p = c->p;

	if (c->client || duplex(p))
		rt_say(l, " TX depth        : %lld", p->opt.tx_depth);
	if (rt_pt_receives(p) && (!c->client || duplex(p)))
		rt_say(l, " RX depth        : %lld", p->opt.rx_depth);
	if (p->t.kind == RT_PT_BW)
		rt_say(l, " CQ Moderation   : %u", rt_pt_cq_mod(p, p->opt.size));
}

/* perftest's " \tTOS    : N" after the exchange method, with -R. */
static const char *tos(const struct rt_pt_params *p)
{
	static char buf[32];

	if (!p->opt.rdma_cm || p->opt.tos < 0)
		return "";
	snprintf(buf, sizeof(buf), " \tTOS    : %lld", p->opt.tos);
	return buf;
}

void rt_pt_print_info(const struct rt_pt_conn *c)
{
	const struct rt_log *l = &c->run->log;
	const struct rt_pt_params *p = c->p;
	bool ib = c->d.attr.link_layer != IBV_LINK_LAYER_ETHERNET;

	if (p->opt.output != RT_PT_OUT_ALL)
		return;
	rt_say(l, RT_PT_LINE "\n                    %s", c->name);
	if (p->opt.events) /* -X's vector, as perftest names it */
		rt_say(l, " Test with events. Using %s_comp%lld", c->d.name,
		       p->opt.res.vector > 0 ? p->opt.res.vector : 0);
	rt_say(l, " Dual-port       : %s\t\tDevice         : %s",
	       c->dual.on ? "ON" : "OFF", c->d.name);
	rt_say(l, " Number of qps   : %lld\t\tTransport type : %s", p->opt.qps,
	       c->d.ctx->device->transport_type == IBV_TRANSPORT_IWARP ? "IW" : "IB");
	rt_say(l, " Connection type : %s\t\tUsing SRQ      : %s",
	       rt_pt_conn_name(p->opt.ud.conn), c->res.srq ? "ON" : "OFF");
	if (p->opt.res.no_lock) /* perftest 25.01's line, with its Lock-free */
		rt_say(l, " PCIe relax order: %s\t\tLock-free      : ON\n ibv_wr* API     : OFF",
		       p->opt.no_relaxed ? "OFF" : "ON");
	else
		rt_say(l, " PCIe relax order: %s\n ibv_wr* API     : OFF",
		       p->opt.no_relaxed ? "OFF" : "ON");
	if (c->mem.gpu) {
		char gpu[200];

		rt_pt_gpu_describe(c, gpu, sizeof(gpu));
		rt_say(l, " GPU memory      : %s", gpu);
	}
	depths(c, l);
	rt_say(l, " Mtu             : %d[B]\n Link type       : %s",
	       rt_mtu_bytes(c->sys.mtu), ib ? "IB" : "Ethernet");
	if (c->gid)
		rt_say(l, " GID index       : %u%s", c->spec.local.gid_index,
		       c->gid_auto ? " (chosen by rdmatest: the RoCE v2 GID of the "
				     "address the peer is reached on)" : "");
	if (c->gid && c->dual.on) /* perftest's line for port 2 */
		rt_say(l, " GID index2      : %u%s", c->dual.local2.gid_index,
		       c->dual.gid_auto2 ? " (chosen as perftest: the best of port 2's "
					   "table)" : "");
	if (p->t.verb == RT_PT_READ || p->t.verb == RT_PT_ATOMIC)
		rt_say(l, " Outstand reads  : %u", c->out_reads);
	else
		rt_say(l, " Max inline data : %lld[B]", p->opt.inline_size);
	rt_say(l, " rdma_cm QPs\t : %s\n Data ex. method : %s%s",
	       p->opt.rdma_cm ? "ON" : "OFF", p->comm_cm ? "rdma_cm" : "Ethernet", tos(p));
	/* perftest's words, though its server has the connection by now */
	if (p->opt.rdma_cm && !c->client)
		rt_say(l, RT_PT_LINE "\n Waiting for client rdma_cm QP to connect\n"
		       " Please run the same command with the IB/RoCE interface IP");
	rt_say(l, RT_PT_LINE);
}

static void addr_line(const struct rt_pt_conn *c, const char *who,
		      const struct rt_pt_key *k)
{
	char line[256], *e = line + sizeof(line);
	char *at = line;
	enum rt_pt_verb v = c->p->t.verb;

	at += snprintf(at, (size_t)(e - at), " %s address: LID %#04x QPN %#06x "
		       "PSN %#06x", who, k->lid, k->qpn, k->psn);
	if (v == RT_PT_READ)
		at += snprintf(at, (size_t)(e - at), " OUT %#04x", k->out_reads);
	if (v == RT_PT_READ || v == RT_PT_WRITE)
		snprintf(at, (size_t)(e - at), " RKey %#08x VAddr %#016llx", k->rkey,
			 (unsigned long long)k->vaddr);
	rt_say(&c->run->log, "%s", line);
	if (!c->gid)
		return;
	/* perftest prints the GID's bytes in decimal; scripts may read it so */
	at = line;
	for (int i = 0; i < 16; i++)
		at += snprintf(at, (size_t)(e - at), "%s%02d", i ? ":" : "", k->gid.raw[i]);
	rt_say(&c->run->log, " GID: %s", line);
}

void rt_pt_print_addrs(const struct rt_pt_conn *c)
{
	if (c->p->opt.output != RT_PT_OUT_ALL)
		return;
	for (unsigned i = 0; i < c->p->opt.qps; i++)
		addr_line(c, "local", &c->mine[i]);
	for (unsigned i = 0; i < c->p->opt.qps; i++)
		addr_line(c, "remote", &c->theirs[i]);
}

/* ---- rows ------------------------------------------------------------------- */

void rt_pt_out_init(struct rt_pt_out *o, const struct rt_pt_conn *c)
{
	struct rt_json *j = &c->run->results;

	o->run = c->run;
	o->p = c->p;
	rt_json_kv_string(j, "test", c->name);
	rt_json_kv_string(j, "role", c->client ? "client" : "server");
	rt_json_kv_string(j, "device", c->d.name);
	rt_json_kv_int(j, "gid_index", c->gid ? c->spec.local.gid_index : -1);
	rt_json_kv_bool(j, "gid_chosen", c->gid_auto);
	rt_json_kv_int(j, "mtu", rt_mtu_bytes(c->sys.mtu));
	rt_json_kv_uint(j, "qps", c->p->opt.qps);
	rt_json_kv_bool(j, "dual_port", c->dual.on);
	rt_json_kv_bool(j, "rdma_cm", c->p->opt.rdma_cm);
	rt_pt_gpu_json(c, j);
	rt_json_kv_string(j, "unit", c->p->opt.report_gbits ? "Gb/s" : "MiB/s");
	rt_json_key(j, "rows");
	rt_json_array_begin(j);
	o->rows_open = true;
	rt_json_init(&o->file);
	rt_json_object_begin(&o->file);
	rt_json_kv_string(&o->file, "tool", "rdmatest");
	rt_json_kv_string(&o->file, "applet", c->run->name);
	rt_json_key(&o->file, "test_info");
	rt_json_object_begin(&o->file);
	rt_json_kv_string(&o->file, "test", c->name);
	rt_json_kv_string(&o->file, "Dual_port", c->dual.on ? "ON" : "OFF");
	rt_json_kv_string(&o->file, "Device", c->d.name);
	rt_json_kv_uint(&o->file, "Number_of_qps", c->p->opt.qps);
	rt_json_kv_string(&o->file, "rdma_cm_QPs", c->p->opt.rdma_cm ? "ON" : "OFF");
	rt_json_kv_int(&o->file, "Mtu", rt_mtu_bytes(c->sys.mtu));
	rt_json_kv_string(&o->file, "Link_type",
			  c->d.attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "IB");
	rt_json_object_end(&o->file);
	rt_json_key(&o->file, "results");
	rt_json_array_begin(&o->file);
}

void rt_pt_out_header(struct rt_pt_out *o, const char *header)
{
	if (o->p->opt.output == RT_PT_OUT_ALL)
		rt_say(&o->run->log, "%s", header);
}

static void fields(struct rt_json *j, const struct rt_pt_field *f, size_t n,
		   const struct rt_pt_ctr *ctr)
{
	rt_json_object_begin(j);
	for (size_t i = 0; i < n; i++)
		rt_json_kv_double(j, f[i].key, f[i].v);
	if (ctr) {
		rt_json_key(j, "counters");
		rt_pt_ctr_json(ctr, j);
	}
	rt_json_object_end(j);
}

/* --run_infinitely: the row into the ring (its figures only). */
static void ring_put(struct rt_pt_ring *r, const struct rt_pt_field *f, size_t n)
{
	const char *k[RT_PT_ROW_FIELDS];
	double v[RT_PT_ROW_FIELDS];

	n = RT_MIN(n, (size_t)RT_PT_ROW_FIELDS);
	/* cppcheck takes n for 0 on a path it imagines; a row has 5 figures or more */
	// cppcheck-suppress knownConditionTrueFalse
	for (size_t i = 0; i < n; i++) {
		k[i] = f[i].key;
		v[i] = f[i].v;
	}
	rt_pt_ring_put(r, k, v, n);
}

/* The whole document again: a crash or a later failure leaves valid
 * JSON with every row so far, unlike perftest's file. */
static int write_file(struct rt_pt_out *o)
{
	struct rt_json doc;
	FILE *f;
	int bad;

	rt_json_copy(&doc, &o->file);
	if (o->ring)
		rt_pt_ring_json(o->ring, &doc);
	rt_json_finish(&doc);
	f = fopen(o->p->opt.out_json_file, "w");
	if (!f) {
		rt_json_free(&doc);
		return rt_fail_errno(&o->run->err, RT_EXIT_ENV, errno, "--out_json_file %s",
				     o->p->opt.out_json_file);
	}
	bad = fprintf(f, "%s\n", rt_json_text(&doc)) < 0;
	bad |= fclose(f) != 0;
	rt_json_free(&doc);
	return bad ? rt_fail(&o->run->err, RT_EXIT_ENV, "--out_json_file %s: write "
			     "failed", o->p->opt.out_json_file) : 0;
}

int rt_pt_out_row(struct rt_pt_out *o, const char *text, double pick,
		  const struct rt_pt_field *f, size_t n)
{
	if (o->p->opt.output == RT_PT_OUT_ALL)
		rt_say(&o->run->log, "%s", text);
	else
		rt_say(&o->run->log, "%lf", pick);
	if (o->ctr) {
		rt_pt_ctr_read(o->ctr);
		if (o->p->opt.output == RT_PT_OUT_ALL)
			rt_pt_ctr_print(o->ctr, &o->run->log);
	}
	rt_log_flush(&o->run->log);
	if (o->ring)
		ring_put(o->ring, f, n);
	else if (o->rows_open)
		fields(&o->run->results, f, n, o->ctr);
	if (!o->ring)
		fields(&o->file, f, n, o->ctr);
	return o->p->opt.out_json ? write_file(o) : 0;
}

void rt_pt_out_end(struct rt_pt_out *o)
{
	if (o->p->opt.output == RT_PT_OUT_ALL)
		rt_say(&o->run->log, o->p->opt.dual.per_port ? RT_PT_DUAL_LINE : RT_PT_LINE);
}

void rt_pt_out_kv_string(struct rt_pt_out *o, const char *key, const char *v)
{
	if (o->rows_open && o->ring)
		rt_pt_ring_json(o->ring, &o->run->results);
	if (o->rows_open)
		rt_json_array_end(&o->run->results);
	if (o->rows_open && o->ring)
		rt_json_kv_uint(&o->run->results, "rows_total", o->ring->total);
	o->rows_open = false;
	rt_json_kv_string(&o->run->results, key, v);
}

void rt_pt_out_free(struct rt_pt_out *o)
{
	rt_json_free(&o->file);
	free(o->ring);
	o->ring = NULL;
}

int rt_pt_check_limits(const struct rt_pt_params *p, double bw_avg,
		       double msg_rate, struct rt_error *err)
{
	const char *unit = p->opt.report_gbits ? "Gb/sec" : "MB/sec";

	if (p->limit_bw > 0 && bw_avg < p->limit_bw)
		return rt_fail(err, RT_EXIT_FAIL, "BW average %.2f %s is below the -w "
			       "threshold %.2f %s", bw_avg, unit, p->limit_bw, unit);
	if (p->limit_msgrate > 0 && msg_rate < p->limit_msgrate)
		return rt_fail(err, RT_EXIT_FAIL, "message rate %.6f Mpps is below the "
			       "-y threshold %.6f Mpps", msg_rate, p->limit_msgrate);
	return 0;
}

int rt_pt_check_lat_limits(const struct rt_pt_params *p, uint64_t size,
			   double t_avg, double max, struct rt_error *err)
{
	if (p->limit_lat > 0 && t_avg > p->limit_lat)
		return rt_fail(err, RT_EXIT_FAIL, "%llu bytes: average latency %.2f usec "
			       "is above the --limit_lat threshold %.2f usec",
			       (unsigned long long)size, t_avg, p->limit_lat);
	if (p->limit_lat_max > 0 && max > p->limit_lat_max)
		return rt_fail(err, RT_EXIT_FAIL, "%llu bytes: maximum latency %.2f usec "
			       "is above the --limit_lat_max threshold %.2f usec",
			       (unsigned long long)size, max, p->limit_lat_max);
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

/* --wait_destroy: perftest's pause before the resources go (a user
 * inspects the QPs meanwhile); SIGINT ends it, and it follows a
 * successful run only. */
static int wait_destroy(struct rt_run *run, const struct rt_pt_params *p)
{
	if (!p->opt.wait_destroy)
		return 0;
	rt_say(&run->log, " Waiting %lld seconds before releasing resources...",
	       p->opt.wait_destroy);
	rt_log_flush(&run->log);
	return rt_fdwait(-1, 0, rt_deadline_after_ms(p->opt.wait_destroy * 1000LL)) ==
	       RT_FDWAIT_INTERRUPTED ? RT_INTERRUPTED : 0;
}

static int session(struct rt_run *run, struct rt_pt_params *p,
		   rt_pt_session_fn *fn)
{
	struct rt_pt_conn *c = rt_xcalloc(1, sizeof(*c));
	struct rt_pt_out o = { .run = run, .p = p };
	struct rt_pt_ctr ctr;
	int rc = rt_pt_conn_open(c, run, p);

	if (!rc && p->opt.ctl.counters)
		rc = rt_pt_ctr_open(&ctr, p->opt.ctl.counters, c->d.name, p->opt.ib_port,
				    &run->err);
	if (!rc) {
		rt_pt_print_info(c);
		rt_pt_out_init(&o, c);
		o.ctr = p->opt.ctl.counters ? &ctr : NULL;
		if (p->opt.ctl.run_inf)
			o.ring = rt_xcalloc(1, sizeof(*o.ring));
		/* SIGINT is how the sender of --run_infinitely ends, as perftest */
		run->interrupt_is_end = p->opt.ctl.run_inf && (c->client || p->opt.bidir);
		rc = fn(c, &o);
		rt_pt_out_free(&o);
		if (!rc)
			rc = wait_destroy(run, p);
	}
	rt_pt_conn_destroy(c);
	free(c);
	return rc;
}

int rt_pt_main(struct rt_run *run, const struct rt_pt_cfg *cfg,
	       struct rt_pt_test t, rt_pt_session_fn *fn)
{
	struct rt_pt_params p;

	/* perftest exits 1 after its help and its version line, and scripts
	 * written against it may look */
	if (cfg->version) {
		printf("Version: %s\n", RT_PT_VERSION);
		return rt_exit_silently(&run->err, RT_EXIT_FAIL);
	}
	rt_error_phase(&run->err, "options");
	if (rt_pt_params_init(&p, cfg, t, &run->tabs[0], &run->err))
		return -1;
	rt_pt_report_notes(&p, &run->log);
	return session(run, &p, fn);
}
