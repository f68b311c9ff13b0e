#!/bin/bash
# (cr) Shared GPUs (GRES shard, harness.sh: Gres=gpu:8,shard:16): cons_tres-only. slurmctld
# fatals at startup on shared GRES unless the select plugin is cons_tres (22.05/24.11: the
# plugin's SELECT_CR_PLUGIN answer, forwarded; 25.05+: plugin_id), so a cluster that is up
# has passed that; here jobs share a GPU's shards, with and without Morpheus memory.
. "$(dirname "$0")/lib.sh"

assert_match "gpu101 Gres" 'shard:16' "$(scontrol show node gpu101)"
a=$(submit -N1 -w gpu103 --gres=shard:2 --mem-hot=16G --mem-hot-latency=250ns -o /dev/null \
	--wrap 'sleep 20')
b=$(submit -N1 -w gpu103 --gres=shard:14 -o /dev/null --wrap 'sleep 20')
wait_state "$a" RUNNING 20
wait_state "$b" RUNNING 20
assert_match "AllocTRES of $a" 'gres/shard=2' "$(job_field "$a" AllocTRES)"
assert_eq "hot memory of $a" $((16 << 30)) "$(ledger_bytes "$a" hot)"
# All 16 shards of gpu103 are taken: one more waits.
c=$(submit -N1 -w gpu103 --gres=shard:1 -o /dev/null --wrap 'sleep 1')
sleep 3
assert_eq "state of $c (no shard left on gpu103)" PENDING "$(job_state "$c")"
scancel "$a" "$b"
wait_state "$c" 'RUNNING|COMPLETED' 20
note "ok: $a and $b share gpu103's shards, $c waited for them"
