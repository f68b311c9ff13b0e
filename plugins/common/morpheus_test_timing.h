/*
 * morpheus_test_timing.h - where the scheduler's time goes in select/morpheus (issue 26): the
 * wall time of each job test and job start of a Morpheus job, the part of it cons_tres took
 * and the wait for glue_lock, as totals for `morpheus metrics`. Private to plugins/common.
 */
#ifndef MORPHEUS_TEST_TIMING_H
#define MORPHEUS_TEST_TIMING_H

#include <inttypes.h>

#include "morpheus_glue.h"

/* A monotonic clock in seconds. */
extern double glue_clock(void);

/* cons_tres's job test, timed: wrap the shim's try_fn with glue_timed_try and this as its arg. */
typedef struct glue_timed_try {
	placement_try_fn fn;
	void *arg;
	uint64_t runs;
	double seconds;
} glue_timed_try_t;
extern int glue_timed_try(void *timed_try, bitstr_t *bitmap);

/* Adds a job test in `mode` (SELECT_MODE_RUN_NOW or _WILL_RUN) that began at `started`, got
 * glue_lock at `locked` and made the cons_tres runs in `t`; a job start that began at
 * `started`. Hold glue_lock. */
extern void glue_note_test_locked(uint16_t mode, double started, double locked,
				  const glue_timed_try_t *t);
extern void glue_note_begin_locked(double started);

#endif
