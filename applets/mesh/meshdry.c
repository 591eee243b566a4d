/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mesh --dry-run's output (meshdry.h). */
#include <stdio.h>

#include "mesh/meshdry.h"
#include "mesh/meshkey.h"
#include "rdmatest/json.h"

/* Name by name onto one line: the list has no joined copy to hand rt_say. */
static void say_hosts(FILE *out, const struct rt_hostlist *h)
{
	fputs("hosts:", out);
	for (uint32_t i = 0; i < h->n; i++)
		fprintf(out, "%s%s", i ? "," : " ", h->names[i]);
	fputs(h->n ? "\n" : " (none)\n", out);
}

/* --dry-run: the plan a real run would start from, so that a launcher's
 * set-up can be checked on every host before the cluster is booked. */
static void dry_run_text(struct rt_run *run, const struct rt_mesh_plan *p,
			 const struct rt_launch *l)
{
	rt_say(&run->log, "launcher: %s", rt_launcher_name(l->via));
	rt_say(&run->log, "rank: %u", p->rank);
	rt_say(&run->log, "size: %u", p->size);
	if (!run->log.quiet)
		say_hosts(run->log.human, &l->hosts);
	rt_say(&run->log, "coordinator: %s", p->coord_host);
	rt_say(&run->log, "port: %u", p->coord_port);
	rt_say(&run->log, "schedule: %s", rt_sched_kind_name(p->kind));
	rt_say(&run->log, "auth: %s (%s)", rt_mesh_auth_mode_name(p->key->mode), p->key->why);
	rt_say(&run->log, "bounds: a pair's test %lld s, joining %lld s", p->timeout_ms / 1000,
	       rt_mesh_join_ms(p) / 1000);
	if (p->budget_ms)
		rt_say(&run->log, "budget: %.3g minutes", (double)p->budget_ms / 60000.0);
	if (p->pattern && p->kind == RT_SCHED_INCAST)
		rt_say(&run->log, "pattern: %s: every host a receiver in turn, %u senders into it "
		       "at once", p->pattern, p->fan_in);
	else if (p->pattern && p->kind == RT_SCHED_ALLTOALL)
		rt_say(&run->log, "pattern: %s: every host sending to %u partners and sent to by "
		       "%u at once%s", p->pattern, p->fan_in, p->fan_in,
		       p->budget_ms ? ", rounds while the budget lasts" : "");
	else if (p->pattern)
		rt_say(&run->log, "pattern: %s: %s, every pair of a round at once, bandwidth both "
		       "ways at once", p->pattern, p->matchings ? "random matchings" :
		       "random matchings while the budget lasts");
	if (p->qps > 1)
		rt_say(&run->log, "qps: %u connections a rail", p->qps);
	if (p->matchings)
		rt_say(&run->log, "rounds: %u", p->matchings);
	/* a fingerprint that the ranks can compare, never the token itself */
	if (l->token)
		rt_say(&run->log, "token: %08x (%s)", (unsigned)(l->token >> 32), l->token_from);
	else
		rt_say(&run->log, "token: none (any hello is admitted)");
}

static void token_json(struct rt_json *j, const struct rt_launch *l)
{
	char fp[16];

	rt_json_key(j, "token");
	if (!l->token) {
		rt_json_null(j);
		return;
	}
	snprintf(fp, sizeof(fp), "%08x", (unsigned)(l->token >> 32));
	rt_json_object_begin(j);
	rt_json_kv_string(j, "fingerprint", fp);
	rt_json_kv_string(j, "from", l->token_from);
	rt_json_object_end(j);
}

int rt_mesh_dry_run(struct rt_run *run, const struct rt_mesh_plan *p, const struct rt_launch *l)
{
	struct rt_json *j = &run->results;

	dry_run_text(run, p, l);
	rt_json_key(j, "launch");
	rt_json_object_begin(j);
	rt_json_kv_string(j, "launcher", rt_launcher_name(l->via));
	rt_json_kv_uint(j, "rank", p->rank);
	rt_json_kv_uint(j, "size", p->size);
	rt_json_key(j, "hosts");
	rt_json_array_begin(j);
	for (uint32_t i = 0; i < l->hosts.n; i++)
		rt_json_string(j, l->hosts.names[i]);
	rt_json_array_end(j);
	rt_json_kv_string(j, "coordinator", p->coord_host);
	rt_json_kv_uint(j, "port", p->coord_port);
	rt_json_kv_string(j, "schedule", rt_sched_kind_name(p->kind));
	rt_json_kv_string(j, "auth", rt_mesh_auth_mode_name(p->key->mode));
	rt_json_kv_uint(j, "timeout_ms", (uint64_t)p->timeout_ms);
	rt_json_kv_uint(j, "join_timeout_ms", (uint64_t)rt_mesh_join_ms(p));
	token_json(j, l);
	rt_json_object_end(j);
	return 0;
}
