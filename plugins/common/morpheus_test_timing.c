/*
 * morpheus_test_timing.c - the scheduler time of Morpheus jobs, split between Morpheus,
 * cons_tres and the wait for glue_lock (morpheus_test_timing.h). Two clock reads per test and
 * one per cons_tres run; the totals go to the core (an uncontended lock), as the decision
 * cache's counts do.
 */
#include "config.h"

#include <time.h>

#include "morpheus_refusal_memo.h"
#include "morpheus_test_timing.h"

static morpheus_test_timing_t totals; /* under glue_lock */

extern double glue_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

extern int glue_timed_try(void *timed_try, bitstr_t *bitmap)
{
	glue_timed_try_t *t = timed_try;
	double t0 = glue_clock();
	int rc = t->fn(t->arg, bitmap);

	t->seconds += glue_clock() - t0;
	t->runs++;
	return rc;
}

extern void glue_note_test_locked(uint16_t mode, double started, double locked,
				  const glue_timed_try_t *t)
{
	morpheus_mode_timing_t *m =
		(mode == SELECT_MODE_WILL_RUN) ? &totals.will_run : &totals.run_now;

	m->tests++;
	if (mode == SELECT_MODE_RUN_NOW)
		m->cons_tres_remembered = glue_refusals_remembered();
	m->cons_tres_runs += t->runs;
	m->cons_tres_seconds += t->seconds;
	m->lock_wait_seconds += locked - started;
	m->seconds += glue_clock() - started;
	if (glue_engine)
		morpheus_test_timing(glue_engine, &totals);
}

extern void glue_note_begin_locked(double started)
{
	totals.begins++;
	totals.begin_seconds += glue_clock() - started;
	if (glue_engine)
		morpheus_test_timing(glue_engine, &totals);
}
