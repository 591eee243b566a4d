/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Mesh results as JSON: the run's document and the per-rank lines
 * (meshjson.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh/meshblame.h"
#include "mesh/meshjson.h"
#include "rdmatest/util.h"

void rt_mesh_line_hello(struct rt_json *j, const struct rt_mesh_hello *h)
{
	rt_json_object_begin(j);
	rt_json_kv_string(j, "mesh", "hello");
	rt_json_kv_uint(j, "rank", h->rank);
	rt_json_kv_uint(j, "size", h->size);
	rt_json_kv_string(j, "host", h->host);
	if (h->payload_mbps)
		rt_json_kv_uint(j, "payload_mbps", h->payload_mbps);
	rt_json_object_end(j);
}

static void result_members(struct rt_json *j, const struct rt_mesh_result *r);
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
}

/* ---- the line reader: one flat object of strings and integers ---- */

#define KV_MAX 16

struct kv {
	const char *key, *val;
	size_t klen, vlen;
	bool str;
};

struct lex {
	const char *p, *end;
};

static void skip_ws(struct lex *x)
{
	while (x->p < x->end && (*x->p == ' ' || *x->p == '\t'))
		x->p++;
}

static bool take(struct lex *x, char c)
{
	skip_ws(x);
	if (x->p < x->end && *x->p == c) {
		x->p++;
		return true;
	}
	return false;
}

/* A string without escapes: the lines carry names and keywords only. */
static bool lex_string(struct lex *x, const char **s, size_t *n)
{
	if (!take(x, '"'))
		return false;
	*s = x->p;
	while (x->p < x->end && *x->p != '"') {
		if (*x->p == '\\' || (unsigned char)*x->p < 0x20 ||
		    (unsigned char)*x->p > 0x7e)
			return false;
		x->p++;
	}
	if (x->p == x->end)
		return false;
	*n = (size_t)(x->p++ - *s);
	return true;
}

static bool lex_uint(struct lex *x, const char **s, size_t *n)
{
	skip_ws(x);
	*s = x->p;
	while (x->p < x->end && *x->p >= '0' && *x->p <= '9')
		x->p++;
	*n = (size_t)(x->p - *s);
	return *n >= 1 && *n <= 19 && !(*n > 1 && **s == '0');
}

static int lex_object(struct lex *x, struct kv *kv, size_t *nkv)
{
	*nkv = 0;
	if (!take(x, '{'))
		return -1;
	do {
		struct kv *e = &kv[*nkv];

		if (*nkv == KV_MAX || !lex_string(x, &e->key, &e->klen) ||
		    !take(x, ':'))
			return -1;
		skip_ws(x);
		e->str = x->p < x->end && *x->p == '"';
		if (e->str ? !lex_string(x, &e->val, &e->vlen) :
			     !lex_uint(x, &e->val, &e->vlen))
			return -1;
		for (size_t i = 0; i < *nkv; i++)
			if (kv[i].klen == e->klen && !memcmp(kv[i].key, e->key, e->klen))
				return -1;
		(*nkv)++;
	} while (take(x, ','));
	if (!take(x, '}'))
		return -1;
	skip_ws(x);
	while (x->p < x->end && *x->p == '\r')
		x->p++;
	return x->p == x->end ? 0 : -1;
}

static const struct kv *find(const struct kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (kv[i].klen == strlen(key) && !memcmp(kv[i].key, key, kv[i].klen))
			return &kv[i];
	return NULL;
}

static bool is(const struct kv *e, const char *s)
{
	return e && e->str && e->vlen == strlen(s) && !memcmp(e->val, s, e->vlen);
}

/* An integer field: *v, true when present; false on a string value. */
static bool get_num(const struct kv *kv, size_t n, const char *key,
		    uint64_t *v, bool *present)
{
	const struct kv *e = find(kv, n, key);

	*present = e != NULL;
	*v = 0;
	if (!e)
		return true;
	if (e->str)
		return false;
	for (size_t i = 0; i < e->vlen; i++) {
		uint64_t d = (uint64_t)(e->val[i] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return false;
		*v = *v * 10 + d;
	}
	return true;
}

static bool get_u32(const struct kv *kv, size_t n, const char *key, uint32_t *v)
{
	uint64_t x;
	bool present;

	if (!get_num(kv, n, key, &x, &present) || !present || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static int parse_hello(const struct kv *kv, size_t n, struct rt_meshmsg *m)
{
	const struct kv *h = find(kv, n, "host");
	bool pay = find(kv, n, "payload_mbps") != NULL;

	m->type = RT_MESHMSG_HELLO;
	/* the payload rate is optional: lines of a rank that knew none */
	if (pay && !get_u32(kv, n, "payload_mbps", &m->u.hello.payload_mbps))
		return -1;
	if (n != 4u + pay || !get_u32(kv, n, "rank", &m->u.hello.rank) ||
	    !get_u32(kv, n, "size", &m->u.hello.size) || !h || !h->str ||
	    h->vlen >= RT_MESH_HOST_LEN)
		return -1;
	memcpy(m->u.hello.host, h->val, h->vlen);
	m->u.hello.host[h->vlen] = '\0';
	return rt_mesh_host_valid(m->u.hello.host) ? 0 : -1;
}

static bool get_str(const struct kv *kv, size_t n, const char *key, char *out, size_t len)
{
	const struct kv *e = find(kv, n, key);

	if (!e || !e->str || e->vlen >= len)
		return false;
	memcpy(out, e->val, e->vlen);
	out[e->vlen] = '\0';
	return true;
}

/* A name among names[0..count) into *v. */
static bool get_name(const struct kv *kv, size_t n, const char *key,
		     const char *(*name)(unsigned), unsigned count, uint8_t *v)
{
	const struct kv *e = find(kv, n, key);

	for (unsigned i = 0; i < count; i++)
		if (is(e, name(i))) {
			*v = (uint8_t)i;
			return true;
		}
	return false;
}

static bool get_small(const struct kv *kv, size_t n, const char *key, uint32_t max,
		      uint32_t *v)
{
	return get_u32(kv, n, key, v) && *v <= max;
}

/* A rail line; its values are checked as a hello's rail (meshwire.h). */
static int parse_rail(const struct kv *kv, size_t n, struct rt_meshmsg *m)
{
	struct rt_mesh_rail *r = &m->u.hello.rails[0];
	uint32_t rail, port, gid, lanes, mtu;

	m->type = RT_MESH_LINE_RAIL;
	if (n != 13 || !get_u32(kv, n, "rank", &m->u.hello.rank) ||
	    !get_small(kv, n, "rail", 255, &rail) || !get_small(kv, n, "port", 255, &port) ||
	    !get_small(kv, n, "gid_index", 65535, &gid) || !get_small(kv, n, "lanes", 255, &lanes) ||
	    !get_small(kv, n, "mtu", 65535, &mtu) || !get_u32(kv, n, "speed_mbps", &r->speed_mbps) ||
	    !get_u32(kv, n, "payload_mbps", &r->payload_mbps) ||
	    !get_str(kv, n, "dev", r->dev, sizeof(r->dev)) ||
	    !get_str(kv, n, "addr", r->addr, sizeof(r->addr)) ||
	    !get_name(kv, n, "link_layer", rt_rail_link_name, RT_RAIL_ETHERNET + 1, &r->link) ||
	    !get_name(kv, n, "state", rt_rail_state_name, RT_RAIL_ACTIVE_DEFER + 1, &r->state))
		return -1;
	r->rail = (uint8_t)rail;
	r->port = (uint8_t)port;
	r->gid_index = (uint16_t)gid;
	r->lanes = (uint8_t)lanes;
	r->mtu = (uint16_t)mtu;
	return 0;
}

/* A rail line's values, as a one-rail hello of the binary decoder: the
 * address must also read back as written. */
static int check_rail(struct rt_meshmsg *m, struct rt_error *err)
{
	struct rt_meshmsg h = {.type = RT_MESHMSG_HELLO,
		.u.hello = {.rank = 0, .size = 1, .host = "x", .nrails = 1}};
	uint8_t buf[RT_MESHMSG_MAX];

	h.u.hello.rails[0] = m->u.hello.rails[0];
	if (rt_meshmsg_decode(buf, rt_meshmsg_encode(&h, buf), 0, &h, err))
		return -1;
	if (strcmp(h.u.hello.rails[0].addr, m->u.hello.rails[0].addr))
		return rt_fail(err, RT_EXIT_FAIL, "mesh rail: address '%s' is not numeric as "
			       "written (%s)", m->u.hello.rails[0].addr, h.u.hello.rails[0].addr);
	return 1;
}

static int parse_status(const struct kv *e, uint8_t *status)
{
	for (unsigned s = 0; s <= RT_MESH_STATUS_MAX; s++)
		if (is(e, rt_mesh_status_name(s))) {
			*status = (uint8_t)s;
			return 0;
		}
	return -1;
}

static int parse_result(const struct kv *kv, size_t n, struct rt_meshmsg *m)
{
	struct rt_mesh_result *r = &m->u.result;
	bool c, p50, p99, bw, rev, rl, rlb, round = find(kv, n, "round") != NULL;
	uint64_t rail, rail_b;

	m->type = RT_MESHMSG_RESULT;
	if (round && !get_u32(kv, n, "round", &r->round))
		return -1;
	if (!get_num(kv, n, "rail", &rail, &rl) || !get_num(kv, n, "rail_b", &rail_b, &rlb) ||
	    rail >= RT_MESH_RAILS_MAX || rail_b >= RT_MESH_RAILS_MAX || (rlb && !rl))
		return -1;
	r->rail = (uint8_t)rail;
	r->rail_b = (uint8_t)(rlb ? rail_b : rail);
	if (!get_u32(kv, n, "a", &r->a) || !get_u32(kv, n, "b", &r->b) ||
	    parse_status(find(kv, n, "status"), &r->status) ||
	    !get_num(kv, n, "connect_ns", &r->connect_ns, &c) ||
	    !get_num(kv, n, "rtt_p50_ns", &r->rtt_p50_ns, &p50) ||
	    !get_num(kv, n, "rtt_p99_ns", &r->rtt_p99_ns, &p99) ||
	    !get_num(kv, n, "mbps", &r->mbps, &bw) ||
	    !get_num(kv, n, "mbps_rev", &r->mbps_rev, &rev) || p50 != p99 || bw != rev ||
	    c != (r->status == RT_MESH_OK))
		return -1;
	r->flags = (uint8_t)((p50 ? RT_MESH_HAS_RTT : 0) | (bw ? RT_MESH_HAS_BW : 0));
	/* every key known: the four required ones and the figures given */
	return n == 4u + c + p50 + p99 + bw + rev + round + rl + rlb ? 0 : -1;
}

int rt_mesh_line_parse(const char *line, size_t len, struct rt_meshmsg *m,
		       struct rt_error *err)
{
	const char *brace = memchr(line, '{', len);
	struct lex x = {brace, line + len};
	struct kv kv[KV_MAX];
	const struct kv *kind;
	uint8_t buf[RT_MESHMSG_MAX];
	size_t n;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!brace)
		return 0;
	if (lex_object(&x, kv, &n))
		return rt_fail(err, RT_EXIT_FAIL, "not one flat JSON object of known keys with string and integer values");
	kind = find(kv, n, "mesh");
	rc = is(kind, "hello") ? parse_hello(kv, n, m) :
	     is(kind, "result") ? parse_result(kv, n, m) :
	     is(kind, "rail") ? parse_rail(kv, n, m) : -1;
	if (rc)
		return rt_fail(err, RT_EXIT_FAIL, "not a mesh hello, rail or result line (a key missing, unknown or out of range)");
	if (m->type == RT_MESH_LINE_RAIL)
		return check_rail(m, err);
	/* the binary decoder holds the one set of value checks */
	return rt_meshmsg_decode(buf, rt_meshmsg_encode(m, buf), 0, m, err) ? -1 : 1;
}

/* A "flaky" line: a result's members (checked as a result line's) and
 * the first pass's reasons. */
static int evidence_flaky(struct rt_mesh_agg *g, const char *line, size_t len,
			  struct rt_error *err)
{
	char buf[RT_MESH_LINE_MAX + 1];
	const char *at = strstr(line, "\"flaky\"");
	const char *why = strstr(line, ",\"why\":");
	struct rt_mesh_link l = {0};
	struct rt_meshmsg m;
	char *end;
	unsigned long w;

	/* the same line as a result, its why member taken off */
	if (!at || !why || len > RT_MESH_LINE_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "not a mesh flaky line");
	w = strtoul(why + 7, &end, 10);
	if (end == why + 7 || *end != '}' || w == 0 || w > 127)
		return rt_fail(err, RT_EXIT_FAIL, "a flaky line's why is a mask of 1 to 127");
	snprintf(buf, sizeof(buf), "%.*s\"result\"%.*s}", (int)(at - line), line,
		 (int)(why - at - 7), at + 7);
	if (rt_mesh_line_parse(buf, strlen(buf), &m, err) != 1 ||
	    m.type != RT_MESHMSG_RESULT)
		return -1;
	l.r = m.u.result;
	l.why = (uint32_t)w;
	rt_mesh_blame_flaky_add(g, &l);
	return 0;
}

/* A "blame" line: an end and its partners. */
static int evidence_blame(struct rt_mesh_agg *g, const struct kv *kv, size_t n,
			  struct rt_error *err)
{
	uint32_t rank, p[2];
	bool h1 = find(kv, n, "p1") != NULL, h2 = find(kv, n, "p2") != NULL;

	if (!get_u32(kv, n, "rank", &rank) || (h1 && !get_u32(kv, n, "p1", &p[0])) ||
	    (h2 && !get_u32(kv, n, "p2", &p[1])) || (h2 && !h1) || n != 2u + h1 + h2 ||
	    (g->n && (rank >= g->n || (h1 && p[0] >= g->n) || (h2 && p[1] >= g->n))) ||
	    (h1 && p[0] == rank) || (h2 && (p[1] == rank || p[1] == p[0])))
		return rt_fail(err, RT_EXIT_FAIL, "not a mesh blame line (rank, p1, p2: "
			       "distinct ranks of the mesh)");
	rt_mesh_blame_end_add(g, rank, p, (uint8_t)(h1 + h2));
	return 0;
}

static int report_line(struct rt_mesh_agg *g, const char *line, size_t len,
		       struct rt_error *err)
{
	const char *brace = memchr(line, '{', len);
	struct lex x = {brace, line + len};
	struct kv kv[KV_MAX];
	struct rt_meshmsg m;
	size_t n;
	int rc;

	if (brace && !lex_object(&x, kv, &n)) {
		if (is(find(kv, n, "mesh"), "flaky"))
			return evidence_flaky(g, brace, (size_t)(line + len - brace), err);
		if (is(find(kv, n, "mesh"), "blame"))
			return evidence_blame(g, kv, n, err);
	}
	rc = rt_mesh_line_parse(line, len, &m, err);
	if (rc <= 0)
		return rc;
	return m.type == RT_MESHMSG_HELLO ? rt_mesh_agg_hello(g, &m.u.hello, err) :
	       m.type == RT_MESH_LINE_RAIL ? rt_mesh_agg_rail(g, m.u.hello.rank,
							      &m.u.hello.rails[0], err) :
	       rt_mesh_agg_add(g, &m.u.result, err);
}

int rt_mesh_report_read(FILE *f, struct rt_mesh_agg *g, struct rt_error *err)
{
	char buf[RT_MESH_LINE_MAX + 2];
	uint32_t lineno = 0;

	while (fgets(buf, sizeof(buf), f)) {
		size_t len = strlen(buf);
		struct rt_error e = {0};

		if (++lineno > RT_MESH_LINES_MAX)
			return rt_fail(err, RT_EXIT_FAIL, "mesh report: more than %u lines", RT_MESH_LINES_MAX);
		if (len && buf[len - 1] == '\n')
			len--;
		else if (!feof(f))
			return rt_fail(err, RT_EXIT_FAIL, "mesh report: line %u is longer than %u bytes",
				       lineno, RT_MESH_LINE_MAX);
		if (report_line(g, buf, len, &e))
			return rt_fail(err, e.exit_code, "mesh report: line %u: %s", lineno, e.reason);
	}
	if (ferror(f))
		return rt_fail(err, RT_EXIT_FAIL, "mesh report: read error");
	return 0;
}

/* ---- the document ---- */

static void doc_thresholds(struct rt_json *j, const struct rt_mesh_limits *lim)
{
	rt_json_key(j, "thresholds");
	rt_json_object_begin(j);
	rt_json_kv_double(j, "min_gbps", lim->min_gbps > 0 ? lim->min_gbps : NAN);
	rt_json_kv_double(j, "max_rtt_us", lim->max_rtt_us > 0 ? lim->max_rtt_us : NAN);
	rt_json_kv_double(j, "rtt_factor", lim->rtt_factor > 0 ? lim->rtt_factor : NAN);
	rt_json_kv_double(j, "bw_fraction", lim->bw_fraction > 0 ? lim->bw_fraction : NAN);
	rt_json_kv_double(j, "min_line_rate", lim->min_line_rate > 0 ? lim->min_line_rate : NAN);
	rt_json_kv_uint(j, "min_links", RT_MAX(lim->min_links, 1u));
	rt_json_object_end(j);
}

static void doc_nodes(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "nodes");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", i);
		rt_json_key(j, "host");
		if (nd->host[0])
			rt_json_string(j, nd->host);
		else
			rt_json_null(j);
		rt_json_kv_string(j, "verdict", rt_node_verdict_name(nd->verdict));
		rt_json_kv_bool(j, "lost", nd->lost);
		rt_json_kv_uint(j, "tested", nd->tested);
		rt_json_kv_uint(j, "bad", nd->bad);
		rt_json_kv_double(j, "payload_gbps",
				  nd->payload_mbps ? nd->payload_mbps / 1000.0 : NAN);
		rt_json_key(j, "rails"); /* its hello's */
		rt_json_array_begin(j);
		for (unsigned k = 0; k < nd->nrails; k++) {
			rt_json_object_begin(j);
			rt_mesh_rail_fields(j, &nd->rails[k]);
			rt_json_kv_double(j, "speed_gbps", nd->rails[k].speed_mbps / 1e3);
			rt_json_object_end(j);
		}
		rt_json_array_end(j);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

static const char *const why_names[] = {"failed", "rtt-absolute", "rtt-relative",
					"bw-absolute", "bw-relative", "absent", "line-rate"};

static void doc_why(struct rt_json *j, uint32_t why)
{
	rt_json_key(j, "why");
	rt_json_array_begin(j);
	for (size_t b = 0; b < ARRAY_SIZE(why_names); b++)
		if (why & (1u << b))
			rt_json_string(j, why_names[b]);
	rt_json_array_end(j);
}

/* A document too large to hold goes out as it is built: past this many
 * bytes the writer's text is written to the output and emptied. */
#define DOC_CHUNK (64u << 10)

static void drain(struct rt_json *j, FILE *out)
{
	if (out && j->len >= DOC_CHUNK)
		rt_json_flush(j, out);
}

static void doc_pair(struct rt_json *j, const struct rt_mesh_agg *g,
		     const struct rt_mesh_link *l)
{
	const struct rt_mesh_rail *x = rt_mesh_rail_of(g, l->r.a, l->r.rail);
	const struct rt_mesh_rail *y = rt_mesh_rail_of(g, l->r.b, l->r.rail_b);
	bool ok = l->r.status == RT_MESH_OK;

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "a", l->r.a);
	rt_json_kv_uint(j, "b", l->r.b);
	rt_json_kv_string(j, "status", rt_mesh_status_name(l->r.status));
	rt_json_kv_double(j, "connect_us", ok ? (double)l->r.connect_ns / 1e3 : NAN);
	rt_json_kv_double(j, "rtt_p50_us", l->r.flags & RT_MESH_HAS_RTT ?
			  (double)l->r.rtt_p50_ns / 1e3 : NAN);
	rt_json_kv_double(j, "rtt_p99_us", l->r.flags & RT_MESH_HAS_RTT ?
			  (double)l->r.rtt_p99_ns / 1e3 : NAN);
	rt_json_kv_double(j, "gbps", l->r.flags & RT_MESH_HAS_BW ?
			  (double)l->r.mbps / 1e3 : NAN);
	rt_json_kv_double(j, "gbps_rev", l->r.flags & RT_MESH_HAS_BW ?
			  (double)l->r.mbps_rev / 1e3 : NAN);
	rt_json_kv_string(j, "verdict", l->why == RT_LINK_ABSENT ? "absent" :
			  l->why ? "bad" : "ok");
	doc_why(j, l->why);
	/* last, so that the keys before rails keep their places */
	rt_json_kv_uint(j, "rail", l->r.rail);
	if (l->r.rail_b != l->r.rail)
		rt_json_kv_uint(j, "rail_b", l->r.rail_b);
	if (x && y) {
		rt_json_kv_string(j, "dev_a", x->dev);
		rt_json_kv_string(j, "dev_b", y->dev);
	}
	rt_json_object_end(j);
}

static void doc_pairs(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "pairs");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		doc_pair(j, g, &l);
		drain(j, out);
	}
	rt_json_array_end(j);
}

/* One cell of an n x n matrix, null where no figure. RTT is symmetric;
 * bandwidth is not: row a, column b holds a to b. */
static double matrix_cell(const struct rt_mesh_agg *g, uint32_t a, uint32_t b,
			  uint8_t flag)
{
	struct rt_mesh_link l;

	if (!rt_mesh_link_of(g, a, b, &l) || l.r.status != RT_MESH_OK || !(l.r.flags & flag))
		return NAN;
	if (flag == RT_MESH_HAS_RTT)
		return (float)((double)l.r.rtt_p50_ns / 1e3);
	return (float)((double)(a < b ? l.r.mbps : l.r.mbps_rev) / 1e3);
}

/* One n x n matrix of a metric, row by row, each cell looked up where it
 * is written (rt_mesh_link_of): no scratch matrix. */
static void doc_matrix(struct rt_json *j, const struct rt_mesh_agg *g,
		       uint8_t flag, FILE *out)
{
	rt_json_array_begin(j);
	for (uint32_t a = 0; a < g->n; a++) {
		rt_json_array_begin(j);
		for (uint32_t b = 0; b < g->n; b++)
			rt_json_double(j, matrix_cell(g, a, b, flag));
		rt_json_array_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_lists(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;
	static const struct { const char *key; uint8_t v; } lists[] = {
		{"bad_nodes", RT_NODE_BAD}, {"suspect_nodes", RT_NODE_SUSPECT},
		{"absent", RT_NODE_ABSENT}, {"untested", RT_NODE_UNTESTED},
	};

	for (size_t k = 0; k < ARRAY_SIZE(lists); k++) {
		rt_json_key(j, lists[k].key);
		rt_json_array_begin(j);
		for (uint32_t i = 0; i < g->n; i++)
			if (g->nodes[i].verdict == lists[k].v)
				rt_json_uint(j, i);
		rt_json_array_end(j);
	}
	/* a bad link whose end is a bad node is that node's fault */
	rt_json_key(j, "bad_links");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		if (!rt_mesh_link_blamed(g, &l))
			continue;
		rt_json_array_begin(j);
		rt_json_uint(j, l.r.a);
		rt_json_uint(j, l.r.b);
		rt_json_array_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_refused(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_kv_uint(j, "refused_peers", g->refused);
	rt_json_key(j, "refused");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < RT_MIN(g->refused, RT_MESH_REFUSED_LIST); i++) {
		const struct rt_mesh_refusal *r = &g->refusals[i];

		rt_json_object_begin(j);
		rt_json_kv_string(j, "addr", r->addr);
		rt_json_key(j, "rank");
		if (r->rank == RT_MESH_NO_PEER)
			rt_json_null(j);
		else
			rt_json_uint(j, r->rank);
		rt_json_kv_string(j, "reason", r->reason);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
}

static void doc_outliers(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "outliers");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		bool rtt = l.why & RT_LINK_RTT_REL, bw = l.why & RT_LINK_BW_REL;

		for (int k = 0; k < 2; k++) {
			if (!(k ? bw : rtt))
				continue;
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "a", l.r.a);
			rt_json_kv_uint(j, "b", l.r.b);
			rt_json_kv_string(j, "metric", k ? "gbps" : "rtt_us");
			rt_json_kv_double(j, "value", k ? rt_mesh_gbps(&l.r) :
					  (double)l.r.rtt_p50_ns / 1e3);
			const struct rt_mesh_rail_stat *st =
				rt_mesh_class_stat(g, l.r.rail, l.r.rail_b);

			rt_json_kv_uint(j, "rail", l.r.rail);
			if (l.r.rail_b != l.r.rail)
				rt_json_kv_uint(j, "rail_b", l.r.rail_b);
			rt_json_kv_double(j, "median", k ? st->median_gbps : st->median_rtt_us);
			rt_json_object_end(j);
		}
		drain(j, out);
	}
	rt_json_array_end(j);
}

static void doc_pairing(struct rt_json *j, const struct rt_mesh_agg *g, uint32_t end,
			uint32_t partner)
{
	struct rt_mesh_link l;
	bool tested = rt_mesh_pair_worst(g, end, partner, &l);

	rt_json_object_begin(j);
	rt_json_kv_uint(j, "partner", partner);
	rt_json_kv_string(j, "verdict", !tested || l.why == RT_LINK_ABSENT ? "untested" :
			  l.why ? "bad" : "ok");
	rt_json_kv_double(j, "rtt_p50_us", tested && (l.r.flags & RT_MESH_HAS_RTT) ?
			  (double)l.r.rtt_p50_ns / 1e3 : NAN);
	rt_json_kv_double(j, "gbps", tested && (l.r.flags & RT_MESH_HAS_BW) ?
			  rt_mesh_gbps(&l.r) : NAN);
	doc_why(j, tested ? l.why : 0);
	rt_json_object_end(j);
}

/* The blame pass's evidence: flaky links with their first figures, the
 * ends paired with good hosts, and what the pairings say of each bad
 * link left. */
static void doc_blame(struct rt_json *j, const struct rt_mesh_agg *g, FILE *out)
{
	const struct rt_mesh_blame *b = &g->blame;
	struct rt_mesh_iter it;
	struct rt_mesh_link l;

	rt_json_key(j, "blame");
	if (!b->ran) {
		rt_json_null(j);
		return;
	}
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rounds", b->rounds);
	rt_json_kv_uint(j, "pairs", b->pairs);
	rt_json_kv_bool(j, "cut_by_budget", b->cut);
	rt_json_kv_uint(j, "retested", b->nre);
	rt_json_key(j, "flaky");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < b->nre; i++)
		if (b->re[i].state == RT_RETEST_FLAKY)
			doc_pair(j, g, &b->re[i].first);
	rt_json_array_end(j);
	rt_json_key(j, "hosts");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < b->nends; i++) {
		const struct rt_mesh_blame_end *e = &b->ends[i];

		rt_json_object_begin(j);
		rt_json_kv_uint(j, "rank", e->rank);
		rt_json_kv_string(j, "verdict", e->tested && e->bad == e->tested ? "bad" :
				  !e->tested ? "untested" : e->bad ? "unsure" : "ok");
		rt_json_key(j, "pairings");
		rt_json_array_begin(j);
		for (uint8_t p = 0; p < e->np; p++)
			doc_pairing(j, g, e->rank, e->partner[p]);
		rt_json_array_end(j);
		rt_json_object_end(j);
	}
	rt_json_array_end(j);
	rt_json_key(j, "links");
	rt_json_array_begin(j);
	rt_mesh_links(g, &it);
	while (rt_mesh_link_next(&it, &l)) {
		enum rt_blame_verdict v;

		if (!l.why || l.why == RT_LINK_ABSENT ||
		    (v = rt_mesh_blame_link(g, l.r.a, l.r.b)) == RT_BLAME_NONE)
			continue;
		rt_json_object_begin(j);
		rt_json_kv_uint(j, "a", l.r.a);
		rt_json_kv_uint(j, "b", l.r.b);
		rt_json_kv_string(j, "verdict", rt_blame_verdict_name(v));
		rt_json_key(j, "host");
		if (v == RT_BLAME_HOST_A || v == RT_BLAME_HOST_B)
			rt_json_uint(j, v == RT_BLAME_HOST_A ? l.r.a : l.r.b);
		else
			rt_json_null(j);
		rt_json_object_end(j);
		drain(j, out);
	}
	rt_json_array_end(j);
	rt_json_object_end(j);
}

/* A --budget run's coverage, or null. */
static void doc_budget(struct rt_json *j, const struct rt_mesh_agg *g)
{
	const struct rt_mesh_cover *cv = &g->cover;

	rt_json_key(j, "budget");
	if (cv->minutes <= 0) {
		rt_json_null(j);
		return;
	}
	rt_json_object_begin(j);
	rt_json_kv_double(j, "minutes", cv->minutes);
	rt_json_kv_double(j, "elapsed_s", cv->elapsed_s);
	rt_json_kv_uint(j, "rounds", cv->rounds);
	rt_json_kv_uint(j, "matchings", cv->matchings);
	rt_json_key(j, "distinct_pairs");
	if (cv->counted)
		rt_json_uint(j, cv->distinct);
	else
		rt_json_null(j);
	rt_json_kv_uint(j, "all_pairs", (uint64_t)g->n * (g->n ? g->n - 1 : 0) / 2);
	rt_json_object_end(j);
}

/* One class's links and medians: a rail's, or a crossed pair's. */
static void class_stat(struct rt_json *j, const struct rt_mesh_rail_stat *st, unsigned r,
		       unsigned rb)
{
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "rail", r);
	if (rb != r)
		rt_json_kv_uint(j, "rail_b", rb);
	rt_json_kv_uint(j, "links", st->links);
	rt_json_kv_uint(j, "bad_links", st->bad_links);
	rt_json_kv_double(j, "median_rtt_us", st->median_rtt_us > 0 ? st->median_rtt_us : NAN);
	rt_json_kv_double(j, "median_gbps", st->median_gbps > 0 ? st->median_gbps : NAN);
	rt_json_object_end(j);
}

/* Each tested rail's links and medians; with crossed links, each
 * crossed class {rail, rail_b} (rail < rail_b) in "cross_rails". */
static void doc_rails(struct rt_json *j, const struct rt_mesh_agg *g)
{
	rt_json_key(j, "rails");
	rt_json_array_begin(j);
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		if (g->rail_mask >> r & 1u)
			class_stat(j, &g->rail_stat[r], r, r);
	rt_json_array_end(j);
	if (!g->ncross)
		return;
	rt_json_key(j, "cross_rails");
	rt_json_array_begin(j);
	for (unsigned r = 0; r < RT_MESH_RAILS_MAX; r++)
		for (unsigned rb = r + 1; rb < RT_MESH_RAILS_MAX; rb++)
			if (rt_mesh_class_stat(g, r, rb)->links)
				class_stat(j, rt_mesh_class_stat(g, r, rb), r, rb);
	rt_json_array_end(j);
}

/* The hosts' bad rails (meshagg.h) and the hosts of another rail count. */
static void doc_bad_rails(struct rt_json *j, const struct rt_mesh_agg *g)
{
	char why[64];

	rt_json_key(j, "bad_rails");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n; i++) {
		const struct rt_mesh_node *nd = &g->nodes[i];

		for (unsigned k = 0; nd->present && k < nd->nrails; k++) {
			const struct rt_mesh_rail *r = &nd->rails[k];

			if (r->state == RT_RAIL_ACTIVE && !(nd->rail_bad >> r->rail & 1u))
				continue;
			if (r->state != RT_RAIL_ACTIVE)
				snprintf(why, sizeof(why), "port %u %s", r->port,
					 rt_rail_state_name(r->state));
			else
				snprintf(why, sizeof(why), "its links are bad");
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "rank", i);
			rt_json_kv_string(j, "host", nd->host);
			rt_json_kv_uint(j, "rail", r->rail);
			rt_json_kv_string(j, "dev", r->dev);
			rt_json_kv_string(j, "reason", why);
			rt_json_object_end(j);
		}
	}
	rt_json_array_end(j);
	rt_json_kv_uint(j, "rails_expected", g->rails_expected);
	rt_json_key(j, "rail_count_mismatch");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < g->n && g->rail_mismatch; i++)
		if (g->nodes[i].present && g->nodes[i].nrails != g->rails_expected) {
			rt_json_object_begin(j);
			rt_json_kv_uint(j, "rank", i);
			rt_json_kv_string(j, "host", g->nodes[i].host);
			rt_json_kv_uint(j, "rails", g->nodes[i].nrails);
			rt_json_object_end(j);
		}
	rt_json_array_end(j);
}

void rt_mesh_document(struct rt_json *j, const struct rt_mesh_agg *g,
		      const struct rt_mesh_limits *lim, FILE *out)
{
	rt_json_object_begin(j);
	rt_json_kv_uint(j, "ranks", g->n);
	doc_thresholds(j, lim);
	rt_json_kv_double(j, "median_rtt_us", g->median_rtt_us > 0 ? g->median_rtt_us : NAN);
	rt_json_kv_double(j, "median_gbps", g->median_gbps > 0 ? g->median_gbps : NAN);
	doc_nodes(j, g);
	doc_pairs(j, g, out);
	rt_json_key(j, "matrix");
	if (g->n > RT_MESH_MATRIX_MAX) {
		rt_json_null(j);
	} else {
		rt_json_object_begin(j);
		rt_json_key(j, "rtt_us");
		doc_matrix(j, g, RT_MESH_HAS_RTT, out);
		if (g->median_gbps > 0) {
			rt_json_key(j, "gbps");
			doc_matrix(j, g, RT_MESH_HAS_BW, out);
		}
		rt_json_object_end(j);
	}
	doc_rails(j, g);
	doc_lists(j, g, out);
	doc_bad_rails(j, g);
	doc_refused(j, g);
	doc_outliers(j, g, out);
	doc_blame(j, g, out);
	doc_budget(j, g);
	rt_json_kv_bool(j, "interrupted", g->interrupted);
	rt_json_kv_uint(j, "untested_hosts", g->untested_nodes);
	rt_json_key(j, "not_judged");
	rt_json_array_begin(j);
	if (g->not_judged & RT_LINK_RTT_REL)
		rt_json_string(j, "rtt-relative");
	if (g->not_judged & RT_LINK_BW_REL)
		rt_json_string(j, "bw-relative");
	rt_json_array_end(j);
	rt_json_kv_string(j, "verdict", rt_mesh_verdict_word(g->ready, g->interrupted));
	rt_json_object_end(j);
}
