// The status views' wire format: each typed value's members are listed once (Fields<T>), and
// one writer and one reader walk that list, so a field's name, place and kind are stated once. The documents are what
// the status service, the CLI's --json/--yaml, the C ABI and users' scripts see: keys, their
// order and their values stay as they are.
#include <jansson.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>

#include "input_error.hpp"
#include "json_document.hpp"
#include "status_model.hpp"

namespace morpheus {

namespace {

// The members of each typed value, in the wire format's order. `f` is the Writer or the Reader;
// `S` is the value, const when written. f(key, member) for a member every document has;
// f.unless_default(key, member) for one left out at its default value; f.present_if(key, opt)
// for an optional member; f.group_if(key, opt) for an optional group of members written into
// the same object, present when `key` is.
template <class T>
struct Fields;

template <>
struct Fields<SegmentStatus> {
    template <class F, class S>
    static void visit(F &f, S &s) {
        f("blade", s.blade);
        f("use", s.use);
        f("tier", s.tier);
        f("bytes", s.bytes);
        f("latency_ns", s.latency_ns);
        f("pod", s.pod);
    }
};
template <>
struct Fields<CheckpointStatus> {
    template <class F, class S>
    static void visit(F &f, S &c) {
        f("region", c.region);
        f("period_s", c.period_s);
        f("phase_s", c.phase_s);
        f("window_s", c.window_s);
        f("bytes", c.bytes);
        f("copies", c.copies);
        f("intact", c.intact);
        f.unless_default("waiting", c.waiting);
        f.unless_default("restarts", c.restarts);
        f.unless_default("restore", c.restore);
    }
};
// Jobs: the id and owner always; the detail for those who may see it; state, reason and user
// in the jobs view.
template <>
struct Fields<JobDetail> {
    template <class F, class S>
    static void visit(F &f, S &d) {
        f("pods", d.pods);
        f("since", d.since);
        f("nodes", d.nodes);
        f("hot_latency_bound_ns", d.hot_latency_bound_ns);
        f("affected", d.affected);
        f("segments", d.segments);
        f.present_if("checkpoint", d.checkpoint);
    }
};
template <>
struct Fields<JobStatus> {
    template <class F, class S>
    static void visit(F &f, S &j) {
        f("job_id", j.job_id);
        f("uid", j.uid);
        f.group_if("segments", j.detail);
        f.present_if("state", j.state);
        f.present_if("reason", j.reason);
        f.present_if("user", j.user);
    }
};
// Blades: state, load, the reason and time of a state change when there is one, and per tier
// capacity, reserved and free.
template <>
struct Fields<TierStatus> {
    template <class F, class S>
    static void visit(F &f, S &t) {
        f("capacity", t.capacity);
        f("reserved", t.reserved);
        f("free", t.free);
    }
};
template <>
struct Fields<HeatBand> {
    template <class F, class S>
    static void visit(F &f, S &h) {
        f.present_if("min_ns", h.min_ns);
        f.present_if("max_ns", h.max_ns);
        f("fresh_cells", h.fresh_cells);
        f("stale_cells", h.stale_cells);
        f("live_cells", h.live_cells);
    }
};
template <>
struct Fields<BladeStatus> {
    template <class F, class S>
    static void visit(F &f, S &b) {
        f("blade", b.blade);
        f("state", b.state);
        f("load", b.load);
        f.unless_default("reason", b.reason);
        f.unless_default("since", b.since);
        f("dram", b.dram);
        f("pmem", b.pmem);
        f.present_if("static_min_ns", b.static_min_ns);
        f.present_if("static_max_ns", b.static_max_ns);
        f.present_if("heat", b.heat);
    }
};
// Pods: hot memory within DefaultHotLatency, the nearest blade, free hot memory by bound.
template <>
struct Fields<HotClass> {
    template <class F, class S>
    static void visit(F &f, S &c) {
        f("bound_ns", c.bound_ns);
        f("free", c.free);
    }
};
template <>
struct Fields<PodStatus> {
    template <class F, class S>
    static void visit(F &f, S &p) {
        f("pod", p.pod);
        f("nodes", p.nodes);
        f("node_count", p.node_count);
        f("hot_bound_ns", p.hot_bound_ns);
        f("hot_blades", p.hot_blades);
        f("hot_capacity", p.hot_capacity);
        f("hot_reserved", p.hot_reserved);
        f("hot_free", p.hot_free);
        f("nearest_blade_ns", p.nearest_blade_ns);
        f("hot_free_by_class", p.hot_free_by_class);
    }
};
// The status op.
template <>
struct Fields<StatusSnapshot> {
    template <class F, class S>
    static void visit(F &f, S &s) {
        f("fabric", s.fabric);
        f("inventory", s.inventory);
        f("default_hot_latency_ns", s.default_hot_latency_ns);
        f("blades", s.blades);
        f("pods", s.pods);
        f("jobs", s.jobs);
    }
};
// The jobs op.
template <>
struct Fields<JobList> {
    template <class F, class S>
    static void visit(F &f, S &j) {
        f("jobs", j.jobs);
    }
};
// The fabric op: pods down, blades across, null where a blade is unreachable.
template <>
struct Fields<FabricPod> {
    template <class F, class S>
    static void visit(F &f, S &p) {
        f("pod", p.pod);
        f("nodes", p.nodes);
    }
};
template <>
struct Fields<FabricBlade> {
    template <class F, class S>
    static void visit(F &f, S &b) {
        f("blade", b.blade);
        f("state", b.state);
        f("dram_free", b.dram_free);
    }
};
template <>
struct Fields<FabricMatrix> {
    template <class F, class S>
    static void visit(F &f, S &m) {
        f("hot_bound_ns", m.hot_bound_ns);
        f("pods", m.pods);
        f("blades", m.blades);
        f("latency_ns", m.latency_ns);
    }
};
// The fabric op with "live": the heat map's cells.
template <>
struct Fields<HeatCellStatus> {
    template <class F, class S>
    static void visit(F &f, S &c) {
        f("pod", c.pod);
        f("blade", c.blade);
        f("state", c.state);
        f.present_if("measured_ns", c.measured_ns);
        f.present_if("p50_ns", c.p50_ns);
        f.present_if("p99_ns", c.p99_ns);
        f("static_ns", c.static_ns);
        f("used_ns", c.used_ns);
        f("live", c.live);
        f("samples", c.samples);
        f("nodes", c.nodes);
        f.present_if("age_s", c.age_s);
    }
};
template <>
struct Fields<HeatMapView> {
    template <class F, class S>
    static void visit(F &f, S &h) {
        f("figure", h.figure);
        f("now", h.now);
        f("stale_s", h.stale_s);
        f("window_s", h.window_s);
        f("hysteresis", h.hysteresis);
        f("rounds", h.rounds);
        f("cells_reachable", h.cells_reachable);
        f("cells_measured", h.cells_measured);
        f("cells_fresh", h.cells_fresh);
        f("cells_live", h.cells_live);
        f("cells_matched", h.cells_matched);
        f("cells", h.cells);
    }
};
// The links op.
template <>
struct Fields<LinkHolder> {
    template <class F, class S>
    static void visit(F &f, S &h) {
        f("job_id", h.job_id);
        f("uid", h.uid);
        f("rate", h.rate);
        f("period_s", h.period_s);
        f("phase_s", h.phase_s);
        f("window_s", h.window_s);
    }
};
template <>
struct Fields<LinkSpan> {
    template <class F, class S>
    static void visit(F &f, S &p) {
        f("start", p.start);
        f("end", p.end);
        f("booked", p.booked);
    }
};
template <>
struct Fields<LinkBookingStatus> {
    template <class F, class S>
    static void visit(F &f, S &k) {
        f("index", k.index);
        f("from", k.from);
        f("to", k.to);
        f("tier", k.tier);
        f("bandwidth", k.bandwidth);
        f("share", k.share);
        f("capacity", k.capacity);
        f("peak", k.peak);
        f("others", k.others);
        f("holders", k.holders);
        f("load", k.load);
    }
};
template <>
struct Fields<LinkBookView> {
    template <class F, class S>
    static void visit(F &f, S &v) {
        f("now", v.now);
        f("from", v.from);
        f("horizon_s", v.horizon_s);
        f("slot_s", v.slot_s);
        f("cycle_s", v.cycle_s);
        f("windows", v.windows);
        f("links_matched", v.links_matched);
        f("links", v.links);
    }
};
// The explain op.
template <>
struct Fields<ExplainDecision> {
    template <class F, class S>
    static void visit(F &f, S &d) {
        f("verdict", d.verdict);
        f("reason", d.reason);
        f("when", d.when);
        f("explanation", d.explanation);
    }
};
template <>
struct Fields<ExplainAnswer> {
    template <class F, class S>
    static void visit(F &f, S &e) {
        f("job_id", e.job_id);
        f("uid", e.uid);
        f.group_if("verdict", e.decision);
        f.present_if("holding", e.holding);
    }
};
// The metrics op.
template <>
struct Fields<MetricsAnswer> {
    template <class F, class S>
    static void visit(F &f, S &m) {
        f("metrics", m.text);
    }
};

// One value to JSON: text, whole numbers, reals, booleans, a latency or null, arrays, and the
// typed values through their Fields.
json_t *encode(const std::string &s) { return json_string(s.c_str()); }
json_t *encode(bool b) { return json_boolean(b); }
json_t *encode(double d) { return json_real(d); }
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
json_t *encode(T v) {
    return json_integer(static_cast<json_int_t>(v));
}
json_t *encode(const std::optional<uint32_t> &ns) { return ns ? json_integer(*ns) : json_null(); }
template <class T>
json_t *encode(const std::vector<T> &items);
template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
json_t *encode(const T &value);

struct Writer {
    json_t *o = json_object();
    template <class T>
    void operator()(const char *key, const T &v) {
        json_object_set_new(o, key, encode(v));
    }
    template <class T>
    void unless_default(const char *key, const T &v) {
        if (v != T{}) (*this)(key, v);
    }
    template <class T>
    void present_if(const char *key, const std::optional<T> &v) {
        if (v) (*this)(key, *v);
    }
    template <class T>
    void group_if(const char *, const std::optional<T> &v) {
        if (v) Fields<T>::visit(*this, *v);
    }
};

template <class T>
json_t *encode(const std::vector<T> &items) {
    json_t *a = json_array();
    for (const T &item : items) json_array_append_new(a, encode(item));
    return a;
}
template <class T, std::enable_if_t<std::is_class_v<T>, int>>
json_t *encode(const T &value) {
    Writer w;
    Fields<T>::visit(w, value);
    return w.o;
}

// One value from JSON: every member required unless its Fields say otherwise; a wrong type or
// range names its JSON path.
void decode(const JsonValue &v, std::string &s) { s = v.as_text(); }
void decode(const JsonValue &v, bool &b) { b = v.as_bool(); }
void decode(const JsonValue &v, double &d) { d = v.as_number(); }
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void decode(const JsonValue &v, T &n) {
    n = static_cast<T>(v.as_count(static_cast<uint64_t>(std::numeric_limits<T>::max())));
}
void decode(const JsonValue &v, std::optional<uint32_t> &ns) {
    if (v.is_null())
        ns.reset();
    else
        decode(v, ns.emplace());
}
template <class T>
void decode(const JsonValue &v, std::vector<T> &items);
template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
void decode(const JsonValue &v, T &value);

struct Reader {
    const JsonValue &o;
    template <class T>
    void operator()(const char *key, T &v) {
        decode(o.member(key), v);
    }
    template <class T>
    void unless_default(const char *key, T &v) {
        if (o.has(key)) (*this)(key, v);
    }
    template <class T>
    void present_if(const char *key, std::optional<T> &v) {
        if (o.has(key)) (*this)(key, v.emplace());
    }
    template <class T>
    void group_if(const char *key, std::optional<T> &v) {
        if (o.has(key)) Fields<T>::visit(*this, v.emplace());
    }
};

template <class T>
void decode(const JsonValue &v, std::vector<T> &items) {
    for (const JsonValue &e : v.elements()) decode(e, items.emplace_back());
}
template <class T, std::enable_if_t<std::is_class_v<T>, int>>
void decode(const JsonValue &v, T &value) {
    Reader r{v};
    Fields<T>::visit(r, value);
}

// What the member list cannot say: the matrix has one row per pod and one cell per blade.
template <class T>
void check_shape(const JsonValue &, const T &) {}
void check_shape(const JsonValue &o, const FabricMatrix &f) {
    std::vector<JsonValue> rows = o.member("latency_ns").elements();
    if (rows.size() != f.pods.size()) o.member("latency_ns").fail("expected one row per pod");
    for (const JsonValue &row : rows)
        if (row.elements().size() != f.blades.size()) row.fail("expected one latency per blade");
}

}  // namespace

json_t *to_json(const SegmentStatus &s) { return encode(s); }
json_t *to_json(const StatusSnapshot &s) { return encode(s); }
json_t *to_json(const JobList &j) { return encode(j); }
json_t *to_json(const FabricMatrix &f) { return encode(f); }
json_t *to_json(const HeatMapView &h) { return encode(h); }
json_t *to_json(const LinkBookView &v) { return encode(v); }
json_t *to_json(const ExplainAnswer &e) { return encode(e); }
json_t *to_json(const MetricsAnswer &m) { return encode(m); }

// Errors.
std::string error_document(const std::string &message) {
    json_t *o = json_object();
    json_object_set_new(o, "error", encode(message));
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
    if (root.has("error") && root.member("error").is_string())
        throw InputError(source, "", root.member("error").as_text());
    T out;
    decode(root, out);
    check_shape(root, out);
    return out;
}
template StatusSnapshot from_json<StatusSnapshot>(const std::string &, const std::string &);
template JobList from_json<JobList>(const std::string &, const std::string &);
template FabricMatrix from_json<FabricMatrix>(const std::string &, const std::string &);
template HeatMapView from_json<HeatMapView>(const std::string &, const std::string &);
template LinkBookView from_json<LinkBookView>(const std::string &, const std::string &);
template ExplainAnswer from_json<ExplainAnswer>(const std::string &, const std::string &);
template MetricsAnswer from_json<MetricsAnswer>(const std::string &, const std::string &);

}  // namespace morpheus
