# sim_bench_env.sh NAME - what every simulator benchmark (run-sim-bench.sh, run-heat-bench.sh,
# run-ckpt-bench.sh) starts with; sourced after `here` is set. Sets top_srcdir, top_builddir,
# morpheus (the CLI, which must be built), py, traces (TRACES, default ../shared/traces) and dir
# (BENCH_DIR, else a temporary folder removed on exit, named after NAME).
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
morpheus="$top_builddir/src/cli/morpheus"
py=${PYTHON:-python3}
traces=${TRACES:-$top_srcdir/../shared/traces}
[ -x "$morpheus" ] || { echo "run-$1-bench.sh: build src/cli/morpheus first" >&2; exit 2; }
if [ -n "${BENCH_DIR:-}" ]; then dir=$BENCH_DIR; mkdir -p "$dir"; else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/morpheus-$1.XXXXXX"); trap 'rm -rf "$dir"' EXIT; fi
