#!/bin/bash
# (j) On the node, the SPANK plugin gives a Morpheus job NCCL_TOPO_FILE (a readable file in
# NCCL's XML, private to the job's user), the MORPHEUS_* placement and NIC settings; with
# --nccl-hints=off no NCCL variable at all; a value the user set is never overridden; a cold
# request on a node without CXL memory warns in the job's output instead of failing.
. "$(dirname "$0")/lib.sh"

out=$TEST_TMP/j.out
job=$(submit -N1 --gres=gpu:8 --mem-hot=32G --mem-hot-latency=250ns -o "$out" --wrap \
	'env | grep -E "^(NCCL_|MORPHEUS_)" | sort; f=$NCCL_TOPO_FILE; test -r "$f" && echo READABLE; stat -c "MODE %a OWNER %U" "$f"; head -c 200 "$f"; echo; srun env | grep ^NCCL_TOPO_FILE= | sed "s/^/TASK /"')
wait_state "$job" COMPLETED 30
grep -q '^MORPHEUS_POD=pod1$' "$out" || fail "no MORPHEUS_POD in $(cat "$out")"
topo=$(sed -n 's/^NCCL_TOPO_FILE=//p' "$out" | head -1)
[ -n "$topo" ] || fail "no NCCL_TOPO_FILE: $(cat "$out")"
grep -q '^READABLE$' "$out" || fail "NCCL_TOPO_FILE $topo is not readable by the job: $(cat "$out")"
grep -q '^MODE 600 OWNER root$' "$out" || fail "NCCL_TOPO_FILE mode/owner: $(grep ^MODE "$out")"
grep -q '^<system version="1">' "$out" || fail "NCCL_TOPO_FILE does not start with <system version=\"1\">: $(cat "$out")"
grep -q '^NCCL_IB_HCA==' "$out" || fail "no exact-match NCCL_IB_HCA: $(grep ^NCCL "$out")"
# The srun step writes a file of its own (the batch step's is the batch host's, not the step's).
task_topo=$(sed -n 's/^TASK NCCL_TOPO_FILE=//p' "$out" | head -1)
assert_match "the srun task's NCCL_TOPO_FILE" "/morpheus-nccl-topo\\.$job\\.0\\." "$task_topo"
[ ! -e "$topo" ] || fail "the step's NCCL file $topo was left behind after the job"

# --nccl-hints=off: no NCCL variable, the placement still there.
out2=$TEST_TMP/j2.out
job2=$(submit -N1 --mem-hot=32G --mem-hot-latency=250ns --nccl-hints=off -o "$out2" --wrap 'env | sort')
wait_state "$job2" COMPLETED 30
grep -q '^MORPHEUS_POD=pod1$' "$out2" || fail "--nccl-hints=off lost the placement"
if grep -q '^NCCL_' "$out2"; then fail "--nccl-hints=off still set $(grep ^NCCL_ "$out2" | tr '\n' ' ')"; fi

# The user's own value wins.
out3=$TEST_TMP/j3.out
job3=$(NCCL_TOPO_FILE=/users/own.xml submit -N1 --mem-hot=32G --export=ALL -o "$out3" --wrap 'echo "MINE $NCCL_TOPO_FILE"')
wait_state "$job3" COMPLETED 30
grep -q '^MINE /users/own.xml$' "$out3" || fail "user's NCCL_TOPO_FILE overridden: $(cat "$out3")"

# Cold memory on a node without CXL NUMA nodes: a warning, and the job runs.
out4=$TEST_TMP/j4.out
job4=$(submit -N1 --mem-cold=64G -o "$out4" -e "$out4" --wrap 'echo RAN; srun true')
wait_state "$job4" COMPLETED 30
grep -q '^RAN$' "$out4" || fail "cold job did not run: $(cat "$out4")"
grep -qi 'cxl\|cpu-less\|no far' "$out4" || fail "no warning about missing CXL memory in the job's output: $(cat "$out4")"
note "ok: $topo, hints off honoured, user value kept, cold warning: $(grep -i -m1 'cxl\|cpu-less\|far' "$out4")"
