#!/bin/sh
# morpheus pools: capacity, reserved and free per pod and blade agree with the ledger.
. "$top_srcdir/tests/cli/lib.sh"
F="$ETC/fabric.json"; I="$ETC/inventory.json"; L="$WORK/ledger.json"

run 0 "$MORPHEUS" pools "$F" "$I" --json
[ "$(json_field "sum(b['dram']['reserved'] for b in d['blades'])")" = 0 ] || { echo "FAIL: empty ledger"; failures=$((failures+1)); }

run 0 "$MORPHEUS" place "$F" "$I" --nodes 2 --mem-hot 100G --mem-hot-latency 250ns --mem-cold 1T --state "$L" --reserve --job-id 42
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" --json
[ "$(json_field "[b['dram']['reserved'] for b in d['blades'] if b['blade']=='blade1'][0]")" = $((200 * 1024 * 1024 * 1024)) ] ||
    { echo "FAIL: blade1 reserved"; failures=$((failures+1)); }
[ "$(json_field "sum(b['pmem']['reserved'] for b in d['blades'])")" = $((2 * 1024 * 1024 * 1024 * 1024)) ] ||
    { echo "FAIL: cold reserved"; failures=$((failures+1)); }
[ "$(json_field "[j['job_id'] for j in d['jobs']]")" = "[42]" ] || { echo "FAIL: jobs"; failures=$((failures+1)); }

# Each blade's latency band over the pods, from the fabric file: offline, static only (no
# measured band, no MEASURED column: only the controller has measurements).
[ "$(json_field "[(b['static_min_ns'], b['static_max_ns'], 'heat' in b) for b in d['blades'] if b['blade']=='blade1'][0]")" = "(200, 500, False)" ] ||
    { echo "FAIL: blade1's static band"; failures=$((failures+1)); }
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" -O blade,latency,measured,fresh -h
contains "$WORK/out" "blade2  280ns..580ns  -         -"
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L"
if grep -q MEASURED "$WORK/out"; then echo "FAIL: a MEASURED column offline"; failures=$((failures+1)); fi
contains "$WORK/out" "JOBS 1"
contains "$WORK/out" "blade1  up"
golden "$DATA/cli/pools-after-one-job.expected"

run 0 "$MORPHEUS" place "$F" "$I" --state "$L" --release 42
run 0 "$MORPHEUS" pools "$F" "$I" --state "$L" --json
[ "$(json_field "sum(b['dram']['reserved']+b['pmem']['reserved'] for b in d['blades'])")" = 0 ] ||
    { echo "FAIL: release frees"; failures=$((failures+1)); }
# No arguments: morpheus.conf beside slurm.conf ($SLURM_CONF), as sinfo finds slurm.conf.
mkdir -p "$WORK/etc"
cp "$ETC/morpheus.conf" "$ETC/fabric.json" "$ETC/inventory.json" "$WORK/etc/"
printf 'ClusterName=t\nSlurmctldHost=ctl(127.0.0.1)\n' >"$WORK/etc/slurm.conf"
SLURM_CONF="$WORK/etc/slurm.conf" run 0 "$MORPHEUS" pools --json
[ "$(json_field "len(d['blades'])")" = 8 ] || { echo "FAIL: pools found no morpheus.conf beside slurm.conf"; failures=$((failures+1)); }
# ...offline, with no ledger: it says that every blade shows free, rather than pretend.
contains "$WORK/err" "no ledger given"
echo "StateFile=$WORK/missing-ledger.json" >>"$WORK/etc/morpheus.conf"
SLURM_CONF="$WORK/etc/slurm.conf" run 0 "$MORPHEUS" pools
contains "$WORK/err" "missing-ledger.json: cannot read the ledger"
# ...and with StatusPort set, the live service on the SlurmctldHost (none listens here).
echo "StatusPort=1" >>"$WORK/etc/morpheus.conf"
SLURM_CONF="$WORK/etc/slurm.conf" run 1 "$MORPHEUS" pools
contains "$WORK/err" "127.0.0.1:1"
rm "$WORK/etc/morpheus.conf"
SLURM_CONF="$WORK/etc/slurm.conf" run 1 "$MORPHEUS" jobs
contains "$WORK/err" "no morpheus.conf beside $WORK/etc/slurm.conf"
finish
