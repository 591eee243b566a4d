/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The per-rank JSON lines, read (meshparse.h): one flat object of strings
 * and integers a line, every key known and given once. */
#include <stdlib.h>
#include <string.h>

#include "mesh/meshblame.h"
#include "mesh/meshparse.h"
#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

#define KV_MAX 32

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

/* An integer value into *v; false on a string or past 64 bits. */
static bool kv_num(const struct kv *e, uint64_t *v)
{
	*v = 0;
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

/* An integer field: *v, true when present; false on a string value. */
static bool get_num(const struct kv *kv, size_t n, const char *key,
		    uint64_t *v, bool *present)
{
	const struct kv *e = find(kv, n, key);

	*present = e != NULL;
	*v = 0;
	return !e || kv_num(e, v);
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

static bool get_str(const struct kv *kv, size_t n, const char *key, char *out, size_t len);

/* Optional string members (inventory: written where known). */
struct opt_str {
	const char *key;
	char *out;
	size_t len;
};

/* How many of o's keys the line gives, each into its out; -1 on one that
 * is not a string or too long. The binary decoder checks the text. */
static int opt_strs(const struct kv *kv, size_t n, const struct opt_str *o)
{
	int given = 0;

	for (; o->key; o++) {
		if (!find(kv, n, o->key))
			continue;
		if (!get_str(kv, n, o->key, o->out, o->len))
			return -1;
		given++;
	}
	return given;
}

static int parse_hello(const struct kv *kv, size_t n, struct rt_meshmsg *m)
{
	const struct kv *h = find(kv, n, "host");
	bool pay = find(kv, n, "payload_mbps") != NULL;
	int inv = opt_strs(kv, n, (const struct opt_str[]){
		{"kernel", m->u.hello.inv.kernel, sizeof(m->u.hello.inv.kernel)},
		{"rdma_core", m->u.hello.inv.rdma_core, sizeof(m->u.hello.inv.rdma_core)},
		{"expect_first", m->u.hello.inv.expect_first, sizeof(m->u.hello.inv.expect_first)},
		{NULL, NULL, 0}});
	bool checked = find(kv, n, "expect_diffs") != NULL;
	uint32_t diffs = 0;

	m->type = RT_MESHMSG_HELLO;
	/* the payload rate is optional: lines of a rank that knew none */
	if (pay && !get_u32(kv, n, "payload_mbps", &m->u.hello.payload_mbps))
		return -1;
	if (checked && (!get_u32(kv, n, "expect_diffs", &diffs) || diffs > UINT16_MAX))
		return -1;
	m->u.hello.inv.expect = checked;
	m->u.hello.inv.expect_diffs = (uint16_t)diffs;
	if (inv < 0 || n != 4u + pay + checked + (unsigned)inv || !get_u32(kv, n, "rank", &m->u.hello.rank) ||
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
	uint32_t rail, port, gid, lanes, mtu, want = 0;
	bool has_want = find(kv, n, "want_gbps") != NULL;
	bool has_rel = find(kv, n, "gpu_rel") != NULL; /* mesh --gpu: with "gpu" */
	int inv = opt_strs(kv, n, (const struct opt_str[]){
		{"fw_ver", r->fw, sizeof(r->fw)}, {"driver", r->driver, sizeof(r->driver)},
		{"pcie_speed", r->pcie_speed, sizeof(r->pcie_speed)},
		{"pcie_width", r->pcie_width, sizeof(r->pcie_width)},
		{"gpu", r->gpu, sizeof(r->gpu)}, {NULL, NULL, 0}});

	m->type = RT_MESH_LINE_RAIL;
	if (inv < 0 || n != 13u + (unsigned)inv + has_want + has_rel ||
	    (has_want && !get_small(kv, n, "want_gbps", 65535, &want)) ||
	    (has_rel && !get_name(kv, n, "gpu_rel", rt_mesh_gpu_rel_name,
				  RT_MESH_GPU_REL_MAX + 1, &r->gpu_rel)) ||
	    !get_u32(kv, n, "rank", &m->u.hello.rank) ||
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
	r->want_gbps = (uint16_t)want;
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

static int cmp_ctr(const void *x, const void *y)
{
	const struct rt_mesh_ctr *p = x, *q = y;

	return (p->end * 256 + p->id) - (q->end * 256 + q->id);
}

/* The rises of a result line: "a.NAME"/"b.NAME" keys into c, in (end,
 * id) order (the binary decoder then checks them), the packets sent and
 * the count left out. Returns how many keys were taken, -1 on a bad one. */
static int parse_ctrs(const struct kv *kv, size_t n, struct rt_mesh_ctrs *c)
{
	uint64_t sent_a, sent_b, more;
	bool sa, sb, mo;
	int keys = 0;

	for (size_t i = 0; i < n; i++) {
		char name[RT_PORTCTR_NAME];
		struct rt_mesh_ctr *e = &c->e[c->n];
		int id;

		if (kv[i].klen < 3 || kv[i].key[1] != '.' ||
		    (kv[i].key[0] != 'a' && kv[i].key[0] != 'b'))
			continue;
		if (kv[i].klen - 2 >= sizeof(name) || c->n == RT_MESH_CTRS_MAX)
			return -1;
		memcpy(name, kv[i].key + 2, kv[i].klen - 2);
		name[kv[i].klen - 2] = '\0';
		if ((id = rt_portctr_id(name)) < 0 || id > UINT8_MAX || !kv_num(&kv[i], &e->delta))
			return -1;
		e->id = (uint8_t)id;
		e->end = kv[i].key[0] == 'a' ? RT_MESH_END_A : RT_MESH_END_B;
		c->n++;
		keys++;
	}
	qsort(c->e, c->n, sizeof(c->e[0]), cmp_ctr);
	if (!get_num(kv, n, "sent_a", &sent_a, &sa) || !get_num(kv, n, "sent_b", &sent_b, &sb) ||
	    !get_num(kv, n, "ctr_more", &more, &mo) || more > UINT8_MAX ||
	    (!c->n && (sa || sb || mo))) /* the line writes them with rises alone */
		return -1;
	c->sent_known = (uint8_t)(sa | sb << 1);
	c->sent[0] = sent_a;
	c->sent[1] = sent_b;
	c->more = (uint8_t)more;
	return keys + sa + sb + mo;
}

static int parse_result(const struct kv *kv, size_t n, struct rt_meshmsg *m)
{
	struct rt_mesh_result *r = &m->u.result;
	bool c, p50, p99, bw, rev, rl, rlb, round = find(kv, n, "round") != NULL;
	uint64_t rail, rail_b;
	int ctr;

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
	ctr = parse_ctrs(kv, n, &r->ctr);
	r->flags = (uint8_t)((p50 ? RT_MESH_HAS_RTT : 0) | (bw ? RT_MESH_HAS_BW : 0) |
			     (r->ctr.n ? RT_MESH_HAS_CTR : 0));
	/* every key known: the four required ones and the figures given */
	return ctr >= 0 && n == 4u + c + p50 + p99 + bw + rev + round + rl + rlb + (unsigned)ctr
	       ? 0 : -1;
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
	if (end == why + 7 || *end != '}' || w == 0 || w > 255)
		return rt_fail(err, RT_EXIT_FAIL, "a flaky line's why is a mask of 1 to 255");
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
