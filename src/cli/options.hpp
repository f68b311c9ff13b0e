// Shared option handling: the file sources every subcommand accepts.
#pragma once
#include <getopt.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "commands.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

// Fills fabric/inventory from up to two positional arguments, conf from $MORPHEUS_CONF when
// no --conf was given and no files were named.
inline void take_positional_sources(Sources &s, const std::vector<std::string> &positional) {
    if (positional.size() >= 1) s.fabric = positional[0];
    if (positional.size() >= 2) s.inventory = positional[1];
    if (s.conf.empty() && s.fabric.empty()) {
        const char *env = std::getenv(MORPHEUS_ENV_CONF);
        if (env && *env) s.conf = env;
    }
}

}  // namespace morpheus::cli
