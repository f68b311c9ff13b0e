#!/bin/sh
# Placement benchmark at the 100k-GPU scale (issue 2): generates the fabric and inventory with
# contrib/gen-fabric.py (fat-tree and dragonfly), then prints bench_placement's figures for
# each, then bench_planner's. Figures only: nothing here fails on time. `make bench` runs this.
#
# usage: tests/bench/run-bench.sh [--requests N] [--seed S] [--occupancy F]
# env:   BENCH_DIR (where the generated files go; default a temporary directory, removed after)
#        PYTHON (default python3)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
bench="$top_builddir/tests/bench/bench_placement"
[ -x "$bench" ] || { echo "run-bench.sh: $bench is not built; run 'make check' (or make $bench) first" >&2; exit 2; }

if [ -n "${BENCH_DIR:-}" ]; then
    dir=$BENCH_DIR
    mkdir -p "$dir"
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/morpheus-bench.XXXXXX")
    trap 'rm -rf "$dir"' EXIT
fi
for layout in fat-tree dragonfly; do
    [ -f "$dir/$layout-fabric.json" ] ||
        "${PYTHON:-python3}" "$top_srcdir/contrib/gen-fabric.py" --layout "$layout" -o "$dir/$layout"
    echo "== $layout"
    "$bench" "$dir/$layout-fabric.json" "$dir/$layout-inventory.json" "$@"
    # The live heat map (issue 29): two rounds of reports from every node for its pod's 64
    # nearest blades, ingest and settle costs, then the same decisions with live cells.
    echo "-- $layout, with the live heat map"
    "$bench" "$dir/$layout-fabric.json" "$dir/$layout-inventory.json" --heat-map "$@"
    # The blade-memory planner (issue 14): 10,000 running and 10,000 planned jobs.
    "$top_builddir/tests/bench/bench_planner" "$dir/$layout-fabric.json" "$dir/$layout-inventory.json"
    # Checkpoint windows on the links (issue 28): 10,000 running jobs holding windows.
    "$top_builddir/tests/bench/bench_checkpoint" "$dir/$layout-fabric.json" "$dir/$layout-inventory.json"
done
