#!/bin/bash
# Blade memory in Slurm's own accounting (issue 17). Runs in a cluster with a slurmdbd and a
# MariaDB of its own (tests/slurm/run-accounting.sh: E2E_ACCOUNTING=1), where morpheus.conf
# has LicenseHot=blade_hot_gb and LicenseCold=blade_cold_gb and slurm.conf tracks both
# licenses as TRES. job_submit/morpheus adds the job's blade memory (GiB over all its nodes)
# as licenses, so:
#   - scontrol shows the licenses on the job and `scontrol show licenses` counts them in use;
#   - sacct shows each job's blade memory (AllocTRES license/blade_hot_gb=...), per account;
#   - a QOS limit on the license refuses a job over its blade-memory quota at submission,
#     and one under it runs.
#   - sreport shows each account's blade-memory usage (after `sacctmgr rollup` of this hour).
. "$(dirname "$0")/../lib.sh"

# 1. A job's blade memory as licenses, live.
a=$(submit -N2 -t 2 --mem-hot=256G --mem-hot-latency=300ns --mem-cold=100G -o /dev/null --wrap 'sleep 4')
wait_state "$a" RUNNING 20
assert_match "licenses of $a" '^blade_hot_gb:512,blade_cold_gb:200$' "$(job_field "$a" Licenses)"
used=$(scontrol show licenses blade_hot_gb -o | tr ' ' '\n' | sed -n 's/^Used=//p')
assert_eq "blade_hot_gb in use while $a runs" 512 "$used"
# A job that asks no blade memory carries no license.
plain=$(submit -N1 -t 1 -o /dev/null --wrap 'true')
assert_eq "licenses of $plain (no blade memory)" "" "$(job_field "$plain" Licenses | sed 's/(null)//')"

# 2. A second account's job, then sacct after both ended.
chmod 755 "$TEST_TMP"
b=$(cd "$TEST_TMP" && runuser -u "$E2E_USER" -- sbatch --parsable -N1 -t 2 --mem-hot=128G -o /dev/null --wrap 'sleep 1') ||
	fail "sbatch as $E2E_USER was rejected: $b"
echo "$b" >>"$TEST_TMP/jobs"
wait_state "$a" COMPLETED 30
wait_state "$b" COMPLETED 30
tres_of() { sacct -n -P -X -j "$1" -o AllocTRES | head -1; }
for _ in $(seq 40); do # slurmctld sends job records to slurmdbd asynchronously
	[[ $(tres_of "$a") == *license/blade_hot_gb=* && $(tres_of "$b") == *license/blade_hot_gb=* ]] && break
	sleep 0.5
done
assert_match "sacct AllocTRES of $a" 'license/blade_hot_gb=512' "$(tres_of "$a")"
assert_match "sacct AllocTRES of $a" 'license/blade_cold_gb=200' "$(tres_of "$a")"
assert_match "sacct AllocTRES of $b" 'license/blade_hot_gb=128' "$(tres_of "$b")"
# Per account, the sum of blade_hot_gb over jobs $1, each weighted by sacct field $2 if given.
hot_gb_per_account() {
	sacct -a -n -P -X -j "$1" -o "Account,AllocTRES${2:+,$2}" |
		awk -F'|' '{ if (match($2, /license\/blade_hot_gb=[0-9]+/)) { split(substr($2, RSTART, RLENGTH), kv, "="); sum[$1] += kv[2] * (NF > 2 ? $3 : 1) } }
			END { for (a in sum) printf "%s=%d ", a, sum[a] }'
}
per_account=$(hot_gb_per_account "$a,$b")
assert_match "blade_hot_gb per account (sacct)" '(^| )e2e=512( |$)' "$per_account"
assert_match "blade_hot_gb per account (sacct)" '(^| )e2e-other=128( |$)' "$per_account"

# sreport's per-account total: slurmdbd rolls usage up hourly, so roll up the hours these jobs
# ran in now and ask sreport for those whole hours. Usage is GiB x seconds of blade memory,
# which must equal each account's sum over sacct of AllocTRES x ElapsedRaw.
first_start=$(SLURM_TIME_FORMAT=%s sacct -n -P -X -j "$a,$b" -o Start | sort -n | head -1)
from=$(date -d "@$first_start" +%Y-%m-%dT%H:00:00)
to=$(date -d "$(date +%Y-%m-%dT%H:00:00) 1 hour" +%Y-%m-%dT%H:00:00)
sacctmgr -i rollup "$from" "$to" >/dev/null || fail "sacctmgr rollup $from $to failed"
usage_sacct=$(hot_gb_per_account "$a,$b" ElapsedRaw)
usage_sreport=$(sreport -n -P -t seconds cluster AccountUtilizationByUser start="$from" end="$to" -T license/blade_hot_gb |
	awk -F'|' '$3 == "" && $5 == "license/blade_hot_gb" { printf "%s=%d ", $2, $6 }')
for acct in e2e e2e-other; do
	want=$(tr ' ' '\n' <<<"$usage_sacct" | sed -n "s/^$acct=//p")
	[ -n "$want" ] && [ "$want" -gt 0 ] || fail "no blade_hot_gb usage of $acct in sacct: $usage_sacct"
	assert_eq "sreport blade_hot_gb GiB-seconds of account $acct" "$want" \
		"$(tr ' ' '\n' <<<"$usage_sreport" | sed -n "s/^$acct=//p")"
done

# 3. A QOS quota on blade memory: over it is refused at submission, under it runs.
sacctmgr -i modify qos normal set MaxTRESPerJob=license/blade_hot_gb=1024 Flags=DenyOnLimit >/dev/null
for _ in $(seq 20); do # slurmctld learns the change from slurmdbd
	sacctmgr -n -P show qos normal format=MaxTRES | grep -q 'license/blade_hot_gb=1024' && break
	sleep 0.25
done
over=1
for _ in $(seq 20); do
	if out=$(sbatch --parsable -N4 -t 1 --mem-hot=300G -o /dev/null --wrap 'true' 2>&1); then
		echo "${out##*$'\n'}" >>"$TEST_TMP/jobs"
		scancel "${out##*$'\n'}"
		sleep 0.5
		continue
	fi
	over=0
	break
done
[ $over = 0 ] || fail "a 1200G job was accepted under MaxTRESPerJob=license/blade_hot_gb=1024: $out"
assert_match "refusal of the 1200G job" 'QOS|policy' "$out"
assert_no_match "refusal of the 1200G job (by the quota, not by Morpheus)" 'Morpheus' "$out"
under=$(submit -N2 -t 1 --mem-hot=300G -o /dev/null --wrap 'true')
wait_state "$under" 'RUNNING|COMPLETED' 20
sacctmgr -i modify qos normal set MaxTRESPerJob=license/blade_hot_gb=-1 Flags=-1 >/dev/null
note "1200G refused: ${out##*error: }"
note "ok: licenses on jobs, sacct per job and per account ($per_account), sreport GiB-seconds ($usage_sreport), QOS quota refused 1200G and ran 600G"
