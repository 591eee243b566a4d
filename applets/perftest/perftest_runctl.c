/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The run control and reporting options: their rules and what they need
 * at run time (perftest_runctl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_report.h"
#include "perftest/perftest_runctl.h"
#include "rdmatest/log.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

/* ---- rules ---------------------------------------------------------------- */

#define CPUINFO_MAX 65536 /* read of /proc/cpuinfo: its first 64 KiB */

double rt_pt_cpuinfo_mhz(const char *text)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *colon = strchr(l, ':');
		double mhz;

		if (strncmp(l, "cpu MHz", 7) || !colon)
			continue;
		mhz = strtod(colon + 1, NULL);
		if (mhz > 0)
			return mhz;
	}
	return 0;
}

static int cycles_rule(struct rt_pt_params *p, struct rt_error *err)
{
	static const char path[] = "/proc/cpuinfo";
	char *text = calloc(1, CPUINFO_MAX + 1);
	FILE *f = text ? fopen(path, "r") : NULL;

	if (f) {
		size_t n = fread(text, 1, CPUINFO_MAX, f);

		text[n] = 0;
		fclose(f);
		p->cycles_per_us = rt_pt_cpuinfo_mhz(text);
	}
	free(text);
	if (p->cycles_per_us > 0)
		return 0;
	return rt_fail(err, RT_EXIT_ENV, "-C (--report-cycles): no \"cpu MHz\" in %s "
		       "to turn the monotonic clock's µs into cycles", path);
}

void rt_pt_cycles_scale(double cycles_per_us, struct rt_pt_lat_figures *f)
{
	double k = cycles_per_us;

	if (k <= 0)
		return;
	f->t_min *= k, f->t_max *= k, f->t_typical *= k, f->t_avg *= k;
	f->t_stdev *= k, f->p99 *= k, f->p999 *= k, f->stdev *= k;
	f->max *= k, f->p50 *= k, f->p90 *= k, f->p99_all *= k;
	f->p999_all *= k, f->p9999_all *= k;
}

/* perftest 25.01's: run_infinitely is a BW mode without events, and
 * without -b in the send test; it turns the run into a timed one without
 * peak. */
static int run_inf_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
			 struct rt_error *err)
{
	if (!p->opt.ctl.run_inf)
		return 0;
	if (p->opt.events)
		return rt_fail(err, RT_EXIT_USAGE, "--run_infinitely and -e exclude each "
			       "other (perftest refuses them too)");
	if (p->opt.all)
		return rt_fail(err, RT_EXIT_USAGE, "--run_infinitely and -a exclude each "
			       "other: it runs one size");
	if (rt_opt_was_given(tab, "margin"))
		return rt_fail(err, RT_EXIT_USAGE, "-f (--margin): --run_infinitely's rows "
			       "cover their whole -D period, there is no margin");
	if (p->opt.bidir && p->t.verb == RT_PT_SEND)
		return rt_fail(err, RT_EXIT_USAGE, "--run_infinitely and -b exclude each "
			       "other in ib_send_bw (perftest refuses them too)");
	if (!p->opt.duration)
		p->opt.duration = RT_PT_INF_PERIOD;
	p->opt.margin = 0;
	p->opt.no_peak = true;
	return 0;
}

/* perftest swaps the test roles and keeps the exchange's: the side given
 * HOST connects and writes first. Its -R connects from the test's client,
 * which then has no address to connect to, so it cannot run; nor -z. */
static int reversed_rules(struct rt_pt_params *p, struct rt_error *err)
{
	if (!p->opt.ctl.reversed)
		return 0;
	if (p->comm_cm)
		return rt_fail(err, RT_EXIT_USAGE, "--reversed and %s exclude each other: "
			       "the RDMA CM connects from the test's client, which "
			       "--reversed leaves without the server's address (perftest "
			       "fails there too)", p->opt.rdma_cm ? "-R" : "-z");
	p->client = !p->chan_client;
	return 0;
}

static int latency_report_rules(struct rt_pt_params *p, struct rt_error *err)
{
	if (!p->opt.ctl.histogram && !p->opt.ctl.unsorted)
		return 0;
	if (p->opt.duration)
		return rt_fail(err, RT_EXIT_USAGE, "-%c with -D: perftest prints the "
			       "samples of -n mode only (its -D keeps none)",
			       p->opt.ctl.histogram ? 'H' : 'U');
	if (p->opt.iters > RT_PT_SAMPLES_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "-%c keeps every sample: -n %llu is "
			       "above rdmatest's bound of %u",
			       p->opt.ctl.histogram ? 'H' : 'U',
			       (unsigned long long)p->opt.iters, RT_PT_SAMPLES_MAX);
	return 0;
}

int rt_pt_report_rules(struct rt_pt_params *p, const struct rt_opt_table *tab,
		       struct rt_error *err)
{
	if ((p->opt.ctl.cycles && cycles_rule(p, err)) ||
	    (p->opt.ctl.counters && rt_pt_ctr_check(p->opt.ctl.counters, err)))
		return -1;
	return reversed_rules(p, err) || latency_report_rules(p, err) ||
	       run_inf_rules(p, tab, err) ? -1 : 0;
}

void rt_pt_report_notes(const struct rt_pt_params *p, const struct rt_log *log)
{
	if (p->opt.ctl.client_flag && !p->chan_client)
		rt_warn(log, "-P (--client) without HOST: serving, as perftest does");
	if (p->t.kind == RT_PT_BW && p->opt.ctl.report_both && !p->opt.bidir)
		rt_warn(log, "--report-both without -b: one direction runs, its rows are "
			"the results of both sides");
	if (p->opt.ctl.cpu_util && !p->opt.duration)
		rt_warn(log, "--cpu_util works only with -D (as perftest): no CPU_Util column");
}

/* ---- -W: port counters ------------------------------------------------------ */

/* The next name of a comma-separated list into out; NULL past the end. */
static const char *next_name(const char *s, char *out, size_t cap, bool *too_long)
{
	size_t n = strcspn(s, ",");

	*too_long = n >= cap;
	snprintf(out, cap, "%.*s", (int)RT_MIN(n, cap - 1), s);
	return s[n] ? s + n + 1 : NULL;
}

int rt_pt_ctr_check(const char *list, struct rt_error *err)
{
	char name[RT_PT_CTR_NAME];
	unsigned n = 0;
	bool too_long;

	for (const char *s = list; s; n++) {
		s = next_name(s, name, sizeof(name), &too_long);
		if (n == RT_PT_CTR_MAX)
			return rt_fail(err, RT_EXIT_USAGE, "-W (--report-counters): more than "
				       "%d counters", RT_PT_CTR_MAX);
		if (!*name || too_long || name[0] == '/' || strstr(name, ".."))
			return rt_fail(err, RT_EXIT_USAGE, "-W (--report-counters) '%s': each "
				       "name is a file under the port's sysfs directory "
				       "(\"counters/port_xmit_data\"), not empty, not above %d "
				       "bytes, without \"..\"", list, RT_PT_CTR_NAME - 1);
	}
	return 0;
}

/* The core's counter read (portctr.h): one decimal, its bound. */
static bool read_one(const char *path, unsigned long long *v)
{
	uint64_t x;

	if (!rt_portctr_read_path(path, &x))
		return false;
	*v = x;
	return true;
}

int rt_pt_ctr_open(struct rt_pt_ctr *k, const char *list, const char *dev,
		   unsigned port, struct rt_error *err)
{
	bool too_long;

	memset(k, 0, sizeof(*k));
	for (const char *s = list; s && k->n < RT_PT_CTR_MAX; k->n++) {
		struct rt_pt_ctr_one *c = &k->c[k->n];

		char name[RT_PT_CTR_NAME];

		s = next_name(s, name, sizeof(name), &too_long);
		memcpy(c->name, name, sizeof(name));
		c->ok = rt_portctr_path(c->path, sizeof(c->path), "/sys", dev, port, name) &&
			read_one(c->path, &c->last);
		if (!c->ok)
			return rt_fail_errno(err, RT_EXIT_ENV, errno, "-W (--report-counters): "
					     "cannot read %s (does %s have counter %s?)",
					     c->path, dev, c->name);
	}
	return 0;
}

void rt_pt_ctr_read(struct rt_pt_ctr *k)
{
	for (unsigned i = 0; i < k->n; i++) {
		unsigned long long v;

		k->c[i].ok = read_one(k->c[i].path, &v);
		if (!k->c[i].ok)
			continue;
		k->c[i].delta = v - k->c[i].last;
		k->c[i].last = v;
	}
}

void rt_pt_ctr_print(const struct rt_pt_ctr *k, const struct rt_log *log)
{
	for (unsigned i = 0; i < k->n; i++) {
		if (k->c[i].ok)
			rt_say(log, "\t%s=%llu", k->c[i].name, k->c[i].delta);
		else
			rt_say(log, "\t%s=unreadable", k->c[i].name);
	}
	rt_say(log, "%s", "");
}

void rt_pt_ctr_json(const struct rt_pt_ctr *k, struct rt_json *j)
{
	rt_json_object_begin(j);
	for (unsigned i = 0; i < k->n; i++) {
		rt_json_key(j, k->c[i].name);
		if (k->c[i].ok)
			rt_json_uint(j, k->c[i].delta);
		else
			rt_json_null(j);
	}
	rt_json_object_end(j);
}

/* ---- --cpu_util ---------------------------------------------------------------- */

bool rt_pt_cpu_parse(const char *line, struct rt_pt_cpu *s)
{
	unsigned long long user, nice, sys, idle;

	if (sscanf(line, "cpu %llu %llu %llu %llu", &user, &nice, &sys, &idle) != 4)
		return false;
	s->user = user;
	s->idle = idle;
	return true;
}

bool rt_pt_cpu_sample(struct rt_pt_cpu *s)
{
	char line[256];
	FILE *f = fopen("/proc/stat", "r");
	bool ok;

	*s = (struct rt_pt_cpu){ 0 };
	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) && rt_pt_cpu_parse(line, s);
	fclose(f);
	return ok;
}

double rt_pt_cpu_util(const struct rt_pt_cpu *a, const struct rt_pt_cpu *b)
{
	double user = (double)(b->user - a->user), idle = (double)(b->idle - a->idle);

	return user + idle > 0 ? user / (user + idle) * 100 : 0;
}

void rt_pt_cpu_mark(struct rt_pt_cpu_mark *m, uint64_t now, uint64_t open,
		    uint64_t close)
{
	if (m->at == 0 && now >= open)
		rt_pt_cpu_sample(&m->s[m->at++]);
	if (m->at == 1 && now >= close)
		rt_pt_cpu_sample(&m->s[m->at++]);
}

void rt_pt_cpu_cell(char *buf, size_t len, double util)
{
	snprintf(buf, len, "\t    %-3.2f", util);
}

/* ---- -H/-U ------------------------------------------------------------------ */

void rt_pt_samples_init(struct rt_pt_samples *s, uint64_t cap)
{
	s->n = 0;
	if (cap && cap != s->cap) {
		free(s->v);
		s->v = rt_xcalloc((size_t)cap, sizeof(*s->v));
		s->cap = cap;
	}
}

void rt_pt_samples_add(struct rt_pt_samples *s, uint64_t ns)
{
	if (s->n < s->cap)
		s->v[s->n++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void list(const uint64_t *v, uint64_t n, unsigned rtt, double per_us,
		 const struct rt_log *log)
{
	double q = 1000.0 * (rtt ? rtt : 1) / (per_us > 0 ? per_us : 1);

	rt_say(log, per_us > 0 ? "#, cycles" : "#, usec");
	for (uint64_t i = 0; i < n; i++)
		rt_say(log, "%llu, %g", (unsigned long long)i + 1, (double)v[i] / q);
}

void rt_pt_samples_print(struct rt_pt_samples *s, bool unsorted, bool histogram,
			 unsigned rtt, const struct rt_log *log)
{
	if (unsorted)
		list(s->v, s->n, rtt, s->cycles_per_us, log);
	qsort(s->v, (size_t)s->n, sizeof(*s->v), cmp_u64);
	if (histogram && s->n > 2)
		list(s->v, s->n - 2, rtt, s->cycles_per_us, log);
}

void rt_pt_samples_free(struct rt_pt_samples *s)
{
	free(s->v);
	*s = (struct rt_pt_samples){ 0 };
}

/* ---- --run_infinitely's rows -------------------------------------------------------- */

void rt_pt_ring_put(struct rt_pt_ring *r, const char *const *keys, const double *v,
		    size_t n)
{
	struct rt_pt_ring_row *row = &r->row[r->total % RT_PT_INF_ROWS];

	row->n = RT_MIN(n, (size_t)RT_PT_ROW_FIELDS);
	for (size_t i = 0; i < row->n; i++) {
		row->key[i] = keys[i];
		row->v[i] = v[i];
	}
	r->total++;
}

void rt_pt_ring_json(const struct rt_pt_ring *r, struct rt_json *j)
{
	uint64_t kept = RT_MIN(r->total, (uint64_t)RT_PT_INF_ROWS);

	for (uint64_t k = r->total - kept; k < r->total; k++) {
		const struct rt_pt_ring_row *row = &r->row[k % RT_PT_INF_ROWS];

		rt_json_object_begin(j);
		for (size_t i = 0; i < row->n; i++)
			rt_json_kv_double(j, row->key[i], row->v[i]);
		rt_json_object_end(j);
	}
}
