#!/bin/sh
# The views' Slurm habits, on pools and jobs (fabric has its own test): -o (squeue's
# printf-like form), -O (fields by name), -p/-t/-j/-u comma lists, -i, --json, --yaml, and
# errors that name what was not found.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; L="$WORK/ledger.json"
fail() { echo "FAIL: $1"; sed 's/^/  | /' "$WORK/out"; failures=$((failures + 1)); }

run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 100G --mem-hot-latency 250ns --state "$L" --reserve --job-id 42
run 0 "$MORPHEUS" place "$F" "$I" --nodes 1 --mem-hot 10G --mem-hot-latency 300ns --state "$L" --reserve --job-id 43
run 0 "$MORPHEUS" place "$F" "$I" --nodes 4 --mem-hot 10G --mem-hot-latency 300ns --state "$L" --reserve --job-id 44

# -o: literal text kept, %.N right-aligns in N, %N cuts to N, no width prints the value as is.
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" -o "%.5i|%t|%4N|%P"
golden "$DATA/cli/jobs-format.expected"
# -O: names, NAME:WIDTH, NAME:.WIDTH; -j and -p as comma lists; -t R is running.
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" -O jobid:.6,pod,hot_blades:9 -j 42,44 -p pod1,pod2 -t R
golden "$DATA/cli/jobs-Format.expected"
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" -t PD -h
[ -s "$WORK/out" ] && fail "-t PD offline lists no pending job"
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" -u "$(id -un),$(id -u)" --json
[ "$(json_field "sorted(j['job_id'] for j in d['jobs'])")" = "[42, 43, 44]" ] || fail "-u list"
# --yaml: the same document as --json.
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" --json -j 43
cp "$WORK/out" "$WORK/jobs.json"
run 0 "$MORPHEUS" jobs "$F" "$I" --state "$L" --yaml -j 43
python3 -c "import json,sys,yaml; sys.exit(yaml.safe_load(open('$WORK/out')) != json.load(open('$WORK/jobs.json')))" ||
    fail "--yaml differs from --json"

# Names that match nothing are errors that name them.
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -j 42,99
contains "$WORK/err" "invalid job id: 99"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -p pod1,pod9
contains "$WORK/err" "invalid pod: pod9"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -u "$(id -un),no-such-user-here"
contains "$WORK/err" "invalid user: no-such-user-here"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -t sleeping
contains "$WORK/err" "invalid job state: sleeping"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -j 4x
contains "$WORK/err" "'4x' is not a job id"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -o "%i %Z"
contains "$WORK/err" "unknown field letter '%Z'"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -O jobid,colour
contains "$WORK/err" "unknown field 'colour'"
run 1 "$MORPHEUS" jobs "$F" "$I" --state "$L" -i 0
contains "$WORK/err" "is not a number of seconds"

# pools: -O picks pod rows or blade rows by the fields; -p and -t filter them.
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -p pod2,pod1 -O pod,hot_free:.8,nearest
golden "$DATA/cli/pools-Format-pods.expected"
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -t up -o "%b:%f" -h
[ "$(wc -l <"$WORK/out")" = 8 ] || fail "pools -t up -o lists 8 blades"
contains "$WORK/out" "blade1:814G"
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -t drain,failed --json
[ "$(json_field "len(d['blades'])")" = 0 ] || fail "pools -t drain,failed"
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -p pod3 --yaml
python3 -c "import sys,yaml; d=yaml.safe_load(open('$WORK/out')); sys.exit([p['pod'] for p in d['pods']] != ['pod3'])" ||
    fail "pools --yaml -p pod3"
run 1 "$MORPHEUS" pools "$F" "$I" --state "$L" -p pod9
contains "$WORK/err" "invalid pod: pod9"
run 1 "$MORPHEUS" pools "$F" "$I" --state "$L" -t sleepy
contains "$WORK/err" "invalid blade state: sleepy"
run 1 "$MORPHEUS" pools "$F" "$I" --state "$L" -O pod,blade
contains "$WORK/err" "not both"

# -i SECONDS prints again, each time after a time line, as squeue -i (killed after ~2.5 s).
timeout 2.5 "$MORPHEUS" jobs "$F" "$I" --state "$L" -i 1 -h >"$WORK/out" 2>/dev/null
[ "$(grep -c '^ *42 ' "$WORK/out")" -ge 2 ] || fail "-i 1 printed fewer than two tables"
[ "$(grep -cE '^[A-Z][a-z]{2} [A-Z][a-z]{2} [0-9]{2} [0-9:]{8} [0-9]{4}$' "$WORK/out")" -ge 2 ] || fail "-i time lines"
finish
