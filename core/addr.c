/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <glob.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>
#include <infiniband/ib.h>

#include "rdmatest/addr.h"
#include "rdmatest/util.h"

const struct rt_enum rt_addr_formats[] = {
	{ "name", RT_FMT_NAME, "host name or address" },
	{ "ip", RT_FMT_IP, "numeric IPv4 or IPv6 address" },
	{ "ipv6", RT_FMT_IPV6, "numeric IPv6 address" },
	{ "gid", RT_FMT_GID, "InfiniBand GID (AF_IB)" },
	{ NULL, 0, NULL },
};

const struct rt_enum rt_port_spaces_rc[] = {
	{ "tcp", RDMA_PS_TCP, "RDMA TCP port space" },
	{ "ib", RDMA_PS_IB, "RDMA IB port space" },
	{ NULL, 0, NULL },
};

const struct rt_enum rt_port_spaces_ud[] = {
	{ "udp", RDMA_PS_UDP, "RDMA UDP port space (0x0111)" },
	{ "ipoib", RDMA_PS_IPOIB, "IPoIB port space (0x0002)" },
	{ NULL, 0, NULL },
};

static void apply_format(struct rdma_addrinfo *hints, enum rt_addr_format f)
{
	switch (f) {
	case RT_FMT_IP:
		hints->ai_flags |= RAI_NUMERICHOST;
		break;
	case RT_FMT_IPV6:
		hints->ai_flags |= RAI_NUMERICHOST;
		hints->ai_family = AF_INET6;
		break;
	case RT_FMT_GID:
		hints->ai_flags |= RAI_NUMERICHOST;
		hints->ai_family = AF_IB;
		break;
	case RT_FMT_NAME:
		break;
	}
}

static const char *gai_reason(int ret, int saved_errno)
{
	if (ret == -1 || ret == EAI_SYSTEM)
		return strerror(saved_errno);
	return gai_strerror(ret);
}

static int lookup(const char *node, const char *service,
		  struct rdma_addrinfo *hints, struct rdma_addrinfo **out,
		  const char *what, struct rt_error *err)
{
	int ret = rdma_getaddrinfo(node, service, hints, out);

	if (ret == -1 && errno == ENODEV) /* librdmacm needs a device even to parse */
		return rt_fail(err, RT_EXIT_ENV, "%s %s: no RDMA device found",
			       what, node ? node : "(any)");
	if (ret)
		return rt_fail(err, RT_EXIT_USAGE, "%s %s: cannot resolve: %s",
			       what, node ? node : "(any)", gai_reason(ret, errno));
	return 0;
}

struct rt_addr_query rt_addr_query_cm(const struct rt_cm_endpoint *ep, long long port)
{
	struct rt_addr_query q = {
		.node = ep->dst ? ep->dst : ep->src, .port = port,
		.src = ep->dst ? ep->src : NULL, .ps = (enum rdma_port_space)ep->ps,
		.format = (enum rt_addr_format)ep->format, .passive = !ep->dst,
		.what = ep->dst ? "-s" : "-b",
	};

	return q;
}

int rt_addr_resolve(const struct rt_addr_query *q, struct rdma_addrinfo **out,
		    struct rt_error *err)
{
	struct rdma_addrinfo hints = { 0 }, *src = NULL;
	char port[16];
	int ret;

	hints.ai_port_space = q->ps;
	hints.ai_flags = q->passive ? RAI_PASSIVE : 0;
	apply_format(&hints, q->format);
	snprintf(port, sizeof(port), "%lld", q->port);
	if (q->src && !q->passive) {
		struct rdma_addrinfo sh = hints;

		sh.ai_flags |= RAI_PASSIVE;
		if (lookup(q->src, NULL, &sh, &src, "source", err))
			return -1;
		hints.ai_src_addr = src->ai_src_addr;
		hints.ai_src_len = src->ai_src_len;
	}
	ret = lookup(q->node, q->port ? port : NULL, &hints, out,
		     q->what ? q->what : "address", err);
	if (src)
		rdma_freeaddrinfo(src);
	return ret;
}

socklen_t rt_addr_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	}
	return 0;
}

const char *rt_addr_host_str(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *raw = NULL;
	int family = AF_INET6; /* a GID prints as an IPv6 address */

	if (sa && sa->sa_family == AF_INET) {
		raw = &((const struct sockaddr_in *)sa)->sin_addr;
		family = AF_INET;
	} else if (sa && sa->sa_family == AF_INET6) {
		raw = &((const struct sockaddr_in6 *)sa)->sin6_addr;
	} else if (sa && sa->sa_family == AF_IB) {
		raw = &((const struct sockaddr_ib *)sa)->sib_addr;
	}
	if (!raw || !inet_ntop(family, raw, buf, (socklen_t)len))
		rt_strlcpy(buf, "?", len);
	return buf;
}

const char *rt_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	rt_addr_host_str(sa, host, sizeof(host));
	if (!sa)
		snprintf(buf, len, "?");
	else if (sa->sa_family == AF_INET)
		snprintf(buf, len, "%s:%u", host,
			 ntohs(((const struct sockaddr_in *)sa)->sin_port));
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", host,
			 ntohs(((const struct sockaddr_in6 *)sa)->sin6_port));
	else if (sa->sa_family == AF_IB)
		snprintf(buf, len, "gid %s", host);
	else
		snprintf(buf, len, "family %u", sa->sa_family);
	return buf;
}

int rt_addr_parse_numeric(const char *text, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		return 0;
	}
	return -1;
}

/* Appends "DEV on NETDEV" (or "DEV port N on NETDEV") for one such path;
 * false once buf is full (the list is only a hint). */
static bool add_port(const char *path, size_t prefix, char *buf, size_t len)
{
	char dev[64], port[16], ndev[64];
	size_t used = strlen(buf);

	if (sscanf(path + prefix, "/class/infiniband/%63[^/]/ports/%15[^/]/", dev, port) != 2 ||
	    !rt_read_line(path, ndev, sizeof(ndev)))
		return true;
	return snprintf(buf + used, len - used, "%s%s%s%s on %s", used ? ", " : "", dev,
			strcmp(port, "1") ? " port " : "", strcmp(port, "1") ? port : "",
			ndev) < (int)(len - used);
}

const char *rt_rdma_netdevs(const char *sysfs, char *buf, size_t len)
{
	char pattern[512];
	glob_t g;

	buf[0] = '\0';
	if (snprintf(pattern, sizeof(pattern), "%s/class/infiniband/*/ports/*/gid_attrs/ndevs/0",
		     sysfs) < (int)sizeof(pattern) && glob(pattern, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (!add_port(g.gl_pathv[i], strlen(sysfs), buf, len))
				break;
		globfree(&g);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

/* ---- stream socket addresses ---------------------------------------------- */

static int copy_sa(struct sockaddr_storage *ss, socklen_t *len,
		   const struct sockaddr *sa, size_t sa_len)
{
	if (!sa || sa_len > sizeof(*ss))
		return -1;
	memcpy(ss, sa, sa_len);
	*len = (socklen_t)sa_len;
	return 0;
}

void rt_addr_set_port(struct sockaddr *sa, unsigned port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
}

static void clear_port(struct sockaddr_storage *ss)
{
	rt_addr_set_port((struct sockaddr *)ss, 0);
}

static int no_address(const struct rt_addr_query *q, struct rt_error *err)
{
	return rt_fail(err, RT_EXIT_USAGE, "%s: no usable address",
		       q->what ? q->what : "address");
}

static int lookup_cm(const struct rt_addr_query *q, struct rt_sockaddr *out,
		     struct rt_error *err)
{
	struct rdma_addrinfo *ai;
	int rc;

	if (rt_addr_resolve(q, &ai, err))
		return -1;
	if (q->passive)
		rc = copy_sa(&out->addr, &out->addr_len, ai->ai_src_addr, ai->ai_src_len);
	else
		rc = copy_sa(&out->addr, &out->addr_len, ai->ai_dst_addr, ai->ai_dst_len);
	if (!rc && !q->passive && q->src &&
	    !copy_sa(&out->src, &out->src_len, ai->ai_src_addr, ai->ai_src_len))
		clear_port(&out->src);
	if (!rc && !q->passive && ai->ai_route && ai->ai_route_len) {
		out->route = rt_xmalloc(ai->ai_route_len);
		memcpy(out->route, ai->ai_route, ai->ai_route_len);
		out->route_len = ai->ai_route_len;
	}
	rdma_freeaddrinfo(ai);
	return rc ? no_address(q, err) : 0;
}

static int lookup_ip(const struct rt_addr_query *q, const char *node, bool passive,
		     const char *what, struct sockaddr_storage *ss, socklen_t *len,
		     struct rt_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int ret;

	if (q->format == RT_FMT_IP || q->format == RT_FMT_IPV6)
		hints.ai_flags |= AI_NUMERICHOST;
	if (q->format == RT_FMT_IPV6)
		hints.ai_family = AF_INET6;
	if (passive)
		hints.ai_flags |= AI_PASSIVE;
	snprintf(port, sizeof(port), "%lld", q->port);
	ret = getaddrinfo(node, port, &hints, &ai);
	if (ret)
		return rt_fail(err, RT_EXIT_USAGE, "%s %s: cannot resolve: %s", what,
			       node ? node : "(any)", gai_reason(ret, errno));
	ret = copy_sa(ss, len, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return ret ? no_address(q, err) : 0;
}

int rt_addr_lookup(const struct rt_addr_query *q, bool rdma_cm,
		   struct rt_sockaddr *out, struct rt_error *err)
{
	const char *what = q->what ? q->what : "address";

	memset(out, 0, sizeof(*out));
	if (rdma_cm || q->format == RT_FMT_GID)
		return lookup_cm(q, out, err);
	if (lookup_ip(q, q->node, q->passive, what, &out->addr, &out->addr_len, err))
		return -1;
	if (q->passive || !q->src)
		return 0;
	if (lookup_ip(q, q->src, true, "source", &out->src, &out->src_len, err))
		return -1;
	clear_port(&out->src); /* a source with the server's port fails a reconnect */
	return 0;
}

void rt_sockaddr_free(struct rt_sockaddr *a)
{
	free(a->route);
	a->route = NULL;
	a->route_len = 0;
}
