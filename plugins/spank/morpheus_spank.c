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
	SPANK_OPTIONS_TABLE_END
};

static const char *env_names[OPT_COUNT] = {
	[OPT_MEM_HOT] = MORPHEUS_ENV_MEM_HOT,
	[OPT_MEM_HOT_LATENCY] = MORPHEUS_ENV_MEM_HOT_LATENCY,
	[OPT_MEM_COLD] = MORPHEUS_ENV_MEM_COLD,
	[OPT_MEM_HOT_WAIT] = MORPHEUS_ENV_MEM_HOT_WAIT,
	[OPT_NCCL_HINTS] = MORPHEUS_ENV_NCCL_HINTS,
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

static int _opt_cb(int val, const char *optarg, int remote)
{
	if ((val < 0) || (val >= OPT_COUNT) || !optarg)
		return -1;
	/* "--mem-hot=" (a variable that expanded to nothing): the core reads "" as "not asked",
	 * so the job would silently run without the memory its user meant to ask for. */
	if (!optarg[0]) {
		slurm_error("--%s= is empty: give a value (e.g. --%s=%s) or leave the flag out",
			    options[val].name, options[val].name,
			    val == OPT_MEM_HOT_LATENCY ? "250ns" :
			    val == OPT_MEM_HOT_WAIT ? "10" :
			    val == OPT_NCCL_HINTS ? "on" : "64G");
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

	if (!values[OPT_MEM_HOT] && !values[OPT_MEM_HOT_LATENCY] && !values[OPT_MEM_COLD] &&
	    !values[OPT_NCCL_HINTS] && !values[OPT_MEM_HOT_WAIT])
		return 0;
	if (_check_memory_flags(values[OPT_MEM_HOT], values[OPT_MEM_HOT_LATENCY],
				values[OPT_MEM_COLD]) < 0)
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
