# lib.sh - helpers for tests/slurm/test_*.sh: assertions that fail loudly, job polling,
# and ledger reads. Sourced by each test, which runs against the cluster in $SLURM_CONF
# (started by harness.sh; E2E_RUN, E2E_LEDGER, E2E_MORPHEUS_CONF, E2E_BUILD set).
set -euo pipefail

TEST_NAME=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
TEST_TMP=$(mktemp -d "${E2E_RUN:?not inside the harness (run via harness.sh run-test)}/tmp.$TEST_NAME.XXXX")
chmod 755 "$TEST_TMP"  # job output lands here

# The unprivileged user the accounting tests submit as (harness.sh creates it). Not "nobody":
# from Slurm 26.05 the name "nobody" resolves to no uid in the association manager
# (uid_from_string maps it to SLURM_AUTH_NOBODY), so it can hold no association there.
E2E_USER=${E2E_USER:-mph-e2e}

fail() {
	printf '%s: FAIL: %s\n' "$TEST_NAME" "$*" >&2
	exit 1
}
note() { printf '%s: %s\n' "$TEST_NAME" "$*" >&2; }

assert_eq() { # WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}
assert_match() { # WHAT REGEX TEXT
	[[ $3 =~ $2 ]] || fail "$1: '$3' does not match /$2/"
}
assert_no_match() { # WHAT REGEX TEXT
	[[ ! $3 =~ $2 ]] || fail "$1: '$3' matches /$2/"
}

_cleanup_test() {
	local j
	# Jobs this test submitted (submit runs in $(...), so they are kept in a file).
	for j in $(cat "$TEST_TMP/jobs" 2>/dev/null); do scancel "$j" 2>/dev/null || true; done
	wait_no_jobs 30 || note "warning: jobs still present at exit: $(squeue -h -o '%i %T')"
}
trap _cleanup_test EXIT

# submit ARGS... : sbatch, remembering the job; prints the id. Fails the test on rejection.
submit() {
	local out
	out=$(sbatch --parsable "$@" 2>&1) || fail "sbatch $* was rejected: $out"
	out=${out##*$'\n'}
	echo "${out%%;*}" >>"$TEST_TMP/jobs"
	echo "${out%%;*}"
}

job_state() { squeue -h -j "$1" -o '%T' 2>/dev/null || true; }

# job_field JOB Field : one field of `scontrol show job -o` (values may contain spaces only
# for the last fields; the ones we read do not).
job_field() {
	scontrol show job -o "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
# What a running job holds (cpu=..,mem=..,gres/gpu=..): AllocTRES from 23.02, TRES in 22.05.
job_tres() {
	local t
	t=$(job_field "$1" AllocTRES)
	[ -n "$t" ] || t=$(job_field "$1" TRES)
	echo "$t"
}

# wait_state JOB REGEX [TIMEOUT]: until the job's state matches (COMPLETED counts when the
# job left squeue: MinJobAge keeps it in scontrol).
# wait_morpheus_reason JOB: until the job's pending reason is Morpheus's in squeue and in
# scontrol (at most 15 s); sets squeue_reason and scontrol_reason to what was read then. On
# 22.05 the main scheduler sets it; on 24.11 backfill does, once a pass has tested the job,
# and the main scheduler writes "Resources" over it between passes.
wait_morpheus_reason() {
	local _i
	for _i in $(seq 60); do
		squeue_reason=$(squeue -h -j "$1" -o %r)
		scontrol_reason=$(job_field "$1" Reason)
		[[ $squeue_reason =~ ^Morpheus ]] && [[ $scontrol_reason =~ ^Morpheus ]] && return 0
		sleep 0.25
	done
}

# expect_refused REGEX SBATCH-ARGS...: sbatch refuses the job, with a message matching REGEX.
expect_refused() {
	local want=$1 out rc=0
	shift
	out=$(sbatch "$@" --wrap true 2>&1) || rc=$?
	[ $rc != 0 ] || fail "sbatch $* was accepted: $out"
	assert_match "message of sbatch $*" "$want" "$out"
}

wait_state() {
	local job=$1 want=$2 timeout=${3:-30} t0 st
	t0=$(date +%s)
	while :; do
		st=$(job_field "$job" JobState)
		[[ $st =~ ^($want)$ ]] && return 0
		[ $(($(date +%s) - t0)) -ge "$timeout" ] &&
			fail "job $job: state '$st' after ${timeout}s, expected $want (reason: $(job_field "$job" Reason))"
		sleep 0.2
	done
}

# Jobs that hold nodes: none left running, completing or suspended.
wait_no_jobs() {
	local timeout=${1:-30} t0
	t0=$(date +%s)
	while [ -n "$(squeue -h -t R,CG,S,CF -o %i 2>/dev/null)" ]; do
		[ $(($(date +%s) - t0)) -ge "$timeout" ] && return 1
		sleep 0.2
	done
	return 0
}

# Node names of a job, one a line.
job_nodes() { scontrol show hostnames "$(job_field "$1" NodeList)"; }
in_pod1() { [[ $1 =~ ^gpu10[1-4]$ ]]; }

# Ledger (written by slurmctld) as the tests see it, independent of the CLI.
ledger_jobs() {
	python3 - "$E2E_LEDGER" <<-'EOF'
	import json, sys, os
	p = sys.argv[1]
	if os.path.exists(p):
	    for j in json.load(open(p)).get("jobs", []):
	        print(j["job_id"])
	EOF
}
ledger_has() { ledger_jobs | grep -qx "$1"; }

# edit_ledger PYTHON [ARGS...]: runs PYTHON on the ledger as `d` (ARGS in `args`) with
# slurmctld stopped, and writes it back sealed as the engine checks it: version 2, checksum
# FNV-1a 64 over the canonical (compact, sorted) JSON of "jobs". A hand edit without the seal is
# refused as damage, as it should be.
edit_ledger() {
	python3 - "$E2E_LEDGER" "$@" <<-'EOF'
	import json, sys
	path, code, args = sys.argv[1], sys.argv[2], sys.argv[3:]
	d = json.load(open(path))
	exec(code)
	jobs = json.dumps(d["jobs"], separators=(",", ":"), sort_keys=True, ensure_ascii=False)
	h = 0xcbf29ce484222325
	for b in jobs.encode():
	    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
	open(path, "w").write('{"checksum":"fnv1a64:%016x","jobs":%s,"version":2}\n' % (h, jobs))
	EOF
}

# Fails if any blade tier holds more than its inventory capacity (sizes K/M/G/T = 1024^n).
assert_no_overcommit() {
	python3 - "$E2E_LEDGER" "$(dirname "$E2E_MORPHEUS_CONF")/inventory.json" <<-'EOF' ||
	import json, sys, os, collections
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
	used = collections.Counter()
	if os.path.exists(sys.argv[1]):
	    for j in json.load(open(sys.argv[1])).get("jobs", []):
	        for s in j.get("segments", []):
	            used[(s["blade"], s["tier"])] += s["bytes"]
	bad = [f"{k[0]}/{k[1]}: {v} > {cap.get(k, 0)}" for k, v in used.items() if v > cap.get(k, 0)]
	if bad:
	    print("over-committed: " + "; ".join(bad), file=sys.stderr)
	    sys.exit(1)
	EOF
		fail "ledger over-commits a blade"
}

# reconfigure_refused WHAT : scontrol reconfigure with a file Morpheus refuses. From 24.05 the
# reconfigure re-executes slurmctld, the new process refuses the files and scontrol fails: that
# is asserted. 22.05 ignores select_g_reconfigure()'s result (read_config.c) and the only other
# way to fail is fatal(), so there it returns 0 by Slurm's design; the log and the pending
# reason carry the error (the callers check them).
reconfigure_refused() {
	if [ "${E2E_LAYER:-}" = slurm-22.05 ]; then
		scontrol reconfigure || fail "$1: 22.05's scontrol reconfigure failed (it cannot see select errors)"
	else
		! scontrol reconfigure 2>/dev/null || fail "$1: scontrol reconfigure returned 0 with a file Morpheus refuses"
	fi
}

morpheus_cli() { "$E2E_BUILD/src/cli/morpheus" "$@"; }

# ledger_bytes JOB USE : bytes of hot or cold memory the job holds in the ledger (0: none).
ledger_bytes() {
	python3 - "$E2E_LEDGER" "$1" "$2" <<-'EOF2'
	import json, sys, os
	p, job, use = sys.argv[1], int(sys.argv[2]), sys.argv[3]
	jobs = json.load(open(p)).get("jobs", []) if os.path.exists(p) else []
	print(sum(s["bytes"] for j in jobs if j["job_id"] == job for s in j["segments"] if s["use"] == use))
	EOF2
}

# Ids of the jobs `morpheus jobs` shows (reservations and decisions), one a line.
morpheus_job_ids() {
	morpheus_cli jobs --server "127.0.0.1:$E2E_STATUS_PORT" --json |
		python3 -c 'import json, sys; [print(j["job_id"]) for j in json.load(sys.stdin)["jobs"]]'
}

# Makes slurmctld write its job state now and waits until the file is on disk: a kill -9 loses
# what slurmctld has not saved, and its own saves come only "within a few seconds" (later on a
# loaded machine). A job update is a change slurmctld schedules a save for.
wait_job_state_saved() {
	local file=$E2E_RUN/state/job_state since
	since=$(date +%s.%N)
	scontrol update JobId="$1" Comment=morpheus-test-saved || fail "scontrol update of $1 failed"
	for _ in $(seq 300); do
		awk -v m="$(stat -c %.Y "$file" 2>/dev/null || echo 0)" -v s="$since" \
			'BEGIN { exit !(m > s) }' && return 0
		sleep 0.1
	done
	fail "slurmctld did not save $file within 30 s of a change to job $1"
}

# The running slurmctld's pid. Only the first line counts: since Slurm 24.05 a reconfigure
# re-executes slurmctld, and the new process rewrites the pid file from the start without
# truncating it, so a shorter pid leaves the tail of the old one on a second line.
ctld_pid() {
	local pid
	read -r pid <"$E2E_RUN/slurmctld.pid" || fail "cannot read $E2E_RUN/slurmctld.pid"
	[[ $pid =~ ^[0-9]+$ ]] || fail "$E2E_RUN/slurmctld.pid holds '$pid', not a pid"
	echo "$pid"
}

# Stops slurmctld with a signal (default KILL: no state saved on the way out) and waits until
# it no longer answers.
kill_ctld() {
	kill "-${1:-KILL}" "$(ctld_pid)"
	for _ in $(seq 50); do scontrol ping 2>/dev/null | grep -q DOWN && break; sleep 0.1; done
	sleep 0.5
}

# Starts slurmctld again on the same state and waits until it answers.
start_ctld() {
	E2E_HARNESS_RUN=$E2E_RUN slurmctld -f "$SLURM_CONF"
	for _ in $(seq 200); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
	scontrol ping | grep -q UP || fail "slurmctld did not come back"
}
