#!/bin/bash
# (k) Blade failure under BladeFailurePolicy: a running job holding memory on a blade that the
# inventory marks failed is requeued (policy requeue, logged once) or signalled and kept
# running (policy signal); `morpheus jobs` shows it; draining admits nothing new but keeps
# what is held; a blade coming back is used again.
. "$(dirname "$0")/lib.sh"

etc=$(dirname "$E2E_MORPHEUS_CONF")
inv=$etc/inventory.json
cp "$inv" "$TEST_TMP/inventory.good"
cp "$E2E_MORPHEUS_CONF" "$TEST_TMP/morpheus.conf.good"
restore() {
	cp "$TEST_TMP/inventory.good" "$inv"; touch -d '+9 seconds' "$inv"
	cp "$TEST_TMP/morpheus.conf.good" "$E2E_MORPHEUS_CONF"; scontrol reconfigure >/dev/null 2>&1 || true
}
trap 'restore; _cleanup_test' EXIT
set_blade1() { # STATE SECONDS-AHEAD (a distinct mtime per edit)
	python3 - "$inv" "$1" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1]))
	for b in d["blades"]:
	    if b["name"] == "blade1":
	        b["state"] = sys.argv[2]
	json.dump(d, open(sys.argv[1], "w"), indent=1)
	PY
	touch -d "+$2 seconds" "$inv"
}
server=(--server "127.0.0.1:$E2E_STATUS_PORT")

# Policy requeue (the default).
job=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns --requeue -o /dev/null --wrap 'sleep 300')
wait_state "$job" RUNNING 20
set_blade1 failed 2
wait_state "$job" PENDING 15
# Slurm holds a requeued batch job for cred_expire (BeginTime) first, then Morpheus does.
for i in $(seq 120); do r=$(squeue -h -j "$job" -o %r); [[ $r =~ ^Morpheus ]] && break; [ $((i % 8)) = 0 ] && note "t=$((i/4))s reason $r"; sleep 0.25; done
assert_match "reason after requeue" '^Morpheus: .*failed or draining' "$r"
sleep 2
assert_eq "log lines for the requeue" 1 "$(grep -c "JobId=$job holds memory on a failed blade: BladeFailurePolicy=requeue" "$E2E_RUN/log/slurmctld.log")"
out=$(morpheus_cli jobs "${server[@]}" -j "$job") || fail "morpheus jobs: $out"
assert_match "morpheus jobs for the requeued job" "$job +root +pending .*failed or draining" "$out"
out=$(morpheus_cli explain "$job" "${server[@]}") || fail "morpheus explain: $out"
assert_match "explain of the requeued job" 'failed/draining blades' "$out"
# The blade comes back: the job runs again, on blade1.
set_blade1 up 4
wait_state "$job" RUNNING 20
assert_match "placement after return" 'hot=blade1:' "$(scontrol show job "$job" | sed -n 's/^ *SystemComment=//p')"
scancel "$job"; wait_state "$job" CANCELLED 20

# Draining: the running job keeps its blade, a new one waits.
holder=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$holder" RUNNING 20
set_blade1 draining 6
sleep 2
newcomer=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
sleep 3
assert_eq "new job while draining" PENDING "$(job_state "$newcomer")"
assert_eq "holder while draining" RUNNING "$(job_state "$holder")"
ledger_has "$holder" || fail "draining dropped the holder's reservation"
scancel "$holder" "$newcomer"; wait_state "$holder" CANCELLED 20
set_blade1 up 8

# Policy signal: SIGUSR1, the job keeps running and is shown as affected.
sed -i '/^BladeFailurePolicy=/d' "$E2E_MORPHEUS_CONF"
echo "BladeFailurePolicy=signal" >>"$E2E_MORPHEUS_CONF"
scontrol reconfigure
sleep 1
out=$TEST_TMP/k.out
sig=$(submit -N1 --mem-hot=64G --mem-hot-latency=250ns -o "$out" --wrap \
	'trap "echo GOT-USR1" USR1; for i in $(seq 300); do sleep 0.2; done')
wait_state "$sig" RUNNING 20
sleep 1
set_blade1 failed 10
for _ in $(seq 50); do grep -q GOT-USR1 "$out" 2>/dev/null && break; sleep 0.2; done
grep -q GOT-USR1 "$out" || fail "job $sig got no SIGUSR1: $(cat "$out")"
assert_eq "signalled job" RUNNING "$(job_state "$sig")"
out=$(morpheus_cli jobs "${server[@]}" -j "$sig")
assert_match "morpheus jobs for the signalled job" "$sig +root +affected +[0-9:-]+ +gpu[^ ]+ +pod1" "$out"
assert_match "SystemComment of the signalled job" 'AFFECTED-BY-FAILED-BLADE|hot=blade1' "$(scontrol show job "$sig" | sed -n 's/^ *SystemComment=//p')"
note "ok: requeue (logged once), draining, return, signal"
