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

int Fabric::link_tier_index(const std::string &tier) const {
    for (size_t i = 0; i < link_tiers.size(); ++i)
        if (link_tiers[i].name == tier) return static_cast<int>(i);
    return -1;
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
    root.expect_keys({"version", "name", "pods", "switches", "blades", "links", "link_tiers", "bulk_traffic"});
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
    std::vector<std::string> declared_domain;
    for (const JsonValue &b : root.member("blades").elements()) {
        b.expect_keys({"name", "failure_domain"});
        Blade blade{b.member("name").as_string()};
        declare(b.member("name"), blade.name);
        std::string domain;
        if (b.has("failure_domain")) {
            domain = b.member("failure_domain").as_string();
            check_name(b.member("failure_domain"), domain);
        }
        declared_domain.push_back(domain);
        f.blades.push_back(std::move(blade));
    }
    f.build_indexes();

    if (root.has("link_tiers"))
        for (const JsonValue &t : root.member("link_tiers").elements(1024, "link tiers")) {
            t.expect_keys({"name", "bandwidth"});
            LinkTier tier{t.member("name").as_string(), 0};
            check_name(t.member("name"), tier.name);
            if (f.link_tier_index(tier.name) >= 0)
                t.member("name").fail("link tier \"" + tier.name + "\" is declared twice", "declare each tier once");
            if (t.has("bandwidth")) {
                tier.bandwidth_gbps = t.member("bandwidth").as_number();
                if (!(tier.bandwidth_gbps > 0))
                    t.member("bandwidth").fail("bandwidth must be positive (Gb/s)", "e.g. \"bandwidth\": 400");
            }
            f.link_tiers.push_back(std::move(tier));
        }
    if (root.has("bulk_traffic")) {
        JsonValue bt = root.member("bulk_traffic");
        bt.expect_keys({"service_level", "traffic_class"});
        if (bt.has("service_level")) f.bulk_service_level = static_cast<int>(bt.member("service_level").as_count(15));
        if (bt.has("traffic_class")) f.bulk_traffic_class = static_cast<int>(bt.member("traffic_class").as_count(255));
    }
    auto tier_of = [&](const std::string &name) {
        int i = f.link_tier_index(name);
        if (i >= 0) return static_cast<uint32_t>(i);
        f.link_tiers.push_back(LinkTier{name, 0});
        return static_cast<uint32_t>(f.link_tiers.size() - 1);
    };

    for (const JsonValue &l : root.member("links").elements()) {
        l.expect_keys({"from", "to", "latency", "bandwidth", "tier"});
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
        std::string tier;
        if (l.has("tier")) {
            tier = l.member("tier").as_string();
            check_name(l.member("tier"), tier);
        } else {
            auto switch_tier = [&](uint32_t v) {
                return f.kind_of(v) == VertexKind::Switch ? f.switches[v - f.pods.size()].tier : std::string();
            };
            tier = switch_tier(link.to);
            if (tier.empty()) tier = switch_tier(link.from);
            if (tier.empty() || bad_name_byte(tier) >= 0) tier = "default";
        }
        link.tier = tier_of(tier);
        if (l.has("bandwidth")) {
            link.bandwidth_gbps = l.member("bandwidth").as_number();
            if (!(link.bandwidth_gbps > 0))
                l.member("bandwidth").fail("bandwidth must be positive (Gb/s)", "e.g. \"bandwidth\": 400");
        } else {
            link.bandwidth_gbps = f.link_tiers[link.tier].bandwidth_gbps;
            if (!(link.bandwidth_gbps > 0))
                l.fail("link has no bandwidth and its tier \"" + tier + "\" gives none",
                       "add \"bandwidth\": 400 (Gb/s) to the link, or to the tier in \"link_tiers\"");
        }
        f.links.push_back(std::move(link));
    }
    // Failure domains: declared, else the first switch the blade links to, else the blade.
    f.blade_domain.assign(f.blades.size(), "");
    for (size_t b = 0; b < f.blades.size(); ++b) f.blade_domain[b] = declared_domain[b];
    for (const Link &l : f.links)
        for (auto [end, other] : {std::make_pair(l.from, l.to), std::make_pair(l.to, l.from)})
            if (f.kind_of(end) == VertexKind::Blade && f.kind_of(other) == VertexKind::Switch) {
                std::string &d = f.blade_domain[end - f.blade_vertex(0)];
                if (d.empty()) d = "switch:" + f.vertex_name(other);
            }
    for (size_t b = 0; b < f.blades.size(); ++b)
        if (f.blade_domain[b].empty()) f.blade_domain[b] = "blade:" + f.blades[b].name;
    return f;
}

}  // namespace

Fabric read_fabric(const std::string &path) { return build(JsonDocument::load_file(path)); }

Fabric parse_fabric(const std::string &json_text, const std::string &name) {
    return build(JsonDocument::load_string(json_text, name));
}

}  // namespace morpheus
