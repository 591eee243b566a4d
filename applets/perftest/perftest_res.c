/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The addressing and resource options of the ib_* applets (perftest_res.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perftest/perftest_conn.h"
#include "perftest/perftest_gpu.h"
#include "perftest/perftest_res.h"
#include "perftest/perftest_imm.h"
#include "perftest/perftest_name.h"
#include "rdmatest/addr.h"
#include "rdmatest/util.h"

/* ---- the command line ----------------------------------------------------- */

static int link_layer(const char *word, int *out, struct rt_error *err)
{
	*out = -1;
	if (!word)
		return 0;
	if (!strcmp(word, "IB"))
		*out = IBV_LINK_LAYER_INFINIBAND;
	else if (!strcmp(word, "Ethernet"))
		*out = IBV_LINK_LAYER_ETHERNET;
	else
		return rt_fail(err, RT_EXIT_USAGE, "--force-link '%s': IB or Ethernet",
			       word);
	return 0;
}

/* What -R leaves to the RDMA CM (perftest: "doesn't support Dual Port with
 * rdma_cm"; the CM takes the P_Key and the LID from the path it resolves). */
static int cm_rules(const struct rt_pt_params *p, const struct rt_opt_table *tab,
		    struct rt_error *err)
{
	if (!p->opt.rdma_cm)
		return 0;
	if (p->opt.dual.on)
		return rt_fail(err, RT_EXIT_USAGE, "-O (--dualport) and -R exclude each "
			       "other (as in perftest)");
	if (rt_opt_was_given(tab, "pkey_index"))
		return rt_fail(err, RT_EXIT_USAGE, "--pkey_index and -R exclude each "
			       "other: with -R the RDMA CM takes the P_Key of the path");
	if (p->opt.res.dlid)
		return rt_fail(err, RT_EXIT_USAGE, "--dlid and -R exclude each other: "
			       "with -R the RDMA CM takes the LID of the path");
	return 0;
}

static int mmap_rules(const struct rt_pt_res_cfg *r, const struct rt_opt_table *tab,
		      struct rt_error *err)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!r->mmap_file && rt_opt_was_given(tab, "mmap-offset"))
		return rt_fail(err, RT_EXIT_USAGE, "--mmap-offset needs --mmap");
	if (r->mmap_file && r->hugepages)
		return rt_fail(err, RT_EXIT_USAGE, "--mmap and --use_hugepages exclude "
			       "each other: the buffer is the file's mapping");
	if (page > 0 && r->mmap_offset % (uint64_t)page)
		return rt_fail(err, RT_EXIT_USAGE, "--mmap-offset %llu: not a multiple "
			       "of the page size, %ld", (unsigned long long)r->mmap_offset,
			       page);
	return 0;
}

static int source(struct rt_pt_params *p, struct rt_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_PASSIVE }, *ai;
	const char *ip = p->opt.res.source;

	if (!ip)
		return 0;
	if (getaddrinfo(ip, NULL, &hints, &ai))
		return rt_fail(err, RT_EXIT_USAGE, "--bind_source_ip '%s': not an IPv4 "
			       "or IPv6 address", ip);
	memcpy(&p->res.source_addr, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

/* perftest: "Using SRQ depth should be greater than number of QPs";
 * -n a multiple of --recv_post_list; -r at least it, so that a list
 * fits (perftest would post none and wait). */
static int recv_rules(const struct rt_pt_params *p, const struct rt_pt_cfg *c,
		      const struct rt_opt_table *tab, struct rt_error *err)
{
	unsigned l = p->opt.res.recv_post_list;

	if (p->opt.res.srq && p->opt.qps > c->rx_depth)
		return rt_fail(err, RT_EXIT_USAGE, "--use-srq: -q %lld is more than the "
			       "SRQ's depth, -r %lld", p->opt.qps, c->rx_depth);
	if (l > 1 && !rt_pt_receives(p))
		return rt_fail(err, RT_EXIT_USAGE, "--recv_post_list: the %s test posts "
			       "no receives; it is for the SEND tests and --write_with_imm",
			       rt_pt_verb_name(p->t.verb));
	if (!rt_opt_was_given(tab, "recv_post_list") || l == 1)
		return 0;
	if (!c->duration && c->iters % l)
		return rt_fail(err, RT_EXIT_USAGE, "-n %lld must be a multiple of "
			       "--recv_post_list %u", c->iters, l);
	if (l > (unsigned)c->rx_depth)
		return rt_fail(err, RT_EXIT_USAGE, "--recv_post_list %u is more than "
			       "-r %lld receives", l, c->rx_depth);
	return 0;
}

int rt_pt_flow_labels_parse(const char *list, struct rt_pt_res *r,
			    struct rt_error *err)
{
	const char *t = list;

	r->n_flow_labels = 0;
	for (;;) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(t, &end, 0);
		if (end == t || errno || v > RT_PT_FLOW_LABEL_MAX || *t == '-' ||
		    (*end && *end != ','))
			return rt_fail(err, RT_EXIT_USAGE, "--flow_label '%s': label %u is "
				       "not 0..%u", list, r->n_flow_labels + 1,
				       RT_PT_FLOW_LABEL_MAX);
		if (r->n_flow_labels == RT_PT_FLOW_LABELS)
			return rt_fail(err, RT_EXIT_USAGE, "--flow_label: more than %d labels",
				       RT_PT_FLOW_LABELS);
		r->flow_labels[r->n_flow_labels++] = (uint32_t)v;
		if (!*end)
			return 0;
		t = end + 1;
	}
}

uint32_t rt_pt_flow_label(const struct rt_pt_params *p, unsigned i)
{
	const struct rt_pt_res *r = &p->res;

	return r->n_flow_labels ? r->flow_labels[i % r->n_flow_labels] : 0;
}

static int flow_label_rule(struct rt_pt_params *p, const struct rt_pt_cfg *c,
			   struct rt_error *err)
{
	if (!c->res.flow_label)
		return 0;
	if (p->opt.rdma_cm)
		return rt_fail(err, RT_EXIT_USAGE, "--flow_label and -R exclude each "
			       "other: the RDMA CM sets the path (as --tclass)");
	return rt_pt_flow_labels_parse(c->res.flow_label, &p->res, err);
}

static int null_mr_rule(const struct rt_pt_params *p, struct rt_error *err)
{
	if (p->opt.res.null_mr && p->t.verb != RT_PT_WRITE && p->t.verb != RT_PT_READ)
		return rt_fail(err, RT_EXIT_USAGE, "--use-null-mr: the write and read "
			       "tests only (as perftest)");
	return 0;
}

/* -X needs -e, as perftest's parser: "Events must be enabled to select a
 * completion vector". */
static int vector_rule(struct rt_pt_params *p, const struct rt_opt_table *tab,
		       struct rt_error *err)
{
	if (!rt_opt_was_given(tab, "vector")) {
		p->opt.res.vector = -1;
		return 0;
	}
	if (!p->opt.events)
		return rt_fail(err, RT_EXIT_USAGE, "-X (--vector) needs -e (--events): "
			       "the completion vector is the one events arrive on "
			       "(as perftest)");
	return 0;
}

bool rt_pt_res_srq(const struct rt_pt_params *p)
{
	return p->opt.res.srq && (p->t.kind == RT_PT_LAT || !p->client || p->opt.bidir);
}

int rt_pt_res_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		    const struct rt_opt_table *tab, struct rt_error *err)
{
	struct rt_pt_res_cfg *k = &p->opt.res;

	if (!k->recv_post_list) /* the latency tables have no row */
		k->recv_post_list = 1;
	if (link_layer(k->force_link, &p->res.link_layer, err) ||
	    source(p, err) || recv_rules(p, c, tab, err) ||
	    cm_rules(p, tab, err) || mmap_rules(k, tab, err) ||
	    flow_label_rule(p, c, err) || null_mr_rule(p, err) ||
	    vector_rule(p, tab, err))
		return -1;
	return 0;
}

int rt_pt_res_source(const struct rt_pt_params *p, struct rt_error *err)
{
	const struct sockaddr *sa = (const struct sockaddr *)&p->res.source_addr;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;

	/* an address no interface has would fail at connect, less clearly */
	if (fd < 0 || bind(fd, sa, rt_addr_len(sa)))
		e = errno;
	if (fd >= 0)
		close(fd);
	if (e)
		return rt_fail_errno(err, RT_EXIT_ENV, e, "--bind_source_ip %s: no "
				     "interface of this host can bind it",
				     p->opt.res.source);
	return 0;
}

/* ---- the device ------------------------------------------------------------ */

int rt_pt_comp_vector(const struct rt_pt_params *p, struct ibv_context *ctx,
		      struct rt_error *err)
{
	if (p->opt.res.vector < 0)
		return 0;
	if (p->opt.res.vector >= ctx->num_comp_vectors)
		return rt_fail(err, RT_EXIT_ENV, "-X (--vector) %lld: %s has %d "
			       "completion vectors (num_comp_vectors), 0 to %d",
			       p->opt.res.vector, ibv_get_device_name(ctx->device),
			       ctx->num_comp_vectors, ctx->num_comp_vectors - 1);
	return (int)p->opt.res.vector;
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

static int huge(struct rt_pt_mem *m, size_t len, struct rt_error *err);
static int file_map(struct rt_pt_mem *m, size_t len, const struct rt_pt_res_cfg *r,
		    struct rt_error *err);

static int forced_link(struct rt_pt_conn *c)
{
	int have = c->d.attr.link_layer == IBV_LINK_LAYER_ETHERNET ?
		   IBV_LINK_LAYER_ETHERNET : IBV_LINK_LAYER_INFINIBAND;
	int want = c->p->res.link_layer;

	if (want < 0 || want == have)
		return 0;
	return rt_fail(&c->run->err, RT_EXIT_ENV, "--force-link %s: %s port %u is %s",
		       rt_link_layer_name((uint8_t)want), c->d.name, c->d.port,
		       rt_link_layer_name((uint8_t)have));
}

static int dlid(const struct rt_pt_conn *c)
{
	if (c->p->opt.res.dlid && c->d.attr.link_layer == IBV_LINK_LAYER_ETHERNET)
		return rt_fail(&c->run->err, RT_EXIT_USAGE, "--dlid: %s port %u is RoCE "
			       "(Ethernet), which has no LIDs: IB only", c->d.name,
			       c->d.port);
	return 0;
}

/* perftest's check: an index beyond the device's table is 0, with its
 * warning; an empty entry would fail at INIT, so it is named here. */
static int pkey(struct rt_pt_conn *c)
{
	unsigned idx = c->p->opt.res.pkey_index;
	struct ibv_device_attr a;
	__be16 key = 0;

	if (!idx)
		return 0;
	if (ibv_query_device(c->d.ctx, &a))
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno,
				     "ibv_query_device on %s", c->d.name);
	if (idx > (unsigned)a.max_pkeys - 1) {
		rt_say(&c->run->log, " Specified PKey Index, %u, greater than allowed "
		       "max, %d\n Changing to 0", idx, a.max_pkeys - 1);
		idx = 0;
	}
	if (idx && (ibv_query_pkey(c->d.ctx, c->d.port, (int)idx, &key) || !key))
		return rt_fail(&c->run->err, RT_EXIT_ENV, "--pkey_index %u: %s port %u "
			       "has no P_Key there", idx, c->d.name, c->d.port);
	c->pkey_index = (uint16_t)idx;
	return 0;
}

static bool v4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* 2: global or ULA, 1: link-local, 0: not an IPv6 RoCE v2 GID of ifindex. */
static int v6_score(const struct ibv_gid_entry *e, uint32_t ifindex)
{
	if (e->gid_type != IBV_GID_TYPE_ROCE_V2 || e->ndev_ifindex != ifindex ||
	    v4_mapped(&e->gid))
		return 0;
	return e->gid.raw[0] == 0xfe && (e->gid.raw[1] & 0xc0) == 0x80 ? 1 : 2;
}

/* --ipv6 on an IPv4 exchange: an IPv6 RoCE v2 GID of the same netdev. */
static int ipv6_gid(struct rt_pt_conn *c)
{
	struct rt_vaddr *l = &c->spec.local;
	struct ibv_gid_entry cur, e;
	int best = 0, at = -1;

	if (!c->p->opt.res.ipv6 || (c->gid && !c->gid_auto) ||
	    (c->gid && !v4_mapped(&l->gid)))
		return 0;
	if (!c->gid)
		return rt_fail(&c->run->err, RT_EXIT_USAGE, "--ipv6 chooses a RoCE v2 "
			       "GID: %s port %u is IB", c->d.name, c->d.port);
	if (c->p->opt.rdma_cm)
		return rt_fail(&c->run->err, RT_EXIT_USAGE, "--ipv6 with -R: the RDMA CM "
			       "takes the GID of the addresses it connects; give the "
			       "server's IPv6 address");
	if (ibv_query_gid_ex(c->d.ctx, c->d.port, l->gid_index, &cur, 0))
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno, "ibv_query_gid_ex "
				     "%u on %s", l->gid_index, c->d.name);
	for (int i = 0; i < c->d.attr.gid_tbl_len && i < 256; i++) {
		int s = ibv_query_gid_ex(c->d.ctx, c->d.port, (uint32_t)i, &e, 0) ? 0 :
			v6_score(&e, cur.ndev_ifindex);

		if (s > best) {
			best = s;
			at = i;
			l->gid = e.gid;
		}
	}
	if (at < 0)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "--ipv6: %s port %u has no IPv6 "
			       "RoCE v2 GID on the netdev of GID %u (give it an IPv6 "
			       "address)", c->d.name, c->d.port, l->gid_index);
	l->gid_index = (uint8_t)at;
	return 0;
}

/* perftest's check_odp_transport_caps: what the RC side of this test
 * does with the buffer. */
static uint32_t odp_need(const struct rt_pt_params *p)
{
	switch (p->t.verb) {
	case RT_PT_SEND:
		if (p->t.kind == RT_PT_LAT || p->opt.bidir)
			return IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;
		return p->client ? IBV_ODP_SUPPORT_SEND : IBV_ODP_SUPPORT_RECV;
	case RT_PT_WRITE:
		return IBV_ODP_SUPPORT_WRITE;
	case RT_PT_READ:
		return IBV_ODP_SUPPORT_READ;
	default:
		return IBV_ODP_SUPPORT_ATOMIC;
	}
}

static int odp(struct rt_pt_conn *c)
{
	struct ibv_device_attr_ex a;
	uint32_t need = odp_need(c->p), rc;

	if (!c->p->opt.res.odp)
		return 0;
	if (ibv_query_device_ex(c->d.ctx, NULL, &a))
		return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno,
				     "ibv_query_device_ex on %s", c->d.name);
	if (!(a.odp_caps.general_caps & IBV_ODP_SUPPORT))
		return rt_fail(&c->run->err, RT_EXIT_ENV, "--odp: %s has no On-Demand "
			       "Paging (odp_caps without IBV_ODP_SUPPORT)", c->d.name);
	rc = a.odp_caps.per_transport_caps.rc_odp_caps;
	if ((rc & need) != need)
		return rt_fail(&c->run->err, RT_EXIT_ENV, "--odp: %s has no RC On-Demand "
			       "Paging for this test's %s (rc_odp_caps 0x%x, needs 0x%x)",
			       c->d.name, rt_pt_verb_name(c->p->t.verb), rc, need);
	return 0;
}

/* The buffer this side would make with its own page size (the peer's may
 * make it larger; rt_pt_mem_alloc checks again), so that missing huge
 * pages or a short file are named before any peer is waited for. */
static int early_mem(struct rt_pt_conn *c)
{
	const struct rt_pt_res_cfg *r = &c->p->opt.res;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t slot = rt_pt_slot(c->p->opt.size, page > 0 ? (uint32_t)page : 4096,
				   RT_PT_CACHE_LINE);
	size_t len = (size_t)(slot * 2 * c->p->opt.qps);
	struct rt_pt_mem m = { 0 };
	int rc;

	if (r->mmap_file)
		rc = file_map(&m, len, r, &c->run->err);
	else if (r->hugepages)
		rc = huge(&m, len, &c->run->err);
	else
		return 0;
	if (!rc)
		munmap(m.addr, m.len);
	return rc;
}

int rt_pt_res_device(struct rt_pt_conn *c)
{
	return forced_link(c) || dlid(c) || pkey(c) || odp(c) ||
	       early_mem(c) ? -1 : 0;
}

int rt_pt_res_path(struct rt_pt_conn *c)
{
	c->spec.pkey_index = c->pkey_index;
	return ipv6_gid(c);
}

/* ---- the buffer ------------------------------------------------------------ */

uint64_t rt_pt_slot(uint64_t size, uint32_t page, uint32_t line)
{
	uint64_t s = RT_MAX(size, (uint64_t)page), l = line ? line : 1;

	return (s + l - 1) / l * l;
}

static int heap(struct rt_pt_mem *m, size_t len, struct rt_error *err)
{
	long page = sysconf(_SC_PAGESIZE);
	void *at;

	if (posix_memalign(&at, page > 0 ? (size_t)page : 4096, len))
		return rt_fail(err, RT_EXIT_ENV, "cannot allocate a %zu-byte buffer", len);
	m->addr = at;
	m->len = len;
	m->kind = RT_PT_MEM_HEAP;
	return 0;
}

static int huge(struct rt_pt_mem *m, size_t len, struct rt_error *err)
{
	size_t n = (len + RT_PT_HUGE_PAGE - 1) / RT_PT_HUGE_PAGE * RT_PT_HUGE_PAGE;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB;
	/* MAP_ANONYMOUS wants fd -1 (mmap(2)); cppcheck's model does not know it */
	/* cppcheck-suppress invalidFunctionArg */
	void *at = mmap(NULL, n, PROT_READ | PROT_WRITE, flags, -1, 0);

	if (at == MAP_FAILED)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "--use_hugepages: no %zu "
				     "bytes of huge pages (vm.nr_hugepages; perftest "
				     "fails the same way)", n);
	m->addr = at;
	m->len = n;
	m->kind = RT_PT_MEM_HUGE;
	return 0;
}

static int file_map(struct rt_pt_mem *m, size_t len, const struct rt_pt_res_cfg *r,
		    struct rt_error *err)
{
	int fd = open(r->mmap_file, O_RDWR | O_CLOEXEC);
	struct stat st;
	void *at;

	if (fd < 0)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--mmap %s", r->mmap_file);
	/* a mapping past a regular file's end faults at the first access */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < r->mmap_offset + len) {
		close(fd);
		return rt_fail(err, RT_EXIT_USAGE, "--mmap %s: %lld bytes, the buffer "
			       "needs %zu from offset %llu", r->mmap_file,
			       (long long)st.st_size, len,
			       (unsigned long long)r->mmap_offset);
	}
	at = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  (off_t)r->mmap_offset);
	close(fd);
	if (at == MAP_FAILED)
		return rt_fail_errno(err, RT_EXIT_ENV, errno, "--mmap %s: mmap of %zu "
				     "bytes", r->mmap_file, len);
	m->addr = at;
	m->len = len;
	m->kind = RT_PT_MEM_FILE;
	return 0;
}

/* Room for n MRs in m, none registered yet. */
static void mrs(struct rt_pt_mem *m, unsigned n)
{
	m->nmr = n;
	m->mrs = rt_xcalloc(n, sizeof(*m->mrs));
}

static int reg(struct rt_pt_conn *c, int access)
{
	struct rt_pt_mem *m = &c->mem;
	bool per_qp = c->p->opt.res.mr_per_qp;
	size_t len = per_qp ? (size_t)(2 * c->slot) : (size_t)c->buf_size;

	mrs(m, per_qp ? c->p->opt.qps : 1);
	for (unsigned i = 0; i < m->nmr; i++) {
		m->mrs[i] = ibv_reg_mr(c->d.pd, m->addr + (size_t)i * len, len, access);
		if (!m->mrs[i])
			return rt_fail_errno(&c->run->err, RT_EXIT_ENV, errno, "ibv_reg_mr "
					     "of %zu bytes on %s%s", len, c->d.name,
					     c->p->opt.res.odp ? " with ODP" : "");
	}
	return 0;
}

int rt_pt_mem_alloc(struct rt_pt_conn *c, int access)
{
	const struct rt_pt_res_cfg *r = &c->p->opt.res;
	size_t len = (size_t)c->buf_size;
	int rc;

	if (r->odp)
		access |= IBV_ACCESS_ON_DEMAND;
	/* GPU memory: one MR, registered by perftest_gpu.c; the host memory
	 * of --cuda_mem_type 4 is this file's, the GPU opened all the same */
	if (c->p->gpu.on && c->p->gpu.mem != RT_PT_CUDA_MALLOC) {
		mrs(&c->mem, 1);
		return rt_pt_gpu_mem_alloc(c, len, access);
	}
	if (r->mmap_file)
		rc = file_map(&c->mem, len, r, &c->run->err);
	else if (r->hugepages)
		rc = huge(&c->mem, len, &c->run->err);
	else
		rc = heap(&c->mem, len, &c->run->err);
	if (rc)
		return -1;
	memset(c->mem.addr, 0, len);
	return reg(c, access);
}

void rt_pt_mem_free(struct rt_pt_conn *c)
{
	struct rt_pt_mem *m = &c->mem;

	for (unsigned i = 0; i < m->nmr; i++)
		if (m->mrs[i])
			ibv_dereg_mr(m->mrs[i]);
	free(m->mrs);
	rt_pt_gpu_mem_free(c);
	if (m->addr && m->kind == RT_PT_MEM_HEAP)
		free(m->addr);
	else if (m->addr && m->kind != RT_PT_MEM_GPU)
		munmap(m->addr, m->len);
	*m = (struct rt_pt_mem){ 0 };
}
