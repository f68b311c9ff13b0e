#!/bin/bash
# (x) Every node of a job gets its own step setup: srun hands the batch host's environment to
# all nodes, yet each task must find an NCCL topology file written on its own node (each
# emulated node has a /tmp of its own here) and its own pod, also when the job spans pods
# (MORPHEUS_NODE_POD, MORPHEUS_TOPOLOGY_ADDR from MORPHEUS_POD_NODES).
. "$(dirname "$0")/lib.sh"

out=$TEST_TMP/x.out
# Five nodes: a pod has four, so the job spans two pods (300ns admits every pod).
job=$(submit -N5 --gres=gpu:8 --mem-hot=32G --mem-hot-latency=300ns -o "$out" --wrap '
	echo "BATCH $SLURMD_NODENAME $NCCL_TOPO_FILE"
	srun -N5 --ntasks-per-node=1 bash -c '"'"'f=$NCCL_TOPO_FILE; r=missing; test -r "$f" && r=readable; echo "TASK $SLURMD_NODENAME $f $r pod=$MORPHEUS_NODE_POD addr=$MORPHEUS_TOPOLOGY_ADDR"'"'"'')
wait_state "$job" COMPLETED 60
grep -q '^BATCH ' "$out" || fail "no batch line: $(cat "$out")"
tasks=$(grep -c '^TASK ' "$out" || true)
assert_eq "tasks that reported" 5 "$tasks"
pods=$(grep '^TASK ' "$out" | sed -n 's/.* pod=\([^ ]*\) .*/\1/p' | sort -u | wc -l)
[ "$pods" -ge 2 ] || fail "the job was meant to span two pods: $(grep ^TASK "$out")"
while read -r _ node file state pod addr; do
	# gpuXYY sits in podX in the example fabric.
	want_pod=pod${node:3:1}
	assert_match "$node's NCCL file" "/node/$node/tmp/morpheus-nccl-topo\\.$job\\.[0-9]+\\." "$file"
	assert_eq "$node's NCCL file state" readable "$state"
	assert_eq "$node's MORPHEUS_NODE_POD" "pod=$want_pod" "$pod"
	assert_match "$node's MORPHEUS_TOPOLOGY_ADDR" "^addr=$want_pod\\..*$node\$" "$addr"
done < <(grep '^TASK ' "$out")
leftover=$(find "$E2E_RUN"/node/*/tmp -name "morpheus-nccl-topo.$job.*" 2>/dev/null | wc -l)
assert_eq "NCCL files left after the job" 0 "$leftover"
note "ok: 5 tasks on $pods pods, each with its own node's NCCL file, pod and address"
