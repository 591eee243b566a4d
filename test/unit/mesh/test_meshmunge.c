/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A mesh run key through MUNGE (meshmunge.h), for real: the test starts
 * its own munged (munged(8)) in the foreground with a key of its own in a
 * temporary directory, and stops it by its pid. Where munged cannot
 * start, the round trips are skipped and say why; the checks of what
 * unmunge reports run either way, against small scripts that write
 * unmunge's --numeric output.
 * The munge package (munge, unmunge, munged, mungekey) is no build
 * dependency of the Debian package: installed in a build chroot, its
 * postinst could start a daemon there. Without the programs the tests
 * that need them are skipped with cmocka's skip and a message naming
 * them; ./check has them (scripts/packages installs munge for the
 * launchers suite). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "mesh/meshgather.h"
#include "mesh/meshmunge.h"
#include "mesh/meshseal.h"
#include "rdmatest/random.h"
#include "../afalg_fake.h"

static struct {
	char dir[40];
	char sock[80];
	pid_t munged; /* 0: none */
	char why[200];  /* why there is none */
} lab = { .dir = "/tmp/test_meshmunge.XXXXXX" };

static const uint8_t key[RT_MESH_AUTH_SECRET] = "a run key of exactly 32 bytes..";

static int spawn_wait(const char *const argv[])
{
	pid_t pid;
	int ws;

	if (posix_spawnp(&pid, argv[0], NULL, NULL, (char *const *)argv, environ))
		return -1;
	if (waitpid(pid, &ws, 0) < 0)
		return -1;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", lab.dir, name);
}

/* Whether PATH holds an executable name. */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[512];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name);
		if (n && access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

/* The programs of the munge package the round trips run, or NULL. */
static const char *missing_program(void)
{
	static const char *const need[] = { "munge", "unmunge", "munged", "mungekey" };

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!on_path(need[i]))
			return need[i];
	return NULL;
}

static int start_munged(void)
{
	char keyf[80], pidf[80], logf[80], seedf[80], a[5][100];
	const char *mk[] = { "mungekey", "--create", "--bits=1024", a[0], NULL };
	struct stat st;
	const char *missing = missing_program();

	if (missing) {
		snprintf(lab.why, sizeof(lab.why), "%s is not installed (the munge package)",
			 missing);
		return -1;
	}
	path(keyf, sizeof(keyf), "key");
	snprintf(a[0], sizeof(a[0]), "--keyfile=%s", keyf);
	if (spawn_wait(mk) != 0) {
		snprintf(lab.why, sizeof(lab.why), "mungekey --create failed or is missing");
		return -1;
	}
	path(lab.sock, sizeof(lab.sock), "sock");
	path(pidf, sizeof(pidf), "pid");
	path(logf, sizeof(logf), "log");
	path(seedf, sizeof(seedf), "seed");
	snprintf(a[0], sizeof(a[0]), "--socket=%s", lab.sock);
	snprintf(a[1], sizeof(a[1]), "--key-file=%s", keyf);
	snprintf(a[2], sizeof(a[2]), "--pid-file=%s", pidf);
	snprintf(a[3], sizeof(a[3]), "--log-file=%s", logf);
	snprintf(a[4], sizeof(a[4]), "--seed-file=%s", seedf);
	{
		/* --foreground: the pid spawned is munged's own, ours to stop;
		 * --force: it runs as root in a build container too */
		const char *argv[] = { "munged", "--foreground", "--force", a[0], a[1], a[2],
				       a[3], a[4], NULL };
		posix_spawn_file_actions_t fa;
		int rc;

		/* its log goes to its log file; the test's output stays the test's */
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		rc = posix_spawnp(&lab.munged, "munged", &fa, NULL, (char *const *)argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		if (rc) {
			lab.munged = 0;
			snprintf(lab.why, sizeof(lab.why), "munged is not installed");
			return -1;
		}
	}
	/* its socket within 5 s */
	for (int i = 0; i < 500; i++) {
		int ws;

		if (stat(lab.sock, &st) == 0)
			return 0;
		if (waitpid(lab.munged, &ws, WNOHANG) == lab.munged) {
			lab.munged = 0;
			snprintf(lab.why, sizeof(lab.why), "munged exited at start (see %s)", logf);
			return -1;
		}
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	snprintf(lab.why, sizeof(lab.why), "munged made no socket within 5 s");
	return -1;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(lab.dir))
		return -1;
	(void)start_munged();
	if (!lab.munged || lab.why[0])
		print_message("munged: none (%s): the round trips are skipped\n", lab.why);
	return 0;
}

static int teardown(void **state)
{
	char cmd[120];

	(void)state;
	if (lab.munged > 0) {
		kill(lab.munged, SIGTERM);
		waitpid(lab.munged, NULL, 0);
	}
	/* everything in it is this test's own */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", lab.dir);
	return system(cmd) ? -1 : 0;
}

static void need_munged(void)
{
	if (!lab.munged || lab.why[0]) {
		print_message("skipped: %s\n", lab.why);
		skip();
	}
}

static void round_trip(void **state)
{
	struct rt_mesh_munge m = { .socket = lab.sock, .job = "4242" };
	char cred[RT_MESH_MUNGE_CRED_MAX];
	uint8_t got[RT_MESH_AUTH_SECRET] = {0};
	struct rt_error err = {0};
	int n;

	(void)state;
	need_munged();
	n = rt_mesh_munge_seal(&m, key, cred, &err);
	if (n < 0)
		fail_msg("%s", err.reason);
	assert_int_equal((size_t)n, strlen(cred));
	assert_int_equal(strncmp(cred, "MUNGE:", 6), 0);
	/* the key is not in the credential's text */
	assert_null(strstr(cred, "6120"));
	if (rt_mesh_munge_open(&m, cred, (size_t)n, got, &err))
		fail_msg("%s", err.reason);
	assert_memory_equal(got, key, sizeof(key));

	/* munged takes a credential once: a replay is refused */
	assert_int_equal(rt_mesh_munge_open(&m, cred, (size_t)n, got, &err), -1);
	assert_non_null(strstr(err.reason, "MUNGE: unmunge refused the credential"));
	if (!strstr(err.reason, "eplayed"))
		fail_msg("%s", err.reason);
}

static void another_jobs_credential(void **state)
{
	struct rt_mesh_munge m = { .socket = lab.sock, .job = "17" };
	char cred[RT_MESH_MUNGE_CRED_MAX];
	uint8_t got[RT_MESH_AUTH_SECRET];
	struct rt_error err = {0};
	int n;

	(void)state;
	need_munged();
	n = rt_mesh_munge_seal(&m, key, cred, &err);
	assert_true(n > 0);
	m.job = "18";
	assert_int_equal(rt_mesh_munge_open(&m, cred, (size_t)n, got, &err), -1);
	assert_string_equal(err.reason, "MUNGE: the credential is for job '17', not this "
			    "one ('18')");
	/* a job id that is not one line of printable text is refused */
	err = (struct rt_error){0};
	m.job = "a b";
	assert_int_equal(rt_mesh_munge_seal(&m, key, cred, &err), -1);
	assert_non_null(strstr(err.reason, "not printable (0x20)"));
}

static void munged_not_running(void **state)
{
	char sock[100];
	struct rt_mesh_munge m = { .socket = sock };
	char cred[RT_MESH_MUNGE_CRED_MAX];
	struct rt_error err = {0};

	(void)state;
	path(sock, sizeof(sock), "no-such-socket");
	if (!on_path("munge")) {
		print_message("skipped: munge is not installed (the munge package)\n");
		skip();
	}
	assert_int_equal(rt_mesh_munge_seal(&m, key, cred, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_ENV);
	assert_non_null(strstr(err.reason, "MUNGE: munge failed (exit "));
	assert_non_null(strstr(err.reason, "no-such-socket"));
}

/* A script in the test's directory that writes text and exits 0. */
static void script(const char *name, const char *text, char *out, size_t n)
{
	FILE *f;

	path(out, n, name);
	f = fopen(out, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n%sEOF\n", text);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(out, 0700), 0);
}


static void unmunge_reports(const char *name, const char *text, const char *why)
{
	char prog[100];
	struct rt_mesh_munge m = { .job = "9" };
	const char *cred = "MUNGE:AAAA:";
	uint8_t got[RT_MESH_AUTH_SECRET];
	struct rt_error err = {0};
	int rc;

	m.unmunge = prog;
	script(name, text, prog, sizeof(prog));
	rc = rt_mesh_munge_open(&m, cred, strlen(cred), got, &err);
	if (!why) {
		if (rc)
			fail_msg("%s: %s", name, err.reason);
		assert_memory_equal(got, key, sizeof(key));
		return;
	}
	assert_int_equal(rc, -1);
	if (!strstr(err.reason, why))
		fail_msg("%s: want '%s', got '%s'", name, why, err.reason);
}

static void what_unmunge_says(void **state)
{
	char good[600], text[700];
	unsigned uid = (unsigned)getuid();
	char hex[65];

	(void)state;
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", key[i]);
	snprintf(good, sizeof(good), "STATUS:          0\nENCODE_HOST:     127.0.0.1\n"
		 "ENCODE_TIME:     1000\nDECODE_TIME:     1100\nTTL:             300\n"
		 "UID:             %u\nGID:             0\nLENGTH:          83\n\n"
		 "rdmatest-mesh 1 9 %s\n", uid, hex);
	unmunge_reports("good", good, NULL);

	snprintf(text, sizeof(text), "STATUS: 0\nENCODE_TIME: 1000\nDECODE_TIME: 1100\n"
		 "TTL: 300\nUID: %u\n\nrdmatest-mesh 1 9 %s\n", uid + 1, hex);
	snprintf(good, sizeof(good), "the credential comes from uid %u, not this job's user "
		 "(uid %u): not this job's rank 0", uid + 1, uid);
	unmunge_reports("stranger", text, good);

	snprintf(text, sizeof(text), "STATUS: 0\nENCODE_TIME: 1000\nDECODE_TIME: 1301\n"
		 "TTL: 300\nUID: %u\n\nrdmatest-mesh 1 9 %s\n", uid, hex);
	unmunge_reports("expired", text, "the credential ran out (encoded at 1000, TTL 300 s, "
			"decoded at 1301)");

	/* metadata the payload tries to supply does not count */
	snprintf(text, sizeof(text), "STATUS: 0\nENCODE_TIME: 1000\nDECODE_TIME: 1100\n"
		 "TTL: 300\n\nUID: %u\nrdmatest-mesh 1 9 %s\n", uid, hex);
	unmunge_reports("uid-in-payload", text, "wrote no STATUS, UID, TTL");

	snprintf(text, sizeof(text), "STATUS: 0\nENCODE_TIME: 1000\nDECODE_TIME: 1100\n"
		 "TTL: 300\nUID: %u\n\nrdmatest-mesh 1 9 %.63s\n", uid, hex);
	unmunge_reports("short-key", text, "the credential's key is not 64 hex digits");
	snprintf(text, sizeof(text), "STATUS: 0\nENCODE_TIME: 1000\nDECODE_TIME: 1100\n"
		 "TTL: 300\nUID: %u\n\nhello\n", uid);
	unmunge_reports("not-ours", text, "the credential holds no mesh run key");
}

static void bounded_wait_and_missing_program(void **state)
{
	char prog[100];
	struct rt_mesh_munge m = { .wait_ms = 300 };
	char cred[RT_MESH_MUNGE_CRED_MAX];
	struct rt_error err = {0};
	FILE *f;
	struct timespec t0, t1;

	(void)state;
	path(prog, sizeof(prog), "hang");
	f = fopen(prog, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexec sleep 30\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(prog, 0700), 0);
	m.munge = prog;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(rt_mesh_munge_seal(&m, key, cred, &err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(err.exit_code, RT_EXIT_TIMEOUT);
	assert_non_null(strstr(err.reason, "did not finish within 300 ms"));
	/* killed, not waited out */
	assert_true(t1.tv_sec - t0.tv_sec < 10);

	err = (struct rt_error){0};
	m.munge = "/nonexistent/munge";
	assert_int_equal(rt_mesh_munge_seal(&m, key, cred, &err), -1);
	assert_non_null(strstr(err.reason, "MUNGE: cannot run /nonexistent/munge"));
	err = (struct rt_error){0};
	assert_int_equal(rt_mesh_munge_open(&m, "hello", 5, (uint8_t *)cred, &err), -1);
	assert_string_equal(err.reason, "MUNGE: not a credential (5 bytes)");
}

/* The whole handshake under MUNGE: rank 0 (a child) draws a run key and
 * seals it for the rank, the rank opens it, both prove it, a sealed
 * VERDICT arrives. */
static void handshake_under_munge(void **state)
{
	struct rt_mesh_munge m = { .socket = lab.sock, .job = "77" };
	uint8_t run_key[RT_MESH_AUTH_SECRET], none[RT_MESH_AUTH_SECRET] = {0};
	struct rt_hmac mac = RT_HMAC_INIT;
	struct rt_mesh_auth a;
	struct rt_error err = {0};
	struct rt_meshmsg v;
	struct rt_oob o;
	int sv[2], ws;
	pid_t pid;

	(void)state;
	need_munged();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv), 0);
	assert_int_equal(rt_hmac_open(&mac, &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rt_meshmsg out = {.type = RT_MESHMSG_VERDICT};

		out.u.verdict.ready = 1;
		close(sv[0]);
		rt_oob_init(&o, 5000);
		o.fd = sv[1];
		if (rt_random_bytes(run_key, sizeof(run_key), &err) == 0) {
			rt_mesh_auth_init(&a, &mac, run_key, RT_MESH_AUTH_COORDINATOR, 0, 3);
			if (rt_mesh_seal_admit(&o, &a, &m, &err) == 0)
				rt_meshmsg_write_sealed(&o, &a, &out, &err);
		}
		if (err.set)
			fprintf(stderr, "rank 0: %s\n", err.reason);
		_exit(err.set ? 1 : 0);
	}
	close(sv[1]);
	rt_oob_init(&o, 5000);
	o.fd = sv[0];
	/* the rank knows no secret until the credential comes */
	rt_mesh_auth_init(&a, &mac, none, RT_MESH_AUTH_RANK, 1, 3);
	if (rt_mesh_seal_join(&o, &a, &m, &err) || rt_meshmsg_read_sealed(&o, &a, 3, &v, &err))
		fail_msg("%s", err.reason);
	assert_int_equal(v.type, RT_MESHMSG_VERDICT);
	assert_int_equal(v.u.verdict.ready, 1);
	assert_memory_not_equal(a.secret, none, sizeof(none));
	assert_int_equal(waitpid(pid, &ws, 0), pid);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	rt_oob_close(&o);
	rt_hmac_close(&mac);
}

/* The run's key under MUNGE, as mesh opens it, on the test's munged. */
static void munge_key(struct rt_mesh_key *k, bool coordinator)
{
	struct rt_mesh_key_env env = { .slurm_job = "77", .munge_here = true };
	struct rt_error err = { 0 };

	assert_int_equal(rt_mesh_key_mode(k, NULL, NULL, &env, &err), 0);
	assert_int_equal(k->mode, RT_MESH_AUTH_MUNGE);
	k->munge.socket = lab.sock;
	if (rt_mesh_key_open(k, NULL, coordinator, &err))
		fail_msg("%s", err.reason);
}

/* A rank of the gathering below, in a child: the credential rank 0
 * sends opened, the secret proved, its hello and the verdict sealed. */
static int munge_rank(unsigned port, uint32_t rank)
{
	struct rt_meshmsg m = { .type = RT_MESHMSG_HELLO,
				.u.hello = { .rank = rank, .size = 2, .port = 1 } };
	struct rt_error err = { 0 };
	struct rt_mesh_key k;
	struct rt_mesh_auth a;
	struct rt_oob o;

	munge_key(&k, false);
	snprintf(m.u.hello.host, sizeof(m.u.hello.host), "n%u", rank);
	rt_mesh_key_end(&k, &a, RT_MESH_AUTH_RANK, rank, 2);
	rt_oob_init(&o, 5000);
	if (rt_oob_connect(&o, "127.0.0.1", port, 2000, &err) ||
	    rt_mesh_seal_join(&o, &a, rt_mesh_key_munge(&k), &err) ||
	    rt_mesh_send(&o, &a, &m, &err) || rt_mesh_recv(&o, &a, 2, &m, &err)) {
		fprintf(stderr, "rank %u: %s\n", rank, err.reason);
		return 1;
	}
	return m.type == RT_MESHMSG_VERDICT && m.u.verdict.ready ? 0 : 2;
}

/* Rank 0's gathering under MUNGE (meshgather.h): each connection's
 * CHALLENGE answered with a credential sealed for it, then its proof and
 * its sealed hello; both ranks admitted, the verdict reaches them. */
static void gathering_under_munge(void **state)
{
	struct rt_meshmsg v = { .type = RT_MESHMSG_VERDICT, .u.verdict = { .ready = 1 } };
	struct rt_error err = { 0 };
	struct rt_mesh_gather gt;
	struct rt_mesh_agg g;
	struct rt_mesh_key key;
	struct rt_oob lis;
	pid_t pid[2];
	int ws;

	(void)state;
	need_munged();
	munge_key(&key, true);
	rt_oob_init(&lis, 1000);
	lis.backlog = RT_MESH_PENDING_MAX;
	assert_int_equal(rt_oob_listen(&lis, "127.0.0.1", 0, &err), 0);
	assert_int_equal(rt_mesh_agg_init(&g, 2, 0, &err), 0);
	fflush(NULL);
	for (uint32_t r = 0; r < 2; r++) {
		pid[r] = fork();
		if (pid[r] == 0)
			_exit(munge_rank(lis.port, r));
	}
	assert_int_equal(rt_mesh_gather_admit(&gt, lis.lfd, 2, 10000, 3000,
					      &(struct rt_mesh_admit){ .key = &key }, &g, &err), 0);
	assert_int_equal(gt.present, 2);
	assert_int_equal(g.nstrangers, 0);
	assert_int_equal(g.refused, 0);
	for (uint32_t r = 0; r < 2; r++) {
		assert_int_equal(rt_mesh_send(&gt.conn[r], &gt.auth[r], &v, &err), 0);
		assert_int_equal(waitpid(pid[r], &ws, 0), pid[r]);
		assert_true(WIFEXITED(ws));
		assert_int_equal(WEXITSTATUS(ws), 0);
	}
	rt_mesh_gather_close(&gt);
	rt_mesh_agg_free(&g);
	rt_oob_close(&lis);
	rt_mesh_key_close(&key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(handshake_under_munge),
		cmocka_unit_test(gathering_under_munge),
		cmocka_unit_test(another_jobs_credential),
		cmocka_unit_test(munged_not_running),
		cmocka_unit_test(what_unmunge_says),
		cmocka_unit_test(bounded_wait_and_missing_program),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
