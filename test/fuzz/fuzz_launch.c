/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* What a mesh instance learns from its launcher (launch.h, hostlist.h).
 * Input byte 0 chooses:
 *   even  the rest is a host-list expression for rt_hostlist_parse: a
 *         list it takes holds at most RT_HOSTLIST_MAX names, each
 *         non-empty and at most RT_HOST_NAME_MAX bytes
 *   odd   byte 1 is --size; the rest is an environment, lines of
 *         NAME=VALUE, read through rt_launch_detect's env callback
 *         (a host named "self" is this machine): a rank it takes is
 *         below the size, the hosts number the size or none
 * A refusal is exit 2 or 3 with a reason. */
#include "fuzz.h"

#include "mesh/launch.h"

static void refused(const struct rt_error *err)
{
	FUZZ_CHECK(err->set && (err->exit_code == RT_EXIT_USAGE ||
				err->exit_code == RT_EXIT_ENV) && err->reason[0],
		   "a refusal without a reason");
}

static void hostlist(struct fuzz_in *in)
{
	char *text = fuzz_str(in, in->n);
	struct rt_hostlist l = {0};
	struct rt_error err = {0};

	if (rt_hostlist_parse(&l, text, &err)) {
		refused(&err);
		FUZZ_CHECK(l.n == 0, "a refused list left %u names", l.n);
	}
	FUZZ_CHECK(l.n <= RT_HOSTLIST_MAX, "%u names", l.n);
	for (uint32_t i = 0; i < l.n; i++)
		FUZZ_CHECK(l.names[i][0] && strlen(l.names[i]) <= RT_HOST_NAME_MAX,
			   "name %u: '%s'", i, l.names[i]);
	rt_hostlist_free(&l);
	free(text);
}

/* The environment: NAME=VALUE lines of the input, looked up by name. */
struct fuzz_env {
	const char *text;
	char value[4096]; /* the value last looked up */
};

static const char *env_get(void *ctx, const char *name)
{
	struct fuzz_env *env = ctx;
	size_t k = strlen(name), n;

	for (const char *line = env->text; *line; line += n + (line[n] == '\n')) {
		n = strcspn(line, "\n");
		if (n <= k || strncmp(line, name, k) || line[k] != '=')
			continue;
		n -= k + 1;
		n = n < sizeof(env->value) - 1 ? n : sizeof(env->value) - 1;
		memcpy(env->value, line + k + 1, n);
		env->value[n] = '\0';
		return env->value;
	}
	return NULL;
}

static bool env_is_self(void *ctx, const char *host)
{
	(void)ctx;
	return !strcmp(host, "self");
}

static void launcher(struct fuzz_in *in)
{
	struct rt_launch_req req = { .hosts = NULL, .size = fuzz_u8(in) };
	struct fuzz_env *env = malloc(sizeof(*env));
	struct rt_launch_env e = { env_get, env_is_self, env };
	struct rt_launch l;
	struct rt_error err = {0};

	FUZZ_CHECK(env, "out of memory");
	env->text = fuzz_str(in, in->n);
	memset(&l, 0, sizeof(l));
	if (rt_launch_detect(&l, &req, &e, &err)) {
		refused(&err);
	} else {
		FUZZ_CHECK(l.rank < l.size && l.size <= RT_HOSTLIST_MAX,
			   "rank %u of %u", l.rank, l.size);
		FUZZ_CHECK(l.hosts.n == 0 || l.hosts.n == l.size, "%u hosts for %u ranks",
			   l.hosts.n, l.size);
	}
	rt_launch_free(&l);
	free((char *)env->text);
	free(env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = {data, size};

	if (fuzz_u8(&in) % 2 == 0)
		hostlist(&in);
	else
		launcher(&in);
	return 0;
}
