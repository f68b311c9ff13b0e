#!/bin/sh
# Checkpoint offload in the simulator (issue 28): the NASA iPSC log (on a 128-node fabric, its
# machine's size) and a synthetic trace at load 0.7, 5 seeds each, with the morpheus policy:
# no checkpoints, uncoordinated checkpoints and booked windows on the same workload
# (morpheus simulate --checkpoint). Figures only, nothing fails on them. `make bench-ckpt`.
#
# usage: tests/bench/run-ckpt-bench.sh [extra morpheus simulate options, e.g. --ckpt-period 1h]
# env:   SEEDS (default 5), TRACES (the trace folder; default $top_srcdir/../shared/traces),
#        BENCH_DIR, PYTHON
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim_bench_env.sh" ckpt

# The fabric run-sim-bench.sh uses for NASA: 128 nodes in 8 pods, 32 blades, 2 spines.
"$py" "$top_srcdir/contrib/gen-fabric.py" --nodes 128 --pods 8 --blades 32 --spines 2 \
    --blades-per-pool 8 -o "$dir/nasa" 2>/dev/null
run() {  # LABEL ARGS...
    label=$1; shift
    echo "== $label"
    "$morpheus" simulate "$dir/nasa-fabric.json" "$dir/nasa-inventory.json" --checkpoint --no-progress \
        --seeds "${SEEDS:-5}" --hot-wait 0 "$@"
}
run "NASA iPSC" --trace "$traces/NASA-iPSC-1993-3.1-cln.swf.gz" "$@"
run "synthetic 5000 jobs, load 0.7" --synthetic 5000 --load 0.7 --seed 1 "$@"
