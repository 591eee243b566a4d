/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* ibv_asyncwatch: print a device's asynchronous events (port up and
 * down, LID/GID/P_Key changes, fatal errors) as rdma-core's
 * ibv_asyncwatch does, one line each, line-buffered. Upstream watches
 * until killed; here SIGINT/SIGTERM are the normal end (exit 0), and
 * --count and --duration bound the watch when asked. The poll also
 * watches the interrupt self-pipe, so a signal ends it at once. */
#include <errno.h>
#include <stdio.h>

#include "rdmatest/applet.h"
#include "rdmatest/devquery.h"
#include "rdmatest/fdwait.h"
#include "rdmatest/util.h"

struct ibv_asyncwatch_cfg {
	const char *dev;
	int help;
	long long count;
	long long duration_ms;
};

#define RT_CFG struct ibv_asyncwatch_cfg

static const struct rt_opt ibv_asyncwatch_opts[] = {
	{ 'd', "ib-dev", RT_OPT_STRING, RT_S(dev), 0, 0, NULL, "DEV",
	  "watch this device (default: the first one)", NULL },
	{ 'h', "usage", RT_OPT_FLAG, RT_I(help), 0, 0, NULL, NULL,
	  "print this help and exit (as --help)", NULL },
	{ 0, "count", RT_OPT_INT, RT_L(count), 0, 1000000000, "0", "N",
	  "stop after N events (0: no limit)", NULL },
	{ 0, "duration", RT_OPT_SECONDS, RT_L(duration_ms), 0, 86400000, "0", "SEC",
	  "stop after SEC seconds (0: until interrupted)", NULL },
	{ 0 },
};

RT_APPLET(ibv_asyncwatch, "print an RDMA device's asynchronous events",
	  "[-d device] [--count N] [--duration SEC] [--json]",
	  "Prints rdma-core's ibv_asyncwatch lines: the device's async event "
	  "descriptor, then one line per event with its name, number and "
	  "port. Watches until SIGINT or SIGTERM (exit 0), N events (--count) "
	  "or SEC seconds (--duration). With --json each event is one JSON "
	  "object on its own line of stdout, flushed, and the run's document "
	  "is the last line.",
	  .long_prefixes = true);

struct watch {
	const struct ibv_asyncwatch_cfg *cfg;
	struct rt_run *run;
	struct ibv_context *ctx;
	const char *name;
	uint64_t t0, events;
};

static const char *event_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_DEVICE_FATAL: return "IBV_EVENT_DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "IBV_EVENT_PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "IBV_EVENT_PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "IBV_EVENT_LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "IBV_EVENT_PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "IBV_EVENT_SM_CHANGE";
	case IBV_EVENT_CLIENT_REREGISTER: return "IBV_EVENT_CLIENT_REREGISTER";
	case IBV_EVENT_GID_CHANGE: return "IBV_EVENT_GID_CHANGE";
	default: return "unexpected";
	}
}

/* As upstream, the port comes from the event's union even for QP, CQ and
 * SRQ events, where it means nothing. */
static void report(struct watch *w, const struct ibv_async_event *ev)
{
	struct rt_json j;
	int type = (int)ev->event_type;

	w->events++;
	if (!w->run->common.json) {
		rt_say(&w->run->log, "  event_type %s (%d), port %d",
		       event_name(ev->event_type), type, ev->element.port_num);
		return;
	}
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_json_kv_string(&j, "device", w->name);
	rt_json_kv_string(&j, "event", event_name(ev->event_type));
	rt_json_kv_int(&j, "event_type", type);
	rt_json_kv_int(&j, "port", ev->element.port_num);
	rt_json_kv_uint(&j, "t_ms", (rt_now_ns() - w->t0) / 1000000);
	rt_json_object_end(&j);
	printf("%s\n", rt_json_text(&j));
	fflush(stdout);
	rt_json_free(&j);
}

/* Takes one event if there is one (the descriptor is non-blocking). */
static int take_event(struct watch *w)
{
	struct ibv_async_event ev;

	if (ibv_get_async_event(w->ctx, &ev)) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		return rt_fail_errno(&w->run->err, RT_EXIT_FAIL, errno,
				     "%s: reading an async event", w->name);
	}
	report(w, &ev);
	ibv_ack_async_event(&ev);
	return 0;
}

static int watch(struct watch *w)
{
	uint64_t deadline = w->cfg->duration_ms ? rt_deadline_after_ms(w->cfg->duration_ms) : 0;

	while (!w->cfg->count || w->events < (uint64_t)w->cfg->count) {
		int r = rt_fdwait(w->ctx->async_fd, POLLIN, deadline);

		if (r == RT_FDWAIT_INTERRUPTED || r == RT_FDWAIT_TIMEOUT)
			return 0; /* interrupted, or --duration is over */
		if (r < 0)
			return rt_fail_errno(&w->run->err, RT_EXIT_FAIL, errno, "poll");
		if (take_event(w))
			return -1;
	}
	return 0;
}

static int ibv_asyncwatch_main(struct rt_run *run, void *cfgp)
{
	struct watch w = { .cfg = cfgp, .run = run, .t0 = rt_now_ns() };
	struct ibv_device *dev;
	struct rt_devlist l;
	int rc = -1;

	rt_error_phase(&run->err, "device");
	if (w.cfg->help) {
		rt_applet_help(&applet_ibv_asyncwatch);
		return 0;
	}
	/* line-buffered even into a pipe or file, as upstream */
	setvbuf(stdout, NULL, _IOLBF, 0);
	run->interrupt_is_end = true;
	if (rt_devlist_open(&l, &run->err))
		return -1;
	dev = rt_devlist_pick(&l, w.cfg->dev, &run->err);
	if (dev) {
		w.name = ibv_get_device_name(dev);
		w.ctx = ibv_open_device(dev);
		if (!w.ctx)
			rt_fail_errno(&run->err, RT_EXIT_ENV, errno, "%s: cannot open the device",
				      w.name);
	}
	if (w.ctx && rt_set_nonblock(w.ctx->async_fd))
		rt_fail_errno(&run->err, RT_EXIT_FAIL, errno, "%s: async event descriptor",
			      w.name);
	else if (w.ctx) {
		rt_say(&run->log, "%s: async event FD %d", w.name, w.ctx->async_fd);
		rc = watch(&w);
	}
	rt_json_kv_string(&run->results, "device", w.name);
	rt_json_kv_uint(&run->results, "events", w.events);
	if (w.ctx)
		ibv_close_device(w.ctx);
	rt_devlist_close(&l);
	return rc;
}
