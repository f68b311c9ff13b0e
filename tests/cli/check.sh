#!/bin/sh
# morpheus check: the example validates; bad files fail with file, JSON path and fix.
. "$top_srcdir/tests/cli/lib.sh"

run 0 "$MORPHEUS" check "$ETC/fabric.json" "$ETC/inventory.json"
contains "$WORK/out" "4 pods, 16 nodes, 128 GPUs, 6 switches, 8 blades, 20 links"
contains "$WORK/out" "8 blades, dram 6T, pmem 24T (8 up, 0 draining, 0 failed)"

run 0 "$MORPHEUS" check --conf "$ETC/morpheus.conf"
contains "$WORK/out" "morpheus.conf: ok"

run 1 "$MORPHEUS" check "$DATA/bad/fabric-undeclared-blade.json" "$ETC/inventory.json"
contains "$WORK/err" "fabric-undeclared-blade.json: \$.links[3].to: link to \"blade9\", which is not a declared pod, switch or blade"
contains "$WORK/err" "fix: declare \"blade9\""

run 1 "$MORPHEUS" check "$DATA/bad/fabric-truncated.json" "$ETC/inventory.json"
contains "$WORK/err" "fabric-truncated.json: line"
contains "$WORK/err" "invalid JSON"

run 1 "$MORPHEUS" check "$ETC/fabric.json" "$DATA/bad/inventory-negative.json"
contains "$WORK/err" "inventory-negative.json: \$.blades[1].dram: size must not be negative"

run 1 "$MORPHEUS" check "$ETC/fabric.json" "$DATA/bad/inventory-unit-typo.json"
contains "$WORK/err" "\$.blades[0].pmem: unknown size unit 'TT'"

run 1 "$MORPHEUS" check --conf "$DATA/bad/morpheus-unknown-key.conf"
contains "$WORK/err" "morpheus-unknown-key.conf: line 3: unknown key \"DefaultHotLatancy\""

run 2 "$MORPHEUS" check "$ETC/fabric.json"
finish
