/*
 * morpheus_spank.c - the user's side of Morpheus: the sbatch/salloc/srun options that ask
 * for CXL memory, validated where the user types them and handed to slurmctld.
 *
 *   --mem-hot=SIZE          hot (low-latency) memory per node, e.g. 64G
 *   --mem-hot-latency=TIME  bound on the hot memory's latency, e.g. 250ns
 *   --mem-hot-wait=TIME     how long to wait for hot memory inside the bound before taking
 *                           the nearest there is (a soft bound, like --switches=N@TIME), or hard
 *   --mem-cold=SIZE         cold (capacity) memory per node, e.g. 1T
 *   --nccl-hints=on|off     per-job NCCL topology hints (remote side: node_setup.c)
 *   --ckpt-size=SIZE        checkpoint offload: the whole job's checkpoint, e.g. 2T, kept in
 *                           persistent memory for the job's lifetime (requeues included)
 *   --ckpt-period=TIME      how often the job flushes it (a booked window each period)
 *   --ckpt-period-max=TIME  the longest period the job accepts when none is free at its own
 *   --ckpt-replicas=N       copies in separate failure domains (default 1)
 *
 * Flow: option callbacks (every context) check each value with the core's parser, so a typo
 * fails sbatch with the core's message naming the flag and the expected form. In allocator
 * (sbatch, salloc) and local (srun) context, init_post_opt checks the values together and
 * stores them with spank_job_control_setenv(): they travel in the job's spank_job_env, where
 * select/morpheus and job_submit/morpheus read them (names in morpheus_job_env.h).
 * The placement (MORPHEUS_POD, ...) reaches tasks through the job's environment, set by
 * select/morpheus. On the node (remote context) node_setup.c adds the NCCL topology file and
 * settings and the cold-tier memory policy.
 *
 * plugstack.conf arguments: nccl_hints=off (the site's default for --nccl-hints, else on),
 * node_topology=FILE.xml (an hwloc XML to use instead of the live machine, for tests),
 * tmpdir=DIR (node-local directory for the step's NCCL file, "%n" = the node's name;
 * default: the job's $TMPDIR, else /tmp).
 *
 * SPANK specifics (22.05): sbatch/salloc ignore the static spank_options[] table, so every
 * option is registered with spank_option_register() in slurm_spank_init, in all contexts;
 * callbacks may run twice (early and main pass), so they replace, never append.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "morpheus/morpheus.h"
#include "morpheus_job_env.h"
#include "node_setup.h"

/* Built with -fvisibility=hidden: the SPANK symbols are the interface (spank_morpheus.map). */
#pragma GCC visibility push(default)
SPANK_PLUGIN(morpheus, 1);
#pragma GCC visibility pop
#define SPANK_EXPORT __attribute__((visibility("default")))

enum morpheus_opt {
	OPT_MEM_HOT,
	OPT_MEM_HOT_LATENCY,
	OPT_MEM_COLD,
	OPT_NCCL_HINTS,
	OPT_MEM_HOT_WAIT,
	OPT_CKPT_SIZE,
	OPT_CKPT_PERIOD,
	OPT_CKPT_PERIOD_MAX,
	OPT_CKPT_REPLICAS,
	OPT_COUNT
};

/* Option values as typed; NULL = not given. */
static char *values[OPT_COUNT];

/* From plugstack.conf: the site's --nccl-hints default, an hwloc XML stand-in, and the
 * node-local directory for the step's files. */
static const char *site_nccl_hints;
static const char *node_topology_xml;
static const char *node_tmpdir;

static int _opt_cb(int val, const char *optarg, int remote);

/* sbatch/salloc/srun call init_post_opt once per heterogeneous-job component, after that
 * component's options: an option seen after the first call belongs to a later component.
 * The values reach slurmctld once, for the whole job, so a per-component request would be
 * silently replaced by one size for all: a value that differs from the first component's is
 * refused instead (issue 25). */
static int components_parsed;

static struct spank_option options[] = {
	{ "mem-hot", "SIZE",
	  "[morpheus] Hot CXL memory per node (e.g. 64G), placed within --mem-hot-latency.",
	  1, OPT_MEM_HOT, _opt_cb },
	{ "mem-hot-latency", "TIME",
	  "[morpheus] Latency bound for --mem-hot (e.g. 250ns); default: the site's.",
	  1, OPT_MEM_HOT_LATENCY, _opt_cb },
	{ "mem-cold", "SIZE",
	  "[morpheus] Cold CXL memory per node (e.g. 1T), any latency.",
	  1, OPT_MEM_COLD, _opt_cb },
	{ "mem-hot-wait", "TIME",
	  "[morpheus] How long to wait for --mem-hot inside --mem-hot-latency before taking the nearest memory there is (it moves closer later), e.g. 10 (minutes), 30:00, or hard; default: the site's.",
	  1, OPT_MEM_HOT_WAIT, _opt_cb },
	{ "nccl-hints", "on|off",
	  "[morpheus] NCCL topology hints for the job's tasks (default: on).",
	  1, OPT_NCCL_HINTS, _opt_cb },
	{ "ckpt-size", "SIZE",
	  "[morpheus] Checkpoint offload: the whole job's checkpoint (e.g. 2T), kept in persistent CXL memory for the job's lifetime; needs --ckpt-period.",
	  1, OPT_CKPT_SIZE, _opt_cb },
	{ "ckpt-period", "TIME",
	  "[morpheus] How often the job flushes its checkpoint (e.g. 30m): it gets a booked window each period (MORPHEUS_CKPT_*, morpheus ckpt).",
	  1, OPT_CKPT_PERIOD, _opt_cb },
	{ "ckpt-period-max", "TIME",
	  "[morpheus] The longest period the job accepts when no window is free at --ckpt-period (e.g. 1h); default: the period exactly.",
	  1, OPT_CKPT_PERIOD_MAX, _opt_cb },
	{ "ckpt-replicas", "N",
	  "[morpheus] Copies of the checkpoint in separate failure domains (1 to 4, default 1).",
	  1, OPT_CKPT_REPLICAS, _opt_cb },
	SPANK_OPTIONS_TABLE_END
};

static const char *env_names[OPT_COUNT] = {
	[OPT_MEM_HOT] = MORPHEUS_ENV_MEM_HOT,
	[OPT_MEM_HOT_LATENCY] = MORPHEUS_ENV_MEM_HOT_LATENCY,
	[OPT_MEM_COLD] = MORPHEUS_ENV_MEM_COLD,
	[OPT_MEM_HOT_WAIT] = MORPHEUS_ENV_MEM_HOT_WAIT,
	[OPT_NCCL_HINTS] = MORPHEUS_ENV_NCCL_HINTS,
	[OPT_CKPT_SIZE] = MORPHEUS_ENV_CKPT_SIZE,
	[OPT_CKPT_PERIOD] = MORPHEUS_ENV_CKPT_PERIOD_ASKED,
	[OPT_CKPT_PERIOD_MAX] = MORPHEUS_ENV_CKPT_PERIOD_MAX,
	[OPT_CKPT_REPLICAS] = MORPHEUS_ENV_CKPT_REPLICAS,
};

/* The core's parser is the one authority on sizes and times. */
static int _check_memory_flags(const char *hot, const char *latency, const char *cold)
{
	morpheus_request_t req;
	morpheus_error_t err;

	memset(&req, 0, sizeof(req));
	if (morpheus_request_set_flags(&req, hot, latency, cold, &err) < 0) {
		slurm_error("%s", err.message);
		return -1;
	}
	return 0;
}

/* The checkpoint flags together (NULL: not given), by the core's parser. */
static int _check_checkpoint_flags(const char *size, const char *period, const char *period_max,
				   const char *replicas)
{
	morpheus_request_t req;
	morpheus_error_t err;

	memset(&req, 0, sizeof(req));
	if (morpheus_request_set_checkpoint(&req, size, period, period_max, replicas, &err) < 0) {
		slurm_error("%s", err.message);
		return -1;
	}
	return 0;
}

/* One checkpoint flag's form, as the user types it: the flags it needs beside it are judged
 * together later (init_post_opt), so stand-ins fill them here. */
static int _check_checkpoint_flag(int val, const char *optarg)
{
	return _check_checkpoint_flags(val == OPT_CKPT_SIZE ? optarg : "1G",
				       val == OPT_CKPT_PERIOD ? optarg : "1s",
				       val == OPT_CKPT_PERIOD_MAX ? optarg : NULL,
				       val == OPT_CKPT_REPLICAS ? optarg : NULL);
}

static const char *_example_value(int val)
{
	switch (val) {
	case OPT_MEM_HOT_LATENCY:
		return "250ns";
	case OPT_MEM_HOT_WAIT:
		return "10";
	case OPT_NCCL_HINTS:
		return "on";
	case OPT_CKPT_PERIOD:
	case OPT_CKPT_PERIOD_MAX:
		return "30m";
	case OPT_CKPT_REPLICAS:
		return "2";
	default:
		return "64G";
	}
}

static int _opt_cb(int val, const char *optarg, int remote)
{
	if ((val < 0) || (val >= OPT_COUNT) || !optarg)
		return -1;
	/* "--mem-hot=" (a variable that expanded to nothing): the core reads "" as "not asked",
	 * so the job would silently run without the memory its user meant to ask for. */
	if (!optarg[0]) {
		slurm_error("--%s= is empty: give a value (e.g. --%s=%s) or leave the flag out",
			    options[val].name, options[val].name, _example_value(val));
		return -1;
	}
	/* A later component's pass hands the earlier value back (sbatch re-reads the option
	 * from the environment it exported): only a different value is a request of its own. */
	if (components_parsed && !remote && (val != OPT_NCCL_HINTS) &&
	    (!values[val] || strcmp(values[val], optarg))) {
		slurm_error("--%s=%s is given for a later component of a heterogeneous job: Morpheus's memory flags are job-wide (every component gets the same per-node memory); give --%s once, with the first component (before the first ':' or '#SBATCH hetjob'), or submit the components as separate jobs",
			    options[val].name, optarg, options[val].name);
		return -1;
	}
	if (val == OPT_NCCL_HINTS) {
		if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
			slurm_error("--nccl-hints=%s: expected on or off", optarg);
			return -1;
		}
	} else if (val == OPT_MEM_HOT_WAIT) {
		morpheus_request_t req;
		morpheus_error_t err;

		memset(&req, 0, sizeof(req));
		if (morpheus_request_set_wait(&req, optarg, &err) < 0) {
			slurm_error("%s", err.message);
			return -1;
		}
	} else if ((val == OPT_CKPT_SIZE) || (val == OPT_CKPT_PERIOD) ||
		   (val == OPT_CKPT_PERIOD_MAX) || (val == OPT_CKPT_REPLICAS)) {
		if (_check_checkpoint_flag(val, optarg) < 0)
			return -1;
	} else if (_check_memory_flags(val == OPT_MEM_HOT ? optarg : NULL,
				       val == OPT_MEM_HOT_LATENCY ? optarg : NULL,
				       val == OPT_MEM_COLD ? optarg : NULL) < 0) {
		return -1;
	}
	free(values[val]);
	values[val] = strdup(optarg);
	return 0;
}

SPANK_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strcmp(av[i], "nccl_hints=off") || !strcmp(av[i], "nccl_hints=on"))
			site_nccl_hints = av[i] + strlen("nccl_hints=");
		else if (strncmp(av[i], "node_topology=", strlen("node_topology=")) &&
			 strncmp(av[i], "tmpdir=", strlen("tmpdir="))) {
			slurm_error("morpheus: plugstack.conf: unknown argument \"%s\" (known: nccl_hints=on|off, node_topology=FILE.xml, tmpdir=DIR)",
				    av[i]);
			return -1;
		}
	}
	node_topology_xml = morpheus_spank_arg(ac, av, "node_topology=");
	node_tmpdir = morpheus_spank_arg(ac, av, "tmpdir=");
	for (struct spank_option *o = options; o->name; o++) {
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("morpheus: cannot register --%s", o->name);
			return -1;
		}
	}
	return 0;
}

/* Allocator and local context: the values, checked together, go to slurmctld. */
static int _send_to_controller(spank_t sp)
{
	spank_err_t rc;

	bool any = false;

	for (int i = 0; i < OPT_COUNT; i++)
		any = any || values[i];
	if (!any)
		return 0;
	if (_check_memory_flags(values[OPT_MEM_HOT], values[OPT_MEM_HOT_LATENCY],
				values[OPT_MEM_COLD]) < 0)
		return -1;
	if (_check_checkpoint_flags(values[OPT_CKPT_SIZE], values[OPT_CKPT_PERIOD],
				    values[OPT_CKPT_PERIOD_MAX], values[OPT_CKPT_REPLICAS]) < 0)
		return -1;
	for (int i = 0; i < OPT_COUNT; i++) {
		if (!values[i])
			continue;
		if ((rc = spank_job_control_setenv(sp, env_names[i], values[i], 1)) !=
		    ESPANK_SUCCESS) {
			slurm_error("morpheus: cannot pass --%s to slurmctld: %s", options[i].name,
				    spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

SPANK_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_ALLOCATOR:
	case S_CTX_LOCAL:
		/* srun inside an allocation also lands here: harmless, the job exists already
		 * and slurmctld reads the values from the allocation's own job record. */
		components_parsed++;
		return _send_to_controller(sp);
	default:
		return 0;
	}
}

static struct morpheus_spank_node_args _node_args(void)
{
	struct morpheus_spank_node_args a = {
		values[OPT_NCCL_HINTS] ? values[OPT_NCCL_HINTS] : site_nccl_hints,
		values[OPT_MEM_COLD], node_topology_xml, node_tmpdir
	};
	return a;
}

/* slurmstepd, once per step, as the user, before tasks fork. */
SPANK_EXPORT int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct morpheus_spank_node_args a = _node_args();

	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return morpheus_spank_node_setup(sp, &a);
}

/* slurmstepd, in each task's process before exec: the cold tier's memory policy. */
SPANK_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct morpheus_spank_node_args a = _node_args();

	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return morpheus_spank_node_task(sp, &a);
}

SPANK_EXPORT int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	if (spank_context() == S_CTX_REMOTE)
		morpheus_spank_node_cleanup(sp);
	for (int i = 0; i < OPT_COUNT; i++) {
		free(values[i]);
		values[i] = NULL;
	}
	return 0;
}
