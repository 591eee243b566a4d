/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The coordination messages of a mesh run, between every rank and rank 0
 * (the coordinator) over one TCP connection each (oob.h). Binary, big
 * endian, one fixed size per type so that a reader knows how much to
 * take before it trusts anything:
 *   header   magic "RM" (2 bytes), version 12, type, payload length (u32)
 *   HELLO    rank, size, test port, job token hash (u64, 0: none; version
 *            4), host name, the most RDMA payload its port carries in
 *            Mbit/s (u32, 0: unknown; version 5), the rail count (0 to
 *            RT_MESH_RAILS_MAX; version 6), the host's inventory
 *            (version 8: kernel release, 64 bytes, rdma-core release, 32,
 *            then mesh --expect's outcome: checked (0 or 1), a zero byte,
 *            the differences (u16) and the first one's text, 120 bytes),
 *            then that many rail entries of RT_MESH_RAIL_WIRE bytes
 *            (struct rt_mesh_rail; address family 0 and 16 zero bytes:
 *            the port carries no address; version 8 adds its device's
 *            firmware, driver, PCIe link speed and width, and in what
 *            was a pad after the MTU the expected rate in Gb/s; version 9
 *            adds the GPU its buffers are in with mesh --gpu: its PCI
 *            bus id, 16 bytes, "" none, and its relation to the port's
 *            device, a byte, then 3 zero bytes), the one
 *            message whose length varies: 312 + 184 x count bytes of
 *            payload, the header's length must say exactly that
 *                                                        rank -> 0
 *   ASSIGN   round, rounds, peer (or rest), role, port, host, then
 *            (version 6) the rails to test: a count (0 to
 *            RT_MESH_RAILS_MAX; 0: the partner's host, as before rails)
 *            and that many entries of RT_MESH_ARAIL_WIRE bytes (after
 *            the count, a flags byte, RT_MESH_ASSIGN_*): this
 *            rank's rail, the partner's, the partner's address on it
 *            (family 0, zero bytes: an end has none, test over verbs);
 *            version 10: in what were two zero bytes after the flags,
 *            the connections a rail (--qps, 1 to RT_MESH_QPS_MAX) and the
 *            ASSIGNs of this round for this rank (1; --pattern alltoall: a
 *            listen and one connect a partner, at most RT_MESH_TESTS_MAX,
 *            all run at once), then the connections of the test (u16: the
 *            connecting side's rails times qps; the listener's, summed
 *            over every partner that connects to it, --pattern incast's
 *            senders) and two zero bytes; a rest has 0 for both:
 *            88 + 20 x count bytes of payload            0 -> rank
 *   RESULT   round, a, b, status, flags, the rail of a and of b (version
 *            6; equal unless rails are crossed), connect, RTT p50/p99,
 *            Mbit/s a to b and b to a (version 2; version 1 had one
 *            direction), then (version 7) the ends' port counters that
 *            rose during the test: RT_MESH_CTR_WIRE bytes (struct
 *            rt_mesh_ctrs), whose unused entries are zero; version 11
 *            adds congestion counters after the judged ones, which a
 *            rank 0 of version 10 would judge as retransmits; version
 *            12 the netdev's pause and discard counters (portctr.c's
 *            numbers past ack_deferred), which a rank 0 of version 11
 *            refuses as unknown
 *   VERDICT  ready, interrupted, whether the receiving rank's host is
 *            blamed (in what was a zero pad byte), bad hosts, bad
 *            links, absent hosts, untested hosts (version 3)  0 -> rank
 * The decoder is strict: a wrong magic, version, type or length, a
 * non-zero pad byte, a rank outside the size, an unterminated or
 * non-name host, an unknown status or flag, a payload rate above the
 * fastest port's (12X XDR, linerate.h) is exit 1 naming the field; so
 * is a rail entry out of range: a device that is not a name, a rail
 * number not above the one before it or not below RT_MESH_RAILS_MAX, port
 * 0, an unknown state, link layer, lane count, MTU or address family,
 * address bytes past an IPv4 address or any with family 0, a speed or payload rate above the
 * fastest port's or a payload rate above its speed; so is a counter
 * block whose count is above RT_MESH_CTRS_MAX or disagrees with the
 * RT_MESH_HAS_CTR flag, whose entries are not in (end, number) order,
 * name no counter a RESULT carries (meshctr.h's kinds: link, retransmit
 * or congestion, by portctr.h's numbers), rose by 0
 * or belong to no end, or whose packets sent are given without their
 * bit; so is an inventory field (NUL-padded text, "" unknown) that is
 * not terminated within its field, has a byte after its end that is not
 * zero, or one that is not printable ASCII or is '"' or '\\' (the JSON
 * lines carry them unescaped). A value longer than its field is sent
 * cut to it: inventory is compared, never parsed. So is an --expect
 * outcome that is neither none (all zero) nor checked, or whose text is
 * empty while it counts differences or the reverse.
 * A message is at most RT_MESHMSG_MAX bytes (a HELLO of 32 rails: 6,208;
 * an ASSIGN of 32: 736); a RESULT or a VERDICT at most RT_MESHMSG_SMALL
 * (a RESULT: 180); nothing is allocated. */
#ifndef RDMATEST_MESHWIRE_H
#define RDMATEST_MESHWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/error.h"

#define RT_MESHMSG_HDR 8u
#define RT_MESH_RAILS_MAX 32u  /* rails a host lists, at most */
#define RT_MESH_RAIL_WIRE 184u /* one rail's entry in a HELLO */
#define RT_MESH_ARAIL_WIRE 20u /* one rail's entry in an ASSIGN */
/* a RESULT's counter block: 4 bytes of counts, the two ends' packets
 * sent (u64 each), RT_MESH_CTRS_MAX entries of 12 (number, end, two zero
 * bytes, the rise: u64) */
#define RT_MESH_CTRS_MAX 8u
#define RT_MESH_CTR_ENTRY_WIRE 12u
#define RT_MESH_CTR_WIRE (4u + 16u + RT_MESH_CTRS_MAX * RT_MESH_CTR_ENTRY_WIRE)
/* header + a RESULT's payload, the larger of a RESULT and a VERDICT */
#define RT_MESHMSG_SMALL (RT_MESHMSG_HDR + 56u + RT_MESH_CTR_WIRE)
/* header + the largest payload: a HELLO of RT_MESH_RAILS_MAX rails */
#define RT_MESHMSG_MAX (RT_MESHMSG_HDR + 312u + RT_MESH_RAILS_MAX * RT_MESH_RAIL_WIRE)
#define RT_MESH_HOST_LEN 64u   /* host field, NUL-terminated and padded */
#define RT_MESH_DEV_LEN 32u    /* a rail's device name, NUL-terminated */
#define RT_MESH_ADDR_LEN 46u   /* a rail's numeric address (INET6_ADDRSTRLEN) */
/* inventory fields (doctor's facts, diag_expect.h), NUL-terminated and
 * padded: room for what vendors write ("28.39.1002", "16.0 GT/s PCIe",
 * "5.14.0-427.13.1.el9_4.x86_64") with margin */
#define RT_MESH_KERNEL_LEN 64u
#define RT_MESH_RDMA_CORE_LEN 32u
#define RT_MESH_FW_LEN 32u
#define RT_MESH_DRIVER_LEN 32u
#define RT_MESH_PCIE_SPEED_LEN 24u
#define RT_MESH_PCIE_WIDTH_LEN 8u
/* a rail's GPU (mesh --gpu): its PCI bus id, "0000:3b:00.0" */
#define RT_MESH_GPU_LEN 16u
/* mesh --expect's first difference, as doctor words it ("rxe0 port 1:
 * rate 10 Gb/s, expected 400"), cut to fit */
#define RT_MESH_EXPECT_TEXT 120u
#define RT_MESH_NO_PEER UINT32_MAX

enum rt_meshmsg_type {
	RT_MESHMSG_HELLO = 1,
	RT_MESHMSG_ASSIGN = 2,
	RT_MESHMSG_RESULT = 3,
	RT_MESHMSG_VERDICT = 4,
};

enum rt_mesh_role { RT_MESH_LISTEN = 0, RT_MESH_CONNECT = 1, RT_MESH_REST = 2 };

enum rt_mesh_status {
	RT_MESH_OK = 0,      /* measured */
	RT_MESH_FAILED = 1,  /* the test ran and failed (refused, error) */
	RT_MESH_TIMEOUT = 2, /* a bound expired */
	RT_MESH_ABSENT = 3,  /* the peer never said hello */
	RT_MESH_STATUS_MAX = RT_MESH_ABSENT,
};

#define RT_MESH_HAS_RTT 1u
#define RT_MESH_HAS_BW 2u /* both directions' figures */
#define RT_MESH_HAS_CTR 4u /* counters rose: the result's ctrs has entries */

/* The ends of a result's counter entries: a's port and b's. */
enum rt_mesh_end { RT_MESH_END_A = 0, RT_MESH_END_B = 1 };

/* One port counter that rose during a pair's test, at one end. */
struct rt_mesh_ctr {
	uint8_t id;     /* portctr.h's number: a link, retransmit or congestion counter */
	uint8_t end;    /* enum rt_mesh_end */
	uint64_t delta; /* > 0 */
};

/* The counters a pair's test raised on its ends' ports (meshctr.h):
 * at most RT_MESH_CTRS_MAX, link counters before retransmit ones before
 * congestion ones, the largest first in each, then in (end, id) order;
 * the judged ones of the rest counted in more. */
struct rt_mesh_ctrs {
	uint8_t sent_known; /* bit e: end e's packets sent are known */
	uint8_t n;
	uint8_t more;       /* rises left out (saturating at 255) */
	uint64_t sent[2];   /* packets each end's port sent during the test */
	struct rt_mesh_ctr e[RT_MESH_CTRS_MAX];
};

/* A port's state (the kernel's enum ib_port_state; 0: not known). */
enum rt_rail_state {
	RT_RAIL_NOP = 0, RT_RAIL_DOWN = 1, RT_RAIL_INIT = 2, RT_RAIL_ARMED = 3,
	RT_RAIL_ACTIVE = 4, RT_RAIL_ACTIVE_DEFER = 5,
};
enum rt_rail_link { RT_RAIL_LINK_UNKNOWN = 0, RT_RAIL_IB = 1, RT_RAIL_ETHERNET = 2 };
/* Where a rail's GPU is (mesh --gpu, meshgpu.h), from its port's
 * device: none (no --gpu), unknown (sysfs cannot tell: a software
 * device, a GPU the PCI tree does not show), then pcitopo.h's relations
 * (enum rt_pci_rel + RT_MESH_GPU_REL0), nearest first. */
enum rt_mesh_gpu_rel {
	RT_MESH_GPU_NONE = 0, RT_MESH_GPU_UNKNOWN = 1, RT_MESH_GPU_REL0 = 2,
	RT_MESH_GPU_REL_MAX = RT_MESH_GPU_REL0 + 5, /* SYS */
};

/* One rail of a host (meshrails.h): an RDMA port that carries an IP
 * address. On the wire: dev (32), rail, port, state, link, lanes, family
 * (4 or 6; a byte each), GID index, MTU (u16 each), 2 zero bytes,
 * speed and payload rate (u32 each), the address (16 bytes, an IPv4 one
 * in the first 4 and the rest zero), then its device's inventory:
 * firmware (32), driver (32), PCIe link speed (24) and width (8), then
 * its GPU: bus id (16), relation, 3 zero bytes: 184 bytes. */
struct rt_mesh_rail {
	char dev[RT_MESH_DEV_LEN];
	uint8_t rail;       /* its port's place among the host's, (device, port) order */
	uint8_t port;       /* 1..255 */
	uint8_t state;      /* enum rt_rail_state */
	uint8_t link;       /* enum rt_rail_link */
	uint8_t lanes;      /* active width: 1, 2, 4, 8 or 12; 0 unknown */
	uint16_t gid_index; /* of the address, below 1024 */
	uint16_t mtu;       /* active IB MTU, bytes, 256..4096; 0 unknown */
	uint32_t speed_mbps;   /* the kernel's nominal rate; 0 unknown */
	uint32_t payload_mbps; /* the most RDMA WRITE payload at mtu; 0 unknown */
	/* the rate mesh --expect's file gives its port, Gb/s (at most
	 * RT_LINERATE_MAX_GBPS; 0: none): --min-line-rate judges against it */
	uint16_t want_gbps;
	char addr[RT_MESH_ADDR_LEN]; /* numeric, as inet_ntop writes it; "": none */
	/* its device's, as doctor reads them (DEV.fw_ver, .driver,
	 * .pcie_speed, .pcie_width); "": unknown */
	char fw[RT_MESH_FW_LEN];
	char driver[RT_MESH_DRIVER_LEN];
	char pcie_speed[RT_MESH_PCIE_SPEED_LEN];
	char pcie_width[RT_MESH_PCIE_WIDTH_LEN];
	/* mesh --gpu: the GPU holding this rail's buffers ("": none) and
	 * where it is from the port's device (enum rt_mesh_gpu_rel) */
	char gpu[RT_MESH_GPU_LEN];
	uint8_t gpu_rel;
};

/* A host's inventory beside its rails' (doctor's kernel and rdma_core
 * facts); "": unknown. With mesh --expect, how the host compared with the
 * expected state (doctor's check, meshinv.h). */
struct rt_mesh_inv {
	char kernel[RT_MESH_KERNEL_LEN];
	char rdma_core[RT_MESH_RDMA_CORE_LEN];
	uint8_t expect;        /* 1: the host checked itself against --expect's file */
	uint16_t expect_diffs; /* the facts it differs in */
	char expect_first[RT_MESH_EXPECT_TEXT]; /* the first one; "" with none */
};

struct rt_mesh_hello {
	uint32_t rank, size;
	uint16_t port;
	uint64_t token; /* rt_launch_token_hash, 0: none */
	char host[RT_MESH_HOST_LEN];
	/* the most RDMA WRITE payload the port carrying `host` moves at its
	 * active MTU (linerate.h), Mbit/s; 0: unknown */
	uint32_t payload_mbps;
	uint8_t nrails; /* 0: the host named no rail (its host is tested) */
	struct rt_mesh_inv inv;
	struct rt_mesh_rail rails[RT_MESH_RAILS_MAX];
};

/* One rail of an assigned pair: this rank's rail number, the partner's
 * (the same unless rails are crossed) and the partner's address on it.
 * On the wire: rail, rail_b, family (4 or 6), a zero byte, the address
 * (16 bytes as in a HELLO's rail): 20 bytes. */
struct rt_mesh_arail {
	uint8_t rail, rail_b;
	char addr[RT_MESH_ADDR_LEN];
};

struct rt_mesh_assign {
	uint32_t round, rounds;
	uint32_t peer; /* RT_MESH_NO_PEER with RT_MESH_REST */
	uint8_t role;  /* enum rt_mesh_role */
	uint16_t port;
	char host[RT_MESH_HOST_LEN];
	/* the rails to test, in (rail, rail_b) order, strictly increasing;
	 * 0: the partner's host */
	uint8_t nrails;
	uint8_t flags; /* RT_MESH_ASSIGN_* */
	uint8_t qps;   /* connections a rail and partner, 1..RT_MESH_QPS_MAX; 0: rest */
	uint16_t conns; /* the test's connections, 1..RT_MESH_TEST_CONNS; 0: rest */
	uint8_t tests;  /* this round's ASSIGNs to this rank, 1..RT_MESH_TESTS_MAX; 0: rest */
	struct rt_mesh_arail rails[RT_MESH_RAILS_MAX];
};

/* A round's tests on one rank at most (--pattern alltoall: its listen
 * and one connect for each of up to 64 partners) */
#define RT_MESH_TESTS_MAX 65u
/* --qps: connections (RC QPs) a rail opens to its partner's, at most */
#define RT_MESH_QPS_MAX 16u
/* Connections one test takes at most, on either side: a listener's are
 * each a 1 MiB bandwidth window (meshtest.h), so 64 MiB in all. */
#define RT_MESH_TEST_CONNS 64u

/* An assignment's flags: the bandwidth test writes and reads at once,
 * both directions of each link loaded together (--pattern bisection). */
#define RT_MESH_ASSIGN_BOTH_WAYS 1u
#define RT_MESH_ASSIGN_FLAGS RT_MESH_ASSIGN_BOTH_WAYS

struct rt_mesh_result {
	uint32_t round, a, b;
	uint8_t status; /* enum rt_mesh_status */
	uint8_t flags;  /* RT_MESH_HAS_* */
	uint8_t rail, rail_b; /* the rail of a and of b (below RT_MESH_RAILS_MAX) */
	uint64_t connect_ns, rtt_p50_ns, rtt_p99_ns;
	uint64_t mbps, mbps_rev; /* a to b, b to a */
	struct rt_mesh_ctrs ctr; /* RT_MESH_HAS_CTR: what rose */
};

struct rt_mesh_verdict {
	uint8_t ready;
	uint8_t interrupted; /* rank 0 was stopped mid-run: never ready */
	/* 1 when the verdict blames the receiving rank's own host (a bad
	 * host, or a bad rail of it); rank 0 sets it rank by rank, so that
	 * a rank can tell its host's fault from another's (mesh
	 * --exit-status self); never set on a READY verdict */
	uint8_t self;
	uint32_t bad_nodes, bad_links, absent, untested;
};

struct rt_meshmsg {
	uint8_t type;
	union {
		struct rt_mesh_hello hello;
		struct rt_mesh_assign assign;
		struct rt_mesh_result result;
		struct rt_mesh_verdict verdict;
	} u;
};

/* "ACTIVE", "DOWN", ... ("?" for a code it does not know). */
const char *rt_rail_state_name(unsigned state);
const char *rt_rail_link_name(unsigned link);
/* "none", "unknown", "X", "PIX", ... "SYS" ("?" for a code it does not know). */
const char *rt_mesh_gpu_rel_name(unsigned rel);

/* Writes m into buf (RT_MESHMSG_MAX bytes); returns the length. The host
 * fields must already be valid (rt_mesh_host_valid). */
size_t rt_meshmsg_encode(const struct rt_meshmsg *m, uint8_t *buf);
/* The payload length of a valid header, or -1 (message in err). */
int rt_meshmsg_header(const uint8_t *hdr, uint8_t *type, struct rt_error *err);
/* A whole message (header and payload, exactly len bytes). size bounds
 * every rank (a HELLO's own size must equal it; 0 takes any size up to
 * 65536). */
int rt_meshmsg_decode(const uint8_t *buf, size_t len, uint32_t size,
		      struct rt_meshmsg *m, struct rt_error *err);
/* Whether s fits an inventory field of len bytes as the decoder takes
 * it (printable, no '"' or '\\', terminated); "" does. */
bool rt_mesh_inv_text_ok(const char *s, size_t len);
/* A host name that fits the host field: 1 to 63 name characters. */
int rt_mesh_host_valid(const char *host);
const char *rt_mesh_status_name(unsigned status);

/* A counter block alone (RT_MESH_CTR_WIRE bytes), as a RESULT carries
 * it: what a pair's listener hands its partner (meshtest.c). The decoder
 * checks what the RESULT's does; ctr->n must agree with has_ctr. */
void rt_mesh_ctrs_encode(const struct rt_mesh_ctrs *ctr, uint8_t *buf);
int rt_mesh_ctrs_decode(const uint8_t *buf, bool has_ctr, struct rt_mesh_ctrs *ctr,
			struct rt_error *err);

struct rt_oob;
/* One message from / to a connection, within the connection's bound. */
int rt_meshmsg_read(struct rt_oob *o, uint32_t size, struct rt_meshmsg *m,
		    struct rt_error *err);
int rt_meshmsg_write(struct rt_oob *o, const struct rt_meshmsg *m,
		     struct rt_error *err);

#endif
