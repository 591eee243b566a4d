/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A UD receiver's completions (mckey, udaddy) into rt_ud_rx_take: the
 * work completion names the slot (wr_id) and the length (byte_len) the
 * device reports, and the slot holds what the peer sent. A slot that is
 * not the ring's fails the connection and changes no count; any other
 * completion is counted once, on the ring and in the tally alike, never
 * writes the ring's memory, and reads no further than its slot (the ring
 * is allocated to its exact size, so ASan sees a read past the last one).
 *
 * Input: byte 0 the slots (1..8), 1..2 the expected size (1..1024), 3 the
 * count per sender, 4 the senders expected (0..3); then records, each a
 * control byte: bit 7 set, the reactor's repost of the completed slots;
 * else a completion from source QPN (bits 0..2), its 8-byte wr_id, its
 * 4-byte byte_len, a 2-byte length and that many bytes (GRH area first)
 * written into the slot when it is one of the ring's. */
#include "fuzz.h"

#include "core/cm_priv.h"
#include "rdmacm/udrecv.h"
#include "rdmatest/util.h"
#include "rdmatest/xfer.h"

struct rig {
	struct rt_cm cm;
	struct rt_conn conn;
	struct rt_buf buf;
	struct rt_ud_rx rx;
	uint32_t *pending;
	uint8_t *mem, *copy;
	size_t len;
};

static void rig_init(struct rig *r, struct fuzz_in *in)
{
	uint32_t slots = fuzz_u8(in) % 8 + 1;
	size_t size = fuzz_u64(in, 2) % 1024 + 1;
	uint64_t per_sender = fuzz_u8(in);
	uint64_t senders = fuzz_u8(in) % 4;

	memset(r, 0, sizeof(*r));
	r->conn = (struct rt_conn){ .cm = &r->cm, .state = RT_CONN_ESTABLISHED };
	rt_ud_rx_init(&r->rx, &r->conn, per_sender, senders, size);
	r->len = slots * (size + RT_MC_GRH_LEN);
	r->mem = calloc(1, r->len);
	r->copy = malloc(r->len);
	r->pending = calloc(slots, sizeof(*r->pending));
	FUZZ_CHECK(r->mem && r->copy && r->pending, "out of memory");
	r->buf = (struct rt_buf){ .addr = r->mem, .len = r->len };
	/* as rt_ud_rx_post leaves it: every slot posted */
	r->rx.ring = (struct rt_mc_ring){ .buf = &r->buf, .slots = slots,
					  .slot_len = size + RT_MC_GRH_LEN,
					  .pending = r->pending, .posted = slots };
	r->rx.tally.ring = slots;
}

/* What rt_mc_ring_refill does, without the verbs: the completed slots
 * are posted again. */
static void repost(struct rt_mc_ring *ring)
{
	ring->posted += ring->npending;
	ring->npending = 0;
}

static void complete(struct rig *r, struct fuzz_in *in, uint8_t ctl, uint64_t now)
{
	struct rt_mc_ring *ring = &r->rx.ring;
	struct ibv_wc wc = { .src_qp = ctl & 7u };
	uint64_t slot, received = r->rx.tally.received, completed = ring->completed;
	enum rt_mc_class cls = RT_MC_NEW;
	uint32_t sender = 0;
	size_t n, len;
	uint8_t *d;
	int rc;

	wc.wr_id = fuzz_u64(in, 8);
	wc.byte_len = (uint32_t)fuzz_u64(in, 4);
	slot = RT_WR_N(wc.wr_id);
	n = fuzz_u64(in, 2);
	d = fuzz_bytes(in, n, &len);
	if (slot < ring->slots)
		memcpy(r->mem + slot * ring->slot_len, d, RT_MIN(len, ring->slot_len));
	free(d);
	memcpy(r->copy, r->mem, r->len);

	rc = rt_ud_rx_take(&r->rx, &wc, now, &cls, &sender);
	FUZZ_CHECK(!memcmp(r->copy, r->mem, r->len), "the ring's memory was written");
	if (slot >= ring->slots) {
		FUZZ_CHECK(rc == -1 && r->conn.state == RT_CONN_FAILED && r->conn.err.set,
			   "slot %llu of %u taken", (unsigned long long)slot, ring->slots);
		FUZZ_CHECK(r->rx.tally.received == received && ring->completed == completed,
			   "a refused completion was counted");
		r->conn.state = RT_CONN_ESTABLISHED; /* the next QP's, as it were */
		return;
	}
	FUZZ_CHECK(rc == 0 && r->conn.state == RT_CONN_ESTABLISHED, "slot %llu refused",
		   (unsigned long long)slot);
	FUZZ_CHECK(cls <= RT_MC_CORRUPT, "class %d", cls);
	FUZZ_CHECK(r->rx.tally.received == received + 1 && ring->completed == completed + 1,
		   "a completion counted %llu times",
		   (unsigned long long)(r->rx.tally.received - received));
	FUZZ_CHECK(r->rx.t_last == now && r->rx.t_first && r->rx.t_first <= now, "times");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};
	struct rig *r = malloc(sizeof(*r));
	uint64_t now = 0;

	FUZZ_CHECK(r, "out of memory");
	rig_init(r, &in);
	while (in.n) {
		uint8_t ctl = fuzz_u8(&in);

		if (ctl & 0x80)
			repost(&r->rx.ring);
		else
			complete(r, &in, ctl, ++now);
		FUZZ_CHECK(r->rx.ring.npending <= r->rx.ring.slots, "%u pending of %u slots",
			   r->rx.ring.npending, r->rx.ring.slots);
		FUZZ_CHECK(r->rx.tally.dry == r->rx.ring.dry, "ran dry %llu times, tallied %llu",
			   (unsigned long long)r->rx.ring.dry,
			   (unsigned long long)r->rx.tally.dry);
		FUZZ_CHECK(r->rx.tally.nsnd <= RT_MC_SENDERS_MAX, "%zu senders tracked",
			   r->rx.tally.nsnd);
	}
	rt_mc_tally_free(&r->rx.tally);
	free(r->pending);
	free(r->copy);
	free(r->mem);
	free(r);
	return 0;
}
