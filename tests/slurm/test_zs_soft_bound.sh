#!/bin/bash
# Issue 27, soft bounds: --mem-hot-wait=TIME waits that long for hot memory inside the bound,
# then the job starts on the nearest memory beyond it (its reservation keeps the declared bound,
# so the memory beyond shows); --mem-hot-wait=hard still waits; a hard bound no blade can ever
# meet is refused at submission while a soft one is accepted; malformed and too-long waits
# are refused at submission. pod1's blade1 (1T, 200ns) is the only blade within 250ns.
. "$(dirname "$0")/lib.sh"

last_id() { scontrol show config | sed -n 's/^NEXT_JOB_ID *= *//p'; }

before=$(last_id)
expect_refused 'mem-hot-wait.*"soon" is not a wait' -N1 --mem-hot=1G --mem-hot-wait=soon
expect_refused 'Morpheus: .*MaxHotWait=1d' -N1 --mem-hot=1G --mem-hot-wait=2-00:00:00
expect_refused 'Morpheus: .*50ns' -N1 --mem-hot=1G --mem-hot-latency=50ns --mem-hot-wait=hard
assert_eq "next job id (no job created)" "$before" "$(last_id)"

holder=$(submit -N1 -t 5 --mem-hot=800G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$holder" RUNNING 20
hard=$(submit -N1 -t 2 --mem-hot=600G --mem-hot-latency=250ns --mem-hot-wait=hard -o /dev/null --wrap 'sleep 300')
wait=15
soft=$(submit -N1 -t 2 --mem-hot=600G --mem-hot-latency=250ns --mem-hot-wait=${wait}s -o /dev/null --wrap 'sleep 300')
sleep $((wait / 2))
assert_eq "state of $soft inside its wait" PENDING "$(job_state "$soft")"
wait_state "$soft" RUNNING 60
submitted=$(date -d "$(job_field "$soft" SubmitTime)" +%s)
started=$(date -d "$(job_field "$soft" StartTime)" +%s)
[ $((started - submitted)) -ge $wait ] || fail "$soft started after $((started - submitted)) s, before its ${wait} s wait"
comment=$(scontrol show job "$soft" | sed -n 's/^ *SystemComment=//p')
lat=$(grep -o 'hot=[^ ]*' <<<"$comment" | grep -o '@[0-9]*ns' | tr -dc '0-9\n' | sort -n | tail -1)
[ -n "$lat" ] && [ "$lat" -gt 250 ] || fail "$soft's hot memory is not beyond 250ns: $comment"
python3 - "$E2E_LEDGER" "$soft" <<-'PY' || fail "ledger of $soft: bound or segments wrong"
	import json, sys
	jobs = json.load(open(sys.argv[1]))["jobs"]
	r = next(j for j in jobs if str(j["job_id"]) == sys.argv[2])
	assert r["hot_latency_bound_ns"] == 250, r
	assert any(s["use"] == "hot" and s["latency_ns"] > 250 for s in r["segments"]), r
PY
assert_no_overcommit
# The hard one waited all along, with Morpheus's reason.
assert_eq "state of $hard (hard bound)" PENDING "$(job_state "$hard")"
wait_morpheus_reason "$hard"
assert_match "reason of $hard" '^Morpheus: ' "$squeue_reason"

# A soft bound no blade can ever meet is accepted (it runs beyond it after its wait).
never=$(submit -N1 -t 1 --mem-hot=1G --mem-hot-latency=50ns --mem-hot-wait=0 -o /dev/null --wrap true)
wait_state "$never" 'RUNNING|COMPLETED' 30
scancel "$holder" "$hard" "$soft"
wait_no_jobs
note "ok: $soft waited ${wait}s then ran at ${lat}ns (bound 250ns); hard $hard kept waiting; bad waits refused"
