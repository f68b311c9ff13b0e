// morpheus place: one request, dry-run, on given files (and optionally a ledger of live
// reservations), with the explanation. Calls decide() exactly as select/morpheus does.
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <memory>

#include "checkpoint.hpp"
#include "explain.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "lifecycle.hpp"
#include "options.hpp"
#include "placement.hpp"
#include "units.hpp"

namespace morpheus::cli {

namespace {

void usage(FILE *out) {
    std::fprintf(out,
                 "usage: morpheus place [FABRIC INVENTORY] [--conf FILE] [options]\n"
                 "  -N, --nodes N            nodes wanted (default 1)\n"
                 "  -G, --gpus N             GPUs wanted instead of nodes\n"
                 "      --mem-hot SIZE       hot memory per node, e.g. 256G\n"
                 "      --mem-hot-latency T  bound for hot memory, e.g. 250ns (default: DefaultHotLatency)\n"
                 "      --mem-cold SIZE      cold memory per node, any latency\n"
                 "      --ckpt-size SIZE     checkpoint offload: the whole job's state, on persistent memory\n"
                 "      --ckpt-period T      a flush every T (e.g. 15m): a window on every link of its paths\n"
                 "      --ckpt-period-max T  a longer period the job accepts when the asked one has no window\n"
                 "      --ckpt-replicas N    copies on blades of different failure domains (default 1)\n"
                 "      --busy HOSTLIST      nodes to treat as allocated\n"
                 "      --state FILE         ledger of reservations in force (the plugin's StateFile)\n"
                 "      --reserve            record the placement in --state (needs --job-id)\n"
                 "      --job-id N           job id for --reserve\n"
                 "      --release N          release job N's reservation from --state and exit\n"
                 "      --json               print JSON for programs\n"
                 "exit status: 0 placed, 3 pending (cannot fit now), 4 impossible, 1 bad input\n");
}

uint32_t parse_count(const char *text, const char *flag) {
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (!*text || *end || v < 1 || v > 10000000)
        throw InputError("", flag, std::string("'") + text + "' is not a positive whole number",
                         "e.g. " + std::string(flag) + " 4");
    return static_cast<uint32_t>(v);
}

}  // namespace

int cmd_place(int argc, char **argv) {
    Sources s;
    Request req;
    const char *hot = nullptr, *latency = nullptr, *cold = nullptr, *busy = nullptr;
    const char *ckpt_size = nullptr, *ckpt_period = nullptr, *ckpt_period_max = nullptr, *ckpt_replicas = nullptr;
    bool json = false, reserve = false;
    long release = -1;
    enum {
        kHot = 1000,
        kLatency,
        kCold,
        kBusy,
        kState,
        kReserve,
        kJobId,
        kRelease,
        kJson,
        kCkptSize,
        kCkptPeriod,
        kCkptPeriodMax,
        kCkptReplicas
    };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"nodes", required_argument, nullptr, 'N'},
                                      {"gpus", required_argument, nullptr, 'G'},
                                      {"mem-hot", required_argument, nullptr, kHot},
                                      {"mem-hot-latency", required_argument, nullptr, kLatency},
                                      {"mem-cold", required_argument, nullptr, kCold},
                                      {"busy", required_argument, nullptr, kBusy},
                                      {"ckpt-size", required_argument, nullptr, kCkptSize},
                                      {"ckpt-period", required_argument, nullptr, kCkptPeriod},
                                      {"ckpt-period-max", required_argument, nullptr, kCkptPeriodMax},
                                      {"ckpt-replicas", required_argument, nullptr, kCkptReplicas},
                                      {"state", required_argument, nullptr, kState},
                                      {"reserve", no_argument, nullptr, kReserve},
                                      {"job-id", required_argument, nullptr, kJobId},
                                      {"release", required_argument, nullptr, kRelease},
                                      {"json", no_argument, nullptr, kJson},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(argc, argv, "c:N:G:h", longopts,
                               [&](int c, const char *arg) -> int {
                                   switch (c) {
                                   case 'c': s.conf = arg; return kGoOn;
                                   case 'N': req.nodes = parse_count(arg, "--nodes"); return kGoOn;
                                   case 'G': req.gpus = parse_count(arg, "--gpus"); return kGoOn;
                                   case kHot: hot = arg; return kGoOn;
                                   case kLatency: latency = arg; return kGoOn;
                                   case kCold: cold = arg; return kGoOn;
                                   case kBusy: busy = arg; return kGoOn;
                                   case kCkptSize: ckpt_size = arg; return kGoOn;
                                   case kCkptPeriod: ckpt_period = arg; return kGoOn;
                                   case kCkptPeriodMax: ckpt_period_max = arg; return kGoOn;
                                   case kCkptReplicas: ckpt_replicas = arg; return kGoOn;
                                   case kState: s.state = arg; return kGoOn;
                                   case kReserve: reserve = true; return kGoOn;
                                   case kJobId: req.job_id = parse_count(arg, "--job-id"); return kGoOn;
                                   case kRelease: release = parse_count(arg, "--release"); return kGoOn;
                                   case kJson: json = true; return kGoOn;
                                   case 'h': usage(stdout); return kOk;
                                   default: usage(stderr); return kUsage;
                                   }
                               });
        rc != kGoOn)
        return rc;
    take_positional_sources(s, std::vector<std::string>(argv + optind, argv + argc));
    parse_memory_flags(req, hot, latency, cold);
    parse_checkpoint_flags(req, ckpt_size, ckpt_period, ckpt_period_max, ckpt_replicas);
    if (req.nodes == 0 && req.gpus == 0) req.nodes = 1;
    if ((reserve || release >= 0) && s.state.empty())
        throw InputError("", "--reserve", "needs a ledger file", "add --state FILE");
    if (reserve && req.job_id == 0) throw InputError("", "--reserve", "needs a job id", "add --job-id N");

    ClusterModel model = load_model(s);
    const Fabric &f = model.fabric();
    // A change to the ledger is a read-modify-write: hold its lock from the read to the save.
    std::unique_ptr<LedgerLock> lock;
    if (reserve || release >= 0) lock = std::make_unique<LedgerLock>(s.state, LedgerLock::Writer::Tool);
    Ledger ledger = s.state.empty() ? Ledger(f.blades.size()) : Ledger::load(s.state, f);
    if (release >= 0) {
        bool had = ledger.release(static_cast<uint64_t>(release));
        ledger.save(s.state, f);
        std::printf("job %ld: %s\n", release, had ? "released" : "held nothing");
        return kOk;
    }

    std::vector<uint8_t> free_nodes(f.node_names.size(), 1);
    for (const auto &[id, r] : ledger.reservations())
        for (const std::string &n : r.nodes)
            if (int i = f.node_index(n); i >= 0) free_nodes[i] = 0;
    if (busy)
        for (const std::string &n : expand_hostlist(busy, "--busy")) {
            int i = f.node_index(n);
            if (i < 0) throw InputError("", "--busy", "node " + n + " is not in the fabric " + f.source);
            free_nodes[i] = 0;
        }

    // Windows are granted against the ones the ledger's jobs hold, as the controller does.
    const LinkBook links = link_book_of(model, ledger);
    Decision d = decide(model, ledger, req, free_nodes, nullptr, req.wants_checkpoint() ? &links : nullptr);
    if (d.verdict != Verdict::Placed) {
        Decision ever = feasibility(model, req);
        if (ever.verdict == Verdict::Impossible) {
            d.verdict = Verdict::Impossible;
            d.reason = ever.reason;
        }
    }
    if (json)
        std::fputs(decision_json(model, req, d).c_str(), stdout);
    else
        std::fputs(explain_text(model, req, d).c_str(), stdout);

    if (d.verdict == Verdict::Placed && reserve) {
        std::vector<uint32_t> nodes = choose_nodes(model, d.placement.pods, free_nodes);
        Reservation r = reservation_of(model, req.job_id, static_cast<uint32_t>(getuid()),
                                       static_cast<int64_t>(time(nullptr)), d.placement, nodes);
        std::string why;
        if (!ledger.reserve(r, model.inventory(), &why)) throw InputError(s.state, "", "reservation refused: " + why);
        ledger.save(s.state, f);
        if (!json)
            std::printf("reserved for job %llu in %s\n", static_cast<unsigned long long>(req.job_id), s.state.c_str());
    }
    switch (d.verdict) {
    case Verdict::Placed: return kOk;
    case Verdict::Pending: return kPending;
    case Verdict::Impossible: return kImpossible;
    }
    return kOk;
}

}  // namespace morpheus::cli
