#!/bin/bash
# Issue 27, hot memory that moves closer: a soft-bound job that started on far memory after
# its wait (blade1, pod1's only blade within 250ns, was full) is moved inside its bound when
# blade1 frees. slurmctld's watcher reserves the target beside the old region (the ledger's
# "incoming" segments); the node agent (what HealthCheckProgram runs, as root) moves the pages
# - here EMULATED, as the test cluster has no NUMA node for any blade, and recorded as such -
# and reports move_done; then ledger, SystemComment and the agent's record agree that the
# job's hot memory is on blade1 at 200ns. The ledger never books more than a blade holds, at
# any instant sampled. A non-root caller may neither list nor finish moves.
. "$(dirname "$0")/lib.sh"

user=morpheus-e2e
id "$user" >/dev/null 2>&1 || useradd -M -s /bin/bash "$user"
server=(--server "127.0.0.1:$E2E_STATUS_PORT")
spool=$TEST_TMP/spool
mkdir -p "$spool"

# Samples the ledger every 0.1s until the test ends: any blade tier over capacity is written
# to $TEST_TMP/overcommit, one line per sample to $TEST_TMP/samples.
python3 - "$E2E_LEDGER" "$(dirname "$E2E_MORPHEUS_CONF")/inventory.json" "$TEST_TMP/overcommit" \
	"$TEST_TMP/samples" <<-'PY' &
	import collections, json, os, sys, time
	units = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
	def size(s):
	    s = str(s).strip().upper().rstrip("B")
	    n = s.rstrip("KMGTP")
	    return int(float(n) * units[s[len(n):]])
	cap = {}
	for b in json.load(open(sys.argv[2]))["blades"]:
	    for tier in ("dram", "pmem"):
	        if tier in b:
	            cap[(b["name"], tier)] = size(b[tier])
	for _ in range(1200):
	    try:
	        jobs = json.load(open(sys.argv[1])).get("jobs", [])
	    except (OSError, ValueError):
	        jobs = []
	    used = collections.Counter()
	    for j in jobs:
	        for s in j.get("segments", []):
	            used[(s["blade"], s["tier"])] += s["bytes"]
	    bad = [f"{k[0]}/{k[1]}: {v} > {cap.get(k, 0)}" for k, v in used.items() if v > cap.get(k, 0)]
	    if bad:
	        open(sys.argv[3], "a").write("; ".join(bad) + "\n")
	    open(sys.argv[4], "a").write(f"{len(jobs)}\n")
	    time.sleep(0.1)
	PY
sampler=$!
trap 'kill $sampler 2>/dev/null || true; _cleanup_test' EXIT

# segments JOB: "use:blade:latency" of each of the job's segments in the ledger, sorted.
segments() {
	python3 - "$E2E_LEDGER" "$1" <<-'PY'
	import json, sys
	for j in json.load(open(sys.argv[1]))["jobs"]:
	    if str(j["job_id"]) == sys.argv[2]:
	        print("\n".join(sorted(f'{s["use"]}:{s["blade"]}:{s["latency_ns"]}' for s in j["segments"])))
	PY
}
comment() { scontrol show job "$1" | sed -n 's/^ *SystemComment=//p'; }

holder=$(submit -N1 -w gpu101 -t 5 --mem-hot=1T --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 300')
wait_state "$holder" RUNNING 20
wait=5
soft=$(submit -N1 -w gpu102 -t 5 --mem-hot=600G --mem-hot-latency=250ns --mem-hot-wait=${wait}s -o /dev/null \
	--wrap 'sleep 300')
wait_state "$soft" RUNNING 60
far=$(segments "$soft")
assert_no_match "segments of $soft before the move (all far)" 'blade1|incoming' "$far"
assert_match "segments of $soft before the move" 'hot:blade[0-9]+:(2[5-9][0-9]|[3-9][0-9][0-9])' "$far"
sleep 2
assert_no_match "segments of $soft while blade1 is full (no move)" 'incoming' "$(segments "$soft")"

# blade1 frees: the watcher begins the move within a second or two.
scancel "$holder"
for _ in $(seq 100); do segments "$soft" | grep -q '^incoming:blade1:200$' && break; sleep 0.2; done
moving=$(segments "$soft")
assert_match "ledger of $soft once blade1 freed (target reserved)" 'incoming:blade1:200' "$moving"
assert_match "ledger of $soft once blade1 freed (old region kept)" "$(head -1 <<<"$far")" "$moving"
state=$(morpheus_cli jobs "${server[@]}" --json |
	python3 -c 'import json,sys; print(next(j["state"] for j in json.load(sys.stdin)["jobs"] if j["job_id"]=='"$soft"'))')
assert_eq "state of $soft in morpheus jobs" moving "$state"
for _ in $(seq 25); do [[ $(comment "$soft") == *moving-to=blade1* ]] && break; sleep 0.2; done
assert_match "SystemComment of $soft while moving" 'moving-to=blade1:600G@200ns' "$(comment "$soft")"
assert_match "explain of $soft while moving" 'moving' "$(morpheus_cli explain "${server[@]}" "$soft")"

# Not root: neither the list nor move_done.
ask() { python3 - "$E2E_STATUS_PORT" "$1" <<-'PY'
	import socket, sys
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
	s.sendall(sys.argv[2].encode() + b"\n"); s.shutdown(socket.SHUT_WR)
	print(s.makefile().read())
	PY
}
cred=$(runuser -u "$user" -- munge -s '{"op": "move_done", "job": '"$soft"', "node": "gpu102"}')
reply=$(ask "$cred")
assert_match "move_done of uid $(id -u "$user")" '"error": "op \\"move_done\\" is for the nodes only' "$reply"
if runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$E2E_BUILD/src/cli/morpheus" node agent "${server[@]}" \
	--node gpu102 --spool "$spool" >"$TEST_TMP/agent-user.out" 2>&1; then
	fail "the node agent as $user succeeded: $(cat "$TEST_TMP/agent-user.out")"
fi
assert_match "node agent as $user" 'for the nodes only' "$(cat "$TEST_TMP/agent-user.out")"
# Root, but not the job's node: nothing to do there, and no finishing it from there.
reply=$(ask "$(munge -s '{"op": "move_done", "job": '"$soft"', "node": "gpu103"}')")
assert_match "move_done from gpu103" 'no move under way on node gpu103' "$reply"
assert_match "ledger of $soft after the refusals" 'incoming:blade1:200' "$(segments "$soft")"

# The node agent on the job's node, as root (as slurmd's HealthCheckProgram runs it).
out=$(morpheus_cli node agent "${server[@]}" --node gpu102 --spool "$spool") || fail "node agent failed: $out"
assert_match "node agent's report" "job $soft: emulated \\(no NUMA node for blade .*\\), reported \\(move finished\\)" "$out"
after=$(segments "$soft")
assert_eq "ledger of $soft after the move" "hot:blade1:200" "$after"
for _ in $(seq 25); do [[ $(comment "$soft") != *moving-to* ]] && break; sleep 0.2; done
assert_match "SystemComment of $soft after the move" 'hot=blade1:600G@200ns$|hot=blade1:600G@200ns ' "$(comment "$soft")"
assert_no_match "SystemComment of $soft after the move" 'moving-to' "$(comment "$soft")"
python3 - "$spool/morpheus_moves_emulated.log" "$soft" <<-'PY' || fail "emulation record of $soft wrong"
	import json, sys
	recs = [json.loads(l) for l in open(sys.argv[1])]
	r = [x for x in recs if str(x["job"]) == sys.argv[2]]
	assert len(r) == 1, recs
	r = r[0]
	assert r["emulated"] is True and r["node"] == "gpu102", r
	assert [t["blade"] for t in r["target"]] == ["blade1"] and r["target"][0]["latency_ns"] == 200, r
	assert r["bytes"] == 600 << 30 and all(f["latency_ns"] > 250 for f in r["from"]), r
	PY
out=$(morpheus_cli node agent "${server[@]}" --node gpu102 --spool "$spool")
assert_match "node agent's second pass" 'nothing to move' "$out"
assert_no_overcommit
kill $sampler 2>/dev/null || true
wait $sampler 2>/dev/null || true  # killed: 143
[ "$(wc -l <"$TEST_TMP/samples")" -ge 20 ] || fail "the ledger sampler took $(wc -l <"$TEST_TMP/samples") samples"
[ ! -s "$TEST_TMP/overcommit" ] || fail "ledger over-committed during the move: $(head -3 "$TEST_TMP/overcommit")"
scancel "$soft"
wait_no_jobs
note "ok: $soft ran far ($(tr '\n' ' ' <<<"$far")), moved to blade1@200ns once $holder ended (emulated on the node)"
