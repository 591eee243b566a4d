/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The authentication a mesh run uses (meshkey.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh/meshkey.h"
#include "rdmatest/random.h"
#include "rdmatest/util.h"

/* Whether PATH holds the program name, executable. */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[512];

	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (n && (size_t)snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, name) <
			 sizeof(buf) && access(buf, X_OK) == 0)
			return true;
		p += n + (p[n] == ':');
	}
	return false;
}

void rt_mesh_key_env_process(struct rt_mesh_key_env *env)
{
	const char *job = getenv("SLURM_JOB_ID");

	env->slurm_job = job && job[0] ? job : NULL;
	env->munge_here = on_path("munge") && on_path("unmunge");
}

static int default_mode(struct rt_mesh_key *k, const char *token_file,
			const struct rt_mesh_key_env *env)
{
	if (token_file) {
		k->why = "--token-file";
		return RT_MESH_AUTH_FILE;
	}
	if (env->slurm_job && env->munge_here) {
		k->why = "Slurm, munge on PATH";
		return RT_MESH_AUTH_MUNGE;
	}
	k->why = env->slurm_job ? "Slurm without munge on PATH" : "no --token-file, no Slurm";
	return RT_MESH_AUTH_NONE;
}

int rt_mesh_key_mode(struct rt_mesh_key *k, const char *name, const char *token_file,
		     const struct rt_mesh_key_env *env, struct rt_error *err)
{
	int mode;

	memset(k, 0, sizeof(*k));
	k->mac = (struct rt_hmac)RT_HMAC_INIT;
	if (!name) {
		k->mode = (unsigned)default_mode(k, token_file, env);
	} else {
		mode = rt_mesh_auth_mode_parse(name, err);
		if (mode < 0)
			return -1;
		k->mode = (unsigned)mode;
		k->why = "--auth";
	}
	if (k->mode == RT_MESH_AUTH_FILE && !token_file)
		return rt_fail(err, RT_EXIT_USAGE, "--auth file: needs --token-file PATH");
	if (k->mode == RT_MESH_AUTH_MUNGE && token_file)
		return rt_fail(err, RT_EXIT_USAGE, "--token-file: the secret of --auth file, "
			       "not with --auth munge");
	/* the credential names the job: a rank takes only its own job's */
	if (env->slurm_job)
		rt_strlcpy(k->job, env->slurm_job, sizeof(k->job));
	k->munge.job = k->job;
	return 0;
}

int rt_mesh_key_open(struct rt_mesh_key *k, const char *token_file, bool coordinator,
		     struct rt_error *err)
{
	if (k->mode == RT_MESH_AUTH_NONE)
		return 0;
	if (rt_hmac_open(&k->mac, err))
		return -1;
	if (k->mode == RT_MESH_AUTH_FILE)
		return rt_mesh_secret_file(&k->mac, token_file, k->secret, err);
	return coordinator ? rt_random_bytes(k->secret, sizeof(k->secret), err) : 0;
}

int rt_mesh_key_fork(struct rt_mesh_key *k, struct rt_error *err)
{
	if (k->mode == RT_MESH_AUTH_NONE)
		return 0;
	rt_hmac_close(&k->mac);
	return rt_hmac_open(&k->mac, err);
}

void rt_mesh_key_close(struct rt_mesh_key *k)
{
	rt_hmac_close(&k->mac);
	explicit_bzero(k->secret, sizeof(k->secret));
}

bool rt_mesh_key_on(const struct rt_mesh_key *k)
{
	return k && k->mode != RT_MESH_AUTH_NONE;
}

void rt_mesh_key_end(struct rt_mesh_key *k, struct rt_mesh_auth *a,
		     enum rt_mesh_auth_side side, uint32_t rank, uint32_t size)
{
	rt_mesh_auth_init(a, &k->mac, k->secret, side, rank, size);
}

const struct rt_mesh_munge *rt_mesh_key_munge(const struct rt_mesh_key *k)
{
	return k->mode == RT_MESH_AUTH_MUNGE ? &k->munge : NULL;
}
