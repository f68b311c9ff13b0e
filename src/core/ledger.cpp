// Ledger bookkeeping and its crash-safe file.
#include "ledger.hpp"

#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "input_error.hpp"
#include "json_document.hpp"

namespace morpheus {

uint64_t Ledger::free(uint32_t blade, Tier tier, const Inventory &inventory) const {
    uint64_t cap = inventory.blades[blade].capacity[static_cast<size_t>(tier)];
    uint64_t used = reserved(blade, tier);
    return used >= cap ? 0 : cap - used;
}

const Reservation *Ledger::find(uint64_t job_id) const {
    auto it = jobs_.find(job_id);
    return it == jobs_.end() ? nullptr : &it->second;
}

Reservation *Ledger::find_mutable(uint64_t job_id) {
    auto it = jobs_.find(job_id);
    return it == jobs_.end() ? nullptr : &it->second;
}

void Ledger::add(const Reservation &r, int sign) {
    for (const Segment &s : r.segments) {
        uint64_t &slot = reserved_[s.blade][static_cast<size_t>(s.tier)];
        slot = sign > 0 ? slot + s.bytes : slot - s.bytes;
    }
}

bool Ledger::reserve(const Reservation &r, const Inventory &inventory, std::string *why) {
    const Reservation *previous = find(r.job_id);
    // Sum the request per blade and tier first: one job may hold several segments on a blade.
    std::map<std::pair<uint32_t, size_t>, uint64_t> wanted;
    for (const Segment &s : r.segments) {
        if (s.blade >= reserved_.size()) {
            if (why) *why = "segment names blade index " + std::to_string(s.blade) + " outside the fabric";
            return false;
        }
        wanted[{s.blade, static_cast<size_t>(s.tier)}] += s.bytes;
    }
    for (const auto &[key, bytes] : wanted) {
        uint64_t held = 0;
        if (previous)
            for (const Segment &s : previous->segments)
                if (s.blade == key.first && static_cast<size_t>(s.tier) == key.second) held += s.bytes;
        uint64_t cap = inventory.blades[key.first].capacity[key.second];
        uint64_t used = reserved_[key.first][key.second] - held;
        if (bytes > cap || used > cap - bytes) {
            if (why)
                *why = "blade index " + std::to_string(key.first) + " " + tier_name(static_cast<Tier>(key.second)) +
                       ": " + std::to_string(bytes) + " bytes asked, " + std::to_string(cap > used ? cap - used : 0) +
                       " free";
            return false;
        }
    }
    if (previous) {
        add(*previous, -1);
        jobs_.erase(r.job_id);
    }
    add(r, +1);
    jobs_.emplace(r.job_id, r);
    return true;
}

bool Ledger::release(uint64_t job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return false;
    add(it->second, -1);
    jobs_.erase(it);
    return true;
}

namespace {

struct JsonRef {
    json_t *p;
    ~JsonRef() { json_decref(p); }
};

std::string directory_of(const std::string &path) {
    std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
    return dir.empty() ? "/" : dir;
}

void fsync_directory(const std::string &path) {
    int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);  // makes the rename itself durable
        ::close(dfd);
    }
}

// Writes a temporary file and renames it over `path`: a reader (or a restart after SIGKILL)
// sees the old or the new content, never a mix. With `durable`, both are fsync'ed first, so
// a power loss cannot lose it either.
void write_all_synced(const std::string &path, const std::string &data, bool durable) {
    std::string tmp = path + ".new";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw InputError(tmp, "", std::string("cannot write: ") + std::strerror(errno),
                                 "check that the state directory exists and is writable by SlurmUser");
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            throw InputError(tmp, "", std::string("write failed: ") + std::strerror(e));
        }
        off += static_cast<size_t>(n);
    }
    if ((durable && ::fsync(fd) != 0) || ::close(fd) != 0)
        throw InputError(tmp, "", std::string("fsync failed: ") + std::strerror(errno));
    if (::rename(tmp.c_str(), path.c_str()) != 0)
        throw InputError(path, "", std::string("rename failed: ") + std::strerror(errno));
    if (durable) fsync_directory(path);
}

}  // namespace

void Ledger::sync_file(const std::string &path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    int rc = ::fsync(fd);
    ::close(fd);
    if (rc != 0) throw InputError(path, "", std::string("fsync failed: ") + std::strerror(errno));
    fsync_directory(path);
}

void Ledger::save(const std::string &path, const Fabric &fabric, bool durable) const {
    JsonRef root{json_object()};
    json_object_set_new(root.p, "version", json_integer(1));
    json_t *jobs = json_array();
    for (const auto &[id, r] : jobs_) {
        json_t *j = json_object();
        json_object_set_new(j, "job_id", json_integer(static_cast<json_int_t>(id)));
        json_object_set_new(j, "uid", json_integer(r.uid));
        json_object_set_new(j, "since", json_integer(r.since));
        json_object_set_new(j, "hot_latency_bound_ns", json_integer(static_cast<json_int_t>(r.hot_latency_bound_ns)));
        json_object_set_new(j, "affected", json_boolean(r.affected));
        json_t *pods = json_array();
        for (const PodShare &p : r.pods) {
            json_t *o = json_object();
            json_object_set_new(o, "pod", json_string(fabric.pods[p.pod].name.c_str()));
            json_object_set_new(o, "nodes", json_integer(p.nodes));
            json_array_append_new(pods, o);
        }
        json_object_set_new(j, "pods", pods);
        json_t *nodes = json_array();
        for (const std::string &n : r.nodes) json_array_append_new(nodes, json_string(n.c_str()));
        json_object_set_new(j, "nodes", nodes);
        json_t *segs = json_array();
        for (const Segment &s : r.segments) {
            json_t *o = json_object();
            json_object_set_new(o, "blade", json_string(fabric.blades[s.blade].name.c_str()));
            json_object_set_new(o, "tier", json_string(tier_name(s.tier)));
            json_object_set_new(o, "use", json_string(s.use == Use::Hot ? "hot" : "cold"));
            json_object_set_new(o, "bytes", json_integer(static_cast<json_int_t>(s.bytes)));
            json_object_set_new(o, "latency_ns", json_integer(s.latency_ns));
            json_object_set_new(o, "pod", json_string(fabric.pods[s.pod].name.c_str()));
            json_array_append_new(segs, o);
        }
        json_object_set_new(j, "segments", segs);
        json_array_append_new(jobs, j);
    }
    json_object_set_new(root.p, "jobs", jobs);
    char *text = json_dumps(root.p, JSON_INDENT(1) | JSON_SORT_KEYS);
    std::unique_ptr<char, decltype(&std::free)> guard(text, &std::free);
    write_all_synced(path, std::string(text) + "\n", durable);
}

Ledger Ledger::load(const std::string &path, const Fabric &fabric, std::vector<std::string> *warnings) {
    Ledger ledger(fabric.blades.size());
    if (::access(path.c_str(), F_OK) != 0) return ledger;
    JsonDocument doc = JsonDocument::load_file(path);
    JsonValue root = doc.root();
    for (const JsonValue &j : root.member("jobs").elements()) {
        Reservation r;
        r.job_id = j.member("job_id").as_count();
        r.uid = static_cast<uint32_t>(j.member("uid").as_count());
        r.since = static_cast<int64_t>(j.member("since").as_count());
        r.hot_latency_bound_ns = j.has("hot_latency_bound_ns") ? j.member("hot_latency_bound_ns").as_count() : 0;
        r.affected = j.has("affected") && j.member("affected").as_bool();
        for (const JsonValue &p : j.member("pods").elements()) {
            int pod = fabric.pod_index(p.member("pod").as_string());
            if (pod < 0) {
                if (warnings) warnings->push_back(path + ": job " + std::to_string(r.job_id) + ": pod " +
                                                  p.member("pod").as_string() + " is no longer in the fabric");
                continue;
            }
            r.pods.push_back({static_cast<uint32_t>(pod), static_cast<uint32_t>(p.member("nodes").as_count())});
        }
        for (const JsonValue &n : j.member("nodes").elements()) r.nodes.push_back(n.as_string());
        for (const JsonValue &s : j.member("segments").elements()) {
            Segment seg;
            std::string blade = s.member("blade").as_string();
            int b = fabric.blade_index(blade);
            if (b < 0) {
                if (warnings) warnings->push_back(path + ": job " + std::to_string(r.job_id) + ": blade " + blade +
                                                  " is no longer in the fabric; its segment is dropped");
                continue;
            }
            seg.blade = static_cast<uint32_t>(b);
            seg.tier = s.member("tier").as_string() == "pmem" ? Tier::Pmem : Tier::Dram;
            seg.use = s.member("use").as_string() == "cold" ? Use::Cold : Use::Hot;
            seg.bytes = s.member("bytes").as_count();
            seg.latency_ns = static_cast<uint32_t>(s.member("latency_ns").as_count());
            int pod = fabric.pod_index(s.member("pod").as_string());
            seg.pod = pod < 0 ? 0 : static_cast<uint32_t>(pod);
            r.segments.push_back(seg);
        }
        // Loading never refuses what was granted: capacity may have shrunk since.
        ledger.add(r, +1);
        ledger.jobs_.emplace(r.job_id, std::move(r));
    }
    return ledger;
}

Ledger Ledger::rebind(const Fabric &old_fabric, const Fabric &new_fabric, std::vector<std::string> *warnings) const {
    Ledger out(new_fabric.blades.size());
    for (const auto &[id, r] : jobs_) {
        Reservation moved = r;
        moved.segments.clear();
        moved.pods.clear();
        for (const PodShare &p : r.pods) {
            int pod = new_fabric.pod_index(old_fabric.pods[p.pod].name);
            if (pod >= 0) moved.pods.push_back({static_cast<uint32_t>(pod), p.nodes});
        }
        for (const Segment &s : r.segments) {
            int b = new_fabric.blade_index(old_fabric.blades[s.blade].name);
            if (b < 0) {
                if (warnings) warnings->push_back("job " + std::to_string(id) + ": blade " +
                                                  old_fabric.blades[s.blade].name + " left the fabric");
                continue;
            }
            Segment t = s;
            t.blade = static_cast<uint32_t>(b);
            int pod = new_fabric.pod_index(old_fabric.pods[s.pod].name);
            t.pod = pod < 0 ? 0 : static_cast<uint32_t>(pod);
            moved.segments.push_back(t);
        }
        out.add(moved, +1);
        out.jobs_.emplace(id, std::move(moved));
    }
    return out;
}

}  // namespace morpheus
