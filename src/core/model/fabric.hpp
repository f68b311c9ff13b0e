// The fabric map: compute pods (with their nodes), switches, memory blades and the links that
// join them, as read from the admin's fabric JSON (see morpheus-fabric(5)).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace morpheus {

enum class VertexKind : uint8_t { Pod, Switch, Blade };

struct Pod {
    std::string name;
    uint32_t first_node = 0;  // nodes of a pod are numbered contiguously
    uint32_t node_count = 0;
    uint32_t gpus_per_node = 0;
    uint64_t node_latency_ns = 0;  // from a node to the pod's own switch port, added to every path
    std::string nodes_expr;  // the hostlist as written
};

struct Switch {
    std::string name;
    std::string tier;  // "leaf", "spine", ... (free text, for people)
};

struct Blade {
    std::string name;
};

struct Link {
    uint32_t from = 0, to = 0;  // vertex ids
    uint64_t latency_ns = 0;
    double bandwidth_gbps = 0;
    // The link's tier (what morpheus.conf's CheckpointShare is set per): the link's own
    // "tier", else the tier of the switch it goes to, else of the switch it comes from, else
    // "default" (morpheus-fabric(5)). An index into Fabric::link_tiers.
    uint32_t tier = 0;
    std::string where;  // JSON path, for messages
};

// A tier of links: its name and the bandwidth a link of it has when the link gives none.
struct LinkTier {
    std::string name;
    double bandwidth_gbps = 0;  // 0: none given, every link of the tier must give its own
};

// What one fabric may hold. Past these, loading alone would take minutes or gigabytes (the
// pod x blade table, the node names), so the reader refuses before building anything.
constexpr size_t kMaxPods = 16384;
constexpr size_t kMaxSwitches = 65536;
constexpr size_t kMaxBlades = 16384;
constexpr size_t kMaxLinks = 1000000;
constexpr size_t kMaxPodBladePairs = 16u << 20;  // entries of the latency table
constexpr size_t kMaxNodes = 1000000;  // over all pods
constexpr size_t kMaxNodeNameBytes = 64u << 20;  // over all pods
constexpr uint64_t kMaxGpusPerNode = 1024;

// Vertices are numbered pods first, then switches, then blades.
class Fabric {
public:
    std::string source;  // file it was read from
    std::string name;
    std::vector<Pod> pods;
    std::vector<Switch> switches;
    std::vector<Blade> blades;
    std::vector<Link> links;
    std::vector<LinkTier> link_tiers;  // declared ones first, then those links name or imply
    // Where the fabric puts bulk (checkpoint) traffic, when it says: the InfiniBand service
    // level and the traffic class (RoCE / IB TClass) a job's checkpoint flows should use; -1:
    // not said ("bulk_traffic" in morpheus-fabric(5)).
    int bulk_service_level = -1;
    int bulk_traffic_class = -1;
    std::vector<std::string> node_names;
    std::vector<uint32_t> node_pod;
    // Per blade: the failure domain it shares with others (a blade's "failure_domain", else the
    // first switch it links to, else its own name): checkpoint replicas go to different ones.
    std::vector<std::string> blade_domain;

    uint32_t vertex_count() const { return static_cast<uint32_t>(pods.size() + switches.size() + blades.size()); }
    uint32_t pod_vertex(uint32_t pod) const { return pod; }
    uint32_t blade_vertex(uint32_t blade) const { return static_cast<uint32_t>(pods.size() + switches.size()) + blade; }
    VertexKind kind_of(uint32_t vertex) const;
    const std::string &vertex_name(uint32_t vertex) const;

    // -1 when the name is not in the fabric.
    int node_index(const std::string &node) const;
    int pod_index(const std::string &pod) const;
    int blade_index(const std::string &blade) const;
    int vertex_index(const std::string &name) const;
    int link_tier_index(const std::string &tier) const;  // -1: no link has it

    uint32_t gpu_count() const;

    void build_indexes();  // after the vectors are filled

private:
    std::unordered_map<std::string, uint32_t> node_by_name_, vertex_by_name_;
};

// Pod, switch, blade and node names: letters, digits, '-', '_' and '.', nothing else, so they
// are safe in slurmctld's log, hostlists and file names. The index of the first other byte,
// or -1 when the name is clean (an empty name gives 0).
int bad_name_byte(const std::string &name);

// Reads and validates a fabric map; throws InputError with file, JSON path and fix.
Fabric read_fabric(const std::string &path);
Fabric parse_fabric(const std::string &json_text, const std::string &name);

}  // namespace morpheus
