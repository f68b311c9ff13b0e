// Fuzz entry points shared by the libFuzzer harnesses and the regression replay in make check:
// each feeds arbitrary bytes to one reader; an InputError is the expected answer to garbage,
// anything else (a crash, a sanitizer report, another exception) is a bug. The ledger,
// placement and status targets also check invariants (conservation of reserved bytes, no
// detail of another user's job) and abort, naming the one broken, when one fails.
#pragma once
#include <algorithm>
#include <array>
#include <memory>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

#include <jansson.h>

#include "cluster_model.hpp"
#include "config.hpp"
#include "decision_log.hpp"
#include "fabric.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "inventory.hpp"
#include "latency_table.hpp"
#include "ledger.hpp"
#include "placement.hpp"
#include "request.hpp"
#include "status_queries.hpp"
#include "units.hpp"

namespace morpheus::fuzz {

inline void fabric(const uint8_t *data, size_t size) {
    try {
        Fabric f = parse_fabric(std::string(reinterpret_cast<const char *>(data), size), "fuzz.json");
        if (f.node_names.size() < 100000) LatencyTable t(f);
    } catch (const InputError &) {}
}

inline const Fabric &example_fabric() {
    static const Fabric f = parse_fabric(R"({"pods":[{"name":"p","nodes":"n[1-4]","gpus_per_node":8}],
        "switches":[{"name":"s"}],"blades":[{"name":"blade1"},{"name":"blade2"}],
        "links":[{"from":"p","to":"s","latency":10,"bandwidth":1},{"from":"blade1","to":"s","latency":10,"bandwidth":1},
                 {"from":"blade2","to":"s","latency":10,"bandwidth":1}]})",
                                         "example");
    return f;
}

inline void inventory(const uint8_t *data, size_t size) {
    try {
        parse_inventory(std::string(reinterpret_cast<const char *>(data), size), "fuzz.json", example_fabric());
    } catch (const InputError &) {}
}

// Lines: --mem-hot, --mem-hot-latency, --mem-cold, a hostlist.
inline void units(const uint8_t *data, size_t size) {
    std::string s(reinterpret_cast<const char *>(data), size), part[4];
    for (int i = 0, at = 0; i < 4; ++i) {
        size_t nl = s.find('\n', at);
        part[i] = s.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        if (nl == std::string::npos) break;
        at = static_cast<int>(nl + 1);
    }
    try {
        Request r;
        parse_memory_flags(r, part[0].c_str(), part[1].c_str(), part[2].c_str());
    } catch (const InputError &) {}
    try {
        parse_size(s);
    } catch (const InputError &) {}
    try {
        parse_latency(s);
    } catch (const InputError &) {}
    // Hostlists without a guard: long prefixes and huge ranges ("x...x[0-99999999]") must be
    // refused fast by the reader's own caps, not expanded into gigabytes (run-fuzz.sh sets
    // -malloc_limit_mb=512 so that such an allocation is reported).
    try {
        expand_hostlist(part[3]);
    } catch (const InputError &) {}
}

inline void config(const uint8_t *data, size_t size) {
    try {
        parse_config(std::string(reinterpret_cast<const char *>(data), size), "/etc/slurm/morpheus.conf");
    } catch (const InputError &) {}
}

#define MORPHEUS_FUZZ_CHECK(cond, what) \
    do { \
        if (!(cond)) { \
            std::fprintf(stderr, "fuzz invariant broken: %s (%s:%d)\n", what, __FILE__, __LINE__); \
            std::abort(); \
        } \
    } while (0)

inline const Fabric &etc_fabric() {
    static const Fabric f = read_fabric(std::string(TOP_SRCDIR) + "/etc/fabric.json");
    return f;
}

// Reserved bytes per blade and tier must be the sum of the segments of the reservations held,
// and (when `inventory` is given) never over capacity.
inline void check_conservation(const Ledger &l, const Inventory *inventory) {
    std::vector<std::array<uint64_t, kTierCount>> sum(l.blade_count());
    for (const auto &[id, r] : l.reservations()) {
        MORPHEUS_FUZZ_CHECK(id == r.job_id, "a reservation is filed under another job id");
        for (const Segment &s : r.segments) {
            MORPHEUS_FUZZ_CHECK(s.blade < sum.size(), "a segment names a blade outside the ledger");
            sum[s.blade][static_cast<size_t>(s.tier)] += s.bytes;
        }
    }
    for (uint32_t b = 0; b < sum.size(); ++b)
        for (size_t t = 0; t < kTierCount; ++t) {
            MORPHEUS_FUZZ_CHECK(l.reserved(b, static_cast<Tier>(t)) == sum[b][t],
                                "reserved bytes differ from the sum of the reservations' segments");
            if (inventory)
                MORPHEUS_FUZZ_CHECK(sum[b][t] <= inventory->blades[b].capacity[t], "a tier is reserved over capacity");
        }
}

// A ledger file (the StateFile) read against etc/fabric.json; what it loads must conserve
// bytes, survive a save and load unchanged, and release to zero.
inline void ledger(const uint8_t *data, size_t size) {
    static const std::string path = "/tmp/morpheus-fuzz-ledger-" + std::to_string(::getpid());
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    const Fabric &f = etc_fabric();
    Ledger l;
    try {
        l = Ledger::load(path, f);
    } catch (const InputError &) {
        return;
    }
    MORPHEUS_FUZZ_CHECK(l.blade_count() == f.blades.size(), "the ledger is not sized to the fabric");
    check_conservation(l, nullptr);
    for (const auto &[id, r] : l.reservations()) {
        for (const PodShare &p : r.pods) MORPHEUS_FUZZ_CHECK(p.pod < f.pods.size(), "a pod share outside the fabric");
        for (const Segment &s : r.segments)
            MORPHEUS_FUZZ_CHECK(s.pod < f.pods.size(), "a segment's pod outside the fabric");
    }
    l.save(path + ".saved", f);
    Ledger again = Ledger::load(path + ".saved", f);
    MORPHEUS_FUZZ_CHECK(again.reservations().size() == l.reservations().size(), "save and load lose reservations");
    for (uint32_t b = 0; b < f.blades.size(); ++b)
        for (size_t t = 0; t < kTierCount; ++t)
            MORPHEUS_FUZZ_CHECK(again.reserved(b, static_cast<Tier>(t)) == l.reserved(b, static_cast<Tier>(t)),
                                "save and load change the reserved bytes");
    std::vector<uint64_t> ids;
    for (const auto &[id, r] : l.reservations()) ids.push_back(id);
    for (uint64_t id : ids) MORPHEUS_FUZZ_CHECK(l.release(id), "a held job cannot be released");
    for (uint32_t b = 0; b < f.blades.size(); ++b)
        for (size_t t = 0; t < kTierCount; ++t)
            MORPHEUS_FUZZ_CHECK(l.reserved(b, static_cast<Tier>(t)) == 0, "releasing every job leaves bytes reserved");
    ::unlink((path + ".saved").c_str());
}

// Reads the fuzz input a byte at a time; zeros once it runs out.
struct ByteStream {
    const uint8_t *p;
    size_t n;
    uint8_t next() { return n ? (--n, *p++) : 0; }
    uint32_t below(uint32_t k) { return next() % k; }
};

// A small fabric and inventory drawn from the input, then jobs placed (decide(), the nodes
// the simulator would take, Ledger::reserve) and released in the order the input says,
// checking after each step that every byte is accounted for.
inline void placement(const uint8_t *data, size_t size) {
    ByteStream in{data, size};
    const uint32_t pods = 1 + in.below(4), switches = 1 + in.below(2), blades = 1 + in.below(4);
    std::string fabric = R"({"version":1,"pods":[)", links;
    for (uint32_t p = 0; p < pods; ++p) {
        fabric += (p ? "," : "") + std::string(R"({"name":"pod)") + std::to_string(p) + R"(","nodes":"p)" +
                  std::to_string(p) + "n[1-" + std::to_string(1 + in.below(4)) + R"(]","gpus_per_node":)" +
                  std::to_string(1 + in.below(8)) + "}";
        links += std::string(links.empty() ? "" : ",") + R"({"from":"pod)" + std::to_string(p) + R"(","to":"s)" +
                 std::to_string(in.below(switches)) + R"(","latency":")" + std::to_string(50 * (1 + in.below(8))) +
                 R"(ns","bandwidth":100})";
    }
    fabric +=
        R"(],"switches":[{"name":"s0"})" + std::string(switches > 1 ? R"(,{"name":"s1"})" : "") + R"(],"blades":[)";
    std::string inventory = R"({"version":1,"blades":[)";
    static const char *states[] = {"up", "up", "draining", "failed"};
    for (uint32_t b = 0; b < blades; ++b) {
        std::string name = "blade" + std::to_string(b);
        fabric += (b ? "," : "") + std::string(R"({"name":")") + name + "\"}";
        links += R"(,{"from":")" + name + R"(","to":"s)" + std::to_string(in.below(switches)) + R"(","latency":")" +
                 std::to_string(40 * (1 + in.below(8))) + R"(ns","bandwidth":100})";
        inventory += (b ? "," : "") + std::string(R"({"name":")") + name + R"(","dram":")" +
                     std::to_string(1 + in.below(16)) + R"(G","pmem":")" + std::to_string(1 + in.below(32)) +
                     R"(G","state":")" + states[in.below(4)] + R"(","load":0.)" + std::to_string(in.below(10)) + "}";
    }
    if (switches > 1 && in.below(2)) links += R"(,{"from":"s0","to":"s1","latency":"100ns","bandwidth":100})";
    fabric += R"(],"links":[)" + links + "]}";
    inventory += "]}";
    std::unique_ptr<ClusterModel> model;
    try {
        Fabric f = parse_fabric(fabric, "fuzz-fabric.json");
        Inventory inv = parse_inventory(inventory, "fuzz-inventory.json", f);
        model = std::make_unique<ClusterModel>(std::move(f), std::move(inv), PlacementSettings{});
    } catch (const InputError &e) {
        std::fprintf(stderr, "generated files refused: %s\n%s\n%s\n", e.what(), fabric.c_str(), inventory.c_str());
        std::abort();  // the generator's bug, not the input's
    }
    const ClusterModel &m = *model;
    const Fabric &f = m.fabric();
    Ledger ledger(f.blades.size());
    std::vector<uint8_t> free_nodes(f.node_names.size(), 1);
    std::map<uint64_t, std::vector<uint32_t>> held;  // job -> its nodes
    const uint64_t half_gig = uint64_t(1) << 29;
    for (uint64_t job = 1; in.n > 0 && job < 64; ++job) {
        if (in.below(4) == 0 && !held.empty()) {  // a job ends
            auto it = held.begin();
            std::advance(it, in.below(static_cast<uint32_t>(held.size())));
            MORPHEUS_FUZZ_CHECK(ledger.release(it->first), "a placed job holds nothing");
            MORPHEUS_FUZZ_CHECK(!ledger.release(it->first), "a second release found something");
            for (uint32_t n : it->second) free_nodes[n] = 1;
            held.erase(it);
            check_conservation(ledger, &m.inventory());
            continue;
        }
        Request req;
        req.job_id = job;
        req.uid = 1000 + in.below(3);
        if (in.below(2))
            req.nodes = 1 + in.below(4);
        else
            req.gpus = 1 + in.below(16);
        req.hot_per_node = in.below(9) * half_gig;
        req.hot_latency_ns = in.below(2) ? 100 * (1 + in.below(8)) : 0;
        req.cold_per_node = in.below(9) * half_gig;
        Decision d = decide(m, ledger, req, free_nodes);
        if (d.verdict != Verdict::Placed) continue;
        uint64_t nodes = 0, gpus = 0, hot = 0, cold = 0;
        for (const PodShare &s : d.placement.pods) {
            MORPHEUS_FUZZ_CHECK(s.pod < f.pods.size() && s.nodes > 0, "a pod share outside the fabric, or empty");
            nodes += s.nodes;
            gpus += uint64_t(s.nodes) * f.pods[s.pod].gpus_per_node;
        }
        if (req.nodes)
            MORPHEUS_FUZZ_CHECK(nodes == req.nodes, "placed on another number of nodes than asked");
        else
            MORPHEUS_FUZZ_CHECK(gpus >= req.gpus, "placed on fewer GPUs than asked");
        const uint64_t bound = effective_bound(m, req);
        for (const Segment &s : d.placement.segments) {
            MORPHEUS_FUZZ_CHECK(s.blade < f.blades.size() && s.bytes > 0, "a segment outside the fabric, or empty");
            MORPHEUS_FUZZ_CHECK(m.inventory().admits(s.blade), "memory placed on a blade that admits none");
            MORPHEUS_FUZZ_CHECK(s.latency_ns == m.latency().latency(s.pod, s.blade),
                                "a segment's latency is not its pod's");
            if (s.use == Use::Hot) {
                MORPHEUS_FUZZ_CHECK(s.latency_ns <= bound, "hot memory beyond the latency bound");
                hot += s.bytes;
            } else {
                cold += s.bytes;
            }
        }
        MORPHEUS_FUZZ_CHECK(hot == nodes * req.hot_per_node, "hot bytes are not nodes x hot per node");
        MORPHEUS_FUZZ_CHECK(cold == nodes * req.cold_per_node, "cold bytes are not nodes x cold per node");
        std::vector<uint32_t> chosen = choose_nodes(m, d.placement.pods, free_nodes);
        MORPHEUS_FUZZ_CHECK(chosen.size() == nodes, "choose_nodes found other than the placed number of free nodes");
        for (uint32_t n : chosen) {
            MORPHEUS_FUZZ_CHECK(free_nodes[n], "a busy node chosen");
            free_nodes[n] = 0;
        }
        Reservation r;
        r.job_id = job;
        r.uid = req.uid;
        r.pods = d.placement.pods;
        r.segments = d.placement.segments;
        r.hot_latency_bound_ns = d.placement.hot_latency_bound_ns;
        std::string why;
        MORPHEUS_FUZZ_CHECK(ledger.reserve(r, m.inventory(), &why), "the ledger refused what decide() placed");
        held[job] = chosen;
        check_conservation(ledger, &m.inventory());
    }
    for (const auto &[job, nodes] : held) MORPHEUS_FUZZ_CHECK(ledger.release(job), "a placed job holds nothing");
    check_conservation(ledger, &m.inventory());
    for (uint32_t b = 0; b < f.blades.size(); ++b)
        for (size_t t = 0; t < kTierCount; ++t)
            MORPHEUS_FUZZ_CHECK(ledger.reserved(b, static_cast<Tier>(t)) == 0,
                                "releasing every job leaves bytes reserved");
}

// The status service's query handler on any request text, for a privileged viewer and for
// user 1000: always one JSON object, and user 1000 never sees what Morpheus noted about
// user 2000's job.
inline void status(const uint8_t *data, size_t size) {
    static const struct World {
        std::unique_ptr<ClusterModel> model;
        Ledger ledger;
        DecisionLog log;
        World() {
            const Fabric &f = etc_fabric();
            Inventory inv = read_inventory(std::string(TOP_SRCDIR) + "/etc/inventory.json", f);
            model = std::make_unique<ClusterModel>(f, std::move(inv), PlacementSettings{});
            ledger = Ledger(f.blades.size());
            for (uint32_t uid : {1000u, 2000u}) {
                Request req;
                req.job_id = uid * 10;
                req.uid = uid;
                req.nodes = 2;
                req.hot_per_node = uint64_t(64) << 30;
                Decision d = decide(*model, ledger, req, std::vector<uint8_t>(f.node_names.size(), 1));
                MORPHEUS_FUZZ_CHECK(d.verdict == Verdict::Placed, "the status world's job does not fit");
                Reservation r;
                r.job_id = req.job_id;
                r.uid = uid;
                r.pods = d.placement.pods;
                r.segments = d.placement.segments;
                MORPHEUS_FUZZ_CHECK(ledger.reserve(r, model->inventory()), "the status world's job does not fit");
                DecisionRecord pending;
                pending.job_id = uid * 10 + 1;
                pending.uid = uid;
                pending.verdict = "pending";
                pending.reason = "secret-reason-of-" + std::to_string(uid);
                pending.explanation = "secret-explanation-of-" + std::to_string(uid);
                log.record(pending);
            }
        }
    } world;
    std::string query(reinterpret_cast<const char *>(data), size);
    for (bool privileged : {true, false}) {
        std::string answer;
        try {
            answer =
                answer_status_query(*world.model, world.ledger, world.log, privileged ? 0 : 1000, privileged, query);
        } catch (const InputError &) {
            continue;
        }
        json_error_t err;
        json_t *doc = json_loads(answer.c_str(), 0, &err);
        MORPHEUS_FUZZ_CHECK(json_is_object(doc), "the answer is not a JSON object");
        json_decref(doc);
        // An error may echo the query: only a marker the query did not carry is a leak.
        for (const char *secret : {"secret-reason-of-2000", "secret-explanation-of-2000"})
            if (!privileged && query.find(secret) == std::string::npos)
                MORPHEUS_FUZZ_CHECK(answer.find(secret) == std::string::npos, "user 1000 sees user 2000's job detail");
    }
}

}  // namespace morpheus::fuzz
