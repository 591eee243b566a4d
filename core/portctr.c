/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A port's sysfs counters and what each name means (portctr.h). */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmatest/portctr.h"
#include "rdmatest/util.h"

/* `bits`: the width of the InfiniBand PortCounters field, for the names
 * the counters/ directory holds; such a counter stops at its maximum
 * instead of wrapping. 0: 64 bits, or a provider's own counter.
 * `retransmit`: rt_portctr_retransmit's; `congestion`:
 * rt_portctr_congestion's; `ethtool`: not in sysfs, but among the
 * netdev's driver statistics (ethctr.h). A row's index is its number on
 * mesh's wire (rt_portctr_id): rows are added at the end, never moved. */
struct counter_kind {
	const char *name;
	enum rt_portctr_class cls;
	unsigned bits;
	bool retransmit;
	bool congestion;
	bool ethtool;
};

static const struct counter_kind kinds[] = {
	/* the link and the port: bit errors, retraining, drops by the port */
	{ "symbol_error", RT_PORTCTR_LINK, 16, false, false, false },
	{ "link_error_recovery", RT_PORTCTR_LINK, 8, false, false, false },
	{ "link_downed", RT_PORTCTR_LINK, 8, false, false, false },
	{ "port_rcv_errors", RT_PORTCTR_LINK, 16, false, false, false },
	{ "port_rcv_remote_physical_errors", RT_PORTCTR_LINK, 16, false, false, false },
	{ "port_rcv_switch_relay_errors", RT_PORTCTR_LINK, 16, false, false, false },
	{ "port_xmit_discards", RT_PORTCTR_LINK, 16, false, false, false },
	{ "port_xmit_constraint_errors", RT_PORTCTR_LINK, 8, false, false, false },
	{ "port_rcv_constraint_errors", RT_PORTCTR_LINK, 8, false, false, false },
	{ "local_link_integrity_errors", RT_PORTCTR_LINK, 4, false, false, false },
	{ "excessive_buffer_overrun_errors", RT_PORTCTR_LINK, 4, false, false, false },
	{ "VL15_dropped", RT_PORTCTR_LINK, 16, false, false, false },
	/* what traffic causes: a count only means something per packet moved */
	{ "port_xmit_wait", RT_PORTCTR_TRANSPORT, 32, false, true, false },
	{ "out_of_buffer", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "out_of_sequence", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "duplicate_request", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "rnr_nak_retry_err", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "packet_seq_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "implied_nak_seq_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "local_ack_timeout_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "req_remote_access_errors", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "resp_remote_access_errors", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "req_cqe_error", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "resp_cqe_error", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "roce_adp_retrans", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "roce_slow_restart", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "rp_cnp_handled", RT_PORTCTR_TRANSPORT, 0, false, true, false },
	{ "rp_cnp_ignored", RT_PORTCTR_TRANSPORT, 0, false, true, false },
	{ "np_cnp_sent", RT_PORTCTR_TRANSPORT, 0, false, true, false },
	{ "np_ecn_marked_roce_packets", RT_PORTCTR_TRANSPORT, 0, false, true, false },
	{ "out_of_seq_request", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "rcvd_rnr_err", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "send_rnr_err", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "rcvd_seq_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "retry_exceeded_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "retry_rnr_exceeded_err", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	{ "completer_retry_err", RT_PORTCTR_TRANSPORT, 0, true, false, false },
	{ "send_err", RT_PORTCTR_TRANSPORT, 0, false, false, false },
	/* traffic */
	{ "port_xmit_data", RT_PORTCTR_INFO, 0, false, false, false },
	{ "port_rcv_data", RT_PORTCTR_INFO, 0, false, false, false },
	{ "port_xmit_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "port_rcv_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "unicast_xmit_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "unicast_rcv_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "multicast_xmit_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "multicast_rcv_packets", RT_PORTCTR_INFO, 0, false, false, false },
	{ "sent_pkts", RT_PORTCTR_INFO, 0, false, false, false },
	{ "rcvd_pkts", RT_PORTCTR_INFO, 0, false, false, false },
	{ "rdma_sends", RT_PORTCTR_INFO, 0, false, false, false },
	{ "rdma_recvs", RT_PORTCTR_INFO, 0, false, false, false },
	{ "ack_deferred", RT_PORTCTR_INFO, 0, false, false, false },
	/* the netdev's (ethctr.h), mlx5's names: pause frames received and
	 * sent, per PFC priority and link-wide, and the physical port's
	 * discards; counted for all the port's traffic, RoCE or not */
	{ "rx_prio0_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio1_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio2_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio3_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio4_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio5_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio6_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_prio7_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio0_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio1_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio2_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio3_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio4_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio5_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio6_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_prio7_pause", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pause_ctrl_phy", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pause_ctrl_phy", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_discards_phy", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_discards_phy", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	/* bnxt_en's PFC frames of priority N received and sent (its DCB
	 * code reports them as the peer's indications and its requests) */
	{ "rx_pfc_ena_frames_pri0", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri1", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri2", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri3", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri4", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri5", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri6", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_pfc_ena_frames_pri7", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri0", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri1", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri2", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri3", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri4", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri5", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri6", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_pfc_ena_frames_pri7", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	/* ice's PFC XOFF (pause) frames of priority N received and sent */
	{ "rx_priority_0_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_1_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_2_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_3_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_4_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_5_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_6_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "rx_priority_7_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_0_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_1_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_2_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_3_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_4_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_5_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_6_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
	{ "tx_priority_7_xoff.nic", RT_PORTCTR_TRANSPORT, 0, false, true, true },
};

static const struct counter_kind *kind_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].name, name))
			return &kinds[i];
	return NULL;
}

enum rt_portctr_class rt_portctr_class(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k ? k->cls : RT_PORTCTR_UNKNOWN;
}

const char *rt_portctr_class_name(enum rt_portctr_class cls)
{
	static const char *const names[] = { "unknown", "info", "transport", "link" };

	return cls <= RT_PORTCTR_LINK ? names[cls] : "unknown";
}

bool rt_portctr_retransmit(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k && k->retransmit;
}

bool rt_portctr_congestion(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k && k->congestion;
}

bool rt_portctr_ethtool(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k && k->ethtool;
}

int rt_portctr_id(const char *name)
{
	const struct counter_kind *k = kind_of(name);

	return k ? (int)(k - kinds) : -1;
}

const char *rt_portctr_id_name(unsigned id)
{
	return id < ARRAY_SIZE(kinds) ? kinds[id].name : NULL;
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

bool rt_portctr_read_path(const char *path, uint64_t *v)
{
	char text[RT_PORTCTR_BYTES];

	return rt_read_line(path, text, sizeof(text)) && parse_value(text, v);
}

bool rt_portctr_path(char *buf, size_t len, const char *sysfs, const char *dev,
		     unsigned port, const char *rel)
{
	int n = snprintf(buf, len, "%s/class/infiniband/%s/ports/%u/%s", sysfs, dev, port, rel);

	return n >= 0 && (size_t)n < len;
}

bool rt_portctr_add(struct rt_portctrs *out, const char *name, bool hw, uint64_t v)
{
	const struct counter_kind *k = kind_of(name);
	struct rt_portctr *c;

	if (strlen(name) >= RT_PORTCTR_NAME)
		return false;
	if (out->n >= RT_PORTCTR_MAX) {
		out->dropped++;
		return false;
	}
	c = &out->c[out->n++];
	rt_strlcpy(c->name, name, sizeof(c->name));
	c->hw = hw;
	c->cls = (uint8_t)(k ? k->cls : RT_PORTCTR_UNKNOWN);
	c->value = v;
	c->saturated = !hw && k && k->bits && v >= (1ull << k->bits) - 1;
	return true;
}

static int natcmp_paths(const void *a, const void *b)
{
	return rt_natural_cmp(*(char *const *)a, *(char *const *)b);
}

/* The files of one directory in natural name order (glob, not readdir:
 * nothing shared between calls); each read and kept. */
static void read_dir(const char *sysfs, const char *dev, unsigned port, bool hw,
		     struct rt_portctrs *out)
{
	char pattern[512];
	glob_t g;

	if (!rt_portctr_path(pattern, sizeof(pattern), sysfs, dev, port,
			     hw ? "hw_counters/*" : "counters/*") ||
	    glob(pattern, GLOB_NOSORT, NULL, &g))
		return;
	/* the paths share their directory: their order is their names' */
	qsort(g.gl_pathv, g.gl_pathc, sizeof(g.gl_pathv[0]), natcmp_paths);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *name = strrchr(g.gl_pathv[i], '/') + 1;
		uint64_t v;

		if (i >= RT_PORTCTR_MAX) {
			out->dropped++;
			continue;
		}
		/* lifespan: how long the kernel caches hw_counters, a setting */
		if (!strcmp(name, "lifespan"))
			continue;
		if (rt_portctr_read_path(g.gl_pathv[i], &v))
			rt_portctr_add(out, name, hw, v);
	}
	globfree(&g);
}

int rt_portctr_read(const char *sysfs, const char *dev, unsigned port,
		    struct rt_portctrs *out)
{
	out->n = out->dropped = 0;
	read_dir(sysfs, dev, port, false, out);
	read_dir(sysfs, dev, port, true, out);
	return out->n;
}

static const struct rt_portctr *find(const struct rt_portctrs *t, const char *name, bool hw)
{
	for (int i = 0; i < t->n; i++)
		if (t->c[i].hw == hw && !strcmp(t->c[i].name, name))
			return &t->c[i];
	return NULL;
}

uint64_t rt_portctr_delta(const struct rt_portctrs *before, const struct rt_portctrs *after,
			  const char *name, bool hw)
{
	const struct rt_portctr *a = find(before, name, hw), *b = find(after, name, hw);

	return a && b && b->value >= a->value ? b->value - a->value : 0;
}

bool rt_portctr_sent(const struct rt_portctrs *before, const struct rt_portctrs *after,
		     uint64_t *sent)
{
	bool ib = find(before, "port_xmit_packets", false) && find(after, "port_xmit_packets", false);
	bool rxe = find(before, "sent_pkts", true) && find(after, "sent_pkts", true);

	*sent = ib ? rt_portctr_delta(before, after, "port_xmit_packets", false)
		   : rxe ? rt_portctr_delta(before, after, "sent_pkts", true) : 0;
	return ib || rxe;
}
