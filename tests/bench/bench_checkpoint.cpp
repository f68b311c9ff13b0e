// bench_checkpoint: prints what booking a checkpoint flush window costs at the 100k-GPU scale
// with 10,000 running jobs holding windows (issue 28's targets: median <= 50 us, p99 <= 1 ms).
// Figures only, never a timed assertion. run-bench.sh runs it.
//
// usage: bench_checkpoint FABRIC INVENTORY [--running N] [--queries N] [--seed S]
//
// Each running job sits on one or a few nodes of a random pod and checkpoints 80 GiB per node
// (8 GPUs x 10 GiB of model and optimizer state) every 30 min, 1 h or 2 h (allowing twice
// that), 1 copy or, for one job in four, 2. It is granted a region and a window through
// plan_checkpoint(), the call the engine makes, and booked. Then new jobs are asked the same
// without being booked: the time of the whole grant (region and window), and of the window
// search alone (LinkBook::find_phase) on the region chosen.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "checkpoint.hpp"
#include "cluster_model.hpp"
#include "input_error.hpp"
#include "ledger.hpp"

using namespace morpheus;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kGiB = 1ull << 30;

double cpu_us() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

struct Timed {
    std::vector<double> wall, cpu;
    template <typename F>
    auto operator()(F &&f) {
        double c0 = cpu_us();
        auto t0 = Clock::now();
        auto r = f();
        wall.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
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

void print_times(const char *what, const Timed &t) {
    std::printf("%s: %zu queries, wall median %.1f us, p99 %.1f us, max %.1f us; cpu median %.1f us, p99 %.1f us\n",
                what, t.wall.size(), percentile(t.wall, 0.5), percentile(t.wall, 0.99), percentile(t.wall, 1.0),
                percentile(t.cpu, 0.5), percentile(t.cpu, 0.99));
}

struct Job {
    Request req;
    std::vector<PodShare> pods;
};

Job random_job(const ClusterModel &m, std::mt19937_64 &rng, uint64_t id) {
    Job j;
    const auto &pods = m.fabric().pods;
    uint32_t pod = static_cast<uint32_t>(rng() % pods.size());
    uint32_t nodes = 1 + static_cast<uint32_t>(rng() % 100 < 80 ? 0 : rng() % 4);
    nodes = std::min(nodes, std::max<uint32_t>(1, pods[pod].node_count));
    j.pods = {{pod, nodes}};
    j.req.job_id = id;
    j.req.nodes = nodes;
    j.req.ckpt_bytes = uint64_t(nodes) * 80 * kGiB;
    static const int64_t periods[] = {1800, 3600, 7200};
    j.req.ckpt_period_s = periods[rng() % 3];
    j.req.ckpt_period_max_s = 2 * j.req.ckpt_period_s;
    j.req.ckpt_replicas = rng() % 4 == 0 ? 2 : 1;
    return j;
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> files;
    size_t want_running = 10000, queries = 2000;
    uint64_t seed = 1;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--running") && i + 1 < argc)
            want_running = std::strtoul(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--queries") && i + 1 < argc)
            queries = std::strtoul(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else
            files.push_back(argv[i]);
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "usage: bench_checkpoint FABRIC INVENTORY [--running N] [--queries N] [--seed S]\n");
        return 2;
    }
    auto t_load = Clock::now();
    std::unique_ptr<ClusterModel> model;
    try {
        Fabric fabric = read_fabric(files[0]);
        Inventory inventory = read_inventory(files[1], fabric);
        model = std::make_unique<ClusterModel>(std::move(fabric), std::move(inventory), PlacementSettings{});
    } catch (const InputError &e) {
        std::fprintf(stderr, "bench_checkpoint: %s\n", e.what());
        return 1;
    }
    const ClusterModel &m = *model;
    double load_ms = std::chrono::duration<double, std::milli>(Clock::now() - t_load).count();
    std::printf("checkpoint: %zu pods, %zu blades, %zu links, %u GPUs; model with link paths loaded in %.0f ms\n",
                m.fabric().pods.size(), m.fabric().blades.size(), m.fabric().links.size(), m.fabric().gpu_count(),
                load_ms);

    std::mt19937_64 rng(seed);
    Ledger ledger(m.fabric().blades.size());
    LinkBook book = empty_link_book(m);
    size_t booked = 0, refused = 0, stretched = 0;
    Timed fill;
    for (uint64_t id = 1; booked < want_running && id <= 4 * want_running; ++id) {
        Job j = random_job(m, rng, id);
        CheckpointGrant g;
        bool ok = fill([&] { return plan_checkpoint(m, ledger, book, j.req, j.pods, g, nullptr); });
        if (!ok) {
            ++refused;
            continue;
        }
        Reservation r;
        r.job_id = id;
        r.pods = j.pods;
        r.segments = g.stripes;
        r.checkpoint = g.hold;
        if (!ledger.reserve(r, m.inventory())) {
            ++refused;
            continue;
        }
        book_reservation(m, book, r);
        stretched += g.hold.period_s != j.req.ckpt_period_s;
        ++booked;
    }
    double worst = 0;
    size_t used_links = 0;
    for (uint32_t l = 0; l < book.link_count(); ++l) {
        if (book.peak(l) > 0) ++used_links;
        if (book.capacity(l) > 0) worst = std::max(worst, book.peak(l) / book.capacity(l));
    }
    std::printf(
        "checkpoint: %zu running jobs hold windows (%zu granted a longer period, %zu refused on the way); "
        "%zu links carry bookings, the fullest at %.0f%% of its checkpoint share\n",
        booked, stretched, refused, used_links, 100 * worst);
    print_times("checkpoint: booking while filling (region + window)", fill);

    Timed grant, window;
    size_t granted = 0;
    for (size_t q = 0; q < queries; ++q) {
        Job j = random_job(m, rng, 1000000 + q);
        CheckpointGrant g;
        bool ok = grant([&] { return plan_checkpoint(m, ledger, book, j.req, j.pods, g, nullptr); });
        granted += ok;
        if (!ok) continue;
        window([&] {
            auto p = book.find_phase(g.flush.loads, g.hold.period_s, g.hold.length_s);
            return p.has_value();
        });
    }
    std::printf("checkpoint: %zu of %zu new jobs would be granted now\n", granted, queries);
    print_times("checkpoint: book a window for a new job (region + window)", grant);
    print_times("checkpoint: window search alone (LinkBook::find_phase)", window);
    return 0;
}
