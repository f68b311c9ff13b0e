// StatusService: a small TCP service (a thread inside slurmctld) answering status queries.
// Every request carries a munge credential whose payload is the query; the service decodes it
// to learn the caller's uid. Unauthenticated, forged or replayed requests get nothing but an
// error.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace morpheus {

class StatusService {
public:
    // answer(uid, privileged, query_json) -> response JSON.
    using Answer = std::function<std::string(uint32_t, bool, const std::string &)>;

    // Binds 0.0.0.0:port (throws InputError when it cannot) and starts the thread.
    StatusService(uint16_t port, std::vector<uint32_t> privileged_uids, Answer answer);
    ~StatusService();  // stops and joins
    StatusService(const StatusService &) = delete;
    StatusService &operator=(const StatusService &) = delete;

    uint16_t port() const { return port_; }

private:
    void serve();
    void handle(int fd);
    uint16_t port_;
    std::vector<uint32_t> privileged_;
    Answer answer_;
    int listen_fd_ = -1;
    int wake_pipe_[2] = {-1, -1};
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// Client side: sends `query_json` with a fresh munge credential to host:port and returns the
// response. Throws InputError when the service cannot be reached or munge fails.
std::string query_status_service(const std::string &host, uint16_t port, const std::string &query_json);

}  // namespace morpheus
