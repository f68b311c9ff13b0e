// bench_planner: prints how long the planner takes to find a pending job's earliest start at
// the 100k-GPU scale with 10,000 running and 10,000 planned jobs (issue 14's targets: median
// <= 50 us, p99 <= 1 ms). Figures only, never a timed assertion. run-bench.sh runs it.
// Each query is timed by the clock on the wall and by the thread's CPU time: on a shared
// machine the first also counts the time other processes had the core. The digest of every
// answer (start and blades) lets two builds be checked to answer alike.
//
// usage: bench_planner FABRIC INVENTORY [--running N] [--pending N] [--seed S]
//
// Running jobs are placed by decide() on a live ledger and held until start + time limit;
// pending jobs are planned one by one in priority order, each at the earliest start the
// planner finds (on a pod Slurm might offer, from a node time Slurm might report), so every
// query sees the plans of the jobs before it, as backfill would.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cluster_model.hpp"
#include "input_error.hpp"
#include "ledger.hpp"
#include "placement.hpp"
#include "planner.hpp"

using namespace morpheus;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kGiB = 1ull << 30;

double since_us(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

double cpu_us() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

// FNV-1a over the answers, so two builds can be compared on the same queries.
struct Digest {
    uint64_t h = 1469598103934665603ull;
    void add(uint64_t v) {
        for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    }
    void add(const std::optional<Slot> &slot) {
        add(slot ? 1 : 0);
        if (!slot) return;
        add(static_cast<uint64_t>(slot->start));
        for (const Segment &s : slot->placement.segments) {
            add(s.blade);
            add(static_cast<uint64_t>(s.tier));
            add(s.bytes);
        }
    }
};

// One query timed both ways.
struct Timed {
    std::vector<double> wall, cpu;
    template <typename F>
    auto operator()(F &&f) {
        double c0 = cpu_us();
        auto t0 = Clock::now();
        auto r = f();
        wall.push_back(since_us(t0));
        cpu.push_back(cpu_us() - c0);
        return r;
    }
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

// Mostly small jobs, hot memory with default, tight and loose bounds, some cold memory.
Request draw_request(std::mt19937_64 &rng, uint64_t job_id, bool small) {
    Request r;
    r.job_id = job_id;
    static const uint32_t small_nodes[] = {1, 1, 1, 1, 2};
    static const uint32_t nodes[] = {1, 1, 2, 2, 4, 4, 8, 16, 32};
    r.nodes = small ? small_nodes[rng() % 5] : nodes[rng() % 9];
    std::uniform_real_distribution<double> u(0, 1);
    double mem = u(rng);
    static const uint64_t hot_sizes[] = {16, 32, 64, 128, 256};
    static const uint64_t bounds[] = {0, 0, 250, 400, 1000};
    if (mem < 0.7) {
        r.hot_per_node = hot_sizes[rng() % 5] * kGiB;
        r.hot_latency_ns = bounds[rng() % 5];
    }
    if (mem > 0.5) r.cold_per_node = (rng() % 2 ? 64 : 256) * kGiB;
    return r;
}

void print_times(const char *what, const Timed &t) {
    std::printf(
        "%s: %zu queries, wall median %.1f us, p99 %.1f us, max %.1f us; cpu median %.1f us, p99 %.1f us, "
        "max %.1f us\n",
        what, t.wall.size(), percentile(t.wall, 0.5), percentile(t.wall, 0.99), percentile(t.wall, 1.0),
        percentile(t.cpu, 0.5), percentile(t.cpu, 0.99), percentile(t.cpu, 1.0));
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> files;
    size_t want_running = 10000, want_pending = 10000;
    uint64_t seed = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--running") && i + 1 < argc)
            want_running = std::strtoul(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--pending") && i + 1 < argc)
            want_pending = std::strtoul(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else
            files.push_back(argv[i]);
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "usage: bench_planner FABRIC INVENTORY [--running N] [--pending N] [--seed S]\n");
        return 2;
    }
    Fabric fabric;
    Inventory inventory;
    try {
        fabric = read_fabric(files[0]);
        inventory = read_inventory(files[1], fabric);
    } catch (const InputError &e) {
        std::fprintf(stderr, "bench_planner: %s\n", e.what());
        return 1;
    }
    ClusterModel model(std::move(fabric), std::move(inventory), PlacementSettings{});
    const Fabric &f = model.fabric();
    std::mt19937_64 rng(seed);
    const int64_t now = 1'000'000;

    // Running jobs: placed now, each until its time limit (a few unlimited).
    Ledger ledger(f.blades.size());
    Planner planner(f.blades.size());
    std::vector<Hold> running;
    std::vector<uint8_t> free_nodes(f.node_names.size(), 1);
    size_t attempts = 0;
    uint64_t next_id = 1;
    while (running.size() < want_running && attempts++ < 4 * want_running) {
        Request req = draw_request(rng, next_id++, true);
        Decision d = decide(model, ledger, req, free_nodes);
        if (d.verdict != Verdict::Placed) continue;
        Reservation r;
        r.job_id = req.job_id;
        r.pods = d.placement.pods;
        r.segments = d.placement.segments;
        if (!ledger.reserve(r, model.inventory())) continue;
        for (uint32_t n : choose_nodes(model, d.placement.pods, free_nodes)) free_nodes[n] = 0;
        int64_t started = now - static_cast<int64_t>(rng() % 3600);
        int64_t end = rng() % 50 ? started + 600 + static_cast<int64_t>(rng() % (48 * 3600)) : kForever;
        running.push_back({req.job_id, r.segments, started, end});
    }
    // Holding them, timed apart from placing them.
    auto h0 = Clock::now();
    for (const Hold &h : running) planner.hold_running(h.job_id, h.segments, h.start, h.end);
    const double hold_running_us = since_us(h0);

    std::fprintf(stderr, "bench_planner: %zu running jobs placed\n", planner.running_count());
    // Pending jobs, planned in priority order.
    Timed plan_t, full_t;
    Digest digest;
    double hold_planned_us = 0;
    size_t planned = 0, never = 0, later = 0;
    auto pending_query = [&](Request &req, std::vector<PodShare> &pods, int64_t &duration, int64_t &nodes_at) {
        req = draw_request(rng, next_id++, false);
        const uint64_t bound = effective_bound(model, req);
        for (;;) {  // a pod Slurm might offer: big enough, with a blade inside the bound
            uint32_t p = static_cast<uint32_t>(rng() % f.pods.size());
            if (f.pods[p].node_count < req.nodes || (req.hot_per_node && model.latency().nearest(p) > bound)) continue;
            pods = {{p, req.nodes}};
            break;
        }
        duration = 600 + static_cast<int64_t>(rng() % (24 * 3600));
        nodes_at = now + (rng() % 2 ? 0 : static_cast<int64_t>(rng() % (4 * 3600)));
    };
    for (uint32_t order = 0; order < want_pending; ++order) {
        Request req;
        std::vector<PodShare> pods;
        int64_t duration, nodes_at;
        pending_query(req, pods, duration, nodes_at);
        auto slot = plan_t([&] { return planner.earliest_start(model, req, pods, now, duration, nodes_at); });
        digest.add(slot);
        if (!slot) {
            ++never;
            continue;
        }
        later += slot->start > nodes_at;
        auto h1 = Clock::now();
        planner.hold_planned(req.job_id, order, slot->placement.segments, slot->start, slot->start + duration);
        hold_planned_us += since_us(h1);
        ++planned;
    }
    // Queries against the full plan (what will-run asks for the next job down the queue).
    for (int i = 0; i < 2000; ++i) {
        Request req;
        std::vector<PodShare> pods;
        int64_t duration, nodes_at;
        pending_query(req, pods, duration, nodes_at);
        digest.add(full_t([&] { return planner.earliest_start(model, req, pods, now, duration, nodes_at); }));
    }

    std::printf("fabric: %s: %zu pods, %zu nodes, %u GPUs, %zu blades\n", f.name.c_str(), f.pods.size(),
                f.node_names.size(), f.gpu_count(), f.blades.size());
    std::printf(
        "planner: %zu running jobs held, %zu pending planned (%zu start later than their nodes for "
        "memory, %zu never fit)\n",
        planner.running_count(), planned, later, never);
    std::printf(
        "updates: %zu running jobs held in %.1f ms (%.2f us each), %zu plans held in %.1f ms (%.2f us each); "
        "the first query (which indexes them) took %.1f us\n",
        running.size(), hold_running_us / 1e3, hold_running_us / std::max<size_t>(1, running.size()), planned,
        hold_planned_us / 1e3, hold_planned_us / std::max<size_t>(1, planned),
        plan_t.wall.empty() ? 0.0 : plan_t.wall.front());
    print_times("earliest start, planning the queue (each query after a new plan)", plan_t);
    print_times("earliest start, against the full plan", full_t);
    std::printf("answers digest: %016llx\n", static_cast<unsigned long long>(digest.h));
    for (const auto &[clock, us] : {std::make_pair("wall", &full_t.wall), std::make_pair("cpu", &full_t.cpu)}) {
        double median = percentile(*us, 0.5), p99 = percentile(*us, 0.99);
        std::printf("targets (full plan, %s clock): median <= 50 us %s, p99 <= 1 ms %s\n", clock,
                    median <= 50 ? "ok" : "MISSED", p99 <= 1000 ? "ok" : "MISSED");
    }
    return 0;
}
