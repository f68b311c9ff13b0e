#!/bin/bash
# (b) Two jobs competing for pod1's hot pool within 250ns: the second waits, pending with a
# Morpheus reason, and the ledger never holds more than a blade has. A third one with a
# 300ns bound goes elsewhere instead of waiting.
. "$(dirname "$0")/lib.sh"

first=$(submit -N1 --mem-hot=800G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$first" RUNNING 20
second=$(submit -N1 --mem-hot=800G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
sleep 3 # several scheduling passes (sched_min_interval=0, bf_interval=1)
assert_eq "state of the second job" PENDING "$(job_state "$second")"
wait_morpheus_reason "$second"
reason=$squeue_reason
assert_match "squeue reason of $second" '^Morpheus: .*250ns' "$reason"
assert_match "scontrol Reason of $second" '^Morpheus:' "$scontrol_reason"
assert_no_overcommit

third=$(submit -N1 --mem-hot=800G --mem-hot-latency=300ns -o /dev/null --wrap 'sleep 300')
wait_state "$third" RUNNING 20
n=$(job_nodes "$third")
in_pod1 "$n" && fail "job $third ran in pod1 ($n), whose hot pool is taken"
assert_match "SystemComment of $third" 'hot=blade[0-9]+:800G@(2[0-9][0-9]|300)ns' \
	"$(scontrol show job "$third" | sed -n 's/^ *SystemComment=//p')"
assert_no_overcommit

# When the first ends, the second gets its memory.
scancel "$first"
wait_state "$second" RUNNING 20
in_pod1 "$(job_nodes "$second")" || fail "job $second did not run in pod1"
assert_no_overcommit
note "ok: $second waited ('$reason'), $third went to $n"
