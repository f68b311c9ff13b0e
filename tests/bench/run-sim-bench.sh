#!/bin/sh
# Placement quality of the three policies on the same traces (issue 7): the real NASA iPSC log
# as the headline (on a 128-node fabric, its machine's size), the Lublin model log (256 nodes)
# and a synthetic trace, each printed as morpheus's figures over first-fit's and tree-best-fit's.
# Figures only, nothing fails on them. `make bench-sim` runs this.
#
# usage: tests/bench/run-sim-bench.sh [extra morpheus simulate options, e.g. --backfill]
# env:   TRACES (default /work/shared/traces, else $top_srcdir/tests/data/traces), BENCH_DIR, PYTHON
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
morpheus="$top_builddir/src/cli/morpheus"
py=${PYTHON:-python3}
traces=${TRACES:-/work/shared/traces}
[ -x "$morpheus" ] || { echo "run-sim-bench.sh: build src/cli/morpheus first" >&2; exit 2; }
if [ -n "${BENCH_DIR:-}" ]; then dir=$BENCH_DIR; mkdir -p "$dir"; else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/morpheus-sim.XXXXXX"); trap 'rm -rf "$dir"' EXIT; fi

fabric() {  # NAME NODES PODS BLADES: a fat-tree sized to the trace's machine
    "$py" "$top_srcdir/contrib/gen-fabric.py" --nodes "$2" --pods "$3" --blades "$4" --spines 2 \
        --blades-per-pool 8 -o "$dir/$1" 2>/dev/null
}

ratios() {  # JSON file: the table, then morpheus / baseline per figure
    "$py" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["policy"]: x for x in d["policies"]}
cols = [("hot_latency_mean_ns", "hot lat mean", "ns"), ("hot_latency_p95_ns", "hot lat p95", "ns"),
        ("hot_within_bound", "in bound", "%"), ("stretch_mean", "stretch", "x"),
        ("wait_mean_s", "wait mean", "s"), ("wait_p95_s", "wait p95", "s"),
        ("bounded_slowdown_mean", "bsld", "x"), ("stranded_dram", "stranded DRAM", "%"),
        ("gpu_utilisation", "GPU busy", "%"), ("gpu_useful_utilisation", "GPU useful", "%"), ("makespan_s", "makespan", "s")]
print("%s: %d jobs; %s; %s" % (d["trace"], d["jobs"], d["job_model"], d["scheduler"]))
print("  %-14s %12s %12s %12s   %10s %10s" % ("figure", "morpheus", "first-fit", "tree-best", "m/ff", "m/tbf"))
def fmt(v, unit):
    return "%.1f%%" % (100 * v) if unit == "%" else "%.3g%s" % (v, "" if unit == "x" else unit)
m = p["morpheus"]
for key, label, unit in cols:
    vals = [p[n][key] for n in ("morpheus", "first-fit", "tree-best-fit")]
    r = ["%.3f" % (vals[0] / v) if v else "-" for v in vals[1:]]
    print("  %-14s %12s %12s %12s   %10s %10s" % (label, fmt(vals[0], unit), fmt(vals[1], unit), fmt(vals[2], unit), r[0], r[1]))
by = d["never_placeable_by"]
print("  left out as never placeable (for every policy): %d (morpheus %d, first-fit %d, tree-best-fit %d)" %
      (d["never_placeable"], by["morpheus"], by["first-fit"], by["tree-best-fit"]))
PY
}

fabric nasa 128 8 32
fabric lublin 256 16 64
run() {  # LABEL FABRIC ARGS...
    label=$1; fab=$2; shift 2
    echo "== $label"
    "$morpheus" simulate "$dir/$fab-fabric.json" "$dir/$fab-inventory.json" --json --no-progress "$@" >"$dir/$label.json"
    ratios "$dir/$label.json"
}
run nasa-ipsc nasa --trace "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" "$@"
run lublin-256 lublin --trace "$traces/lublin_256.swf" "$@"
run synthetic nasa --synthetic 5000 --seed 1 "$@"
