/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* diag_prom: one series per check with its worst level, the counts, the
 * exit code, the ports' facts where known, the run's time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "doctor/diag_prom.h"
#include "rdmatest/util.h"

static void gauges(void **state)
{
	struct rt_diag *d = calloc(1, sizeof(*d));
	struct rt_prom p;

	(void)state;
	rt_diag_add(d, RT_DIAG_PASS, "ports", NULL, "mlx5_0/1 ACTIVE");
	rt_diag_add(d, RT_DIAG_WARN, "ports", "raise the MTU", "mlx5_0/2 MTU");
	rt_diag_add(d, RT_DIAG_FAIL, "memlock", "ulimit -l unlimited", "64 KiB");
	rt_diag_add(d, RT_DIAG_PASS, "netns", NULL, "init");
	d->nports = 2;
	rt_strlcpy(d->ports[0].dev, "mlx5_0", sizeof(d->ports[0].dev));
	d->ports[0].port = 1;
	rt_strlcpy(d->ports[0].state, "4: ACTIVE", sizeof(d->ports[0].state));
	d->ports[0].active_mtu = 4096;
	d->ports[0].ndev_mtu = 9000;
	d->ports[0].rate_gbps = 400;
	d->ports[0].payload_gbps = 392.5;
	rt_strlcpy(d->ports[1].dev, "mlx5_0", sizeof(d->ports[1].dev));
	d->ports[1].port = 2;
	rt_strlcpy(d->ports[1].state, "1: DOWN", sizeof(d->ports[1].state));
	rt_prom_init(&p);
	rt_diag_prom(&p, d, rt_diag_exit(d), 1700000000);
	assert_string_equal(p.problem, "");
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_check{check=\"ports\"} 1\n"
				      "rdmatest_doctor_check{check=\"memlock\"} 2\n"
				      "rdmatest_doctor_check{check=\"netns\"} 0\n#"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_failed 1\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_warnings 1\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_exit_code 1\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_port_active{device=\"mlx5_0\",port=\"1\"} 1\n"
				      "rdmatest_doctor_port_active{device=\"mlx5_0\",port=\"2\"} 0\n"));
	/* the MTUs only where known */
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_port_active_mtu_bytes{device=\"mlx5_0\",port=\"1\"} 4096\n#"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_port_netdev_mtu_bytes{device=\"mlx5_0\",port=\"1\"} 9000\n#"));
	/* the rates too, where the rate file said */
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 50000000000\n#"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_port_payload_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 49062500000\n#"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_last_run_timestamp_seconds 1700000000\n"));
	rt_prom_free(&p);
	free(d);
}

/* No device: no port families at all, and exit code 3. */
static void no_device(void **state)
{
	struct rt_diag *d = calloc(1, sizeof(*d));
	struct rt_prom p;

	(void)state;
	d->no_rdma = true;
	rt_diag_add(d, RT_DIAG_FAIL, "devices", "load a driver", "none");
	rt_prom_init(&p);
	rt_diag_prom(&p, d, rt_diag_exit(d), 1);
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_exit_code 3\n"));
	assert_non_null(strstr(p.buf, "\nrdmatest_doctor_rdma_devices_present 0\n"));
	assert_null(strstr(p.buf, "port_active"));
	rt_prom_free(&p);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gauges),
		cmocka_unit_test(no_device),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
