/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The pair test's messages as the partner sent them, judged, and a
 * result's RTT figures (meshtest.h): pure functions, apart from the
 * reactor, so that unit tests need no device. */
#include <stdio.h>
#include <string.h>

#include "mesh/meshtest.h"
#include "rdmatest/stats.h"

#define MSG RT_MESH_MSG_LEN

int rt_mesh_echo_take(const uint8_t *msg, size_t len, const uint64_t *want,
		      struct rt_mesh_echo *m, char *why, size_t why_len)
{
	uint64_t w[3];

	if (len != MSG) {
		snprintf(why, why_len, "a message of %zu bytes, expected %u", len, MSG);
		return -1;
	}
	memcpy(w, msg, MSG);
	*m = (struct rt_mesh_echo){ .seq = w[0], .raddr = w[1], .rkey = (uint32_t)w[2] };
	if (want && m->seq != *want) {
		snprintf(why, why_len, "echo of ping %llu for ping %llu",
			 (unsigned long long)m->seq, (unsigned long long)*want);
		return -1;
	}
	return 0;
}

int rt_mesh_ctr_msg_take(const uint8_t *msg, size_t len, struct rt_mesh_ctrs *ctr,
			 char *why, size_t why_len)
{
	struct rt_error e = {0};
	uint64_t seq;

	if (len != RT_MESH_CTR_MSG_LEN) {
		snprintf(why, why_len, "a message of %zu bytes, expected %u", len,
			 RT_MESH_CTR_MSG_LEN);
		return -1;
	}
	memcpy(&seq, msg, sizeof(seq));
	if (seq != RT_MESH_SEQ_FINAL ||
	    rt_mesh_ctrs_decode(msg + sizeof(seq), msg[sizeof(seq) + 1] > 0, ctr, &e)) {
		snprintf(why, why_len, "the partner's counters: %s",
			 e.set ? e.reason : "not an answer to the final ping");
		return -1;
	}
	for (unsigned i = 0; i < ctr->n; i++)
		if (ctr->e[i].end != RT_MESH_END_A) {
			snprintf(why, why_len, "the partner's counters name the other end");
			return -1;
		}
	if (ctr->sent_known & ~1u) {
		snprintf(why, why_len, "the partner's counters give the other end's packets");
		return -1;
	}
	return 0;
}

void rt_mesh_result_rtt(struct rt_mesh_result *r, const struct rt_hist *h, uint64_t conn_ns)
{
	r->status = RT_MESH_OK;
	r->flags = RT_MESH_HAS_RTT;
	r->connect_ns = conn_ns;
	r->rtt_p50_ns = rt_hist_permille(h, 500);
	r->rtt_p99_ns = rt_hist_permille(h, 990);
	/* nearest-rank on a histogram: both clamp to the samples, never crossing */
	if (r->rtt_p50_ns > r->rtt_p99_ns)
		r->rtt_p50_ns = r->rtt_p99_ns;
}
