/*
 * morpheus_ckpt.h - for a training job: is my checkpoint window open, and how long until it
 * opens? Computed from the MORPHEUS_CKPT_* variables select/morpheus puts in the job's
 * environment (morpheus_env.h); no library, no connection, nothing to free, so a training loop
 * can ask at every step boundary. `morpheus ckpt` is the same call for shells.
 *
 * The controller books each checkpointing job's flush window on the fabric's links so that
 * windows that share a link never overlap beyond the link's CheckpointShare: the window is open
 * at every unix time t with (t mod MORPHEUS_CKPT_PERIOD) in [MORPHEUS_CKPT_PHASE,
 * MORPHEUS_CKPT_PHASE + MORPHEUS_CKPT_WINDOW). A flush begun inside the window finishes in it
 * when it moves MORPHEUS_CKPT_BYTES at the booked rate.
 *
 *   int open; long long wait;
 *   if (morpheus_ckpt_window(time(NULL), &open, &wait) == 0 && open) save_checkpoint();
 */
#ifndef MORPHEUS_CKPT_H
#define MORPHEUS_CKPT_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "morpheus/morpheus_env.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The job's booked window, read from the environment. */
typedef struct morpheus_ckpt_window_spec {
	int64_t period_s; /* MORPHEUS_CKPT_PERIOD */
	int64_t phase_s;  /* MORPHEUS_CKPT_PHASE, 0 <= phase < period */
	int64_t length_s; /* MORPHEUS_CKPT_WINDOW, 0 < length <= period */
} morpheus_ckpt_window_spec_t;

/* A whole non-negative number from the environment variable `name`; -1 when absent or not one. */
static inline int64_t morpheus_ckpt_env_seconds(const char *name)
{
	const char *text = getenv(name);
	char *end;
	long long v;

	if (!text || !*text)
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || *end || v < 0)
		return -1;
	return (int64_t) v;
}

/* 0 and the window, or -1 with errno ENOENT (the job has no checkpoint window: not a
 * checkpointing job, or not started by select/morpheus) or EINVAL (values out of range). */
static inline int morpheus_ckpt_window_from_env(morpheus_ckpt_window_spec_t *w)
{
	w->period_s = morpheus_ckpt_env_seconds(MORPHEUS_ENV_CKPT_PERIOD);
	w->phase_s = morpheus_ckpt_env_seconds(MORPHEUS_ENV_CKPT_PHASE);
	w->length_s = morpheus_ckpt_env_seconds(MORPHEUS_ENV_CKPT_WINDOW);
	if (!getenv(MORPHEUS_ENV_CKPT_PERIOD)) {
		errno = ENOENT;
		return -1;
	}
	if (w->period_s <= 0 || w->phase_s < 0 || w->phase_s >= w->period_s || w->length_s <= 0 ||
	    w->length_s > w->period_s) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* At unix time `now`: *open = 1 inside the window (then *seconds is how long it stays open),
 * else 0 (then *seconds is how long until it opens). */
static inline void morpheus_ckpt_window_at(const morpheus_ckpt_window_spec_t *w, int64_t now, int *open,
					   int64_t *seconds)
{
	int64_t into = ((now % w->period_s) + w->period_s) % w->period_s; /* now before 1970: still in range */
	int64_t since_open = ((into - w->phase_s) % w->period_s + w->period_s) % w->period_s;

	if (since_open < w->length_s) {
		*open = 1;
		*seconds = w->length_s - since_open;
	} else {
		*open = 0;
		*seconds = w->period_s - since_open;
	}
}

/* The job's window at `now` (unix seconds): 0, *open and *seconds as morpheus_ckpt_window_at,
 * or -1 with errno as morpheus_ckpt_window_from_env. */
static inline int morpheus_ckpt_window(int64_t now, int *open, int64_t *seconds)
{
	morpheus_ckpt_window_spec_t w;

	if (morpheus_ckpt_window_from_env(&w) < 0)
		return -1;
	morpheus_ckpt_window_at(&w, now, open, seconds);
	return 0;
}

/* 1 when the job restarts after a requeue with an intact checkpoint to read back
 * (MORPHEUS_CKPT_RESTORE=1), 0 otherwise. */
static inline int morpheus_ckpt_restore(void)
{
	const char *v = getenv(MORPHEUS_ENV_CKPT_RESTORE);

	return v && v[0] == '1' && !v[1];
}

#ifdef __cplusplus
}
#endif

#endif /* MORPHEUS_CKPT_H */
