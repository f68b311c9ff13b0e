#!/bin/bash
# Benchmark (prints figures, asserts nothing): does select/morpheus make slurmctld grow?
#
#   sudo tests/bench/slurm_memory.sh [JOBS [ROUNDS [SMALL]]]     (default 5000 3 1000)
#
# 1. Steady state: ROUNDS bursts of JOBS jobs through one slurmctld, select/cons_tres then
#    select/morpheus. After each burst has drained and Slurm has purged every record
#    (MinJobAge=2), slurmctld's RSS. A leak grows with every burst; what the allocator keeps
#    after the first burst (arenas, hash tables at their high-water mark) does not.
# 2. Attribution: heaptrack attached to slurmctld with select/morpheus, once for a burst of
#    SMALL and once of JOBS jobs, shut down after the records are purged. The bytes still allocated at shutdown
#    whose allocation was asked for by Morpheus code (the first frame above malloc, operator
#    new, Slurm's xmalloc/xstring and the C++ library that lies in this tree's sources) are
#    what Morpheus holds; if it kept anything per job, the JOBS run would hold more.
#    slurmctld does not call plugin fini at shutdown (only with MEMORY_LEAK_DEBUG), so the
#    engine itself (fabric, inventory, latency table) shows in both runs alike.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
jobs=${1:-5000} rounds=${2:-3} small=${3:-1000}
out=$(mktemp -d /tmp/morpheus-memory-XXXXXX)
command -v heaptrack >/dev/null && command -v gdb >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq heaptrack gdb >/dev/null
cp "$here/job_stream.sh" "$out/"

# One burst inside the harness, drained and purged: burst JOBS
cat >"$out/burst.sh" <<'BURST'
. "$(dirname "${BASH_SOURCE[0]}")/job_stream.sh"
burst() {
	submit_mix $(($1 / 4))
	scontrol update partitionname=gpu state=up >/dev/null
	while [ "$(squeue -h -r -o %i | wc -l)" != 0 ]; do sleep 0.5; done
	wait_purged 120
}
BURST

# Part 1: RSS after each of ROUNDS bursts, into $out/rss.NAME.
cat >"$out/rounds.sh" <<'ROUNDS'
#!/bin/bash
set -euo pipefail
jobs=$1 rounds=$2 file=$3
. "$(dirname "$0")/burst.sh"
echo "0 $(rss)" >"$file"
for r in $(seq "$rounds"); do
	burst "$jobs"
	echo "$r $(rss)" >>"$file"
	echo "  round $r: $(rss) KiB" >&2
done
ROUNDS

# Part 2: heaptrack attached to the running slurmctld (started under heaptrack, it would lose
# its pipe: slurmctld closes every inherited descriptor), one burst, then an orderly shutdown
# so heaptrack writes its file. What was allocated while attached and is still allocated at
# shutdown is what the burst left behind.
cat >"$out/traced.sh" <<'TRACED'
#!/bin/bash
set -euo pipefail
jobs=$1 data=$2
. "$(dirname "$0")/burst.sh"
heaptrack -o "$data" -p "$(cat "$E2E_RUN/slurmctld.pid")" >"$data.log" 2>&1 &
for _ in $(seq 120); do grep -qs "injection finished" "$data.log" && break; sleep 0.5; done
grep -q "injection finished" "$data.log" || { echo "heaptrack did not attach: $(tail -5 "$data.log")" >&2; exit 1; }
burst "$jobs"
scontrol shutdown >/dev/null
for _ in $(seq 600); do
	grep -q "Heaptrack finished" "$data.log" && exit 0
	sleep 0.5
done
echo "heaptrack did not finish: $(tail -5 "$data.log")" >&2
exit 1
TRACED
chmod +x "$out"/*.sh

for sel in select/cons_tres select/morpheus; do
	[ "$rounds" -gt 0 ] || break
	name=${sel#select/}
	echo "== $sel: $rounds bursts of $jobs jobs" >&2
	E2E_SELECT=$sel E2E_MIN_JOB_AGE=2 E2E_SLURMCTLD_DEBUG=info \
		"$top/tests/slurm/harness.sh" run-test "$out/rounds.sh" "$jobs" "$rounds" "$out/rss.$name" >&2
done

for n in "$small" "$jobs"; do
	echo "== select/morpheus under heaptrack: $n jobs" >&2
	E2E_MIN_JOB_AGE=2 E2E_SLURMCTLD_DEBUG=info \
		"$top/tests/slurm/harness.sh" run-test "$out/traced.sh" "$n" "$out/heap.$n" >&2
	heaptrack_print -f "$out/heap.$n.zst" --flamegraph-cost-type leaked -F "$out/leaked.$n" >/dev/null
done

# Our sources, by file name, as heaptrack names frames ("function (file)").
(cd "$top" && git ls-files 'src/*.cpp' 'src/*.c' 'plugins/*.c' 'plugins/*.cpp' | xargs -n1 basename) >"$out/ours"

python3 - "$out" "$jobs" "$rounds" "$small" <<'PY'
import re, sys, collections
out, jobs, rounds, small = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
ours = set(open(out + "/ours").read().split())

rss = {}
if rounds:
    print("\n1. slurmctld RSS (KiB) after each burst of %d jobs, records purged" % jobs)
for name in ("cons_tres", "morpheus") if rounds else ():
    rss[name] = [int(l.split()[1]) for l in open("%s/rss.%s" % (out, name))]
if rounds: print("   %-10s %s" % ("selector", " ".join("%9s" % ("start" if i == 0 else "after %d" % i) for i in range(rounds + 1))))
for name, v in rss.items():
    print("   %-10s %s" % (name, " ".join("%9d" % x for x in v)))
for name, v in rss.items():
    if len(v) >= 3:
        per = (v[-1] - v[1]) * 1024 / (jobs * (len(v) - 2))
        print("   %-10s growth after the first burst: %+d KiB over %d jobs (%+.1f B/job)"
              % (name, v[-1] - v[1], jobs * (len(v) - 2), per))

# The frame that asked for the memory: the first one, leaf upwards, that is not the
# allocator, Slurm's xmalloc/xstring, or the C++ library's containers.
helper = re.compile(r"^(0x[0-9a-f]+|malloc|calloc|realloc|operator new|__|_x|slurm_x|x(str|malloc|realloc)|"
                    r"std::|__gnu_cxx::|strdup|_IO_|json_|jansson|<unresolved)")
header = re.compile(r"\((new_allocator|stl_\w+|basic_string|alloc_traits|allocator|hashtable\w*|xmalloc|xstring)\.(h|tcc|c)\)$")
def attribute(path):
    totals = collections.Counter()
    for line in open(path):
        stack, _, cost = line.rstrip("\n").rpartition(" ")
        if not cost.isdigit() or int(cost) == 0:
            continue
        frames = [f.strip() for f in stack.split(";") if f.strip()]
        site = "?"
        for f in reversed(frames):
            if helper.match(f) or header.search(f):
                continue
            site = f
            break
        m = re.search(r"\(([^()]+)\)$", site)
        key = site if m and m.group(1) in ours else "slurm and libraries"
        totals[key] += int(cost)
    return totals

print("\n2. Bytes still allocated when slurmctld (select/morpheus, under heaptrack) shut down")
a, b = attribute("%s/leaked.%d" % (out, small)), attribute("%s/leaked.%d" % (out, jobs))
mine_a = sum(v for k, v in a.items() if k != "slurm and libraries")
mine_b = sum(v for k, v in b.items() if k != "slurm and libraries")
print("   %-58s %12s %12s" % ("allocated by", "%d jobs" % small, "%d jobs" % jobs))
for k in sorted(set(a) | set(b), key=lambda k: -max(a[k], b[k]))[:15]:
    print("   %-58s %12d %12d" % (k[:58], a[k], b[k]))
print("   %-58s %12d %12d" % ("Morpheus in all", mine_a, mine_b))
print("   Morpheus held %+d bytes more after %d jobs than after %d (%+.2f B/job)"
      % (mine_b - mine_a, jobs, small, (mine_b - mine_a) / (jobs - small)))
PY
echo "(data kept in $out)"
