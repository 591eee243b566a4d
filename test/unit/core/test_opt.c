/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rdmatest/opt.h"

struct cfg {
	int server;
	int verbose;
	long long size;
	long long count;
	long long port;
	long long wait_ms;
	long long gbps; /* thousandths */
	const char *addr;
	int space;
};

static const struct rt_enum spaces[] = {
	{ "tcp", 0x106, "TCP port space" },
	{ "ib", 0x13f, "IB port space" },
	{ NULL, 0, NULL },
};

static const struct rt_enum all_word[] = { { "all", -1, "every size" }, { NULL, 0, NULL } };

#define I(f) RT_OFF_INT(struct cfg, f)
#define L(f) RT_OFF_LL(struct cfg, f)
#define S(f) RT_OFF_STR(struct cfg, f)

static const struct rt_opt opts[] = {
	{ 's', "server", RT_OPT_FLAG, I(server), 0, 0, NULL, NULL, "be the server", NULL },
	{ 'v', "verbose", RT_OPT_COUNTER, I(verbose), 0, 0, NULL, NULL, "more output", NULL },
	{ 'S', "size", RT_OPT_SIZE, L(size), 1, 1 << 30, "100", "SIZE", "message size", all_word },
	{ 'C', "count", RT_OPT_INT, L(count), 0, 1000000, "10", "N", "messages", NULL },
	{ 'p', "port", RT_OPT_PORT, L(port), 0, 0, "7471", "PORT", "port", NULL },
	{ 'w', "wait", RT_OPT_SECONDS, L(wait_ms), 0, 0, "2.5", "SEC", "wait", NULL },
	{ 'a', "addr", RT_OPT_ADDR, S(addr), 0, 0, NULL, "ADDR", "address", NULL },
	{ 0, "min-gbps", RT_OPT_DECIMAL, L(gbps), 0, 400000, "1.5", "GBPS", "floor", NULL },
	{ 'P', "port-space", RT_OPT_ENUM, I(space), 0, 0, "tcp", "PS", "port space", spaces },
	{ 0 },
};

static int parse(struct cfg *c, struct rt_error *e, struct rt_opt_table *t,
		 int argc, const char **argv)
{
	memset(c, 0, sizeof(*c));
	memset(e, 0, sizeof(*e));
	*t = (struct rt_opt_table){ opts, c, { 0 }, NULL, false };
	return rt_opt_parse(t, 1, argc, (char **)argv, e);
}

#define PARSE(...)                                                             \
	({                                                                     \
		const char *argv_[] = { "prog", __VA_ARGS__ };                 \
		parse(&c, &e, &t, (int)(sizeof(argv_) / sizeof(argv_[0])), argv_); \
	})

static void defaults_apply_without_arguments(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(parse(&c, &e, &t, 1, (const char *[]){ "prog" }), 0);
	assert_int_equal(c.size, 100);
	assert_int_equal(c.count, 10);
	assert_int_equal(c.port, 7471);
	assert_int_equal(c.wait_ms, 2500);
	assert_int_equal(c.space, 0x106);
	assert_null(c.addr);
	assert_int_equal(c.server, 0);
	assert_false(rt_opt_was_given(&t, "size"));
}

static void short_long_and_clustered_forms(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(PARSE("-svv", "-S4k", "--count=7", "--port", "99",
			       "-a", "192.0.2.1", "-P", "IB"), 0);
	assert_int_equal(c.server, 1);
	assert_int_equal(c.verbose, 2);
	assert_int_equal(c.size, 4096);
	assert_int_equal(c.count, 7);
	assert_int_equal(c.port, 99);
	assert_string_equal(c.addr, "192.0.2.1");
	assert_int_equal(c.space, 0x13f);
	assert_true(rt_opt_was_given(&t, "size"));
	assert_true(rt_opt_was_given(&t, "server"));
	assert_false(rt_opt_was_given(&t, "wait"));
}

static void numbers_sizes_and_words(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(PARSE("-S", "1m", "-C", "0x10", "-w", "0.25"), 0);
	assert_int_equal(c.size, 1 << 20);
	assert_int_equal(c.count, 16);
	assert_int_equal(c.wait_ms, 250);
	assert_int_equal(PARSE("-S", "all"), 0);
	assert_int_equal(c.size, -1);
	assert_int_equal(PARSE("-C", "010"), 0); /* decimal, not octal */
	assert_int_equal(c.count, 10);
	assert_int_equal(PARSE("-P", "0x13f"), 0); /* enum by number */
	assert_int_equal(c.space, 0x13f);
}

static void expect_usage(struct rt_error *e, const char *needle)
{
	assert_true(e->set);
	assert_int_equal(e->exit_code, RT_EXIT_USAGE);
	if (!strstr(e->reason, needle))
		fail_msg("reason '%s' lacks '%s'", e->reason, needle);
}

static void bad_input_is_a_usage_error_naming_the_option(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(PARSE("-S", "0"), -1);
	expect_usage(&e, "--size: 0 is out of range (1..1073741824)");
	assert_int_equal(PARSE("-S", "12q"), -1);
	expect_usage(&e, "--size: invalid value '12q'");
	assert_int_equal(PARSE("-S", "2g"), -1);
	expect_usage(&e, "out of range");
	assert_int_equal(PARSE("-S", "99999999999999999999"), -1);
	expect_usage(&e, "invalid value");
	assert_int_equal(PARSE("-p", "70000"), -1);
	expect_usage(&e, "--port: 70000 is out of range (1..65535)");
	assert_int_equal(PARSE("-C", "-1"), -1);
	expect_usage(&e, "--count: -1 is out of range");
	assert_int_equal(PARSE("-C", ""), -1);
	expect_usage(&e, "--count: invalid value ''");
	assert_int_equal(PARSE("-C", " 5"), -1);
	expect_usage(&e, "invalid value");
	assert_int_equal(PARSE("-w", "-1"), -1);
	expect_usage(&e, "--wait");
	assert_int_equal(PARSE("-w", "nan"), -1);
	expect_usage(&e, "--wait");
	assert_int_equal(PARSE("-P", "udp"), -1);
	expect_usage(&e, "--port-space: invalid value 'udp' (one of: tcp, ib)");
	assert_int_equal(PARSE("-x"), -1);
	expect_usage(&e, "unknown option '-x'");
	assert_int_equal(PARSE("--bogus"), -1);
	expect_usage(&e, "unknown option '--bogus'");
	assert_int_equal(PARSE("-S"), -1);
	expect_usage(&e, "option -S needs a value");
	assert_int_equal(PARSE("--size"), -1);
	expect_usage(&e, "option --size needs a value");
	assert_int_equal(PARSE("--server=1"), -1);
	expect_usage(&e, "option --server takes no value");
	assert_int_equal(PARSE("stray"), -1);
	expect_usage(&e, "unexpected argument 'stray'");
	assert_int_equal(PARSE("-a", ""), -1);
	expect_usage(&e, "--addr: empty address");
}

/* Found by test/fuzz/fuzz_numbers: " 5" was refused but strtoll and
 * strtod skip any leading white space, so "\t5", "\n1k" and " 2.5"
 * (seconds) were taken as numbers. */
static void white_space_is_never_a_number(void **state)
{
	static const char *const texts[] = { "\t5", "\n1k", "\v0x10", "\r7", "\f1", "-\t5" };
	static const enum rt_opt_kind kinds[] = { RT_OPT_INT, RT_OPT_SIZE, RT_OPT_PORT };
	long long v;

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!rt_parse_ll(texts[i], kinds[k], &v))
				fail_msg("kind %d took '%s' as %lld", (int)kinds[k], texts[i], v);
	assert_int_equal(rt_parse_ll(" 2.5", RT_OPT_SECONDS, &v), -1);
	assert_int_equal(rt_parse_ll("\t1", RT_OPT_SECONDS, &v), -1);
	assert_int_equal(rt_parse_ll("2.5", RT_OPT_SECONDS, &v), 0);
	assert_int_equal(v, 2500);
}

/* Thresholds such as --min-gbps 92.5 or a fraction 0.93: stored in
 * thousandths, range checked and named in those units. */
static void decimals_are_thousandths(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;
	long long v;

	(void)state;
	assert_int_equal(PARSE("--min-gbps", "92.5"), 0);
	assert_int_equal(c.gbps, 92500);
	assert_int_equal(PARSE("--min-gbps=0.001"), 0);
	assert_int_equal(c.gbps, 1);
	assert_int_equal(PARSE("--min-gbps", "7"), 0);
	assert_int_equal(c.gbps, 7000);
	assert_int_not_equal(PARSE("--min-gbps", "400.5"), 0);
	expect_usage(&e, "--min-gbps: 400.5 is out of range (0..400)");
	assert_int_not_equal(PARSE("--min-gbps", "-1"), 0);
	expect_usage(&e, "--min-gbps");
	assert_int_not_equal(PARSE("--min-gbps", "1,5"), 0);
	expect_usage(&e, "--min-gbps: invalid value '1,5'");
	assert_int_not_equal(PARSE("--min-gbps", "nan"), 0);
	assert_int_equal(rt_parse_ll(" 0.5", RT_OPT_DECIMAL, &v), -1);
	assert_int_equal(rt_parse_ll("0.93", RT_OPT_DECIMAL, &v), 0);
	assert_int_equal(v, 930);
}

/* An operand row with max 3 takes up to three words (mesh report
 * FILE...), after the one-word row before it; a fourth is refused. */
struct words {
	const char *cmd;
	const char *files[3];
	int verbose;
};

static const struct rt_opt word_opts[] = {
	{ 0, "cmd", RT_OPT_OPERAND, RT_OFF_STR(struct words, cmd), 0, 0, NULL, "CMD", "command", NULL },
	{ 0, "file", RT_OPT_OPERAND, RT_OFF_STR(struct words, files[0]), 0, 3, NULL, "FILE",
	  "files", NULL },
	{ 'v', "verbose", RT_OPT_FLAG, RT_OFF_INT(struct words, verbose), 0, 0, NULL, NULL, "more", NULL },
	{ 0 },
};

static int parse_words(struct words *w, struct rt_error *e, int argc, const char **argv)
{
	struct rt_opt_table t = { word_opts, w, { 0 }, NULL, false };

	memset(w, 0, sizeof(*w));
	memset(e, 0, sizeof(*e));
	return rt_opt_parse(&t, 1, argc, (char **)argv, e);
}

static void operand_of_several_words(void **state)
{
	const char *three[] = { "p", "report", "a", "-v", "b", "c" };
	const char *four[] = { "p", "report", "a", "b", "c", "d" };
	const char *empty[] = { "p", "report", "a", "" };
	struct rt_error e;
	struct words w;

	(void)state;
	assert_int_equal(rt_opt_table_check(word_opts, &e), 0);
	assert_int_equal(parse_words(&w, &e, 6, three), 0);
	assert_string_equal(w.cmd, "report");
	assert_string_equal(w.files[0], "a");
	assert_string_equal(w.files[1], "b");
	assert_string_equal(w.files[2], "c");
	assert_int_equal(w.verbose, 1);
	assert_int_not_equal(parse_words(&w, &e, 6, four), 0);
	expect_usage(&e, "unexpected argument 'd'");
	assert_int_not_equal(parse_words(&w, &e, 4, empty), 0);
	expect_usage(&e, "--file: empty");
}

static void double_dash_ends_options(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(PARSE("-s", "--"), 0);
	assert_int_equal(PARSE("-s", "--", "x"), -1);
	expect_usage(&e, "unexpected argument 'x'");
}

struct common { int quiet; int json; };
static const struct rt_opt common_opts[] = {
	{ 'q', "quiet", RT_OPT_FLAG, RT_OFF_INT(struct common, quiet), 0, 0, NULL, NULL, "quiet", NULL },
	{ 's', "json", RT_OPT_FLAG, RT_OFF_INT(struct common, json), 0, 0, NULL, NULL, "json", NULL },
	{ 0 },
};

static void earlier_table_owns_a_shared_letter(void **state)
{
	struct cfg c = { 0 };
	struct common k = { 0 };
	struct rt_error e = { 0 };
	struct rt_opt_table t[2] = { { opts, &c, { 0 }, NULL, false }, { common_opts, &k, { 0 }, NULL, false } };
	const char *argv[] = { "prog", "-s", "-q", "--json" };

	(void)state;
	assert_int_equal(rt_opt_parse(t, 2, 4, (char **)argv, &e), 0);
	assert_int_equal(c.server, 1); /* -s is the applet's */
	assert_int_equal(k.quiet, 1);
	assert_int_equal(k.json, 1);   /* the shadowed row keeps its long name */
	assert_int_equal(rt_opt_effective_letter(t, 2, 1, 1), 0);
	assert_int_equal(rt_opt_effective_letter(t, 2, 1, 0), 'q');
}

/* Upstream options rdmatest lacks are refused by name, exit 2, in every
 * form; the applet's refusal wins over a later table's letter. */
static void refused_options_are_named(void **state)
{
	static const struct rt_opt_refused refused[] = {
		{ 'R', "rdma_cm", NULL }, { 0, "use_cuda", "needs GPU memory (CUDA)" },
		{ 'q', NULL, NULL }, { 0, NULL, NULL },
	};
	static const struct { const char *arg, *want; } cases[] = {
		{ "-R", "option -R (--rdma_cm) is not supported by rdmatest" },
		{ "--rdma_cm", "option -R (--rdma_cm) is not supported by rdmatest" },
		{ "--use_cuda=0", "option --use_cuda is not supported by rdmatest: "
		  "needs GPU memory (CUDA)" },
		{ "-sq", "option -q is not supported by rdmatest" },
	};
	struct cfg c;
	struct common k;
	struct rt_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rt_opt_table t[2] = { { opts, &c, { 0 }, refused, false },
					     { common_opts, &k, { 0 }, NULL, false } };
		const char *argv[] = { "prog", cases[i].arg };

		memset(&c, 0, sizeof(c));
		memset(&k, 0, sizeof(k));
		memset(&e, 0, sizeof(e));
		assert_int_equal(rt_opt_parse(t, 2, 2, (char **)argv, &e), -1);
		expect_usage(&e, cases[i].want);
		assert_int_equal(k.quiet, 0);
	}
	{
		struct rt_opt_table t[2] = { { opts, &c, { 0 }, refused, false },
					     { common_opts, &k, { 0 }, NULL, false } };
		const char *argv[] = { "prog", "--cuda" };

		memset(&e, 0, sizeof(e));
		assert_int_equal(rt_opt_parse(t, 2, 2, (char **)argv, &e), -1);
		expect_usage(&e, "unknown option '--cuda'");
	}
}

/* Tables of applets whose upstream uses getopt_long take a unique
 * prefix of a long name, as glibc does: an exact name wins, names of one
 * option (one row, or refusals of one letter) are no ambiguity, names
 * that a row of the same name shadows are no candidates, and two options
 * are a usage error listing both. */
static int parse_prefixed(const char *arg, bool prefixes, struct cfg *c,
			  struct common *k, struct rt_error *e)
{
	static const struct rt_opt_refused refused[] = {
		{ 'R', "rdma_cm", NULL }, { 'Z', "zcopy", NULL }, { 'Z', "zcopy-old", NULL },
		{ 0, "size", NULL }, { 0, "countdown", NULL }, { 0, NULL, NULL },
	};
	struct rt_opt_table t[2] = { { opts, c, { 0 }, refused, prefixes },
				     { common_opts, k, { 0 }, NULL, prefixes } };
	const char *argv[] = { "prog", arg, "9" };

	memset(c, 0, sizeof(*c));
	memset(k, 0, sizeof(*k));
	memset(e, 0, sizeof(*e));
	return rt_opt_parse(t, 2, 3, (char **)argv, e) ? -1 : 0;
}

static void long_prefixes_as_getopt_long(void **state)
{
	struct cfg c;
	struct common k;
	struct rt_error e;

	(void)state;
	assert_int_equal(parse_prefixed("--verb", true, &c, &k, &e), -1);
	expect_usage(&e, "unexpected argument '9'"); /* --verb took no value */
	assert_int_equal(c.verbose, 1);
	assert_int_equal(parse_prefixed("--si", true, &c, &k, &e), 0);
	assert_int_equal(c.size, 9); /* the refused "size" is the row's shadow */
	assert_int_equal(parse_prefixed("--si=64", true, &c, &k, &e), -1);
	assert_int_equal(c.size, 64);
	assert_int_equal(parse_prefixed("--port", true, &c, &k, &e), 0);
	assert_int_equal(c.port, 9); /* exact, although "port-space" starts so */
	assert_int_equal(parse_prefixed("--po", true, &c, &k, &e), -1);
	expect_usage(&e, "option '--po' is ambiguous; possibilities: '--port' "
		     "'--port-space'");
	assert_int_equal(parse_prefixed("--count", true, &c, &k, &e), 0);
	assert_int_equal(c.count, 9);
	assert_int_equal(parse_prefixed("--cou", true, &c, &k, &e), -1);
	expect_usage(&e, "option '--cou' is ambiguous; possibilities: '--count' "
		     "'--countdown'");
	assert_int_equal(parse_prefixed("--qu", true, &c, &k, &e), -1);
	assert_int_equal(k.quiet, 1); /* the common table's row */
	assert_int_equal(parse_prefixed("--rdma", true, &c, &k, &e), -1);
	expect_usage(&e, "option -R (--rdma_cm) is not supported by rdmatest");
	assert_int_equal(parse_prefixed("--zc", true, &c, &k, &e), -1);
	expect_usage(&e, "option -Z (--zcopy) is not supported by rdmatest");
	assert_int_equal(parse_prefixed("--verb", false, &c, &k, &e), -1);
	expect_usage(&e, "unknown option '--verb'");
	assert_int_equal(parse_prefixed("--=1", true, &c, &k, &e), -1);
	expect_usage(&e, "unknown option '--'");
}

static void table_check_finds_mistakes(void **state)
{
	struct rt_error e = { 0 };
	struct cfg c;
	static const struct rt_opt dup_letter[] = {
		{ 'a', "one", RT_OPT_FLAG, RT_OFF_INT(struct cfg, server), 0, 0, NULL, NULL, "x", NULL },
		{ 'a', "two", RT_OPT_FLAG, RT_OFF_INT(struct cfg, verbose), 0, 0, NULL, NULL, "y", NULL },
		{ 0 },
	};
	static const struct rt_opt bad_default[] = {
		{ 'C', "count", RT_OPT_INT, RT_OFF_LL(struct cfg, count), 1, 5, "9", "N", "x", NULL },
		{ 0 },
	};
	static const struct rt_opt no_help[] = {
		{ 'C', "count", RT_OPT_INT, RT_OFF_LL(struct cfg, count), 1, 5, "2", "N", "", NULL },
		{ 0 },
	};

	(void)state, (void)c;
	assert_int_equal(rt_opt_table_check(opts, &e), 0);
	assert_int_equal(rt_opt_table_check(dup_letter, &e), -1);
	assert_non_null(strstr(e.reason, "-a used by --one and --two"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_opt_table_check(bad_default, &e), -1);
	assert_non_null(strstr(e.reason, "out of range"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_opt_table_check(no_help, &e), -1);
}

/* One row with the help text and default given; 0 when the check passes. */
static int check_help(enum rt_opt_kind kind, const char *def, const char *help)
{
	struct rt_opt row[2] = {
		{ 'S', "size", kind, RT_OFF_LL(struct cfg, size), 0, 1 << 30, def, "N", help, NULL },
		{ 0 },
	};
	struct rt_error e = { 0 };
	int rc = rt_opt_table_check(row, &e);

	if (rc)
		assert_non_null(strstr(e.reason, "--size: the help names the default"));
	return rc;
}

static void table_check_finds_a_repeated_default(void **state)
{
	(void)state;
	/* every wording of the value next to "default" is a repetition */
	assert_int_equal(check_help(RT_OPT_SIZE, "64", "ping size (default 64)"), -1);
	assert_int_equal(check_help(RT_OPT_SIZE, "64", "ping size; Default: 64 bytes"), -1);
	assert_int_equal(check_help(RT_OPT_INT, "64", "ping size, 64 by default"), -1);
	assert_int_equal(check_help(RT_OPT_INT, "64", "defaults to 64"), -1);
	/* the value as the parser reads it, in other units */
	assert_int_equal(check_help(RT_OPT_SIZE, "512k", "buffer (default 524288)"), -1);
	assert_int_equal(check_help(RT_OPT_SIZE, "524288", "buffer (default 512k)"), -1);
	assert_int_equal(check_help(RT_OPT_INT, "16", "default 0x10"), -1);
	/* a default of another thing, or the value without "default", is fine */
	assert_int_equal(check_help(RT_OPT_SIZE, "64", "ping size (0: the peer's default)"), 0);
	assert_int_equal(check_help(RT_OPT_SIZE, "64", "at most 64 bytes each"), 0);
	assert_int_equal(check_help(RT_OPT_SIZE, "64", "default size, at most 640 or 6.4k"), 0);
	assert_int_equal(check_help(RT_OPT_SIZE, NULL, "default 64"), 0);
}

static void help_and_json_come_from_the_table(void **state)
{
	struct cfg c;
	struct rt_error e;
	struct rt_opt_table t;
	struct rt_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(PARSE("-S", "64", "-a", "h\"x"), 0);
	rt_opt_help(f, &t, 1);
	fclose(f);
	assert_non_null(strstr(buf, "  -S, --size SIZE"));
	assert_non_null(strstr(buf, "message size (default 100)"));
	assert_non_null(strstr(buf, "port space (tcp|ib; default tcp)"));
	free(buf);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_opt_to_json(&j, &t, 1, NULL);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j),
		"{\"server\":false,\"verbose\":0,\"size\":64,\"count\":10,"
		"\"port\":7471,\"wait\":2.5,\"addr\":\"h\\\"x\",\"min-gbps\":1.5,\"port-space\":\"tcp\"}");
	rt_json_free(&j);
	/* a secret option (mesh --token) says it was given, never its value */
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_opt_to_json(&j, &t, 1, (const char *const[]){ "addr", NULL });
	rt_json_finish(&j);
	assert_non_null(strstr(rt_json_text(&j), "\"addr\":\"(given)\""));
	assert_null(strstr(rt_json_text(&j), "h\\\"x"));
	rt_json_free(&j);
}

/* A flag set (rstream's -T): occurrences add up, in any of three
 * spellings. Before the kind existed, -T was a string and "-T s -T v"
 * kept only the v: the run silently used rsockets. */
enum { F_SOCK = 1, F_ASYNC = 2, F_BLOCK = 4, F_VERIFY = 8 };
static const struct rt_enum modes[] = {
	{ "socket", F_SOCK, "kernel sockets" },
	{ "async", F_ASYNC, "poll first" },
	{ "block", F_BLOCK, "blocking" },
	{ "verify", F_VERIFY, "check data" },
	{ NULL, 0, NULL },
};
struct fcfg { int modes; int other; };
static const struct rt_opt flag_opts[] = {
	{ 'T', "test", RT_OPT_FLAGS, RT_OFF_INT(struct fcfg, modes), 0, 0, NULL, "MODES",
	  "test modes", modes },
	{ 'D', "dflt", RT_OPT_FLAGS, RT_OFF_INT(struct fcfg, other), 0, 0, "async", "MODES",
	  "modes with a default", modes },
	{ 0 },
};

static int parse_flags_argv(struct fcfg *c, struct rt_error *e, struct rt_opt_table *t,
			    int argc, const char **argv)
{
	memset(c, 0, sizeof(*c));
	memset(e, 0, sizeof(*e));
	*t = (struct rt_opt_table){ flag_opts, c, { 0 }, NULL, false };
	return rt_opt_parse(t, 1, argc, (char **)argv, e);
}

#define FPARSE(...)                                                            \
	({                                                                     \
		const char *argv_[] = { "prog", __VA_ARGS__ };                 \
		parse_flags_argv(&c, &e, &t, (int)(sizeof(argv_) / sizeof(argv_[0])), argv_); \
	})

static void flag_sets_accumulate(void **state)
{
	struct fcfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(FPARSE("-T", "s", "-T", "v"), 0);
	assert_int_equal(c.modes, F_SOCK | F_VERIFY);
	assert_int_equal(FPARSE("-Tsv"), 0);
	assert_int_equal(c.modes, F_SOCK | F_VERIFY);
	assert_int_equal(FPARSE("--test=socket,verify", "-T", "b"), 0);
	assert_int_equal(c.modes, F_SOCK | F_VERIFY | F_BLOCK);
	/* upstream's fixed-length prefix: "blocking" and "sockets" */
	assert_int_equal(FPARSE("-T", "Blocking", "-T", "sockets"), 0);
	assert_int_equal(c.modes, F_BLOCK | F_SOCK);
	assert_int_equal(FPARSE("-T", "v", "-T", "v"), 0);
	assert_int_equal(c.modes, F_VERIFY);
	assert_true(rt_opt_was_given(&t, "test"));
	/* the default stands until the first occurrence replaces it */
	assert_int_equal(FPARSE(), 0);
	assert_int_equal(c.modes, 0);
	assert_int_equal(c.other, F_ASYNC);
	assert_int_equal(FPARSE("-D", "v", "-D", "b"), 0);
	assert_int_equal(c.other, F_VERIFY | F_BLOCK);
}

static void flag_set_errors_name_the_option(void **state)
{
	struct fcfg c;
	struct rt_error e;
	struct rt_opt_table t;

	(void)state;
	assert_int_equal(FPARSE("-T", "q"), -1);
	expect_usage(&e, "--test: invalid value 'q' (any of: socket, async, block, verify");
	assert_int_equal(FPARSE("-T", "sq"), -1);
	expect_usage(&e, "invalid value 'sq'");
	assert_int_equal(FPARSE("-T", ""), -1);
	expect_usage(&e, "--test: invalid value ''");
	assert_int_equal(FPARSE("-T", "s,"), -1);
	expect_usage(&e, "--test: invalid value ''");
	assert_int_equal(FPARSE("-T", "turbo"), -1);
	expect_usage(&e, "invalid value 'turbo'");
	assert_int_equal(FPARSE("-T"), -1);
	expect_usage(&e, "option -T needs a value");
}

/* Help lines break between words before column 80, continuing under the
 * help column; hidden rows and dropped rows are not listed; a default
 * that is the only choice is said once. */
static void help_wraps_hides_and_drops(void **state)
{
	static const struct rt_enum only_rc[] = { { "RC", 0, "reliable" }, { 0 } };
	static const struct rt_opt opts[] = {
		{ 'c', "connection", RT_OPT_ENUM, RT_OFF_INT(struct cfg, space), 0, 0, "RC",
		  "TYPE", "connection type", only_rc },
		{ 0, "command", RT_OPT_STRING, RT_OFF_STR(struct cfg, addr), 0, 0, NULL,
		  "CMD", "internal", NULL },
		{ 'S', "size", RT_OPT_SIZE, RT_OFF_LL(struct cfg, size), 0, 0, NULL, "SIZE",
		  "a help text long enough that it cannot fit on one line of eighty "
		  "columns however it is put", NULL },
		{ 0 },
	};
	static const char *const hidden[] = { "command", NULL };
	struct rt_opt rows[RT_OPT_MAX_ROWS + 1];
	struct rt_opt_table t = { opts, NULL, { 0 }, NULL, false };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	rt_opt_help_except(f, &t, 1, hidden);
	fclose(f);
	assert_string_equal(buf,
		"  -c, --connection TYPE        connection type (only RC)\n"
		"  -S, --size SIZE              a help text long enough that it cannot fit on\n"
		"                               one line of eighty columns however it is put\n");
	free(buf);
	rt_opt_without(rows, opts, hidden);
	assert_int_equal(rt_opt_count(rows), 2);
	assert_string_equal(rows[1].name, "size");
}

/* A help that speaks of a default of its own besides the row's is said
 * twice once --help appends the row's. */
static void help_with_its_own_default_is_refused(void **state)
{
	static const struct rt_opt twice[] = {
		{ 'x', "gid-index", RT_OPT_INT, RT_OFF_LL(struct cfg, size), -1, 255, "-1",
		  "IDX", "GID index (default: none on IB)", NULL },
		{ 0 },
	};
	struct rt_error e = { 0 };

	(void)state;
	assert_int_equal(rt_opt_table_check(twice, &e), -1);
	assert_non_null(strstr(e.reason, "--gid-index: the help names the default"));
}

static void flag_set_help_json_and_checks(void **state)
{
	struct fcfg c;
	struct rt_error e;
	struct rt_opt_table t;
	struct rt_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	static const struct rt_enum clash[] = {
		{ "socket", 1, "x" }, { "sync", 2, "y" }, { NULL, 0, NULL },
	};
	static const struct rt_opt bad[] = {
		{ 'T', "test", RT_OPT_FLAGS, RT_OFF_INT(struct fcfg, modes), 0, 0, NULL,
		  "M", "modes", clash },
		{ 0 },
	};
	static const struct rt_opt none[] = {
		{ 'T', "test", RT_OPT_FLAGS, RT_OFF_INT(struct fcfg, modes), 0, 0, NULL,
		  "M", "modes", NULL },
		{ 0 },
	};

	(void)state;
	assert_int_equal(FPARSE("-T", "v", "-T", "s"), 0);
	rt_opt_help(f, &t, 1);
	fclose(f);
	if (!strstr(buf, "  -T, --test MODES             test modes "
			 "(any of socket,async,block,verify;\n"
			 "                               repeats add up)"))
		fail_msg("help: %s", buf);
	assert_non_null(strstr(buf, "default async"));
	free(buf);
	rt_json_init(&j);
	rt_json_object_begin(&j);
	rt_opt_to_json(&j, &t, 1, NULL);
	rt_json_finish(&j);
	assert_string_equal(rt_json_text(&j),
			    "{\"test\":[\"socket\",\"verify\"],\"dflt\":[\"async\"]}");
	rt_json_free(&j);
	assert_int_equal(rt_opt_table_check(flag_opts, &e), 0);
	assert_int_equal(rt_opt_table_check(bad, &e), -1);
	assert_non_null(strstr(e.reason, "'socket' and 'sync' share the letter s"));
	memset(&e, 0, sizeof(e));
	assert_int_equal(rt_opt_table_check(none, &e), -1);
	assert_non_null(strstr(e.reason, "without choices"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_apply_without_arguments),
		cmocka_unit_test(short_long_and_clustered_forms),
		cmocka_unit_test(numbers_sizes_and_words),
		cmocka_unit_test(bad_input_is_a_usage_error_naming_the_option),
		cmocka_unit_test(white_space_is_never_a_number),
		cmocka_unit_test(decimals_are_thousandths),
		cmocka_unit_test(operand_of_several_words),
		cmocka_unit_test(double_dash_ends_options),
		cmocka_unit_test(earlier_table_owns_a_shared_letter),
		cmocka_unit_test(refused_options_are_named),
		cmocka_unit_test(table_check_finds_mistakes),
		cmocka_unit_test(table_check_finds_a_repeated_default),
		cmocka_unit_test(help_and_json_come_from_the_table),
		cmocka_unit_test(flag_sets_accumulate),
		cmocka_unit_test(flag_set_errors_name_the_option),
		cmocka_unit_test(flag_set_help_json_and_checks),
		cmocka_unit_test(long_prefixes_as_getopt_long),
		cmocka_unit_test(help_wraps_hides_and_drops),
		cmocka_unit_test(help_with_its_own_default_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
