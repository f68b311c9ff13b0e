// morpheus check: validate a fabric map, an inventory and optionally a morpheus.conf, with
// the same readers the plugin uses, so an error here is the error slurmctld would log.
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>

#include "config.hpp"
#include "engine.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "status_source.hpp"
#include "units.hpp"

namespace morpheus::cli {

namespace {

// The node names of slurm.conf's NodeName= lines (hostlist ranges expanded, DEFAULT skipped).
std::vector<std::string> slurm_conf_nodes(const std::string &path, bool *has_include) {
    std::ifstream in(path);
    if (!in) throw InputError(path, "", "cannot read slurm.conf", "give --slurm-conf FILE");
    std::vector<std::string> names;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        line = line.substr(0, line.find('#'));
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos) continue;
        if (!strncasecmp(line.c_str() + start, "Include", 7)) *has_include = true;
        if (strncasecmp(line.c_str() + start, "NodeName=", 9) != 0) continue;
        std::string value = line.substr(start + 9);
        value = value.substr(0, value.find_first_of(" \t"));
        if (!strcasecmp(value.c_str(), "DEFAULT")) continue;
        for (std::string &n : expand_hostlist(value, path + ": line " + std::to_string(number) + ": NodeName"))
            names.push_back(std::move(n));
    }
    return names;
}

// Every fabric node must be a Slurm node (else no job is ever placed there); Slurm nodes in
// no pod are legal (jobs without blade memory) but worth a word.
bool check_against_slurm_conf(const Fabric &f, const std::string &path) {
    bool include = false;
    std::vector<std::string> slurm = slurm_conf_nodes(path, &include);
    std::set<std::string> slurm_set(slurm.begin(), slurm.end()), fabric_set(f.node_names.begin(), f.node_names.end());
    std::vector<std::string> missing, extra;
    for (const std::string &n : f.node_names)
        if (!slurm_set.count(n)) missing.push_back(n);
    for (const std::string &n : slurm)
        if (!fabric_set.count(n)) extra.push_back(n);
    if (include)
        std::fprintf(stderr,
                     "morpheus: warning: %s: Include lines are not followed; nodes declared there are not seen\n",
                     path.c_str());
    if (!extra.empty())
        std::fprintf(stderr,
                     "morpheus: warning: %s: %s in no pod of %s: jobs that ask for blade memory never run there\n",
                     path.c_str(), compress_hostlist(extra).c_str(), f.source.c_str());
    if (!missing.empty()) {
        std::fprintf(stderr,
                     "morpheus: error: %s: nodes %s of the fabric map are not NodeName= in %s (fix: correct the "
                     "names in the fabric, or declare the nodes in slurm.conf)\n",
                     f.source.c_str(), compress_hostlist(missing).c_str(), path.c_str());
        return false;
    }
    std::printf("%s: ok: %zu nodes, every one of the fabric's %zu among them\n", path.c_str(), slurm.size(),
                f.node_names.size());
    return true;
}

// StateSaveLocation= of slurm.conf, or "" (select/morpheus keeps its ledger there by default).
std::string state_save_location(const std::string &slurm_conf) {
    std::ifstream in(slurm_conf);
    std::string line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || strncasecmp(line.c_str() + start, "StateSaveLocation=", 18) != 0) continue;
        std::string v = line.substr(start + 18);
        return v.substr(0, v.find_first_of(" \t"));
    }
    return "";
}

// What slurmctld would refuse on a reload given the reservations it holds: a fabric that
// renames or drops a pod or blade jobs hold memory on, an inventory that strands it. The
// ledger is the one slurmctld writes (--state, else StateFile=, else StateSaveLocation's).
bool check_against_ledger(const ClusterModel &model, std::string state) {
    if (::access(state.c_str(), R_OK) != 0) {
        std::fprintf(stderr, "morpheus: warning: %s: cannot read the ledger (%s): live reservations not checked\n",
                     state.c_str(), std::strerror(errno));
        return true;
    }
    try {
        Ledger ledger = Ledger::load(state, model.fabric());
        refuse_stranding(ledger, model.inventory(), model.fabric());
        std::printf("%s: ok: its %zu reservations fit this fabric and inventory\n", state.c_str(),
                    ledger.reservations().size());
        return true;
    } catch (const InputError &e) {
        std::fprintf(stderr,
                     "morpheus: error: slurmctld would refuse this configuration (it keeps the last good one): %s\n",
                     e.what());
        return false;
    }
}

}  // namespace

int cmd_check(int argc, char **argv) {
    Sources s;
    std::string slurm_conf, state;
    enum { kSlurmConf = 1000, kState };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"slurm-conf", required_argument, nullptr, kSlurmConf},
                                      {"state", required_argument, nullptr, kState},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(
            argc, argv, "c:h", longopts,
            [&](int c, const char *arg) -> int {
                switch (c) {
                case 'c': s.conf = arg; return kGoOn;
                case kSlurmConf: slurm_conf = arg; return kGoOn;
                case kState: state = arg; return kGoOn;
                case 'h':
                    std::printf(
                        "usage: morpheus check FABRIC INVENTORY [--slurm-conf FILE] [--state LEDGER]\n"
                        "       morpheus check --conf morpheus.conf [--slurm-conf FILE] [--state LEDGER]\n"
                        "the fabric's nodes are checked against slurm.conf's NodeName= lines: --slurm-conf, else\n"
                        "the slurm.conf beside --conf, else $SLURM_CONF; the live reservations of the ledger\n"
                        "(--state, else StateFile=, else StateSaveLocation/morpheus_ledger.json) against the\n"
                        "fabric and inventory, as slurmctld's reconfigure would\n");
                    return kOk;
                default: return kUsage;
                }
            });
        rc != kGoOn)
        return rc;
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
    if (slurm_conf.empty() && !s.conf.empty()) {
        std::string dir = s.conf.find('/') == std::string::npos ? "." : s.conf.substr(0, s.conf.rfind('/'));
        if (::access((dir + "/slurm.conf").c_str(), R_OK) == 0) slurm_conf = dir + "/slurm.conf";
    }
    if (slurm_conf.empty() && std::getenv("SLURM_CONF")) slurm_conf = slurm_conf_path();
    if (!slurm_conf.empty() && !check_against_slurm_conf(f, slurm_conf)) return kInputError;
    if (state.empty()) state = conf.state_file;
    if (state.empty() && !s.conf.empty() && !slurm_conf.empty()) {
        std::string dir = state_save_location(slurm_conf);
        if (!dir.empty()) state = dir + "/morpheus_ledger.json";
    }
    if (!state.empty() && !check_against_ledger(model, state)) return kInputError;
    return kOk;
}

}  // namespace morpheus::cli
