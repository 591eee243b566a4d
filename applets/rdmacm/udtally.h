/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The receive side of UD datagrams, multicast (mckey) or unicast
 * (udaddy): a ring of posted receives and the accounting (rt_mc_tally) of
 * what arrived.
 *
 * The accounting is plain computation on payload bytes, so unit tests
 * drive it without a device. A datagram is "rdmatest" when it carries the
 * verify.h message header; the tally then knows its sender and sequence
 * number and checks every byte. Anything else (upstream senders send
 * uninitialised memory) is counted, unchecked, as foreign, per source
 * QPN. Memory is bounded whatever the peers send: see RT_MC_RING_* and
 * RT_MC_SENDERS_MAX. */
#ifndef RDMATEST_UDTALLY_H
#define RDMATEST_UDTALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rdmatest/cm.h"
#include "rdmatest/res.h"

/* Receives of UD datagrams start with the 40-byte GRH area. */
#define RT_MC_GRH_LEN 40

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
/* Senders heard beyond --senders: the first --senders senders heard are
 * the expected ones; later ones are strangers, whose datagrams count as
 * foreign and never make up for an expected sender not heard. */
size_t rt_mc_tally_strangers(const struct rt_mc_tally *t);
/* Names the likely cause of a shortfall into buf and returns it: the
 * receiver overrun, loss on the way (gaps while receives were posted), a
 * sender that stopped (every sender ends early at the same point with no
 * gap), or senders that never showed up; and the strangers, when there
 * are any. NULL when none fits. */
const char *rt_mc_tally_hint(const struct rt_mc_tally *t, char *buf, size_t len);
const char *rt_mc_class_str(enum rt_mc_class c);

#endif
