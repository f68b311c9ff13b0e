#!/bin/bash
# Blade memory that cannot be dodged (issue 24). A hostile user under an association limit
# GrpTRES=license/blade_hot_gb=100 tries every way the last round let a job hold more blade
# memory than it was charged:
#   1. naming the licence themselves (-L blade_hot_gb:0, -L blade_hot_gb:1), or clearing it
#      with `scontrol update Licenses=` on a held job;
#   2. sizing the job so the charge counts fewer nodes than it gets (-N1-4, -n/--gpus,
#      -n128, NumNodes= update of a pending job);
#   3. submitting while the engine is down (broken fabric);
# and the two operational holes: 4. a release that fails on ENOSPC is retried (views and
# metrics show it meanwhile); 5. `morpheus check --conf` reports a fabric that live
# reservations forbid. Every job that runs holds no more blade memory than its licence says.
. "$(dirname "$0")/../lib.sh"

limit=100
sacctmgr -i add account e2e-lim Description=e2e Organization=morpheus >/dev/null
sacctmgr -i add user "$E2E_USER" Account=e2e-lim GrpTRES=license/blade_hot_gb=$limit >/dev/null ||
	fail "sacctmgr could not set GrpTRES=license/blade_hot_gb=$limit"
for _ in $(seq 40); do # slurmctld learns associations from slurmdbd
	sacctmgr -n -P show assoc account=e2e-lim user="$E2E_USER" format=GrpTRES | grep -q "blade_hot_gb=$limit" &&
		scontrol show assoc_mgr users="$E2E_USER" accounts=e2e-lim flags=assoc 2>/dev/null | grep -q "blade_hot_gb=$limit" && break
	sleep 0.25
done
chmod 755 "$TEST_TMP"
as_user() { (cd "$TEST_TMP" && runuser -u "$E2E_USER" -- "$@"); }

# The hot GiB a job's licences charge, and the hot GiB it holds in the ledger.
charged() { job_field "$1" Licenses | tr ',' '\n' | sed -n 's/^blade_hot_gb[:=]//p' | head -1; }
held_gib() { echo $(($(ledger_bytes "$1" hot) / 1073741824)); }

# sbatch as the limited user: prints the job id, or "refused: MESSAGE".
try_submit() {
	local out
	if out=$(as_user sbatch --parsable -A e2e-lim -t 2 -o /dev/null "$@" 2>&1); then
		out=${out##*$'\n'}
		echo "${out%%;*}" >>"$TEST_TMP/jobs"
		echo "${out%%;*}"
	else
		echo "refused: ${out//$'\n'/ }"
	fi
}

# A job whose charge is over the limit must never run: refused at submission, or pending on
# the association limit with its full charge on it.
assert_never_runs_over_limit() { # WHAT MIN_CHARGE RESULT
	local what=$1 min=$2 job=$3 st
	if [[ $job == refused:* ]]; then
		note "$what: $job"
		return 0
	fi
	sleep 4 # several scheduling passes
	st=$(job_state "$job")
	assert_eq "$what ($job): state" PENDING "$st"
	assert_match "$what ($job): reason" 'Assoc.*(Limit|License)|AssocGrp' "$(job_field "$job" Reason)"
	[ "$(charged "$job")" -ge "$min" ] || fail "$what ($job): charged '$(charged "$job")' < $min"
	ledger_has "$job" && fail "$what ($job): holds blade memory while pending"
	note "$what: pending on the limit, charged $(charged "$job") GiB"
	scancel "$job"
}

# 1. Naming the licence does not lower the charge.
assert_never_runs_over_limit "-L blade_hot_gb:0 --mem-hot=500G" 500 \
	"$(try_submit -N1 --mem-hot=500G -L blade_hot_gb:0 --wrap 'sleep 60')"
assert_never_runs_over_limit "-L blade_hot_gb:1 --mem-hot=1T" 1024 \
	"$(try_submit -N1 --mem-hot=1T -L blade_hot_gb:1 --wrap 'sleep 60')"
# Under the limit, the user's own count is kept when it is higher (it only costs them).
own=$(try_submit -N1 --mem-hot=10G -L blade_hot_gb:20 --wrap 'sleep 1')
[[ $own == refused:* ]] && fail "a 10G job naming blade_hot_gb:20 was refused: $own"
assert_eq "charge of $own (named 20, needs 10)" 20 "$(charged "$own")"

# Clearing the licence of a held job, as its owner, then releasing it.
held=$(try_submit -N1 --hold --mem-hot=500G --mem-cold=1T --wrap 'sleep 60')
[[ $held == refused:* ]] && fail "the held 500G job was refused at submission: $held"
as_user scontrol update job="$held" Licenses= 2>"$TEST_TMP/update.err" || true
note "Licenses= update by the owner: $(cat "$TEST_TMP/update.err")"
as_user scontrol release "$held"
assert_never_runs_over_limit "held 500G job after 'scontrol update Licenses='" 500 "$held"

# 2. The charge covers the most nodes the job can get.
assert_never_runs_over_limit "-N1-4 --mem-hot=90G (4 x 90G)" 360 \
	"$(try_submit -N1-4 --mem-hot=90G --wrap 'sleep 60')"
assert_never_runs_over_limit "-n128 --mem-hot=10G" 110 \
	"$(try_submit -n128 --mem-hot=10G --wrap 'sleep 60')"
gpus=$(try_submit -n4 --ntasks-per-node=1 --gpus=4 --mem-hot=10G --wrap 'sleep 3')
[[ $gpus == refused:* ]] && fail "-n4 --gpus=4 --mem-hot=10G (40G) was refused under the limit: $gpus"
wait_state "$gpus" RUNNING 30
assert_eq "charge of $gpus (-n4 --ntasks-per-node=1 --gpus=4, 4 x 10G)" 40 "$(charged "$gpus")"
[ "$(held_gib "$gpus")" -le "$(charged "$gpus")" ] ||
	fail "$gpus holds $(held_gib "$gpus") GiB, charged $(charged "$gpus")"
# NumNodes= of a pending job: the charge follows, and an update past the limit never runs.
grow=$(try_submit -N1 --hold --mem-hot=40G --wrap 'sleep 60')
assert_eq "charge of $grow before the update" 40 "$(charged "$grow")"
scontrol update job="$grow" NumNodes=2-2
assert_eq "charge of $grow after NumNodes=2-2" 80 "$(charged "$grow")"
scontrol update job="$grow" NumNodes=3-3 2>/dev/null || true
[ "$(charged "$grow")" -ge 120 ] || [ "$(job_field "$grow" NumNodes)" = 2 ] ||
	fail "$grow: NumNodes=3-3 left a charge of $(charged "$grow") for $(job_field "$grow" NumNodes) nodes"
scontrol release "$grow"
if [ "$(job_field "$grow" NumNodes)" = 2 ]; then
	wait_state "$grow" RUNNING 30
	[ "$(held_gib "$grow")" -le "$(charged "$grow")" ] ||
		fail "$grow holds $(held_gib "$grow") GiB, charged $(charged "$grow")"
	scancel "$grow"
else
	assert_never_runs_over_limit "NumNodes=3-3 x 40G" 120 "$grow"
fi
wait_no_jobs 30 || true

# 3. The engine down (a broken fabric at startup): the charge needs no fabric.
fabric=$(dirname "$E2E_MORPHEUS_CONF")/fabric.json
cp "$fabric" "$TEST_TMP/fabric.good"
trap 'cp "$TEST_TMP/fabric.good" "$fabric"; scontrol reconfigure >/dev/null 2>&1 || true; _cleanup_test' EXIT
kill_ctld TERM
echo '{ "version": 1, "pods": [' >"$fabric"
start_ctld
down=$(try_submit -N1 --mem-hot=500G --wrap 'sleep 60')
if [[ $down != refused:* ]]; then
	assert_eq "charge of $down submitted with the engine down" 500 "$(charged "$down")"
fi
cp "$TEST_TMP/fabric.good" "$fabric"
scontrol reconfigure
assert_never_runs_over_limit "--mem-hot=500G submitted with the engine down" 500 "$down"
wait_no_jobs 30 || true

# 4. A release that fails on a full disk is retried. The ledger moves to a tiny tmpfs.
tiny=$E2E_RUN/tiny
if mkdir -p "$tiny" && mount -t tmpfs -o size=256k tmpfs "$tiny" 2>/dev/null; then
	trap 'rm -f "$tiny/fill"; sed -i "/^StateFile=/d" "$E2E_MORPHEUS_CONF"; cp "$TEST_TMP/fabric.good" "$fabric"; scontrol reconfigure >/dev/null 2>&1 || true; sleep 1; umount -l "$tiny" 2>/dev/null || true; _cleanup_test' EXIT
	echo "StateFile=$tiny/morpheus_ledger.json" >>"$E2E_MORPHEUS_CONF"
	scontrol reconfigure
	job=$(submit -N1 -t 2 --mem-hot=77G -o /dev/null --wrap 'sleep 60')
	wait_state "$job" RUNNING 30
	for _ in $(seq 50); do grep -q "\"job_id\":$job," "$tiny/morpheus_ledger.json" 2>/dev/null && break; sleep 0.1; done
	grep -q "\"job_id\":$job," "$tiny/morpheus_ledger.json" || fail "the ledger on $tiny does not hold $job"
	dd if=/dev/zero of="$tiny/fill" bs=4k 2>/dev/null || true # until ENOSPC
	scancel "$job"
	wait_state "$job" 'CANCELLED|COMPLETED' 30
	sleep 2 # several retries fail meanwhile
	jobs_json=$(morpheus_cli jobs --server "127.0.0.1:$E2E_STATUS_PORT" --json)
	state=$(python3 -c 'import json,sys; j=[x for x in json.load(sys.stdin)["jobs"] if x["job_id"]=='"$job"']; print(j[0]["state"] if j else "gone")' <<<"$jobs_json")
	assert_eq "morpheus jobs: state of $job whose release cannot be saved" releasing "$state"
	metrics=$(morpheus_cli metrics --server "127.0.0.1:$E2E_STATUS_PORT" 2>/dev/null || true)
	assert_match "metrics while the release is due" 'morpheus_releases_due 1' "$metrics"
	grep -q "\"job_id\":$job," "$tiny/morpheus_ledger.json" || fail "the ledger file lost $job although its save failed"
	rm -f "$tiny/fill"
	for _ in $(seq 50); do grep -q "\"job_id\":$job," "$tiny/morpheus_ledger.json" || break; sleep 0.1; done
	grep -q "\"job_id\":$job," "$tiny/morpheus_ledger.json" && fail "$job still reserved 5 s after space came back"
	assert_no_match "morpheus jobs after the retry" "\"job_id\": *$job[,}]" "$(morpheus_cli jobs --server "127.0.0.1:$E2E_STATUS_PORT" --json)"
	note "release of $job retried: 'releasing' while the disk was full, gone once space came back"
	sed -i '/^StateFile=/d' "$E2E_MORPHEUS_CONF"
	scontrol reconfigure
	sleep 1
	umount -l "$tiny" || true
else
	note "skipped the full-disk release: cannot mount a tmpfs here (tests/unit/test_engine covers the retry)"
fi

# 5. `morpheus check --conf` reports a fabric slurmctld would refuse: a rename of a blade that a
# running job holds memory on.
job=$(submit -N1 -t 2 --mem-hot=64G --mem-hot-latency=250ns -o /dev/null --wrap 'sleep 30')
wait_state "$job" RUNNING 30
blade=$(python3 -c 'import json,sys; print([s["blade"] for j in json.load(open(sys.argv[1]))["jobs"] if j["job_id"]==int(sys.argv[2]) for s in j["segments"]][0])' "$E2E_LEDGER" "$job")
inventory=$(dirname "$E2E_MORPHEUS_CONF")/inventory.json
cp "$inventory" "$TEST_TMP/inventory.good"
# A consistent rename (fabric and inventory agree), which only the live reservation forbids.
sed -i "s/\"$blade\"/\"${blade}-renamed\"/g" "$fabric" "$inventory"
if out=$(morpheus_cli check --conf "$E2E_MORPHEUS_CONF" 2>&1); then
	fail "morpheus check --conf passed a fabric that renames $blade, held by $job: $out"
fi
assert_match "check --conf on a rename of $blade" "slurmctld would refuse.*$blade" "$out"
cp "$TEST_TMP/fabric.good" "$fabric"
cp "$TEST_TMP/inventory.good" "$inventory"
out=$(morpheus_cli check --conf "$E2E_MORPHEUS_CONF" 2>&1) || fail "morpheus check --conf fails on the good fabric: $out"
assert_match "check --conf on the good fabric" 'reservations fit' "$out"
scancel "$job"
note "ok: every dodge held to the charge, release retried, check reports the rename"
