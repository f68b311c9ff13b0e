// bench_placement: prints how long a fabric takes to load and a placement takes to decide at
// scale, against the targets of issue 2. A program that prints figures, never a test that
// asserts on time (timings depend on the machine). Run through tests/bench/run-bench.sh, which
// generates the 100k-GPU fabric first.
//
// usage: bench_placement FABRIC INVENTORY [--requests N] [--seed S] [--occupancy F] [--heat-map]
//
// --heat-map (issue 29): first ingests two rounds of latency reports, every node reporting its
// pod's 64 nearest blades (a quarter of the pods measuring their nearest blade 60% slower than
// the fabric says), settles the heat map after each, and decides with the live model: it prints
// the ingest cost per report, the settle and live-model times and the windows' memory, then what
// the views' answers cost (fabric --live, pools' measured bands, /metrics with the heat series).
//
// The ledger is live: every placed job reserves its blades and takes its nodes, and jobs end
// as the run goes, so decide() always sees a cluster that is busy (about --occupancy of the
// nodes) with memory partly reserved, as it would inside slurmctld.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "fabric.hpp"
#include "heat_map.hpp"
#include "input_error.hpp"
#include "inventory.hpp"
#include "json_document.hpp"
#include "ledger.hpp"
#include "metrics.hpp"
#include "move.hpp"
#include "placement.hpp"
#include "status_model.hpp"

using namespace morpheus;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kGiB = 1ull << 30;

double since_us(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double peak_rss_mib() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// The request mix: mostly small jobs, some whole-pod and multi-pod ones; hot memory with the
// default bound, tight and loose bounds; cold memory alone and with hot.
Request draw_request(std::mt19937_64 &rng, uint64_t job_id) {
    Request r;
    r.job_id = job_id;
    r.uid = 1000 + static_cast<uint32_t>(job_id % 50);
    std::uniform_real_distribution<double> u(0, 1);
    double shape = u(rng);
    if (shape < 0.35) {
        static const uint32_t gpus[] = {1, 2, 4, 8, 8, 16, 32};
        r.gpus = gpus[rng() % 7];
    } else {
        static const uint32_t nodes[] = {1, 1, 2, 2, 4, 4, 8, 16, 32, 64, 128};
        r.nodes = nodes[rng() % 11];
    }
    double mem = u(rng);
    static const uint64_t hot_sizes[] = {16, 32, 64, 128, 256};
    static const uint64_t bounds[] = {0, 0, 250, 400, 1000};
    if (mem < 0.7) {
        r.hot_per_node = hot_sizes[rng() % 5] * kGiB;
        r.hot_latency_ns = bounds[rng() % 5];
    }
    if (mem > 0.5) r.cold_per_node = (rng() % 2 ? 256 : 1024) * kGiB;
    return r;
}

struct Running {
    uint64_t job_id;
    uint64_t ends_at;  // in placements: a job lives for a random number of later arrivals
    std::vector<uint32_t> nodes;
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

// FNV-1a over every placement made: equal digests from two builds mean the same decisions,
// which is how a change to the hot path is checked to keep behaviour.
void digest(uint64_t &h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
}

const char *verdict_of(bool met) { return met ? "ok" : "MISSED"; }

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> files;
    size_t requests = 20000;
    uint64_t seed = 1;
    double occupancy = 0.8;
    bool heat_map = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--requests") && i + 1 < argc)
            requests = std::strtoul(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--occupancy") && i + 1 < argc)
            occupancy = std::strtod(argv[++i], nullptr);
        else if (!std::strcmp(argv[i], "--heat-map"))
            heat_map = true;
        else
            files.push_back(argv[i]);
    }
    if (files.size() != 2 || requests == 0) {
        std::fprintf(stderr,
                     "usage: bench_placement FABRIC INVENTORY [--requests N] [--seed S] [--occupancy F] "
                     "[--heat-map]\n"
                     "  (tests/bench/run-bench.sh generates a 100k-GPU fabric and runs this)\n");
        return 2;
    }

    auto t0 = Clock::now();
    Fabric fabric;
    Inventory inventory;
    try {
        fabric = read_fabric(files[0]);
        inventory = read_inventory(files[1], fabric);
    } catch (const InputError &e) {
        std::fprintf(stderr, "bench_placement: %s\n", e.what());
        return 1;
    }
    double read_ms = since_us(t0) / 1000.0;
    auto t1 = Clock::now();
    ClusterModel model(std::move(fabric), std::move(inventory), PlacementSettings{});
    double precompute_ms = since_us(t1) / 1000.0;
    double load_ms = since_us(t0) / 1000.0;
    const Fabric &f = model.fabric();

    std::printf("fabric: %s\n", f.name.c_str());
    std::printf("  %zu pods, %zu nodes, %u GPUs, %zu switches, %zu blades, %zu links\n", f.pods.size(),
                f.node_names.size(), f.gpu_count(), f.switches.size(), f.blades.size(), f.links.size());
    std::printf("load: read %.1f ms + latency table and cold order %.1f ms = %.1f ms\n", read_ms, precompute_ms,
                load_ms);

    std::mt19937_64 rng(seed);
    if (heat_map) {
        struct Report {
            uint32_t node, blade, ns;
        };
        const LatencyTable &t = model.latency();
        HeatMap heat(f, t, HeatMapSettings{});
        std::mt19937_64 heat_rng(seed + 1);  // apart from the requests' draws: the same jobs arrive
        std::uniform_real_distribution<double> jitter(0.95, 1.05);
        const int64_t now = 1700000000;
        size_t reports = 0;
        for (int round = 0; round < 2; ++round) {
            std::vector<Report> batch;  // drawn first: only the ingest is timed
            batch.reserve(f.node_names.size() * 64);
            for (uint32_t n = 0; n < f.node_names.size(); ++n) {
                const uint32_t pod = f.node_pod[n];
                const std::vector<uint32_t> &near = t.blades_by_latency(pod);
                for (size_t j = 0; j < near.size() && j < 64; ++j) {
                    double slow = pod % 4 == 0 && j == 0 ? 1.6 : jitter(heat_rng);
                    batch.push_back({n, near[j], static_cast<uint32_t>(t.static_latency(pod, near[j]) * slow)});
                }
            }
            auto ti = Clock::now();
            for (const Report &r : batch) heat.report(r.node, r.blade, r.ns, now + 10 * round);
            double ingest_us = since_us(ti);
            auto ts = Clock::now();
            bool changed = heat.settle(now + 10 * round);
            double settle_ms = since_us(ts) / 1000.0;
            reports += batch.size();
            std::printf(
                "heat map round %d: %zu reports (%zu nodes), ingest %.0f ns per report (%.1f ms), "
                "settle %.1f ms%s\n",
                round + 1, batch.size(), f.node_names.size(),
                1000.0 * ingest_us / static_cast<double>(std::max<size_t>(1, batch.size())), ingest_us / 1000.0,
                settle_ms, changed ? ", published cells changed" : "");
        }
        auto tl = Clock::now();
        model = model.with_live_latency(heat);
        std::printf("heat map: %zu live cells of %zu, live model built in %.1f ms, windows %.1f MiB for %zu reports\n",
                    model.latency().live_count(), f.pods.size() * f.blades.size(), since_us(tl) / 1000.0,
                    static_cast<double>(heat.window_bytes()) / (1024.0 * 1024.0), reports);
        // The views' answers (issue 29), each built under slurmctld's engine lock: what a
        // `morpheus fabric --live`, a `morpheus pools` and a /metrics scrape cost at this scale.
        const LiveState live{&heat, now + 10, 256};
        auto tv = Clock::now();
        HeatMapView view = heat_map_view(model, heat, live.now, HeatQuery{});
        const double view_ms = since_us(tv) / 1000.0;
        const size_t view_bytes = document_text(to_json(view)).size();
        Ledger none(f.blades.size());
        auto tp = Clock::now();
        StatusSnapshot pools = status_snapshot(model, none, Viewer{-1, false}, live);
        const double pools_ms = since_us(tp) / 1000.0;
        auto tm = Clock::now();
        const std::string metrics = metrics_text(model, none, DecisionLog{}, live);
        const double metrics_ms = since_us(tm) / 1000.0;
        size_t heat_series = 0;
        for (size_t at = 0; (at = metrics.find("\nmorpheus_heat_", at)) != std::string::npos; ++at) ++heat_series;
        std::printf(
            "heat map views: fabric --live %zu of %llu matched cells in %.1f ms (%.0f KiB of JSON); pools with "
            "measured bands %.1f ms (%zu blades); /metrics %.1f ms, %zu heat series (%zu blades, at most 256 cells)\n",
            view.cells.size(), static_cast<unsigned long long>(view.cells_matched), view_ms,
            static_cast<double>(view_bytes) / 1024.0, pools_ms, pools.blades.size(), metrics_ms, heat_series,
            f.blades.size());
    }
    Ledger ledger(f.blades.size());
    std::vector<uint8_t> free_nodes(f.node_names.size(), 1);
    size_t free_count = free_nodes.size();
    std::vector<Running> running;
    std::vector<double> decide_us, placed_us, pending_us, book_us;
    decide_us.reserve(requests);
    size_t placed = 0, pending = 0, spread = 0, refused = 0;
    uint64_t decisions_digest = 14695981039346656037ull;
    const size_t target_busy = static_cast<size_t>(occupancy * static_cast<double>(free_nodes.size()));
    std::exponential_distribution<double> lifetime(1.0 / 2000.0);  // mean 2000 later arrivals

    auto end_job = [&](size_t i) {
        for (uint32_t n : running[i].nodes) free_nodes[n] = 1;
        free_count += running[i].nodes.size();
        ledger.release(running[i].job_id);
        running[i] = std::move(running.back());
        running.pop_back();
    };

    for (uint64_t k = 0; k < requests; ++k) {
        // Jobs whose time is up end; past the target occupancy the oldest-ending end early, so
        // the cluster stays busy but never jams.
        for (size_t i = 0; i < running.size();)
            if (running[i].ends_at <= k)
                end_job(i);
            else
                ++i;
        while (free_nodes.size() - free_count > target_busy && !running.empty()) end_job(rng() % running.size());

        Request req = draw_request(rng, k + 1);
        auto ts = Clock::now();
        Decision d = decide(model, ledger, req, free_nodes);
        double us = since_us(ts);
        decide_us.push_back(us);
        if (d.verdict != Verdict::Placed) {
            ++pending;
            pending_us.push_back(us);
            // A pending job frees nothing; end a few jobs so the next arrivals see room.
            for (int j = 0; j < 3 && !running.empty(); ++j) end_job(rng() % running.size());
            continue;
        }
        placed_us.push_back(us);
        for (const PodShare &p : d.placement.pods) digest(decisions_digest, (uint64_t{p.pod} << 32) | p.nodes);
        for (const Segment &sg : d.placement.segments) {
            digest(decisions_digest,
                   (uint64_t{sg.blade} << 8) | (static_cast<uint64_t>(sg.tier) << 1) | static_cast<uint64_t>(sg.use));
            digest(decisions_digest, sg.bytes);
        }
        ++placed;
        spread += d.placement.pods.size() > 1;
        auto tb = Clock::now();
        Running job{req.job_id, k + 1 + static_cast<uint64_t>(lifetime(rng)),
                    choose_nodes(model, d.placement.pods, free_nodes)};
        Reservation r;
        r.job_id = req.job_id;
        r.uid = req.uid;
        r.pods = d.placement.pods;
        r.segments = d.placement.segments;
        r.hot_latency_bound_ns = d.placement.hot_latency_bound_ns;
        if (!ledger.reserve(r, model.inventory())) {
            ++refused;  // would be a core bug: decide() chose memory the ledger refuses
            continue;
        }
        for (uint32_t n : job.nodes) free_nodes[n] = 0;
        free_count -= job.nodes.size();
        running.push_back(std::move(job));
        book_us.push_back(since_us(tb));
    }

    uint64_t dram_cap = 0, dram_res = 0;
    for (uint32_t b = 0; b < f.blades.size(); ++b) {
        dram_cap += model.inventory().blades[b].capacity[0];
        dram_res += ledger.reserved(b, Tier::Dram);
    }
    std::printf("requests: %zu (seed %llu): %zu placed (%zu over several pods), %zu pending, %zu refused by ledger\n",
                requests, static_cast<unsigned long long>(seed), placed, spread, pending, refused);
    std::printf("at the end: %zu jobs running, %.0f%% of nodes busy, %.0f%% of DRAM reserved\n", running.size(),
                100.0 * static_cast<double>(free_nodes.size() - free_count) / static_cast<double>(free_nodes.size()),
                dram_cap ? 100.0 * static_cast<double>(dram_res) / static_cast<double>(dram_cap) : 0.0);
    std::printf("placement digest: %016llx\n", static_cast<unsigned long long>(decisions_digest));
    double median = percentile(decide_us, 0.5), p99 = percentile(decide_us, 0.99);
    std::printf("decide(): median %.1f us, p99 %.1f us, max %.1f us (all requests)\n", median, p99,
                percentile(decide_us, 1.0));
    std::printf("  placed:  median %.1f us, p99 %.1f us\n", percentile(placed_us, 0.5), percentile(placed_us, 0.99));
    std::printf("  pending: median %.1f us, p99 %.1f us\n", percentile(pending_us, 0.5), percentile(pending_us, 0.99));
    std::printf("choose_nodes() + Ledger::reserve(): median %.1f us, p99 %.1f us\n", percentile(book_us, 0.5),
                percentile(book_us, 0.99));
    // Moves (issue 27): one running job in 20 has its hot memory beyond a bound just under
    // its nearest hot blade, as after a soft bound lapsed; plan_moves() as the watcher and a
    // job's end call it, with MaxMoves 2 (the default) and 64.
    std::vector<uint64_t> far;
    for (const Running &j : running)
        if (rng() % 20 == 0) far.push_back(j.job_id);
    size_t beyond = 0;
    for (uint64_t id : far) {
        Reservation r = *ledger.find(id);
        uint32_t nearest = UINT32_MAX;
        for (const Segment &sg : r.segments)
            if (sg.use == Use::Hot) nearest = std::min(nearest, sg.latency_ns);
        if (nearest == UINT32_MAX || nearest < 2) continue;
        r.hot_latency_bound_ns = nearest - 1;
        beyond += ledger.reserve(r, model.inventory());
    }
    std::vector<double> move_us;
    for (uint32_t most : {2u, 64u}) {
        move_us.clear();
        size_t found = 0;
        for (int i = 0; i < 200; ++i) {
            auto tm = Clock::now();
            found = plan_moves(model, ledger, most).size();
            move_us.push_back(since_us(tm));
        }
        std::printf(
            "plan_moves() (MaxMoves %u, %zu of %zu running jobs beyond their bound): median %.1f us, p99 %.1f "
            "us, %zu moves found\n",
            most, beyond, running.size(), percentile(move_us, 0.5), percentile(move_us, 0.99), found);
    }
    double rss = peak_rss_mib();
    std::printf("peak RSS: %.1f MiB\n", rss);
    std::printf("targets: median <= 100 us %s, p99 <= 1 ms %s, load <= 2 s %s, RSS <= 512 MiB %s\n",
                verdict_of(median <= 100), verdict_of(p99 <= 1000), verdict_of(load_ms <= 2000),
                verdict_of(rss <= 512));
    return refused ? 1 : 0;
}
