/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's sysfs counters and what each name means (counters.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/counters.h"
#include "doctor/diag_read.h"
#include "rdmatest/util.h"

/* `bits`: the width of the InfiniBand PortCounters field, for the names
 * the counters/ directory holds; such a counter stops at its maximum
 * instead of wrapping. 0: 64 bits, or a provider's own counter. */
struct counter_kind {
	const char *name;
	enum rt_diag_counter_class cls;
	unsigned bits;
};

static const struct counter_kind kinds[] = {
	/* the link and the port: bit errors, retraining, drops by the port */
	{ "symbol_error", RT_DIAG_CTR_LINK, 16 },
	{ "link_error_recovery", RT_DIAG_CTR_LINK, 8 },
	{ "link_downed", RT_DIAG_CTR_LINK, 8 },
	{ "port_rcv_errors", RT_DIAG_CTR_LINK, 16 },
	{ "port_rcv_remote_physical_errors", RT_DIAG_CTR_LINK, 16 },
	{ "port_rcv_switch_relay_errors", RT_DIAG_CTR_LINK, 16 },
	{ "port_xmit_discards", RT_DIAG_CTR_LINK, 16 },
	{ "port_xmit_constraint_errors", RT_DIAG_CTR_LINK, 8 },
	{ "port_rcv_constraint_errors", RT_DIAG_CTR_LINK, 8 },
	{ "local_link_integrity_errors", RT_DIAG_CTR_LINK, 4 },
	{ "excessive_buffer_overrun_errors", RT_DIAG_CTR_LINK, 4 },
	{ "VL15_dropped", RT_DIAG_CTR_LINK, 16 },
	/* what traffic causes: a count only means something per packet moved */
	{ "port_xmit_wait", RT_DIAG_CTR_TRANSPORT, 32 },
	{ "out_of_buffer", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "out_of_sequence", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "duplicate_request", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "rnr_nak_retry_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "packet_seq_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "implied_nak_seq_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "local_ack_timeout_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "req_remote_access_errors", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "resp_remote_access_errors", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "req_cqe_error", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "resp_cqe_error", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "roce_adp_retrans", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "roce_slow_restart", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "rp_cnp_handled", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "rp_cnp_ignored", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "np_cnp_sent", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "np_ecn_marked_roce_packets", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "out_of_seq_request", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "rcvd_rnr_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "send_rnr_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "rcvd_seq_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "retry_exceeded_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "retry_rnr_exceeded_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "completer_retry_err", RT_DIAG_CTR_TRANSPORT, 0 },
	{ "send_err", RT_DIAG_CTR_TRANSPORT, 0 },
	/* traffic */
	{ "port_xmit_data", RT_DIAG_CTR_INFO, 0 },
	{ "port_rcv_data", RT_DIAG_CTR_INFO, 0 },
	{ "port_xmit_packets", RT_DIAG_CTR_INFO, 0 },
	{ "port_rcv_packets", RT_DIAG_CTR_INFO, 0 },
	{ "unicast_xmit_packets", RT_DIAG_CTR_INFO, 0 },
	{ "unicast_rcv_packets", RT_DIAG_CTR_INFO, 0 },
	{ "multicast_xmit_packets", RT_DIAG_CTR_INFO, 0 },
	{ "multicast_rcv_packets", RT_DIAG_CTR_INFO, 0 },
	{ "sent_pkts", RT_DIAG_CTR_INFO, 0 },
	{ "rcvd_pkts", RT_DIAG_CTR_INFO, 0 },
	{ "rdma_sends", RT_DIAG_CTR_INFO, 0 },
	{ "rdma_recvs", RT_DIAG_CTR_INFO, 0 },
	{ "ack_deferred", RT_DIAG_CTR_INFO, 0 },
};

static const struct counter_kind *kind_of(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

enum rt_diag_counter_class rt_diag_counter_class(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k ? k->cls : RT_DIAG_CTR_UNKNOWN;
}

const char *rt_diag_counter_class_name(enum rt_diag_counter_class cls)
{
	static const char *const names[] = { "unknown", "info", "transport", "link" };

	return cls <= RT_DIAG_CTR_LINK ? names[cls] : "unknown";
}

/* A counter file holds one unsigned decimal; anything else is not one. */
static bool parse_value(const char *text, uint64_t *v)
{
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(text, &end, 10);
	return !errno && *end == '\0';
}

static void keep(struct rt_diag_counters *out, const char *name, bool hw, uint64_t v)
{
	const struct counter_kind *k = kind_of(name);
	struct rt_diag_counter *c;

	if (out->n >= RT_DIAG_COUNTERS_MAX) {
		out->dropped++;
		return;
	}
	c = &out->c[out->n++];
	rt_strlcpy(c->name, name, sizeof(c->name));
	c->hw = hw;
	c->cls = k ? k->cls : RT_DIAG_CTR_UNKNOWN;
	c->value = v;
	c->saturated = !hw && k && k->bits && v >= (1ull << k->bits) - 1;
}

static void read_dir(const char *sysfs, const char *dev, unsigned port, bool hw,
		     struct rt_diag_counters *out)
{
	char dir[512], names[RT_DIAG_COUNTERS_MAX][64], text[RT_DIAG_COUNTER_BYTES];
	int n;

	snprintf(dir, sizeof(dir), "%.300s/class/infiniband/%.64s/ports/%u/%s", sysfs, dev,
		 port, hw ? "hw_counters" : "counters");
	n = rt_diag_list(dir, "*", names, RT_DIAG_COUNTERS_MAX);
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (i >= RT_DIAG_COUNTERS_MAX) {
			out->dropped++;
			continue;
		}
		/* lifespan: how long the kernel caches hw_counters, a setting */
		if (!strcmp(names[i], "lifespan") || strlen(names[i]) >= sizeof(out->c[0].name))
			continue;
		if (rt_diag_read_at(text, sizeof(text), "%s/%s", dir, names[i]) &&
		    parse_value(text, &v))
			keep(out, names[i], hw, v);
	}
}

int rt_diag_counters_read(const char *sysfs, const char *dev, unsigned port,
			  struct rt_diag_counters *out)
{
	out->n = out->dropped = 0;
	read_dir(sysfs, dev, port, false, out);
	read_dir(sysfs, dev, port, true, out);
	return out->n;
}

static const struct rt_diag_counter *find(const struct rt_diag_counters *t,
					  const char *name, bool hw)
{
	for (int i = 0; i < t->n; i++)
		if (t->c[i].hw == hw && !strcmp(t->c[i].name, name))
			return &t->c[i];
	return NULL;
}

uint64_t rt_diag_counter_delta(const struct rt_diag_counters *before,
			       const struct rt_diag_counters *after, const char *name,
			       bool hw)
{
	const struct rt_diag_counter *a = find(before, name, hw), *b = find(after, name, hw);

	return a && b && b->value >= a->value ? b->value - a->value : 0;
}
