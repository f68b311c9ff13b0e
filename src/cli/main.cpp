// morpheus: pool and job status, validation of the admin's files, dry-run placement and
// explanation, over the same core that select/morpheus runs inside slurmctld.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "commands.hpp"
#include "config.h"
#include "fabric.hpp"
#include "input_error.hpp"
#include "inventory.hpp"

namespace morpheus::cli {

ClusterModel load_model(const Sources &s, Config *config_out) {
    Config conf;
    std::string fabric = s.fabric, inventory = s.inventory;
    if (!s.conf.empty()) {
        conf = read_config(s.conf);
        if (fabric.empty()) fabric = conf.fabric_file;
        if (inventory.empty()) inventory = conf.inventory_file;
    }
    if (fabric.empty() || inventory.empty())
        throw InputError("", "", "no fabric map and inventory given",
                         "pass FABRIC INVENTORY, or --conf morpheus.conf (or set MORPHEUS_CONF)");
    Fabric f = read_fabric(fabric);
    Inventory inv = read_inventory(inventory, f);
    for (const std::string &w : inv.warnings) std::fprintf(stderr, "morpheus: warning: %s\n", w.c_str());
    if (config_out) *config_out = conf;
    return ClusterModel(std::move(f), std::move(inv), conf.placement);
}

}  // namespace morpheus::cli

namespace {

void usage(FILE *out) {
    std::fprintf(out,
                 "usage: morpheus COMMAND [options]\n"
                 "\n"
                 "commands:\n"
                 "  check FABRIC INVENTORY [--conf FILE]   validate the admin's files\n"
                 "  place [FABRIC INVENTORY] [options]     dry-run one request and explain it\n"
                 "  pools [FABRIC INVENTORY] [options]     capacity, reserved and free per pod and blade\n"
                 "  simulate [FABRIC INVENTORY] [options]  replay a workload trace under each placement policy\n"
                 "  jobs [options]                         placements: pod, hot and cold blades, state\n"
                 "  fabric [FABRIC INVENTORY] [options]    the pod x blade latency matrix (--plot FILE.svg)\n"
                 "  links [options]                        link time booked by checkpoint windows (--plot FILE.svg)\n"
                 "  update blade=NAME state=drain|up|failed reason=TEXT\n"
                 "                                         set a blade's state in the inventory, with why and when\n"
                 "  explain JOBID --server HOST:PORT       why a job is where it is, or why it is pending\n"
                 "  metrics [options]                      Prometheus text exposition\n"
                 "  node [--topology FILE.xml] [--json|--nccl-file]\n"
                 "                                         GPUs, NICs, memory tiers, NCCL file of this node\n"
                 "  node agent [--node NAME] [--blade-numa BLADE=N,...]\n"
                 "                                         this node's periodic work (HealthCheckProgram)\n"
                 "  ckpt [--wait|--json|--env]             inside a job: is its checkpoint window open (exit 0),\n"
                 "                                         or how long until it opens (exit 3)\n"
                 "  version                                print the version\n"
                 "\n"
                 "Run 'morpheus COMMAND --help' for a command's options; see morpheus(1).\n");
}

}  // namespace

int main(int argc, char **argv) {
    using namespace morpheus::cli;
    if (argc < 2) {
        usage(stderr);
        return kUsage;
    }
    const char *cmd = argv[1];
    if (!std::strcmp(cmd, "-h") || !std::strcmp(cmd, "--help") || !std::strcmp(cmd, "help")) {
        usage(stdout);
        return kOk;
    }
    if (!std::strcmp(cmd, "version") || !std::strcmp(cmd, "--version")) {
        std::printf("morpheus %s\n", PACKAGE_VERSION);
        return kOk;
    }
    try {
        if (!std::strcmp(cmd, "check")) return cmd_check(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "place")) return cmd_place(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "pools")) return cmd_pools(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "simulate")) return cmd_simulate(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "jobs")) return cmd_jobs(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "fabric")) return cmd_fabric(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "links")) return cmd_links(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "update")) return cmd_update(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "explain")) return cmd_explain(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "metrics")) return cmd_metrics(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "node")) return cmd_node(argc - 1, argv + 1);
        if (!std::strcmp(cmd, "ckpt")) return cmd_ckpt(argc - 1, argv + 1);
    } catch (const morpheus::InputError &e) {
        std::fprintf(stderr, "morpheus: error: %s\n", e.what());
        return kInputError;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "morpheus: internal error: %s\n", e.what());
        return kInputError;
    }
    std::fprintf(stderr, "morpheus: unknown command '%s'\n", cmd);
    usage(stderr);
    return kUsage;
}
