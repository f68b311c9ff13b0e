// The status views' wire format: each typed value written to JSON and read back, the writer and
// the reader side by side, so a field's name and place are stated once. The documents are what
// the status service, the CLI's --json/--yaml, the C ABI and users' scripts see: keys, their
// order and their values stay as they are.
#include <jansson.h>

#include <cstdint>
#include <functional>
#include <limits>

#include "input_error.hpp"
#include "json_document.hpp"
#include "status_model.hpp"

namespace morpheus {

namespace {

// Writing.
json_t *count(uint64_t v) { return json_integer(static_cast<json_int_t>(v)); }
json_t *text(const std::string &s) { return json_string(s.c_str()); }
void put(json_t *o, const char *key, json_t *v) { json_object_set_new(o, key, v); }
json_t *array_of(size_t n, const std::function<json_t *(size_t)> &element) {
    json_t *a = json_array();
    for (size_t i = 0; i < n; ++i) json_array_append_new(a, element(i));
    return a;
}
template <class T>
json_t *array_of(const std::vector<T> &items) {
    return array_of(items.size(), [&](size_t i) { return to_json(items[i]); });
}

// Reading: every member required unless said otherwise; a wrong type names its JSON path.
uint64_t count(const JsonValue &o, const char *key) { return o.member(key).as_count(); }
uint32_t count32(const JsonValue &o, const char *key) {
    return static_cast<uint32_t>(o.member(key).as_count(std::numeric_limits<uint32_t>::max()));
}
int64_t seconds(const JsonValue &o, const char *key) {
    return static_cast<int64_t>(o.member(key).as_count(std::numeric_limits<int64_t>::max()));
}
std::string text(const JsonValue &o, const char *key) { return o.member(key).as_text(); }
template <class T>
void read_array(const JsonValue &o, const char *key, std::vector<T> &out) {
    for (const JsonValue &e : o.member(key).elements()) from_json(e, out.emplace_back());
}
std::optional<uint32_t> latency_or_null(const JsonValue &v) {
    if (v.is_null()) return std::nullopt;
    return static_cast<uint32_t>(v.as_count(std::numeric_limits<uint32_t>::max()));
}
json_t *latency_or_null(const std::optional<uint32_t> &ns) { return ns ? json_integer(*ns) : json_null(); }

}  // namespace

// Segments: what a job holds on one blade.
json_t *to_json(const SegmentStatus &s) {
    json_t *o = json_object();
    put(o, "blade", text(s.blade));
    put(o, "use", text(s.use));
    put(o, "tier", text(s.tier));
    put(o, "bytes", count(s.bytes));
    put(o, "latency_ns", json_integer(s.latency_ns));
    put(o, "pod", text(s.pod));
    return o;
}
static void from_json(const JsonValue &o, SegmentStatus &s) {
    s.blade = text(o, "blade");
    s.use = text(o, "use");
    s.tier = text(o, "tier");
    s.bytes = count(o, "bytes");
    s.latency_ns = count32(o, "latency_ns");
    s.pod = text(o, "pod");
}

// Jobs: the id and owner always; the detail for those who may see it; state, reason and user
// in the jobs view.
static json_t *to_json(const JobStatus &j) {
    json_t *o = json_object();
    put(o, "job_id", count(j.job_id));
    put(o, "uid", json_integer(j.uid));
    if (j.detail) {
        const JobDetail &d = *j.detail;
        put(o, "pods", text(d.pods));
        put(o, "since", json_integer(d.since));
        put(o, "nodes", text(d.nodes));
        put(o, "hot_latency_bound_ns", count(d.hot_latency_bound_ns));
        put(o, "affected", json_boolean(d.affected));
        put(o, "segments", array_of(d.segments));
    }
    if (j.state) put(o, "state", text(*j.state));
    if (j.reason) put(o, "reason", text(*j.reason));
    if (j.user) put(o, "user", text(*j.user));
    return o;
}
static void from_json(const JsonValue &o, JobStatus &j) {
    j.job_id = count(o, "job_id");
    j.uid = count32(o, "uid");
    if (o.has("segments")) {
        JobDetail d;
        d.pods = text(o, "pods");
        d.since = seconds(o, "since");
        d.nodes = text(o, "nodes");
        d.hot_latency_bound_ns = count(o, "hot_latency_bound_ns");
        d.affected = o.member("affected").as_bool();
        read_array(o, "segments", d.segments);
        j.detail = std::move(d);
    }
    if (o.has("state")) j.state = text(o, "state");
    if (o.has("reason")) j.reason = text(o, "reason");
    if (o.has("user")) j.user = text(o, "user");
}

// Blades: state, load, the reason and time of a state change when there is one, and per tier
// capacity, reserved and free.
static json_t *to_json(const TierStatus &t) {
    json_t *o = json_object();
    put(o, "capacity", count(t.capacity));
    put(o, "reserved", count(t.reserved));
    put(o, "free", count(t.free));
    return o;
}
static void from_json(const JsonValue &o, TierStatus &t) {
    t.capacity = count(o, "capacity");
    t.reserved = count(o, "reserved");
    t.free = count(o, "free");
}
static json_t *to_json(const BladeStatus &b) {
    json_t *o = json_object();
    put(o, "blade", text(b.blade));
    put(o, "state", text(b.state));
    put(o, "load", json_real(b.load));
    if (!b.reason.empty()) put(o, "reason", text(b.reason));
    if (b.since) put(o, "since", json_integer(b.since));
    put(o, "dram", to_json(b.dram));
    put(o, "pmem", to_json(b.pmem));
    return o;
}
static void from_json(const JsonValue &o, BladeStatus &b) {
    b.blade = text(o, "blade");
    b.state = text(o, "state");
    b.load = o.member("load").as_number();
    if (o.has("reason")) b.reason = text(o, "reason");
    if (o.has("since")) b.since = seconds(o, "since");
    from_json(o.member("dram"), b.dram);
    from_json(o.member("pmem"), b.pmem);
}

// Pods: hot memory within DefaultHotLatency, the nearest blade, free hot memory by bound.
static json_t *to_json(const HotClass &c) {
    json_t *o = json_object();
    put(o, "bound_ns", count(c.bound_ns));
    put(o, "free", count(c.free));
    return o;
}
static void from_json(const JsonValue &o, HotClass &c) {
    c.bound_ns = count(o, "bound_ns");
    c.free = count(o, "free");
}
static json_t *to_json(const PodStatus &p) {
    json_t *o = json_object();
    put(o, "pod", text(p.pod));
    put(o, "nodes", text(p.nodes));
    put(o, "node_count", json_integer(p.node_count));
    put(o, "hot_bound_ns", count(p.hot_bound_ns));
    put(o, "hot_blades", json_integer(p.hot_blades));
    put(o, "hot_capacity", count(p.hot_capacity));
    put(o, "hot_reserved", count(p.hot_reserved));
    put(o, "hot_free", count(p.hot_free));
    put(o, "nearest_blade_ns", latency_or_null(p.nearest_blade_ns));
    put(o, "hot_free_by_class", array_of(p.hot_free_by_class));
    return o;
}
static void from_json(const JsonValue &o, PodStatus &p) {
    p.pod = text(o, "pod");
    p.nodes = text(o, "nodes");
    p.node_count = count32(o, "node_count");
    p.hot_bound_ns = count(o, "hot_bound_ns");
    p.hot_blades = count32(o, "hot_blades");
    p.hot_capacity = count(o, "hot_capacity");
    p.hot_reserved = count(o, "hot_reserved");
    p.hot_free = count(o, "hot_free");
    p.nearest_blade_ns = latency_or_null(o.member("nearest_blade_ns"));
    read_array(o, "hot_free_by_class", p.hot_free_by_class);
}

// The status op.
json_t *to_json(const StatusSnapshot &s) {
    json_t *o = json_object();
    put(o, "fabric", text(s.fabric));
    put(o, "inventory", text(s.inventory));
    put(o, "default_hot_latency_ns", count(s.default_hot_latency_ns));
    put(o, "blades", array_of(s.blades));
    put(o, "pods", array_of(s.pods));
    put(o, "jobs", array_of(s.jobs));
    return o;
}
static void from_json(const JsonValue &o, StatusSnapshot &s) {
    s.fabric = text(o, "fabric");
    s.inventory = text(o, "inventory");
    s.default_hot_latency_ns = count(o, "default_hot_latency_ns");
    read_array(o, "blades", s.blades);
    read_array(o, "pods", s.pods);
    read_array(o, "jobs", s.jobs);
}

// The jobs op.
json_t *to_json(const JobList &j) {
    json_t *o = json_object();
    put(o, "jobs", array_of(j.jobs));
    return o;
}
static void from_json(const JsonValue &o, JobList &j) { read_array(o, "jobs", j.jobs); }

// The fabric op: pods down, blades across, null where a blade is unreachable.
static json_t *to_json(const FabricPod &p) {
    json_t *o = json_object();
    put(o, "pod", text(p.pod));
    put(o, "nodes", text(p.nodes));
    return o;
}
static void from_json(const JsonValue &o, FabricPod &p) {
    p.pod = text(o, "pod");
    p.nodes = text(o, "nodes");
}
static json_t *to_json(const FabricBlade &b) {
    json_t *o = json_object();
    put(o, "blade", text(b.blade));
    put(o, "state", text(b.state));
    put(o, "dram_free", count(b.dram_free));
    return o;
}
static void from_json(const JsonValue &o, FabricBlade &b) {
    b.blade = text(o, "blade");
    b.state = text(o, "state");
    b.dram_free = count(o, "dram_free");
}
json_t *to_json(const FabricMatrix &f) {
    json_t *o = json_object();
    put(o, "hot_bound_ns", count(f.hot_bound_ns));
    put(o, "pods", array_of(f.pods));
    put(o, "blades", array_of(f.blades));
    put(o, "latency_ns", array_of(f.latency_ns.size(), [&](size_t p) {
            return array_of(f.latency_ns[p].size(), [&](size_t b) { return latency_or_null(f.latency_ns[p][b]); });
        }));
    return o;
}
static void from_json(const JsonValue &o, FabricMatrix &f) {
    f.hot_bound_ns = count(o, "hot_bound_ns");
    read_array(o, "pods", f.pods);
    read_array(o, "blades", f.blades);
    std::vector<JsonValue> rows = o.member("latency_ns").elements();
    if (rows.size() != f.pods.size()) o.member("latency_ns").fail("expected one row per pod");
    for (const JsonValue &row : rows) {
        std::vector<JsonValue> cells = row.elements();
        if (cells.size() != f.blades.size()) row.fail("expected one latency per blade");
        auto &out = f.latency_ns.emplace_back();
        for (const JsonValue &cell : cells) out.push_back(latency_or_null(cell));
    }
}

// The explain op.
json_t *to_json(const ExplainAnswer &e) {
    json_t *o = json_object();
    put(o, "job_id", count(e.job_id));
    put(o, "uid", json_integer(e.uid));
    if (e.decision) {
        put(o, "verdict", text(e.decision->verdict));
        put(o, "reason", text(e.decision->reason));
        put(o, "when", json_integer(e.decision->when));
        put(o, "explanation", text(e.decision->explanation));
    }
    if (e.holding) put(o, "holding", text(*e.holding));
    return o;
}
static void from_json(const JsonValue &o, ExplainAnswer &e) {
    e.job_id = count(o, "job_id");
    e.uid = count32(o, "uid");
    if (o.has("verdict"))
        e.decision = ExplainDecision{text(o, "verdict"), text(o, "reason"), seconds(o, "when"), text(o, "explanation")};
    if (o.has("holding")) e.holding = text(o, "holding");
}

// The metrics op.
json_t *to_json(const MetricsAnswer &m) {
    json_t *o = json_object();
    put(o, "metrics", text(m.text));
    return o;
}
static void from_json(const JsonValue &o, MetricsAnswer &m) { m.text = text(o, "metrics"); }

// Errors.
std::string error_document(const std::string &message) {
    json_t *o = json_object();
    put(o, "error", text(message));
    return document_text(o);
}

template <class T>
T from_json(const std::string &answer, const std::string &source) {
    std::optional<JsonDocument> doc;
    try {
        doc.emplace(JsonDocument::load_string(answer, source));
    } catch (const InputError &e) {
        throw InputError(source, "", "unreadable answer: " + e.problem() + " at " + e.where());
    }
    JsonValue root = doc->root();
    if (!root.is_object()) root.fail("the answer is not a JSON object");
    if (root.has("error") && root.member("error").is_string()) throw InputError(source, "", text(root, "error"));
    T out;
    from_json(root, out);
    return out;
}
template StatusSnapshot from_json<StatusSnapshot>(const std::string &, const std::string &);
template JobList from_json<JobList>(const std::string &, const std::string &);
template FabricMatrix from_json<FabricMatrix>(const std::string &, const std::string &);
template ExplainAnswer from_json<ExplainAnswer>(const std::string &, const std::string &);
template MetricsAnswer from_json<MetricsAnswer>(const std::string &, const std::string &);

}  // namespace morpheus
