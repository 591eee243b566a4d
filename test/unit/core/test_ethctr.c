/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A RoCE netdev's pause and discard counters (ethctr.h): the names picked
 * from a driver's list as the kernel lays it out, the netdev found behind
 * a port in a fake sysfs tree, and the real SIOCETHTOOL calls against a
 * fake driver (ioctl wrapped: a list of mlx5's names, one that changes
 * between the calls, shrunk or grown, one over the bound, none) and
 * against the running kernel's lo and a netdev that does not exist. */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdmatest/ethctr.h"
#include "../fake_tree.h"

/* ---- the fake driver: answers SIOCETHTOOL for netdev "fake0" ---------- */

static const char *const mlx5_names[] = {
	"rx_packets", "rx_bytes", "ch0_rx_packets", "rx_prio3_pause",
	"rx_prio3_pause_duration", "tx_prio3_pause", "rx_prio3_pause_transition",
	"rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_discards_phy",
	/* 32 bytes, no terminating NUL in the kernel's layout */
	"rx_prio7_pause_duration_ext_xyz0", "rx_prio7_pause",
};
#define MLX5_N (sizeof(mlx5_names) / sizeof(mlx5_names[0]))

static struct {
	uint32_t listed;      /* GDRVINFO's n_stats */
	uint32_t answered;    /* the count GSTRINGS and GSTATS answer */
	int calls;
} drv;

int __real_ioctl(int fd, unsigned long req, ...);
int __wrap_ioctl(int fd, unsigned long req, ...);

static int fake_ethtool(void *cmd)
{
	uint32_t what;

	memcpy(&what, cmd, sizeof(what));
	drv.calls++;
	if (what == ETHTOOL_GDRVINFO) {
		struct ethtool_drvinfo *d = cmd;

		snprintf(d->driver, sizeof(d->driver), "mlx5_core");
		d->n_stats = drv.listed;
	} else if (what == ETHTOOL_GSTRINGS) {
		struct ethtool_gstrings *g = cmd;

		assert_int_equal(g->string_set, ETH_SS_STATS);
		assert_int_equal(g->len, drv.listed);
		/* as the kernel does: the driver's count now, whatever len says */
		for (uint32_t i = 0; i < drv.answered; i++)
			strncpy((char *)g->data + i * ETH_GSTRING_LEN, mlx5_names[i % MLX5_N],
				ETH_GSTRING_LEN);
		g->len = drv.answered;
	} else if (what == ETHTOOL_GSTATS) {
		struct ethtool_stats *s = cmd;

		assert_int_equal(s->n_stats, drv.listed);
		for (uint32_t i = 0; i < drv.answered; i++)
			s->data[i] = 1000 + i;
		s->n_stats = drv.answered;
	} else {
		errno = EOPNOTSUPP;
		return -1;
	}
	return 0;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct ifreq *ifr;
	va_list ap;

	va_start(ap, req);
	ifr = va_arg(ap, struct ifreq *);
	va_end(ap);
	if (req == SIOCETHTOOL && !strcmp(ifr->ifr_name, "fake0"))
		return fake_ethtool(ifr->ifr_data);
	return __real_ioctl(fd, req, ifr);
}

static struct rt_portctrs *table(void)
{
	struct rt_portctrs *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	return t;
}

static const struct rt_portctr *find(const struct rt_portctrs *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->c[i].name, name))
			return &t->c[i];
	return NULL;
}

/* ---- the tests --------------------------------------------------------- */

/* From a list laid out as GSTRINGS answers it: the pause and discard
 * counters the table knows, as the driver's own (hw), congestion; not
 * their _duration and _transition kin, not traffic, not a name that
 * fills its 32 bytes. */
static void test_pick(void **state)
{
	struct rt_portctrs *t = table();
	char names[MLX5_N * ETH_GSTRING_LEN] = {0};
	unsigned long long values[MLX5_N];

	(void)state;
	for (size_t i = 0; i < MLX5_N; i++) {
		strncpy(names + i * ETH_GSTRING_LEN, mlx5_names[i], ETH_GSTRING_LEN);
		values[i] = 7 * i;
	}
	assert_int_equal(rt_ethctr_pick(names, values, MLX5_N, t), 6);
	assert_int_equal(t->n, 6);
	assert_int_equal(find(t, "rx_prio3_pause")->value, 21);
	assert_true(find(t, "rx_prio3_pause")->hw);
	assert_int_equal(find(t, "rx_prio3_pause")->cls, RT_PORTCTR_TRANSPORT);
	assert_int_equal(find(t, "tx_prio3_pause")->value, 35);
	assert_int_equal(find(t, "rx_discards_phy")->value, 63);
	assert_int_equal(find(t, "rx_prio7_pause")->value, 77);
	assert_non_null(find(t, "rx_pause_ctrl_phy"));
	assert_non_null(find(t, "tx_pause_ctrl_phy"));
	assert_null(find(t, "rx_prio3_pause_duration"));
	assert_null(find(t, "rx_packets"));
	for (int i = 0; i < t->n; i++)
		assert_true(rt_portctr_congestion(t->c[i].name));
	free(t);
}

/* A full table takes no more: they are counted in dropped. */
static void test_pick_full(void **state)
{
	struct rt_portctrs *t = table();
	char names[2 * ETH_GSTRING_LEN] = "rx_prio3_pause";
	unsigned long long values[2] = {1, 2};

	(void)state;
	strncpy(names + ETH_GSTRING_LEN, "tx_prio3_pause", ETH_GSTRING_LEN);
	t->n = RT_PORTCTR_MAX;
	assert_int_equal(rt_ethctr_pick(names, values, 2, t), 0);
	assert_int_equal(t->n, RT_PORTCTR_MAX);
	assert_int_equal(t->dropped, 2);
	free(t);
}

/* The netdev behind a RoCE port is its GID 0's; an InfiniBand port has
 * none; a name longer than a netdev's is not one. */
static void test_netdev(void **state)
{
	char root[64], sys_[96], ndev[IFNAMSIZ];

	(void)state;
	fake_root(root, sizeof(root), "test_ethctr");
	snprintf(sys_, sizeof(sys_), "%s/sys", root);
	fake_put(root, "sys/class/infiniband/mlx5_2/ports/1/gid_attrs/ndevs/0", "eth2");
	fake_put(root, "sys/class/infiniband/mlx5_3/ports/1/gid_attrs/ndevs/0",
		 "a_name_longer_than_ifnamsiz");
	assert_true(rt_ethctr_netdev(sys_, "mlx5_2", 1, ndev, sizeof(ndev)));
	assert_string_equal(ndev, "eth2");
	assert_false(rt_ethctr_netdev(sys_, "mlx5_0", 1, ndev, sizeof(ndev)));
	assert_false(rt_ethctr_netdev(sys_, "mlx5_3", 1, ndev, sizeof(ndev)));
	/* a tree that is not the running kernel's has no driver to ask */
	assert_true(rt_ethctr_live("/sys"));
	assert_false(rt_ethctr_live(sys_));
	drv.listed = drv.answered = MLX5_N;
	drv.calls = 0;
	fake_put(root, "sys/class/infiniband/mlx5_4/ports/1/gid_attrs/ndevs/0", "fake0");
	{
		struct rt_portctrs *t = table();

		assert_int_equal(rt_ethctr_add(sys_, "mlx5_4", 1, t), 0);
		assert_int_equal(t->n, 0);
		assert_int_equal(drv.calls, 0);
		free(t);
	}
	fake_remove(root);
}

/* The three calls against the fake mlx5 driver: its name, its count, the
 * known counters with their values. */
static void test_read(void **state)
{
	struct rt_portctrs *t = table();
	struct rt_ethctr_reading r;

	(void)state;
	drv.listed = drv.answered = 200;
	drv.calls = 0;
	assert_int_equal(rt_ethctr_read("fake0", t, &r), 0);
	assert_int_equal(drv.calls, 3);
	assert_string_equal(r.driver, "mlx5_core");
	assert_int_equal(r.listed, 200);
	assert_int_equal(r.kept, t->n);
	/* the names repeat every 12: the table keeps each one it meets */
	assert_true(t->n >= 6);
	assert_int_equal(find(t, "rx_prio3_pause")->value, 1003);
	assert_int_equal(find(t, "rx_discards_phy")->value, 1009);
	free(t);
}

/* A list that changed between the calls, one over the bound, and none:
 * refused with the cause, nothing added. */
static void test_read_refused(void **state)
{
	struct rt_portctrs *t = table();
	struct rt_ethctr_reading r;

	(void)state;
	drv.listed = 40;
	drv.answered = 39;
	assert_int_equal(rt_ethctr_read("fake0", t, &r), -1);
	assert_string_equal(r.why, "the statistics' count changed while read");
	assert_int_equal(t->n, 0);
	/* a list that grew: the kernel writes all of it (the sanitizers and
	 * valgrind see any write past the buffers), and it is refused */
	drv.answered = 4000;
	assert_int_equal(rt_ethctr_read("fake0", t, &r), -1);
	assert_string_equal(r.why, "the statistics' count changed while read");
	assert_int_equal(t->n, 0);
	drv.listed = drv.answered = RT_ETHCTR_STATS_MAX + 1;
	drv.calls = 0;
	assert_int_equal(rt_ethctr_read("fake0", t, &r), -1);
	assert_int_equal(drv.calls, 1); /* nothing allocated for it */
	assert_int_equal(r.listed, RT_ETHCTR_STATS_MAX + 1);
	assert_string_equal(r.why, "more statistics than rdmatest reads");
	drv.listed = drv.answered = 0;
	assert_int_equal(rt_ethctr_read("fake0", t, &r), -1);
	assert_int_equal(r.err, EOPNOTSUPP);
	assert_int_equal(t->n, 0);
	assert_int_equal(rt_ethctr_read("a_name_longer_than_ifnamsiz", t, &r), -1);
	assert_int_equal(r.err, EINVAL);
	free(t);
}

/* The running kernel: lo's driver lists no statistics, and a netdev that
 * does not exist is named by its errno. */
static void test_read_kernel(void **state)
{
	struct rt_portctrs *t = table();
	struct rt_ethctr_reading r;

	(void)state;
	assert_int_equal(rt_ethctr_read("lo", t, &r), -1);
	assert_int_equal(r.err, EOPNOTSUPP);
	assert_int_equal(t->n, 0);
	assert_int_equal(rt_ethctr_read("rt-nosuch0", t, &r), -1);
	assert_string_equal(r.why, "ETHTOOL_GDRVINFO");
	assert_int_equal(r.err, ENODEV);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_pick_full),
		cmocka_unit_test(test_netdev),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_refused),
		cmocka_unit_test(test_read_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
