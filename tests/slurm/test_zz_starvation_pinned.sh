#!/bin/bash
# (zz, pinned) test_zz_starvation.sh with every job tied to gpu101 (-w): issue 25, pinned jobs
# must be planned and protected as unpinned ones are.
ZZ_PIN=gpu101 exec "$(dirname "$0")/test_zz_starvation.sh"
