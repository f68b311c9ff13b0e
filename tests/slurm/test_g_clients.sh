#!/bin/bash
# (g) Client commands load every select_*.so in PluginDir, ours included: they must work and
# stay quiet.
. "$(dirname "$0")/lib.sh"

run_quiet() { # CMD...: succeeds with no error on stderr; prints stdout
	local err=$TEST_TMP/stderr rc=0 out
	out=$("$@" 2>"$err") || rc=$?
	[ $rc = 0 ] || fail "'$*' exited $rc: $(cat "$err")"
	grep -qi 'error' "$err" && fail "'$*' printed errors: $(cat "$err")"
	printf '%s\n' "$out"
}
assert_eq "nodes in sinfo" 16 "$(run_quiet sinfo -h -N -o %N | sort -u | wc -l)"
assert_match "sinfo Gres" 'gpu:8' "$(run_quiet sinfo -h -o %G)"
run_quiet squeue >/dev/null
run_quiet squeue -O JobID,Reason,system_comment >/dev/null
node=$(run_quiet scontrol show node gpu101)
assert_match "scontrol show node" 'Gres=gpu:8' "$node"
assert_match "scontrol show node" 'CPUTot=64' "$node"
run_quiet scontrol show partition gpu >/dev/null
assert_match "SelectType" "$E2E_MORPHEUS_SELECT" "$(run_quiet scontrol show config | grep SelectType)"
note "ok: sinfo, squeue, scontrol"
