#!/bin/bash
# (m) Bad files at run time never take slurmctld down: a truncated inventory, an inventory that
# names a blade the fabric lacks, a malformed morpheus.conf and an inconsistent fabric (a link
# to nowhere) are each refused with an error naming the file and the place, the last good state
# keeps placing jobs, and `morpheus check` prints the same error.
. "$(dirname "$0")/lib.sh"

etc=$(dirname "$E2E_MORPHEUS_CONF")
log=$E2E_RUN/log/slurmctld.log
for f in fabric.json inventory.json morpheus.conf; do cp "$etc/$f" "$TEST_TMP/$f.good"; done
restore() { for f in fabric.json inventory.json morpheus.conf; do cp "$TEST_TMP/$f.good" "$etc/$f"; done; touch -d '+30 seconds' "$etc/inventory.json"; scontrol reconfigure >/dev/null 2>&1 || true; }
trap 'restore; _cleanup_test' EXIT
stamp=1

alive_and_placing() { # WHAT
	scontrol ping | grep -q UP || fail "$1: slurmctld is down"
	local j
	j=$(submit -N1 --mem-hot=8G --mem-hot-latency=250ns -o /dev/null --wrap true)
	wait_state "$j" COMPLETED 20
}

# check_error WHAT FILE-TO-CHECK-WITH LOG-REGEX: the log has it and morpheus check agrees.
check_error() {
	local what=$1 regex=$2 line cli
	for _ in $(seq 40); do line=$(grep -E "$regex" "$log" | tail -1 || true); [ -n "$line" ] && break; sleep 0.25; done
	[ -n "$line" ] || fail "$what: no error matching /$regex/ in slurmctld.log"
	cli=$("$E2E_BUILD/src/cli/morpheus" check --conf "$E2E_MORPHEUS_CONF" 2>&1) && fail "$what: morpheus check accepted it"
	cli=${cli#morpheus: error: }
	[[ $line == *"$cli"* ]] || fail "$what: morpheus check says '$cli', slurmctld said '$line'"
	note "$what: $cli"
}

bump() { stamp=$((stamp + 2)); touch -d "+$stamp seconds" "$1"; }

# A truncated inventory (picked up without reconfigure).
head -c 100 "$TEST_TMP/inventory.json.good" >"$etc/inventory.json"; bump "$etc/inventory.json"
check_error "truncated inventory" 'inventory not re-read, keeping the last good one: .*inventory.json: line [0-9]+'
alive_and_placing "truncated inventory"

# An inventory naming a blade the fabric lacks.
sed 's/"blade8"/"blade88"/' "$TEST_TMP/inventory.json.good" >"$etc/inventory.json"; bump "$etc/inventory.json"
check_error "unknown blade" 'inventory not re-read.*\$\.blades\[7\]\.name: blade "blade88" is not in the fabric'
alive_and_placing "unknown blade"
cp "$TEST_TMP/inventory.json.good" "$etc/inventory.json"; bump "$etc/inventory.json"

# A malformed morpheus.conf on reconfigure.
printf 'FabricFile=fabric.json\nInventoryFile=inventory.json\nWeightLoad=heavy\n' >"$etc/morpheus.conf"
# From 24.05 slurmctld re-execs on reconfigure; the new one refuses broken files and scontrol
# reports the reconfigure as failed while the running one keeps the last good state.
reconfigure_refused "malformed morpheus.conf"
check_error "malformed morpheus.conf" 'reload failed, keeping the last good configuration: .*morpheus.conf: line 3: WeightLoad=heavy'
alive_and_placing "malformed morpheus.conf"
cp "$TEST_TMP/morpheus.conf.good" "$etc/morpheus.conf"

# A fabric with a link to an undeclared switch.
python3 - "$TEST_TMP/fabric.json.good" "$etc/fabric.json" <<-'PY'
	import json, sys
	d = json.load(open(sys.argv[1])); d["links"][5]["to"] = "spine9"
	json.dump(d, open(sys.argv[2], "w"), indent=1)
	PY
reconfigure_refused "link to nowhere"
check_error "link to nowhere" 'reload failed.*fabric.json: \$\.links\[5\]\.to: link to "spine9"'
alive_and_placing "link to nowhere"

restore
sleep 1
grep -q 'select/morpheus: reloaded morpheus.conf' "$log" || fail "good files were not taken back"
alive_and_placing "restored files"
note "ok: four bad files refused, last good kept, morpheus check agrees"
