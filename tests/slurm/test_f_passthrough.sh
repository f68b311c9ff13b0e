#!/bin/bash
# (f) A job without Morpheus flags is cons_tres's business alone: no narrowing (it may use any
# pod), no reservation, no SystemComment, no MORPHEUS_* in its environment.
. "$(dirname "$0")/lib.sh"

ledger_before=$(ledger_jobs | sort | tr '\n' ' ')
out=$TEST_TMP/f.out
job=$(submit -N16 --gres=gpu:8 -o "$out" --wrap 'env | grep -cE "^MORPHEUS_(POD|HOT|COLD)" || true')
wait_state "$job" COMPLETED 30
assert_eq "nodes of the 16-node job" 16 "$(job_nodes "$job" | wc -l)"
assert_eq "MORPHEUS_* variables in its environment" 0 "$(tail -1 "$out")"
assert_eq "SystemComment" "" "$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p')"
assert_eq "ledger" "$ledger_before" "$(ledger_jobs | sort | tr '\n' ' ')"

# GRES and CPU accounting is cons_tres's: 8 GPUs per node, a 9th is refused.
out=$(sbatch -N1 --gres=gpu:9 --wrap true 2>&1) && fail "9 GPUs on an 8-GPU node accepted: $out"
# Backfill's will-run path (sbatch --test-only) with and without flags.
sbatch --test-only -N1 --wrap true 2>&1 | grep -q 'to start at' || fail "sbatch --test-only broken"
sbatch --test-only -N1 --mem-hot=8G --mem-hot-latency=250ns --wrap true 2>&1 |
	grep -Eq 'to start at .* on nodes gpu10[1-4]' || fail "sbatch --test-only with flags broken"
note "ok: pass-through"
