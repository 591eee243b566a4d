/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshdoc.h"
#include "mesh/meshgather.h"
#include "mesh/meshtext.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/util.h"

/* A listener on loopback and an aggregate for n ranks. */
static void listen_for(struct rt_oob *lis, struct rt_mesh_agg *g, uint32_t n)
{
	struct rt_error err = {0};

	rt_oob_init(lis, 1000);
	lis->backlog = RT_MESH_PENDING_MAX;
	assert_int_equal(rt_oob_listen(lis, "127.0.0.1", 0, &err), 0);
	assert_int_equal(rt_mesh_agg_init(g, n, 0, &err), 0);
}

static int send_hello(struct rt_oob *o, unsigned port, uint32_t rank, uint32_t size)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO,
			       .u.hello = {.rank = rank, .size = size, .port = 1}};
	struct rt_error err = {0};

	snprintf(m.u.hello.host, sizeof(m.u.hello.host), "n%u", rank);
	rt_oob_init(o, 5000);
	return rt_oob_connect(o, "127.0.0.1", port, 2000, &err) ||
	       rt_meshmsg_write(o, &m, &err);
}

/* The child plays a messy cluster of 6 ranks: 0, 1 and 3 say hello (1
 * with its header and payload apart), 2 and 5 never come, one
 * connection sends garbage, one repeats rank 1, one is from another mesh
 * size, one stays silent. Then every rank present must get the verdict
 * over the channel gathered. */
static int messy_cluster(unsigned port)
{
	struct rt_oob ok[3], bad[4];
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO, .u.hello = {.rank = 1, .size = 6}};
	struct rt_error err = {0};
	uint8_t buf[RT_MESHMSG_MAX];
	size_t len;

	strcpy(m.u.hello.host, "n1");
	len = rt_meshmsg_encode(&m, buf);
	rt_oob_init(&ok[1], 5000);
	if (send_hello(&ok[0], port, 0, 6) || send_hello(&bad[0], port, 3, 7) ||
	    rt_oob_connect(&ok[1], "127.0.0.1", port, 2000, &err) ||
	    rt_oob_write(&ok[1], buf, 5, &err))
		return 10;
	rt_oob_init(&bad[1], 5000);
	rt_oob_init(&bad[2], 5000);
	if (rt_oob_connect(&bad[1], "127.0.0.1", port, 2000, &err) ||
	    rt_oob_write(&bad[1], "GET / HTTP/1.0\r\n\r\n", 18, &err) ||
	    rt_oob_connect(&bad[2], "127.0.0.1", port, 2000, &err))
		return 11;
	usleep(100000);
	if (rt_oob_write(&ok[1], buf + 5, len - 5, &err) ||
	    send_hello(&ok[2], port, 3, 6))
		return 12;
	usleep(100000);
	if (send_hello(&bad[3], port, 1, 6)) /* rank 1 again */
		return 13;
	for (int i = 0; i < 3; i++) {
		ok[i].timeout_ms = 5000;
		if (rt_meshmsg_read(&ok[i], 6, &m, &err) || m.type != RT_MESHMSG_VERDICT)
			return 20 + i;
		rt_oob_close(&ok[i]);
	}
	for (int i = 0; i < 4; i++)
		rt_oob_close(&bad[i]);
	return 0;
}

static void absent_and_refused(void **state)
{
	struct rt_oob lis;
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	struct rt_meshmsg v = {.type = RT_MESHMSG_VERDICT,
			       .u.verdict = {.bad_nodes = 0, .absent = 3}};
	uint64_t t0;
	int status;
	pid_t child;

	(void)state;
	listen_for(&lis, &g, 6);
	child = fork();
	if (child == 0)
		_exit(messy_cluster(lis.port));
	t0 = rt_now_ns();
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, 6, 2500, 600, &g, &err), 0);
	/* the deadline, not a hang, ended it: ranks 2, 4 and 5 never came */
	assert_true(rt_now_ns() - t0 >= 2400000000ull);
	assert_true(rt_now_ns() - t0 < 6000000000ull);
	assert_int_equal(gt.present, 3);
	assert_int_equal(gt.refused, 4); /* garbage, other size, silent, repeat */
	/* the two that spoke the protocol are named: the other size a
	 * stranger, the repeat a refusal; the first rank 1 stays */
	assert_int_equal(g.nstrangers, 1);
	assert_non_null(strstr(g.strangers[0].reason, "a mesh of 7"));
	assert_non_null(strstr(g.strangers[0].addr, "127.0.0.1"));
	assert_int_equal(g.refused, 1);
	assert_int_equal(g.refusals[0].rank, 1);
	assert_non_null(strstr(g.refusals[0].reason, "rank 1 is taken"));
	assert_true(g.nodes[0].present && g.nodes[1].present && g.nodes[3].present);
	assert_false(g.nodes[2].present || g.nodes[4].present || g.nodes[5].present);
	assert_string_equal(g.nodes[3].host, "n3");
	assert_int_equal(gt.conn[2].fd, -1);
	for (uint32_t r = 0; r < 6; r++)
		if (gt.conn[r].fd >= 0)
			assert_int_equal(rt_meshmsg_write(&gt.conn[r], &v, &err), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
}

/* When everybody comes, gathering ends at once, not at the deadline. */
static void everybody_early(void **state)
{
	struct rt_oob lis, c[4];
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	uint64_t t0;
	int status;
	pid_t child;

	(void)state;
	listen_for(&lis, &g, 4);
	child = fork();
	if (child == 0) {
		for (uint32_t r = 0; r < 4; r++)
			if (send_hello(&c[r], lis.port, 3 - r, 4))
				_exit(1);
		usleep(300000);
		_exit(0);
	}
	t0 = rt_now_ns();
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, 4, 20000, 2000, &g, &err), 0);
	assert_true(rt_now_ns() - t0 < 5000000000ull);
	assert_int_equal(gt.present, 4);
	assert_int_equal(gt.refused, 0);
	waitpid(child, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	memset(&err, 0, sizeof(err));
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, 4, 0, 10, &g, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	rt_oob_close(&lis);
}

/* SIGINT ends the gathering long before its deadline, with no error:
 * the rank that came is present, the others absent. */
static void interrupt_ends_gathering(void **state)
{
	struct rt_oob lis, c;
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	uint64_t t0;
	pid_t child;

	(void)state;
	listen_for(&lis, &g, 3);
	assert_int_equal(rt_interrupt_install(), 0);
	child = fork();
	if (child == 0) {
		if (send_hello(&c, lis.port, 1, 3))
			_exit(1);
		usleep(200000);
		_exit(kill(getppid(), SIGINT) != 0);
	}
	t0 = rt_now_ns();
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, 3, 20000, 10000, &g, &err), 0);
	assert_true(rt_now_ns() - t0 < 5000000000ull);
	assert_false(err.set);
	assert_int_equal(gt.present, 1);
	assert_int_equal(rt_interrupt_signal(), SIGINT);
	waitpid(child, NULL, 0);
	rt_interrupt_restore();
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
}

/* 300 idle connections come first, more than the pending slots: the
 * oldest are evicted as new ones come and the ranks behind them are
 * still admitted, long before the gathering's end. */
static void idle_connections_do_not_lock_out_ranks(void **state)
{
	struct rt_oob lis, c[3];
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	uint64_t t0;
	int status;
	pid_t child;

	(void)state;
	listen_for(&lis, &g, 3);
	child = fork();
	if (child == 0) {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)lis.port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

		for (int i = 0; i < 300; i++) {
			int fd = socket(AF_INET, SOCK_STREAM, 0);

			if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
				_exit(1);
		}
		for (uint32_t r = 0; r < 3; r++)
			if (send_hello(&c[r], lis.port, r, 3))
				_exit(2);
		usleep(6000000); /* the idle ones stay open past the gathering */
		_exit(0);
	}
	t0 = rt_now_ns();
	/* the gathering and a connection's bound both 5 s, as rt_mesh_lead
	 * sets them */
	assert_int_equal(rt_mesh_gather(&gt, lis.lfd, 3, 5000, 5000, &g, &err), 0);
	assert_int_equal(gt.present, 3);
	assert_true(rt_now_ns() - t0 < 4000000000ull);
	assert_int_equal(g.refused, 0); /* idle is not a refusal to name */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
}

static int send_claim(struct rt_oob *o, unsigned port, uint32_t rank,
		      uint64_t token, const char *host)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO,
			       .u.hello = {.rank = rank, .size = 3, .port = 1, .token = token}};
	struct rt_error err = {0};

	rt_strlcpy(m.u.hello.host, host, sizeof(m.u.hello.host));
	rt_oob_init(o, 5000);
	return rt_oob_connect(o, "127.0.0.1", port, 2000, &err) ||
	       rt_meshmsg_write(o, &m, &err);
}

/* Over loopback: rank 0 and a rank 1 that claims another host come with
 * the job's token; a second rank 1 with another job's token is a
 * stranger, and a rank 2 from an address the host list does not name is
 * refused by name. */
static int impostors(unsigned port)
{
	struct rt_oob c[4];

	if (send_claim(&c[0], port, 1, 0xbad, "n1") ||
	    send_claim(&c[1], port, 0, 42, "n0") ||
	    send_claim(&c[2], port, 1, 42, "evil.example") ||
	    send_claim(&c[3], port, 2, 42, "n2"))
		return 1;
	usleep(3000000);
	return 0;
}

static bool refused_for(const struct rt_mesh_agg *g, uint32_t rank, const char *why)
{
	for (uint32_t i = 0; i < g->refused && i < RT_MESH_REFUSED_LIST; i++)
		if (g->refusals[i].rank == rank && !strcmp(g->refusals[i].reason, why))
			return true;
	return false;
}

static void admits_only_this_job_from_its_host(void **state)
{
	char *names[] = {"localhost", "127.0.0.1", "192.0.2.4"};
	struct rt_hostlist hosts = {.n = 3, .names = names};
	struct rt_mesh_admit admit = {.token = 42, .hosts = &hosts};
	struct rt_oob lis;
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_error err = {0};
	int status;
	pid_t child;

	(void)state;
	listen_for(&lis, &g, 3);
	child = fork();
	if (child == 0)
		_exit(impostors(lis.port));
	assert_int_equal(rt_mesh_gather_admit(&gt, lis.lfd, 3, 1500, 1000, &admit, &g, &err), 0);
	assert_int_equal(gt.present, 2);
	assert_int_equal(g.refused, 1);
	assert_int_equal(g.nstrangers, 1);
	assert_string_equal(g.strangers[0].reason, "another job's token");
	assert_true(refused_for(&g, 2, "HELLO for rank 2 from 127.0.0.1, the host list says "
				"192.0.2.4 (192.0.2.4)"));
	/* partners are told the list's host, not the one the hello claimed */
	assert_string_equal(g.nodes[1].host, "127.0.0.1");
	assert_int_equal(gt.conn[2].fd, -1);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
}

/* A hello for a mesh of `size` with `token`, its version byte turned
 * with other_version. */
static int send_hello_as(struct rt_oob *o, unsigned port, uint32_t rank, uint32_t size,
			 uint64_t token, bool other_version)
{
	struct rt_meshmsg m = {.type = RT_MESHMSG_HELLO,
			       .u.hello = {.rank = rank, .size = size, .port = 1, .token = token}};
	struct rt_error err = {0};
	uint8_t buf[RT_MESHMSG_MAX];
	size_t len;

	snprintf(m.u.hello.host, sizeof(m.u.hello.host), "n%u", rank);
	len = rt_meshmsg_encode(&m, buf);
	if (other_version)
		buf[2]++;
	rt_oob_init(o, 5000);
	return rt_oob_connect(o, "127.0.0.1", port, 2000, &err) ||
	       rt_oob_write(o, buf, len, &err);
}

/* Strangers come first (another job's token, another version, another
 * mesh size), then the three ranks of the job; with `repeat`, a second
 * rank 1 of the job between them, which loses its place. */
static int strangers_then_ranks(unsigned port, bool repeat)
{
	struct rt_oob c[7];

	if (send_hello_as(&c[0], port, 1, 3, 0xbad, false) ||
	    send_hello_as(&c[1], port, 1, 3, 42, true) ||
	    send_hello_as(&c[2], port, 1, 4, 42, false))
		return 1;
	usleep(200000);
	if (send_hello_as(&c[3], port, 0, 3, 42, false) ||
	    send_hello_as(&c[4], port, 1, 3, 42, false))
		return 2;
	usleep(200000);
	if (repeat && send_hello_as(&c[5], port, 1, 3, 42, false))
		return 3;
	usleep(200000);
	if (send_hello_as(&c[6], port, 2, 3, 42, false))
		return 4;
	usleep(3000000);
	return 0;
}

/* Gathers the child's hellos with token 42, every pair of the three
 * ranks passing, and judges: the summary's text into text. */
static void gather_and_judge(struct rt_mesh_agg *g, bool repeat, char **text)
{
	struct rt_mesh_admit admit = {.token = 42};
	struct rt_mesh_limits lim = {0};
	struct rt_mesh_gather gt;
	struct rt_error err = {0};
	struct rt_oob lis;
	size_t len;
	FILE *f;
	int status;
	pid_t child;

	listen_for(&lis, g, 3);
	child = fork();
	if (child == 0)
		_exit(strangers_then_ranks(lis.port, repeat));
	assert_int_equal(rt_mesh_gather_admit(&gt, lis.lfd, 3, 3000, 1000, &admit, g, &err), 0);
	assert_int_equal(gt.present, 3);
	for (uint32_t a = 0; a < 3; a++)
		for (uint32_t b = a + 1; b < 3; b++) {
			struct rt_mesh_result r = {.a = a, .b = b, .status = RT_MESH_OK,
						   .flags = RT_MESH_HAS_RTT,
						   .rtt_p50_ns = 9000, .rtt_p99_ns = 12000};

			assert_int_equal(rt_mesh_agg_add(g, &r, &err), 0);
		}
	assert_int_equal(rt_mesh_judge(g, &lim, &err), 0);
	f = open_memstream(text, &len);
	rt_mesh_summary(f, g, &lim);
	fclose(f);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	rt_mesh_gather_close(&gt);
	rt_oob_close(&lis);
}

/* Anyone who reaches the port can send a hello: one that cannot show the
 * job's token is named, and the run stays READY. */
static void strangers_never_fail_the_run(void **state)
{
	struct rt_mesh_agg g;
	struct rt_json j;
	char *text;

	(void)state;
	gather_and_judge(&g, false, &text);
	assert_int_equal(g.refused, 0);
	assert_int_equal(g.nstrangers, 3);
	assert_true(g.ready);
	assert_non_null(strstr(text, "turned away (not in the verdict): another job's token\n"));
	assert_non_null(strstr(text, "version"));
	assert_non_null(strstr(text, "a hello of a mesh of 4, this one has 3\n"));
	assert_non_null(strstr(text, "stranger 127.0.0.1:"));
	assert_non_null(strstr(text, "READY\n"));
	assert_null(strstr(text, "NOT READY"));
	rt_json_init(&j);
	rt_mesh_document(&j, &g, &(struct rt_mesh_limits){0}, NULL);
	assert_non_null(strstr(rt_json_text(&j), "\"strangers\":{\"count\":3,\"list\":[{\"addr\":\"127.0.0.1:"));
	assert_non_null(strstr(rt_json_text(&j), "\"verdict\":\"READY\""));
	rt_json_free(&j);
	free(text);
	rt_mesh_agg_free(&g);
}

/* A hello with the job's token that loses its place (rank 1 again) is a
 * real rank's: the run is NOT READY. */
static void a_ranks_refusal_still_fails_the_run(void **state)
{
	struct rt_mesh_agg g;
	char *text;

	(void)state;
	gather_and_judge(&g, true, &text);
	assert_int_equal(g.nstrangers, 3);
	assert_int_equal(g.refused, 1);
	assert_non_null(strstr(g.refusals[0].reason, "rank 1 is taken"));
	assert_false(g.ready);
	assert_non_null(strstr(text, "NOT READY"));
	free(text);
	rt_mesh_agg_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(absent_and_refused),
		cmocka_unit_test(everybody_early),
		cmocka_unit_test(interrupt_ends_gathering),
		cmocka_unit_test(idle_connections_do_not_lock_out_ranks),
		cmocka_unit_test(admits_only_this_job_from_its_host),
		cmocka_unit_test(strangers_never_fail_the_run),
		cmocka_unit_test(a_ranks_refusal_still_fails_the_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
