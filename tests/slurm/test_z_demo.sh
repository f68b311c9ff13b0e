#!/bin/bash
# (z) The quick start's demo runs clean on this cluster: every view it shows works (squeue's
# field is system_comment on every release) and the demo job's placement shows in squeue.
. "$(dirname "$0")/lib.sh"

out=$TEST_TMP/demo.out
"$(dirname "$0")/demo.sh" >"$out" 2>&1 || fail "demo.sh failed: $(tail -20 "$out")"
assert_no_match "demo output" 'Invalid|unrecognized|demo: .* failed' "$(cat "$out")"
# The squeue block of the demo names the job's pod in its system_comment column.
assert_match "squeue in the demo" 'RUNNING +gpu[^ ]+ +[Mm]orpheus: pod=pod1' "$(cat "$out")"
note "ok: demo clean, placement in squeue"
