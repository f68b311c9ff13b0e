// morpheus check: validate a fabric map, an inventory and optionally a morpheus.conf, with
// the same readers the plugin uses, so an error here is the error slurmctld would log.
#include <cstdio>

#include "config.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "units.hpp"

namespace morpheus::cli {

int cmd_check(int argc, char **argv) {
    Sources s;
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        switch (c) {
        case 'c': s.conf = optarg; break;
        case 'h':
            std::printf("usage: morpheus check FABRIC INVENTORY\n       morpheus check --conf morpheus.conf\n");
            return kOk;
        default: return kUsage;
        }
    }
    std::vector<std::string> positional(argv + optind, argv + argc);
    if (positional.size() > 2 || (positional.size() == 1)) {
        std::fprintf(stderr, "morpheus check: give FABRIC and INVENTORY, or --conf FILE\n");
        return kUsage;
    }
    take_positional_sources(s, positional);
    Config conf;
    ClusterModel model = load_model(s, &conf);
    if (!s.conf.empty()) std::printf("%s: ok\n", s.conf.c_str());
    const Fabric &f = model.fabric();
    std::printf("%s: ok: %zu pods, %zu nodes, %u GPUs, %zu switches, %zu blades, %zu links\n", f.source.c_str(),
                f.pods.size(), f.node_names.size(), f.gpu_count(), f.switches.size(), f.blades.size(), f.links.size());
    const Inventory &inv = model.inventory();
    uint64_t dram = 0, pmem = 0;
    int up = 0, draining = 0, failed = 0;
    for (const BladeStock &b : inv.blades) {
        dram += b.capacity[0];
        pmem += b.capacity[1];
        up += b.state == BladeState::Up;
        draining += b.state == BladeState::Draining;
        failed += b.state == BladeState::Failed;
    }
    std::printf("%s: ok: %zu blades, dram %s, pmem %s (%d up, %d draining, %d failed)\n", inv.source.c_str(),
                inv.blades.size(), format_size(dram).c_str(), format_size(pmem).c_str(), up, draining, failed);
    int unreachable = 0;
    for (uint32_t p = 0; p < f.pods.size(); ++p)
        if (model.latency().blades_by_latency(p).empty()) {
            std::fprintf(stderr, "morpheus: warning: %s: pod %s reaches no blade\n", f.source.c_str(),
                         f.pods[p].name.c_str());
            ++unreachable;
        }
    return kOk;
}

}  // namespace morpheus::cli
