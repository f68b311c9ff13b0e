/*
 * morpheus_status_lifecycle.c - starts the status service when StatusPort, StatusAddress or
 * PrivateData change, and joins the one it replaces outside glue_lock.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "morpheus_glue.h"

static int status_port;		   /* the status service's port, 0: not running */
static int status_failed_port;	   /* last port that could not be bound (logged once) */
static char *status_conf_address;  /* StatusAddress the service started with ("": default) */
static unsigned status_flags;	   /* MORPHEUS_STATUS_* the service started with */
static morpheus_status_service_t *retired_status; /* joined outside glue_lock, see below */

static unsigned _status_flags(void)
{
	return (slurm_conf.private_data & PRIVATE_DATA_JOBS) ? MORPHEUS_STATUS_PRIVATE_JOBS : 0;
}

/*
 * StatusPort and StatusAddress of morpheus.conf, PrivateData of slurm.conf: the status service
 * is (re)started when they change; root and SlurmUser are privileged. A running service is
 * only detached here, never joined: job_test waits for glue_lock, so the caller joins it with
 * glue_retire_status_service() after unlocking, and the next call starts the new one.
 */
extern void glue_status_service_locked(void)
{
	int port = morpheus_engine_status_port(glue_engine);
	char *address_copy = morpheus_engine_status_address(glue_engine);
	char conf_address[256];
	unsigned flags = _status_flags();
	uint32_t privileged = slurm_conf.slurm_user_id;
	morpheus_error_t err;
	int rc = -1, tries;

	/* A copy the size of an address: a reload (outside glue_lock) may replace the config. */
	snprintf(conf_address, sizeof(conf_address), "%s", address_copy ? address_copy : "");
	free(address_copy);
	if (retired_status)
		return; /* the old one still holds the port until it is joined */
	if ((port == status_port) && (!status_port || ((flags == status_flags) &&
	    !xstrcmp(conf_address, status_conf_address))))
		return;
	if (status_port) {
		retired_status = morpheus_status_service_detach(glue_engine);
		status_port = 0;
		return;
	}
	if (port <= 0)
		return;
	/* By default on slurmctld's own address, never on all: try each SlurmctldHost's, as this
	 * slurmctld may be a backup. Retried every second by the watcher: a port can be held for
	 * a moment by the slurmctld this one replaces (24.11 reconfigure, a quick restart). */
	tries = (conf_address[0] || !slurm_conf.control_addr || (slurm_conf.control_cnt < 1)) ?
		1 : slurm_conf.control_cnt;
	for (int i = 0; (rc < 0) && (i < tries); i++)
		rc = morpheus_status_service_start_ex(
			glue_engine, port,
			(slurm_conf.control_addr && (i < slurm_conf.control_cnt)) ?
				slurm_conf.control_addr[i] : NULL,
			&privileged, 1, flags, &err);
	if (rc < 0) {
		char *why = glue_err_text(&err);
		if (port != status_failed_port)
			error("select/morpheus: status service on port %d not started (retried every second): %s",
			      port, why);
		status_failed_port = port;
		xfree(why);
		return;
	}
	status_port = port;
	status_failed_port = 0;
	status_flags = flags;
	xfree(status_conf_address);
	status_conf_address = xstrdup(conf_address);
	info("select/morpheus: status service listening on %s port %d%s",
	     morpheus_status_service_address(glue_engine), port,
	     (flags & MORPHEUS_STATUS_PRIVATE_JOBS) ? ", PrivateData=jobs" : "");
}

/* Stops and joins the service glue_status_service_locked() detached. Called without glue_lock. */
extern void glue_retire_status_service(void)
{
	morpheus_status_service_t *s;

	slurm_mutex_lock(&glue_lock);
	s = retired_status;
	retired_status = NULL;
	slurm_mutex_unlock(&glue_lock);
	morpheus_status_service_destroy(&s);
}

/* Whether a service detached by glue_status_service_locked() still waits to be joined. */
extern bool glue_status_service_retired_locked(void)
{
	return retired_status != NULL;
}

/* placement_close(): the running service is detached, to be joined with
 * glue_retire_status_service() before the engine closes. */
extern void glue_status_service_detach_locked(void)
{
	if (glue_engine && status_port && !retired_status)
		retired_status = morpheus_status_service_detach(glue_engine);
	status_port = 0;
	xfree(status_conf_address);
}
