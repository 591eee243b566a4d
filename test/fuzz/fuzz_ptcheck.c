/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a peer's traffic delivered, as the perftest engine judges it:
 * a write-with-immediate's receive completion (rt_pt_imm_wc_check) and
 * the values the atomics fetched and left (rt_pt_atomic_seq_check,
 * rt_pt_atomic_counter_check). Each is taken exactly when an oracle
 * written here from the documented rules takes it; a refusal is exit 1
 * with one printable line.
 *
 * Input: byte 0 picks the check (mod 3), byte 1 the atomic (mod 2); then
 *   0  opcode, wc_flags, imm_data (network order), byte_len (u32 each),
 *      the run's message size (u64)
 *   1  the fetched values, u64 each, in order, until the first refusal
 *   2  before, last, after, hits (u64 each), QP, counter, counters (u16) */
#include <arpa/inet.h>

#include "fuzz.h"

#include "perftest/perftest_atomic.h"
#include "perftest/perftest_imm.h"
#include "rdmatest/error.h"

static void check_refusal(const struct rt_error *e, const char *must_name)
{
	size_t n = strnlen(e->reason, sizeof(e->reason));

	FUZZ_CHECK(e->set && e->exit_code == 1, "refusal without exit 1");
	FUZZ_CHECK(n > 0 && n < sizeof(e->reason), "reason of %zu bytes", n);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(e->reason[i] >= 0x20 && e->reason[i] < 0x7f,
			   "byte 0x%02x in the reason", (unsigned char)e->reason[i]);
	FUZZ_CHECK(!must_name || strstr(e->reason, must_name), "'%s' not named: %s",
		   must_name, e->reason);
}

static void imm(struct fuzz_in *in)
{
	struct ibv_wc wc = { 0 };
	struct rt_error e = { 0 };
	uint64_t size;
	bool good;
	int rc;

	wc.opcode = (enum ibv_wc_opcode)fuzz_u64(in, 4);
	wc.wc_flags = (unsigned)fuzz_u64(in, 4);
	wc.imm_data = htonl((uint32_t)fuzz_u64(in, 4));
	wc.byte_len = (uint32_t)fuzz_u64(in, 4);
	size = fuzz_u64(in, 8);
	good = wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	       ntohl(wc.imm_data) == RT_PT_IMM_DATA && wc.byte_len == size;
	rc = rt_pt_imm_wc_check(&wc, size, "the peer", &e);
	FUZZ_CHECK(good ? rc == 0 && !e.set : rc == -1, "completion %s where the rules %s it",
		   rc ? "refused" : "taken", good ? "take" : "refuse");
	if (rc)
		check_refusal(&e, "the peer");
}

static void seq(struct fuzz_in *in, enum rt_pt_atomic a)
{
	struct rt_pt_atomic_seq s = { 0 };
	uint64_t first = 0;

	for (uint64_t k = 0; in->n; k++) {
		struct rt_error e = { 0 };
		uint64_t got = fuzz_u64(in, 8);
		int rc = rt_pt_atomic_seq_check(&s, a, got, &e);

		if (!k)
			first = got;
		if (!k || got == (a == RT_PT_FETCH_ADD ? first + k : first)) {
			FUZZ_CHECK(rc == 0 && !e.set, "value %llu of %llu refused",
				   (unsigned long long)k, (unsigned long long)got);
			continue;
		}
		FUZZ_CHECK(rc == -1, "value %llu taken off the sequence", (unsigned long long)k);
		check_refusal(&e, a == RT_PT_FETCH_ADD ? "FETCH_AND_ADD" : "CMP_AND_SWAP");
		break; /* the engine stops at the first bad value */
	}
}

static void counter(struct fuzz_in *in, enum rt_pt_atomic a)
{
	struct rt_pt_atomic_counter x;
	struct rt_error e = { 0 };
	unsigned qp, c, counters;
	uint64_t step;
	bool good;
	int rc;

	x.before = fuzz_u64(in, 8);
	x.last = fuzz_u64(in, 8);
	x.after = fuzz_u64(in, 8);
	x.hits = fuzz_u64(in, 8);
	qp = (unsigned)fuzz_u64(in, 2);
	c = (unsigned)fuzz_u64(in, 2);
	counters = (unsigned)fuzz_u64(in, 2);
	step = a == RT_PT_FETCH_ADD;
	good = (!x.hits || x.last == x.before + (x.hits - 1) * step) &&
	       x.after == x.before + x.hits * step;
	rc = rt_pt_atomic_counter_check(&x, a, qp, c, counters, &e);
	FUZZ_CHECK(good ? rc == 0 && !e.set : rc == -1, "counter %s where the rules %s it",
		   rc ? "refused" : "taken", good ? "take" : "refuse");
	if (rc)
		check_refusal(&e, "counter");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned which = fuzz_u8(&in) % 3;
	enum rt_pt_atomic a = fuzz_u8(&in) % 2 ? RT_PT_CMP_SWAP : RT_PT_FETCH_ADD;

	if (which == 0)
		imm(&in);
	else if (which == 1)
		seq(&in, a);
	else
		counter(&in, a);
	return 0;
}
