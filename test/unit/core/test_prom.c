/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* core/prom: the exposition text (names, escapes, numbers), misuse that
 * fails the write, and the atomic replace: a reader never sees a partial
 * file, and a directory that cannot take it gives one error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdmatest/prom.h"

static void families_and_samples(void **state)
{
	struct rt_prom p;

	(void)state;
	rt_prom_init(&p);
	rt_prom_gauge(&p, "rt_a", "help with \\ and\nnewline \"quoted\"");
	rt_prom_sample(&p, NULL, 3);
	rt_prom_sample(&p, (const char *const[]){ "dev", "mlx5_0", "port", "1", NULL }, 0.5);
	rt_prom_gauge(&p, "rt_b:sum", "x");
	rt_prom_sample(&p, NULL, NAN);
	rt_prom_sample(&p, NULL, INFINITY);
	rt_prom_sample(&p, NULL, 1795726096);
	assert_string_equal(p.buf,
		"# HELP rt_a help with \\\\ and\\nnewline \"quoted\"\n"
		"# TYPE rt_a gauge\n"
		"rt_a 3\n"
		"rt_a{dev=\"mlx5_0\",port=\"1\"} 0.5\n"
		"# HELP rt_b:sum x\n# TYPE rt_b:sum gauge\n"
		"rt_b:sum NaN\nrt_b:sum +Inf\nrt_b:sum 1795726096\n");
	assert_string_equal(p.problem, "");
	rt_prom_free(&p);
}

static void label_values_escaped(void **state)
{
	struct rt_prom p;

	(void)state;
	rt_prom_init(&p);
	rt_prom_gauge(&p, "m", "h");
	rt_prom_sample(&p, (const char *const[]){ "l", "a\\b\"c\nd\xff\xc3\xa9", NULL }, 1);
	assert_string_equal(p.buf + strlen("# HELP m h\n# TYPE m gauge\n"),
			    "m{l=\"a\\\\b\\\"c\\nd?\xc3\xa9\"} 1\n");
	rt_prom_free(&p);
	/* a surrogate and an overlong form are not UTF-8 (node-exporter would
	 * refuse the whole file): each byte of them is replaced */
	rt_prom_init(&p);
	rt_prom_gauge(&p, "m", "h");
	rt_prom_sample(&p, (const char *const[]){ "l", "x\xed\xa0\x80y\xe0\x80\xafz", NULL }, 1);
	assert_string_equal(p.buf + strlen("# HELP m h\n# TYPE m gauge\n"),
			    "m{l=\"x???y???z\"} 1\n");
	rt_prom_free(&p);
}

static void names_checked(void **state)
{
	(void)state;
	assert_true(rt_prom_metric_name_ok("rdmatest_doctor_check"));
	assert_true(rt_prom_metric_name_ok("a:b_c9"));
	assert_false(rt_prom_metric_name_ok("9a"));
	assert_false(rt_prom_metric_name_ok("a-b"));
	assert_false(rt_prom_metric_name_ok(""));
	assert_true(rt_prom_label_name_ok("device"));
	assert_false(rt_prom_label_name_ok("a:b"));
	assert_false(rt_prom_label_name_ok("__name__"));
	assert_false(rt_prom_label_name_ok("é"));
}

/* A bad name or a sample without a family fails the write, naming it. */
static void misuse_fails_the_write(void **state)
{
	struct rt_prom p;
	struct rt_error err = { 0 };

	(void)state;
	rt_prom_init(&p);
	rt_prom_sample(&p, NULL, 1);
	rt_prom_gauge(&p, "bad-name", "h");
	assert_int_equal(rt_prom_write(&p, "--prom", "/tmp/never.prom", &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_string_equal(err.reason, "--prom /tmp/never.prom: a sample outside a valid metric family");
	rt_prom_free(&p);
	rt_prom_init(&p);
	rt_prom_gauge(&p, "m", "h");
	rt_prom_sample(&p, (const char *const[]){ "__x", "v", NULL }, 1);
	assert_string_equal(p.problem, "invalid label '__x' of m");
	rt_prom_free(&p);
}

static void bounded(void **state)
{
	struct rt_prom p;

	(void)state;
	rt_prom_init(&p);
	rt_prom_gauge(&p, "m", "h");
	for (int i = 0; i < 200000 && !p.problem[0]; i++)
		rt_prom_sample(&p, (const char *const[]){ "l", "0123456789", NULL }, i);
	assert_true(p.len < RT_PROM_MAX_BYTES);
	assert_string_equal(p.problem, "more than 1048576 bytes of metrics");
	rt_prom_free(&p);
}

static char dir[] = "/tmp/test_prom.XXXXXX";

static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;

	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* Version v: n samples, then an end line that says how many. */
static void version(struct rt_prom *p, int v, int n)
{
	char end[32];

	rt_prom_init(p);
	rt_prom_gauge(p, "m", "h");
	for (int i = 0; i < n; i++)
		rt_prom_sample(p, NULL, v);
	snprintf(end, sizeof(end), "%d", n);
	rt_prom_gauge(p, "end", end);
}

/* A writer replaces the file over and over with versions of different
 * sizes; every read sees one whole version (its end line is there and
 * the length is that version's), never a mix or a prefix. */
static void reader_never_sees_a_partial_file(void **state)
{
	char path[64], buf[1 << 18];
	struct rt_prom a, b;
	struct rt_error err = { 0 };
	pid_t w;
	int status;

	(void)state;
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	version(&a, 1, 1000);
	version(&b, 2, 20000);
	assert_int_equal(rt_prom_write(&a, "--prom", path, &err), 0);
	w = fork();
	if (w == 0) {
		for (int i = 0; i < 400; i++)
			if (rt_prom_write(i % 2 ? &a : &b, "--prom", path, &err))
				_exit(1);
		_exit(0);
	}
	for (int i = 0; i < 400; i++) {
		FILE *f = fopen(path, "r");
		size_t n;

		assert_non_null(f);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		assert_true((n == a.len && !strcmp(buf, a.buf)) || (n == b.len && !strcmp(buf, b.buf)));
	}
	assert_int_equal(waitpid(w, &status, 0), w);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(entries(), 1); /* no temporary file left */
	rt_prom_free(&a);
	rt_prom_free(&b);
}

static void written_readable_by_others(void **state)
{
	char path[64];
	struct rt_prom p;
	struct rt_error err = { 0 };
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/mode.prom", dir);
	version(&p, 1, 1);
	assert_int_equal(rt_prom_write(&p, "--prom", path, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(unlink(path), 0);
	rt_prom_free(&p);
}

/* No such directory, a file in place of the directory, a directory in
 * place of the file: one error naming option, path and cause, exit 2,
 * and nothing left behind. */
static void failing_directory(void **state)
{
	char path[96], file[64];
	struct rt_prom p;
	struct rt_error err = { 0 };
	int before;

	(void)state;
	version(&p, 1, 1);
	snprintf(path, sizeof(path), "%s/none/m.prom", dir);
	assert_int_equal(rt_prom_write(&p, "--prom", path, &err), -1);
	assert_int_equal(err.exit_code, RT_EXIT_USAGE);
	assert_non_null(strstr(err.reason, "/none/m.prom: No such file or directory"));
	assert_int_equal(strncmp(err.reason, "--prom /tmp/test_prom.", 22), 0);

	snprintf(file, sizeof(file), "%s/file", dir);
	fclose(fopen(file, "w"));
	snprintf(path, sizeof(path), "%s/m.prom", file);
	err = (struct rt_error){ 0 };
	assert_int_equal(rt_prom_write(&p, "--prom", path, &err), -1);
	assert_non_null(strstr(err.reason, ": Not a directory"));

	snprintf(path, sizeof(path), "%s/sub.prom", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	before = entries();
	err = (struct rt_error){ 0 };
	assert_int_equal(rt_prom_write(&p, "--prom", path, &err), -1);
	assert_non_null(strstr(err.reason, "sub.prom: Is a directory"));
	assert_int_equal(entries(), before);
	rmdir(path);
	unlink(file);
	rt_prom_free(&p);
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char path[64];

	(void)state;
	snprintf(path, sizeof(path), "%s/m.prom", dir);
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(families_and_samples),
		cmocka_unit_test(label_values_escaped),
		cmocka_unit_test(names_checked),
		cmocka_unit_test(misuse_fails_the_write),
		cmocka_unit_test(bounded),
		cmocka_unit_test(reader_never_sees_a_partial_file),
		cmocka_unit_test(written_readable_by_others),
		cmocka_unit_test(failing_directory),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
