/*
 * select_morpheus.c - SelectType=select/cons_tres_morpheus for Slurm 26.05: cons_tres with pod-
 * and memory-aware node choice. The same behaviour as plugins/select/slurm-22.05 (see there for
 * the design), over 26.05's select interface.
 *
 * A thin shim. Every select_p_* call is forwarded to select/cons_tres, which keeps doing all
 * CPU/memory/GRES accounting; jobs that ask for Morpheus memory get pod ranking (job_test),
 * a blade reservation (job_begin) and its release (job_fini) through the release-independent
 * glue in plugins/common (morpheus_placement.h). Jobs without Morpheus flags pass untouched.
 *
 * What changed from 24.11 (src/interfaces/select.c of 26.05):
 *   - the interface shrank to plugin_id + 13 functions (25.05 dropped state save/restore,
 *     job_init, step and nodeinfo/jobinfo pack calls, get_info_from_plugin; 26.05 added
 *     select_p_job_mem_reduce). A missing symbol is fatal in slurmctld;
 *   - only slurmctld loads a select plugin, and only the configured one (no more loading of
 *     every select_*.so, so no duplicate-plugin_id check between them): cons_tres is not
 *     loaded by Slurm at all, we dlopen it and own its init()/fini();
 *   - job_init(job_list) is gone: select_g_node_init() is now called at the same point of
 *     read_slurm_conf() (after the job state is loaded), so node_init reconciles the ledger.
 *
 * Identity: plugin_id = SELECT_PLUGIN_CONS_TRES (109) and plugin_type
 * "select/cons_tres_morpheus". From 25.05 Slurm asks "is this cons_tres?" in two ways, and
 * both must answer yes for the job to behave as under cons_tres (Morpheus forwards to it):
 *   - running_cons_tres(): plugin_id == SELECT_PLUGIN_CONS_TRES. Shared GRES (shards;
 *     fatal at startup otherwise), --mem-per-gpu and --cpus-per-gpu defaults, tres-per-task
 *     checks, CoreCnt reservations, cons_tres's node-set and spec-core paths in
 *     node_scheduler.c, and select_g_init() fatals on CR_CPU/CR_Core/CR_Socket otherwise;
 *   - xstrstr(SelectType, "cons_tres"): MaxNodeCount, the CR_Core_Memory default for
 *     SelectTypeParameters, dynamic nodes (scontrol create/delete node, slurmd -Z),
 *     heterogeneous GRES on job expansion, TaskPluginParam=SlurmdSpecOverride.
 * Reusing 109 is safe now that Slurm loads only the configured select plugin; the name keeps
 * "cons_tres" for the string tests, and the file is select_cons_tres_morpheus.so.
 *
 * --mem-update / scontrol update MinMemoryNode= on a running job (select_p_job_mem_reduce):
 * the node memory (--mem) is reduced by cons_tres as usual; the job's Morpheus blade memory
 * (--mem-hot/--mem-cold) is left as reserved. Slurm measures and shrinks local RSS; it knows
 * nothing about blade usage, and the job still holds what it was promised there.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/slurm_xlator.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/select.h"
#include "src/slurmctld/slurmctld.h"

#include "morpheus_placement.h"

/* slurmctld's job list (we are only ever loaded by slurmctld; weak as cons_tres does). */
extern list_t *job_list __attribute__((weak));

/* Built with -fvisibility=hidden: what follows is the plugin's interface (select_morpheus.map). */
#pragma GCC visibility push(default)

const char plugin_name[] = "Morpheus memory- and topology-aware selection (over cons_tres)";
const char plugin_type[] = "select/cons_tres_morpheus";
const uint32_t plugin_id = SELECT_PLUGIN_CONS_TRES; /* see the header comment */
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#pragma GCC visibility pop

/* src/interfaces/select.c (26.05): static there, so repeated here in the same order. */
typedef struct {
	uint32_t (*plugin_id);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			list_t *preeemptee_candidates, list_t **preemptee_job_list,
			resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	void (*job_mem_reduce)(job_record_t *job_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
} morpheus_select_ops_t;

static const char *cons_syms[] = {
	"plugin_id",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_mem_reduce",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_reconfigure",
};

_Static_assert(sizeof(cons_syms) / sizeof(cons_syms[0]) ==
		       sizeof(morpheus_select_ops_t) / sizeof(void *),
	       "cons_syms[] and morpheus_select_ops_t must list the same entry points");

static morpheus_select_ops_t cons;
static void *cons_handle;
static void (*cons_fini)(void);

static int _load_cons_tres(void)
{
	const size_t n_syms = sizeof(cons_syms) / sizeof(cons_syms[0]);
	void **slot = (void **) &cons;
	int (*cons_init)(void);
	char *dirs = NULL, *dir, *save = NULL;

	/* Slurm loads only the configured select plugin (us): open cons_tres from PluginDir.
	 * RTLD_LAZY as the loader does; RTLD_LOCAL so its select_p_* never interpose on ours. */
	dirs = xstrdup(slurm_conf.plugindir);
	for (dir = strtok_r(dirs, ":", &save); dir && !cons_handle;
	     dir = strtok_r(NULL, ":", &save)) {
		char *path = xstrdup_printf("%s/select_cons_tres.so", dir);
		cons_handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
		xfree(path);
	}
	xfree(dirs);
	if (!cons_handle) {
		error("select/morpheus: cannot open select_cons_tres.so from PluginDir=%s: %s",
		      slurm_conf.plugindir, dlerror());
		return SLURM_ERROR;
	}

	for (size_t i = 0; i < n_syms; i++) {
		if (!(slot[i] = dlsym(cons_handle, cons_syms[i]))) {
			error("select/morpheus: select_cons_tres.so lacks %s", cons_syms[i]);
			return SLURM_ERROR;
		}
	}
	cons_fini = (void (*)(void)) dlsym(cons_handle, "fini");
	if ((cons_init = (int (*)(void)) dlsym(cons_handle, "init")) && cons_init() != SLURM_SUCCESS)
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

/*
 * 26.05 runs scontrol reconfigure as a new slurmctld (SLURMCTLD_RECONF=1), as 24.11 does: the
 * old one resumes when the new one dies before it reports success. So this init() is the
 * reload: with broken Morpheus files the new process refuses to take over.
 */
static void _reconfigure_child(void)
{
	if (!placement_active()) {
		error("select/morpheus: reload failed, keeping the last good configuration: %s",
		      placement_open_error() ? placement_open_error() : "unknown error");
		fatal("select/morpheus: not taking over from the running slurmctld with broken Morpheus files; fix them and run scontrol reconfigure again");
	}
	info("select/morpheus: reloaded morpheus.conf, fabric and inventory");
}

#pragma GCC visibility push(default)

extern int init(void)
{
	if (_load_cons_tres() != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (running_in_slurmctld() && !xstrcmp(slurm_conf.select_type, plugin_type)) {
		placement_open();
		if (getenv("SLURMCTLD_RECONF"))
			_reconfigure_child();
	}
	verbose("select/morpheus: loaded%s", placement_active() ? ", engine open" : "");
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	placement_close();
	/* Slurm never loaded cons_tres itself (it loads only the configured select plugin), so
	 * its fini() is ours to call. */
	if (cons_fini)
		cons_fini();
	cons_fini = NULL;
	if (cons_handle)
		dlclose(cons_handle);
	cons_handle = NULL;
	return SLURM_SUCCESS;
}

/*
 * For job_submit/morpheus: rejects at submission, with a message the user sees, a request
 * that is malformed or can never be placed. Exported (see select_morpheus.map) and found with
 * dlopen(RTLD_NOLOAD) so that slurmctld keeps one engine.
 */
extern int select_morpheus_check_submission(job_desc_msg_t *job_desc, uint32_t uid,
					    char **err_msg)
{
	return placement_submit_check(job_desc, uid, err_msg);
}

/* For job_submit/morpheus's job_modify: the charge and placement checks of an update. */
extern int select_morpheus_check_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
					uint32_t uid, char **err_msg)
{
	return placement_modify_check(job_desc, job_ptr, uid, err_msg);
}

/* Called once per read_slurm_conf() (startup, and the re-executed slurmctld of scontrol
 * reconfigure), after the job state is loaded: where 24.11 called job_init(job_list). The
 * ledger is reconciled with the jobs that survived. */
extern int select_p_node_init(void)
{
	int rc = (*(cons.node_init))();

	if (job_list)
		placement_jobs_recovered(job_list);
	return rc;
}

#pragma GCC visibility pop

/* cons_tres's job_test arguments, for the glue's tries on narrowed bitmaps. */
struct job_test_args {
	job_record_t *job_ptr;
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t mode;
	list_t *preemptee_candidates;
	list_t **preemptee_job_list;
	resv_exc_t *resv_exc_ptr;
	will_run_data_t *will_run_ptr;
};

static int _try_cons_tres(void *arg, bitstr_t *bitmap)
{
	struct job_test_args *a = arg;

	if (a->preemptee_job_list)
		FREE_NULL_LIST(*a->preemptee_job_list);
	return (*(cons.job_test))(a->job_ptr, bitmap, a->min_nodes, a->max_nodes, a->req_nodes,
				  a->mode, a->preemptee_candidates, a->preemptee_job_list,
				  a->resv_exc_ptr, a->will_run_ptr);
}

#pragma GCC visibility push(default)

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			     uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates, list_t **preemptee_job_list,
			     resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr)
{
	struct job_test_args args = {
		.job_ptr = job_ptr,
		.min_nodes = min_nodes,
		.max_nodes = max_nodes,
		.req_nodes = req_nodes,
		.mode = mode,
		.preemptee_candidates = preemptee_candidates,
		.preemptee_job_list = preemptee_job_list,
		.resv_exc_ptr = resv_exc_ptr,
		.will_run_ptr = will_run_ptr,
	};

	return placement_job_test(job_ptr, bitmap, min_nodes, mode, _try_cons_tres, &args);
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	return placement_job_begin(cons.job_begin, job_ptr);
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*(cons.job_ready))(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	return (*(cons.job_expand))(from_job_ptr, to_job_ptr);
}

/* excise_node_from_job() (scontrol update NumNodes=, a node removed from a running job) calls
 * this once per node given up, after clearing it from the job's node_bitmap. */
extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	int rc = (*(cons.job_resized))(job_ptr, node_ptr);

	placement_job_resized(job_ptr);
	return rc;
}

/* job_mem_resize_complete() (--mem-update, scontrol update MinMemoryNode= of a running job):
 * node memory only; the blade reservation stays (see the header comment). */
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	(*(cons.job_mem_reduce))(job_ptr);
}

/* deallocate_nodes() and _end_null_job() call this for every end: complete, cancel, requeue,
 * preemption, node failure. */
extern int select_p_job_fini(job_record_t *job_ptr)
{
	int rc = (*(cons.job_fini))(job_ptr);

	placement_job_fini(job_ptr);
	return rc;
}

/* A suspended job keeps its memory: the reservation stays. Its CPUs go back to cons_tres. */
extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	int rc = (*(cons.job_suspend))(job_ptr, indf_susp);

	placement_resources_released();
	return rc;
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*(cons.job_resume))(job_ptr, indf_susp);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(cons.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(cons.nodeinfo_set))(job_ptr);
}

/* Called on node/partition changes and debug-flag updates: node records may have changed, so
 * the node-name map is rebuilt on next use. */
extern int select_p_reconfigure(void)
{
	int rc = (*(cons.reconfigure))();

	placement_nodes_changed();
	return rc;
}

#pragma GCC visibility pop
