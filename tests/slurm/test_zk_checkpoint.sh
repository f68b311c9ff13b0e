#!/bin/bash
# Issue 28, checkpoint offload on real Slurm: persistent-memory regions and booked flush windows.
# (1) Bad requests are refused at submission with the flag and the fix (malformed, a size no
#     persistent memory holds, a flush longer than its period even alone on the fabric).
# (2) Two jobs on pod1 whose flushes to the same blade would overload its link together
#     (each takes the link's whole checkpoint share) get disjoint windows, as each job reads them
#     from its environment (MORPHEUS_CKPT_*) and from `morpheus ckpt --json`; a third pends with
#     the reason naming the link, in squeue and scontrol; `morpheus jobs` and `explain` show it.
# (3) A job requeued after its node is killed (slurmd SIGKILLed, the node set DOWN) keeps the
#     same region and is told to restore (MORPHEUS_CKPT_RESTORE=1 on its second start).
# (4) A region blade fails: the job with a replica stays restorable (restarted: RESTORE=1 from
#     the surviving blade), the one without is told (RESTORE=0, LOST=1) and the admin sees it
#     (SystemComment CKPT-LOST, one slurmctld.log line); neither is requeued for it meanwhile.
# (5) A region is released when its job ends for good, also when it is cancelled while requeued.
# Only blade1 (then blade1 and blade2) holds persistent memory here, so every region's path is
# known: pod1 -> leaf1 -> blade1, whose 400 Gb/s link at CheckpointShare=0.5 moves 25 GB/s.
. "$(dirname "$0")/lib.sh"

etc=$(dirname "$E2E_MORPHEUS_CONF")
inv=$etc/inventory.json
cp "$inv" "$TEST_TMP/inventory.good"
restore_inventory() { cp "$TEST_TMP/inventory.good" "$inv"; touch -d '+30 seconds' "$inv"; }
trap 'restore_inventory; _cleanup_test' EXIT
server=(--server "127.0.0.1:$E2E_STATUS_PORT")
stamp=0
# set_pmem BLADE=SIZE,... [BLADE=STATE,...]: persistent memory only on the blades named; a
# distinct mtime per edit, then waits until the controller has read it (InventoryCheckInterval).
set_inventory() {
	stamp=$((stamp + 2))
	python3 - "$inv" "$1" "${2:-}" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	pmem = dict(kv.split("=") for kv in sys.argv[2].split(",") if kv)
	state = dict(kv.split("=") for kv in sys.argv[3].split(",") if kv)
	for b in d["blades"]:
	    b["pmem"] = pmem.get(b["name"], "0")
	    b["state"] = state.get(b["name"], "up")
	json.dump(d, open(sys.argv[1] + ".new", "w"), indent=1)
	PY
	local log=$E2E_RUN/log/slurmctld.log before
	before=$(wc -l <"$log")
	# Whole file at once (rename), so the controller never reads a half-written one.
	touch -d "+$stamp seconds" "$inv.new"
	mv "$inv.new" "$inv"
	for _ in $(seq 150); do
		tail -n +"$((before + 1))" "$log" | grep -q "inventory changed, re-read" && return 0
		sleep 0.2
	done
	fail "slurmctld did not re-read the inventory in 30 s; its log since the edit: $(tail -n +"$((before + 1))" "$log" | grep -i morpheus | tail -20)"
}
# ckpt_env FILE NAME: the value NAME had in the job's environment (the job wrote `env` to FILE).
ckpt_env() { sed -n "s/^$2=//p" "$1" | tail -1; }
wait_file() { for _ in $(seq 100); do [ -s "$1" ] && grep -q "^END" "$1" && return 0; sleep 0.2; done; fail "no output in $1"; }
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }
# The job's script: its checkpoint environment and `morpheus ckpt --json`, then it runs on.
job_script() {
	printf '%s\n' "env | grep ^MORPHEUS_CKPT | sort" \
		"echo CKPT_JSON=\$($E2E_BUILD/src/cli/morpheus ckpt --json)" \
		"echo END \${SLURM_RESTART_COUNT:-0}" "sleep ${1:-300}"
}

set_inventory blade1=2T

# (1) Refused at submission, with the flag and the fix.
expect_refused 'ckpt-size.*lots' -N1 --ckpt-size=lots --ckpt-period=10m
expect_refused 'ckpt-period' -N1 --ckpt-size=100G
expect_refused 'ckpt-replicas.*give 1 to 4' -N1 --ckpt-size=100G --ckpt-period=10m --ckpt-replicas=9
expect_refused 'Morpheus: .*--ckpt-size=20T is more than the 2T of persistent memory.*fix: a smaller --ckpt-size' \
	-N1 --ckpt-size=20T --ckpt-period=1h
expect_refused 'Morpheus: .*--ckpt-size=1.9T: one flush takes at least .* alone on the fabric, longer than --ckpt-period=10s .*fix' \
	-N1 --ckpt-size=1900G --ckpt-period=10s
note "ok: bad requests refused at submission"

# (2) Two flushes of 600G to blade1 each take its link's whole share for 26 s: disjoint windows
# in a 60 s period; a third has none.
a=$(submit -N1 -w gpu101 --ckpt-size=600G --ckpt-period=60s -o "$TEST_TMP/a.out" --wrap "$(job_script)")
b=$(submit -N1 -w gpu102 --ckpt-size=600G --ckpt-period=60s -o "$TEST_TMP/b.out" --wrap "$(job_script)")
wait_state "$a" RUNNING 20
wait_state "$b" RUNNING 20
wait_file "$TEST_TMP/a.out"
wait_file "$TEST_TMP/b.out"
for j in a b; do
	assert_match "region of job $j" '^blade1:600G@' "$(ckpt_env "$TEST_TMP/$j.out" MORPHEUS_CKPT_REGION)"
	assert_eq "period of job $j" 60 "$(ckpt_env "$TEST_TMP/$j.out" MORPHEUS_CKPT_PERIOD)"
	assert_eq "window of job $j" 26 "$(ckpt_env "$TEST_TMP/$j.out" MORPHEUS_CKPT_WINDOW)"
	assert_eq "restore on a first start of job $j" 0 "$(ckpt_env "$TEST_TMP/$j.out" MORPHEUS_CKPT_RESTORE)"
	assert_match "morpheus ckpt --json in job $j" '"period_s": 60, "phase_s": [0-9]+, "window_s": 26' \
		"$(ckpt_env "$TEST_TMP/$j.out" CKPT_JSON)"
done
pa=$(ckpt_env "$TEST_TMP/a.out" MORPHEUS_CKPT_PHASE)
pb=$(ckpt_env "$TEST_TMP/b.out" MORPHEUS_CKPT_PHASE)
python3 - "$pa" "$pb" <<-'PY' || fail "windows overlap: job $a at +$pa s, job $b at +$pb s (26 s each, period 60 s)"
import sys
a, b = int(sys.argv[1]), int(sys.argv[2])
sa = {(a + t) % 60 for t in range(26)}
sb = {(b + t) % 60 for t in range(26)}
sys.exit(1 if sa & sb else 0)
PY
note "ok: disjoint windows: job $a at +${pa}s, job $b at +${pb}s of 60s, 26s each"
c=$(submit -N1 -w gpu103 --ckpt-size=600G --ckpt-period=60s -o /dev/null --wrap 'sleep 300')
wait_morpheus_reason "$c"
assert_eq "state of the third job" PENDING "$(job_state "$c")"
assert_match "squeue reason of the third job" '^Morpheus: checkpoint: link .*blade1.* has its checkpoint share booked' "$squeue_reason"
assert_match "scontrol reason of the third job" '^Morpheus:.checkpoint:.link.*blade1' "$scontrol_reason"
out=$(morpheus_cli jobs "${server[@]}") || fail "morpheus jobs: $out"
assert_match "morpheus jobs shows the region and window" "$a .*blade1:600G.*window" "$out"
out=$(morpheus_cli explain "$c" "${server[@]}") || fail "morpheus explain: $out"
assert_match "explain of the pending job" 'checkpoint window: none: link .*blade1' "$out"
out=$(morpheus_cli explain "$b" "${server[@]}") || fail "morpheus explain: $out"
assert_match "explain of a placed job" "checkpoint window: every 1m from \\+${pb}s for 26s" "$out"
out=$(morpheus_cli metrics "${server[@]}") || fail "morpheus metrics: $out"
assert_match "booked share metric" 'morpheus_checkpoint_booked_share\{tier="leaf"\} 0\.[0-9]' "$out"
# morpheus links: the two windows on blade1's link, apart, the load never over its share.
out=$(morpheus_cli links --link blade1 --json "${server[@]}") || fail "morpheus links: $out"
python3 - "$a" "$b" "$pa" "$pb" "$out" <<-'PY' || fail "morpheus links --link blade1: $out"
	import json, sys
	a, b, pa, pb = (int(x) for x in sys.argv[1:5])
	d = json.loads(sys.argv[5])
	[k] = [k for k in d["links"] if "blade1" in (k["from"], k["to"])]
	held = {h["job_id"]: h["phase_s"] for h in k["holders"]}
	assert held == {a: pa, b: pb}, held
	assert all(s["booked"] <= k["capacity"] * 1.0001 for s in k["load"]), k["load"]
	PY
scancel "$a" "$b" "$c"
wait_state "$a" CANCELLED 20
wait_state "$b" CANCELLED 20
for _ in $(seq 50); do ledger_has "$a" || ledger_has "$b" || break; sleep 0.2; done
ledger_has "$a" && fail "job $a ended and still holds its region"

# (3) A job's node is killed: requeued, it keeps its region and is told to restore.
d=$(submit -N1 --requeue --ckpt-size=600G --ckpt-period=60s -o "$TEST_TMP/d.out" --open-mode=append \
	--wrap "$(job_script)")
wait_state "$d" RUNNING 20
wait_file "$TEST_TMP/d.out"
node=$(job_field "$d" NodeList)
region=$(ckpt_env "$TEST_TMP/d.out" MORPHEUS_CKPT_REGION)
phase=$(ckpt_env "$TEST_TMP/d.out" MORPHEUS_CKPT_PHASE)
kill -KILL "$(cat "$E2E_RUN/slurmd.$node.pid")"
scontrol update NodeName="$node" State=DOWN Reason="test_zk: slurmd killed"
wait_state "$d" PENDING 20
ledger_has "$d" || fail "requeued job $d lost its region"
assert_match "SystemComment of the requeued job" 'ckpt=blade1:600G.*ckpt-kept-for-restart' "$(comment "$d")"
E2E_HARNESS_RUN=$E2E_RUN slurmd -f "$SLURM_CONF" -N "$node"
scontrol update NodeName="$node" State=RESUME >/dev/null 2>&1 || true
for _ in $(seq 150); do [ "$(grep -c '^END 1' "$TEST_TMP/d.out")" -ge 1 ] && break; sleep 0.2; done
grep -q '^END 1' "$TEST_TMP/d.out" || fail "job $d did not start again: $(job_field "$d" JobState) $(job_field "$d" Reason)"
second=$(sed -n '/^END 0/,$p' "$TEST_TMP/d.out")
assert_eq "region after the requeue" "$region" "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_REGION=//p')"
assert_eq "phase after the requeue" "$phase" "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_PHASE=//p')"
assert_eq "restore after the requeue" 1 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_RESTORE=//p')"
assert_match "morpheus ckpt --json after the requeue" '"restore": true' "$(echo "$second" | sed -n 's/^CKPT_JSON=//p')"
scancel "$d"
wait_state "$d" CANCELLED 20
for _ in $(seq 50); do ledger_has "$d" || break; sleep 0.2; done
ledger_has "$d" && fail "job $d ended for good and still holds its region"
note "ok: requeue after a node kill keeps region $region at +${phase}s and says restore"

# (4) A region blade fails: a replica keeps the job restorable; without one the job is told.
set_inventory blade1=2T,blade2=2T
e=$(submit -N1 -w gpu101 --ckpt-size=200G --ckpt-period=60s --ckpt-replicas=2 -o "$TEST_TMP/e.out" \
	--open-mode=append --wrap "$(job_script)")
f=$(submit -N1 -w gpu102 --ckpt-size=200G --ckpt-period=60s -o "$TEST_TMP/f.out" --open-mode=append \
	--wrap "$(job_script)")
wait_state "$e" RUNNING 20
wait_state "$f" RUNNING 20
wait_file "$TEST_TMP/e.out"
wait_file "$TEST_TMP/f.out"
assert_match "region of the replicated job" '^blade1:200G@[0-9]+ns,blade2:200G@' "$(ckpt_env "$TEST_TMP/e.out" MORPHEUS_CKPT_REGION)"
assert_eq "copies of the replicated job" 2/2 "$(ckpt_env "$TEST_TMP/e.out" MORPHEUS_CKPT_COPIES)"
assert_match "region of the single-copy job" '^blade1:200G@[0-9]+ns$' "$(ckpt_env "$TEST_TMP/f.out" MORPHEUS_CKPT_REGION)"
set_inventory blade1=2T,blade2=2T blade1=failed
for _ in $(seq 50); do [[ $(comment "$f") =~ CKPT-LOST ]] && break; sleep 0.2; done
assert_match "SystemComment of the job without a replica" 'CKPT-LOST' "$(comment "$f")"
assert_match "SystemComment of the job with a replica" 'ckpt-copies=1/2' "$(comment "$e")"
grep -q "JobId=$f has its checkpoint region on a failed blade (no intact copy" "$E2E_RUN/log/slurmctld.log" ||
	fail "no slurmctld.log line for job $f's lost region"
sleep 2
assert_eq "job with a replica keeps running" RUNNING "$(job_state "$e")"
assert_eq "job without a replica keeps running" RUNNING "$(job_state "$f")"
scontrol requeue "$e,$f"
for _ in $(seq 150); do
	grep -q '^END 1' "$TEST_TMP/e.out" && grep -q '^END 1' "$TEST_TMP/f.out" && break
	sleep 0.2
done
grep -q '^END 1' "$TEST_TMP/e.out" || fail "job $e did not start again: $(job_field "$e" Reason)"
grep -q '^END 1' "$TEST_TMP/f.out" || fail "job $f did not start again: $(job_field "$f" Reason)"
second=$(sed -n '/^END 0/,$p' "$TEST_TMP/e.out")
assert_eq "replicated job told to restore" 1 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_RESTORE=//p')"
assert_eq "replicated job restores from the surviving blade" blade2 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_RESTORE_FROM=//p')"
second=$(sed -n '/^END 0/,$p' "$TEST_TMP/f.out")
assert_eq "single-copy job not told to restore" 0 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_RESTORE=//p')"
assert_eq "single-copy job told its checkpoint is lost" 1 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_LOST=//p')"
assert_match "single-copy job's new region" '^blade2:200G' "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_REGION=//p')"
note "ok: failed region blade: replica restorable from blade2, single copy told it is lost"

# (5) Cancelled while requeued (no job_fini comes): the kept region is released.
scontrol requeuehold "$f"
wait_state "$f" PENDING 20
ledger_has "$f" || fail "requeued job $f lost its region"
scancel "$f"
for _ in $(seq 75); do ledger_has "$f" || break; sleep 0.2; done
ledger_has "$f" && fail "job $f, cancelled while requeued, still holds its region"
note "ok: a region kept for a requeued job is released when it is cancelled"

# (6) A drained region blade: its copies stay (a restart restores from them), new regions go
# elsewhere.
scancel "$e"
wait_state "$e" CANCELLED 20
set_inventory blade1=2T,blade2=2T
g=$(submit -N1 -w gpu101 --requeue --ckpt-size=200G --ckpt-period=60s -o "$TEST_TMP/g.out" --open-mode=append \
	--wrap "$(job_script)")
wait_state "$g" RUNNING 20
wait_file "$TEST_TMP/g.out"
region=$(ckpt_env "$TEST_TMP/g.out" MORPHEUS_CKPT_REGION)
assert_match "region before the drain" '^blade1:200G' "$region"
set_inventory blade1=2T,blade2=2T blade1=draining
h=$(submit -N1 -w gpu102 --ckpt-size=200G --ckpt-period=60s -o "$TEST_TMP/h.out" --wrap "$(job_script)")
wait_state "$h" RUNNING 20
wait_file "$TEST_TMP/h.out"
assert_match "a new region avoids the draining blade" '^blade2:200G' "$(ckpt_env "$TEST_TMP/h.out" MORPHEUS_CKPT_REGION)"
assert_no_match "SystemComment of the job on the draining blade" 'CKPT-LOST' "$(comment "$g")"
scontrol requeue "$g"
for _ in $(seq 150); do grep -q '^END 1' "$TEST_TMP/g.out" && break; sleep 0.2; done
grep -q '^END 1' "$TEST_TMP/g.out" || fail "job $g did not start again: $(job_field "$g" Reason)"
second=$(sed -n '/^END 0/,$p' "$TEST_TMP/g.out")
assert_eq "region on the draining blade kept over the requeue" "$region" "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_REGION=//p')"
assert_eq "told to restore from the draining blade" 1 "$(echo "$second" | sed -n 's/^MORPHEUS_CKPT_RESTORE=//p')"
assert_no_match "not told its checkpoint is lost" "MORPHEUS_CKPT_LOST=1" "$second"
note "ok: drained region blade: job $g keeps $region and restores from it; new job $h went to blade2"
