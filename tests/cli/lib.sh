# Helpers for the CLI golden tests: run the morpheus command, check exit codes and output.
set -u
: "${top_srcdir:?run through make check}"
: "${MORPHEUS:?run through make check}"
ETC="$top_srcdir/etc"
DATA="$top_srcdir/tests/data"
WORK=$(mktemp -d /tmp/morpheus-cli-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
failures=0

# run EXPECTED_STATUS CMD...: runs CMD, keeps stdout in $WORK/out and stderr in $WORK/err.
run() {
    local want=$1; shift
    "$@" >"$WORK/out" 2>"$WORK/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: '$*' exited $got, expected $want"; sed 's/^/  out: /' "$WORK/out"; sed 's/^/  err: /' "$WORK/err"
        failures=$((failures + 1))
    fi
}

# contains FILE TEXT: FILE ($WORK/out or $WORK/err) must contain TEXT.
contains() {
    if ! grep -qF -- "$2" "$1"; then
        echo "FAIL: $(basename "$1") lacks '$2'"; sed 's/^/  | /' "$1"; failures=$((failures + 1))
    fi
}

# golden EXPECTED: $WORK/out must equal the expected file (paths of this checkout removed).
golden() {
    sed "s|$top_srcdir/||g" "$WORK/out" > "$WORK/out.rel"
    if ! diff -u "$1" "$WORK/out.rel"; then
        echo "FAIL: output differs from $1"; failures=$((failures + 1))
    fi
}

# json_field EXPR: evaluates a Python expression over the JSON in $WORK/out as `d`.
json_field() {
    python3 -c "import json,sys; d=json.load(open('$WORK/out')); print($1)"
}

finish() {
    if [ "$failures" -ne 0 ]; then echo "$failures check(s) failed"; exit 1; fi
    echo "all checks passed"
}
