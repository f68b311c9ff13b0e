#!/bin/bash
# (zz, pinned) test_zz_starvation.sh with every job tied to a node of pod1 (-w gpu101 for the
# holder and the large job, gpu102 for the stream): issue 25, pinned jobs must be planned and
# protected as unpinned ones are.
ZZ_PIN=gpu101,gpu102 exec "$(dirname "$0")/test_zz_starvation.sh"
