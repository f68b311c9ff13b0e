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

inline std::string test_data(const std::string &rel) { return std::string(TEST_DATA_DIR) + "/" + rel; }
inline std::string top_srcdir(const std::string &rel) { return std::string(TOP_SRCDIR) + "/" + rel; }
