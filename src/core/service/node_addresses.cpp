// Slurm's node addresses, resolved once per change, and the rule of node_addresses.hpp.
#include "node_addresses.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>

namespace morpheus {

bool parse_ipv4(const std::string &dotted, uint32_t &out) {
    in_addr a{};
    if (dotted.empty() || inet_pton(AF_INET, dotted.c_str(), &a) != 1) return false;
    out = ntohl(a.s_addr);
    return true;
}

namespace {

std::string dotted(uint32_t ip) {
    in_addr a{};
    a.s_addr = htonl(ip);
    char text[INET_ADDRSTRLEN] = "";
    inet_ntop(AF_INET, &a, text, sizeof text);
    return text;
}

// The IPv4 addresses of a NodeAddr or NodeHostname: a literal as is, a name through the
// resolver (Slurm resolves it the same way to reach the node).
void resolve(const std::string &name, std::vector<uint32_t> &out) {
    uint32_t ip;
    if (name.empty()) return;
    if (parse_ipv4(name, ip)) {
        out.push_back(ip);
        return;
    }
    addrinfo hints{}, *res = nullptr;
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0) return;
    for (addrinfo *a = res; a; a = a->ai_next)
        out.push_back(ntohl(reinterpret_cast<sockaddr_in *>(a->ai_addr)->sin_addr.s_addr));
    freeaddrinfo(res);
}

std::vector<uint32_t> interface_addresses() {
    std::vector<uint32_t> out;
    ifaddrs *list = nullptr;
    if (getifaddrs(&list) != 0) return out;
    for (ifaddrs *i = list; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET)
            out.push_back(ntohl(reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr));
    freeifaddrs(list);
    return out;
}

}  // namespace

void NodeAddresses::update(const std::vector<Entry> &nodes) {
    std::map<std::string, Resolved> next;
    {
        std::lock_guard<std::mutex> g(mutex_);
        for (const Entry &e : nodes) {
            auto old = nodes_.find(e.node);
            if (old != nodes_.end() && old->second.addr == e.addr && old->second.hostname == e.hostname)
                next[e.node] = old->second;
        }
    }
    for (const Entry &e : nodes) {  // unlocked: may wait for the resolver
        Resolved &r = next[e.node];
        if (r.resolved) continue;
        r.addr = e.addr;
        r.hostname = e.hostname;
        // NodeAddr is where slurmctld reaches the node (Slurm makes it NodeHostname when unset);
        // NodeHostname alone may name a shared host (slurmd -N), so it counts only then.
        resolve(e.addr.empty() ? e.hostname : e.addr, r.ipv4);
        r.resolved = true;
    }
    std::vector<uint32_t> here = fixed_local_ ? std::vector<uint32_t>{} : interface_addresses();
    std::lock_guard<std::mutex> g(mutex_);
    nodes_ = std::move(next);
    if (!fixed_local_) local_ = std::move(here);
}

void NodeAddresses::set_local_addresses(const std::vector<std::string> &list) {
    std::lock_guard<std::mutex> g(mutex_);
    local_.clear();
    for (const std::string &d : list) {
        uint32_t ip;
        if (parse_ipv4(d, ip)) local_.push_back(ip);
    }
    fixed_local_ = true;
}

size_t NodeAddresses::size() const {
    std::lock_guard<std::mutex> g(mutex_);
    return nodes_.size();
}

bool NodeAddresses::local(uint32_t ip) const {
    return (ip >> 24) == 127 || std::find(local_.begin(), local_.end(), ip) != local_.end();
}

std::string NodeAddresses::refuse(const std::string &node, const std::string &origin) const {
    uint32_t from;
    if (!parse_ipv4(origin, from))
        return "the credential carries no IPv4 address of the host that made it: a node reports only for itself";
    std::lock_guard<std::mutex> g(mutex_);
    auto it = nodes_.find(node);
    if (it == nodes_.end() || it->second.ipv4.empty())
        return "the controller does not know node " + node + "'s address (NodeAddr) yet";
    const std::vector<uint32_t> &ips = it->second.ipv4;
    const bool node_here = std::any_of(ips.begin(), ips.end(), [&](uint32_t ip) { return local(ip); });
    if (node_here ? local(from) : std::find(ips.begin(), ips.end(), from) != ips.end()) return "";
    return "made on " + dotted(from) + ", not on node " + node + " (NodeAddr " + it->second.addr +
           (node_here ? ", this controller's host" : "") + "): a node reports only for itself";
}

}  // namespace morpheus
