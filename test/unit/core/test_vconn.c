/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The verbs-only path with libibverbs replaced (-Wl,--wrap): device and
 * port lookup, the GID choice over a fake sysfs tree, and the attributes
 * and masks of every QP transition per QP type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rdmatest/util.h"
#include "rdmatest/vconn.h"

/* ---- fakes -------------------------------------------------------------- */

static const char *dev_names[4];
static int ndevs;
static struct ibv_device fake_devs[4];
static struct ibv_context fake_ctx;
static struct ibv_pd fake_pd;
static struct ibv_port_attr fake_port;
static int port_rc;          /* ibv_query_port's result */
static union ibv_gid fake_gid;
static int opened, closed, freed, dealloc;
static struct ibv_qp_attr seen[3];
static int seen_mask[3], nmodify, modify_fail_at; /* 1-based; 0: none */

struct ibv_device **__wrap_ibv_get_device_list(int *n)
{
	struct ibv_device **l = calloc((size_t)ndevs + 1, sizeof(*l));

	for (int i = 0; i < ndevs; i++)
		l[i] = &fake_devs[i];
	*n = ndevs;
	return l;
}

void __wrap_ibv_free_device_list(struct ibv_device **l)
{
	freed++;
	free(l);
}

const char *__wrap_ibv_get_device_name(struct ibv_device *d)
{
	return dev_names[d - fake_devs];
}

struct ibv_context *__wrap_ibv_open_device(struct ibv_device *d)
{
	(void)d;
	opened++;
	return &fake_ctx;
}

int __wrap_ibv_close_device(struct ibv_context *c)
{
	(void)c;
	closed++;
	return 0;
}

int __wrap_ibv_query_port(struct ibv_context *c, uint8_t port, void *attr)
{
	(void)c;
	check_expected(port);
	if (!port_rc)
		memcpy(attr, &fake_port, sizeof(fake_port));
	return port_rc;
}

int __wrap_ibv_query_gid(struct ibv_context *c, uint8_t port, int index,
			 union ibv_gid *gid)
{
	(void)c, (void)port;
	check_expected(index);
	*gid = fake_gid;
	return 0;
}

struct ibv_pd *__wrap_ibv_alloc_pd(struct ibv_context *c)
{
	(void)c;
	return &fake_pd;
}

int __wrap_ibv_dealloc_pd(struct ibv_pd *pd)
{
	(void)pd;
	dealloc++;
	return 0;
}

int __wrap_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	(void)qp;
	if (nmodify < 3) {
		seen[nmodify] = *a;
		seen_mask[nmodify] = mask;
	}
	nmodify++;
	return nmodify == modify_fail_at ? EINVAL : 0;
}

static int reset(void **state)
{
	(void)state;
	memset(dev_names, 0, sizeof(dev_names));
	dev_names[0] = "rxe0";
	dev_names[1] = "mlx5_0";
	ndevs = 2;
	memset(&fake_port, 0, sizeof(fake_port));
	fake_port.state = IBV_PORT_ACTIVE;
	fake_port.link_layer = IBV_LINK_LAYER_ETHERNET;
	fake_port.active_mtu = IBV_MTU_1024;
	fake_port.gid_tbl_len = 16;
	fake_port.pkey_tbl_len = 1;
	port_rc = 0;
	opened = closed = freed = dealloc = 0;
	nmodify = modify_fail_at = 0;
	memset(seen, 0, sizeof(seen));
	return 0;
}

/* ---- device and port ---------------------------------------------------- */

static void no_device_is_environment(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	ndevs = 0;
	assert_int_equal(rt_vdev_open(&d, NULL, 0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "no RDMA device found"));
	assert_int_equal(opened, 0);
	assert_int_equal(freed, 1);
}

static void unknown_name_lists_devices(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_vdev_open(&d, "mlx4_0", 0, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_string_equal(err.reason,
			    "-d mlx4_0: no such RDMA device (there are: rxe0, mlx5_0)");
	assert_int_equal(opened, 0);
	assert_int_equal(freed, 1);
}

static void default_is_first_device_port_1(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	expect_value(__wrap_ibv_query_port, port, 1);
	assert_int_equal(rt_vdev_open(&d, NULL, 0, &err), 0);
	assert_string_equal(d.name, "rxe0");
	assert_int_equal(d.port, 1);
	assert_ptr_equal(d.pd, &fake_pd);
	rt_vdev_close(&d);
	assert_int_equal(closed, 1);
	assert_int_equal(dealloc, 1);
}

static void named_device_and_port(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	expect_value(__wrap_ibv_query_port, port, 2);
	assert_int_equal(rt_vdev_open(&d, "mlx5_0", 2, &err), 0);
	assert_string_equal(d.name, "mlx5_0");
	assert_int_equal(d.port, 2);
	rt_vdev_close(&d);
}

static void missing_port_is_named(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	port_rc = EINVAL;
	expect_value(__wrap_ibv_query_port, port, 3);
	assert_int_equal(rt_vdev_open(&d, "rxe0", 3, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_string_equal(err.reason, "-i 3: rxe0 has no such port (ibv_query_port): "
			    "Invalid argument");
	rt_vdev_close(&d);
	assert_int_equal(closed, 1);
}

static void inactive_port_is_environment(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	fake_port.state = IBV_PORT_DOWN;
	expect_value(__wrap_ibv_query_port, port, 1);
	assert_int_equal(rt_vdev_open(&d, NULL, 1, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "rxe0 port 1 is"));
	assert_non_null(strstr(err.reason, "not ACTIVE"));
	rt_vdev_close(&d);
}

static void bad_port_number_is_usage(void **state)
{
	struct rt_vdev d;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_vdev_open(&d, NULL, 300, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "-i 300"));
	rt_vdev_close(&d);
}

/* ---- GID choice over a fake sysfs tree ------------------------------------ */

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0/ports/1/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void entry(int i, const char *gid, const char *type, const char *ndev)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "gids/%d", i);
	put(rel, gid);
	snprintf(rel, sizeof(rel), "gid_attrs/types/%d", i);
	if (type)
		put(rel, type);
	snprintf(rel, sizeof(rel), "gid_attrs/ndevs/%d", i);
	put(rel, ndev);
}

static int make_tree(void **state)
{
	static const char *dirs[] = { "class", "class/infiniband", "class/infiniband/rxe0",
		"class/infiniband/rxe0/ports", "class/infiniband/rxe0/ports/1",
		"class/infiniband/rxe0/ports/1/gids", "class/infiniband/rxe0/ports/1/gid_attrs",
		"class/infiniband/rxe0/ports/1/gid_attrs/types",
		"class/infiniband/rxe0/ports/1/gid_attrs/ndevs" };
	char path[256];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_vconn.XXXXXX");
	assert_non_null(mkdtemp(root));
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	entry(0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "IB/RoCE v1", "eth0");
	entry(1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0");
	entry(2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1", "eth0");
	entry(3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "eth0");
	entry(4, "0000:0000:0000:0000:0000:ffff:c0a8:0101", "RoCE v2", "eth1");
	entry(5, "0000:0000:0000:0000:0000:0000:0000:0000", NULL, ""); /* unused */
	return 0;
}

static int drop_tree(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static struct rt_vdev fake_dev(void)
{
	struct rt_vdev d = { .ctx = &fake_ctx, .pd = &fake_pd, .port = 1 };

	rt_strlcpy(d.name, "rxe0", sizeof(d.name));
	d.attr = fake_port;
	d.attr.lid = 0;
	return d;
}

static struct sockaddr_in ipv4(const char *text)
{
	struct sockaddr_in in = { .sin_family = AF_INET };

	assert_int_equal(inet_pton(AF_INET, text, &in.sin_addr), 1);
	return in;
}

/* Without an address to match (a port that carries none), the first
 * non-zero RoCE v2 entry: the link-local one, not its RoCE v1 twin. */
static void any_roce_v2_gid(void **state)
{
	(void)state;
	assert_int_equal(rt_roce_v2_gid_of(root, "rxe0", 1, 16, NULL, NULL, 0), 1);
	entry(1, "0000:0000:0000:0000:0000:0000:0000:0000", "RoCE v2", "eth0");
	assert_int_equal(rt_roce_v2_gid_of(root, "rxe0", 1, 16, NULL, NULL, 0), 3);
	assert_int_equal(rt_roce_v2_gid_of(root, "rxe0", 1, 2, NULL, NULL, 0), -1);
	entry(1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"); /* as it was */
}

static void auto_gid_is_roce_v2_of_the_address(void **state)
{
	struct rt_vdev d = fake_dev();
	struct sockaddr_in a = ipv4("10.0.0.1"), b = ipv4("192.168.1.1");
	struct rt_vaddr out;
	struct rt_error err = { 0 };
	char text[64];

	(void)state;
	assert_int_equal(rt_vdev_local(&d, root, -1, (struct sockaddr *)&a, &out, &err), 0);
	assert_true(out.grh);
	assert_int_equal(out.gid_index, 3); /* not 2, the RoCE v1 entry of the same address */
	inet_ntop(AF_INET6, out.gid.raw, text, sizeof(text));
	assert_string_equal(text, "::ffff:10.0.0.1");
	assert_int_equal(rt_vdev_local(&d, root, -1, (struct sockaddr *)&b, &out, &err), 0);
	assert_int_equal(out.gid_index, 4);
	assert_false(err.set);
}

static void auto_gid_ipv6_link_local(void **state)
{
	struct rt_vdev d = fake_dev();
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", &a.sin6_addr);
	assert_int_equal(rt_vdev_local(&d, root, -1, (struct sockaddr *)&a, &out, &err), 0);
	assert_int_equal(out.gid_index, 1);
}

static void auto_gid_not_found_lists_candidates(void **state)
{
	struct rt_vdev d = fake_dev();
	struct sockaddr_in a = ipv4("10.9.9.9");
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_vdev_local(&d, root, -1, (struct sockaddr *)&a, &out, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "no RoCE v2 GID of rxe0 port 1 is ::ffff:10.9.9.9"));
	assert_non_null(strstr(err.reason, "3 ::ffff:10.0.0.1 on eth0, 4 ::ffff:192.168.1.1 on eth1"));
}

/* Entries past the port's table length are not looked at. */
static void auto_gid_stays_in_the_table(void **state)
{
	struct rt_vdev d = fake_dev();
	struct sockaddr_in b = ipv4("192.168.1.1");
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	d.attr.gid_tbl_len = 4;
	assert_int_equal(rt_vdev_local(&d, root, -1, (struct sockaddr *)&b, &out, &err), -1);
	assert_non_null(strstr(err.reason, "RoCE v2 GIDs: 1 fe80::5054:ff:fe12:3456 on eth0, 3 "));
}

static void auto_gid_needs_an_address(void **state)
{
	struct rt_vdev d = fake_dev();
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_vdev_local(&d, root, -1, NULL, &out, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "or -g"));
}

static void ib_port_uses_the_lid(void **state)
{
	struct rt_vdev d = fake_dev();
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	d.attr.link_layer = IBV_LINK_LAYER_INFINIBAND;
	d.attr.lid = 0x17;
	assert_int_equal(rt_vdev_local(&d, "/nonexistent", -1, NULL, &out, &err), 0);
	assert_false(out.grh);
	assert_int_equal(out.lid, 0x17);
	d.attr.lid = 0;
	assert_int_equal(rt_vdev_local(&d, "/nonexistent", -1, NULL, &out, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "LID 0"));
}

static void given_index_is_queried(void **state)
{
	struct rt_vdev d = fake_dev();
	struct rt_vaddr out;
	struct rt_error err = { 0 };

	(void)state;
	d.attr.link_layer = IBV_LINK_LAYER_INFINIBAND;
	d.attr.lid = 5;
	memset(&fake_gid, 0, sizeof(fake_gid));
	fake_gid.raw[0] = 0xfe;
	fake_gid.raw[15] = 7;
	expect_value(__wrap_ibv_query_gid, index, 2);
	assert_int_equal(rt_vdev_local(&d, root, 2, NULL, &out, &err), 0);
	assert_true(out.grh); /* asked for: IB gets a GRH too */
	assert_int_equal(out.gid_index, 2);
	assert_int_equal(out.lid, 5);
	assert_memory_equal(out.gid.raw, fake_gid.raw, 16);
	/* beyond the table, and an empty entry */
	assert_int_equal(rt_vdev_local(&d, root, 16, NULL, &out, &err), -1);
	assert_string_equal(err.reason, "-g 16: rxe0 port 1 has 16 GID entries");
	memset(&err, 0, sizeof(err));
	memset(&fake_gid, 0, sizeof(fake_gid));
	expect_value(__wrap_ibv_query_gid, index, 9);
	assert_int_equal(rt_vdev_local(&d, root, 9, NULL, &out, &err), -1);
	assert_non_null(strstr(err.reason, "is empty"));
}

/* ---- the state ladder --------------------------------------------------- */

static struct ibv_qp fake_qp = { .qp_num = 0xabc };

static struct rt_vqp_spec roce_spec(enum ibv_qp_type type)
{
	struct rt_vqp_spec s;

	rt_vqp_spec_defaults(&s);
	s.type = type;
	s.access = IBV_ACCESS_REMOTE_WRITE;
	s.local_psn = 0x111111;
	s.remote_psn = 0x222222;
	s.remote_qpn = 0x33;
	s.local.grh = true;
	s.local.gid_index = 3;
	s.remote.gid.raw[15] = 0x42;
	return s;
}

static void ladder(struct rt_vqp_spec *s, struct rt_error *err)
{
	struct rt_vdev d = fake_dev();

	assert_int_equal(rt_vqp_init(&fake_qp, &d, s, err), 0);
	assert_int_equal(rt_vqp_connect(&fake_qp, &d, s, err), 0);
	assert_int_equal(nmodify, 3);
	assert_int_equal(seen[0].qp_state, IBV_QPS_INIT);
	assert_int_equal(seen[1].qp_state, IBV_QPS_RTR);
	assert_int_equal(seen[2].qp_state, IBV_QPS_RTS);
}

static void rc_ladder(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_RC);
	struct rt_error err = { 0 };

	(void)state;
	ladder(&s, &err);
	assert_int_equal(seen_mask[0], IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS);
	assert_int_equal(seen[0].port_num, 1);
	assert_int_equal(seen[0].qp_access_flags, IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(seen_mask[1], IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			 IBV_QP_MIN_RNR_TIMER);
	assert_int_equal(seen[1].path_mtu, IBV_MTU_1024); /* the port's active MTU */
	assert_int_equal(seen[1].dest_qp_num, 0x33);
	assert_int_equal(seen[1].rq_psn, 0x222222);
	assert_int_equal(seen[1].min_rnr_timer, 12);
	assert_int_equal(seen[1].ah_attr.is_global, 1);
	assert_int_equal(seen[1].ah_attr.grh.hop_limit, 64);
	assert_int_equal(seen[1].ah_attr.grh.sgid_index, 3);
	assert_int_equal(seen[1].ah_attr.grh.dgid.raw[15], 0x42);
	assert_int_equal(seen[1].ah_attr.port_num, 1);
	assert_int_equal(seen_mask[2], IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	assert_int_equal(seen[2].sq_psn, 0x111111);
	assert_int_equal(seen[2].timeout, 14);
	assert_int_equal(seen[2].retry_cnt, 7);
	assert_int_equal(seen[2].rnr_retry, 7);
	assert_int_equal(seen[2].max_rd_atomic, 1);
}

static void uc_ladder(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_UC);
	struct rt_error err = { 0 };

	(void)state;
	s.mtu = IBV_MTU_512;
	ladder(&s, &err);
	assert_int_equal(seen_mask[0], IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_ACCESS_FLAGS);
	assert_int_equal(seen_mask[1], IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
	assert_int_equal(seen[1].path_mtu, IBV_MTU_512);
	assert_int_equal(seen_mask[2], IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void ud_ladder(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_UD);
	struct rt_error err = { 0 };

	(void)state;
	ladder(&s, &err);
	assert_int_equal(seen_mask[0], IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			 IBV_QP_QKEY);
	assert_int_equal(seen[0].qkey, 0x11111111);
	assert_int_equal(seen_mask[1], IBV_QP_STATE);
	assert_int_equal(seen_mask[2], IBV_QP_STATE | IBV_QP_SQ_PSN);
	assert_int_equal(seen[2].sq_psn, 0x111111);
}

static void ib_path_has_no_grh(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_RC);
	struct rt_vdev d = fake_dev();
	struct ibv_qp_attr a;
	int mask;

	(void)state;
	s.local.grh = false;
	s.remote.lid = 0x21;
	s.sl = 3;
	rt_vqp_attr(&d, &s, IBV_QPS_RTR, &a, &mask);
	assert_int_equal(a.ah_attr.is_global, 0);
	assert_int_equal(a.ah_attr.dlid, 0x21);
	assert_int_equal(a.ah_attr.sl, 3);
	assert_int_equal(a.ah_attr.grh.hop_limit, 0);
}

static void failing_transition_is_named(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_RC);
	struct rt_vdev d = fake_dev();
	struct rt_error err = { 0 };

	(void)state;
	s.mtu = IBV_MTU_4096;
	modify_fail_at = 2;
	assert_int_equal(rt_vqp_init(&fake_qp, &d, &s, &err), 0);
	assert_int_equal(rt_vqp_connect(&fake_qp, &d, &s, &err), -1);
	assert_int_equal(nmodify, 2); /* no RTS after a failed RTR */
	assert_int_equal(err.exit_code, RT_EXIT_FAIL);
	assert_string_equal(err.reason, "modify QP 0x000abc to RTR: Invalid argument "
			    "(path MTU 4096 above the port's active 1024?)");
	assert_string_equal(err.phase, "modify-qp");
}

static void roce_without_gid_is_hinted(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_RC);
	struct rt_vdev d = fake_dev();
	struct rt_error err = { 0 };

	(void)state;
	s.local.grh = false;
	modify_fail_at = 1;
	assert_int_equal(rt_vqp_connect(&fake_qp, &d, &s, &err), -1);
	assert_non_null(strstr(err.reason, "to RTR: Invalid argument (RoCE needs a GRH"));
}

static void rts_limits_are_hinted(void **state)
{
	struct rt_vqp_spec s = roce_spec(IBV_QPT_RC);
	struct rt_vdev d = fake_dev();
	struct rt_error err = { 0 };

	(void)state;
	s.timeout = 40;
	modify_fail_at = 2;
	assert_int_equal(rt_vqp_connect(&fake_qp, &d, &s, &err), -1);
	assert_non_null(strstr(err.reason, "to RTS: Invalid argument (timeout 40"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_device_is_environment, reset),
		cmocka_unit_test_setup(unknown_name_lists_devices, reset),
		cmocka_unit_test_setup(default_is_first_device_port_1, reset),
		cmocka_unit_test_setup(named_device_and_port, reset),
		cmocka_unit_test_setup(missing_port_is_named, reset),
		cmocka_unit_test_setup(inactive_port_is_environment, reset),
		cmocka_unit_test_setup(bad_port_number_is_usage, reset),
		cmocka_unit_test_setup(any_roce_v2_gid, reset),
		cmocka_unit_test_setup(auto_gid_is_roce_v2_of_the_address, reset),
		cmocka_unit_test_setup(auto_gid_ipv6_link_local, reset),
		cmocka_unit_test_setup(auto_gid_not_found_lists_candidates, reset),
		cmocka_unit_test_setup(auto_gid_stays_in_the_table, reset),
		cmocka_unit_test_setup(auto_gid_needs_an_address, reset),
		cmocka_unit_test_setup(ib_port_uses_the_lid, reset),
		cmocka_unit_test_setup(given_index_is_queried, reset),
		cmocka_unit_test_setup(rc_ladder, reset),
		cmocka_unit_test_setup(uc_ladder, reset),
		cmocka_unit_test_setup(ud_ladder, reset),
		cmocka_unit_test_setup(ib_path_has_no_grh, reset),
		cmocka_unit_test_setup(failing_transition_is_named, reset),
		cmocka_unit_test_setup(roce_without_gid_is_hinted, reset),
		cmocka_unit_test_setup(rts_limits_are_hinted, reset),
	};

	return cmocka_run_group_tests(tests, make_tree, drop_tree);
}
