/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The last perftest options of issue #40: see perftest_extra.h. */
#include <ctype.h>
#include <errno.h>
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

/* "0x" and eight hex digits, spaces around it allowed: bytes little endian */
static bool dword(const char *t, size_t n, uint8_t b[4])
{
	char hex[9];

	while (n && isspace((unsigned char)*t))
		t++, n--;
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	if (n != 10 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
		return false;
	for (int i = 0; i < 8; i++)
		if (!isxdigit((unsigned char)t[2 + i]))
			return false;
	memcpy(hex, t + 2, 8);
	hex[8] = 0;
	unsigned long v = strtoul(hex, NULL, 16);
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return true;
}

int rt_pt_payload_parse(const char *text, const char *what, uint8_t *out,
			size_t max, size_t *len, struct rt_error *err)
{
	size_t n = 0, k = 0;

	for (const char *t = text; n < max; k++) {
		const char *end = strchr(t, ',');
		size_t tl = end ? (size_t)(end - t) : strlen(t);
		uint8_t b[4];

		if (!end && k && strspn(t, " \t\r\n") == tl)
			break; /* after a trailing comma: the line's end */
		if (!dword(t, tl, b))
			return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: DWORD %zu "
				       "is not 0x and eight hex digits", what, k);
		for (int i = 0; i < 4 && n < max; i++)
			out[n++] = b[i];
		if (!end)
			break;
		t = end + 1;
	}
	*len = n;
	return 0;
}

static int load_text(const char *path, char **text, struct rt_error *err)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--payload_file_path %s", path);
	*text = calloc(1, RT_PT_PAYLOAD_FILE + 2);
	n = *text ? fread(*text, 1, RT_PT_PAYLOAD_FILE + 1, f) : 0;
	fclose(f);
	if (!*text)
		return rt_fail(err, RT_EXIT_ENV, "--payload_file_path %s: out of memory", path);
	if (n > RT_PT_PAYLOAD_FILE)
		return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: above %u bytes",
			       path, RT_PT_PAYLOAD_FILE);
	if (!n || strspn(*text, " \t\r\n") == n)
		return rt_fail(err, RT_EXIT_USAGE, "--payload_file_path %s: empty", path);
	return 0;
}

int rt_pt_payload_load(const char *path, size_t max, uint8_t **out, size_t *len,
		       struct rt_error *err)
{
	char *text = NULL;
	int rc = load_text(path, &text, err);

	*out = NULL;
	if (!rc && !(*out = malloc(max ? max : 1)))
		rc = rt_fail(err, RT_EXIT_ENV, "--payload_file_path %s: out of memory", path);
	if (!rc)
		rc = rt_pt_payload_parse(text, path, *out, max, len, err);
	free(text);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

void rt_pt_payload_fill(uint8_t *a, size_t n, const uint8_t *pat, size_t len)
{
	for (size_t i = 0; len && i < n; i++)
		a[i] = pat[i % len];
}

int rt_pt_flow_labels_parse(const char *list, struct rt_pt_extra *x,
			    struct rt_error *err)
{
	const char *t = list;

	x->n_flow_labels = 0;
	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(t, &end, 0);
		if (end == t || errno || v > RT_PT_FLOW_LABEL_MAX || *t == '-' ||
		    (*end && *end != ','))
			return rt_fail(err, RT_EXIT_USAGE, "--flow_label '%s': label %u is "
				       "not 0..%u", list, x->n_flow_labels + 1,
				       RT_PT_FLOW_LABEL_MAX);
		if (x->n_flow_labels == RT_PT_FLOW_LABELS)
			return rt_fail(err, RT_EXIT_USAGE, "--flow_label: more than %d labels",
				       RT_PT_FLOW_LABELS);
		x->flow_labels[x->n_flow_labels++] = (uint32_t)v;
		if (!*end)
			return 0;
		t = end + 1;
	}
}

uint32_t rt_pt_flow_label(const struct rt_pt_params *p, unsigned i)
{
	const struct rt_pt_extra *x = &p->extra;

	return x->n_flow_labels ? x->flow_labels[i % x->n_flow_labels] : 0;
}

static int flow_label_rule(struct rt_pt_params *p, const struct rt_pt_cfg *c,
			   struct rt_error *err)
{
	if (!c->extra.flow_label)
		return 0;
	if (p->rdma_cm)
		return rt_fail(err, RT_EXIT_USAGE, "--flow_label and -R exclude each "
			       "other: the RDMA CM sets the path (as --tclass)");
	return rt_pt_flow_labels_parse(c->extra.flow_label, &p->extra, err);
}

static int payload_rule(struct rt_pt_params *p, const struct rt_pt_cfg *c,
			struct rt_error *err)
{
	uint8_t *pat;
	size_t len;

	p->extra.payload = c->extra.payload;
	if (!p->extra.payload)
		return 0;
	/* checked now, before anything is connected; the connection loads it */
	if (rt_pt_payload_load(p->extra.payload, (size_t)(p->all ? RT_PT_ALL_MAX : p->size),
			       &pat, &len, err))
		return -1;
	free(pat);
	return 0;
}

static int null_mr_rule(struct rt_pt_params *p, const struct rt_pt_cfg *c,
			struct rt_error *err)
{
	p->extra.null_mr = c->extra.null_mr;
	p->extra.no_lock = c->extra.no_lock;
	if (p->extra.null_mr && p->t.verb != RT_PT_WRITE && p->t.verb != RT_PT_READ)
		return rt_fail(err, RT_EXIT_USAGE, "--use-null-mr: the write and read "
			       "tests only (as perftest)");
	return 0;
}

int rt_pt_no_lock_domains(struct ibv_context *ctx, struct ibv_pd *pd, const char *dev,
			  struct ibv_td **td, struct ibv_pd **pad, struct rt_error *err)
{
	struct ibv_parent_domain_init_attr a = { .pd = pd };
	const char *what = "ibv_alloc_td (thread domains)";
	int e;

	*pad = NULL;
	*td = ibv_alloc_td(ctx, &(struct ibv_td_init_attr){ 0 });
	if (*td) {
		a.td = *td;
		what = "ibv_alloc_parent_domain";
		*pad = ibv_alloc_parent_domain(ctx, &a);
		if (*pad)
			return 0;
	}
	e = errno;
	if (*td)
		ibv_dealloc_td(*td);
	*td = NULL;
	return rt_fail_errno(err, e == EOPNOTSUPP || e == ENOSYS ? RT_EXIT_ENV :
			     RT_EXIT_FAIL, e, "--no_lock: %s on %s", what, dev);
}

int rt_pt_extra_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	p->extra.vector = -1;
	if ((c->extra.cycles && cycles_rule(p, err)) || payload_rule(p, c, err) ||
	    flow_label_rule(p, c, err) || null_mr_rule(p, c, err))
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
