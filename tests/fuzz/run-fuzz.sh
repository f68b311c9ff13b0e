#!/bin/bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for SECONDS
# (default 20), seeded with the example files, the bad-input fixtures and tests/fuzz/seeds/.
# Every harness by default: fabric inventory units config ledger placement status. Crashers land in
# tests/fuzz/crashers/<target>/; copy them into tests/fuzz/regressions/<target>/ so that
# make check replays them (tests/unit/test_fuzz_regressions).
#
#   tests/fuzz/run-fuzz.sh [SECONDS] [TARGET...]     prints executions and crashes per target
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fabric inventory units config ledger placement status)
out=${FUZZ_OUT:-$top/build/fuzz}
mkdir -p "$out"
CXX=${FUZZ_CXX:-clang++}
command -v "$CXX" >/dev/null || { echo "run-fuzz: $CXX not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }

# The core without its node side (hwloc), status service (munge) and C ABI: every source of
# these folders, so a new file needs no change here; of the service folder only the node
# address rule (no munge), which the views' node ops use.
core_dirs=(common model placement ledger engine views)
sources=()
for d in "${core_dirs[@]}"; do sources+=("$top"/src/core/"$d"/*.cpp); done
sources+=("$top/src/core/service/node_addresses.cpp")
obj_of() { local rel=${1#"$top"/src/core/}; echo "$objdir/${rel//\//_}" | sed 's/\.cpp$/.o/'; }
flags=(-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
	-I"$top/include" -DTOP_SRCDIR="\"$top\"" $(pkg-config --cflags jansson))
for d in "$top"/src/core/*/; do flags+=(-I"$d"); done  # the core's subsystem folders
libs=($(pkg-config --libs jansson))

# The core is compiled once (coverage-instrumented, fuzzer-no-link) and every harness links those
# objects: seven harnesses each compiling the whole core took most of a CI fuzz run.
objdir=$out/core-objects
stamp=$objdir/.built
if [ ! -f "$stamp" ] ||
	[ -n "$(find "$top/src/core" "$top/include" -newer "$stamp" \( -name '*.[ch]pp' -o -name '*.h' \) | head -1)" ]; then
	rm -rf "$objdir"
	mkdir -p "$objdir"
	objflags=()
	for f in "${flags[@]}"; do
		[ "$f" = -fsanitize=fuzzer,address,undefined ] && f=-fsanitize=fuzzer-no-link,address,undefined
		objflags+=("$f")
	done
	for src in "${sources[@]}"; do
		"$CXX" "${objflags[@]}" -c "$src" -o "$(obj_of "$src")" &
		while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
	done
	wait
	for src in "${sources[@]}"; do
		[ -f "$(obj_of "$src")" ] || {
			echo "run-fuzz: compiling $src failed" >&2
			exit 1
		}
	done
	touch "$stamp"
fi
objects=("$objdir"/*.o)

total_runs=0
total_crashes=0
for t in "${targets[@]}"; do
	bin=$out/fuzz_$t
	if [ ! -x "$bin" ] || [ "$stamp" -nt "$bin" ] ||
		[ -n "$(find "$top/tests/fuzz" -maxdepth 1 -newer "$bin" \( -name "fuzz_$t.cpp" -o -name '*.hpp' \) | head -1)" ]; then
		"$CXX" "${flags[@]}" "$top/tests/fuzz/fuzz_$t.cpp" "${objects[@]}" "${libs[@]}" -o "$bin"
	fi
	corpus=$out/corpus-$t
	mkdir -p "$corpus" "$top/tests/fuzz/crashers/$t"
	case $t in
	fabric) cp "$top"/etc/fabric.json "$top"/tests/data/bad/fabric-*.json "$corpus"/ ;;
	inventory) cp "$top"/etc/inventory.json "$top"/tests/data/bad/inventory-*.json "$corpus"/ ;;
	config) cp "$top"/etc/morpheus.conf "$top"/tests/data/bad/*.conf "$corpus"/ ;;
	ledger | placement | status) ;;
	units) printf '64G\n350ns\n2T\ngpu[0000-0511]\n' >"$corpus/seed1"; printf '1.5T\n1.2us\n\nn[1-3,7],x\n' >"$corpus/seed2" ;;
	esac
	cp "$top"/tests/fuzz/seeds/$t/* "$corpus"/ 2>/dev/null || true
	cp "$top"/tests/fuzz/regressions/$t/* "$corpus"/ 2>/dev/null || true
	log=$out/fuzz_$t.log
	set +e
	(cd "$top/tests/fuzz/crashers/$t" && "$bin" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
		-malloc_limit_mb=512 \
		-print_final_stats=1 "$corpus") >"$log" 2>&1
	rc=$?
	set -e
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	crashes=$(find "$top/tests/fuzz/crashers/$t" -type f | wc -l)
	echo "fuzz $t: ${runs:-0} executions in ${seconds}s, $crashes crashers (exit $rc)"
	total_runs=$((total_runs + ${runs:-0}))
	total_crashes=$((total_crashes + crashes))
	[ "$rc" -eq 0 ] || tail -30 "$log"
done
echo "fuzz total: $total_runs executions, $total_crashes crashers"
[ "$total_crashes" -eq 0 ]
