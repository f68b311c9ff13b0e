// The status service under hostile clients (idle, slow, never reading, oversized), with a stand-in
// authenticator so no munged is needed; and what an unprivileged viewer may see of others' jobs.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "engine.hpp"
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
std::string answer(uint32_t uid, bool privileged, const std::string &query) {
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
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
