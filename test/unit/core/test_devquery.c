/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* devquery with libibverbs replaced (-Wl,--wrap): the device list and its
 * failures, picking a device by name, attribute queries and their
 * errors, and the GID table's values and types. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "rdmatest/devquery.h"

/* ---- fakes -------------------------------------------------------------- */

static const char *dev_names[3];
static int ndevs, list_errno;
static struct ibv_device fake_devs[3];
static struct ibv_context fake_ctx; /* abi_compat NULL: the legacy query path */
static struct ibv_device_attr fake_attr;
static int attr_rc, port_rc, gid_rc, type_rc, freed;
static struct ibv_port_attr fake_port;
static union ibv_gid fake_gid;
static enum ibv_gid_type fake_type;

struct ibv_device **__wrap_ibv_get_device_list(int *n)
{
	struct ibv_device **l;

	if (list_errno) {
		errno = list_errno;
		return NULL;
	}
	l = calloc((size_t)ndevs + 1, sizeof(*l));
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

int __wrap_ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	if (!attr_rc)
		*a = fake_attr;
	return attr_rc;
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
	return gid_rc;
}

int __wrap__ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index,
			     struct ibv_gid_entry *e, uint32_t flags, size_t size)
{
	(void)c, (void)port, (void)flags;
	assert_true(size >= sizeof(*e));
	if (type_rc)
		return type_rc;
	memset(e, 0, sizeof(*e));
	e->gid = fake_gid;
	e->gid_index = index;
	e->gid_type = fake_type;
	return 0;
}

static int reset(void **state)
{
	(void)state;
	ndevs = 2;
	dev_names[0] = "rxe0";
	dev_names[1] = "rxe1";
	list_errno = attr_rc = port_rc = gid_rc = type_rc = freed = 0;
	memset(&fake_attr, 0, sizeof(fake_attr));
	memset(&fake_port, 0, sizeof(fake_port));
	memset(&fake_gid, 0, sizeof(fake_gid));
	fake_type = IBV_GID_TYPE_ROCE_V2;
	return 0;
}

/* ---- the list ------------------------------------------------------------ */

static void no_kernel_support_is_environment(void **state)
{
	struct rt_devlist l;
	struct rt_error err = { 0 };

	(void)state;
	list_errno = ENOSYS;
	assert_int_equal(rt_devlist_open(&l, &err), -1);
	assert_int_equal(err.exit_code, 3);
	assert_int_equal(err.err_no, ENOSYS);
	assert_non_null(strstr(err.reason, "cannot list RDMA devices"));
	rt_devlist_close(&l); /* safe on a failed open */
	assert_int_equal(freed, 0);
}

static void empty_list_opens_but_picks_nothing(void **state)
{
	struct rt_devlist l;
	struct rt_error err = { 0 };

	(void)state;
	ndevs = 0;
	assert_int_equal(rt_devlist_open(&l, &err), 0);
	assert_int_equal(l.n, 0);
	assert_false(err.set);
	assert_null(rt_devlist_pick(&l, NULL, &err));
	assert_int_equal(err.exit_code, 3);
	assert_non_null(strstr(err.reason, "no RDMA device found"));
	rt_devlist_close(&l);
	assert_int_equal(freed, 1);
}

static void pick_default_and_by_name(void **state)
{
	struct rt_devlist l;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_devlist_open(&l, &err), 0);
	assert_ptr_equal(rt_devlist_pick(&l, NULL, &err), &fake_devs[0]);
	assert_ptr_equal(rt_devlist_pick(&l, "rxe1", &err), &fake_devs[1]);
	assert_ptr_equal(rt_devlist_find(&l, "rxe1"), &fake_devs[1]);
	assert_null(rt_devlist_find(&l, "rxe"));
	assert_false(err.set);
	rt_devlist_close(&l);
}

static void unknown_name_lists_devices(void **state)
{
	struct rt_devlist l;
	struct rt_error err = { 0 };

	(void)state;
	assert_int_equal(rt_devlist_open(&l, &err), 0);
	assert_null(rt_devlist_pick(&l, "mlx5_0", &err));
	assert_int_equal(err.exit_code, 3);
	assert_string_equal(err.reason, "-d mlx5_0: no such RDMA device (there are: rxe0, rxe1)");
	rt_devlist_close(&l);
}

static void names_are_truncated_not_overrun(void **state)
{
	struct rt_devlist l;
	struct rt_error err = { 0 };
	char buf[16];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rt_devlist_open(&l, &err), 0);
	rt_devlist_names(&l, buf, 7);
	assert_string_equal(buf, "rxe0, ");
	assert_int_equal(buf[7], 'x');
	rt_devlist_names(&l, buf, sizeof(buf));
	assert_string_equal(buf, "rxe0, rxe1");
	rt_devlist_close(&l);
}

/* ---- attributes ---------------------------------------------------------- */

static void device_attrs_without_extended_query(void **state)
{
	struct ibv_device_attr_ex a;
	struct rt_error err = { 0 };

	(void)state;
	fake_attr.phys_port_cnt = 2;
	fake_attr.max_qp = 1234;
	memset(&a, 0xff, sizeof(a));
	assert_int_equal(rt_dev_attrs(&fake_ctx, "rxe0", &a, &err), 0);
	assert_int_equal(a.orig_attr.phys_port_cnt, 2);
	assert_int_equal(a.orig_attr.max_qp, 1234);
	/* what the provider cannot say reads as zero, not as garbage */
	assert_int_equal(a.completion_timestamp_mask, 0);
	assert_int_equal(a.tso_caps.max_tso, 0);
}

static void device_attrs_failure_names_device(void **state)
{
	struct ibv_device_attr_ex a;
	struct rt_error err = { 0 };

	(void)state;
	attr_rc = EIO;
	assert_int_equal(rt_dev_attrs(&fake_ctx, "rxe1", &a, &err), -1);
	assert_int_equal(err.exit_code, 3);
	assert_int_equal(err.err_no, EIO);
	assert_non_null(strstr(err.reason, "rxe1: cannot query the device's attributes"));
}

static void port_attrs_and_failure(void **state)
{
	struct ibv_port_attr p;
	struct rt_error err = { 0 };

	(void)state;
	fake_port.state = IBV_PORT_ACTIVE;
	fake_port.gid_tbl_len = 16;
	expect_value(__wrap_ibv_query_port, port, 1);
	assert_int_equal(rt_port_attrs(&fake_ctx, "rxe0", 1, &p, &err), 0);
	assert_int_equal(p.state, IBV_PORT_ACTIVE);
	assert_int_equal(p.gid_tbl_len, 16);
	port_rc = EINVAL;
	expect_value(__wrap_ibv_query_port, port, 3);
	assert_int_equal(rt_port_attrs(&fake_ctx, "rxe0", 3, &p, &err), -1);
	assert_int_equal(err.exit_code, 3);
	assert_non_null(strstr(err.reason, "rxe0 port 3: cannot query"));
}

/* ---- GIDs ---------------------------------------------------------------- */

static void gid_value_and_types(void **state)
{
	static const struct { enum ibv_gid_type in; enum rt_gid_type out; } map[] = {
		{ IBV_GID_TYPE_ROCE_V2, RT_GID_ROCE_V2 },
		{ IBV_GID_TYPE_ROCE_V1, RT_GID_ROCE_V1 },
		{ IBV_GID_TYPE_IB, RT_GID_IB },
	};
	struct rt_error err = { 0 };
	struct rt_gid g;

	(void)state;
	inet_pton(AF_INET6, "::ffff:192.0.2.1", fake_gid.raw);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		fake_type = map[i].in;
		expect_value(__wrap_ibv_query_gid, index, 5);
		assert_int_equal(rt_gid_get(&fake_ctx, "rxe0", 1, 5, &g, &err), 0);
		assert_int_equal(g.index, 5);
		assert_int_equal(g.type, map[i].out);
		assert_memory_equal(g.gid.raw, fake_gid.raw, 16);
	}
	assert_false(err.set);
}

static void gid_type_unknown_is_not_an_error(void **state)
{
	struct rt_error err = { 0 };
	struct rt_gid g;

	(void)state;
	type_rc = ENODATA;
	expect_value(__wrap_ibv_query_gid, index, 2);
	assert_int_equal(rt_gid_get(&fake_ctx, "rxe0", 1, 2, &g, &err), 0);
	assert_int_equal(g.type, RT_GID_UNKNOWN);
	assert_false(err.set);
}

static void gid_value_failure_names_index(void **state)
{
	struct rt_error err = { 0 };
	struct rt_gid g;

	(void)state;
	gid_rc = -1;
	errno = EIO;
	expect_value(__wrap_ibv_query_gid, index, 7);
	assert_int_equal(rt_gid_get(&fake_ctx, "rxe1", 1, 7, &g, &err), -1);
	assert_int_equal(err.exit_code, 3);
	assert_int_equal(err.err_no, EIO);
	assert_non_null(strstr(err.reason, "rxe1 port 1: cannot read GID 7"));
}

static void gid_in_use_is_the_interface_id(void **state)
{
	union ibv_gid g;

	(void)state;
	memset(&g, 0, sizeof(g));
	assert_false(rt_gid_in_use(&g));
	inet_pton(AF_INET6, "fe80::", g.raw); /* a bare prefix */
	assert_false(rt_gid_in_use(&g));
	inet_pton(AF_INET6, "fe80::1", g.raw);
	assert_true(rt_gid_in_use(&g));
	inet_pton(AF_INET6, "::ffff:192.0.2.1", g.raw);
	assert_true(rt_gid_in_use(&g));
	memset(&g, 0, sizeof(g));
	g.raw[8] = 1; /* first byte of the interface id counts too */
	assert_true(rt_gid_in_use(&g));
}

static void gid_type_names(void **state)
{
	(void)state;
	assert_string_equal(rt_gid_type_name(RT_GID_IB), "IB");
	assert_string_equal(rt_gid_type_name(RT_GID_ROCE_V1), "RoCE v1");
	assert_string_equal(rt_gid_type_name(RT_GID_ROCE_V2), "RoCE v2");
	assert_string_equal(rt_gid_type_name(RT_GID_UNKNOWN), "unknown");
	assert_string_equal(rt_gid_type_name((enum rt_gid_type)42), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(no_kernel_support_is_environment, reset),
		cmocka_unit_test_setup(empty_list_opens_but_picks_nothing, reset),
		cmocka_unit_test_setup(pick_default_and_by_name, reset),
		cmocka_unit_test_setup(unknown_name_lists_devices, reset),
		cmocka_unit_test_setup(names_are_truncated_not_overrun, reset),
		cmocka_unit_test_setup(device_attrs_without_extended_query, reset),
		cmocka_unit_test_setup(device_attrs_failure_names_device, reset),
		cmocka_unit_test_setup(port_attrs_and_failure, reset),
		cmocka_unit_test_setup(gid_value_and_types, reset),
		cmocka_unit_test_setup(gid_type_unknown_is_not_an_error, reset),
		cmocka_unit_test_setup(gid_value_failure_names_index, reset),
		cmocka_unit_test_setup(gid_in_use_is_the_interface_id, reset),
		cmocka_unit_test_setup(gid_type_names, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
