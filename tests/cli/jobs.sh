#!/bin/sh
# morpheus jobs (offline, from a ledger): the squeue of placements, with squeue's habits:
# -h is --noheader, --help/--usage print the usage, filters that name nothing are errors.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; L="$WORK/ledger.json"

run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 100G --mem-hot-latency 250ns --state "$L" --reserve --job-id 42
run 0 "$MORPHEUS" place "$F" "$I" --nodes 1 --mem-hot 10G --mem-hot-latency 300ns --state "$L" --reserve --job-id 43
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L"
contains "$WORK/out" "JOBID"
[ "$(awk '$1 == 42 || $1 == 43' "$WORK/out" | wc -l)" = 2 ] || { echo "FAIL: two jobs listed"; cat "$WORK/out"; failures=$((failures+1)); }
contains "$WORK/out" "blade1:"
contains "$WORK/out" "NODELIST"
[ "$(awk '$1 == 42 {print $5}' "$WORK/out")" = "gpu[101-102]" ] || { echo "FAIL: NODELIST of 42"; cat "$WORK/out"; failures=$((failures+1)); }
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" -h
[ "$(head -1 "$WORK/out" | awk '{print $1}')" = 42 ] || { echo "FAIL: -h left the header"; cat "$WORK/out"; failures=$((failures+1)); }
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" --noheader -j 43
[ "$(wc -l <"$WORK/out")" = 1 ] || { echo "FAIL: -j 43"; cat "$WORK/out"; failures=$((failures+1)); }
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" --pod pod1 --json
[ "$(json_field "sorted(j['job_id'] for j in d['jobs'])")" = "[42, 43]" ] || { echo "FAIL: --pod pod1"; failures=$((failures+1)); }
run 0 "$MORPHEUS" jobs --help
contains "$WORK/out" "usage: morpheus jobs"
run 0 "$MORPHEUS" jobs --usage
contains "$WORK/out" "--noheader"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" --pod pod9
contains "$WORK/err" "invalid pod: pod9"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -u no-such-user-here
contains "$WORK/err" "invalid user: no-such-user-here"
# pools: -h drops the header lines too.
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -O blade,dram_free -h
[ "$(head -1 "$WORK/out" | awk '{print $1}')" = blade1 ] || { echo "FAIL: pools -h"; cat "$WORK/out"; failures=$((failures+1)); }
finish
