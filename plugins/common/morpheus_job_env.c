/* morpheus_job_env.c - reads a job's Morpheus request back from its spank_job_env. */
#include <string.h>

#include "morpheus_job_env.h"

const char *morpheus_env_lookup(char *const *env, uint32_t env_size, const char *name)
{
	size_t len = strlen(name);

	if (!env)
		return NULL;
	for (uint32_t i = 0; i < env_size; i++) {
		if (env[i] && !strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	}
	return NULL;
}

int morpheus_request_from_env(char *const *env, uint32_t env_size, morpheus_request_t *req,
			      morpheus_error_t *err)
{
	const char *hot = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_MEM_HOT);
	const char *lat = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_MEM_HOT_LATENCY);
	const char *cold = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_MEM_COLD);
	const char *wait = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_MEM_HOT_WAIT);
	const char *ckpt = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_CKPT_SIZE);
	const char *period = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_CKPT_PERIOD_ASKED);
	const char *period_max = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_CKPT_PERIOD_MAX);
	const char *replicas = morpheus_env_lookup(env, env_size, MORPHEUS_ENV_CKPT_REPLICAS);

	/* The common case: a job that never heard of Morpheus costs a few string scans. */
	if (!hot && !lat && !cold && !wait && !ckpt && !period && !period_max && !replicas)
		return 0;
	if (morpheus_request_set_flags(req, hot, lat, cold, err) < 0)
		return -1;
	if (morpheus_request_set_wait(req, wait, err) < 0)
		return -1;
	if (morpheus_request_set_checkpoint(req, ckpt, period, period_max, replicas, err) < 0)
		return -1;
	return morpheus_request_wants_memory(req) ? 1 : 0;
}
