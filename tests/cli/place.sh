#!/bin/sh
# morpheus place: the bound decides the pod, and a bound nobody meets is refused with the reason.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"

# Only pod1 reaches a blade within 250ns.
run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 256G --mem-hot-latency 250ns
golden "$DATA/cli/place-250ns.expected"

run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 256G --mem-hot-latency 250ns --json
[ "$(json_field "d['placement']['pods'][0]['pod']")" = pod1 ] || { echo "FAIL: json pod"; failures=$((failures+1)); }
[ "$(json_field "d['verdict']")" = placed ] || { echo "FAIL: json verdict"; failures=$((failures+1)); }
[ "$(json_field "sum(s['bytes'] for s in d['placement']['segments'])")" = $((512 * 1024 * 1024 * 1024)) ] ||
    { echo "FAIL: json bytes"; failures=$((failures+1)); }

# Nobody reaches a blade within 100ns: impossible, exit 4, with the nearest figure.
run 4 "$MORPHEUS" place "$F" "$I" --nodes 1 --mem-hot 64G --mem-hot-latency 100ns
contains "$WORK/out" "verdict: impossible: could never be placed, even on an empty cluster: 4 pods have no blade within 100ns (nearest: 200ns from pod1)"

# Pending, not impossible: pod1's nodes are busy.
run 3 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 64G --mem-hot-latency 250ns --busy 'gpu[101-103]'
contains "$WORK/out" "verdict: pending"
contains "$WORK/out" "pod1: ruled out: only 1 free nodes of 2 needed"

# Competing jobs: two fit blade1's 1T, the third waits (reservations recorded in a ledger).
L="$WORK/ledger.json"
run 0 "$MORPHEUS" place "$F" "$I" --mem-hot 400G --mem-hot-latency 250ns --state "$L" --reserve --job-id 1
run 0 "$MORPHEUS" place "$F" "$I" --mem-hot 400G --mem-hot-latency 250ns --state "$L" --reserve --job-id 2
run 3 "$MORPHEUS" place "$F" "$I" --mem-hot 400G --mem-hot-latency 250ns --state "$L"
contains "$WORK/out" "hot memory within 250ns: 224G free of 400G needed"
run 0 "$MORPHEUS" place "$F" "$I" --state "$L" --release 1
contains "$WORK/out" "job 1: released"
run 0 "$MORPHEUS" place "$F" "$I" --state "$L" --release 1
contains "$WORK/out" "job 1: held nothing"
run 0 "$MORPHEUS" place "$F" "$I" --mem-hot 400G --mem-hot-latency 250ns --state "$L"

# Bad flags name the flag and the form.
run 1 "$MORPHEUS" place "$F" "$I" --mem-hot 12XB
contains "$WORK/err" "--mem-hot: unknown size unit 'XB' in '12XB'"
run 1 "$MORPHEUS" place "$F" "$I" --mem-hot 1G --mem-hot-latency 3parsec
contains "$WORK/err" "--mem-hot-latency: unknown time unit"
finish
