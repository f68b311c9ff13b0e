// libFuzzer harness: morpheus::fuzz::ledger (see fuzz_targets.hpp).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    morpheus::fuzz::ledger(data, size);
    return 0;
}
