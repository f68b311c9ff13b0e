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
    uint32_t first_node = 0;   // nodes of a pod are numbered contiguously
    uint32_t node_count = 0;
    uint32_t gpus_per_node = 0;
    uint64_t node_latency_ns = 0;  // from a node to the pod's own switch port, added to every path
    std::string nodes_expr;        // the hostlist as written
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
    std::string where;  // JSON path, for messages
};

// Vertices are numbered pods first, then switches, then blades.
class Fabric {
public:
    std::string source;  // file it was read from
    std::string name;
    std::vector<Pod> pods;
    std::vector<Switch> switches;
    std::vector<Blade> blades;
    std::vector<Link> links;
    std::vector<std::string> node_names;
    std::vector<uint32_t> node_pod;

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

    uint32_t gpu_count() const;

    void build_indexes();  // after the vectors are filled

private:
    std::unordered_map<std::string, uint32_t> node_by_name_, vertex_by_name_;
};

// Reads and validates a fabric map; throws InputError with file, JSON path and fix.
Fabric read_fabric(const std::string &path);
Fabric parse_fabric(const std::string &json_text, const std::string &name);

}  // namespace morpheus
