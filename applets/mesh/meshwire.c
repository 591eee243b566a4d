/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Mesh coordination messages (meshwire.h). */
#include <arpa/inet.h>
#include <string.h>

#include "mesh/meshcur.h"
#include "mesh/meshwire.h"
#include "rdmatest/linerate.h"
#include "rdmatest/oob.h"
#include "rdmatest/util.h"

#define MAGIC0 'R'
#define MAGIC1 'M'
#define VERSION 12
#define SIZE_MAX_RANKS 65536u
#define PAYLOAD_MAX_MBPS ((uint32_t)(RT_LINERATE_MAX_GBPS * 1000))

static const uint32_t payload_len[] = {
	/* with no rail; each adds RT_MESH_RAIL_WIRE */
	[RT_MESHMSG_HELLO] = 4 + 4 + 2 + 2 + 8 + RT_MESH_HOST_LEN + 4 + 4 + RT_MESH_KERNEL_LEN +
			     RT_MESH_RDMA_CORE_LEN + 4 + RT_MESH_EXPECT_TEXT,
	[RT_MESHMSG_ASSIGN] = 4 + 4 + 4 + 1 + 1 + 2 + RT_MESH_HOST_LEN + 8, /* each rail: 20 more */
	[RT_MESHMSG_RESULT] = 4 + 4 + 4 + 1 + 1 + 2 + 8 * 5 + RT_MESH_CTR_WIRE,
	[RT_MESHMSG_VERDICT] = 1 + 1 + 2 + 4 * 4,
};

/* Text NUL-padded to len bytes, cut to len - 1. */
static void put_text(struct cur *c, const char *s, size_t len)
{
	size_t n = strnlen(s, len - 1);

	memcpy(c->w, s, n);
	memset(c->w + n, 0, len - n);
	c->w += len;
}
static void put_host(struct cur *c, const char *h) { put_text(c, h, RT_MESH_HOST_LEN); }

/* An address as 16 bytes: IPv4 in the first 4, the rest zero. */
static void put_addr(struct cur *c, const char *addr)
{
	bool v6 = strchr(addr, ':') != NULL;

	memset(c->w, 0, 16);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, c->w) != 1)
		memset(c->w, 0, 16);
	c->w += 16;
}

static void put_arail(struct cur *c, const struct rt_mesh_arail *r)
{
	put8(c, r->rail);
	put8(c, r->rail_b);
	put8(c, !r->addr[0] ? 0 : strchr(r->addr, ':') ? 6 : 4);
	put8(c, 0);
	put_addr(c, r->addr);
}

static void put_rail(struct cur *c, const struct rt_mesh_rail *r)
{
	unsigned family = !r->addr[0] ? 0 : strchr(r->addr, ':') ? 6 : 4;

	put_text(c, r->dev, RT_MESH_DEV_LEN);
	put8(c, r->rail);
	put8(c, r->port);
	put8(c, r->state);
	put8(c, r->link);
	put8(c, r->lanes);
	put8(c, (uint8_t)family);
	put16(c, r->gid_index);
	put16(c, r->mtu);
	put16(c, r->want_gbps);
	put32(c, r->speed_mbps);
	put32(c, r->payload_mbps);
	put_addr(c, r->addr);
	put_text(c, r->fw, RT_MESH_FW_LEN);
	put_text(c, r->driver, RT_MESH_DRIVER_LEN);
	put_text(c, r->pcie_speed, RT_MESH_PCIE_SPEED_LEN);
	put_text(c, r->pcie_width, RT_MESH_PCIE_WIDTH_LEN);
	put_text(c, r->gpu, RT_MESH_GPU_LEN);
	put8(c, r->gpu_rel);
	put8(c, 0);
	put16(c, 0);
}

static int name_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
	       ch == '_' || ch == ':';
}

int rt_mesh_host_valid(const char *host)
{
	size_t n = strnlen(host, RT_MESH_HOST_LEN);

	if (n == 0 || n >= RT_MESH_HOST_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!name_char(host[i]))
			return 0;
	return 1;
}

size_t rt_meshmsg_encode(const struct rt_meshmsg *m, uint8_t *buf)
{
	struct cur c = {.w = buf};

	put8(&c, MAGIC0);
	put8(&c, MAGIC1);
	put8(&c, VERSION);
	put8(&c, m->type);
	put32(&c, payload_len[m->type] +
		  (m->type == RT_MESHMSG_HELLO ? m->u.hello.nrails * RT_MESH_RAIL_WIRE :
		   m->type == RT_MESHMSG_ASSIGN ? m->u.assign.nrails * RT_MESH_ARAIL_WIRE : 0));
	switch (m->type) {
	case RT_MESHMSG_HELLO:
		put32(&c, m->u.hello.rank);
		put32(&c, m->u.hello.size);
		put16(&c, m->u.hello.port);
		put_zero(&c, 2);
		put64(&c, m->u.hello.token);
		put_host(&c, m->u.hello.host);
		put32(&c, m->u.hello.payload_mbps);
		put8(&c, m->u.hello.nrails);
		put_zero(&c, 3);
		put_text(&c, m->u.hello.inv.kernel, RT_MESH_KERNEL_LEN);
		put_text(&c, m->u.hello.inv.rdma_core, RT_MESH_RDMA_CORE_LEN);
		put8(&c, m->u.hello.inv.expect);
		put_zero(&c, 1);
		put16(&c, m->u.hello.inv.expect_diffs);
		put_text(&c, m->u.hello.inv.expect_first, RT_MESH_EXPECT_TEXT);
		for (unsigned i = 0; i < m->u.hello.nrails && i < RT_MESH_RAILS_MAX; i++)
			put_rail(&c, &m->u.hello.rails[i]);
		break;
	case RT_MESHMSG_ASSIGN:
		put32(&c, m->u.assign.round);
		put32(&c, m->u.assign.rounds);
		put32(&c, m->u.assign.peer);
		put8(&c, m->u.assign.role);
		put_zero(&c, 1);
		put16(&c, m->u.assign.port);
		put_host(&c, m->u.assign.host);
		put8(&c, m->u.assign.nrails);
		put8(&c, m->u.assign.flags);
		put8(&c, m->u.assign.qps);
		put8(&c, m->u.assign.tests);
		put16(&c, m->u.assign.conns);
		put_zero(&c, 2);
		for (unsigned i = 0; i < m->u.assign.nrails && i < RT_MESH_RAILS_MAX; i++)
			put_arail(&c, &m->u.assign.rails[i]);
		break;
	case RT_MESHMSG_RESULT:
		put32(&c, m->u.result.round);
		put32(&c, m->u.result.a);
		put32(&c, m->u.result.b);
		put8(&c, m->u.result.status);
		put8(&c, m->u.result.flags);
		put8(&c, m->u.result.rail);
		put8(&c, m->u.result.rail_b);
		put64(&c, m->u.result.connect_ns);
		put64(&c, m->u.result.rtt_p50_ns);
		put64(&c, m->u.result.rtt_p99_ns);
		put64(&c, m->u.result.mbps);
		put64(&c, m->u.result.mbps_rev);
		rt_mesh_ctrs_encode(&m->u.result.ctr, c.w);
		c.w += RT_MESH_CTR_WIRE;
		break;
	default: /* RT_MESHMSG_VERDICT */
		put8(&c, m->u.verdict.ready);
		put8(&c, m->u.verdict.interrupted);
		put8(&c, m->u.verdict.self);
		put_zero(&c, 1);
		put32(&c, m->u.verdict.bad_nodes);
		put32(&c, m->u.verdict.bad_links);
		put32(&c, m->u.verdict.absent);
		put32(&c, m->u.verdict.untested);
		break;
	}
	return (size_t)(c.w - buf);
}

/* The bytes a rail adds to a HELLO or an ASSIGN. */
static uint32_t entry_len(uint8_t type)
{
	return type == RT_MESHMSG_HELLO ? RT_MESH_RAIL_WIRE : RT_MESH_ARAIL_WIRE;
}

int rt_meshmsg_header(const uint8_t *hdr, uint8_t *type, struct rt_error *err)
{
	uint32_t len = rt_get_be32(hdr + 4);

	if (hdr[0] != MAGIC0 || hdr[1] != MAGIC1)
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: bad magic 0x%02x%02x (not a mesh peer)",
			       hdr[0], hdr[1]);
	if (hdr[2] != VERSION)
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: version %u, this build speaks %u",
			       hdr[2], VERSION);
	if (hdr[3] < RT_MESHMSG_HELLO || hdr[3] > RT_MESHMSG_VERDICT)
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: unknown type %u", hdr[3]);
	if (hdr[3] <= RT_MESHMSG_ASSIGN && len >= payload_len[hdr[3]] &&
	    (len - payload_len[hdr[3]]) % entry_len(hdr[3]) == 0 &&
	    (len - payload_len[hdr[3]]) / entry_len(hdr[3]) <= RT_MESH_RAILS_MAX) {
		*type = hdr[3];
		return (int)len;
	}
	if (len != payload_len[hdr[3]])
		return rt_fail(err, RT_EXIT_FAIL, "mesh message type %u: length %u, want %u",
			       hdr[3], len, payload_len[hdr[3]]);
	*type = hdr[3];
	return (int)len;
}

static int get_host(struct cur *c, char *host, const char *what,
		    struct rt_error *err)
{
	size_t n = strnlen((const char *)c->r, RT_MESH_HOST_LEN);

	memcpy(host, c->r, RT_MESH_HOST_LEN);
	c->r += RT_MESH_HOST_LEN;
	if (n == RT_MESH_HOST_LEN || !rt_mesh_host_valid(host))
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: %s host is not a host name of 1 to %u bytes",
			       what, RT_MESH_HOST_LEN - 1);
	for (size_t i = n; i < RT_MESH_HOST_LEN; i++)
		if (host[i])
			return rt_fail(err, RT_EXIT_FAIL, "mesh message: %s host has bytes after its end", what);
	return 0;
}

bool rt_mesh_inv_text_ok(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	if (n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\')
			return false;
	return true;
}

/* An inventory field of len bytes into out[len]: terminated, printable,
 * zero after its end. */
static int get_text(struct cur *c, char *out, size_t len, const char *what,
		    struct rt_error *err)
{
	size_t n = strnlen((const char *)c->r, len);

	memcpy(out, c->r, len);
	c->r += len;
	if (!rt_mesh_inv_text_ok(out, len))
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: %s is not printable text of at "
			       "most %zu bytes", what, len - 1);
	for (size_t i = n; i < len; i++)
		if (out[i])
			return rt_fail(err, RT_EXIT_FAIL, "mesh hello: %s has bytes after its end",
				       what);
	return 0;
}

static int rank_ok(uint32_t r, uint32_t size, const char *what,
		   struct rt_error *err)
{
	return r < size ? 0 : rt_fail(err, RT_EXIT_FAIL, "mesh message: %s %u is not below the size %u",
				      what, r, size);
}

static bool dev_valid(const char *dev)
{
	size_t n = strnlen(dev, RT_MESH_DEV_LEN);

	if (n == 0 || n >= RT_MESH_DEV_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(dev[i]) || dev[i] == ':')
			return false;
	for (size_t i = n; i < RT_MESH_DEV_LEN; i++)
		if (dev[i])
			return false;
	return true;
}

static bool lanes_ok(unsigned l)
{
	return l == 0 || l == 1 || l == 2 || l == 4 || l == 8 || l == 12;
}

static bool mtu_ok(unsigned m)
{
	return m == 0 || m == 256 || m == 512 || m == 1024 || m == 2048 || m == 4096;
}

/* A rail's address (16 bytes) into addr[RT_MESH_ADDR_LEN]. */
static int get_addr(struct cur *c, char *addr, unsigned family, const char *what,
		    unsigned rail, struct rt_error *err)
{
	const uint8_t *a = c->r;

	c->r += 16;
	if (family == 0) { /* a hello's rail without an address */
		addr[0] = '\0';
		for (int i = 0; i < 16; i++)
			if (a[i])
				return rt_fail(err, RT_EXIT_FAIL, "mesh %s: rail %u: an address "
					       "where it says none", what, rail);
		return 0;
	}
	if (family == 4)
		for (int i = 4; i < 16; i++)
			if (a[i])
				return rt_fail(err, RT_EXIT_FAIL, "mesh %s: rail %u: bytes after its "
					       "IPv4 address", what, rail);
	if (!inet_ntop(family == 4 ? AF_INET : AF_INET6, a, addr, RT_MESH_ADDR_LEN))
		return rt_fail(err, RT_EXIT_FAIL, "mesh %s: rail %u: no address", what, rail);
	return 0;
}

static int get_arail(struct cur *c, struct rt_mesh_arail *r, int before,
		     struct rt_error *err)
{
	unsigned family;
	int key;

	r->rail = get8(c);
	r->rail_b = get8(c);
	family = get8(c);
	key = r->rail * (int)RT_MESH_RAILS_MAX + r->rail_b;
	if (zeros(c, 1, "assign rail", err))
		return -1;
	if (r->rail >= RT_MESH_RAILS_MAX || r->rail_b >= RT_MESH_RAILS_MAX || key <= before ||
	    (family != 0 && family != 4 && family != 6))
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: rail %u to %u (family %u) out of "
			       "range or order", r->rail, r->rail_b, family);
	return get_addr(c, r->addr, family, "assign", r->rail, err);
}

/* A rail's device inventory, after its address: read first, so that
 * every check below may fail on whole fields. */
static int rail_inv(struct cur *c, struct rt_mesh_rail *r, struct rt_error *err)
{
	struct cur inv = {.r = c->r + 16};

	return get_text(&inv, r->fw, RT_MESH_FW_LEN, "a rail's firmware", err) ||
	       get_text(&inv, r->driver, RT_MESH_DRIVER_LEN, "a rail's driver", err) ||
	       get_text(&inv, r->pcie_speed, RT_MESH_PCIE_SPEED_LEN, "a rail's PCIe speed", err) ||
	       get_text(&inv, r->pcie_width, RT_MESH_PCIE_WIDTH_LEN, "a rail's PCIe width", err) ||
	       get_text(&inv, r->gpu, RT_MESH_GPU_LEN, "a rail's GPU", err)
	       ? -1 : 0;
}

/* A rail's GPU (version 9): its relation, then three zero bytes; a GPU
 * named with a relation, or neither. */
static int rail_gpu(struct cur *c, struct rt_mesh_rail *r, struct rt_error *err)
{
	struct cur g = {.r = c->r + 16 + RT_MESH_FW_LEN + RT_MESH_DRIVER_LEN +
			     RT_MESH_PCIE_SPEED_LEN + RT_MESH_PCIE_WIDTH_LEN + RT_MESH_GPU_LEN};

	r->gpu_rel = get8(&g);
	if (zeros(&g, 3, "hello rail GPU", err))
		return -1;
	if (r->gpu_rel > RT_MESH_GPU_REL_MAX || !r->gpu_rel != !r->gpu[0])
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: rail %u: GPU '%s' with relation %u "
			       "(want a GPU with a relation 1 to %u, or neither)", r->rail, r->gpu,
			       r->gpu_rel, RT_MESH_GPU_REL_MAX);
	return 0;
}

static int get_rail(struct cur *c, struct rt_mesh_rail *r, int before,
		    struct rt_error *err)
{
	unsigned family;

	memcpy(r->dev, c->r, RT_MESH_DEV_LEN);
	c->r += RT_MESH_DEV_LEN;
	r->rail = get8(c);
	r->port = get8(c);
	r->state = get8(c);
	r->link = get8(c);
	r->lanes = get8(c);
	family = get8(c);
	r->gid_index = get16(c);
	r->mtu = get16(c);
	r->want_gbps = get16(c);
	r->speed_mbps = get32(c);
	r->payload_mbps = get32(c);
	if (rail_inv(c, r, err) || rail_gpu(c, r, err))
		return -1;
	if (!dev_valid(r->dev))
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: a rail's device is not a name "
			       "of 1 to %u bytes", RT_MESH_DEV_LEN - 1);
	if ((int)r->rail <= before || r->rail >= RT_MESH_RAILS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: rail %u after rail %d (want "
			       "increasing, below %u)", r->rail, before, RT_MESH_RAILS_MAX);
	if (!r->port || r->state > RT_RAIL_ACTIVE_DEFER || r->link > RT_RAIL_ETHERNET ||
	    !lanes_ok(r->lanes) || !mtu_ok(r->mtu) || r->gid_index >= 1024 ||
	    (family != 0 && family != 4 && family != 6))
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: rail %u: port %u, state %u, "
			       "link %u, %u lanes, MTU %u, GID index %u or family %u out of range",
			       r->rail, r->port, r->state, r->link, r->lanes, r->mtu,
			       r->gid_index, family);
	if (r->speed_mbps > PAYLOAD_MAX_MBPS || r->payload_mbps > PAYLOAD_MAX_MBPS ||
	    (r->speed_mbps && r->payload_mbps > r->speed_mbps))
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: rail %u: speed %u, payload %u "
			       "Mbit/s (at most %u, payload not above speed)", r->rail,
			       r->speed_mbps, r->payload_mbps, PAYLOAD_MAX_MBPS);
	if (r->want_gbps > PAYLOAD_MAX_MBPS / 1000u)
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: rail %u: expected rate %u Gb/s "
			       "(at most %u)", r->rail, r->want_gbps, PAYLOAD_MAX_MBPS / 1000u);
	if (get_addr(c, r->addr, family, "hello", r->rail, err))
		return -1;
	c->r += RT_MESH_RAIL_WIRE - 68u; /* the inventory, read above */
	return 0;
}

/* mesh --expect's outcome: none (all zero), or checked with as many
 * differences as its text says (none, or the first). */
static int get_expect(struct cur *c, struct rt_mesh_inv *inv, struct rt_error *err)
{
	inv->expect = get8(c);
	if (zeros(c, 1, "hello expect", err))
		return -1;
	inv->expect_diffs = get16(c);
	if (get_text(c, inv->expect_first, RT_MESH_EXPECT_TEXT, "the expected state's text", err))
		return -1;
	if (inv->expect > 1 || (!inv->expect && inv->expect_diffs) ||
	    !inv->expect_diffs != !inv->expect_first[0])
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: expected state checked %u, %u "
			       "differences, %s text (want none, or a text with differences)",
			       inv->expect, inv->expect_diffs, inv->expect_first[0] ? "a" : "no");
	return 0;
}

static int dec_hello(struct cur *c, uint32_t size, unsigned nrails,
		     struct rt_mesh_hello *h, struct rt_error *err)
{
	h->rank = get32(c);
	h->size = get32(c);
	h->port = get16(c);
	if (zeros(c, 2, "hello", err))
		return -1;
	h->token = get64(c);
	if (get_host(c, h->host, "hello", err))
		return -1;
	/* a peer's figure judges links: a bogus one must not pass them all */
	h->payload_mbps = get32(c);
	if (h->payload_mbps > PAYLOAD_MAX_MBPS)
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: payload rate %u Mbit/s is above "
			       "the fastest port's %u", h->payload_mbps, PAYLOAD_MAX_MBPS);
	h->nrails = get8(c);
	if (zeros(c, 3, "hello", err))
		return -1;
	if (h->nrails != nrails)
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: %u rails in a message of %u",
			       h->nrails, nrails);
	if (get_text(c, h->inv.kernel, RT_MESH_KERNEL_LEN, "the kernel release", err) ||
	    get_text(c, h->inv.rdma_core, RT_MESH_RDMA_CORE_LEN, "the rdma-core release", err) ||
	    get_expect(c, &h->inv, err))
		return -1;
	for (unsigned i = 0; i < nrails; i++)
		if (get_rail(c, &h->rails[i], i ? h->rails[i - 1].rail : -1, err))
			return -1;
	if (h->size == 0 || h->size > SIZE_MAX_RANKS || (size && h->size != size))
		return rt_fail(err, RT_EXIT_FAIL, "mesh hello: size %u, want %u", h->size,
			       size ? size : SIZE_MAX_RANKS);
	return rank_ok(h->rank, h->size, "hello rank", err);
}

/* A rest opens nothing; a test at least one connection a rail, the
 * connecting side exactly one a rail (or its host) and qps, the listener
 * at least that many (its partners'), never above RT_MESH_TEST_CONNS. */
static int assign_conns_ok(const struct rt_mesh_assign *a, struct rt_error *err)
{
	unsigned own = (a->nrails ? a->nrails : 1u) * a->qps;

	if (a->role == RT_MESH_REST)
		return a->qps || a->conns || a->tests ? rt_fail(err, RT_EXIT_FAIL, "mesh assign: "
							       "a rest round with connections") : 0;
	if (!a->tests || a->tests > RT_MESH_TESTS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: %u tests in a round (1 to %u)",
			       a->tests, RT_MESH_TESTS_MAX);
	if (!a->qps || a->qps > RT_MESH_QPS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: %u connections a rail (1 to %u)",
			       a->qps, RT_MESH_QPS_MAX);
	if (a->conns > RT_MESH_TEST_CONNS || a->conns < own ||
	    (a->role == RT_MESH_CONNECT && a->conns != own))
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: %u connections for %u rails of "
			       "%u each", a->conns, a->nrails, a->qps);
	return 0;
}

/* An assignment's rails, after its host. */
static int assign_rails(struct cur *c, unsigned nrails, struct rt_mesh_assign *a,
			struct rt_error *err)
{
	a->nrails = get8(c);
	a->flags = get8(c);
	a->qps = get8(c);
	a->tests = get8(c);
	a->conns = get16(c);
	if (zeros(c, 2, "assign", err))
		return -1;
	if (a->flags & ~RT_MESH_ASSIGN_FLAGS)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: unknown flags %#x", a->flags);
	if (a->nrails != nrails)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: %u rails in a message of %u",
			       a->nrails, nrails);
	if (nrails && a->role == RT_MESH_REST)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: a rest round with rails");
	if (assign_conns_ok(a, err))
		return -1;
	for (unsigned i = 0; i < nrails; i++) {
		const struct rt_mesh_arail *p = i ? &a->rails[i - 1] : NULL;

		if (get_arail(c, &a->rails[i], p ? p->rail * (int)RT_MESH_RAILS_MAX + p->rail_b
						   : -1, err))
			return -1;
	}
	return 0;
}

static int dec_assign(struct cur *c, uint32_t size, unsigned nrails,
		      struct rt_mesh_assign *a, struct rt_error *err)
{
	a->round = get32(c);
	a->rounds = get32(c);
	a->peer = get32(c);
	a->role = get8(c);
	if (zeros(c, 1, "assign", err))
		return -1;
	a->port = get16(c);
	if (a->round >= a->rounds)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: round %u of %u", a->round, a->rounds);
	if (a->role > RT_MESH_REST)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: unknown role %u", a->role);
	if (a->role == RT_MESH_REST) {
		/* a rest names nobody: every field after the role is zero */
		if (a->peer != RT_MESH_NO_PEER || a->port)
			return rt_fail(err, RT_EXIT_FAIL, "mesh assign: a rest round with a peer");
		if (zeros(c, RT_MESH_HOST_LEN, "assign rest", err))
			return -1;
		a->host[0] = '\0';
		return assign_rails(c, nrails, a, err);
	}
	if (rank_ok(a->peer, size, "assign peer", err))
		return -1;
	if (a->port == 0 && a->role == RT_MESH_CONNECT)
		return rt_fail(err, RT_EXIT_FAIL, "mesh assign: port 0 to connect to");
	return get_host(c, a->host, "assign", err) ? -1 : assign_rails(c, nrails, a, err);
}

static int dec_result(struct cur *c, uint32_t size, struct rt_mesh_result *r,
		      struct rt_error *err)
{
	r->round = get32(c);
	r->a = get32(c);
	r->b = get32(c);
	r->status = get8(c);
	r->flags = get8(c);
	r->rail = get8(c);
	r->rail_b = get8(c);
	r->connect_ns = get64(c);
	r->rtt_p50_ns = get64(c);
	r->rtt_p99_ns = get64(c);
	r->mbps = get64(c);
	r->mbps_rev = get64(c);
	if (rank_ok(r->a, size, "result rank", err) ||
	    rank_ok(r->b, size, "result rank", err))
		return -1;
	if (r->a == r->b)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: rank %u paired with itself", r->a);
	if (r->rail >= RT_MESH_RAILS_MAX || r->rail_b >= RT_MESH_RAILS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: rail %u and %u, want below %u",
			       r->rail, r->rail_b, RT_MESH_RAILS_MAX);
	if (r->status > RT_MESH_STATUS_MAX)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: unknown status %u", r->status);
	if (r->flags & ~(RT_MESH_HAS_RTT | RT_MESH_HAS_BW | RT_MESH_HAS_CTR))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: unknown flags 0x%02x", r->flags);
	/* a failed test may still have raised counters: often why it failed */
	if (r->status != RT_MESH_OK && (r->flags & ~RT_MESH_HAS_CTR))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: figures in a failed test");
	/* an "ok" with nothing measured would pass any threshold */
	if (r->status == RT_MESH_OK && !(r->flags & RT_MESH_HAS_RTT))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: ok without its RTT figures");
	if (r->rtt_p50_ns > r->rtt_p99_ns)
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: RTT median above its p99");
	if (!(r->flags & RT_MESH_HAS_BW) && (r->mbps || r->mbps_rev))
		return rt_fail(err, RT_EXIT_FAIL, "mesh result: bandwidth without its flag");
	return rt_mesh_ctrs_decode(c->r, r->flags & RT_MESH_HAS_CTR, &r->ctr, err);
}

static int dec_verdict(struct cur *c, uint32_t size, struct rt_mesh_verdict *v,
		       struct rt_error *err)
{
	v->ready = get8(c);
	v->interrupted = get8(c);
	v->self = get8(c);
	if (zeros(c, 1, "verdict", err))
		return -1;
	v->bad_nodes = get32(c);
	v->bad_links = get32(c);
	v->absent = get32(c);
	v->untested = get32(c);
	if (v->ready > 1 || v->interrupted > 1 || v->self > 1)
		return rt_fail(err, RT_EXIT_FAIL, "mesh verdict: ready is %u, interrupted %u, "
			       "self %u, want 0 or 1", v->ready, v->interrupted, v->self);
	if ((size && (v->bad_nodes > size || v->absent > size || v->untested > size)) ||
	    (v->ready && (v->bad_nodes || v->bad_links || v->absent || v->untested ||
			  v->interrupted || v->self)))
		return rt_fail(err, RT_EXIT_FAIL, "mesh verdict: counts do not add up");
	return 0;
}

int rt_meshmsg_decode(const uint8_t *buf, size_t len, uint32_t size,
		      struct rt_meshmsg *m, struct rt_error *err)
{
	struct cur c = {.r = buf + RT_MESHMSG_HDR};
	uint32_t limit = size ? size : SIZE_MAX_RANKS;
	int plen;

	memset(m, 0, sizeof(*m));
	if (len < RT_MESHMSG_HDR)
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: %zu bytes, shorter than its header", len);
	plen = rt_meshmsg_header(buf, &m->type, err);
	if (plen < 0)
		return -1;
	if (len != RT_MESHMSG_HDR + (size_t)plen)
		return rt_fail(err, RT_EXIT_FAIL, "mesh message: %zu bytes, header says %d", len,
			       (int)RT_MESHMSG_HDR + plen);
	switch (m->type) {
	case RT_MESHMSG_HELLO:
		return dec_hello(&c, size, (unsigned)(plen - (int)payload_len[RT_MESHMSG_HELLO]) /
					 RT_MESH_RAIL_WIRE, &m->u.hello, err);
	case RT_MESHMSG_ASSIGN:
		return dec_assign(&c, limit, (unsigned)(plen - (int)payload_len[RT_MESHMSG_ASSIGN]) /
					  RT_MESH_ARAIL_WIRE, &m->u.assign, err);
	case RT_MESHMSG_RESULT:
		return dec_result(&c, limit, &m->u.result, err);
	default:
		return dec_verdict(&c, size, &m->u.verdict, err);
	}
}

const char *rt_rail_state_name(unsigned state)
{
	static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					    "ACTIVE_DEFER"};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

const char *rt_rail_link_name(unsigned link)
{
	static const char *const names[] = {"unknown", "InfiniBand", "Ethernet"};

	return link < ARRAY_SIZE(names) ? names[link] : "?";
}

/* pcitopo.h's names, in its order (a unit test holds them to it) */
const char *rt_mesh_gpu_rel_name(unsigned rel)
{
	static const char *const names[] = {"none", "unknown", "X", "PIX", "PXB", "PHB",
					    "NODE", "SYS"};

	return rel < ARRAY_SIZE(names) ? names[rel] : "?";
}

const char *rt_mesh_status_name(unsigned status)
{
	static const char *const names[] = {"ok", "failed", "timeout", "absent"};

	return status < ARRAY_SIZE(names) ? names[status] : "?";
}

int rt_meshmsg_read(struct rt_oob *o, uint32_t size, struct rt_meshmsg *m,
		    struct rt_error *err)
{
	uint8_t buf[RT_MESHMSG_MAX];
	uint8_t type;
	int plen;

	if (rt_oob_read(o, buf, RT_MESHMSG_HDR, err))
		return -1;
	plen = rt_meshmsg_header(buf, &type, err);
	if (plen < 0 || rt_oob_read(o, buf + RT_MESHMSG_HDR, (size_t)plen, err))
		return -1;
	return rt_meshmsg_decode(buf, RT_MESHMSG_HDR + (size_t)plen, size, m, err);
}

int rt_meshmsg_write(struct rt_oob *o, const struct rt_meshmsg *m,
		     struct rt_error *err)
{
	uint8_t buf[RT_MESHMSG_MAX];

	return rt_oob_write(o, buf, rt_meshmsg_encode(m, buf), err);
}
