#!/bin/bash
# (y) A heterogeneous job: one batch script serves both components, yet a step of component 1
# sees component 1's placement (pod, nodes, blades), not the leader's. (Morpheus flags are
# job-wide in Slurm's SPANK: both components ask for the same memory.)
. "$(dirname "$0")/lib.sh"

script=$TEST_TMP/het.sh
cat >"$script" <<'SCRIPT'
#!/bin/bash
#SBATCH -N1 --mem-hot=32G --mem-hot-latency=300ns --nodelist=gpu101
#SBATCH hetjob
#SBATCH -N1 --nodelist=gpu301
echo "BATCH pod=$MORPHEUS_POD"
for g in 0 1; do
	srun --het-group=$g bash -c 'echo "G'$g' $SLURMD_NODENAME pod=$MORPHEUS_POD nodes=$MORPHEUS_POD_NODES node_pod=$MORPHEUS_NODE_POD hot=$MORPHEUS_HOT_BLADES"'
done
SCRIPT
out=$TEST_TMP/y.out
job=$(submit -o "$out" "$script")
wait_state "$job" COMPLETED 60
leader_comment=$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p' | head -1)
assert_match "component 0's placement" 'pod=pod1' "$leader_comment"
assert_match "component 1's placement" 'pod=pod3' "$(scontrol show job "$((job + 1))" | sed -n 's/^ *SystemComment=//p')"
assert_match "component 0's step" '^G0 gpu101 pod=pod1 nodes=pod1=gpu101 node_pod=pod1 hot=blade' "$(grep '^G0 ' "$out")"
assert_match "component 1's step" '^G1 gpu301 pod=pod3 nodes=pod3=gpu301 node_pod=pod3 hot=blade' "$(grep '^G1 ' "$out")"
note "ok: $(grep '^G1 ' "$out")"
