#include <stdio.h>
#include <string.h>

#include "config.h"
#include "rdmatest/applet.h"
#include "rdmatest/run.h"

#define C(f) RT_OFF_INT(struct rt_common, f)
#define L(f) RT_OFF_LL(struct rt_common, f)

const struct rt_opt rt_common_opts[] = {
	{ 0, "json", RT_OPT_FLAG, C(json), 0, 0, NULL, NULL,
	  "print one JSON document with parameters, outcome and results on stdout; human text goes to stderr", NULL },
	{ 0, "timeout", RT_OPT_SECONDS, L(timeout_ms), 1, 86400000, "10", "SEC",
	  "bound on every single network wait (resolution, connect, each completion or data wait)", NULL },
	{ 0, "accept-timeout", RT_OPT_SECONDS, L(accept_timeout_ms), 0, 86400000, "0", "SEC",
	  "server/receiver: give up when no peer arrives within SEC (0: servers wait indefinitely, receivers use --timeout)", NULL },
	{ 0, "wait-server", RT_OPT_SECONDS, L(wait_server_ms), 0, 86400000, "0", "SEC",
	  "client: retry connecting while the server is not up yet, for at most SEC", NULL },
	{ 'q', "quiet", RT_OPT_FLAG, C(quiet), 0, 0, NULL, NULL,
	  "print nothing but errors (and the JSON document)", NULL },
	{ 0, "debug", RT_OPT_FLAG, C(debug), 0, 0, NULL, NULL,
	  "trace CM events, completions and state changes on stderr", NULL },
	{ 0 },
};

static void outcome_json(struct rt_json *j, const struct rt_error *e, int code)
{
	rt_json_key(j, "outcome");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "verdict", rt_exit_name(code));
	rt_json_kv_int(j, "exit_code", code);
	if (e->set) {
		rt_json_key(j, "error");
		rt_json_object_begin(j);
		rt_json_kv_string(j, "phase", e->phase[0] ? e->phase : NULL);
		rt_json_kv_string(j, "event", e->event[0] ? e->event : NULL);
		rt_json_kv_int(j, "status", e->status);
		rt_json_kv_int(j, "errno", e->err_no);
		rt_json_kv_string(j, "reason", e->reason);
		rt_json_object_end(j);
	}
	rt_json_object_end(j);
}

static void print_document(struct rt_run *run, int code)
{
	struct rt_json doc;

	rt_json_init(&doc);
	rt_json_object_begin(&doc);
	rt_json_kv_string(&doc, "tool", "rdmatest");
	rt_json_kv_string(&doc, "version", RT_VERSION);
	rt_json_kv_string(&doc, "applet", run->applet->name);
	rt_json_key(&doc, "params");
	rt_json_object_begin(&doc);
	rt_opt_to_json(&doc, run->tabs, 2);
	rt_json_object_end(&doc);
	outcome_json(&doc, &run->err, code);
	rt_json_finish(&run->results);
	rt_json_key(&doc, "results");
	rt_json_raw(&doc, run->results.len ? rt_json_text(&run->results) : "{}");
	rt_json_object_end(&doc);
	fflush(stderr);
	printf("%s\n", rt_json_text(&doc));
	rt_json_free(&doc);
}

int rt_run_finish(struct rt_run *run, int rc)
{
	int code = RT_EXIT_OK;

	if (rc && !run->err.set)
		rt_fail(&run->err, RT_EXIT_FAIL, "failed (no reason recorded)");
	if (run->err.set) {
		code = run->err.exit_code;
		rt_log_flush(&run->log);
		fprintf(stderr, "%s: %s\n", run->applet->name, run->err.reason);
	}
	if (run->common.json)
		print_document(run, code);
	fflush(stdout);
	return code;
}
