/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The last perftest options of issue #40: see perftest_extra.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perftest/perftest_extra.h"
#include "perftest/perftest_opts.h"
#include "perftest/perftest_report.h"

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
		p->extra.cycles_per_us = rt_pt_cpuinfo_mhz(text);
	}
	free(text);
	if (p->extra.cycles_per_us > 0)
		return 0;
	return rt_fail(err, RT_EXIT_ENV, "-C (--report-cycles): no \"cpu MHz\" in %s "
		       "to turn the monotonic clock's µs into cycles", path);
}

void rt_pt_cycles_scale(const struct rt_pt_extra *x, struct rt_pt_lat_figures *f)
{
	double k = x->cycles_per_us;

	if (k <= 0)
		return;
	f->t_min *= k, f->t_max *= k, f->t_typical *= k, f->t_avg *= k;
	f->t_stdev *= k, f->p99 *= k, f->p999 *= k, f->stdev *= k;
	f->max *= k, f->p50 *= k, f->p90 *= k, f->p99_all *= k;
	f->p999_all *= k, f->p9999_all *= k;
}

int rt_pt_extra_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	p->extra.vector = -1;
	if (c->extra.cycles && cycles_rule(p, err))
		return -1;
	if (!rt_opt_was_given(tab, "vector"))
		return 0;
	if (!p->events)
		return rt_fail(err, RT_EXIT_USAGE, "-X (--vector) needs -e (--events): "
			       "the completion vector is the one events arrive on "
			       "(as perftest)");
	p->extra.vector = (int)c->extra.vector;
	return 0;
}

int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err)
{
	if (p->extra.vector < 0)
		return 0;
	if (p->extra.vector >= ctx->num_comp_vectors)
		return rt_fail(err, RT_EXIT_ENV, "-X (--vector) %d: %s has %d "
			       "completion vectors (num_comp_vectors), 0 to %d",
			       p->extra.vector, ibv_get_device_name(ctx->device),
			       ctx->num_comp_vectors, ctx->num_comp_vectors - 1);
	return p->extra.vector;
}
