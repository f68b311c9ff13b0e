// Status service over TCP with munge authentication (one request per connection), served by
// one thread's poll() loop: per-connection state, a deadline for the request and one for the
// reply, a size cap checked before any decoding, and a cap on open connections.
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
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "input_error.hpp"

namespace morpheus {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kAcceptBurst = 64;  // accepts per loop turn, so open connections get served too
constexpr auto kAcceptBackoff = std::chrono::milliseconds(100);  // after EMFILE and the like
constexpr size_t kMaxDrain = 64 * 1024;  // bytes read and dropped after a reply, before closing

std::string error_reply(const std::string &message) {
    std::string escaped;
    for (char c : message) {
        if (c == '"' || c == '\\') escaped += '\\';
        if (static_cast<unsigned char>(c) >= 0x20) escaped += c;
    }
    return "{\"error\": \"" + escaped + "\"}\n";
}

std::string http_reply(int code, const char *status, const std::string &body,
                       const char *type = "text/plain; charset=utf-8") {
    return "HTTP/1.1 " + std::to_string(code) + " " + status + "\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

std::string munge_authenticate(const std::string &line, Credential &out) {
    void *payload = nullptr;
    int len = 0;
    uid_t uid;
    gid_t gid;
    // A context, to read the encoding host's address afterwards (MUNGE_OPT_ADDR4).
    munge_ctx_t ctx = munge_ctx_create();
    munge_err_t e = munge_decode(line.c_str(), ctx, &payload, &len, &uid, &gid);
    if (e != EMUNGE_SUCCESS) {
        std::free(payload);
        munge_ctx_destroy(ctx);
        return munge_strerror(e);
    }
    in_addr origin{};
    char dotted[INET_ADDRSTRLEN] = "";
    if (ctx && munge_ctx_get(ctx, MUNGE_OPT_ADDR4, &origin) == EMUNGE_SUCCESS && origin.s_addr != 0)
        inet_ntop(AF_INET, &origin, dotted, sizeof dotted);
    munge_ctx_destroy(ctx);
    out.origin = dotted;
    out.uid = uid;
    out.payload.assign(static_cast<const char *>(payload), static_cast<size_t>(len));
    std::free(payload);
    return "";
}

// Blocking write for the client side.
void write_all(int fd, const std::string &s) {
    size_t off = 0;
    while (off < s.size()) {
        ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        off += static_cast<size_t>(n);
    }
}

int bind_listener(const std::string &address, uint16_t port, uint16_t &bound) {
    std::string where = "StatusAddress=" + address + " StatusPort=" + std::to_string(port);
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    std::string service = std::to_string(port);
    int rc = getaddrinfo(address.empty() ? nullptr : address.c_str(), service.c_str(), &hints, &res);
    if (rc != 0 || !res)
        throw InputError("", where, std::string("cannot resolve the listen address: ") + gai_strerror(rc),
                         "give an address of this host in StatusAddress");
    int fd = -1, e = 0;
    for (addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
            e = errno;
            ::close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        throw InputError("", where, std::string("cannot listen: ") + std::strerror(e),
                         "choose a free port and an address of this host");
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    getsockname(fd, reinterpret_cast<sockaddr *>(&ss), &len);
    bound = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 *>(&ss)->sin6_port
                                           : reinterpret_cast<sockaddr_in *>(&ss)->sin_port);
    return fd;
}

}  // namespace

struct StatusService::Connection {
    enum class Phase { Request, Reply, Drain };
    int fd = -1;
    Phase phase = Phase::Request;
    Clock::time_point deadline;
    std::string in;  // the request line so far
    std::string out;  // the reply
    size_t sent = 0, drained = 0;
};

namespace {

using Connection = StatusService::Connection;

// Sends what the socket takes now; false once the connection is done with (sent or broken).
bool send_some(Connection &c) {
    while (c.sent < c.out.size()) {
        ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
        if (n > 0) {
            c.sent += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
    // Sent: half-close and read what the client still sends, so that closing does not reset
    // the connection (and drop the reply) while its bytes sit unread.
    ::shutdown(c.fd, SHUT_WR);
    c.phase = Connection::Phase::Drain;
    return true;
}

bool drain_some(Connection &c) {
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n > 0) {
            c.drained += static_cast<size_t>(n);
            if (c.drained > kMaxDrain) return false;
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    }
}

}  // namespace

namespace {

enum class ReadResult { More, Line, TooLarge, Gone };

// Reads what has arrived; a line ends at '\n' or at the client's end of stream, an HTTP
// request at the blank line after its headers.
ReadResult read_some(Connection &c, size_t max_request, bool http) {
    char buf[4096];
    for (;;) {
        ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n > 0) {
            size_t before = c.in.size();
            c.in.append(buf, static_cast<size_t>(n));
            size_t nl = std::string::npos;
            if (http) {
                size_t from = before > 3 ? before - 3 : 0, crlf = c.in.find("\r\n\r\n", from),
                       lf = c.in.find("\n\n", from);
                nl = std::min(crlf, lf);
            } else {
                nl = c.in.find('\n', before);
            }
            if (nl != std::string::npos) c.in.resize(nl);
            if (c.in.size() > max_request) return ReadResult::TooLarge;
            if (nl != std::string::npos) return ReadResult::Line;
            continue;
        }
        if (n == 0) return c.in.empty() ? ReadResult::Gone : ReadResult::Line;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? ReadResult::More : ReadResult::Gone;
    }
}

int ms_until(Clock::time_point t, Clock::time_point now) {
    if (t <= now) return 0;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
    return static_cast<int>(std::min<long long>(ms, 60000));
}

}  // namespace

// GET /metrics (a query string is ignored) and nothing else.
std::string StatusService::answer_http(const std::string &request) {
    std::string line = request.substr(0, request.find_first_of("\r\n"));
    size_t sp1 = line.find(' '), sp2 = line.find(' ', sp1 == std::string::npos ? 0 : sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0)
        return http_reply(400, "Bad Request", "not an HTTP request\n");
    std::string method = line.substr(0, sp1), target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    target = target.substr(0, target.find('?'));
    if (method != "GET") return http_reply(405, "Method Not Allowed", "GET /metrics only\n");
    if (target != "/metrics") return http_reply(404, "Not Found", "GET /metrics only\n");
    try {
        return http_reply(200, "OK", answer_(Credential{}, false), "text/plain; version=0.0.4; charset=utf-8");
    } catch (...) {
        return http_reply(500, "Internal Server Error", "internal error\n");
    }
}

StatusService::StatusService(StatusServiceOptions options, Answer answer)
    : options_(std::move(options)), answer_(std::move(answer)) {
    if (!options_.authenticate) options_.authenticate = munge_authenticate;
    if (options_.max_connections == 0) options_.max_connections = 1;
    listen_fd_ = bind_listener(options_.address, options_.port, port_);
    if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
        int e = errno;
        ::close(listen_fd_);
        throw InputError("", "StatusPort", std::string("pipe: ") + std::strerror(e));
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

// Decodes and answers a complete request line; the reply goes out from the loop.
void StatusService::on_request(Connection &c) {
    if (options_.http) {
        c.out = answer_http(c.in);
        return;
    }
    Credential cred;
    std::string why = options_.authenticate(c.in, cred);
    if (!why.empty()) {
        c.out = error_reply("authentication failed: " + why);
        return;
    }
    const auto &p = options_.privileged_uids;
    bool privileged = cred.uid == 0 || std::find(p.begin(), p.end(), cred.uid) != p.end();
    try {
        c.out = answer_(cred, privileged);
    } catch (...) {
        c.out = error_reply("internal error");
    }
}

void StatusService::serve() {
    const auto request_deadline = std::chrono::milliseconds(options_.request_deadline_ms);
    const auto reply_deadline = std::chrono::milliseconds(options_.reply_deadline_ms);
    std::vector<Connection> conns;  // in accept order: the front is the oldest
    std::vector<pollfd> fds;
    Clock::time_point accept_paused_until{};

    auto start_reply = [&](Connection &c) {
        c.phase = Connection::Phase::Reply;
        c.deadline = Clock::now() + reply_deadline;
        return send_some(c);
    };
    auto close_at = [&](size_t i) {
        ::close(conns[i].fd);
        conns.erase(conns.begin() + static_cast<long>(i));
    };

    while (!stop_) {
        Clock::time_point now = Clock::now();
        bool accepting = now >= accept_paused_until;
        Clock::time_point next = accepting ? Clock::time_point::max() : accept_paused_until;
        fds.clear();
        fds.push_back({wake_pipe_[0], POLLIN, 0});
        fds.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});  // poll skips a negative fd
        for (const Connection &c : conns) {
            fds.push_back({c.fd, static_cast<short>(c.phase == Connection::Phase::Reply ? POLLOUT : POLLIN), 0});
            next = std::min(next, c.deadline);
        }
        int timeout = next == Clock::time_point::max() ? -1 : ms_until(next, now);
        if (::poll(fds.data(), fds.size(), timeout) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[0].revents) break;

        // Serve the open connections; drop those done, broken or past their deadline.
        std::vector<bool> done(conns.size(), false);
        for (size_t i = 0; i < conns.size(); ++i) {
            Connection &c = conns[i];
            bool keep = true;
            if (fds[i + 2].revents) {
                if (c.phase == Connection::Phase::Request) {
                    switch (read_some(c, options_.max_request, options_.http)) {
                    case ReadResult::More: break;
                    case ReadResult::Gone: keep = false; break;
                    case ReadResult::TooLarge:
                        // Refused before decoding: a credential is never that long.
                        c.out = options_.http
                                    ? http_reply(431, "Request Header Fields Too Large", "request too large\n")
                                    : error_reply("request too large (over " + std::to_string(options_.max_request) +
                                                  " bytes)");
                        keep = start_reply(c);
                        break;
                    case ReadResult::Line:
                        on_request(c);
                        keep = start_reply(c);
                        break;
                    }
                } else if (c.phase == Connection::Phase::Reply) {
                    keep = send_some(c);
                } else {
                    keep = drain_some(c);
                }
            }
            if (keep && Clock::now() >= c.deadline) keep = false;
            done[i] = !keep;
        }
        for (size_t i = conns.size(); i-- > 0;)
            if (done[i]) close_at(i);

        if (!accepting || !(fds[1].revents & POLLIN)) continue;
        for (int k = 0; k < kAcceptBurst; ++k) {
            int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0) {
                if (errno == EINTR || errno == ECONNABORTED) continue;
                if (errno != EAGAIN && errno != EWOULDBLOCK) {
                    // EMFILE, ENFILE, ENOBUFS, ENOMEM: the listen socket stays readable, so
                    // pause accepting instead of spinning, and free a descriptor.
                    accept_paused_until = Clock::now() + kAcceptBackoff;
                    if (!conns.empty()) close_at(0);
                }
                break;
            }
            if (conns.size() >= options_.max_connections) {
                // The oldest still sending its request goes first, else the oldest at all.
                size_t victim = 0;
                for (size_t i = 0; i < conns.size(); ++i)
                    if (conns[i].phase == Connection::Phase::Request) {
                        victim = i;
                        break;
                    }
                close_at(victim);
            }
            Connection c;
            c.fd = fd;
            c.deadline = Clock::now() + request_deadline;
            conns.push_back(std::move(c));
        }
    }
    for (Connection &c : conns) ::close(c.fd);
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
