#!/bin/sh
# The live fabric heat map in the simulator (issue 29): the NASA iPSC log on its 128-node bench
# fabric with the latency events of tests/bench/nasa-latency-events, each policy placing once
# on the fabric file's latencies (static) and once reading the heat map its nodes' probes fill
# (live, the plugin's HeatMap and ClusterModel::with_live_latency), side by side: tight-bound
# jobs' run time truly beyond their bound (all of it, and what placement believed inside it),
# hot jobs started on a slowed cell, the mean stretch of hot jobs. Figures only, nothing fails
# on them. `make bench-heat`.
#
# usage: tests/bench/run-heat-bench.sh [extra morpheus simulate options, e.g. --probe-interval 300]
# env:   SEEDS (default 5), POLICIES (default morpheus), MODELS (default "independent
#        sensitivity"), HOT_WAIT (default 0), EVENTS (default tests/bench/nasa-latency-events),
#        TRACES (default $top_srcdir/../shared/traces), BENCH_DIR, PYTHON
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim_bench_env.sh" heat
events=${EVENTS:-$here/nasa-latency-events}

"$py" "$top_srcdir/contrib/gen-fabric.py" --nodes 128 --pods 8 --blades 32 --spines 2 --blades-per-pool 8 \
    -o "$dir/nasa" 2>/dev/null

side_by_side() {  # JSON file: per policy, static and live with 95% intervals
    "$py" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
h = d["heat_map"]
print("%s: %d jobs; bound model %s; %s; %d seeds" % (d["trace"], d["jobs"], d["bound_model"], d["scheduler"], d["seeds"]))
print("  %d latency events from %s; probes every %ds, %s of %d samples within %ds, stale after %ds, %g%% for %d rounds"
      % (h["latency_events"], h["latency_events_file"], h["probe_interval_s"], h["figure"], h["samples"], h["window_s"],
         h["stale_s"], 100 * h["hysteresis"], h["rounds"]))
rows = [("tight_over_bound_s", "tight jobs' run beyond bound", "h"), ("tight_over_bound_jobs", "  such jobs", "n"),
        ("tight_unseen_over_bound_s", "  of it believed in bound", "h"), ("tight_unseen_over_bound_jobs", "  such jobs", "n"),
        ("degraded_starts", "hot jobs started on slowed cell", "n"), ("hot_stretch_mean", "mean stretch of hot jobs", "x"),
        ("bounded_slowdown_mean", "bounded slowdown", "x"), ("wait_mean_s", "wait mean", "s"),
        ("tight_in_bound", "tight jobs' run in bound (file)", "%")]
def fmt(v, h, unit):
    if unit == "h": return "%.1fh ±%.1f" % (v / 3600, h / 3600)
    if unit == "%": return "%.1f%% ±%.1f" % (100 * v, 100 * h)
    if unit == "s": return "%.0fs ±%.0f" % (v, h)
    if unit == "x": return "%.4f ±%.4f" % (v, h)
    return "%.1f ±%.1f" % (v, h)
for size in d["pool_sizes"]:
    runs = {p["policy"]: p for p in size["policies"]}
    for name in [p["policy"] for p in size["policies"] if p["heat_map"] == "static"]:
        s, l = runs[name], runs.get(name + "+live")
        print("  %-33s %20s %20s %8s" % (name, "static", "live", "live/st"))
        for key, label, unit in rows:
            r = "%.3f" % (l[key] / s[key]) if l and s[key] else "-"
            print("  %-33s %20s %20s %8s" % (label, fmt(s[key], s[key + "_ci95"], unit),
                  fmt(l[key], l[key + "_ci95"], unit) if l else "-", r))
PY
}

for model in ${MODELS:-independent sensitivity}; do
    echo "== nasa-ipsc-$model"
    "$morpheus" simulate "$dir/nasa-fabric.json" "$dir/nasa-inventory.json" --trace "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" \
        --json --no-progress --seeds "${SEEDS:-5}" --policy "${POLICIES:-morpheus}" --bound-model "$model" \
        --hot-wait "${HOT_WAIT:-0}" --latency-events "$events" --heat-map both "$@" >"$dir/heat-$model.json"
    side_by_side "$dir/heat-$model.json"
done
