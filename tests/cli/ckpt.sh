#!/bin/sh
# morpheus ckpt: the job's checkpoint window from its MORPHEUS_CKPT_* environment (issue 28):
# exit 0 open (seconds left), 3 closed (seconds until it opens), 1 no window; --json, --env.
. "$top_srcdir/tests/cli/lib.sh"
export MORPHEUS_CKPT_PERIOD=60 MORPHEUS_CKPT_PHASE=30 MORPHEUS_CKPT_WINDOW=26
run 0 "$MORPHEUS" ckpt --now 1000
contains "$WORK/out" "16"
run 3 "$MORPHEUS" ckpt --now 1016
contains "$WORK/out" "34"
run 0 "$MORPHEUS" ckpt --now 1000 --json
[ "$(json_field "(d['open'], d['seconds'], d['period_s'], d['restore'])" | tr -d ' ')" = "(True,16,60,False)" ] ||
    { echo "FAIL: --json: $(cat "$WORK/out")"; failures=$((failures + 1)); }
MORPHEUS_CKPT_RESTORE=1 run 0 "$MORPHEUS" ckpt --now 1000 --json
[ "$(json_field "d['restore']")" = "True" ] || { echo "FAIL: restore: $(cat "$WORK/out")"; failures=$((failures + 1)); }
MORPHEUS_CKPT_IB_SL=1 run 0 "$MORPHEUS" ckpt --env
contains "$WORK/out" "NCCL_IB_SL=1"
contains "$WORK/out" "UCX_IB_SL=1"
MORPHEUS_CKPT_PHASE=90 run 1 "$MORPHEUS" ckpt
contains "$WORK/err" "out of range"
unset MORPHEUS_CKPT_PERIOD
run 1 "$MORPHEUS" ckpt
contains "$WORK/err" "no checkpoint window"
run 2 "$MORPHEUS" ckpt --bogus
finish
