// The status service under hostile clients (idle, slow, never reading, oversized), with a stand-in
// authenticator so no munged is needed; and what an unprivileged viewer may see of others' jobs.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "engine.hpp"
#include "metrics.hpp"
#include "status_model.hpp"
#include "status_queries.hpp"
#include "status_service.hpp"
#include "test_support.hpp"

using namespace morpheus;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<int> decodes{0};

// "uid:N:PAYLOAD" stands for a credential of uid N signing PAYLOAD.
std::string fake_authenticate(const std::string &line, Credential &out) {
    ++decodes;
    if (line.compare(0, 4, "uid:") != 0) return "Invalid credential format";
    size_t colon = line.find(':', 4);
    if (colon == std::string::npos) return "Invalid credential format";
    out.uid = static_cast<uint32_t>(std::stoul(line.substr(4, colon - 4)));
    out.payload = line.substr(colon + 1);
    return "";
}

// "big" and "huge" get replies larger than a small receive buffer, and than all socket buffers;
// anything else a short one naming the caller.
std::string answer(const Credential &caller, bool privileged) {
    const uint32_t uid = caller.uid;
    const std::string &query = caller.payload;
    if (query == "big") return std::string(512 * 1024, 'x') + "\n";
    if (query == "huge") return std::string(32 << 20, 'x') + "\n";
    return "{\"uid\": " + std::to_string(uid) + ", \"privileged\": " + (privileged ? "true" : "false") +
           ", \"query\": \"" + query + "\"}\n";
}

std::unique_ptr<StatusService> start(StatusServiceOptions o = {}) {
    decodes = 0;
    o.address = "127.0.0.1";
    o.port = 0;
    o.authenticate = fake_authenticate;
    return std::make_unique<StatusService>(std::move(o), answer);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int connect_to(uint16_t port, bool blocking, int rcvbuf = 0) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (blocking ? 0 : SOCK_NONBLOCK), 0);
    assert_true(fd >= 0);
    if (rcvbuf) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    int rc = ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
    // A hostile client whose connect the kernel refuses (a full backlog) is still a client.
    assert_true(rc == 0 || errno == EINPROGRESS || (!blocking && errno == EAGAIN));
    return fd;
}

// Sends `request` whole, half-closes, and reads the reply until EOF or `timeout_s`.
std::string ask(uint16_t port, const std::string &request, double timeout_s = 3) {
    int fd = connect_to(port, true);
    size_t off = 0;
    while (off < request.size()) {
        ssize_t n = ::send(fd, request.data() + off, request.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
    }
    ::shutdown(fd, SHUT_WR);
    std::string reply;
    auto t0 = Clock::now();
    char buf[4096];
    while (seconds_since(t0) < timeout_s) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0) continue;
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        reply.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return reply;
}

// Seconds until the service closes a connection that sends one byte every `every_ms` and never
// a newline; `give_up_s` when it does not.
double time_to_cut_off(uint16_t port, int every_ms, double give_up_s) {
    int fd = connect_to(port, true);
    auto t0 = Clock::now();
    while (seconds_since(t0) < give_up_s) {
        if (::send(fd, "x", 1, MSG_NOSIGNAL) != 1) break;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, every_ms) > 0) {
            char c;
            if (::read(fd, &c, 1) <= 0) break;  // EOF or reset: cut off
        }
    }
    double s = seconds_since(t0);
    ::close(fd);
    return s;
}

}  // namespace

// 500 hostile connections (idle, slow, never reading a large reply) do not delay a good client.
static void good_client_answered_among_500_hostile(void **) {
    auto svc = start();
    const uint16_t port = svc->port();
    std::vector<int> idle, slow, deaf;
    for (int i = 0; i < 200; ++i) idle.push_back(connect_to(port, false));
    for (int i = 0; i < 200; ++i) slow.push_back(connect_to(port, false));
    for (int i = 0; i < 100; ++i) {
        int fd = connect_to(port, true, 4096);
        (void)!::send(fd, "uid:1000:big\n", 13, MSG_NOSIGNAL);
        deaf.push_back(fd);
    }
    std::atomic<bool> stop{false};
    std::thread dribble([&] {  // a byte every 500 ms to each slow one: never a whole line
        while (!stop) {
            for (int fd : slow) (void)!::send(fd, "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            for (int k = 0; k < 10 && !stop; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int round = 0; round < 3; ++round) {
        auto t0 = Clock::now();
        std::string reply = ask(port, "uid:1000:status\n");
        double s = seconds_since(t0);
        std::fprintf(stderr, "good client answered in %.3f s among 500 hostile connections\n", s);
        assert_non_null(std::strstr(reply.c_str(), "\"uid\": 1000"));
        assert_true(s < 1.0 * test_time_scale());
    }
    stop = true;
    dribble.join();
    for (auto *v : {&idle, &slow, &deaf})
        for (int fd : *v) ::close(fd);
}

// A client sending a byte at a time, never a full line, is cut off at the request deadline.
static void slow_client_cut_off_at_deadline(void **) {
    StatusServiceOptions o;
    o.request_deadline_ms = 300;
    auto svc = start(o);
    double s = time_to_cut_off(svc->port(), 100, 3.0);
    std::fprintf(stderr, "slow client cut off after %.3f s (deadline 0.3 s)\n", s);
    assert_true(s >= 0.25);
    assert_true(s < 1.0 * test_time_scale());
    // The service still answers afterwards.
    assert_non_null(std::strstr(ask(svc->port(), "uid:0:status\n").c_str(), "\"privileged\": true"));
}

// An oversized request is refused before the credential is decoded.
static void oversized_request_refused_before_decoding(void **) {
    auto svc = start();
    std::string big = "uid:0:" + std::string(20000, 'a') + "\n";
    std::string reply = ask(svc->port(), big);
    assert_non_null(std::strstr(reply.c_str(), "request too large"));
    assert_int_equal(decodes.load(), 0);
    // At the cap and under it, requests are decoded as usual.
    assert_non_null(std::strstr(ask(svc->port(), "uid:7:status\n").c_str(), "\"uid\": 7"));
    assert_int_equal(decodes.load(), 1);
}

// A client that never reads its reply is dropped at the reply deadline, not waited on.
static void client_that_never_reads_is_dropped(void **) {
    StatusServiceOptions o;
    o.reply_deadline_ms = 300;
    auto svc = start(o);
    int fd = connect_to(svc->port(), true, 4096);
    (void)!::send(fd, "uid:1000:huge\n", 14, MSG_NOSIGNAL);
    // The deadline runs from the reply's first bytes (building it may be slow, as under TSan):
    // wait for them, then stay away well past the deadline.
    pollfd first{fd, POLLIN, 0};
    assert_true(poll(&first, 1, 10000) > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    // Dropped: reading now gives what was in flight, then an end (EOF or reset), never a hang.
    size_t got = 0;
    char buf[65536];
    auto t0 = Clock::now();
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        assert_true(poll(&p, 1, 1000) > 0);
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    std::fprintf(stderr, "never-reading client got %zu bytes, end after %.3f s\n", got, seconds_since(t0));
    assert_true(got < (32u << 20));  // the reply was cut short
    assert_true(seconds_since(t0) < 1.0 * test_time_scale());
}

// Stopping returns promptly whatever the clients are doing.
static void stop_is_prompt_with_connections_open(void **) {
    auto svc = start();
    std::vector<int> fds;
    for (int i = 0; i < 50; ++i) fds.push_back(connect_to(svc->port(), false));
    int half = connect_to(svc->port(), true);
    (void)!::send(half, "uid:0:sta", 9, MSG_NOSIGNAL);
    fds.push_back(half);
    for (int i = 0; i < 5; ++i) {
        int fd = connect_to(svc->port(), true, 4096);
        (void)!::send(fd, "uid:1000:big\n", 13, MSG_NOSIGNAL);
        fds.push_back(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto t0 = Clock::now();
    svc.reset();
    double s = seconds_since(t0);
    std::fprintf(stderr, "stopped in %.3f s with %zu connections open\n", s, fds.size());
    assert_true(s < 0.2 * test_time_scale());
    for (int fd : fds) ::close(fd);
}

// Over max_connections, the oldest connection is dropped to make room.
static void connection_cap_drops_the_oldest(void **) {
    StatusServiceOptions o;
    o.max_connections = 4;
    auto svc = start(o);
    int oldest = connect_to(svc->port(), true);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::vector<int> more;
    for (int i = 0; i < 4; ++i) more.push_back(connect_to(svc->port(), true));
    pollfd p{oldest, POLLIN, 0};
    assert_true(poll(&p, 1, 1000) > 0);
    char c;
    assert_true(::read(oldest, &c, 1) <= 0);  // closed by the service
    ::close(oldest);
    for (int fd : more) ::close(fd);
}

// Privacy: PrivateData=jobs hides other users' jobs from unprivileged viewers, and explain
// answers alike for another user's job and for no job.
static void private_jobs_and_explain(void **) {
    char t[] = "/tmp/morpheus-status-XXXXXX";
    std::string dir = mkdtemp(t);
    std::ofstream(dir + "/morpheus.conf") << "FabricFile=" << top_srcdir("etc/fabric.json")
                                          << "\nInventoryFile=" << top_srcdir("etc/inventory.json") << "\n";
    Engine engine(dir + "/morpheus.conf", dir + "/ledger.json");
    Request mine, theirs;
    mine.job_id = 1;
    mine.uid = 1000;
    mine.nodes = 1;
    mine.hot_per_node = 1ull << 30;
    theirs = mine;
    theirs.job_id = 2;
    theirs.uid = 2000;
    engine.reserve(mine, {0});
    engine.reserve(theirs, {1});
    DecisionRecord pending;
    pending.job_id = 3;
    pending.uid = 2000;
    pending.verdict = "pending";
    pending.reason = "no blade within 250ns";
    engine.decisions().record(pending);
    auto ask_engine = [&](uint32_t uid, bool privileged, const std::string &q, bool private_jobs) {
        return answer_status_query(engine.model(), engine.ledger(), engine.decisions(), uid, privileged, q,
                                   private_jobs);
    };
    for (const char *op : {"{\"op\": \"jobs\"}", "{\"op\": \"status\"}"}) {
        std::string open = ask_engine(1000, false, op, false), closed = ask_engine(1000, false, op, true);
        std::string root = ask_engine(0, true, op, true);
        assert_non_null(std::strstr(closed.c_str(), "\"uid\": 1000"));
        assert_null(std::strstr(closed.c_str(), "\"uid\": 2000"));  // neither running nor pending
        assert_non_null(std::strstr(open.c_str(), "\"uid\": 2000"));  // without PrivateData: ids, no detail
        assert_non_null(std::strstr(root.c_str(), "\"uid\": 2000"));  // the privileged see all
    }
    for (bool private_jobs : {false, true}) {
        std::string other = ask_engine(1000, false, "{\"op\": \"explain\", \"job\": 2}", private_jobs);
        std::string missing = ask_engine(1000, false, "{\"op\": \"explain\", \"job\": 99}", private_jobs);
        // The same words for "not yours" and "no such job", the id aside.
        auto words = [](std::string s, const char *id) { return s.replace(s.find(id), std::strlen(id), "N"); };
        assert_string_equal(words(other, "job 2:").c_str(), words(missing, "job 99:").c_str());
        assert_null(std::strstr(other.c_str(), "2000"));
    }
    std::string own = ask_engine(1000, false, "{\"op\": \"explain\", \"job\": 1}", true);
    assert_non_null(std::strstr(own.c_str(), "\"holding\""));
    std::remove((dir + "/ledger.json").c_str());
    std::remove((dir + "/morpheus.conf").c_str());
    rmdir(dir.c_str());
}

// The live heat map's views (issue 29): the measured cell beside the static one, fresh and then
// stale, filtered, refused offline; the pools band; the metrics' per-cell series.
namespace {

struct HeatEngine {
    std::string dir;
    std::unique_ptr<Engine> engine;
    explicit HeatEngine(const std::string &extra = "") {
        char t[] = "/tmp/morpheus-heat-XXXXXX";
        dir = mkdtemp(t);
        std::ofstream(dir + "/morpheus.conf")
            << "FabricFile=" << top_srcdir("etc/fabric.json") << "\nInventoryFile=" << top_srcdir("etc/inventory.json")
            << "\nHeatMapRounds=1\nHeatMapStale=600\n"
            << extra;
        engine = std::make_unique<Engine>(dir + "/morpheus.conf", dir + "/ledger.json");
    }
    ~HeatEngine() {
        engine.reset();
        std::remove((dir + "/ledger.json").c_str());
        std::remove((dir + "/morpheus.conf").c_str());
        rmdir(dir.c_str());
    }
    std::string ask(const std::string &q, int64_t now, bool live = true, uint32_t metric_cells = 256) {
        LiveState state{live ? &engine->heat_map() : nullptr, now, metric_cells};
        return answer_status_query(engine->model(), engine->ledger(), engine->decisions(), 1000, false, q, false,
                                   state);
    }
};

constexpr int64_t kT0 = 1700000000;

const BladeStatus &blade_of(const StatusSnapshot &s, const char *name) {
    for (const BladeStatus &b : s.blades)
        if (b.blade == name) return b;
    fail_msg("no blade %s", name);
    return s.blades.front();
}

// The value of one series in Prometheus text, NaN when it is not there.
double metric_value(const std::string &text, const std::string &series) {
    size_t at = text.find("\n" + series + " ");
    return at == std::string::npos ? NAN : std::strtod(text.c_str() + at + series.size() + 2, nullptr);
}

size_t count_lines(const std::string &text, const std::string &prefix) {
    size_t n = 0;
    for (size_t at = 0; (at = text.find("\n" + prefix, at)) != std::string::npos; ++at) ++n;
    return n;
}

}  // namespace

static void live_fabric_shows_measured_then_stale(void **) {
    HeatEngine h;
    for (const char *node : {"gpu101", "gpu102", "gpu103", "gpu104"})
        h.engine->report_latency(node, "blade1", 400, kT0);
    assert_true(h.engine->settle_heat_map(kT0));

    // Reported: the measured figure beside the static 200ns, fresh, and placement uses it.
    HeatMapView v = from_json<HeatMapView>(h.ask(R"({"op": "fabric", "live": true})", kT0 + 5), "test");
    assert_string_equal(v.figure.c_str(), "p99");
    assert_int_equal(v.cells_reachable, 32);
    assert_int_equal(v.cells_measured, 1);
    assert_int_equal(v.cells_fresh, 1);
    assert_int_equal(v.cells_live, 1);
    assert_int_equal(v.cells.size(), 1);  // by default, the measured cells only
    const HeatCellStatus &c = v.cells[0];
    assert_string_equal(c.pod.c_str(), "pod1");
    assert_string_equal(c.blade.c_str(), "blade1");
    assert_string_equal(c.state.c_str(), "fresh");
    assert_int_equal(c.measured_ns.value_or(0), 400);
    assert_int_equal(c.p50_ns.value_or(0), 400);
    assert_int_equal(c.static_ns, 200);
    assert_int_equal(c.used_ns, 400);
    assert_true(c.live);
    assert_int_equal(c.nodes, 4);
    assert_int_equal(c.samples, 4);
    assert_int_equal(c.age_s.value_or(-1), 5);

    // "all": every reachable cell, the unmeasured ones at their static value; filters and a limit.
    v = from_json<HeatMapView>(h.ask(R"({"op": "fabric", "live": true, "all": true, "limit": 10})", kT0 + 5), "t");
    assert_int_equal(v.cells_matched, 32);
    assert_int_equal(v.cells.size(), 10);
    assert_string_equal(v.cells[1].state.c_str(), "unmeasured");
    assert_false(v.cells[1].measured_ns.has_value());
    assert_int_equal(v.cells[1].used_ns, v.cells[1].static_ns);
    v = from_json<HeatMapView>(
        h.ask(R"({"op": "fabric", "live": true, "all": true, "pods": ["pod2"], "blades": ["blade1", "blade5"]})",
              kT0 + 5),
        "t");
    assert_int_equal(v.cells.size(), 2);
    assert_string_equal(v.cells[0].pod.c_str(), "pod2");
    assert_string_equal(v.cells[1].blade.c_str(), "blade5");
    assert_int_equal(v.cells_measured, 1);  // the totals are the whole map's
    expect_input_error(
        [&] { from_json<HeatMapView>(h.ask(R"({"op":"fabric","live":true,"blades":["x9"]})", kT0), "t"); },
        {"no blade \"x9\""});
    expect_input_error([&] { from_json<HeatMapView>(h.ask(R"({"op":"fabric","live":true,"limit":0})", kT0), "t"); },
                       {"limit"});
    // Offline there is no heat map: said so, never a static matrix dressed as measured.
    expect_input_error(
        [&] { from_json<HeatMapView>(h.ask(R"({"op": "fabric", "live": true})", kT0, false), "offline"); },
        {"no measurements here", "slurmctld"});

    // Pools: blade1's static band over the pods (200..500ns) and its measured band.
    StatusSnapshot s = from_json<StatusSnapshot>(h.ask(R"({"op": "status"})", kT0 + 5), "t");
    const BladeStatus &b1 = blade_of(s, "blade1");
    assert_int_equal(b1.static_min_ns.value_or(0), 200);
    assert_int_equal(b1.static_max_ns.value_or(0), 500);
    assert_true(b1.heat.has_value());
    assert_int_equal(b1.heat->min_ns.value_or(0), 400);
    assert_int_equal(b1.heat->max_ns.value_or(0), 400);
    assert_int_equal(b1.heat->fresh_cells, 1);
    assert_int_equal(b1.heat->live_cells, 1);
    assert_false(blade_of(s, "blade2").heat->min_ns.has_value());
    assert_false(from_json<StatusSnapshot>(h.ask(R"({"op": "status"})", kT0, false), "t").blades[0].heat.has_value());

    // Metrics: the deviating cell with its three values, the blade's aggregates.
    std::string m = from_json<MetricsAnswer>(h.ask(R"({"op": "metrics"})", kT0 + 5), "t").text;
    const std::string cell = "morpheus_heat_cell_latency_seconds{pod=\"pod1\",blade=\"blade1\",value=";
    assert_true(std::fabs(metric_value(m, cell + "\"measured\"}") - 400e-9) <= 1e-12);
    assert_true(std::fabs(metric_value(m, cell + "\"static\"}") - 200e-9) <= 1e-12);
    assert_true(std::fabs(metric_value(m, cell + "\"used\"}") - 400e-9) <= 1e-12);
    assert_true(std::fabs(metric_value(m, "morpheus_heat_blade_worst_ratio{blade=\"blade1\"}") - 2) <= 1e-12);
    assert_true(std::fabs(metric_value(m, "morpheus_heat_blade_cells{blade=\"blade1\",state=\"fresh\"}") - 1) <= 1e-12);
    assert_true(std::fabs(metric_value(m, "morpheus_heat_cells{state=\"live\"}") - 1) <= 1e-12);
    assert_int_equal(count_lines(m, "morpheus_heat_blade_cells{"), 3);  // blade1 only: no other was measured

    // Probes stop: past HeatMapStale the cell reads stale, with no measured figure, and after the
    // next settle round placement is back on the static value.
    v = from_json<HeatMapView>(h.ask(R"({"op": "fabric", "live": true})", kT0 + 700), "t");
    assert_int_equal(v.cells.size(), 1);
    assert_string_equal(v.cells[0].state.c_str(), "stale");
    assert_false(v.cells[0].measured_ns.has_value());
    assert_int_equal(v.cells[0].age_s.value_or(-1), 700);
    assert_int_equal(v.cells_fresh, 0);
    assert_true(h.engine->settle_heat_map(kT0 + 700));
    v = from_json<HeatMapView>(h.ask(R"({"op": "fabric", "live": true})", kT0 + 700), "t");
    assert_int_equal(v.cells[0].used_ns, 200);
    assert_false(v.cells[0].live);
    s = from_json<StatusSnapshot>(h.ask(R"({"op": "status"})", kT0 + 700), "t");
    assert_int_equal(blade_of(s, "blade1").heat->stale_cells, 1);
    assert_int_equal(blade_of(s, "blade1").heat->fresh_cells, 0);
    m = from_json<MetricsAnswer>(h.ask(R"({"op": "metrics"})", kT0 + 700), "t").text;
    assert_int_equal(count_lines(m, "morpheus_heat_cell_latency_seconds{"), 0);
}

// Every cell deviates; /metrics keeps HeatMapMetricCells of them (the farthest first) and says
// how many it left out, so the series count stays bounded whatever the fabric's size.
static void heat_metrics_stay_under_the_cell_cap(void **) {
    HeatEngine h;
    const Fabric &f = h.engine->model().fabric();
    for (uint32_t n = 0; n < f.node_names.size(); ++n)
        for (uint32_t b = 0; b < f.blades.size(); ++b) {
            const uint32_t pod = f.node_pod[n], prior = h.engine->model().latency().static_latency(pod, b);
            // blade8 from pod4 the farthest off: it must be among those kept.
            const uint32_t ns = pod == 3 && b == 7 ? prior * 4 : prior * 2 + b;
            h.engine->report_latency(f.node_names[n], f.blades[b].name, ns, kT0);
        }
    for (uint32_t cap : {0u, 5u, 256u}) {
        std::string m = from_json<MetricsAnswer>(h.ask(R"({"op": "metrics"})", kT0, true, cap), "t").text;
        const size_t kept = std::min<size_t>(cap, 32);
        assert_int_equal(count_lines(m, "morpheus_heat_cell_latency_seconds{"), 3 * kept);
        assert_non_null(std::strstr(m.c_str(), "morpheus_heat_cells_deviating 32\n"));
        const std::string left = "morpheus_heat_cells_unexported " + std::to_string(32 - kept) + "\n";
        assert_non_null(std::strstr(m.c_str(), left.c_str()));
        // Per blade, four series each, whatever the number of pods.
        assert_int_equal(count_lines(m, "morpheus_heat_blade_cells{"), 3 * 8);
        assert_int_equal(count_lines(m, "morpheus_heat_blade_worst_ratio{"), 8);
        if (cap)
            assert_non_null(std::strstr(
                m.c_str(), "morpheus_heat_cell_latency_seconds{pod=\"pod4\",blade=\"blade8\",value=\"measured\"}"));
    }
    // The cap is morpheus.conf's HeatMapMetricCells; a value past its range is refused.
    const std::string kConf = "FabricFile=/f.json\nInventoryFile=/i.json\n";
    expect_input_error([&] { parse_config(kConf + "HeatMapMetricCells=100001\n", "m.conf"); }, {"HeatMapMetricCells"});
    assert_int_equal(parse_config(kConf + "HeatMapMetricCells=7\n", "m.conf").heat_metric_cells, 7);
    assert_int_equal(parse_config(kConf, "m.conf").heat_metric_cells, 256);
}

int main(int argc, char **argv) {
    if (argc > 1) cmocka_set_test_filter(argv[1]);  // e.g. one test by name
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_client_answered_among_500_hostile),
        cmocka_unit_test(slow_client_cut_off_at_deadline),
        cmocka_unit_test(oversized_request_refused_before_decoding),
        cmocka_unit_test(client_that_never_reads_is_dropped),
        cmocka_unit_test(stop_is_prompt_with_connections_open),
        cmocka_unit_test(connection_cap_drops_the_oldest),
        cmocka_unit_test(private_jobs_and_explain),
        cmocka_unit_test(live_fabric_shows_measured_then_stale),
        cmocka_unit_test(heat_metrics_stay_under_the_cell_cap),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
