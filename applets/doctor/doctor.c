/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor: why RDMA does or does not work on this host, and what to do
 * about it. A checklist (diag.h): modules and device nodes, devices and
 * ports, GID tables and the index a RoCE v2 test should use, which RDMA
 * port carries each local address, memlock, network namespace, provider
 * capabilities; with ADDR also the route to it, the peer's MTU (from a
 * `doctor --listen` peer) and one RDMA CM connection. No peer tool has
 * one; the findings also feed every applet's error line (applet.c). */
#include <stdlib.h>
#include <time.h>

#include "rdmatest/applet.h"
#include "doctor/diag.h"
#include "doctor/diag_peer.h"
#include "doctor/diag_prom.h"
#include "doctor/diag_report.h"
#include "rdmatest/util.h"

struct doctor_cfg {
	const char *addr;
	long long port;
	int listen;
	const char *prom;
};

#define RT_CFG struct doctor_cfg

static const struct rt_opt doctor_opts[] = {
	{ 0, "addr", RT_OPT_OPERAND, RT_S(addr), 0, 0, NULL, "ADDR",
	  "the peer (the operand): check the route to it, its MTU and an RDMA CM connection; "
	  "with --listen, the local address to listen on", NULL },
	{ 'p', "port", RT_OPT_PORT, RT_L(port), 0, 0, "7174", "PORT",
	  "RDMA CM port of the connection check, and TCP port of the MTU facts (7174: rping's)", NULL },
	{ 'l', "listen", RT_OPT_FLAG, RT_I(listen), 0, 0, NULL, NULL,
	  "after a checklist without FAIL, serve one doctor client: its MTU facts and its "
	  "RDMA CM connection (waits --accept-timeout, 600 s when 0)", NULL },
	{ 0, "prom", RT_OPT_STRING, RT_S(prom), 0, 0, NULL, "FILE",
	  "also write the verdict as Prometheus gauges into FILE, replaced atomically, for "
	  "node-exporter's textfile collector (written with exit 3 too; exit 2 when it "
	  "cannot be)", NULL },
	{ 0 },
};

RT_APPLET(doctor, "say why RDMA does not work here, and what to do about it",
	  "[ADDR] [-p PORT] [--listen] [--prom FILE] [--json]",
	  "Prints a checklist, one line per finding: PASS, WARN or FAIL, the "
	  "evidence, and for anything but PASS the fix in one sentence. Checks "
	  "kernel modules and /dev/infiniband, devices and ports (state, "
	  "physical state, link layer, active vs netdev MTU, rate), the GID "
	  "table and the index a RoCE v2 test should use, which RDMA port "
	  "carries each local address, the memlock limit, the network "
	  "namespace, and what the providers can do (RC, UD, multicast, XRC, "
	  "iomap, ODP). With ADDR: whether the route to it leaves through an "
	  "RDMA port, the peer's MTU when it runs `doctor --listen`, and an "
	  "RDMA CM connection to any CM server on -p (doctor --listen, rping "
	  "-s). Exit 0 when nothing fails, 1 when something does, 3 when there "
	  "is no RDMA device at all.",
	  .examples = "This host's checklist:\n"
		      "rdmatest doctor\n"
		      "\n"
		      "Two hosts: on B (192.0.2.2) serve one check, then on A check "
		      "the route, the MTUs and an RDMA CM connection to B:\n"
		      "rdmatest doctor --listen\n"
		      "rdmatest doctor 192.0.2.2\n"
		      "\n"
		      "In a script or a health check, the verdict only:\n"
		      "rdmatest doctor -q || echo \"RDMA not ready: exit $?\"\n"
		      "\n"
		      "For node-exporter's textfile collector, e.g. from a timer:\n"
		      "rdmatest doctor -q --prom /var/lib/prometheus/node-exporter/rdmatest_doctor.prom",
	  .common_unused = (const char *const[]){ "wait-server", NULL });

/* The verdict for node-exporter; a file that cannot be written is the
 * run's error (exit 2), since nobody would see the verdict otherwise. */
static int prom(struct rt_run *run, const char *path, const struct rt_diag *d, int code)
{
	struct rt_prom p;
	int rc;

	rt_prom_init(&p);
	rt_diag_prom(&p, d, code, time(NULL));
	rc = rt_prom_write(&p, "--prom", path, &run->err);
	rt_prom_free(&p);
	return rc;
}

/* A wait for a doctor client is bounded even when --accept-timeout is 0. */
#define LISTEN_DEFAULT_MS 600000LL

static int doctor_main(struct rt_run *run, void *cfgp)
{
	const struct doctor_cfg *cfg = cfgp;
	const struct rt_diag_env *e = &rt_diag_env_real;
	struct rt_diag_peer_params pp = {
		.addr = cfg->addr, .port = (unsigned)cfg->port,
		.timeout_ms = run->common.timeout_ms,
		.accept_ms = run->common.accept_timeout_ms > 0 ? run->common.accept_timeout_ms
							       : LISTEN_DEFAULT_MS,
	};
	struct rt_diag *d = rt_xcalloc(1, sizeof(*d));
	struct sockaddr_storage local;
	int code, rc = 0;

	rt_error_phase(&run->err, "checks");
	rt_diag_local(e, d, true);
	if (!d->no_rdma)
		rt_diag_caps(d);
	if (cfg->addr && !cfg->listen && d->no_rdma)
		rt_diag_peer_skipped(d, cfg->addr);
	else if (cfg->addr && !cfg->listen)
		rt_diag_peer(d, e, rt_diag_route(e, d, cfg->addr, &local), &pp, &run->log);
	if (!run->common.quiet || run->common.json)
		rt_diag_print(run->common.json ? stderr : stdout, d);
	rt_diag_json(&run->results, d);
	code = rt_diag_exit(d);
	if (cfg->prom)
		rc = prom(run, cfg->prom, d, code);
	if (code && !rc) {
		const struct rt_diag_line *l = rt_diag_first(d, RT_DIAG_FAIL);

		rc = rt_fail(&run->err, code, "%s%s FAIL: %s", code == RT_EXIT_ENV ?
			     "no RDMA device; first finding: " : "", l->check, l->fix);
	}
	if (!rc && cfg->listen)
		rc = rt_diag_listen(d, e, &pp, &run->log, &run->err);
	free(d);
	return rc;
}
