// Shared option handling: the file sources every subcommand accepts.
#pragma once
#include <getopt.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

// What an option handler returns to go on with the next option.
constexpr int kGoOn = -1;

// getopt_long over a subcommand's argv (argv[0] is the subcommand): each option goes to
// take(c, optarg), which returns kGoOn, or an exit status that ends the parse (kOk after
// --help, kUsage for an option it does not know). Returns kGoOn once every option is taken;
// the positional arguments start at optind.
inline int parse_options(int argc, char **argv, const std::string &shortopts, const option *longopts,
                         const std::function<int(int, const char *)> &take) {
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, shortopts.c_str(), longopts, nullptr)) != -1)
        if (int rc = take(c, optarg); rc != kGoOn) return rc;
    return kGoOn;
}

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
