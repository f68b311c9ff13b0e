/*
 * job_submit_morpheus.c - JobSubmitPlugins=morpheus: rejects at sbatch/salloc/srun time a
 * Morpheus request that is malformed or can never be placed, with the core's reason as the
 * message the user sees ("sbatch: error: Morpheus: ...").
 *
 * Why a job_submit plugin: select plugins cannot return a message to the submitting user
 * (select_nodes() only maps their failure to "Requested node configuration is not
 * available"); job_submit's err_msg reaches the client. The check itself lives in
 * select/morpheus (select_morpheus_check_submission), so slurmctld keeps a single engine; this
 * plugin finds it with dlopen(RTLD_NOLOAD) and is a no-op when select/morpheus is not loaded.
 * With LicenseHot=/LicenseCold= in morpheus.conf the check also adds the licenses that mirror
 * the job's blade memory (job_desc->licenses), so Slurm's accounting and QOS limits see it.
 */
#include <dlfcn.h>
#include <stddef.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

struct job_record;

/* The select plugin's file (soname): select_cons_tres_morpheus.so for the 26.05 layer, whose
 * SelectType keeps "cons_tres" in its name (plugins/select/slurm-26.05). */
#ifndef MORPHEUS_SELECT_SO
#define MORPHEUS_SELECT_SO "select_morpheus.so"
#endif

/* Built with -fvisibility=hidden: the plugin's interface (job_submit_morpheus.map). */
#pragma GCC visibility push(default)

const char plugin_name[] = "Morpheus submission check";
const char plugin_type[] = "job_submit/morpheus";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The whole request goes over: the check needs the nodes, GPUs (--gpus) and required node
 * list (--nodelist) as well as the Morpheus options. Both plugins are built for one release. */
typedef int (*submit_check_fn)(job_desc_msg_t *job_desc, uint32_t uid, char **err_msg);
typedef int (*modify_check_fn)(job_desc_msg_t *job_desc, struct job_record *job_ptr, uint32_t uid,
			       char **err_msg);

#pragma GCC visibility pop

/* select/morpheus's entry point `name`: it is loaded by slurmctld's select_g_init() before
 * any job arrives; NULL when it is not (another SelectType). */
static void *_find(const char *name)
{
	void *handle, *sym;

	if (!(handle = dlopen(MORPHEUS_SELECT_SO, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	sym = dlsym(handle, name);
	dlclose(handle); /* NOLOAD took a reference; the loader keeps its own */
	return sym;
}

static submit_check_fn _find_check(void)
{
	static submit_check_fn check;

	if (!check)
		check = (submit_check_fn) _find("select_morpheus_check_submission");
	return check;
}

static modify_check_fn _find_modify(void)
{
	static modify_check_fn check;

	if (!check)
		check = (modify_check_fn) _find("select_morpheus_check_modify");
	return check;
}

#pragma GCC visibility push(default)

extern int init(void)
{
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	submit_check_fn check = _find_check();

	if (!check)
		return SLURM_SUCCESS;
	return check(job_desc, submit_uid, err_msg);
}

/*
 * Every update (scontrol update, as the owner or an admin): the Morpheus options themselves
 * cannot change (spank_job_env is not updatable), but the size, node list and licences can,
 * and the blade-memory charge must follow them, never lowered (issue 24). Slurm 23.02 gave
 * job_modify an err_msg for the user; 22.05 calls it with three arguments, so there the reason
 * goes to slurmctld's log and the user sees the error code only.
 */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	modify_check_fn check = _find_modify();

	return check ? check(job_desc, job_ptr, submit_uid, err_msg) : SLURM_SUCCESS;
}
#else
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr,
		      uint32_t submit_uid)
{
	modify_check_fn check = _find_modify();

	/* NULL: select/morpheus logs the reason and frees it with Slurm's own xfree. */
	return check ? check(job_desc, job_ptr, submit_uid, NULL) : SLURM_SUCCESS;
}
#endif

#pragma GCC visibility pop
