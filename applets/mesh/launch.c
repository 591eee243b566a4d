/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Rank, size and hosts from the launcher (launch.h). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh/launch.h"
#include "rdmatest/util.h"

/* A decimal variable of at most 9 digits ("" and "+1" are malformed). */
static int env_u32(const struct rt_launch_env *env, const char *name,
		   uint32_t *v, bool *present, struct rt_error *err)
{
	const char *s = env->get(env->ctx, name);

	*present = s != NULL;
	if (!s)
		return 0;
	if (!*s)
		return rt_fail(err, RT_EXIT_USAGE, "%s is set but empty", name);
	if (rt_hostlist_number(s, strlen(s), v))
		return rt_fail(err, RT_EXIT_USAGE, "%s='%.32s' is not a number below 10^9",
			       name, s);
	return 0;
}

/* The rank of the one host in l that is this machine. */
static int self_rank(struct rt_launch *l, const struct rt_launch_env *env,
		     struct rt_error *err)
{
	int64_t found = -1;

	for (uint32_t i = 0; i < l->hosts.n; i++) {
		if (!env->is_self(env->ctx, l->hosts.names[i]))
			continue;
		if (found >= 0)
			return rt_fail(err, RT_EXIT_ENV, "--hosts: '%.100s' and '%.100s' are both this machine (give each host once)",
				       l->hosts.names[found], l->hosts.names[i]);
		found = i;
	}
	if (found < 0)
		return rt_fail(err, RT_EXIT_ENV, "--hosts: none of the %u hosts is this machine (its host name or an interface address)",
			       l->hosts.n);
	l->rank = (uint32_t)found;
	return 0;
}

static int from_hosts(struct rt_launch *l, const struct rt_launch_req *req,
		      const struct rt_launch_env *env, struct rt_error *err)
{
	int rc = req->hosts[0] == '@' ?
		 rt_hostlist_load(&l->hosts, req->hosts + 1, err) :
		 rt_hostlist_parse(&l->hosts, req->hosts, err);

	if (rc || rt_hostlist_check(&l->hosts, err))
		return -1;
	if (req->size && req->size != l->hosts.n)
		return rt_fail(err, RT_EXIT_USAGE, "--size %u but --hosts names %u hosts",
			       req->size, l->hosts.n);
	l->via = RT_LAUNCH_HOSTS;
	l->size = l->hosts.n;
	return self_rank(l, env, err);
}

/* The node lists name nodes, not tasks: they map ranks to hosts only with
 * one task per node (srun -N n --ntasks-per-node=1). The step's list comes
 * first: an srun inside a larger allocation runs on part of the job's. */
static const char *const slurm_lists[] = {"SLURM_STEP_NODELIST",
					  "SLURM_JOB_NODELIST", "SLURM_NODELIST"};

static int slurm_hosts(struct rt_launch *l, const struct rt_launch_env *env,
		       struct rt_error *err)
{
	const char *list = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(slurm_lists) && !list; i++)
		list = env->get(env->ctx, slurm_lists[i]);
	if (!list)
		return 0;
	if (rt_hostlist_parse(&l->hosts, list, err) ||
	    rt_hostlist_check(&l->hosts, err)) {
		rt_error_phase(err, slurm_lists[i - 1]);
		return -1;
	}
	if (l->hosts.n != l->size)
		rt_hostlist_free(&l->hosts);
	return 0;
}

struct rank_var {
	enum rt_launcher via;
	const char *rank, *size; /* size NULL: from --size */
};

static const struct rank_var rank_vars[] = {
	{RT_LAUNCH_SLURM, "SLURM_PROCID", "SLURM_NTASKS"},
	{RT_LAUNCH_OMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
	{RT_LAUNCH_PMI, "PMI_RANK", "PMI_SIZE"},
	{RT_LAUNCH_PMIX, "PMIX_RANK", NULL},
	{RT_LAUNCH_K8S, "JOB_COMPLETION_INDEX", NULL},
};

static int from_vars(struct rt_launch *l, const struct rank_var *v,
		     uint32_t req_size, const struct rt_launch_env *env,
		     struct rt_error *err)
{
	bool has_size = false;
	uint32_t size = 0;

	if (v->size && env_u32(env, v->size, &size, &has_size, err))
		return -1;
	if (!has_size && !req_size)
		return rt_fail(err, RT_EXIT_USAGE, "%s gives the rank but not the size: add --size N",
			       v->rank);
	if (has_size && req_size && size != req_size)
		return rt_fail(err, RT_EXIT_USAGE, "--size %u but %s=%u", req_size,
			       v->size, size);
	l->size = has_size ? size : req_size;
	if (l->size == 0 || l->size > RT_HOSTLIST_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "a mesh of %u instances: want 1 to %u",
			       l->size, RT_HOSTLIST_MAX);
	if (l->rank >= l->size)
		return rt_fail(err, RT_EXIT_USAGE, "%s=%u is not below the size %u",
			       v->rank, l->rank, l->size);
	l->via = v->via;
	return v->via == RT_LAUNCH_SLURM ? slurm_hosts(l, env, err) : 0;
}

static int find_rank(struct rt_launch *l, const struct rt_launch_req *req,
		     const struct rt_launch_env *env, struct rt_error *err)
{
	if (req->hosts)
		return from_hosts(l, req, env, err);
	for (size_t i = 0; i < ARRAY_SIZE(rank_vars); i++) {
		bool present;

		if (env_u32(env, rank_vars[i].rank, &l->rank, &present, err))
			return -1;
		if (present)
			return from_vars(l, &rank_vars[i], req->size, env, err);
	}
	return rt_fail(err, RT_EXIT_USAGE, "no launcher found: run under srun, mpirun or an Indexed Job, or give --hosts");
}

#define TOKEN_FILE_MAX 4096

uint64_t rt_launch_token_hash(const char *token, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)token[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

static int set_token(struct rt_launch *l, const char *from, const char *s,
		     size_t n, struct rt_error *err)
{
	if (n == 0)
		return rt_fail(err, RT_EXIT_USAGE, "%s: the job token is empty", from);
	l->token = rt_launch_token_hash(s, n);
	l->token_from = from;
	return 0;
}

/* A file of one line: its trailing newline is not part of the token. */
static int token_file(struct rt_launch *l, const char *path, struct rt_error *err)
{
	char buf[TOKEN_FILE_MAX + 1];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return rt_fail_errno(err, RT_EXIT_USAGE, errno, "--token-file %s", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n > TOKEN_FILE_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "--token-file %s: longer than %u bytes",
			       path, TOKEN_FILE_MAX);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	return set_token(l, "--token-file", buf, n, err);
}

/* The launcher's own job id, which every rank of one job sees alike. */
static const struct { const char *var; int via; } job_ids[] = {
	{"RDMATEST_MESH_TOKEN", -1}, /* any launcher; a Kubernetes Job's uid */
	{"OMPI_MCA_ess_base_jobid", RT_LAUNCH_OMPI}, /* what mpirun 4.1 sets */
	{"PMIX_NAMESPACE", RT_LAUNCH_OMPI},
	{"PMIX_NAMESPACE", RT_LAUNCH_PMIX},
};

static int launcher_token(struct rt_launch *l, const struct rt_launch_env *env,
			  struct rt_error *err)
{
	const char *job = env->get(env->ctx, "SLURM_JOB_ID");
	const char *step = env->get(env->ctx, "SLURM_STEP_ID");
	char id[128];

	for (size_t i = 0; i < ARRAY_SIZE(job_ids); i++) {
		const char *v = env->get(env->ctx, job_ids[i].var);

		if (v && (job_ids[i].via < 0 || job_ids[i].via == (int)l->via))
			return set_token(l, job_ids[i].var, v, strlen(v), err);
	}
	if (l->via != RT_LAUNCH_SLURM || !job)
		return 0;
	/* a job's steps are separate meshes */
	snprintf(id, sizeof(id), "slurm:%.60s.%.60s", job, step ? step : "");
	return set_token(l, "SLURM_JOB_ID", id, strlen(id), err);
}

static int job_token(struct rt_launch *l, const struct rt_launch_req *req,
		     const struct rt_launch_env *env, struct rt_error *err)
{
	if (req->token)
		return set_token(l, "--token", req->token, strlen(req->token), err);
	if (req->token_file)
		return token_file(l, req->token_file, err);
	return launcher_token(l, env, err);
}

int rt_launch_detect(struct rt_launch *l, const struct rt_launch_req *req,
		     const struct rt_launch_env *env, struct rt_error *err)
{
	int rc = -1;

	memset(l, 0, sizeof(*l));
	if (req->size > RT_HOSTLIST_MAX)
		return rt_fail(err, RT_EXIT_USAGE, "--size %u: at most %u", req->size,
			       RT_HOSTLIST_MAX);
	rc = find_rank(l, req, env, err);
	if (!rc)
		rc = job_token(l, req, env, err);
	if (rc)
		rt_launch_free(l);
	return rc;
}

void rt_launch_free(struct rt_launch *l)
{
	rt_hostlist_free(&l->hosts);
}

const char *rt_launcher_name(enum rt_launcher via)
{
	static const char *const names[] = {"hosts", "slurm", "ompi", "pmi",
					    "pmix", "k8s"};

	return (size_t)via < ARRAY_SIZE(names) ? names[via] : "?";
}

static bool is_my_name(const char *host)
{
	char me[256];
	size_t n;

	if (gethostname(me, sizeof(me)))
		return false;
	me[sizeof(me) - 1] = '\0';
	if (!strcmp(me, host))
		return true;
	n = strcspn(me, ".");
	/* "node1" is "node1.cluster" and the other way round */
	return (!strncmp(me, host, n) && host[n] == '\0') ||
	       (!strncmp(me, host, strlen(host)) && me[strlen(host)] == '.');
}

static bool same_addr(const struct sockaddr *sa, int family, const void *a)
{
	if (!sa || sa->sa_family != family)
		return false;
	if (family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)(const void *)sa)->sin_addr,
			       a, sizeof(struct in_addr));
	return !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
		       a, sizeof(struct in6_addr));
}

static bool is_my_addr(const char *host)
{
	unsigned char a[sizeof(struct in6_addr)];
	struct ifaddrs *ifs, *i;
	int family = AF_INET;
	bool found = false;

	if (inet_pton(AF_INET, host, a) != 1) {
		family = AF_INET6;
		if (inet_pton(AF_INET6, host, a) != 1)
			return false;
	}
	if (getifaddrs(&ifs))
		return false;
	for (i = ifs; i && !found; i = i->ifa_next)
		found = same_addr(i->ifa_addr, family, a);
	freeifaddrs(ifs);
	return found;
}

bool rt_launch_is_self(void *ctx, const char *host)
{
	(void)ctx;
	return is_my_name(host) || is_my_addr(host);
}

static const char *process_get(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

const struct rt_launch_env rt_launch_env_process = {
	.get = process_get, .is_self = rt_launch_is_self, .ctx = NULL,
};

int rt_launch_coordinator(const char *text, char *host, size_t len, long long *port,
			  struct rt_error *err)
{
	const char *colon = strrchr(text, ':');
	size_t n = strlen(text);
	char *end;

	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (!close || (close[1] && close[1] != ':'))
			goto bad;
		colon = close[1] ? close + 1 : NULL;
		text++;
		n = (size_t)(close - text);
	} else if (colon && strchr(text, ':') != colon) {
		colon = NULL; /* a bare IPv6 address */
	} else if (colon) {
		n = (size_t)(colon - text);
	}
	if (!n || n >= len)
		goto bad;
	memcpy(host, text, n);
	host[n] = '\0';
	if (!colon)
		return 0;
	errno = 0;
	*port = strtoll(colon + 1, &end, 10);
	if (colon[1] && !*end && !errno && *port >= 1 && *port <= 65534)
		return 0;
bad:
	return rt_fail(err, RT_EXIT_USAGE, "--coordinator: '%s' is not HOST[:PORT] "
		       "(PORT 1..65534)", text);
}
