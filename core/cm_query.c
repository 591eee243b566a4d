/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What applets may ask of the reactor: iteration, a connection's
 * attributes and counters, ready-made predicates, and the words for
 * states and CM errors. Nothing here changes a connection; cm.c and
 * cm_loop.c call into this file, never the other way round. */
#include <errno.h>
#include <stdio.h>

#include "cm_priv.h"
#include "rdmatest/util.h"

const char *const rt_step_names[RT_STEP_COUNT] = {
	"resolve addr", "resolve route", "create qp", "connect", "disconnect",
};

struct rt_conn *rt_cm_next(const struct rt_cm *cm, const struct rt_conn *prev)
{
	for (size_t i = prev ? prev->slot + 1 : 0; i < cm->nconns; i++)
		if (cm->conns[i] != cm->listener)
			return cm->conns[i];
	return NULL;
}

size_t rt_cm_count(const struct rt_cm *cm)
{
	return cm->nconns - (cm->listener != NULL);
}

void *rt_cm_applet(const struct rt_cm *cm) { return cm->applet; }
void *rt_conn_applet(const struct rt_conn *c) { return c->cm->applet; }
enum rt_conn_state rt_conn_state(const struct rt_conn *c) { return c->state; }
bool rt_conn_passive(const struct rt_conn *c) { return c->passive; }
unsigned rt_conn_index(const struct rt_conn *c) { return c->index; }
const char *rt_conn_peer(const struct rt_conn *c) { return c->peer; }
struct rdma_cm_id *rt_conn_id(const struct rt_conn *c) { return c->id; }
struct rt_res *rt_conn_res(struct rt_conn *c) { return &c->res; }
const uint64_t *rt_conn_step_ns(const struct rt_conn *c) { return c->step_ns; }
const struct rdma_ud_param *rt_conn_ud(const struct rt_conn *c) { return &c->ud; }
bool rt_conn_cq_backlogged(const struct rt_conn *c) { return c->cq_backlog; }
void *rt_conn_data(const struct rt_conn *c) { return c->priv; }
struct rt_error *rt_conn_err(struct rt_conn *c) { return &c->err; }

uint64_t rt_conn_count(const struct rt_conn *c, enum rt_counter which)
{
	switch (which) {
	case RT_COUNT_SENDS:
		return c->sends_done;
	case RT_COUNT_RECVS:
		return c->recvs_done;
	default:
		return c->rdma_done;
	}
}

bool rt_cm_all_reached(const struct rt_cm *cm, enum rt_counter which, uint64_t n)
{
	const struct rt_conn *c;

	rt_cm_each(cm, c)
		if (c->state != RT_CONN_FAILED && rt_conn_count(c, which) < n)
			return false;
	return true;
}

bool rt_cm_all_established(const struct rt_cm *cm, const void *want_count)
{
	unsigned want = *(const unsigned *)want_count, n = 0;

	for (size_t i = 0; i < cm->nconns; i++)
		n += cm->conns[i]->state >= RT_CONN_ESTABLISHED &&
		     cm->conns[i]->state != RT_CONN_FAILED;
	return n >= want;
}

bool rt_conn_beyond(const struct rt_conn *c, unsigned n)
{
	return c->passive && c->index > n;
}

bool rt_cm_all_closed(const struct rt_cm *cm, const void *unused)
{
	(void)unused;
	for (size_t i = 0; i < cm->nconns; i++) {
		enum rt_conn_state s = cm->conns[i]->state;

		if (cm->conns[i] != cm->listener && s != RT_CONN_DISCONNECTED &&
		    s != RT_CONN_FAILED)
			return false;
	}
	return true;
}

const char *rt_conn_state_str(enum rt_conn_state s)
{
	static const char *const names[] = {
		"idle", "listening", "resolving address", "resolving route",
		"connecting", "accepting", "established", "disconnecting",
		"disconnected", "failed",
	};

	return (size_t)s < ARRAY_SIZE(names) ? names[s] : "?";
}

void rt_cm_census(const struct rt_cm *cm, char *buf, size_t len)
{
	unsigned count[RT_CONN_FAILED + 1] = { 0 }, total = 0;
	const char *sep = ":";
	size_t n;

	for (size_t i = 0; i < cm->nconns; i++)
		if (cm->conns[i] != cm->listener) {
			count[cm->conns[i]->state]++;
			total++;
		}
	n = (size_t)snprintf(buf, len, "%u connection%s", total, total == 1 ? "" : "s");
	for (int s = 0; s <= RT_CONN_FAILED && n < len; s++)
		if (count[s]) {
			n += (size_t)snprintf(buf + n, len - n, "%s %u %s", sep,
					      count[s], rt_conn_state_str(s));
			sep = ",";
		}
	if (total == 0 && cm->listener && n < len)
		snprintf(buf + n, len - n, "; listening on %s", cm->listener->peer);
}

bool rt_cm_any_conn(const struct rt_cm *cm, const void *unused)
{
	(void)unused;
	return rt_cm_count(cm) > 0;
}

void rt_cm_census_want(const struct rt_cm *cm, unsigned want, const char *hint,
		       char *buf, size_t len)
{
	char census[120];

	rt_cm_census(cm, census, sizeof(census));
	snprintf(buf, len, "%s; expected %u: %s", census, want, hint);
}

void rt_cm_expected_progress(const struct rt_cm *cm, const void *want_count,
			     char *buf, size_t len)
{
	rt_cm_census_want(cm, *(const unsigned *)want_count,
			  "does the peer's -c match?", buf, len);
}

const char *rt_cm_explain(enum rdma_cm_event_type ev, int status)
{
	switch (ev) {
	case RDMA_CM_EVENT_REJECTED:
		if (status == 8)
			return "rejected: nothing listening on that port "
			       "(reject reason 8, invalid service ID)";
		if (status == 28)
			return "rejected by the peer application (consumer reject, "
			       "reason 28: server busy, full or refusing)";
		return "connection rejected by the peer";
	case RDMA_CM_EVENT_ADDR_ERROR:
		if (status == -ENODEV || status == -EADDRNOTAVAIL)
			return "no RDMA device owns this address or a route to it";
		if (status == -ETIMEDOUT)
			return "address resolution timed out (ARP/neighbour unanswered: is the host up?)";
		if (status == -ENETUNREACH || status == -EHOSTUNREACH)
			return "no route to the host";
		return "address resolution failed";
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return status == -ETIMEDOUT ? "route resolution timed out" :
		       "route resolution failed";
	case RDMA_CM_EVENT_UNREACHABLE:
		return status == -ETIMEDOUT
			       ? "peer unreachable: no answer to the connect request "
				 "(host down, or UDP port 4791 blocked for RoCE)"
			       : "peer unreachable (GID or MTU mismatch, or no path)";
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return "connection error while establishing";
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return "the RDMA device was removed";
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return "the multicast group reported an error";
	default:
		return "unexpected event";
	}
}
