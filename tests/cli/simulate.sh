#!/bin/sh
# morpheus simulate: a small SWF log on the example cluster, every policy, golden table; JSON
# agrees with it; seeds, pool sizes and schedulers; the plot is drawn; bad input is named.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; T="$DATA/sim/small.swf"

run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --check
golden "$DATA/sim/small.expected"

run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --json
P="d['pool_sizes'][0]['policies']"
[ "$(json_field "sorted(set(p['ran'] + p['refused'] + p['apart'] for p in $P))")" = "[11.0]" ] || { echo "FAIL: every policy has the same 11 jobs, ran, refused or apart"; failures=$((failures+1)); }
[ "$(json_field "sorted(set(p['apart'] for p in $P))")" = "[1.0]" ] || { echo "FAIL: the job no placement can hold in its hard bound is apart for every policy alike"; failures=$((failures+1)); }
[ "$(json_field "d['bound_model']")" = independent ] || { echo "FAIL: the bound is independent of sensitivity by default"; failures=$((failures+1)); }
[ "$(json_field "$P[0]['hot_within_bound']")" = 1.0 ] || { echo "FAIL: morpheus keeps hot memory in bound"; failures=$((failures+1)); }
[ "$(json_field "$P[1]['hot_within_bound'] < 1")" = True ] || { echo "FAIL: first-fit leaves the bound"; failures=$((failures+1)); }
[ "$(json_field "sum(p['violations'] for p in $P) == 0")" = True ] || { echo "FAIL: conservation"; failures=$((failures+1)); }
[ "$(json_field "d['scheduler']")" = easy ] || { echo "FAIL: EASY backfill by default"; failures=$((failures+1)); }

# Seeds give intervals; pool sizes replay the same jobs on scaled blades; FCFS on request.
run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --json --seeds 3 --pool-sizes 0.5,2 --scheduler fcfs --policy morpheus,tree-nearest
[ "$(json_field "[s['pool_scale'] for s in d['pool_sizes']]")" = "[0.5, 2.0]" ] || { echo "FAIL: one result per pool size"; failures=$((failures+1)); }
[ "$(json_field "d['pool_sizes'][0]['policies'][0]['seeds']")" = 3 ] || { echo "FAIL: three seeds"; failures=$((failures+1)); }
[ "$(json_field "all(len(p['per_seed'][k]) == 3 for s in d['pool_sizes'] for p in s['policies'] for k in ('bounded_slowdown_mean', 'largest_tenth_wait_max_s', 'tight_in_bound'))")" = True ] || { echo "FAIL: three figures per seed"; failures=$((failures+1)); }
[ "$(json_field "all(abs(sum(p['per_seed']['bounded_slowdown_mean']) / 3 - p['bounded_slowdown_mean']) < 1e-4 * max(1, p['bounded_slowdown_mean']) for s in d['pool_sizes'] for p in s['policies'])")" = True ] || { echo "FAIL: the per-seed figures make the mean"; failures=$((failures+1)); }
[ "$(json_field "d['pool_sizes'][1]['policies'][0]['hot_utilisation'] < d['pool_sizes'][0]['policies'][0]['hot_utilisation']")" = True ] || { echo "FAIL: twice the pool, a smaller share of it used"; failures=$((failures+1)); }
[ "$(json_field "all(p['bounded_slowdown_mean_ci95'] >= 0 for s in d['pool_sizes'] for p in s['policies'])")" = True ] || { echo "FAIL: intervals"; failures=$((failures+1)); }
[ "$(json_field "d['scheduler']")" = fcfs ] || { echo "FAIL: --scheduler fcfs"; failures=$((failures+1)); }

# --jobs: one row per job, and its bounded slowdowns average to the table's.
mkdir -p "$WORK/jobs"
run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --json --policy morpheus --jobs "$WORK/jobs"
csv="$WORK/jobs/morpheus-s1-x1.00.csv"
[ "$(python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); b=[float(x['bounded_slowdown']) for x in r if x['apart']=='0']; print(len(r), abs(sum(b)/len(b) - $(json_field "d['pool_sizes'][0]['policies'][0]['bounded_slowdown_mean']")) < 1e-3)" "$csv" 2>&1)" = "11 True" ] || { echo "FAIL: --jobs rows and their bounded slowdowns"; failures=$((failures+1)); }
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --policy morpheus --jobs "$WORK/no/such/dir"
contains "$WORK/err" "morpheus-s1-x1.00.csv: cannot write"

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
# Soft bounds let every job run: nothing apart; the strict baselines are charged for refusing.
run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --json --hot-wait 0 --bound-model sensitivity
[ "$(json_field "sorted(set(p['apart'] for p in $P))")" = "[0.0]" ] || { echo "FAIL: a soft bound is never apart"; failures=$((failures+1)); }
[ "$(json_field "[p['policy'] for p in $P if p['refused']]")" = "['tree-nearest-strict', 'spread-strict']" ] || { echo "FAIL: only the strict baselines refuse the job no pod holds in bound"; failures=$((failures+1)); }
[ "$(json_field "d['bound_model']")" = sensitivity ] || { echo "FAIL: --bound-model sensitivity"; failures=$((failures+1)); }
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --bound-model random
contains "$WORK/err" "unknown bound model \"random\""
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --scheduler sjf
contains "$WORK/err" "unknown scheduler \"sjf\""
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --pool-sizes 1,x
contains "$WORK/err" "'x' is not a number"
run 2 "$MORPHEUS" simulate "$F" "$I"
contains "$WORK/err" "give one of --trace FILE or --synthetic N"

# Latency events (issue 29): each policy placing on the fabric file's latencies and on the live
# heat map, side by side; pod1's near blade slowed past the tight bound gets fewer hot jobs live.
E="$DATA/sim/small.events"
run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --latency-events "$E" --policy morpheus --tight-share 1 --hot-wait 0 --check --json
[ "$(json_field "[(p['policy'], p['heat_map']) for p in $P]")" = "[('morpheus', 'static'), ('morpheus+live', 'live')]" ] || { echo "FAIL: one run per mode"; failures=$((failures+1)); }
[ "$(json_field "$P[1]['degraded_starts'] < $P[0]['degraded_starts']")" = True ] || { echo "FAIL: fewer hot jobs on the slowed cell with the live map"; failures=$((failures+1)); }
[ "$(json_field "$P[1]['tight_unseen_over_bound_s'] < $P[0]['tight_unseen_over_bound_s']")" = True ] || { echo "FAIL: less unseen time beyond the bound with the live map"; failures=$((failures+1)); }
[ "$(json_field "($P[0]['probe_rounds'], $P[1]['probe_rounds'] > 0, d['heat_map']['latency_events'], d['heat_map']['figure'])")" = "(0.0, True, 2, 'p99')" ] || { echo "FAIL: the heat map's rounds and settings"; failures=$((failures+1)); }
run 0 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --latency-events "$E" --policy morpheus --heat-map live
contains "$WORK/out" "fabric latency: 2 events from"
contains "$WORK/out" "TIGHT_OVER (JOBS)"
printf '0 1h pods=pod1 blade1 600ns\n1h 0 * blade1 600ns\n' > "$WORK/bad.events"
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --latency-events "$WORK/bad.events"
contains "$WORK/err" "bad.events: line 2: DURATION must be positive"
printf '0 1h pods=pod9 blade1 600ns\n' > "$WORK/bad.events"
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --latency-events "$WORK/bad.events"
contains "$WORK/err" "bad.events: line 1: pod \"pod9\" is not in the fabric"
run 1 "$MORPHEUS" simulate "$F" "$I" --trace "$T" --heat-map sometimes
contains "$WORK/err" "unknown mode \"sometimes\""
finish
