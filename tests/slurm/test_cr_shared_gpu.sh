#!/bin/bash
# (cr) Shared GPUs (GRES shard, harness.sh: Gres=gpu:8,shard:64, 8 shards a GPU): a
# cons_tres-only feature. slurmctld fatals at startup on shared GRES unless the select plugin
# is cons_tres (22.05/24.11: the plugin's SELECT_CR_PLUGIN answer, forwarded to cons_tres;
# 25.05+: plugin_id), so a cluster that is up has passed that check. Here two jobs, one with
# Morpheus memory, run on one node's GPU shards at once. (Whether a GPU with
# shards in use is withheld from a whole-GPU job is not checked: the harness's GPUs are
# /dev/null files, not devices with an identity the shards are bound to.)
. "$(dirname "$0")/lib.sh"

assert_match "gpu103 Gres" 'shard:64' "$(scontrol show node gpu103)"
a=$(submit -N1 -w gpu103 --gres=shard:4 --mem=8G --mem-hot=16G --mem-hot-latency=250ns -o /dev/null \
	--wrap 'sleep 20')
b=$(submit -N1 -w gpu103 --gres=shard:4 --mem=8G -o /dev/null --wrap 'sleep 20')
wait_state "$a" RUNNING 20
wait_state "$b" RUNNING 20
assert_eq "hot memory of $a" $((16 << 30)) "$(ledger_bytes "$a" hot)"
# Each holds 4 shards of one GPU of gpu103 (scontrol show job -d: GRES=shard:4(IDX:n) in
# 22.05, GRES=shard:4(4/8,0/8,...) later).
for j in "$a" "$b"; do
	assert_match "GRES of $j" 'shard[^ ]*:4\((IDX:[0-9]|[0-9/,]*4/8)' "$(scontrol show job -d "$j" | grep -o ' GRES=[^ ]*')"
done
scancel "$a" "$b"
note "ok: $a (with Morpheus memory) and $b ran together on gpu103's shards"
