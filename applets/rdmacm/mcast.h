/* Multicast through the RDMA CM, for any applet that joins groups: group
 * addresses (-m names, -M GIDs), joining with flags and leaving, the
 * address handle from the join event, the port's MTU and link layer, and
 * the accounting of received datagrams.
 *
 * The accounting (rt_mc_tally) is plain computation on payload bytes, so
 * unit tests drive it without a device. A datagram is "rdmatest" when it
 * carries the verify.h message header; the tally then knows its sender and
 * sequence number and checks every byte. Anything else (upstream senders
 * send uninitialised memory) is counted, unchecked, as foreign, per source
 * QPN. Memory is bounded whatever the peers send: see RT_MC_RING_* and
 * RT_MC_SENDERS_MAX. */
#ifndef RDMATEST_MCAST_H
#define RDMATEST_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>

#include "rdmatest/cm.h"
#include "rdmatest/error.h"
#include "rdmatest/json.h"

/* Receives of UD datagrams start with the 40-byte GRH area. */
#define RT_MC_GRH_LEN 40
/* Every multicast datagram goes to this QPN (the join event says so too). */
#define RT_MC_QPN 0xFFFFFFu
/* The largest MTU of any RDMA port: no datagram can be larger. */
#define RT_MC_MAX_MTU 4096

/* ---- group addresses (no device needed) ---- */

/* Parses the text of -M: an IPv6-style GID (ff0e::1), or "0" / "::" for
 * the zero MGID (ask the SA to assign one). Fills an AF_IB address with
 * P_Key, flow label and service ID 0, as upstream does. Returns 0, or -1
 * when the text is not a GID or not a multicast one (first byte 0xff). */
int rt_mc_parse_gid(const char *text, struct sockaddr_ib *sib);

/* Resolves the text of -m (getaddrinfo, as upstream: names work too) and
 * requires an IPv4 or IPv6 multicast address, or the zero address. Usage
 * errors name `opt`. */
int rt_mc_parse_group(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err);
/* Resolves a local address (-b); any unicast address is accepted here. */
int rt_mc_parse_local(const char *text, const char *opt,
		      struct sockaddr_storage *ss, struct rt_error *err);

bool rt_mc_addr_is_zero(const struct sockaddr *sa);
bool rt_mc_addr_is_multicast(const struct sockaddr *sa);

/* ---- the port an id is on ---- */

struct rt_mc_port {
	char dev[64];
	uint8_t port;
	int mtu;       /* active MTU in bytes */
	bool ethernet; /* RoCE: no subnet administrator, no SA-assigned MGIDs */
};

/* Queries the id's device and port (after address resolution or bind). */
int rt_mc_port_query(struct rdma_cm_id *id, struct rt_mc_port *p,
		     struct rt_error *err);
/* A datagram is one packet: size must fit the active MTU (usage error
 * naming --size and the MTU). A count of 0 sends nothing, so anything goes,
 * as upstream. */
int rt_mc_check_size(long long size, long long count,
		     const struct rt_mc_port *p, struct rt_error *err);
/* A zero group asks the InfiniBand SA for an MGID; RoCE has no SA, so that
 * is an environment error there. */
int rt_mc_check_group(const struct sockaddr *group, const struct rt_mc_port *p,
		      struct rt_error *err);

/* Every full-member QP is attached to the group; devices limit how many
 * one group takes (max_mcast_qp_attach, 56 on rxe). Environment error. */
int rt_mc_check_qps(unsigned qps, bool send_only, int max_attach,
		    const struct rt_mc_port *p, struct rt_error *err);
/* device, port, active_mtu, link_layer (null before a port was queried). */
void rt_mc_port_json(struct rt_json *j, const struct rt_mc_port *p);

/* ---- joining and leaving ---- */

/* One id's membership. The owner keeps it next to the id. */
struct rt_mc_member {
	struct sockaddr_storage group;
	bool send_only;    /* RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER */
	bool requested;    /* rdma_join_multicast_ex was called: a leave is due */
	bool joined;       /* the join event arrived */
	bool left;
	struct ibv_ah *ah; /* from the join event */
	uint32_t qpn;      /* remote QPN from the join event (0xFFFFFF) */
	uint32_t qkey;     /* the group's qkey from the join event */
	uint32_t mlid;
	uint8_t sl;
	char dgid[64];     /* the MGID, as upstream prints it */
};

/* rdma_join_multicast_ex with the ADDRESS and JOIN_FLAGS attributes. The
 * QP must exist already: librdmacm attaches it when the join completes
 * (never for a send-only join). Failures fail the connection; a send-only
 * join refused by the kernel or provider is an environment error (3). */
int rt_mc_join(struct rt_conn *c, struct rt_mc_member *m);
/* After the MULTICAST_JOIN event (c->ud filled): remote QPN, qkey, MGID,
 * MLID and SL, and the address handle for sending to the group. */
int rt_mc_on_join(struct rt_conn *c, struct rt_mc_member *m);
/* Leaves (librdmacm detaches the QP) and destroys the AH. Idempotent and
 * safe on ids that never joined. Must run before the QP and PD are
 * destroyed: an attached QP cannot be destroyed. err may be NULL on
 * failure paths, where a failed leave changes nothing. */
int rt_mc_leave(struct rt_conn *c, struct rt_mc_member *m,
		struct rt_error *err);
/* Rewrites a MULTICAST_ERROR failure of c into a message that says what
 * the join was and, for refused send-only joins, exit 3. */
void rt_mc_explain_failure(struct rt_conn *c, const struct rt_mc_member *m);
/* Adds the likely cause to a failed address resolution of a group: port
 * space ipoib on RoCE (exit 3), or no route when the id was not bound to
 * a local address (-b). Other failures are left alone. */
void rt_mc_explain_resolve(struct rt_conn *c, enum rdma_port_space ps, bool bound);
/* "join": {dgid, mlid, sl, qkey, remote_qpn} of a joined member. */
void rt_mc_member_json(struct rt_json *j, const struct rt_mc_member *m);

/* ---- the receive ring ---- */

/* Receives a QP keeps posted, each -S + 40 bytes. Memory ceiling of a
 * receiver: at most RT_MC_RING_MAX slots and RT_MC_RING_QP_BYTES per QP,
 * and RT_MC_RING_BYTES for all its QPs together (each QP keeps at least
 * one slot). */
#define RT_MC_RING_MAX 4096u
#define RT_MC_RING_QP_BYTES (8u << 20)
#define RT_MC_RING_BYTES (64u << 20)

/* Slots per QP for `want` datagrams (UINT64_MAX: as many as the ceiling
 * allows) on each of nqps QPs with slots of slot_len bytes, also at most
 * max_wr (the device's limit; 0: none). At least 1. */
uint32_t rt_mc_ring_slots(uint64_t want, unsigned nqps, size_t slot_len,
			  uint32_t max_wr);

/* A ring of receive slots in one registered buffer. Completed slots are
 * reposted in batches by rt_mc_ring_refill, not one by one: while the
 * reactor drains the completions of a round, the number of receives
 * posted stays fixed, so a completion that brings `completed` up to
 * `posted` proves the device had nothing posted from then until the next
 * refill: datagrams arriving meanwhile were dropped (UD drops silently
 * when no receive is posted). That is how an overrun is told from loss on
 * the way. */
struct rt_mc_ring {
	struct rt_buf *buf;
	uint32_t slots;
	size_t slot_len;
	uint32_t *pending;  /* completed slots awaiting a repost */
	uint32_t npending;
	uint64_t posted;    /* receives posted in all */
	uint64_t completed; /* receive completions seen */
	uint64_t dry;       /* completions that took the last posted receive */
};

/* Allocates the buffer on c (slots x slot_len) and posts every slot. */
int rt_mc_ring_init(struct rt_mc_ring *r, struct rt_conn *c, uint32_t slots,
		    size_t slot_len);
void rt_mc_ring_free(struct rt_mc_ring *r);
/* The payload (after the GRH area) of a completed slot, or NULL when the
 * slot is not one of the ring's. */
uint8_t *rt_mc_ring_payload(const struct rt_mc_ring *r, uint64_t slot);
/* Accounts a completion of slot; true when it took the last posted
 * receive (the ring ran dry). */
bool rt_mc_ring_take(struct rt_mc_ring *r, uint32_t slot);
/* Reposts the completed slots; call once per reactor round. Does nothing
 * while c's CQ still holds completions the reactor has not read (its
 * per-round budget ran out), so that a dry spell stays visible. */
int rt_mc_ring_refill(struct rt_mc_ring *r, struct rt_conn *c);

/* ---- accounting of received datagrams ---- */

/* A tally tracks at most this many senders per QP, found in O(1) through
 * a fixed open-addressed index; datagrams of further senders count as
 * foreign (unverified). Each tracked sender costs sizeof(struct
 * rt_mc_sender) (under 200 bytes), so a QP's tracking stays below
 * 50 KiB whatever arrives. */
#define RT_MC_SENDERS_MAX 256
#define RT_MC_INDEX_SLOTS (2 * RT_MC_SENDERS_MAX)
/* Sequence numbers remembered behind a sender's newest one: a datagram
 * older than that cannot be told from a duplicate and counts as late. */
#define RT_MC_WINDOW 1024

enum rt_mc_class {
	RT_MC_NEW,          /* an rdmatest datagram seen for the first time */
	RT_MC_OUT_OF_ORDER, /* new, but a later one of its sender came first */
	RT_MC_DUPLICATE,    /* this sender and sequence number came before */
	RT_MC_LATE,         /* older than the window: duplicate or late, not counted */
	RT_MC_BEYOND,       /* sequence number at or past the expected count */
	RT_MC_FOREIGN,      /* not rdmatest-formatted or untracked: counted, not checked */
	RT_MC_CORRUPT,      /* rdmatest header, but a byte or the length is wrong */
};

/* A sender: an rdmatest sender id, or the source QPN of datagrams without
 * our header (upstream senders), which are counted but carry no sequence
 * numbers. */
struct rt_mc_sender {
	uint64_t key;       /* id, or RT_MC_KEY_QPN | source QPN */
	uint64_t distinct;  /* sequence numbers below the count (unsequenced: datagrams) */
	uint64_t next;      /* highest sequence number seen + 1 */
	uint64_t dry_last;  /* the tally's dry count at its latest datagram */
	uint64_t overrun;   /* skipped in gaps across which the ring ran dry */
	uint8_t window[RT_MC_WINDOW / 8]; /* seen bits of next-WINDOW .. next-1 */
};
#define RT_MC_KEY_QPN (1ull << 32)

/* What one receiving QP got: received = distinct + duplicates + late +
 * beyond + foreign + corrupt, and out_of_order is the part of distinct
 * that came after a later datagram of its sender. wrong_size counts,
 * across all classes, datagrams whose length is not the expected size;
 * untracked is the part of foreign whose sender found the tally full. */
struct rt_mc_tally {
	uint64_t per_sender;   /* datagrams each sender sends (-C) */
	uint64_t senders;      /* senders expected (--senders; 0: those heard) */
	size_t size;           /* expected payload size (-S) */
	struct rt_mc_sender *snd;
	size_t nsnd, cap;
	uint16_t index[RT_MC_INDEX_SLOTS]; /* 1 + position in snd, 0: free */
	uint64_t received, distinct, out_of_order, duplicates, late, beyond;
	uint64_t foreign, untracked, corrupt, wrong_size;
	uint64_t dry;          /* times the receive ring ran dry so far */
	uint32_t ring;         /* receive slots of this QP */
	uint32_t ring_max;     /* what the memory ceiling would allow */
	char problem[160];     /* the first corrupt or wrong-sized datagram */
};

void rt_mc_tally_init(struct rt_mc_tally *t, uint64_t per_sender,
		      uint64_t senders, size_t size);
void rt_mc_tally_free(struct rt_mc_tally *t);
/* Accounts one datagram's payload (GRH stripped) from source QPN src_qp.
 * *sender gets the sender id of rdmatest datagrams (new, out-of-order,
 * duplicate, late, beyond, and corrupt ones with a readable header), else
 * 0. */
enum rt_mc_class rt_mc_tally_add(struct rt_mc_tally *t, const uint8_t *buf,
				 size_t len, uint32_t src_qp, uint32_t *sender);
/* The receive ring ran dry after the datagrams added so far. */
void rt_mc_tally_dry(struct rt_mc_tally *t);
/* Datagrams still missing: what each heard sender lacks of the count,
 * and, with --senders, what the senders not heard would send (less the
 * untracked datagrams, which cannot be attributed). With neither
 * --senders nor any sender heard, one sender's count. 0: complete. */
uint64_t rt_mc_tally_missing(const struct rt_mc_tally *t);
/* missing + what the heard senders delivered: the "of N" of a report. */
uint64_t rt_mc_tally_expected(const struct rt_mc_tally *t);
/* The part of the missing datagrams that went missing while the ring was
 * dry: gaps across which it ran dry, and the rest of a sender's count when
 * it ran dry after its last datagram. */
uint64_t rt_mc_tally_overrun(const struct rt_mc_tally *t);
/* Names the likely cause of a shortfall into buf and returns it: the
 * receiver overrun, loss on the way (gaps while receives were posted), a
 * sender that stopped (every sender ends early at the same point with no
 * gap), or senders that never showed up. NULL when none fits. */
const char *rt_mc_tally_hint(const struct rt_mc_tally *t, char *buf, size_t len);
const char *rt_mc_class_str(enum rt_mc_class c);

#endif
