/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The ib_* applets' addressing and resource options (perftest 4.5 and
 * 25.01): the source address of the exchange (--bind_source_ip), the GID
 * family (--ipv6), the P_Key index, the link layer and destination LID
 * checks (--force-link, --dlid), the buffer's memory (--use_hugepages,
 * --mmap, --odp, --mr_per_qp) and -O's row (perftest_dual.h runs it). Their rows,
 * their checked values and the device-time checks live here, beside the
 * table rows of perftest_opts.h.
 *
 * Memory: the buffer (perftest_conn.h's bound, RT_PT_MAX_BUF) comes from
 * the heap, from 2 MiB huge pages (rounded up to 2 MiB) or from a file's
 * mapping of exactly that length; with --mr_per_qp one MR per QP, else
 * one. Nothing else is allocated. */
#ifndef RDMATEST_PERFTEST_RES_H
#define RDMATEST_PERFTEST_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/verbs.h>

#include "rdmatest/error.h"
#include "rdmatest/opt.h"

#define RT_PT_HUGE_PAGE (2u << 20)

/* The table's fields (struct rt_pt_cfg's `res`). */
struct rt_pt_res_cfg {
	const char *source, *mmap_file, *force_link;
	long long pkey_index, mmap_offset, dlid, recv_post_list;
	int ipv6, hugepages, odp, mr_per_qp, dualport, srq;
};

/* The checked values (struct rt_pt_params's `res`). */
struct rt_pt_res {
	const char *source;      /* NULL: the routing table's */
	struct sockaddr_storage source_addr; /* source's, parsed */
	const char *mmap_file;   /* NULL: anonymous memory */
	uint64_t mmap_offset;
	int link_layer;          /* --force-link: IBV_LINK_LAYER_*, or -1 */
	uint16_t pkey_index, dlid; /* dlid 0: the peer's */
	unsigned recv_post_list; /* receives per post call (1: single posts) */
	bool ipv6, hugepages, odp, mr_per_qp, dualport;
	bool srq;                /* --use-srq: the send tests' QPs share one */
};

/* Rows every ib_* applet has (the file defines RT_CFG as struct rt_pt_cfg). */
#define RT_PT_OPTS_RES \
	{ 'j', "source_ip", RT_OPT_STRING, RT_S(res.source), 0, 0, NULL, "IP", \
	  "as --bind_source_ip (4.5's name; 25.01 gives it to raw Ethernet)", NULL }, \
	{ 0, "bind_source_ip", RT_OPT_STRING, RT_S(res.source), 0, 0, NULL, "IP", \
	  "the local address of the exchange: a client connects from it, a server " \
	  "listens on it only; with -R the test QPs' CM ids use it too (multi-homed " \
	  "hosts); IPv4 or IPv6", NULL }, \
	{ 0, "ipv6", RT_OPT_FLAG, RT_I(res.ipv6), 0, 0, NULL, NULL, \
	  "RoCE: use an IPv6 RoCE v2 GID of the netdev the peer is reached on " \
	  "(a global one before a link-local one) where the exchange runs over " \
	  "IPv4; both sides must give it, as with perftest. Exit 3 when the " \
	  "netdev has none; -R takes the GID of the server's address (give an " \
	  "IPv6 one)", NULL }, \
	{ 0, "pkey_index", RT_OPT_INT, RT_L(res.pkey_index), 0, 65535, "0", "IDX", \
	  "P_Key index of the test QPs (above the device's table: 0, with " \
	  "perftest's warning); an empty entry exits 3; -R refuses it", NULL }, \
	{ 0, "use_hugepages", RT_OPT_FLAG, RT_I(res.hugepages), 0, 0, NULL, NULL, \
	  "take the buffer from 2 MiB huge pages; none free exits 3, as perftest " \
	  "fails (set vm.nr_hugepages)", NULL }, \
	{ 0, "mmap", RT_OPT_STRING, RT_S(res.mmap_file), 0, 0, NULL, "FILE", \
	  "the buffer is FILE mapped shared (read-write) from --mmap-offset; a " \
	  "file shorter than offset + buffer exits 2", NULL }, \
	{ 0, "mmap-offset", RT_OPT_INT, RT_L(res.mmap_offset), 0, 1LL << 40, "0", \
	  "OFF", "--mmap only: where in FILE the buffer starts (a multiple of the " \
	  "page size)", NULL }, \
	{ 0, "odp", RT_OPT_FLAG, RT_I(res.odp), 0, 0, NULL, NULL, \
	  "register the buffer with On-Demand Paging (explicit ODP, as perftest); " \
	  "a device without RC ODP for the test's operations exits 3 naming it", \
	  NULL }, \
	{ 0, "dlid", RT_OPT_INT, RT_L(res.dlid), 0, 65535, "0", "LID", \
	  "IB: the destination LID of the test QPs instead of the peer's (0: " \
	  "the peer's); RoCE (no LIDs) and -R refuse it", NULL }, \
	{ 0, "force-link", RT_OPT_STRING, RT_S(res.force_link), 0, 0, NULL, "TYPE", \
	  "IB or Ethernet: the port's link layer must be that one (exit 3 " \
	  "otherwise); rdmatest connects by the port's real link layer", NULL }

/* Rows of the bandwidth tests. */
#define RT_PT_OPTS_RES_BW \
	{ 'O', "dualport", RT_OPT_FLAG, RT_I(res.dualport), 0, 0, NULL, NULL, \
	  "run on ports 1 and 2, as perftest: -q is doubled, the first half of " \
	  "the QPs on port 1, the second on port 2, each QP's record with its " \
	  "port's LID and GID (port 2's: -x's index, else on RoCE perftest's " \
	  "best of its table). A device with one port (Soft-RoCE) exits 3 " \
	  "naming its port count; port 2 not ACTIVE or of another link layer " \
	  "exits 3 naming it; -R and -i other than 1 exit 2. Not yet run on " \
	  "a two-port device", NULL }, \
	{ 0, "mr_per_qp", RT_OPT_FLAG, RT_I(res.mr_per_qp), 0, 0, NULL, NULL, \
	  "one memory region per QP over its own two slots, instead of one for " \
	  "the whole buffer", NULL }, \
	{ 0, "recv_post_list", RT_OPT_INT, RT_L(res.recv_post_list), 1, 4096, "1", \
	  "N", "send test: post receives N at a time in one call (-n a multiple " \
	  "of N, N at most -r); the other tests post none and refuse it", NULL }

/* The send tests' row. */
#define RT_PT_OPT_SRQ \
	{ 0, "use-srq", RT_OPT_FLAG, RT_I(res.srq), 0, 0, NULL, NULL, \
	  "the receiving side's QPs share one shared receive queue of -r " \
	  "entries (-q at most -r; a unidirectional BW client, which receives " \
	  "nothing, makes none, as perftest)", NULL }

/* The buffer's memory and MRs (struct rt_pt_conn's `mem`). */
enum rt_pt_mem_kind { RT_PT_MEM_HEAP, RT_PT_MEM_HUGE, RT_PT_MEM_FILE };
struct rt_pt_mem {
	uint8_t *addr;
	size_t len;              /* allocated or mapped */
	enum rt_pt_mem_kind kind;
	struct ibv_mr **mrs;     /* nmr: one, or one per QP */
	unsigned nmr;
};

struct rt_pt_params;
struct rt_pt_cfg;
struct rt_pt_conn;

/* The combination rules (usage errors, exit 2): --bind_source_ip is an
 * IPv4 or IPv6 address, --mmap-offset needs
 * --mmap, --mmap and --use_hugepages exclude each other, --force-link
 * takes IB or Ethernet, -R refuses --pkey_index, --dlid and -O; -c DC
 * (mlx5 only) is refused. */
int rt_pt_res_rules(struct rt_pt_params *p, const struct rt_pt_cfg *c,
		    const struct rt_opt_table *tab, struct rt_error *err);
/* The side makes an SRQ: --use-srq where it receives (perftest: latency,
 * a server, or -b). */
bool rt_pt_res_srq(const struct rt_pt_params *p);
/* Once the device is open, before any peer: --force-link, --dlid,
 * --pkey_index (its entry) and --odp's capabilities. Exit 3 naming what
 * the device lacks. */
int rt_pt_res_device(struct rt_pt_conn *c);
/* Once the path is chosen (c->spec): the P_Key index into it, and --ipv6's
 * GID in place of an IPv4 one. */
int rt_pt_res_path(struct rt_pt_conn *c);
/* --bind_source_ip's address is one this host has (exit 3 otherwise). */
int rt_pt_res_source(const struct rt_pt_params *p, struct rt_error *err);
/* The per-QP slot of the buffer: round_up(max(size, page), line). */
uint64_t rt_pt_slot(uint64_t size, uint32_t page, uint32_t line);
/* The test's buffer (c->buf, c->buf_size) and its MR(s) as the options
 * ask; released by rt_pt_mem_free. */
int rt_pt_mem_alloc(struct rt_pt_conn *c, int access);
void rt_pt_mem_free(struct rt_pt_conn *c);

#endif
