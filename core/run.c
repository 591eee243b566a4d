/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rdmatest/interrupt.h"
#include "rdmatest/run.h"
#include "rdmatest/util.h"

#define RT_CFG struct rt_common

const struct rt_opt rt_common_opts[] = {
	{ 0, "json", RT_OPT_FLAG, RT_I(json), 0, 0, NULL, NULL,
	  "print one JSON document with parameters, outcome and results on stdout; human text goes to stderr", NULL },
	{ 0, "timeout", RT_OPT_SECONDS, RT_L(timeout_ms), 1, 86400000, "10", "SEC",
	  "bound on every single network wait (resolution, connect, each completion or data wait)", NULL },
	{ 0, "accept-timeout", RT_OPT_SECONDS, RT_L(accept_timeout_ms), 0, 86400000, "0", "SEC",
	  "server/receiver: give up when no peer arrives within SEC (0: servers wait indefinitely, receivers use --timeout)", NULL },
	{ 0, "wait-server", RT_OPT_SECONDS, RT_L(wait_server_ms), 0, 86400000, "0", "SEC",
	  "client: retry connecting while the server is not up yet, for at most SEC", NULL },
	{ 'q', "quiet", RT_OPT_FLAG, RT_I(quiet), 0, 0, NULL, NULL,
	  "print nothing but errors (and the JSON document)", NULL },
	{ 0, "debug", RT_OPT_FLAG, RT_I(debug), 0, 0, NULL, NULL,
	  "trace CM events, completions and state changes on stderr", NULL },
	{ 0 },
};

static void outcome_json(struct rt_json *j, const struct rt_error *e, int code,
			 int sig)
{
	rt_json_key(j, "outcome");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "verdict", rt_exit_name(code));
	rt_json_kv_int(j, "exit_code", code);
	rt_json_kv_bool(j, "interrupted", sig != 0);
	if (sig)
		rt_json_kv_string(j, "signal", rt_interrupt_name(sig));
	if (e->set) {
		rt_json_key(j, "error");
		rt_json_object_begin(j);
		rt_json_kv_string(j, "phase", e->phase[0] ? e->phase : NULL);
		rt_json_kv_string(j, "event", e->event[0] ? e->event : NULL);
		rt_json_kv_int(j, "status", e->status);
		rt_json_kv_int(j, "errno", e->err_no);
		rt_json_kv_string(j, "reason", e->reason);
		if (e->hint[0]) /* only where doctor has a finding (applet.c) */
			rt_json_kv_string(j, "hint", e->hint);
		rt_json_object_end(j);
	}
	rt_json_object_end(j);
}

/* The document's head, up to and with the key "results". */
static void head(struct rt_json *doc, struct rt_run *run, const struct rt_error *e,
		 int code, int sig)
{
	rt_json_init(doc);
	rt_json_object_begin(doc);
	rt_json_kv_string(doc, "tool", "rdmatest");
	rt_json_kv_string(doc, "version", RT_VERSION);
	rt_json_kv_string(doc, "applet", run->name);
	rt_json_key(doc, "params");
	rt_json_object_begin(doc);
	rt_opt_to_json(doc, run->tabs, 2, run->secret_opts);
	rt_json_object_end(doc);
	outcome_json(doc, e, code, sig);
	rt_json_key(doc, "results");
}

/* The whole document, one line; results is finished (closed) here. */
static char *document(struct rt_run *run, const struct rt_error *e, int code,
		      int sig, struct rt_json *results)
{
	struct rt_json doc;
	char *text;

	head(&doc, run, e, code, sig);
	rt_json_finish(results);
	rt_json_raw(&doc, results->len ? rt_json_text(results) : "{}");
	rt_json_object_end(&doc);
	text = rt_xmalloc(doc.len + 2);
	snprintf(text, doc.len + 2, "%s\n", rt_json_text(&doc));
	rt_json_free(&doc);
	return text;
}

/* The same document written onto out as it is made, run->stream's
 * member going out piece by piece: the bytes document() would give. */
static void write_document(struct rt_run *run, int code, int sig, FILE *out)
{
	struct rt_json doc, *results = &run->results;

	head(&doc, run, &run->err, code, sig);
	rt_json_flush(&doc, out);
	rt_json_free(&doc);
	if (run->stream.write)
		run->stream.write(run->stream.ctx, results, out);
	rt_json_finish(results);
	fputs(results->len || results->flushed ? rt_json_text(results) : "{}", out);
	fputs("}\n", out);
}

/* Last words for an exit from a signal handler: the run as it stands,
 * failed with `reason`. The results are copied, so the run's own stay
 * open for more rows if the exit never comes. */
static void last_words(void *ctx, int code, const char *reason, char **line,
		       char **doc)
{
	struct rt_run *run = ctx;
	struct rt_error e = run->err;
	struct rt_json results;
	size_t len = strlen(run->name) + strlen(reason) + 4;

	if (!e.set)
		rt_fail(&e, code, "%s", reason);
	*line = rt_xmalloc(len);
	snprintf(*line, len, "%s: %s\n", run->name, reason);
	*doc = NULL;
	if (!run->common.json)
		return;
	rt_json_copy(&results, &run->results);
	*doc = document(run, &e, e.exit_code, rt_interrupt_signal(), &results);
	rt_json_free(&results);
}

void rt_run_start(struct rt_run *run)
{
	rt_interrupt_install();
	rt_last_words_source(last_words, run);
}

/* An interrupt that ends a run whose normal end it is (rping -C 0, a
 * server that serves until stopped) leaves the verdict to what happened
 * before it; any other interrupted run is "interrupted", 128 + signal. */
static void judge(struct rt_run *run, int rc, int sig)
{
	if (sig && !run->err.set && !run->interrupt_is_end)
		rt_interrupt_record(&run->err, sig);
	if (rc && !run->err.set && !sig)
		rt_fail(&run->err, RT_EXIT_FAIL, "failed (no reason recorded)");
}

int rt_run_finish(struct rt_run *run, int rc)
{
	int sig = rt_interrupt_signal(), code = RT_EXIT_OK;

	judge(run, rc, sig);
	if (run->err.set) {
		code = run->err.exit_code;
		rt_log_flush(&run->log);
		if (!run->err.silent)
			fprintf(stderr, "%s: %s\n", run->name, run->err.reason);
		if (run->err.hint[0] && !run->err.silent)
			fprintf(stderr, "%s: hint: %s\n", run->name, run->err.hint);
	}
	if (run->common.json) {
		fflush(stderr);
		write_document(run, code, sig, stdout);
	}
	if (run->stream.release)
		run->stream.release(run->stream.ctx);
	run->stream = (struct rt_run_stream){0};
	fflush(stdout);
	rt_last_words_source(NULL, NULL);
	rt_last_words_clear();
	rt_interrupt_restore();
	return code;
}

long long rt_run_accept_bound(const struct rt_run *run)
{
	return run->common.accept_timeout_ms > 0 ? run->common.accept_timeout_ms : -1;
}
