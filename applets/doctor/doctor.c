/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* doctor: why RDMA does or does not work on this host, and what to do
 * about it. A checklist (diag.h): modules and device nodes, devices and
 * ports, GID tables and the index a RoCE v2 test should use, which RDMA
 * port carries each local address, memlock, network namespace, provider
 * capabilities, GPUDirect RDMA on a GPU host; with ADDR also the route
 * to it, the peer's MTU (from a `doctor --listen` peer) and one RDMA CM
 * connection. No peer tool has one; the findings also feed every
 * applet's error line (applet.c). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "rdmatest/applet.h"
#include "doctor/diag.h"
#include "doctor/diag_expect.h"
#include "doctor/diag_peer.h"
#include "doctor/diag_prom.h"
#include "doctor/diag_report.h"
#include "rdmatest/util.h"

struct doctor_cfg {
	const char *addr;
	long long port;
	int listen;
	const char *prom;
	const char *save_expect, *expect;
	long long tclass;
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
	{ 0, "save-expect", RT_OPT_STRING, RT_S(save_expect), 0, 0, NULL, "FILE",
	  "also write this host's state into FILE, one `key value` a line (kernel, "
	  "rdma-core, each device's firmware, driver and PCIe link, each used port's "
	  "state, rate, width, MTU, link layer and GID type), for --expect (exit 2 when "
	  "it cannot be written)", NULL },
	{ 0, "expect", RT_OPT_STRING, RT_S(expect), 0, 0, NULL, "FILE",
	  "fail each fact FILE names (from --save-expect, or by hand) that this host "
	  "differs in; ports it does not name are not judged (exit 2 for a malformed "
	  "FILE, with its line)", NULL },
	{ 0, "tclass", RT_OPT_INT, RT_L(tclass), 0, 255, "0", "TC",
	  "the traffic class the tests use (the CM tools' TOS, perftest's class): on "
	  "RoCE, whether its DSCP (TC >> 2) maps to a priority PFC protects, where "
	  "the driver shows PFC and the DSCP map", NULL },
	{ 0 },
};

RT_APPLET(doctor, "say why RDMA does not work here, and what to do about it",
	  "[ADDR] [-p PORT] [--listen] [--prom FILE] [--save-expect FILE | --expect FILE] "
	  "[--tclass TC] [--json]",
	  "Prints a checklist, one line per finding: PASS, WARN or FAIL, the "
	  "evidence, and for anything but PASS the fix in one sentence. Checks "
	  "kernel modules and /dev/infiniband, devices and ports (state, "
	  "physical state, link layer, active vs netdev MTU, rate; a port "
	  "that is down with no address is reported unused), each port's "
	  "error counters (a link error is a WARN), on RoCE the netdev's PFC, "
	  "trust mode and DSCP map where the driver shows them and its pause "
	  "and discard counters (ethtool -S) where it keeps them, the GID "
	  "table and the index a RoCE v2 test should use, which RDMA port "
	  "carries each local address, the memlock limit, the network "
	  "namespace, and what the providers can do (RC, UD, multicast, XRC, "
	  "iomap, ODP). On a host with an NVIDIA or AMD GPU, GPUDirect RDMA: "
	  "the peer memory module or dma-buf path, each RDMA device's nearest "
	  "GPU and their PCIe relation (PIX to SYS), ACS between them, PCIe "
	  "links below their maximum and the IOMMU mode (warnings only). "
	  "With ADDR: whether the route to it leaves through an "
	  "RDMA port, the peer's MTU when it runs `doctor --listen`, and an "
	  "RDMA CM connection to any CM server on -p (doctor --listen, rping "
	  "-s). With --expect FILE, each fact FILE names that differs here "
	  "(a port's rate, a NIC's PCIe lanes, the firmware) fails. Exit 0 "
	  "when nothing fails, 1 when something does, 3 when there is no RDMA "
	  "device at all. doctor.md in rdmatest's documentation says what each "
	  "counter means and lists the expected-state keys.",
	  .examples = "This host's checklist:\n"
		      "rdmatest doctor\n"
		      "\n"
		      "Two hosts: on B (192.0.2.2) serve one check, then on A check "
		      "the route, the MTUs and an RDMA CM connection to B:\n"
		      "rdmatest doctor --listen\n"
		      "rdmatest doctor 192.0.2.2\n"
		      "\n"
		      "Save a healthy host's state, then check a host against it:\n"
		      "rdmatest doctor --save-expect /etc/rdmatest/expect\n"
		      "rdmatest doctor --expect /etc/rdmatest/expect\n"
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

/* The --expect file, read before the checks (they leave a port it names
 * to it); a malformed one is a usage error naming its line. */
static int expect_load(struct rt_run *run, const struct doctor_cfg *cfg,
		       struct rt_diag_expect *want)
{
	char why[160];
	unsigned line;

	if (cfg->expect && cfg->save_expect)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--expect and --save-expect: one "
			       "or the other");
	if (!cfg->expect)
		return 0;
	rt_diag_expect_init(want);
	if (!rt_diag_expect_load(want, cfg->expect, &line, why, sizeof(why)) &&
	    !rt_diag_expect_known(want, &line, why, sizeof(why)))
		return 0;
	if (line)
		return rt_fail(&run->err, RT_EXIT_USAGE, "--expect %s: line %u: %s",
			       cfg->expect, line, why);
	return rt_fail(&run->err, RT_EXIT_USAGE, "--expect %s: %s", cfg->expect, why);
}

/* --save-expect: what this host is now; --expect: what differs. */
static int expect_run(struct rt_run *run, const struct doctor_cfg *cfg,
		      struct rt_diag *d, const struct rt_diag_expect *want)
{
	struct rt_diag_expect have;
	char rdma_core[32];
	int rc = 0;

	rt_diag_rdma_core_version(rdma_core, sizeof(rdma_core));
	if (cfg->expect)
		rt_diag_expect_check(&rt_diag_env_real, d, rdma_core, want, cfg->expect);
	if (!cfg->save_expect)
		return 0;
	rt_diag_expect_init(&have);
	rt_diag_expect_facts(&rt_diag_env_real, d, rdma_core, false, &have);
	if (rt_diag_expect_save(&have, cfg->save_expect, "rdmatest doctor --save-expect: "
				"this host's state, for doctor --expect"))
		rc = rt_fail_errno(&run->err, RT_EXIT_USAGE, errno, "--save-expect %s: "
				   "cannot write it", cfg->save_expect);
	else
		rt_diag_add(d, RT_DIAG_PASS, "expect", NULL, "saved %d facts into %s",
			    have.n, cfg->save_expect);
	rt_diag_expect_free(&have);
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
	struct rt_diag_expect want = { 0 };
	struct sockaddr_storage local;
	int code, rc = 0;

	rt_error_phase(&run->err, "checks");
	rc = expect_load(run, cfg, &want);
	if (rc)
		goto out;
	d->expect = cfg->expect ? &want : NULL;
	d->tclass = (int)cfg->tclass;
	rt_diag_local(e, d, true);
	if (!d->no_rdma)
		rt_diag_caps(d);
	if (cfg->addr && !cfg->listen && d->no_rdma)
		rt_diag_peer_skipped(d, cfg->addr);
	else if (cfg->addr && !cfg->listen)
		rt_diag_peer(d, e, rt_diag_route(e, d, cfg->addr, &local), &pp, &run->log);
	rc = expect_run(run, cfg, d, &want);
	if (rc)
		goto out;
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
out:
	rt_diag_expect_free(&want);
	free(d);
	return rc;
}
