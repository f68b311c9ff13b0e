#!/bin/bash
# (v) A running job that gives nodes up (scontrol update NumNodes=) gives their memory back:
# the reservation follows the nodes it keeps, and another job can use what was freed.
. "$(dirname "$0")/lib.sh"

job=$(submit -N2 --mem-hot=300G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$job" RUNNING 20
assert_eq "hot memory of $job on 2 nodes" $((600 << 30)) "$(ledger_bytes "$job" hot)"
scontrol update jobid="$job" NumNodes=1 || fail "scontrol update NumNodes=1 refused"
for _ in $(seq 25); do [ "$(job_field "$job" NumNodes)" = 1 ] && break; sleep 0.2; done
assert_eq "nodes of $job after the update" 1 "$(job_field "$job" NumNodes)"
assert_eq "hot memory of $job on 1 node" $((300 << 30)) "$(ledger_bytes "$job" hot)"
assert_match "SystemComment of $job" "300G" "$(scontrol show job "$job" | sed -n "s/^ *SystemComment=//p")"
# blade1 (1T) has room for 600G more now; before, 600G stayed held for the node given up.
other=$(submit -N1 --mem-hot=600G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
wait_state "$other" 'RUNNING|COMPLETED' 20
assert_no_overcommit
note "ok: $job shrank to 1 node and 300G; $other used the rest"
