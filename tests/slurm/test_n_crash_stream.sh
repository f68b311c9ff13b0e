#!/bin/bash
# (n) Controller crashes: during a stream of E2E_CRASH_JOBS (default 500) jobs with hot and
# cold requests, slurmctld is killed with SIGKILL at random points (E2E_CRASH_KILLS, default 3)
# and restarted. After every restart, and at the end, the ledger is reconciled with Slurm's
# recovered jobs: running jobs keep their blades (with the bytes they asked for), jobs that
# ended while it was down are released, and no blade tier is ever over-committed.
. "$(dirname "$0")/lib.sh"

jobs_wanted=${E2E_CRASH_JOBS:-500}
kills=${E2E_CRASH_KILLS:-3}
RANDOM=${E2E_SEED:-42}
requests=$TEST_TMP/requests   # job nodes hot_per_node cold_per_node (GiB) hot_bound
: >"$requests"

# Keeps submitting, retrying while slurmctld is down; one line per accepted job.
submitter() {
	local i nodes hot cold bound args out secs
	local hots=(0 16 32 64 128) colds=(0 0 64 256) bounds=(300ns 400ns 250ns 600ns)
	for ((i = 0; i < jobs_wanted; i++)); do
		nodes=$((RANDOM % 2 + 1)); hot=${hots[RANDOM % 5]}; cold=${colds[RANDOM % 4]}
		bound=${bounds[RANDOM % 4]}
		[ "$bound" = 250ns ] && [ "$hot" -gt 32 ] && hot=32
		[ "$hot" = 0 ] && [ "$cold" = 0 ] && hot=16
		# Most jobs are short; one in ten runs long enough to outlive Slurm's own state save
		# (at most every 5 s while busy), so restarts find running jobs to keep blades for.
		if [ $((i % 10)) = 0 ]; then secs=$((RANDOM % 10 + 12)); else secs=$((RANDOM % 3 + 1)).$((RANDOM % 10)); fi
		args=(-N"$nodes" -o /dev/null --wrap "sleep $secs")
		[ "$hot" -gt 0 ] && args+=(--mem-hot="${hot}G" --mem-hot-latency="$bound")
		[ "$cold" -gt 0 ] && args+=(--mem-cold="${cold}G")
		until out=$(sbatch --parsable "${args[@]}" 2>/dev/null); do sleep 0.3; done
		sleep 0.05 # a stream, not a burst: Slurm saves its own state only between requests
		echo "${out%%;*}" >>"$TEST_TMP/jobs"
		echo "${out%%;*} $nodes $hot $cold $bound" >>"$requests"
	done
}

# The invariants, against one consistent look: running-before and running-after bracket the
# ledger read, so jobs that start or end meanwhile are not counted against it. A completing
# job (CG) may hold its reservation or have released it (memory goes back when the job ends,
# as cons_tres gives back its nodes, before the epilog is done): it may be in the ledger, but
# only a job running (R or S) in both looks must be. The file lags the controller by the
# background saver's spacing (100 ms, at nice 10: on a loaded CI machine a job restarted by
# Slurm's recovery was R in both looks half a second before its reservation reached the file),
# so the looks are taken again for a few seconds until they agree; every copy read must be free of
# over-commitment, at once.
check_looks() { # WHEN: one look; prints why it fails
	local before after
	before=$(squeue -h -t R,S,CG -o '%i:%t' | sort | tr '\n' ' ')
	cp "$E2E_LEDGER" "$TEST_TMP/ledger.now" 2>/dev/null || echo '{"jobs": []}' >"$TEST_TMP/ledger.now"
	after=$(squeue -h -t R,S,CG -o '%i:%t' | sort | tr '\n' ' ')
	python3 - "$TEST_TMP/ledger.now" "$requests" "$before" "$after" "$1" 2>&1 <<-'PY'
	import json, sys
	ledger = {j["job_id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
	req = {}
	for line in open(sys.argv[2]):
	    j, n, h, c = map(int, line.split()[:4])
	    req[j] = (n, h << 30, c << 30)
	def look(arg):  # "12:R 13:CG": every job id, and those running (not completing)
	    pairs = [p.split(":") for p in arg.split()]
	    return {int(j) for j, _ in pairs}, {int(j) for j, t in pairs if t in ("R", "S")}
	(before, before_running), (after, after_running) = look(sys.argv[3]), look(sys.argv[4])
	stale = [j for j in ledger if j not in before | after]
	if stale:
	    sys.exit("ledger holds jobs that are not running: %s" % stale[:10])
	for j in before_running & after_running:
	    if j not in req:
	        continue
	    if j not in ledger:
	        sys.exit("running job %d lost its reservation" % j)
	    n, hot, cold = req[j]
	    got_hot = sum(s["bytes"] for s in ledger[j]["segments"] if s["use"] == "hot")
	    got_cold = sum(s["bytes"] for s in ledger[j]["segments"] if s["use"] == "cold")
	    if (got_hot, got_cold) != (n * hot, n * cold):
	        sys.exit("job %d holds %s, asked %s" % (j, (got_hot, got_cold), (n * hot, n * cold)))
	print("%s: %d reservations, %d running throughout" % (sys.argv[5], len(ledger), len(before_running & after_running)))
	PY
}

check_invariants() { # WHEN
	local out i rc
	for i in $(seq 17); do
		out=$(check_looks "$1") && rc=0 || rc=$?
		E2E_LEDGER=$TEST_TMP/ledger.now assert_no_overcommit
		if [ "$rc" = 0 ]; then
			[ "$i" = 1 ] || out="$out (the file caught up after $((i - 1)) more looks)"
			note "$out"
			return 0
		fi
		sleep 0.3
	done
	fail "invariants broken $1: $out"
}

restart_ctld() {
	E2E_HARNESS_RUN=$E2E_RUN slurmctld -f "$SLURM_CONF"
	for _ in $(seq 200); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
	scontrol ping | grep -q UP || fail "slurmctld did not come back"
	# Nodes whose state was not saved before the kill stay "unknown" until their slurmd
	# registers, at the next ping (SlurmdTimeout/3): have them register now.
	scontrol reconfigure
	for _ in $(seq 50); do [ "$(sinfo -h -t unknown -o %D)" = "" ] && break; sleep 0.2; done
	sleep 1 # job_init reconciles once the jobs are recovered
	note "restarted: $(sinfo -h -o '%T %D' | tr '\n' ' ')"
	# A node drained by the restart is worth knowing about even when the invariants hold.
	sinfo -h -R -o '%N: %E' | while read -r line; do note "drained $line"; done
}

t0=$(date +%s)
submitter &
sub_pid=$!
for k in $(seq "$kills"); do
	# A random point in the stream: between 10% and 90% of the jobs handed in.
	target=$(( (jobs_wanted * (10 + RANDOM % 80)) / 100 ))
	while [ "$(wc -l <"$requests")" -lt "$target" ] && kill -0 "$sub_pid" 2>/dev/null; do sleep 0.2; done
	# ... with Morpheus jobs running, so that there are reservations to keep.
	for _ in $(seq 100); do [ "$(squeue -h -t R -o %i | wc -l)" -ge 3 ] && break; sleep 0.1; done
	note "kill $k: SIGKILL to slurmctld with $(wc -l <"$requests") jobs handed in, $(squeue -h -t R -o %i | wc -l) running"
	kill_ctld
	sleep "0.$((RANDOM % 9))"; sleep 1   # jobs end on the nodes while the controller is down
	restart_ctld
	check_invariants "after kill $k at job $(wc -l <"$requests")"
done
wait "$sub_pid"
# Jobs Slurm wrongly believes running after a kill (they ended while it was down) hold their
# nodes until their slurmd registers again, minutes later. Only pod1 has a blade within
# 250ns; every other job may run on any pod, so two nodes must never stand idle for 20 s
# while such jobs wait (before, backfill planned them behind those phantoms on pod1, for
# minutes). 20 s, not less: on a loaded 2-core CI machine a backfill pass over 300 pending jobs
# takes seconds, and once two passes in a row started nothing for 10 s with no fault.
awk '!($3 > 0 && $5 == "250ns") {print $1}' "$requests" | sort -u >"$TEST_TMP/any_pod"
idle_streak=0
for i in $(seq 240); do
	[ -z "$(squeue -h -o %i)" ] && break
	waiting=$(squeue -h -t PD -o '%i %r' | awk '$2 == "Priority" || $2 == "Resources" {print $1}' |
		sort | join - "$TEST_TMP/any_pod" | wc -l)
	if [ "$waiting" -gt 0 ] && [ "$(sinfo -h -t idle -o %D)" -ge 2 ] 2>/dev/null; then
		idle_streak=$((idle_streak + 1))
	else
		idle_streak=0
	fi
	[ "$idle_streak" -ge 40 ] &&
		fail "$(sinfo -h -t idle -o %D) nodes idle for 20 s while $waiting jobs free to run on any pod waited: $(squeue -h -t PD -o '%i:%r' | head -5 | tr '\n' ' ')"
	# SIGKILL loses Slurm's own state since its last save: a job may be recovered as not yet
	# started, started again, and held by Slurm ("launch failed requeued held"). Let it go.
	for h in $(squeue -h -t PD -o '%i %r' | awk '/held/ {print $1}'); do scontrol release "$h" 2>/dev/null || true; done
	[ $((i % 20)) = 0 ] && check_invariants "while draining ($(squeue -h | wc -l) left)"
	sleep 0.5
done
check_invariants "at the end"
# SIGKILL can leave Slurm believing in jobs that ended (its state file predates their end);
# it sorts them out at node registration. Whatever is still queued now is cancelled: once
# every job is gone, the ledger must be empty.
stuck=$(squeue -h -o %i | wc -l)
if [ "$stuck" -gt 0 ]; then
	note "after 120 s, $stuck jobs still queued (Slurm's recovery): cancelling them"
	scancel $(squeue -h -o %i) 2>/dev/null || true
	for _ in $(seq 120); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.5; done
fi
left=$(python3 -c "import json; print(len(json.load(open('$E2E_LEDGER'))['jobs']))")
assert_eq "reservations left at the end" 0 "$left"
# Only this test's jobs (the cluster keeps earlier tests' records for MinJobAge).
ours=$(sort -u "$TEST_TMP/jobs" | paste -sd'|')
states=$(scontrol show job -o | grep -E "^JobId=($ours) " | grep -oE 'JobState=[A-Z_]+' | sort | uniq -c | tr -s ' \n' ' ' || true)
lost=$(grep -oE 'Purged files for defunct batch JobId=[0-9]+' "$E2E_RUN/log/slurmctld.log" | sort -u | wc -l)
done_ok=$(grep -oE '_job_complete: JobId=[0-9]+ WEXITSTATUS 0' "$E2E_RUN/log/slurmctld.log" | sort -u | wc -l)
# Slurm itself forgets jobs submitted since its last state save when killed with SIGKILL; the
# ledger must then release what they held (checked above), so this is reported, not failed.
note "jobs completed: $done_ok; jobs Slurm lost to SIGKILL (not yet in its state save): $lost; records left: $states"
# How Slurm itself ended the jobs it lost or relaunched after SIGKILL (FAILED, held) is its
# own recovery, reported above, not a Morpheus invariant: those are the ledger checks.
# Slurm drains a node whose slurmd refuses a job id reused after the SIGKILL ("Duplicate
# jobid", 24.11): its own recovery as well, noted at the restart. Resume such nodes so that
# the next test starts on a whole cluster (test_o once found gpu104 drained and its -w job
# pending on ReqNodeNotAvail).
drained=$(sinfo -h -t drain,drained,draining -o %N)
if [ -n "$drained" ]; then
	note "resuming $drained, drained by Slurm's recovery: $(sinfo -h -R -o '%E' | sort -u | paste -sd';')"
	scontrol update NodeName="$drained" State=RESUME
fi
note "ok: $(wc -l <"$requests") jobs, $kills kills of slurmctld, invariants held after each, $(( $(date +%s) - t0 )) s"
