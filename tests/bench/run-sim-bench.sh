#!/bin/sh
# Placement quality on the same traces (issues 7, 14, 27): the real NASA iPSC log as the headline
# (on a 128-node fabric, its machine's size), a synthetic trace at load 0.7 and the Lublin model
# log (256 nodes; overloaded, reported only), 5 seeds paired, EASY backfill, fair accounting
# (refusals charged, jobs no policy may run listed apart), in both job models (the tight bound
# independent of sensitivity, and following it), at today's pool size and half of it: morpheus
# against the BEST baseline for each figure (mean and 95% interval), never one baseline.
# Figures only, nothing fails on them. `make bench-sim`.
#
# usage: tests/bench/run-sim-bench.sh [extra morpheus simulate options, e.g. --alpha 0]
# env:   SEEDS (default 5), HOT_WAIT (the --mem-hot-wait every job declares; default 0: take the
#        nearest memory at once if none is free in bound, and be moved inside it later),
#        MODELS (default "independent sensitivity"), SCHEDULER (default easy; easy-generic: morpheus's
#        head through the baselines' EASY walk instead of the core's planner), TRACES (the trace folder; default
#        $top_srcdir/../shared/traces), BENCH_DIR, PYTHON
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim_bench_env.sh" sim

fabric() {  # NAME NODES PODS BLADES: a fat-tree sized to the trace's machine
    "$py" "$top_srcdir/contrib/gen-fabric.py" --nodes "$2" --pods "$3" --blades "$4" --spines 2 \
        --blades-per-pool 8 -o "$dir/$1" 2>/dev/null
}

ratios() {  # JSON file: per figure, morpheus and the best baseline, with 95% intervals
    "$py" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cols = [("bounded_slowdown_mean", "bsld", "x"), ("common_bounded_slowdown_mean", "bsld, common jobs", "x"),
        ("wait_mean_s", "wait mean", "s"), ("common_wait_mean_s", "wait, common jobs", "s"),
        ("largest_tenth_wait_max_s", "big-job max wait", "s"), ("wait_max_s", "max wait", "s"),
        ("refused", "refused (charged)", "n"), ("killed", "killed", "n"), ("hot_latency_mean_ns", "hot lat mean", "ns"),
        ("tight_in_bound", "tight jobs' run in bound", "%"), ("hot_within_bound", "jobs in bound", "%"),
        ("stretch_mean", "stretch", "x"), ("gpu_useful_utilisation", "GPU useful", "%"),
        ("gpu_utilisation", "GPU busy, stretch incl.", "%"), ("moves", "moves", "n")]
# GPU useful: GPU time at the job's unstretched speed over capacity x makespan, the figure to
# compare; GPU busy counts the time jobs run slower on far memory, so a policy that stretches
# jobs "wins" it (first-fit: 60.6% busy, 44.2% useful on NASA, against morpheus's 51.7/44.4%).
print("%s: %d jobs; bound model %s; %s; %s; %s; %d seeds" % (d["trace"], d["jobs"], d["bound_model"], d["job_model"], d["sensitivity"], d["scheduler"], d["seeds"]))
def fmt(v, h, unit):
    if unit == "%":
        return "%.1f%% ±%.1f" % (100 * v, 100 * h)
    return "%.4g ±%.2g%s" % (v, h, "" if unit in ("x", "n") else unit)
for size in d["pool_sizes"]:
    p = {x["policy"]: x for x in size["policies"]}
    print("  pool x%g  %d jobs apart (no policy may run them)" % (size["pool_scale"], size["policies"][0]["apart"]))
    print("  %-25s %22s %22s %-20s %8s" % ("figure", "morpheus", "best baseline", "(which)", "m/best"))
    for key, label, unit in cols:
        m = p["morpheus"]
        higher = unit == "%"
        others = [x for n, x in p.items() if n != "morpheus"]
        if key == "moves":
            print("  %-25s %22s" % (label, fmt(m[key], m[key + "_ci95"], unit)))
            continue
        best = (max if higher else min)(others, key=lambda x: x[key])
        r = "%.3f" % (m[key] / best[key]) if best[key] else "-"
        print("  %-25s %22s %22s %-20s %8s" % (label, fmt(m[key], m[key + "_ci95"], unit),
              fmt(best[key], best[key + "_ci95"], unit), best["policy"], r))
        # Paired by seed: one seed's episode (NASA's bursts of whole-cluster jobs) shows apart
        # from a shift in every seed.
        if key in m.get("per_seed", {}) and key in best.get("per_seed", {}):
            pairs = zip(m["per_seed"][key], best["per_seed"][key])
            print("  %-25s %s" % ("  per seed, m/best", " ".join("%.3f" % (a / b) if b else "-" for a, b in pairs)))
PY
}

fabric nasa 128 8 32
fabric lublin 256 16 64
run() {  # LABEL FABRIC ARGS...
    label=$1; fab=$2; shift 2
    echo "== $label"
    "$morpheus" simulate "$dir/$fab-fabric.json" "$dir/$fab-inventory.json" --json --no-progress --seeds "${SEEDS:-5}" "$@" >"$dir/$label.json"
    ratios "$dir/$label.json"
}
for model in ${MODELS:-independent sensitivity}; do
    set -- --bound-model "$model" --hot-wait "${HOT_WAIT:-0}" --pool-sizes 1,0.5 --scheduler "${SCHEDULER:-easy}" "$@"
    run "nasa-ipsc-$model" nasa --trace "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" "$@"
    run "synthetic-0.7-$model" nasa --synthetic 5000 --load 0.7 --seed 1 "$@"
    run "lublin-256-$model" lublin --trace "$traces/lublin_256.swf" "$@"
    shift 8
done
