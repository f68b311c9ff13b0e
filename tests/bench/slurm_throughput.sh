#!/bin/bash
# Benchmark (prints figures, asserts nothing): the same stream of jobs through a real
# slurmctld with select/cons_tres and with select/morpheus, on the harness's 16 emulated nodes.
# Prints jobs started per second, sdiag's main and backfill cycle times, and slurmctld's
# resident memory along the stream (growth over the burst), then the morpheus/cons_tres ratios.
#
#   sudo tests/bench/slurm_throughput.sh [JOBS]        (default 3000; needs a built tree)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
jobs=${1:-3000}
out=$(mktemp -d /tmp/morpheus-throughput-XXXXXX)

# One run inside the harness: prints "key value" lines into $out/$E2E_SELECT_NAME.
cp "$here/job_stream.sh" "$out/"
cat >"$out/stream.sh" <<'STREAM'
#!/bin/bash
set -euo pipefail
jobs=$1 name=$2 out=$3
. "$(dirname "$0")/job_stream.sh"
per=$((jobs / 4))
t0=$(date +%s.%N)
submit_mix "$per"
rss0=$(rss)
scontrol update partitionname=gpu state=up >/dev/null
sdiag -r >/dev/null
t1=$(date +%s.%N)
marks=""
while :; do
	left=$(squeue -h -r -o %i | wc -l)
	done_jobs=$((per * 4 - left))
	for m in 1000 2000 3000 4000 5000; do
		if [ "$done_jobs" -ge "$m" ] && [[ " $marks " != *" $m "* ]] && [ "$m" -le $((per * 4)) ]; then
			marks="$marks $m"; echo "rss_after_$m $(rss)" >>"$out/$name"
		fi
	done
	[ "$left" = 0 ] && break
	sleep 0.5
done
t2=$(date +%s.%N)
{
	echo "jobs $((per * 4))"
	echo "submit_s $(echo "$t1 - $t0" | bc)"
	echo "drain_s $(echo "$t2 - $t1" | bc)"
	echo "jobs_per_s $(echo "scale=2; $((per * 4)) / ($t2 - $t1)" | bc)"
	echo "rss_start_kib $rss0"
	echo "rss_end_kib $(rss)"
	sdiag | awk -F: '/^Main schedule statistics/ {m=1} /^Backfilling stats/ {m=2}
		m==1 && /Mean cycle/ {gsub(/ /,"",$2); print "main_mean_cycle_us", $2}
		m==1 && /Max cycle/ {gsub(/ /,"",$2); print "main_max_cycle_us", $2}
		m==2 && /Mean cycle/ {gsub(/ /,"",$2); print "bf_mean_cycle_us", $2}'
} >>"$out/$name"
STREAM
chmod +x "$out/stream.sh"

for sel in select/cons_tres select/morpheus; do
	name=${sel#select/}
	echo "== $sel: $jobs jobs" >&2
	E2E_SELECT=$sel E2E_MIN_JOB_AGE=2 "$top/tests/slurm/harness.sh" run-test "$out/stream.sh" "$jobs" "$name" "$out" >&2
	sed 's/^/  /' "$out/$name"
done

python3 - "$out/cons_tres" "$out/morpheus" <<'PY'
import sys
def load(p):
    return {k: float(v) for k, v in (l.split() for l in open(p))}
c, m = load(sys.argv[1]), load(sys.argv[2])
print("\nfigure                 cons_tres     morpheus   morpheus/cons_tres")
for k in ("jobs_per_s", "main_mean_cycle_us", "main_max_cycle_us", "bf_mean_cycle_us", "rss_end_kib"):
    if k in c and k in m:
        print("%-20s %12.1f %12.1f %12.3f" % (k, c[k], m[k], m[k] / c[k] if c[k] else float("nan")))
marks = sorted(k for k in m if k.startswith("rss_after_"))
if marks:
    first, last = m[marks[0]], m[marks[-1]]
    print("\nslurmctld RSS with select/morpheus: %s KiB after %s jobs, %s KiB after %s: growth %+.1f%%"
          % (int(first), marks[0][10:], int(last), marks[-1][10:], 100 * (last - first) / first))
PY
