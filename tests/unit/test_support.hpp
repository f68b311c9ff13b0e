// Shared helpers for the cmocka unit tests of the core.
#pragma once
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include <cmocka.h>
}

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "input_error.hpp"

// Runs f and asserts it throws InputError whose message contains every one of `needles`.
inline void expect_input_error(const std::function<void()> &f, std::initializer_list<const char *> needles) {
    try {
        f();
    } catch (const morpheus::InputError &e) {
        for (const char *n : needles) {
            if (!std::strstr(e.what(), n)) {
                std::fprintf(stderr, "error message \"%s\" lacks \"%s\"\n", e.what(), n);
                fail();
            }
        }
        return;
    }
    std::fprintf(stderr, "expected an InputError mentioning \"%s\"\n", *needles.begin());
    fail();
}

// One pod, two blades: b1 behind the pod's switch, b2 behind a switch nothing links to (no path).
inline const char *const kIslandFabric = R"({
  "pods": [{"name":"p1","nodes":"a1"}],
  "switches": [{"name":"s1"}, {"name":"s2"}],
  "blades": [{"name":"b1"}, {"name":"b2"}],
  "links": [
    {"from":"p1","to":"s1","latency":10,"bandwidth":100},
    {"from":"b1","to":"s1","latency":10,"bandwidth":100},
    {"from":"b2","to":"s2","latency":10,"bandwidth":100}
  ]})";

inline std::string test_data(const std::string &rel) { return std::string(TEST_DATA_DIR) + "/" + rel; }
inline std::string top_srcdir(const std::string &rel) { return std::string(TOP_SRCDIR) + "/" + rel; }

// Wall-clock bounds in tests are multiplied by MORPHEUS_TEST_TIME_SCALE (default 1): sanitizer
// lanes run the same code several times slower and set it, so a bound still catches a hang.
inline double test_time_scale() {
    const char *v = std::getenv("MORPHEUS_TEST_TIME_SCALE");
    double s = v ? std::atof(v) : 1.0;
    return s >= 1.0 ? s : 1.0;
}
