#!/bin/bash
# (l) The status service inside slurmctld, as users meet it: a second, non-root user sees pool
# totals and only its own jobs' placement; root sees all; a request without a valid munge
# credential (none, forged, replayed) gets nothing. pools, jobs, explain and metrics agree with
# the ledger for several running and pending jobs, as tables and as --json. Files Morpheus
# writes on the node belong to the job's user and are private; hostile flag values never
# reach the environment.
. "$(dirname "$0")/lib.sh"

user=morpheus-e2e
id "$user" >/dev/null 2>&1 || useradd -M -s /bin/bash "$user"
uid=$(id -u "$user")
server=(--server "127.0.0.1:$E2E_STATUS_PORT")
share=$TEST_TMP/share; mkdir -p "$share"; chmod 1777 "$share"
as_user() { runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@"; }

# Two running jobs of root, one of the user, one pending of the user.
r1=$(submit -N2 --mem-hot=100G --mem-hot-latency=250ns --mem-cold=200G -o /dev/null --wrap 'sleep 300')
r2=$(submit -N1 --mem-hot=300G --mem-hot-latency=300ns -o /dev/null --wrap 'sleep 300')
u1=$(as_user sbatch --parsable -N1 --mem-hot=50G --mem-hot-latency=250ns --gres=gpu:8 -o "$share/u1.out" \
	--wrap 'stat -c "NCCL %U %a" "$NCCL_TOPO_FILE"; sleep 300')
echo "$u1" >>"$TEST_TMP/jobs"
wait_state "$r1" RUNNING 20; wait_state "$r2" RUNNING 20; wait_state "$u1" RUNNING 20
u2=$(as_user sbatch --parsable -N1 --mem-hot=900G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 1')
echo "$u2" >>"$TEST_TMP/jobs"
sleep 3
assert_eq "state of the user's big job" PENDING "$(job_state "$u2")"

# Files on the node: the user's own, mode 0600.
for _ in $(seq 50); do grep -q NCCL "$share/u1.out" 2>/dev/null && break; sleep 0.2; done
grep -q "^NCCL $user 600\$" "$share/u1.out" || fail "NCCL file of $user's job: $(cat "$share/u1.out")"

# Root sees every job with detail; the figures are the ledger's.
morpheus_cli pools "${server[@]}" --json >"$TEST_TMP/pools.json" || fail "pools --json"
morpheus_cli jobs "${server[@]}" --json >"$TEST_TMP/jobs.json" || fail "jobs --json"
morpheus_cli metrics "${server[@]}" >"$TEST_TMP/metrics.txt" || fail "metrics"
python3 - "$E2E_LEDGER" "$TEST_TMP/pools.json" "$TEST_TMP/jobs.json" "$TEST_TMP/metrics.txt" "$u2" <<-'PY' || fail "views disagree with the ledger"
	import json, sys, collections, re
	ledger, pools, jobs = (json.load(open(p)) for p in sys.argv[1:4])
	metrics, pending = open(sys.argv[4]).read(), int(sys.argv[5])
	used = collections.Counter()
	for j in ledger["jobs"]:
	    for s in j["segments"]:
	        used[(s["blade"], s["tier"])] += s["bytes"]
	for b in pools["blades"]:
	    for tier in ("dram", "pmem"):
	        want = used[(b["blade"], tier)]
	        assert b[tier]["reserved"] == want, (b["blade"], tier, b[tier]["reserved"], want)
	        assert b[tier]["free"] == b[tier]["capacity"] - want, (b["blade"], tier)
	        m = re.search(r'morpheus_blade_reserved_bytes\{blade="%s",tier="%s"\} (\d+)' % (b["blade"], tier), metrics)
	        assert m and int(m.group(1)) == want, ("metrics", b["blade"], tier)
	running = {j["job_id"] for j in ledger["jobs"]}
	seen = {j["job_id"]: j for j in jobs["jobs"]}
	assert running <= set(seen), (running, set(seen))
	assert all(seen[i]["state"] == "running" and seen[i]["segments"] for i in running)
	assert seen[pending]["state"] == "pending" and "250ns" in seen[pending]["reason"], seen.get(pending)
	assert re.search(r"morpheus_jobs_placed %d\b" % len(running), metrics), "jobs_placed"
	assert re.search(r'morpheus_decisions_total\{verdict="placed"\} [1-9]', metrics), "decisions"
	print("views agree: %d running, blades %d" % (len(running), len(pools["blades"])))
	PY
table=$(morpheus_cli jobs "${server[@]}")
assert_match "jobs table (root)" "$r1 +root +running +[0-9:-]+ +gpu[^ ]+ +pod1 +blade1:" "$table"
assert_match "jobs table (root) shows the user's job" "$u1 +$user +running +[0-9:-]+ +gpu[^ ]+ +pod1" "$table"
out=$(morpheus_cli explain "$u2" "${server[@]}") || fail "explain as root: $out"
assert_match "explain of the pending job" 'verdict: pending' "$out"
assert_match "explain names the pods" 'pod2: ruled out: no blade within 250ns' "$out"

# The user: totals, its own jobs in detail, nobody else's.
as_user "$E2E_BUILD/src/cli/morpheus" jobs "${server[@]}" --json >"$TEST_TMP/ujobs.json" || fail "jobs as $user"
as_user "$E2E_BUILD/src/cli/morpheus" pools "${server[@]}" --json >"$TEST_TMP/upools.json" || fail "pools as $user"
python3 - "$TEST_TMP/ujobs.json" "$TEST_TMP/upools.json" "$TEST_TMP/pools.json" "$uid" "$u1" "$u2" <<-'PY' || fail "$user saw too much or too little"
	import json, sys
	jobs, upools, pools = (json.load(open(p)) for p in sys.argv[1:4])
	uid, u1, u2 = map(int, sys.argv[4:7])
	seen = {j["job_id"]: j for j in jobs["jobs"]}
	assert seen[u1].get("segments"), "own running job without detail"
	assert seen[u2]["state"] == "pending", "own pending job missing"
	for j in jobs["jobs"]:
	    if j["uid"] != uid:
	        assert "segments" not in j and "pods" not in j, ("other's detail leaked", j)
	assert [b[t]["reserved"] for b in upools["blades"] for t in ("dram", "pmem")] == \
	       [b[t]["reserved"] for b in pools["blades"] for t in ("dram", "pmem")], "totals differ"
	print("user view ok")
	PY
out=$(as_user "$E2E_BUILD/src/cli/morpheus" explain "$r1" "${server[@]}" 2>&1) && fail "$user could explain root's job: $out"
assert_match "explain of another's job" 'not your job' "$out"

# No credential, a forged one, a replayed one: refused, nothing else in the answer.
ask() { python3 - "$E2E_STATUS_PORT" "$1" <<-'PY'
	import socket, sys
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
	s.sendall(sys.argv[2].encode() + b"\n"); s.shutdown(socket.SHUT_WR)
	print(s.makefile().read())
	PY
}
for bad in '{"op": "status"}' "MUNGE:AAAAforged$(head -c 30 /dev/urandom | base64 | tr -d '\n=')"; do
	reply=$(ask "$bad")
	assert_match "reply to an unauthenticated request" '"error": "authentication failed' "$reply"
	assert_no_match "reply to an unauthenticated request" 'blade|job_id' "$reply"
done
cred=$(echo -n '{"op": "status", "job": 0}' | munge)
reply=$(ask "$cred"); assert_match "first use of a credential" '"blades"' "$reply"
reply=$(ask "$cred"); assert_match "replayed credential" 'authentication failed.*[Rr]eplay' "$reply"

# Hostile values never reach the environment or a file.
out=$(sbatch --mem-hot='64G;touch /tmp/pwned' --wrap true 2>&1) && fail "hostile --mem-hot accepted"
assert_match "hostile --mem-hot" "unknown size unit" "$out"
out=$(sbatch --mem-hot=$'64G\nMORPHEUS_POD=evil' --wrap true 2>&1) && fail "newline in --mem-hot accepted"
out=$(sbatch --mem-hot=99999999999999999999999G --wrap true 2>&1) && fail "huge --mem-hot accepted"
assert_match "huge --mem-hot" "too large" "$out"
[ ! -e /tmp/pwned ] || fail "a flag value was executed"
note "ok: privacy, authentication, figures, file ownership, hostile values"
