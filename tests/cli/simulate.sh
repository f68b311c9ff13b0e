#!/bin/sh
# morpheus simulate: a small SWF log on the example cluster, every policy, golden table; JSON
# agrees with it; the plot is drawn; bad traces and policies are named.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; T="$DATA/sim/small.swf"

run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --check
golden "$DATA/sim/small.expected"

run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --json
[ "$(json_field "[p['ran'] for p in d['policies']]")" = "[10, 10, 10]" ] || { echo "FAIL: every policy replays the same 10 jobs"; failures=$((failures+1)); }
[ "$(json_field "d['policies'][0]['hot_within_bound']")" = 1.0 ] || { echo "FAIL: morpheus keeps hot memory in bound"; failures=$((failures+1)); }
[ "$(json_field "d['policies'][1]['hot_within_bound'] < 1")" = True ] || { echo "FAIL: first-fit leaves the bound"; failures=$((failures+1)); }
[ "$(json_field "sum(p['violations'] for p in d['policies'])")" = 0 ] || { echo "FAIL: conservation"; failures=$((failures+1)); }

# Synthetic traces repeat exactly for a seed.
run 0 "$MORPHEUS" simulate "$F" "$I" --synthetic 200 --seed 7 --backfill --json
cp "$WORK/out" "$WORK/first.json"
run 0 "$MORPHEUS" simulate "$F" "$I" --synthetic 200 --seed 7 --backfill --json
cmp -s "$WORK/out" "$WORK/first.json" || { echo "FAIL: synthetic run differs for the same seed"; failures=$((failures+1)); }

if command -v gnuplot >/dev/null 2>&1; then
    run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --plot "$WORK/u.svg"
    grep -q "<svg" "$WORK/u.svg" 2>/dev/null || { echo "FAIL: no svg plot"; failures=$((failures+1)); }
fi

printf '1 0 -1 10 1\n' > "$WORK/bad.swf"
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$WORK/bad.swf"
contains "$WORK/err" "bad.swf: line 1: 5 columns, SWF has 18"
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --policy morpheus,best-fit
contains "$WORK/err" "unknown policy \"best-fit\""
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --plot "$WORK/u.pdf"
contains "$WORK/err" "neither .svg nor .png"
run 2 "$MORPHEUS" simulate "$F" "$I"
contains "$WORK/err" "give one of --trace FILE or --synthetic N"
finish
