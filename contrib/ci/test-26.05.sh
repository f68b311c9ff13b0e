#!/bin/bash
# The Slurm 26.05 lane: contrib/ci/test-lane.sh 26.05 [test_a_hot_pod1.sh ...] (every test by default).
exec "$(dirname "$0")/test-lane.sh" 26.05 "$@"
