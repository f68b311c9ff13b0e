#!/bin/bash
# (zp) Jobs tied to nodes (issue 25): decisions honour the node list.
#   1. A job pinned (-w) to a node of a pod whose near memory is taken waits with a Morpheus
#      reason and a planned StartTime, and `morpheus explain` names only its own pod (before:
#      "Resources", no StartTime, and explain said "placed: pod <another pod>").
#   2. An update that moves a pending job to nodes where its bound can never be met is refused
#      with the reason; one to nodes where it fits is accepted and the job runs there.
#   3. A heterogeneous job that gives --mem-hot for a later component is refused at submit,
#      saying the flags are job-wide and how to write it (before: silently one size for all).
. "$(dirname "$0")/lib.sh"

# 1. blade1 (1T, the only blade within 250ns of pod1) mostly taken by a job on gpu101.
holder=$(submit -N1 -t 2 -w gpu101 --mem=1G --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$holder" RUNNING 20
pinned=$(submit -N1 -t 1 -w gpu102 --mem=1G --mem-hot=200G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_morpheus_reason "$pinned"
assert_eq "state of $pinned" PENDING "$(job_state "$pinned")"
assert_match "squeue reason of $pinned (pinned to gpu102, pod1's memory taken)" '^Morpheus: .*pod1' "$squeue_reason"
assert_no_match "reason of $pinned names another pod" 'pod[234]' "$squeue_reason"
start=Unknown
for _ in $(seq 40); do # backfill plans it
	start=$(job_field "$pinned" StartTime)
	[ "$start" != Unknown ] && break
	sleep 0.5
done
[ "$start" != Unknown ] || fail "pinned job $pinned has no StartTime (reason: $(job_field "$pinned" Reason))"
out=$(morpheus_cli explain "$pinned" --server "127.0.0.1:$E2E_STATUS_PORT") || fail "morpheus explain $pinned: $out"
assert_no_match "explain of $pinned (may only use pod1)" 'pod[234]' "$out"
assert_no_match "explain of $pinned" 'verdict: placed' "$out"
assert_match "explain of $pinned" 'pod1' "$out"
assert_no_overcommit
# The memory comes back: it runs on its node.
scancel "$holder"
wait_state "$pinned" 'RUNNING|COMPLETED' 20
assert_eq "node of $pinned" gpu102 "$(job_field "$pinned" NodeList)"

# 2. ReqNodeList= of a pending job: gpu201 (pod2) is 280ns from its nearest blade.
moved=$(submit -N1 -t 1 --hold --mem=1G --mem-hot=50G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
if out=$(scontrol update job="$moved" ReqNodeList=gpu201 2>&1); then
	fail "ReqNodeList=gpu201 accepted for $moved (250ns bound, pod2's nearest blade is 280ns): $out"
fi
note "ReqNodeList=gpu201 refused: $out"
assert_match "ReqNodeList of $moved after the refused update" '^(|\(null\))$' "$(job_field "$moved" ReqNodeList)"
scontrol update job="$moved" ReqNodeList=gpu103 || fail "ReqNodeList=gpu103 (pod1, in bound) refused for $moved"
scontrol release "$moved"
wait_state "$moved" 'RUNNING|COMPLETED' 20
assert_eq "node of $moved" gpu103 "$(job_field "$moved" NodeList)"

# 3. Per-component memory in a heterogeneous job.
script=$TEST_TMP/het.sh
cat >"$script" <<'SCRIPT'
#!/bin/bash
#SBATCH -N1 --mem=1G --mem-hot=32G --mem-hot-latency=300ns
#SBATCH hetjob
#SBATCH -N2 --mem=1G --mem-hot=64G
true
SCRIPT
if out=$(sbatch --parsable -o /dev/null "$script" 2>&1); then
	echo "${out##*$'\n'}" >>"$TEST_TMP/jobs"
	fail "a het job with --mem-hot in its second component was accepted: $out"
fi
assert_match "refusal of a per-component --mem-hot" 'job-wide' "$out"
assert_match "refusal of a per-component --mem-hot (the fix)" 'first component' "$out"
note "ok: pinned $pinned waited on pod1 (StartTime $start), explained on pod1 only; ReqNodeList update refused; het refusal: ${out%%$'\n'*}"
