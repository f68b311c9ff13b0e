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

#pragma GCC visibility pop

static submit_check_fn _find_check(void)
{
	static submit_check_fn check;
	void *handle;

	if (check)
		return check;
	/* select/morpheus is loaded by slurmctld's select_g_init() before any job arrives. */
	if (!(handle = dlopen(MORPHEUS_SELECT_SO, RTLD_LAZY | RTLD_NOLOAD)))
		return NULL;
	check = (submit_check_fn) dlsym(handle, "select_morpheus_check_submission");
	dlclose(handle); /* NOLOAD took a reference; the loader keeps its own */
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

/* Morpheus options cannot be changed after submission (spank_job_env is not updatable). */
extern int job_modify(job_desc_msg_t *job_desc, struct job_record *job_ptr,
		      uint32_t submit_uid, char **err_msg)
{
	return SLURM_SUCCESS;
}

#pragma GCC visibility pop
