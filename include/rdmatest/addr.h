/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Addresses: the -f formats and port spaces every applet shares, name
 * resolution through rdma_getaddrinfo, and printing socket addresses. */
#ifndef RDMATEST_ADDR_H
#define RDMATEST_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

enum rt_addr_format {
	RT_FMT_NAME,
	RT_FMT_IP,
	RT_FMT_IPV6,
	RT_FMT_GID,
};

/* Choices for option tables. */
extern const struct rt_enum rt_addr_formats[];    /* name ip ipv6 gid */
extern const struct rt_enum rt_port_spaces_rc[];  /* tcp ib */
extern const struct rt_enum rt_port_spaces_ud[];  /* udp ipoib */

/* Option rows the RDMA CM tools share, with upstream's letters: -s makes
 * the tool a client of ADDR, -f says how to read addresses. */
#define RT_OPT_ROW_SERVER_ADDR(offset)                                          \
	{ 's', "server-addr", RT_OPT_ADDR, (offset), 0, 0, NULL, "ADDR",       \
	  "server address: run as the client and connect to ADDR", NULL }
/* -c: how many connections a client opens and a server serves */
#define RT_OPT_ROW_CONNECTIONS(offset, dflt, help)                             \
	{ 'c', "connections", RT_OPT_INT, (offset), 1, 65536, (dflt), "N", (help), NULL }
#define RT_OPT_ROW_PORT(offset, dflt)                                          \
	{ 'p', "port", RT_OPT_PORT, (offset), 0, 0, (dflt), "PORT", "port", NULL }
#define RT_OPT_ROW_ADDR_FORMAT(offset, help)                                    \
	{ 'f', "format", RT_OPT_ENUM, (offset), 0, 0, "name", "FMT", (help),   \
	  rt_addr_formats }
/* The endpoint rows of a client/server CM tool (ucmatose, udaddy): -s,
 * -b, -f, and -P from `spaces` (rt_port_spaces_rc or _ud). */
/* The -s -b -f -P values of a CM tool, one member of its config struct
 * (RT_CFG) filled by RT_OPT_ROWS_CM_ENDPOINT_OF(member, ...). */
struct rt_cm_endpoint {
	const char *dst, *src; /* -s: run as the client of dst; -b */
	int format, ps;        /* -f, -P */
};
/* NOLINTBEGIN(bugprone-macro-parentheses): m is a member name, not an
 * expression, and cannot be parenthesized inside offsetof */
#define RT_OPT_ROWS_CM_ENDPOINT_OF(m, ps_default, spaces)                      \
	RT_OPT_ROWS_CM_ENDPOINT(RT_S(m.dst), RT_S(m.src), RT_I(m.format),       \
				RT_I(m.ps), (ps_default), (spaces))
/* NOLINTEND(bugprone-macro-parentheses) */
#define RT_OPT_ROWS_CM_ENDPOINT(dst, src, format, ps, ps_default, spaces)       \
	RT_OPT_ROW_SERVER_ADDR(dst),                                            \
	{ 'b', "bind", RT_OPT_ADDR, (src), 0, 0, NULL, "ADDR",                  \
	  "local address to bind (server) or to connect from (client)", NULL }, \
	RT_OPT_ROW_ADDR_FORMAT((format), "how to read addresses"),              \
	{ 'P', "port-space", RT_OPT_ENUM, (ps), 0, 0, (ps_default), "PS",       \
	  "RDMA port space; both sides must match", (spaces) }

struct rt_addr_query {
	const char *node;    /* NULL: wildcard (servers) */
	long long port;      /* 0: none */
	const char *src;     /* client source address, or NULL */
	enum rdma_port_space ps;
	enum rt_addr_format format;
	bool passive;
	const char *what;    /* option that gave the address, for errors: "-s" */
};

/* The query of a CM tool with upstream's -s/-b: without -s (dst NULL) it
 * is the server, listening on -b (or the wildcard); else the client, from
 * -b to -s. */
struct rt_addr_query rt_addr_query_cm(const struct rt_cm_endpoint *ep, long long port);

/* Resolves with rdma_getaddrinfo; on success *out must be released with
 * rdma_freeaddrinfo. Bad or unknown names are usage errors. */
int rt_addr_resolve(const struct rt_addr_query *q, struct rdma_addrinfo **out,
		    struct rt_error *err);

/* A socket address to bind, listen on or connect to, with what came with
 * it: the client's source (port 0, so that a reconnect can bind it again)
 * and, from the RDMA CM, a route for rsockets' RDMA_ROUTE. */
struct rt_sockaddr {
	struct sockaddr_storage addr, src;
	socklen_t addr_len, src_len; /* src_len 0: no source */
	void *route;                 /* rt_sockaddr_free releases it */
	size_t route_len;
};

/* Resolves q->node (and q->src for an active side) for a stream socket:
 * with getaddrinfo, or with rdma_getaddrinfo when `rdma_cm` (which also
 * reads gids). A passive side gets the address to listen on. Unknown
 * names are exit 2, no RDMA device exit 3, one line naming q->what. */
int rt_addr_lookup(const struct rt_addr_query *q, bool rdma_cm,
		   struct rt_sockaddr *out, struct rt_error *err);
void rt_sockaddr_free(struct rt_sockaddr *a);

/* The bytes of sa's family: AF_INET, AF_INET6, AF_IB (a 48-byte
 * sockaddr_ib, smaller than a sockaddr_storage); 0 for any other. */
socklen_t rt_addr_len(const struct sockaddr *sa);
/* Sets the port of an IPv4 or IPv6 address (others are left alone). */
void rt_addr_set_port(struct sockaddr *sa, unsigned port);
/* The host part alone: "192.0.2.1", "fe80::1", a GID as "ff0e::1"; "?"
 * for a NULL address or any other family. */
const char *rt_addr_host_str(const struct sockaddr *sa, char *buf, size_t len);
/* "192.0.2.1:7471", "[fe80::1]:7471", "gid fe80::…", "family N" or "?" */
const char *rt_addr_str(const struct sockaddr *sa, char *buf, size_t len);
/* Parses a numeric IPv4/IPv6 address (no port) into a sockaddr_storage. */
int rt_addr_parse_numeric(const char *text, struct sockaddr_storage *ss);

/* "rxe0 on eth0, mlx5_0 port 2 on ens1f1": the RDMA device ports that
 * carry IP (a netdev behind GID 0), read from the sysfs tree at sysfs
 * ("/sys" but in tests); "none" when there are none. For errors that say
 * no device owns an address. */
const char *rt_rdma_netdevs(const char *sysfs, char *buf, size_t len);

#endif
