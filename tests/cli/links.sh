#!/bin/sh
# morpheus links (offline, from a ledger): which jobs' checkpoint windows hold which link when.
# Two flushes of 600G to the same blade every minute cannot share its leaf link's checkpoint
# share: the view must show them on that link in disjoint windows, the load never over the
# share, and pick links by end and by job.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; L="$WORK/ledger.json"

run 0 "$MORPHEUS" links "$F" "$I" --state "$L"
contains "$WORK/out" "no checkpoint window is booked"
for job in 7 8; do
    run 0 "$MORPHEUS" place "$F" "$I" --ckpt-size 600G --ckpt-period 60s --state "$L" --reserve --job-id $job
    contains "$WORK/out" "checkpoint window: every 1m"
done
run 0 "$MORPHEUS" place "$F" "$I" -N 2 --ckpt-size 300G --ckpt-period 2m --state "$L" --reserve --job-id 9

run 0 "$MORPHEUS" links "$F" "$I" --state "$L"
contains "$WORK/out" "LINK TIME booked by 3 checkpoint window(s)"
contains "$WORK/out" "NEXT_OPEN"
[ "$(awk '$1 == "blade1-leaf1" && ($2 == 7 || $2 == 8)' "$WORK/out" | wc -l)" = 2 ] ||
    { echo "FAIL: jobs 7 and 8 on blade1-leaf1"; cat "$WORK/out"; failures=$((failures+1)); }

run 0 "$MORPHEUS" links "$F" "$I" --state "$L" --link blade1 --json
check=$(json_field "
[k for k in d['links'] if k['from'] == 'blade1' or k['to'] == 'blade1'] == d['links'] and len(d['links']) == 1 and (lambda k: (
  sorted(h['job_id'] for h in k['holders']) == [7, 8] and
  # disjoint windows inside the period, and never more than the link's checkpoint capacity
  (lambda a, b: a['phase_s'] + a['window_s'] <= b['phase_s'] or b['phase_s'] + b['window_s'] <= a['phase_s'])(*k['holders']) and
  all(s['booked'] <= k['capacity'] * 1.0001 for s in k['load']) and k['peak'] <= k['capacity'] * 1.0001 and
  k['peak'] > 0.5 * k['capacity'] and
  d['horizon_s'] == 60 and all(d['from'] <= s['start'] < s['end'] <= d['from'] + 60 for s in k['load'])
))(d['links'][0])")
[ "$check" = True ] || { echo "FAIL: --link blade1 --json"; cat "$WORK/out"; failures=$((failures+1)); }

run 0 "$MORPHEUS" links "$F" "$I" --state "$L" -j 9 --json
[ "$(json_field "all(any(h['job_id'] == 9 for h in k['holders']) for k in d['links']) and len(d['links']) > 0")" = True ] ||
    { echo "FAIL: -j 9 picks the links of job 9"; cat "$WORK/out"; failures=$((failures+1)); }
[ "$(json_field "d['windows']")" = 3 ] || { echo "FAIL: windows count"; failures=$((failures+1)); }

run 0 "$MORPHEUS" links "$F" "$I" --state "$L" --horizon 10m -O link,jobid,phase -h --link blade1
[ "$(wc -l <"$WORK/out")" = 2 ] || { echo "FAIL: -O rows of blade1"; cat "$WORK/out"; failures=$((failures+1)); }
contains "$WORK/out" "+30s"

if command -v gnuplot >/dev/null; then
    run 0 "$MORPHEUS" links "$F" "$I" --state "$L" --plot "$WORK/links.svg"
    contains "$WORK/links.svg" "<svg"
fi

# Bad input names the option and the fix.
run 1 "$MORPHEUS" links "$F" "$I" --state "$L" --link blade99
contains "$WORK/err" "no pod, switch or blade named 'blade99'"
run 1 "$MORPHEUS" links "$F" "$I" --state "$L" --horizon soon
contains "$WORK/err" "--horizon"
run 1 "$MORPHEUS" links "$F" "$I" --state "$L" --limit 0
contains "$WORK/err" "give 1 to 1024"
run 1 "$MORPHEUS" links "$F" "$I" --state "$L" -p pod1
contains "$WORK/err" "--link NAME"
run 1 "$MORPHEUS" links "$F" "$I" --state "$L" --plot out.pdf
run 0 "$MORPHEUS" links --help
contains "$WORK/out" "usage: morpheus links"
finish
