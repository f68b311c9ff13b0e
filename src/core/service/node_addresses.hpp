// NodeAddresses: which host may speak for which node in a node-only report (issue 29).
//
// A node-only op (report_latency) names its node; root may sign it on any host the munge key
// reaches, so the name alone proves nothing. The munge credential also carries the address of
// the host that encoded it (munged's own address, MUNGE_OPT_ADDR4), which no client chooses:
// a report is taken only when that address is one of the named node's addresses, as Slurm
// reaches it (NodeAddr, else NodeHostname; pushed by the plugin and resolved here). A node whose
// address is loopback or one of this host's own lives on the controller's host (a test cluster
// of slurmd -N, or a controller that is also a compute node): its reports must come from this
// host, and then nothing tells such nodes apart from each other.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace morpheus {

class NodeAddresses {
public:
    struct Entry {
        std::string node;  // Slurm's NodeName
        std::string addr;  // NodeAddr
        std::string hostname;  // NodeHostname
    };

    // Takes Slurm's table: entries whose NodeAddr and NodeHostname did not change keep their
    // resolution, the others are resolved (IPv4) now, so call it WITHOUT the engine's lock
    // (a host name may mean a DNS query). This host's addresses are looked up again too.
    void update(const std::vector<Entry> &nodes);
    // Tests: this host's addresses, instead of the interfaces' (127.0.0.0/8 is always local).
    void set_local_addresses(const std::vector<std::string> &dotted);

    // "" when a credential encoded on `origin` (dotted IPv4, "" unknown) may speak for
    // `node`; otherwise why not, for the refusal.
    std::string refuse(const std::string &node, const std::string &origin) const;
    size_t size() const;

private:
    struct Resolved {
        std::string addr, hostname;
        std::vector<uint32_t> ipv4;  // host order
        bool resolved = false;
    };
    bool local(uint32_t ip) const;  // holds mutex_
    mutable std::mutex mutex_;
    std::map<std::string, Resolved> nodes_;
    std::vector<uint32_t> local_;
    bool fixed_local_ = false;  // set_local_addresses() was called
};

// "a.b.c.d" -> host order; false when it is not a dotted IPv4 address.
bool parse_ipv4(const std::string &dotted, uint32_t &out);

}  // namespace morpheus
