/*
 * select_morpheus.c - SelectType=select/morpheus for Slurm 24.11: cons_tres with pod- and
 * memory-aware node choice. The same behaviour as plugins/select/slurm-22.05 (see there for
 * the design), over 24.11's select interface.
 *
 * A thin shim. Every select_p_* call is forwarded to the installed select/cons_tres, which
 * keeps doing all CPU/memory/GRES accounting. Jobs that ask for Morpheus memory (the SPANK
 * options --mem-hot/--mem-hot-latency/--mem-cold, carried in the job's spank_job_env) get
 * three additions, all decided by the Slurm-free core (include/morpheus/morpheus.h), through
 * the release-independent glue in plugins/common (morpheus_placement.h):
 *   job_test  - the core ranks node sets (pods); cons_tres is offered one set at a time by
 *               narrowing the node bitmap, best set first;
 *   job_begin - the hot/cold memory is reserved on the nodes cons_tres chose, and the decision
 *               is written into SystemComment and the job's environment;
 *   job_fini  - the reservation is released (end, cancel, requeue, preemption).
 * Jobs without Morpheus flags are passed through untouched.
 *
 * What changed from 22.05 (src/interfaces/select.{c,h} of 24.11):
 *   - the interface moved from src/common/select.h to src/interfaces/select.h, and the ops
 *     table (slurm_select_ops_t) and the symbol list (node_select_syms[]) became static in
 *     select.c, so both are reproduced here, in the loader's order: plugin_id + 31 functions;
 *   - gone: select_p_select_jobinfo_sprint, _jobinfo_xstrdup, select_p_update_node_config,
 *     select_p_resv_test;
 *   - select_p_job_test takes resv_exc_t * (was bitstr_t *exc_core_bitmap) and
 *     will_run_data_t *; lists are list_t *;
 *   - only select/linear (102) and select/cons_tres (109) remain; the loader still loads
 *     every select_*.so in PluginDir (select_g_init(0) in slurmctld and clients) and still
 *     rejects duplicate plugin_ids and ids below 100.
 * In 24.11, topology placement inside cons_tres goes through topology_g_eval_nodes() (the
 * topology plugin). Narrowing the bitmap before cons_tres's job_test still steers it, so the
 * select wrapper remains the seam; a topology/morpheus plugin would be the alternative.
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

/* Built with -fvisibility=hidden: what follows is the plugin's interface (select_morpheus.map). */
#pragma GCC visibility push(default)

#define SELECT_PLUGIN_MORPHEUS 186 /* unique among select plugins; 102 and 109 are Slurm's */

const char plugin_name[] = "Morpheus memory- and topology-aware selection (over cons_tres)";
const char plugin_type[] = "select/morpheus";
const uint32_t plugin_id = SELECT_PLUGIN_MORPHEUS;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#pragma GCC visibility pop

/* src/interfaces/select.c (24.11): static there, so repeated here in the same order. */
typedef struct {
	uint32_t (*plugin_id);
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
			uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
			list_t *preeemptee_candidates, list_t **preemptee_job_list,
			resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr, select_jobinfo_t *step_jobinfo,
				     uint32_t node_count, bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo, enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo, enum select_jobdata_type data_type,
			   void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer, uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo, job_record_t *job_ptr,
				    void *data);
	int (*reconfigure)(void);
} morpheus_select_ops_t;

static const char *cons_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_get_info_from_plugin",
	"select_p_reconfigure",
};

_Static_assert(sizeof(cons_syms) / sizeof(cons_syms[0]) ==
		       sizeof(morpheus_select_ops_t) / sizeof(void *),
	       "cons_syms[] and morpheus_select_ops_t must list the same entry points");

static morpheus_select_ops_t cons;
static void *cons_handle;

static int _load_cons_tres(void)
{
	const size_t n_syms = sizeof(cons_syms) / sizeof(cons_syms[0]);
	void **slot = (void **) &cons;
	int (*cons_init)(void);
	char *dirs = NULL, *dir, *save = NULL;

	/* Already loaded by the plugin loader (slurmctld loads every select_*.so): share it. */
	cons_handle = dlopen("select_cons_tres.so", RTLD_LAZY | RTLD_NOLOAD);
	if (!cons_handle) {
		/* Not yet: open it from PluginDir, lazily (it refers to slurmctld-only symbols that
		 * a client command does not have). */
		dirs = xstrdup(slurm_conf.plugindir);
		for (dir = strtok_r(dirs, ":", &save); dir && !cons_handle;
		     dir = strtok_r(NULL, ":", &save)) {
			char *path = xstrdup_printf("%s/select_cons_tres.so", dir);
			cons_handle = dlopen(path, RTLD_LAZY);
			xfree(path);
		}
		xfree(dirs);
	}
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
	/* cons_tres's init() only sets gang_mode from slurm_conf: safe to run twice. */
	if ((cons_init = (int (*)(void)) dlsym(cons_handle, "init")) && cons_init() != SLURM_SUCCESS)
		return SLURM_ERROR;
	return SLURM_SUCCESS;
}

/*
 * 24.11 runs scontrol reconfigure as a new slurmctld (controller.c: _try_to_reconfig()
 * re-execs it with SLURMCTLD_RECONF=1); the old one resumes when the new one dies before it
 * reports success. So this init() is the reload: with broken Morpheus files the new process
 * refuses to take over, and the running one keeps the last good configuration, as an
 * in-process reload does in 22.05. A first start with broken files keeps Morpheus jobs
 * pending instead (placement_open()), so a slurmctld always comes up.
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
	/* Loaded but not configured (clients, slurmd, or another SelectType): forwarder only. */
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
	/* cons_tres's fini() is the loader's to call (it owns that plugin context); we only drop
	 * our reference. */
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

extern int select_p_state_save(char *dir_name)
{
	return (*(cons.state_save))(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*(cons.state_restore))(dir_name);
}

/* Called by read_slurm_conf() once jobs are recovered: at startup (the ledger is reconciled
 * with the jobs that survived) and on every scontrol reconfigure (the Morpheus files are
 * re-read too). In 24.11 reconfigure re-execs slurmctld, so both are a startup. */
extern int select_p_job_init(list_t *job_list_arg)
{
	int rc = (*(cons.job_init))(job_list_arg);

	placement_jobs_recovered(job_list_arg);
	return rc;
}

extern int select_p_node_init(void)
{
	return (*(cons.node_init))();
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

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr, select_jobinfo_t *jobinfo,
					  uint32_t node_count, bitstr_t **avail_nodes)
{
	return (*(cons.step_pick_nodes))(job_ptr, jobinfo, node_count, avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*(cons.step_start))(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*(cons.step_finish))(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo, buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*(cons.nodeinfo_pack))(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo, buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*(cons.nodeinfo_unpack))(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*(cons.nodeinfo_alloc))();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*(cons.nodeinfo_free))(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(cons.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(cons.nodeinfo_set))(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*(cons.nodeinfo_get))(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*(cons.jobinfo_alloc))();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*(cons.jobinfo_free))(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type, void *data)
{
	return (*(cons.jobinfo_set))(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type, void *data)
{
	return (*(cons.jobinfo_get))(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return (*(cons.jobinfo_copy))(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo, buf_t *buffer,
					uint16_t protocol_version)
{
	return (*(cons.jobinfo_pack))(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo, buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*(cons.jobinfo_unpack))(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*(cons.get_info_from_plugin))(dinfo, job_ptr, data);
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
