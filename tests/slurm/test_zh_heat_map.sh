#!/bin/bash
# Issue 29, the live fabric heat map against a real slurmctld. The node agent's probe task
# (what slurmd's HealthCheckProgram runs as root; here the test runs it for each of pod1's
# nodes every second, as HealthCheckInterval=1 would) reads the latency EMULATION file, as the
# test cluster maps no blade to a NUMA node. Raising blade1 to 450ns for pod1's nodes:
#   - a running job whose 250ns-bound hot memory sits on blade1 is flagged within a probe
#     interval plus a settle round (morpheus jobs "beyond-bound", explain, the metric) and,
#     HeatMapBeyondBound=notify, signalled (SIGUSR1, trapped by the job);
#   - the next hot job of pod1 (500ns bound) is placed off blade1 (370ns), not on it (200ns);
#   - reports from a non-root user, a malformed report, and a report for gpu404 made on a host
#     that is not gpu404's (its NodeAddr moved to 198.51.100.44 for the check) are refused and
#     change nothing (a pod4 job they would have flagged stays "running"), while the same report
#     from gpu401's own host flags it;
#   - when the probes stop, the cell goes stale (HeatMapStale=6) and placement is static again:
#     a new job gets blade1 at 200ns and the first job is "running" again.
. "$(dirname "$0")/lib.sh"

user=morpheus-e2e
id "$user" >/dev/null 2>&1 || useradd -M -s /bin/bash "$user"
server=(--server "127.0.0.1:$E2E_STATUS_PORT")
spool=$TEST_TMP/spool
emulation=$TEST_TMP/latency-emulation
mkdir -p "$spool"
: >"$emulation"

# The measurements live in slurmctld: restoring the conf, whose HeatMapSamples differs from the
# test's, drops them (morpheus.conf(5)), so the 450ns and 900ns samples do not come back fresh
# under the default HeatMapStale and slow blade1 for the tests after this one.
cp "$E2E_MORPHEUS_CONF" "$TEST_TMP/morpheus.conf.good"
restore() {
	[ -z "${prober:-}" ] || kill "$prober" 2>/dev/null || true
	scontrol update nodename=gpu404 nodeaddr=127.0.0.1 >/dev/null 2>&1 || true
	cp "$TEST_TMP/morpheus.conf.good" "$E2E_MORPHEUS_CONF"
	scontrol reconfigure >/dev/null 2>&1 || true
	_cleanup_test
}
trap restore EXIT
sed -i '/^HeatMap/d' "$E2E_MORPHEUS_CONF"
cat >>"$E2E_MORPHEUS_CONF" <<-CONF
	HeatMapRounds=1
	HeatMapSamples=1
	HeatMapStale=6
	HeatMapSettleInterval=1
	HeatMapReportInterval=1
	HeatMapProbeBlades=4
	HeatMapBeyondBound=notify
CONF
scontrol reconfigure
for _ in $(seq 50); do morpheus_cli jobs "${server[@]}" >/dev/null 2>&1 && break; sleep 0.2; done

# segments JOB: "use:blade:latency" of the job's segments in the ledger, sorted.
segments() {
	python3 - "$E2E_LEDGER" "$1" <<-'PY'
	import json, sys
	for j in json.load(open(sys.argv[1]))["jobs"]:
	    if str(j["job_id"]) == sys.argv[2]:
	        print("\n".join(sorted(f'{s["use"]}:{s["blade"]}:{s["latency_ns"]}' for s in j["segments"])))
	PY
}
jobs_state() {
	morpheus_cli jobs "${server[@]}" --json | python3 -c '
import json, sys
print(next((j["state"] for j in json.load(sys.stdin)["jobs"] if j["job_id"] == int(sys.argv[1])), ""))' "$1"
}
wait_jobs_state() { # JOB STATE SECONDS
	local i
	for i in $(seq $(($3 * 5))); do [ "$(jobs_state "$1")" = "$2" ] && return 0; sleep 0.2; done
	return 1
}
ask() { python3 - "$E2E_STATUS_PORT" "$1" <<-'PY'
	import socket, sys
	s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
	s.sendall(sys.argv[2].encode() + b"\n"); s.shutdown(socket.SHUT_WR)
	print(s.makefile().read())
	PY
}
agent() { # NODE: one probe pass as root, as HealthCheckProgram runs it on NODE
	morpheus_cli node agent "${server[@]}" --node "$1" --spool "$spool" --probe-emulation "$emulation" \
		--tasks probe
}

# A running job on blade1 (pod1, 200ns, bound 250ns) that traps the notification; one on pod4.
usr1=$TEST_TMP/usr1
onblade1=$(submit -N1 -w gpu101 -t 5 --mem-hot=100G --mem-hot-latency=250ns -o /dev/null \
	--wrap "trap 'touch $usr1' USR1; while :; do sleep 1; done")
onpod4=$(submit -N1 -w gpu401 -t 5 --mem-hot=100G --mem-hot-latency=300ns -o /dev/null \
	--wrap "trap 'touch $usr1.pod4' USR1; while :; do sleep 1; done")
wait_state "$onblade1" RUNNING 20
wait_state "$onpod4" RUNNING 20
assert_eq "segments of $onblade1" "hot:blade1:200" "$(segments "$onblade1")"
assert_eq "segments of $onpod4" "hot:blade4:280" "$(segments "$onpod4")"

# No emulation line yet: the probe reports nothing, never a made-up value.
out=$(agent gpu101) || fail "node agent failed: $out"
assert_match "probe without an emulation line" 'probe: nothing for blade1 .*nothing reported' "$out"

# Refused reports, each of which would flag $onpod4 (blade4 at 900ns > 300ns) if taken.
slow4='"reports": [{"blade": "blade4", "latency_ns": 900}]'
reply=$(ask "$(runuser -u "$user" -- munge -s '{"op": "report_latency", "node": "gpu401", '"$slow4"'}')")
assert_match "report of uid $(id -u "$user")" 'is for the nodes only' "$reply"
reply=$(ask "$(munge -s '{"op": "report_latency", "node": "gpu401", "reports": [{"blade": "blade4"}]}')")
assert_match "malformed report" 'report_latency refused: entry 0 is not' "$reply"
reply=$(ask "$(munge -s '{"op": "report_latency", "node": "gpu401", "reports": [{"blade": "blade4", "latency_ns": 900}, {"blade": "blade42", "latency_ns": 900}]}')")
assert_match "report with an unknown blade" 'blade42' "$reply"
scontrol update nodename=gpu404 nodeaddr=198.51.100.44
sleep 6  # the watcher pushes Slurm's node addresses every 5 seconds
reply=$(ask "$(munge -s '{"op": "report_latency", "node": "gpu404", '"$slow4"'}')")
assert_match "report for gpu404 made on this host" 'report_latency for gpu404 refused: made on .*, not on node gpu404 \(NodeAddr 198.51.100.44\)' "$reply"
scontrol update nodename=gpu404 nodeaddr=127.0.0.1
sleep 3  # several settle rounds
assert_eq "state of $onpod4 after the refused reports" running "$(jobs_state "$onpod4")"

# blade1 slows to 450ns for pod1's nodes; the probes run every second.
echo "gpu[101-104] blade1 450   # EMULATION: blade1's memory controller saturated" >"$emulation"
t0=$(date +%s.%N)
(while :; do for n in gpu101 gpu102 gpu103 gpu104; do agent $n >>"$TEST_TMP/probes.log" 2>&1; done; sleep 1; done) &
prober=$!
# One probe interval (1s) plus one settle round (1s) and slack for the watcher's tick.
wait_jobs_state "$onblade1" beyond-bound 6 || fail "$onblade1 not flagged beyond its bound: $(jobs_state "$onblade1"); probes: $(tail -4 "$TEST_TMP/probes.log")"
flagged_after=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
assert_match "probe pass" 'EMULATED from .*: blade1; .*reported 1 measurement' "$(tail -1 "$TEST_TMP/probes.log")"
assert_match "explain of $onblade1" 'beyond-bound: hot on blade1 now 450ns from pod1, bound 250ns' \
	"$(morpheus_cli explain "${server[@]}" "$onblade1")"
row=$(morpheus_cli jobs "${server[@]}" -h -j "$onblade1" -o '%t %r')
assert_match "morpheus jobs of $onblade1" '^beyond-bound hot on blade1 now 450ns from pod1, bound 250ns' "$row"
assert_match "metrics" 'morpheus_jobs_beyond_bound 1' "$(morpheus_cli metrics "${server[@]}")"
# The views (issue 29): the measured cell beside the static one, fresh and used by placement;
# blade1's measured band in pools; its series in /metrics.
assert_eq "fabric --live of pod1 x blade1" "pod1 blade1 450ns 200ns 450ns yes fresh" \
	"$(morpheus_cli fabric --live "${server[@]}" -p pod1 --blade blade1 -h -o '%P %b %m %s %u %L %t')"
assert_eq "pools' band of blade1" "blade1 200ns..500ns 450ns 1" \
	"$(morpheus_cli pools "${server[@]}" -h -o '%b %A %V %K' | grep '^blade1 ')"
assert_match "metrics of the cell" 'morpheus_heat_cell_latency_seconds\{pod="pod1",blade="blade1",value="measured"\} 4\.5' \
	"$(morpheus_cli metrics "${server[@]}")"
for _ in $(seq 25); do [ -e "$usr1" ] && break; sleep 0.2; done
[ -e "$usr1" ] || fail "$onblade1 was not signalled (HeatMapBeyondBound=notify)"
assert_eq "state of $onblade1 after the signal" RUNNING "$(job_state "$onblade1")"

# The next hot job of pod1 goes off blade1 (370ns) rather than on it (450ns now).
next=$(submit -N1 -w gpu102 -t 5 --mem-hot=100G --mem-hot-latency=500ns -o /dev/null --wrap 'sleep 300')
wait_state "$next" RUNNING 20
placed_after=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
assert_no_match "segments of $next with blade1 slow" 'blade1' "$(segments "$next")"
assert_match "segments of $next with blade1 slow" '^hot:blade[5-8]:370$' "$(segments "$next")"

# The same kind of report, from gpu401's own host (this one), is taken: $onpod4 is flagged.
reply=$(ask "$(munge -s '{"op": "report_latency", "node": "gpu401", '"$slow4"'}')")
assert_match "report of gpu401 from its host" '"accepted": 1' "$reply"
wait_jobs_state "$onpod4" beyond-bound 5 || fail "$onpod4 not flagged by gpu401's own report"
for _ in $(seq 25); do [ -e "$usr1.pod4" ] && break; sleep 0.2; done
[ -e "$usr1.pod4" ] || fail "$onpod4 was not signalled (HeatMapBeyondBound=notify)"

# The probes stop: stale after 6s, static again.
kill "$prober"
wait "$prober" 2>/dev/null || true
prober=
wait_jobs_state "$onblade1" running 15 || fail "$onblade1 still $(jobs_state "$onblade1") after the probes stopped"
assert_eq "fabric --live of pod1 x blade1 once stale" "- 200ns stale no" \
	"$(morpheus_cli fabric --live "${server[@]}" -p pod1 --blade blade1 -h -o '%m %u %t %L')"
again=$(submit -N1 -w gpu103 -t 5 --mem-hot=100G --mem-hot-latency=500ns -o /dev/null --wrap 'sleep 300')
wait_state "$again" RUNNING 20
assert_eq "segments of $again once stale" "hot:blade1:200" "$(segments "$again")"
assert_match "explain of $onblade1 once stale" 'in-bound: hot memory inside its bound again' \
	"$(morpheus_cli explain "${server[@]}" "$onblade1")"
scancel "$onblade1" "$onpod4" "$next" "$again"
wait_no_jobs
note "ok: flagged ${flagged_after}s and next job placed ${placed_after}s after blade1 slowed (probe 1s, settle 1s); refused reports changed nothing; static again once stale"
