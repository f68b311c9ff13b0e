// Status service over TCP with munge authentication (one request per connection).
#include "status_service.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <munge.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "input_error.hpp"

namespace morpheus {

namespace {

constexpr size_t kMaxRequest = 64 * 1024;
constexpr int kIoTimeoutMs = 3000;

std::string error_reply(const std::string &message) {
    std::string escaped;
    for (char c : message) {
        if (c == '"' || c == '\\') escaped += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) escaped += c;
    }
    return "{\"error\": \"" + escaped + "\"}\n";
}

bool read_line(int fd, std::string &out) {
    char buf[4096];
    while (out.size() < kMaxRequest) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, kIoTimeoutMs) <= 0) return false;
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) return !out.empty() && n == 0;
        out.append(buf, static_cast<size_t>(n));
        size_t nl = out.find('\n');
        if (nl != std::string::npos) {
            out.resize(nl);
            return true;
        }
    }
    return false;
}

void write_all(int fd, const std::string &s) {
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        off += static_cast<size_t>(n);
    }
}

}  // namespace

StatusService::StatusService(uint16_t port, std::vector<uint32_t> privileged_uids, Answer answer)
    : port_(port), privileged_(std::move(privileged_uids)), answer_(std::move(answer)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw InputError("", "StatusPort", std::string("socket: ") + std::strerror(errno));
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    addr.sin_port = htons(port);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0) {
        int e = errno;
        ::close(listen_fd_);
        throw InputError("", "StatusPort=" + std::to_string(port), std::string("cannot listen: ") + std::strerror(e),
                         "choose a free port");
    }
    if (::pipe2(wake_pipe_, O_CLOEXEC) != 0) {
        ::close(listen_fd_);
        throw InputError("", "StatusPort", std::string("pipe: ") + std::strerror(errno));
    }
    thread_ = std::thread([this] { serve(); });
}

StatusService::~StatusService() {
    stop_ = true;
    if (wake_pipe_[1] >= 0) {
        char c = 0;
        (void)!::write(wake_pipe_[1], &c, 1);
    }
    if (thread_.joinable()) thread_.join();
    for (int fd : {listen_fd_, wake_pipe_[0], wake_pipe_[1]})
        if (fd >= 0) ::close(fd);
}

void StatusService::serve() {
    while (!stop_) {
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[1].revents) return;
        if (!(fds[0].revents & POLLIN)) continue;
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        handle(fd);  // one at a time: answers are small and the engine lock serialises anyway
        ::close(fd);
    }
}

void StatusService::handle(int fd) {
    std::string cred;
    if (!read_line(fd, cred)) {
        write_all(fd, error_reply("no request"));
        return;
    }
    void *payload = nullptr;
    int len = 0;
    uid_t uid;
    gid_t gid;
    munge_err_t e = munge_decode(cred.c_str(), nullptr, &payload, &len, &uid, &gid);
    if (e != EMUNGE_SUCCESS) {
        std::free(payload);
        write_all(fd, error_reply(std::string("authentication failed: ") + munge_strerror(e)));
        return;
    }
    std::string query(static_cast<const char *>(payload), static_cast<size_t>(len));
    std::free(payload);
    bool privileged = uid == 0 || std::find(privileged_.begin(), privileged_.end(), uid) != privileged_.end();
    std::string reply;
    try {
        reply = answer_(uid, privileged, query);
    } catch (...) {
        reply = error_reply("internal error");
    }
    write_all(fd, reply);
}

std::string query_status_service(const std::string &host, uint16_t port, const std::string &query_json) {
    char *cred = nullptr;
    munge_err_t e = munge_encode(&cred, nullptr, query_json.data(), static_cast<int>(query_json.size()));
    if (e != EMUNGE_SUCCESS) {
        std::free(cred);
        throw InputError("", "munge", std::string("cannot create a credential: ") + munge_strerror(e),
                         "check that munged runs on this host");
    }
    std::string line = std::string(cred) + "\n";
    std::free(cred);

    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    std::string service = std::to_string(port);
    if (getaddrinfo(host.c_str(), service.c_str(), &hints, &res) != 0 || !res)
        throw InputError("", host, "cannot resolve the status host", "give --server HOST:PORT");
    int fd = -1;
    for (addrinfo *a = res; a; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        throw InputError("", host + ":" + service, std::string("cannot connect: ") + std::strerror(errno),
                         "is slurmctld running with select/morpheus and StatusPort set?");
    write_all(fd, line);
    ::shutdown(fd, SHUT_WR);
    std::string reply;
    char buf[16384];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 10000) <= 0) break;
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        reply.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    if (reply.empty()) throw InputError("", host + ":" + service, "no answer from the status service");
    return reply;
}

}  // namespace morpheus
