#!/bin/sh
# morpheus update: a blade's state, reason and time written into the inventory durably, the
# rest of the file kept; pools shows them; check compares the fabric with slurm.conf's nodes.
. "$top_srcdir/tests/cli/lib.sh"
fail() { echo "FAIL: $1"; sed 's/^/  | /' "$WORK/out"; failures=$((failures + 1)); }
mkdir -p "$WORK/etc"
cp "$ETC/morpheus.conf" "$ETC/fabric.json" "$ETC/inventory.json" "$WORK/etc/"
C="$WORK/etc/morpheus.conf"; I="$WORK/etc/inventory.json"
chmod 0640 "$I"

run 0 "$MORPHEUS" update --conf "$C" blade=blade3 state=drain reason="DIMM errors, ticket 4711"
contains "$WORK/out" "blade blade3: up -> draining (reason: DIMM errors, ticket 4711)"
python3 - "$ETC/inventory.json" "$I" <<'PY' || fail "the update changed more than blade3's state, reason and since"
import json, sys, time
old, new = (json.load(open(p)) for p in sys.argv[1:])
b3 = [b for b in new["blades"] if b["name"] == "blade3"][0]
assert b3.pop("state") == "draining" and b3.pop("reason") == "DIMM errors, ticket 4711"
assert abs(b3.pop("since") - time.time()) < 60
for b in old["blades"]:
    if b["name"] == "blade3": b.pop("state")
assert old == new, (old, new)
PY
[ "$(stat -c %a "$I")" = 640 ] || { echo "FAIL: mode not kept: $(stat -c %a "$I")"; failures=$((failures + 1)); }
[ -f "$I.prev" ] || { echo "FAIL: no $I.prev"; failures=$((failures + 1)); }
# pools shows the state with its reason and time, as sinfo -R does.
run 0 "$MORPHEUS" pools --conf "$C"
contains "$WORK/out" "DIMM errors, ticket 4711"
contains "$WORK/out" "1 draining"
run 0 "$MORPHEUS" pools --conf "$C" -t drain -O blade,state,reason -h
[ "$(cat "$WORK/out")" = "blade3  draining  DIMM errors, ticket 4711" ] || fail "pools -t drain -O blade,state,reason"
run 0 "$MORPHEUS" pools --conf "$C" --json
[ "$(json_field "[b.get('reason') for b in d['blades'] if b['blade']=='blade3'][0]")" = "DIMM errors, ticket 4711" ] || fail "json reason"
# A draining blade admits nothing: a hot request inside pod2's bound now goes elsewhere.
run 0 "$MORPHEUS" update --conf "$C" blade=blade2 state=failed reason="PSU"
run 0 "$MORPHEUS" place --conf "$C" --nodes 1 --mem-hot 10G --mem-hot-latency 300ns --json
[ "$(json_field "'blade2' in str(d) or 'blade3' in [s['blade'] for s in d.get('segments', [])]")" = False ] || fail "failed blade used"
# up clears the reason (scontrol's resume does the same).
run 0 "$MORPHEUS" update --conf "$C" blade=blade3 state=up
run 0 "$MORPHEUS" pools --conf "$C" --json
[ "$(json_field "[b.get('reason', '') for b in d['blades'] if b['blade']=='blade3'][0]")" = "" ] || fail "up keeps the reason"

# Refused, file untouched: no reason, unknown blade, unknown state, a reason with a newline.
cp "$I" "$WORK/before.json"
run 1 "$MORPHEUS" update --conf "$C" blade=blade1 state=drain
contains "$WORK/err" "needs a reason"
run 1 "$MORPHEUS" update --conf "$C" blade=blade9 state=drain reason=x
contains "$WORK/err" "no blade \"blade9\" in the fabric"
run 1 "$MORPHEUS" update --conf "$C" blade=blade1 state=sleepy reason=x
contains "$WORK/err" "unknown state \"sleepy\""
run 1 "$MORPHEUS" update --conf "$C" blade=blade1 state=drain reason="$(printf 'two\nlines')"
contains "$WORK/err" "as updated"
contains "$WORK/err" "control character"
run 1 "$MORPHEUS" update --conf "$C" blade=blade1 state=drain reason="$(printf '%0300d' 0)"
contains "$WORK/err" "printable text of at most 256 bytes"
cmp -s "$I" "$WORK/before.json" || { echo "FAIL: a refused update changed the file"; failures=$((failures + 1)); }

# check: the fabric's nodes against slurm.conf's NodeName= lines (ranges, DEFAULT skipped).
printf 'NodeName=DEFAULT CPUs=4\nNodeName=gpu[101-104,201-204] Gres=gpu:8\nNodeName=gpu[301-304],gpu40[1-3]  # 404 missing\nNodeName=login1\n' \
    >"$WORK/etc/slurm.conf"
run 1 "$MORPHEUS" check --conf "$C"
contains "$WORK/err" "nodes gpu404 of the fabric map are not NodeName="
contains "$WORK/err" "login1 in no pod"
sed -i 's/gpu40\[1-3\]/gpu40[1-4]/' "$WORK/etc/slurm.conf"
run 0 "$MORPHEUS" check "$ETC/fabric.json" "$ETC/inventory.json" --slurm-conf "$WORK/etc/slurm.conf"
contains "$WORK/out" "17 nodes, every one of the fabric's 16 among them"
finish
