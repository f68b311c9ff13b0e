// Fabric JSON reader: every name resolves, every node belongs to one pod, every link joins
// two declared vertices with a positive bandwidth.
#include "fabric.hpp"

#include <algorithm>

#include "hostlist.hpp"
#include "input_error.hpp"
#include "json_document.hpp"

namespace morpheus {

VertexKind Fabric::kind_of(uint32_t v) const {
    if (v < pods.size()) return VertexKind::Pod;
    if (v < pods.size() + switches.size()) return VertexKind::Switch;
    return VertexKind::Blade;
}

const std::string &Fabric::vertex_name(uint32_t v) const {
    if (v < pods.size()) return pods[v].name;
    if (v < pods.size() + switches.size()) return switches[v - pods.size()].name;
    return blades[v - pods.size() - switches.size()].name;
}

int Fabric::node_index(const std::string &node) const {
    auto it = node_by_name_.find(node);
    return it == node_by_name_.end() ? -1 : static_cast<int>(it->second);
}

int Fabric::vertex_index(const std::string &n) const {
    auto it = vertex_by_name_.find(n);
    return it == vertex_by_name_.end() ? -1 : static_cast<int>(it->second);
}

int Fabric::pod_index(const std::string &pod) const {
    int v = vertex_index(pod);
    return v >= 0 && kind_of(v) == VertexKind::Pod ? v : -1;
}

int Fabric::blade_index(const std::string &blade) const {
    int v = vertex_index(blade);
    return v >= 0 && kind_of(v) == VertexKind::Blade ? v - static_cast<int>(pods.size() + switches.size()) : -1;
}

uint32_t Fabric::gpu_count() const {
    uint64_t n = 0;  // at most kMaxNodes x kMaxGpusPerNode: no overflow in 64 bits
    for (const Pod &p : pods) n += uint64_t{p.node_count} * p.gpus_per_node;
    return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
}

void Fabric::build_indexes() {
    node_by_name_.clear();
    vertex_by_name_.clear();
    node_by_name_.reserve(node_names.size());
    for (uint32_t i = 0; i < node_names.size(); ++i) node_by_name_.emplace(node_names[i], i);
    for (uint32_t v = 0; v < vertex_count(); ++v) vertex_by_name_.emplace(vertex_name(v), v);
}

int bad_name_byte(const std::string &name) {
    if (name.empty()) return 0;
    for (size_t i = 0; i < name.size(); ++i) {
        char c = name[i];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            return static_cast<int>(i);
    }
    return -1;
}

namespace {

// Hostlists may also hold brackets, range commas and dashes; the names they expand to then
// have only name characters.
void check_hostlist_chars(const JsonValue &v, const std::string &expr) {
    for (char c : expr)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '[' || c == ']' ||
              c == ','))
            v.fail("hostlist has the byte " + std::to_string(static_cast<unsigned char>(c)) +
                       ", which no node name may hold",
                   "use letters, digits, '-', '_' and '.' in node names, e.g. gpu[0000-0511]");
}

void check_name(const JsonValue &v, const std::string &name) {
    if (name.empty()) v.fail("name must not be empty");
    int at = bad_name_byte(name);
    if (at < 0) return;
    unsigned char c = static_cast<unsigned char>(name[at]);
    v.fail(std::isprint(c) && c < 0x80 ? "name \"" + name + "\" has the character '" + std::string(1, name[at]) + "'"
                                       : "name has the byte " + std::to_string(c) + " at " + std::to_string(at),
           "use letters, digits, '-', '_' and '.' only");
}

Fabric build(const JsonDocument &doc) {
    Fabric f;
    f.source = doc.file();
    JsonValue root = doc.root();
    if (!root.is_object()) root.fail("a fabric map must be a JSON object");
    root.expect_keys({"version", "name", "pods", "switches", "blades", "links"});
    if (root.has("version") && root.member("version").as_count() != 1)
        root.member("version").fail("unsupported version", "use \"version\": 1");
    f.name = root.string_or("name", "");

    std::unordered_map<std::string, std::string> declared;  // name -> JSON path
    auto declare = [&](const JsonValue &v, const std::string &name) {
        check_name(v, name);
        auto [it, fresh] = declared.emplace(name, v.path());
        if (!fresh) v.fail("name \"" + name + "\" is already declared at " + it->second, "give it a unique name");
    };

    // Counted before anything is built: each list, and the pod x blade table they imply.
    size_t pod_count = root.member("pods").elements(kMaxPods, "pods").size();
    size_t blade_count = root.member("blades").elements(kMaxBlades, "blades").size();
    if (root.has("switches")) root.member("switches").elements(kMaxSwitches, "switches");
    root.member("links").elements(kMaxLinks, "links");
    if (pod_count * blade_count > kMaxPodBladePairs)
        root.fail(std::to_string(pod_count) + " pods x " + std::to_string(blade_count) + " blades is more than the " +
                      std::to_string(kMaxPodBladePairs) + " pod-blade pairs Morpheus handles",
                  "split the fabric into smaller ones");

    HostlistLimits node_budget{kMaxNodes, kMaxNodeNameBytes};
    std::unordered_map<std::string, std::string> node_owner;
    for (const JsonValue &p : root.member("pods").elements()) {
        p.expect_keys({"name", "nodes", "gpus_per_node", "node_latency"});
        Pod pod;
        pod.name = p.member("name").as_string();
        declare(p.member("name"), pod.name);
        pod.nodes_expr = p.member("nodes").as_string();
        check_hostlist_chars(p.member("nodes"), pod.nodes_expr);
        std::vector<std::string> nodes;
        try {
            nodes = expand_hostlist(pod.nodes_expr, p.member("nodes").path(), node_budget);
        } catch (const InputError &e) {
            throw InputError(f.source, p.member("nodes").path(), e.problem(),
                             e.fix().empty() ? "write a Slurm hostlist such as gpu[0000-0511]" : e.fix());
        }
        pod.first_node = static_cast<uint32_t>(f.node_names.size());
        pod.node_count = static_cast<uint32_t>(nodes.size());
        pod.gpus_per_node =
            p.has("gpus_per_node") ? static_cast<uint32_t>(p.member("gpus_per_node").as_count(kMaxGpusPerNode)) : 0;
        pod.node_latency_ns = p.has("node_latency") ? p.member("node_latency").as_latency() : 0;
        for (std::string &n : nodes) {
            auto [it, fresh] = node_owner.emplace(n, pod.name);
            if (!fresh)
                p.member("nodes").fail("node " + n + " is already in pod " + it->second, "put each node in one pod");
            f.node_names.push_back(std::move(n));
            f.node_pod.push_back(static_cast<uint32_t>(f.pods.size()));
        }
        f.pods.push_back(std::move(pod));
    }
    if (f.pods.empty()) root.member("pods").fail("no pods declared", "declare at least one pod");

    if (root.has("switches"))
        for (const JsonValue &s : root.member("switches").elements()) {
            s.expect_keys({"name", "tier"});
            Switch sw{s.member("name").as_string(), s.string_or("tier", "")};
            declare(s.member("name"), sw.name);
            f.switches.push_back(std::move(sw));
        }
    for (const JsonValue &b : root.member("blades").elements()) {
        b.expect_keys({"name"});
        Blade blade{b.member("name").as_string()};
        declare(b.member("name"), blade.name);
        f.blades.push_back(std::move(blade));
    }
    f.build_indexes();

    for (const JsonValue &l : root.member("links").elements()) {
        l.expect_keys({"from", "to", "latency", "bandwidth"});
        Link link;
        link.where = l.path();
        std::string a = l.member("from").as_string(), b = l.member("to").as_string();
        int va = f.vertex_index(a), vb = f.vertex_index(b);
        if (va < 0)
            l.member("from").fail("link from \"" + a + "\", which is not a declared pod, switch or blade",
                                  "declare \"" + a + "\" or correct the name");
        if (vb < 0)
            l.member("to").fail("link to \"" + b + "\", which is not a declared pod, switch or blade",
                                "declare \"" + b + "\" or correct the name");
        if (va == vb) l.fail("link joins \"" + a + "\" to itself");
        link.from = static_cast<uint32_t>(va);
        link.to = static_cast<uint32_t>(vb);
        link.latency_ns = l.member("latency").as_latency();
        link.bandwidth_gbps = l.member("bandwidth").as_number();
        if (!(link.bandwidth_gbps > 0))
            l.member("bandwidth").fail("bandwidth must be positive (Gb/s)", "e.g. \"bandwidth\": 400");
        f.links.push_back(std::move(link));
    }
    return f;
}

}  // namespace

Fabric read_fabric(const std::string &path) { return build(JsonDocument::load_file(path)); }

Fabric parse_fabric(const std::string &json_text, const std::string &name) {
    return build(JsonDocument::load_string(json_text, name));
}

}  // namespace morpheus
