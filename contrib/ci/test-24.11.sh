#!/bin/bash
# The Slurm 24.11 lane: contrib/ci/test-lane.sh 24.11 [test_a_hot_pod1.sh ...] (every test by default).
exec "$(dirname "$0")/test-lane.sh" 24.11 "$@"
