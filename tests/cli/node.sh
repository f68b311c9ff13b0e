#!/bin/sh
# morpheus node: a node's GPUs, NICs, memory tiers and NCCL file, from hwloc XML fixtures.
. "$top_srcdir/tests/cli/lib.sh"
H="$DATA/hwloc"

run 0 "$MORPHEUS" node --topology "$H/dgx-8gpu-8nic.xml" --nccl-file
golden "$DATA/nccl/dgx-8gpu-8nic.nccl.xml"
if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$WORK/out" || { echo "FAIL: xmllint"; failures=$((failures+1)); }
fi

run 0 "$MORPHEUS" node --topology "$H/dgx-8gpu-8nic.xml"
contains "$WORK/out" "NODE dgx01"
contains "$WORK/out" "0000:05:00.0     0  0000:00:01.1  mlx5_0  PXB"
contains "$WORK/out" "no CPU-less (CXL) NUMA node"
contains "$WORK/out" '<system version="1">'

run 0 "$MORPHEUS" node --topology "$H/cxl-2s-3far.xml" --json
[ "$(json_field "d['tiers']['cold']")" = "[2, 4, 3]" ] || [ "$(json_field "sorted(d['tiers']['cold'])")" = "[2, 3, 4]" ] ||
    { echo "FAIL: cold tier"; failures=$((failures+1)); }
[ "$(json_field "[n['tier'] for n in d['numa']]")" = "['local', 'local', 'far', 'far', 'far']" ] ||
    { echo "FAIL: tiers"; failures=$((failures+1)); }
[ "$(json_field "d['nccl_topology']")" = "None" ] || { echo "FAIL: no GPU, no NCCL file"; failures=$((failures+1)); }

run 1 "$MORPHEUS" node --topology "$H/cxl-2s-3far.xml" --nccl-file
contains "$WORK/err" "no NVIDIA GPU"
run 1 "$MORPHEUS" node --topology /nonexistent.xml
contains "$WORK/err" "/nonexistent.xml"
run 2 "$MORPHEUS" node extra-argument
finish
