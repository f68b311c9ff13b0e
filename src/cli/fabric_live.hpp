// morpheus fabric --live: the measured heat map (issue 29) as slurmctld's status service sees
// it, beside the fabric file's latency and the value placement uses.
#pragma once
#include <string>
#include <vector>

#include "status_source.hpp"
#include "view.hpp"

namespace morpheus::cli {

struct LiveOptions {
    std::vector<std::string> blades;  // --blade; the pods are ViewOptions::pods (-p)
    bool all = false;  // --all: the unmeasured cells too
    uint32_t limit = 4096;  // --limit
    std::string from;  // --from FILE: a saved `fabric --live --json` answer, not the service
    std::string plot;  // --plot FILE.svg|png
};

// The view's text (table, -o/-O fields, --json/--yaml), "" when only a plot was asked for.
std::string fabric_live(StatusSource &src, const ViewOptions &v, const LiveOptions &o);

}  // namespace morpheus::cli
