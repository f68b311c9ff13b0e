#!/bin/sh
# morpheus fabric: the pod x blade latency matrix as text, fields, JSON/YAML and a picture.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"
fail() { echo "FAIL: $1"; sed 's/^/  | /' "$WORK/out"; failures=$((failures + 1)); }

run 0 "$MORPHEUS" fabric "$F" "$I"
golden "$DATA/cli/fabric-matrix.expected"
# The JSON is the matrix the placement uses: pod1's near blade, the others' leaf blades.
run 0 "$MORPHEUS" fabric "$F" "$I" --json
[ "$(json_field "d['latency_ns'][0][0]")" = 200 ] || fail "pod1 -> blade1"
[ "$(json_field "d['latency_ns'][1][1]")" = 280 ] || fail "pod2 -> blade2"
[ "$(json_field "len(d['latency_ns']) * len(d['latency_ns'][0])")" = 32 ] || fail "4 x 8 matrix"
# -p picks rows, -t picks blade columns by state.
sed 's/"state": "up"/"state": "failed"/' "$I" | python3 -c "
import json,sys; d=json.load(sys.stdin)
for b in d['blades']: b['state'] = 'failed' if b['name'] == 'blade2' else 'up'
json.dump(d, open('$WORK/inv.json', 'w'))"
run 0 "$MORPHEUS" fabric "$F" "$WORK/inv.json" -p pod2 -t up --json
[ "$(json_field "[p['pod'] for p in d['pods']]")" = "['pod2']" ] || fail "-p pod2"
[ "$(json_field "'blade2' in [b['blade'] for b in d['blades']] or len(d['latency_ns'][0]) != 7")" = False ] || fail "-t up"
run 0 "$MORPHEUS" fabric "$F" "$WORK/inv.json" -p pod2
contains "$WORK/out" "blade2(failed)"
run 0 "$MORPHEUS" fabric "$F" "$I" -p pod1,pod3 -O pod,blade,latency:.6 -h
[ "$(wc -l <"$WORK/out")" = 16 ] || fail "-O lists 2 x 8 cells"
contains "$WORK/out" "pod3  blade3   280ns"
run 0 "$MORPHEUS" fabric "$F" "$I" -o "%P>%b=%l" -p pod4 -h
[ "$(sed -n 4p "$WORK/out")" = "pod4>blade4=280ns" ] || fail "-o"
run 0 "$MORPHEUS" fabric "$F" "$I" --yaml
python3 -c "import sys,yaml; d=yaml.safe_load(open('$WORK/out')); sys.exit(d['latency_ns'][0][0] != 200)" || fail "--yaml"
run 1 "$MORPHEUS" fabric "$F" "$I" -p pod0
contains "$WORK/err" "invalid pod: pod0"
# --plot: an SVG heat map with the pods and blades named; a clear error without gnuplot.
run 1 "$MORPHEUS" fabric "$F" "$I" --plot "$WORK/heat.pdf"
contains "$WORK/err" "neither .svg nor .png"
if command -v gnuplot >/dev/null; then
    run 0 "$MORPHEUS" fabric "$F" "$I" --plot "$WORK/heat.svg"
    grep -q "<svg" "$WORK/heat.svg" && grep -q "blade8" "$WORK/heat.svg" && grep -q "pod4" "$WORK/heat.svg" ||
        { echo "FAIL: heat.svg lacks the svg, blade8 or pod4"; failures=$((failures + 1)); }
fi
PATH=/nonexistent run 1 "$MORPHEUS" fabric "$F" "$I" --plot "$WORK/heat2.svg"
contains "$WORK/err" "gnuplot is not installed"

# --live: the measured heat map is the controller's; offline it says so, never shows the
# static matrix as measured.
run 1 "$MORPHEUS" fabric "$F" "$I" --live
contains "$WORK/err" "no measurements offline"
run 1 "$MORPHEUS" fabric "$F" "$I" --all
contains "$WORK/err" "options of --live"
# A saved answer (fabric --live --json) renders as the live one: the measured cells by default
# (a fresh one with its figure, ratio and live flag; a stale one with none), --all the rest.
LIVE="$DATA/cli/fabric-live.json"
run 0 "$MORPHEUS" fabric --live --from "$LIVE"
golden "$DATA/cli/fabric-live.expected"
run 0 "$MORPHEUS" fabric --live --from "$LIVE" --all -p pod1 -O pod,blade,measured,ratio,used,state -h
[ "$(wc -l <"$WORK/out")" = 3 ] || fail "--all -p pod1 lists pod1's three cells"
contains "$WORK/out" "pod1  blade6  -         -      370ns  unmeasured"
run 0 "$MORPHEUS" fabric --live --from "$LIVE" --blade blade2 -o "%P %b %t %a" -h
[ "$(cat "$WORK/out")" = "pod2 blade2 stale 15m" ] || fail "--blade blade2 is the stale cell"
run 0 "$MORPHEUS" fabric --live --from "$LIVE" --json
[ "$(json_field "[(c['blade'], c.get('measured_ns'), c['live']) for c in d['cells']]")" = \
    "[('blade1', 400, True), ('blade5', 380, False), ('blade2', None, False)]" ] || fail "--live --json cells"
run 1 "$MORPHEUS" fabric --live --from "$LIVE" -t up
contains "$WORK/err" "name blades with --blade"
if command -v gnuplot >/dev/null; then
    run 0 "$MORPHEUS" fabric --live --from "$LIVE" --all --plot "$WORK/live.svg"
    grep -q "measured / static" "$WORK/live.svg" && grep -q "stale after 600s" "$WORK/live.svg" &&
        grep -q "blade6" "$WORK/live.svg" || fail "live.svg lacks its panels or blade6"
fi
finish
