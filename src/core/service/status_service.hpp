// StatusService: a small TCP service (a thread inside slurmctld) answering status queries.
// Every request carries a munge credential whose payload is the query; the service decodes it
// to learn the caller's uid. Unauthenticated, forged or replayed requests get nothing but an
// error. One thread runs an event loop over non-blocking sockets, so no client, however slow
// or hostile, holds up another or the thread that stops the service.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace morpheus {

// What one caller proved: its uid, the query it signed, and the host it signed it on.
struct Credential {
    uint32_t uid = 0;
    std::string payload;
    // The IPv4 address munged put in the credential (the encoding host's own, not the
    // client's choice), dotted; "" when unknown. Node-only reports check it (node_addresses.hpp).
    std::string origin;
};

struct StatusServiceOptions {
    // Authenticates one request line: fills `out` and returns "" or returns why it failed.
    using Authenticator = std::function<std::string(const std::string &line, Credential &out)>;

    std::string address = "127.0.0.1";  // IPv4/IPv6 literal or host name; "0.0.0.0" or "::" for all
    uint16_t port = 0;  // 0: any free port (tests)
    std::vector<uint32_t> privileged_uids;  // besides root
    bool private_jobs = false;  // Slurm's PrivateData=jobs
    int request_deadline_ms = 2000;  // accept to the full request line
    int reply_deadline_ms = 5000;  // the whole reply sent (a client that never reads goes)
    size_t max_request = 8192;  // bytes of the request line, checked before decoding
    size_t max_connections = 128;  // open at once; over it the oldest is dropped
    Authenticator authenticate;  // empty: munge_decode
    // HTTP instead of munge lines: GET /metrics only, no authentication, so answer() must
    // give aggregate figures only (the Prometheus endpoint, MetricsPort=). The request ends
    // at the blank line after the headers; the same deadlines and caps apply.
    bool http = false;
};

class StatusService {
public:
    // answer(caller, privileged) -> response JSON; caller.payload is the query.
    using Answer = std::function<std::string(const Credential &, bool)>;

    // Binds options.address:options.port (throws InputError when it cannot) and starts the thread.
    StatusService(StatusServiceOptions options, Answer answer);
    ~StatusService();  // stops and joins; returns promptly whatever the clients do
    StatusService(const StatusService &) = delete;
    StatusService &operator=(const StatusService &) = delete;

    uint16_t port() const { return port_; }
    const StatusServiceOptions &options() const { return options_; }

    struct Connection;  // one client's state, defined in the .cpp

private:
    void serve();
    void on_request(Connection &c);
    std::string answer_http(const std::string &request);
    StatusServiceOptions options_;
    Answer answer_;
    uint16_t port_ = 0;
    int listen_fd_ = -1;
    int wake_pipe_[2] = {-1, -1};
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// Client side: sends `query_json` with a fresh munge credential to host:port and returns the
// response. Throws InputError when the service cannot be reached or munge fails.
std::string query_status_service(const std::string &host, uint16_t port, const std::string &query_json);

}  // namespace morpheus
