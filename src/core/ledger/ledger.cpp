// Ledger bookkeeping and its crash-safe, checksummed file.
#include "ledger.hpp"

#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "durable_file.hpp"
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
    job_text_.erase(job_id);  // the caller may change it
    auto it = jobs_.find(job_id);
    return it == jobs_.end() ? nullptr : &it->second;
}

const char *use_name(Use u) {
    switch (u) {
    case Use::Hot: return "hot";
    case Use::Cold: return "cold";
    case Use::Incoming: return "incoming";
    case Use::Checkpoint: return "checkpoint";
    }
    return "?";
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
        uint64_t &sum = wanted[{s.blade, static_cast<size_t>(s.tier)}];
        if (__builtin_add_overflow(sum, s.bytes, &sum)) {
            if (why) *why = "segments on blade index " + std::to_string(s.blade) + " add up to more than 2^64 bytes";
            return false;
        }
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
    job_text_.erase(r.job_id);
    return true;
}

std::vector<uint64_t> Ledger::holders(uint32_t blade) const {
    std::vector<uint64_t> out;
    for (const auto &[id, r] : jobs_)
        for (const Segment &s : r.segments)
            if (s.blade == blade && s.bytes > 0) {
                out.push_back(id);
                break;
            }
    return out;
}

bool Ledger::release(uint64_t job_id) {
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) return false;
    add(it->second, -1);
    jobs_.erase(it);
    job_text_.erase(job_id);
    return true;
}

namespace {

struct JsonRef {
    json_t *p;
    ~JsonRef() { json_decref(p); }
};

LedgerFileOps real_ops() { return {&::write, &::fsync, &::rename}; }
LedgerFileOps file_ops = real_ops();
// A test swaps the file operations while an engine's saver thread may be saving (TSan saw it).
std::mutex file_ops_mutex;

std::string join_ids(const std::vector<uint64_t> &ids) {
    std::string s;
    for (uint64_t id : ids) s += (s.empty() ? "" : ",") + std::to_string(id);
    return s;
}

constexpr size_t kJsonFlags = JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY;

// FNV-1a 64 of the canonical (compact, sorted) JSON text of "jobs": any change to the
// content, including one flipped bit, changes it.
std::string checksum_of_text(const std::string &text) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    char hex[32];
    std::snprintf(hex, sizeof hex, "fnv1a64:%016" PRIx64, h);
    return hex;
}

std::string dump(json_t *value) {
    char *text = json_dumps(value, kJsonFlags);
    std::unique_ptr<char, decltype(&std::free)> guard(text, &std::free);
    return text ? text : "";
}

// The checksum of "jobs" as a reader sees it: re-serialised canonically.
std::string checksum_of(json_t *jobs) { return checksum_of_text(dump(jobs)); }

// Reads a state file without ever blocking: a FIFO or device named as StateFile is refused.
// False when the file does not exist.
bool read_regular_file(const std::string &path, std::string *text) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) return false;
        throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno),
                         "check the path and its permissions (SlurmUser must read and write it)");
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw InputError(path, "", "is not a regular file", "point StateFile at a plain file in a local directory");
    }
    text->clear();
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            throw SystemError(path, "", std::string("read failed: ") + std::strerror(e), e);
        }
        if (n == 0) break;
        text->append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return true;
}

std::string recovery_advice(const std::string &path) {
    std::string prev = path + ".prev";
    std::string s = "stop slurmctld; ";
    if (::access(prev.c_str(), F_OK) == 0)
        s += "the previous good ledger is " + prev + ": copy it over " + path + ", or ";
    return s + "remove " + path +
           " to start with no reservations (slurmctld reserves again for the jobs it recovers running at startup)";
}

// A reservation must never silently lose memory to a fabric change: its blades and pods are
// refused when missing. `names` maps each missing blade or pod to the jobs holding it.
[[noreturn]] void refuse_orphans(const std::string &fabric_file,
                                 const std::map<std::string, std::vector<uint64_t>> &names, const std::string &context,
                                 const std::string &extra_fix) {
    std::string problem = context, ids;
    std::set<uint64_t> all;
    for (const auto &[name, jobs] : names) {
        problem += (problem == context ? " " : "; ") + name + " (held by job" + (jobs.size() > 1 ? "s " : " ") +
                   join_ids(jobs) + ")";
        all.insert(jobs.begin(), jobs.end());
    }
    ids = join_ids(std::vector<uint64_t>(all.begin(), all.end()));
    throw InputError(
        fabric_file, "", problem + " is not in this fabric",
        "drain the blade and wait for jobs " + ids + " to end, or keep the blade (and pod) in the fabric" + extra_fix);
}

void note_orphan(std::map<std::string, std::vector<uint64_t>> &names, const std::string &what, uint64_t job) {
    std::vector<uint64_t> &v = names[what];
    if (v.empty() || v.back() != job) v.push_back(job);
}

}  // namespace

void set_ledger_file_ops_for_tests(const LedgerFileOps &ops) {
    LedgerFileOps real = real_ops();
    std::lock_guard<std::mutex> g(file_ops_mutex);
    file_ops.write = ops.write ? ops.write : real.write;
    file_ops.fsync = ops.fsync ? ops.fsync : real.fsync;
    file_ops.rename = ops.rename ? ops.rename : real.rename;
}

std::string Ledger::to_json(const Fabric &fabric) const {
    // The jobs array in the canonical form the checksum covers (compact, sorted keys), built
    // from each job's text; the whole file is that form too, so a reader's re-serialisation
    // of "jobs" gives back exactly these bytes.
    std::string jobs = "[";
    for (const auto &[id, r] : jobs_) {
        auto cached = job_text_.find(id);
        if (cached == job_text_.end()) {
            JsonRef j{json_object()};
            json_object_set_new(j.p, "job_id", json_integer(static_cast<json_int_t>(id)));
            json_object_set_new(j.p, "uid", json_integer(r.uid));
            json_object_set_new(j.p, "since", json_integer(r.since));
            json_object_set_new(j.p, "hot_latency_bound_ns",
                                json_integer(static_cast<json_int_t>(r.hot_latency_bound_ns)));
            json_object_set_new(j.p, "affected", json_boolean(r.affected));
            json_t *pods = json_array();
            for (const PodShare &p : r.pods) {
                json_t *o = json_object();
                json_object_set_new(o, "pod", json_string(fabric.pods[p.pod].name.c_str()));
                json_object_set_new(o, "nodes", json_integer(p.nodes));
                json_array_append_new(pods, o);
            }
            json_object_set_new(j.p, "pods", pods);
            json_t *nodes = json_array();
            for (const std::string &n : r.nodes) json_array_append_new(nodes, json_string(n.c_str()));
            json_object_set_new(j.p, "nodes", nodes);
            json_t *segs = json_array();
            for (const Segment &s : r.segments) {
                json_t *o = json_object();
                json_object_set_new(o, "blade", json_string(fabric.blades[s.blade].name.c_str()));
                json_object_set_new(o, "tier", json_string(tier_name(s.tier)));
                json_object_set_new(o, "use", json_string(use_name(s.use)));
                json_object_set_new(o, "bytes", json_integer(static_cast<json_int_t>(s.bytes)));
                json_object_set_new(o, "latency_ns", json_integer(s.latency_ns));
                json_object_set_new(o, "pod", json_string(fabric.pods[s.pod].name.c_str()));
                json_array_append_new(segs, o);
            }
            json_object_set_new(j.p, "segments", segs);
            if (r.checkpoint.period_s) {
                json_t *c = json_object();
                json_object_set_new(c, "period_s", json_integer(r.checkpoint.period_s));
                json_object_set_new(c, "phase_s", json_integer(r.checkpoint.phase_s));
                json_object_set_new(c, "length_s", json_integer(r.checkpoint.length_s));
                json_object_set_new(c, "bytes", json_integer(static_cast<json_int_t>(r.checkpoint.bytes)));
                json_object_set_new(c, "replicas", json_integer(r.checkpoint.replicas));
                // Recovery state only when there is some: ledgers without requeues stay as they were.
                if (r.checkpoint.waiting) json_object_set_new(c, "waiting", json_true());
                if (r.checkpoint.restarts) json_object_set_new(c, "restarts", json_integer(r.checkpoint.restarts));
                if (r.checkpoint.restore) json_object_set_new(c, "restore", json_true());
                if (r.checkpoint.lost) json_object_set_new(c, "lost", json_true());
                json_object_set_new(j.p, "checkpoint", c);
            }
            cached = job_text_.emplace(id, dump(j.p)).first;
        }
        if (jobs.size() > 1) jobs += ",";
        jobs += cached->second;
    }
    jobs += "]";
    return "{\"checksum\":\"" + checksum_of_text(jobs) + "\",\"jobs\":" + jobs + ",\"version\":2}\n";
}

void Ledger::save(const std::string &path, const Fabric &fabric) const {
    DurableWrite how;
    how.mode = 0600;
    how.on_open_failure = "check that the state directory exists and is writable by SlurmUser";
    how.on_failure = "free space on the state file's file system; the ledger on disk and in memory is unchanged";
    LedgerFileOps ops;
    {
        std::lock_guard<std::mutex> g(file_ops_mutex);
        ops = file_ops;
    }
    write_durably(path, to_json(fabric), how, {ops.write, ops.fsync, ops.rename});
}

Ledger Ledger::load(const std::string &path, const Fabric &fabric) {
    Ledger ledger(fabric.blades.size());
    std::string text;
    if (!read_regular_file(path, &text)) return ledger;
    std::string advice = recovery_advice(path);
    try {
        JsonDocument doc = JsonDocument::load_string(text, path);
        JsonValue root = doc.root();
        if (!root.is_object()) root.fail("a ledger must be a JSON object");
        root.expect_keys({"version", "checksum", "jobs"});
        uint64_t version = root.member("version").as_count();
        if (version != 1 && version != 2)
            root.member("version").fail("unsupported ledger version " + std::to_string(version),
                                        "this Morpheus reads versions 1 and 2");
        JsonValue jobs = root.member("jobs");
        if (!jobs.is_array()) jobs.fail("expected an array of reservations");
        // Version 1 had no checksum: read for the upgrade, written back as version 2.
        if (version == 2) {
            std::string stored = root.member("checksum").as_string();
            JsonRef canonical{json_loadb(text.data(), text.size(), 0, nullptr)};
            if (stored != checksum_of(json_object_get(canonical.p, "jobs")))
                root.member("checksum").fail("checksum does not match the content: the file is damaged");
        } else if (root.has("checksum")) {
            root.member("checksum").fail("version 1 ledgers have no checksum");
        }
        std::map<std::string, std::vector<uint64_t>> orphans;
        for (const JsonValue &j : jobs.elements()) {
            j.expect_keys({"job_id", "uid", "since", "hot_latency_bound_ns", "affected", "pods", "nodes", "segments",
                           "checkpoint"});
            Reservation r;
            r.job_id = j.member("job_id").as_count();
            if (r.job_id == 0) j.member("job_id").fail("job id 0 is not a Slurm job");
            if (ledger.jobs_.count(r.job_id))
                j.member("job_id").fail("job " + std::to_string(r.job_id) + " is listed twice");
            uint64_t uid = j.member("uid").as_count();
            if (uid > UINT32_MAX) j.member("uid").fail("uid " + std::to_string(uid) + " does not fit 32 bits");
            r.uid = static_cast<uint32_t>(uid);
            uint64_t since = j.member("since").as_count();
            if (since > static_cast<uint64_t>(INT64_MAX)) j.member("since").fail("time out of range");
            r.since = static_cast<int64_t>(since);
            r.hot_latency_bound_ns = j.has("hot_latency_bound_ns") ? j.member("hot_latency_bound_ns").as_count() : 0;
            r.affected = j.has("affected") && j.member("affected").as_bool();
            for (const JsonValue &p : j.member("pods").elements()) {
                p.expect_keys({"pod", "nodes"});
                std::string name = p.member("pod").as_string();
                int pod = fabric.pod_index(name);
                if (pod < 0) note_orphan(orphans, "pod \"" + name + "\"", r.job_id);
                uint64_t nodes = p.member("nodes").as_count();
                if (nodes == 0 || nodes > UINT32_MAX) p.member("nodes").fail("node count out of range");
                r.pods.push_back({pod < 0 ? 0 : static_cast<uint32_t>(pod), static_cast<uint32_t>(nodes)});
            }
            for (const JsonValue &n : j.member("nodes").elements()) r.nodes.push_back(n.as_string());
            for (const JsonValue &s : j.member("segments").elements()) {
                s.expect_keys({"blade", "tier", "use", "bytes", "latency_ns", "pod"});
                Segment seg;
                std::string blade = s.member("blade").as_string();
                int b = fabric.blade_index(blade);
                if (b < 0) note_orphan(orphans, "blade \"" + blade + "\"", r.job_id);
                seg.blade = b < 0 ? 0 : static_cast<uint32_t>(b);
                std::string tier = s.member("tier").as_string(), use = s.member("use").as_string();
                if (tier != "dram" && tier != "pmem")
                    s.member("tier").fail("unknown tier \"" + tier + "\"", "use \"dram\" or \"pmem\"");
                seg.tier = tier == "pmem" ? Tier::Pmem : Tier::Dram;
                if (use != "hot" && use != "cold" && use != "incoming" && use != "checkpoint")
                    s.member("use").fail("unknown use \"" + use + "\"",
                                         "use \"hot\", \"cold\", \"incoming\" or \"checkpoint\"");
                seg.use = use == "cold"         ? Use::Cold
                          : use == "incoming"   ? Use::Incoming
                          : use == "checkpoint" ? Use::Checkpoint
                                                : Use::Hot;
                seg.bytes = s.member("bytes").as_count();
                uint64_t latency = s.member("latency_ns").as_count();
                if (latency > UINT32_MAX) s.member("latency_ns").fail("latency out of range");
                seg.latency_ns = static_cast<uint32_t>(latency);
                std::string pod_name = s.member("pod").as_string();
                int pod = fabric.pod_index(pod_name);
                if (pod < 0) note_orphan(orphans, "pod \"" + pod_name + "\"", r.job_id);
                seg.pod = pod < 0 ? 0 : static_cast<uint32_t>(pod);
                if (b >= 0) {
                    uint64_t &slot = ledger.reserved_[seg.blade][static_cast<size_t>(seg.tier)];
                    if (__builtin_add_overflow(slot, seg.bytes, &slot))
                        s.member("bytes").fail("reservations on blade \"" + blade + "\" " + tier +
                                               " add up to more than 2^64 bytes");
                }
                r.segments.push_back(seg);
            }
            if (j.has("checkpoint")) {
                JsonValue c = j.member("checkpoint");
                c.expect_keys(
                    {"period_s", "phase_s", "length_s", "bytes", "replicas", "waiting", "restarts", "restore", "lost"});
                r.checkpoint.period_s = static_cast<int64_t>(c.member("period_s").as_count(kMaxCheckpointPeriod));
                r.checkpoint.phase_s = static_cast<int64_t>(c.member("phase_s").as_count(kMaxCheckpointPeriod));
                r.checkpoint.length_s = static_cast<int64_t>(c.member("length_s").as_count(kMaxCheckpointPeriod));
                r.checkpoint.bytes = c.member("bytes").as_count();
                r.checkpoint.replicas = static_cast<uint32_t>(c.member("replicas").as_count(64));
                r.checkpoint.waiting = c.has("waiting") && c.member("waiting").as_bool();
                if (c.has("restarts"))
                    r.checkpoint.restarts = static_cast<uint32_t>(c.member("restarts").as_count(UINT32_MAX));
                r.checkpoint.restore = c.has("restore") && c.member("restore").as_bool();
                r.checkpoint.lost = c.has("lost") && c.member("lost").as_bool();
                if (r.checkpoint.period_s == 0 || r.checkpoint.phase_s >= r.checkpoint.period_s ||
                    r.checkpoint.length_s > r.checkpoint.period_s)
                    c.fail("checkpoint window out of range (phase and length must lie inside a positive period)");
            }
            // Capacity is not checked: loading never refuses what was granted (the inventory may
            // have shrunk since); the sums above were counted already.
            ledger.jobs_.emplace(r.job_id, std::move(r));
        }
        // Refusing to start is chosen over keeping an orphan counted against nothing: the
        // engine then stays closed, jobs asking for Morpheus memory pend with this message
        // (slurmctld itself runs), and no blade is ever promised twice.
        if (!orphans.empty())
            refuse_orphans(fabric.source, orphans, "the ledger " + path + " holds memory on",
                           "; if those jobs have ended, " + advice);
    } catch (const InputError &e) {
        if (e.file() == fabric.source) throw;
        throw InputError(e.file(), e.where(), e.problem(), e.fix().empty() ? advice : e.fix() + "; or " + advice);
    }
    return ledger;
}

Ledger Ledger::rebind(const Fabric &old_fabric, const Fabric &new_fabric) const {
    Ledger out(new_fabric.blades.size());
    std::map<std::string, std::vector<uint64_t>> orphans;
    for (const auto &[id, r] : jobs_) {
        Reservation moved = r;
        for (PodShare &p : moved.pods) {
            int pod = new_fabric.pod_index(old_fabric.pods[p.pod].name);
            if (pod < 0) note_orphan(orphans, "pod \"" + old_fabric.pods[p.pod].name + "\"", id);
            p.pod = pod < 0 ? 0 : static_cast<uint32_t>(pod);
        }
        for (Segment &s : moved.segments) {
            int b = new_fabric.blade_index(old_fabric.blades[s.blade].name);
            if (b < 0) note_orphan(orphans, "blade \"" + old_fabric.blades[s.blade].name + "\"", id);
            int pod = new_fabric.pod_index(old_fabric.pods[s.pod].name);
            if (pod < 0) note_orphan(orphans, "pod \"" + old_fabric.pods[s.pod].name + "\"", id);
            s.blade = b < 0 ? 0 : static_cast<uint32_t>(b);
            s.pod = pod < 0 ? 0 : static_cast<uint32_t>(pod);
        }
        if (orphans.empty()) out.add(moved, +1);
        out.jobs_.emplace(id, std::move(moved));
    }
    if (!orphans.empty()) refuse_orphans(new_fabric.source, orphans, "live reservations hold memory on", "");
    return out;
}

namespace {

std::string process_name(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

}  // namespace

LedgerLock::LedgerLock(const std::string &state_path, Writer who) {
    std::string path = state_path + ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
        int e = errno;
        throw SystemError(path, "", std::string("cannot open the ledger lock: ") + std::strerror(e), e,
                          "check that the state directory exists and is writable");
    }
    auto holder = [&] {
        char buf[256] = {0};
        ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
        std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
        while (!s.empty() && s.back() == '\n') s.pop_back();
        return s;
    };
    // The engine waits out a tool's short read-modify-write; a tool never waits on anyone.
    int tries = who == Writer::Engine ? 200 : 1;
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) break;
        if (--tries <= 0) {
            std::string h = holder();
            ::close(fd_);
            fd_ = -1;
            for (char &c : h)
                if (c == '\n') c = ';';
            throw InputError(state_path, "",
                             "another writer holds the ledger lock " + path + (h.empty() ? "" : " (" + h + ")"),
                             "wait for it to finish and retry");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // The file's first line names the engine that owns the ledger ("engine pid PID NAME"); a
    // tool adds a line naming itself while it holds the lock.
    std::string content = holder();
    std::string owner = content.substr(0, content.find('\n'));
    if (who == Writer::Tool) {
        long pid = 0;
        char name[64] = {0};
        if (std::sscanf(owner.c_str(), "engine pid %ld %63s", &pid, name) == 2 && pid != ::getpid() &&
            (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) && process_name(pid) == name) {
            ::close(fd_);
            fd_ = -1;
            throw InputError(
                state_path, "",
                "the ledger belongs to a running " + std::string(name) + " (pid " + std::to_string(pid) +
                    ", recorded in " + path + "); its next save would overwrite this change",
                "stop slurmctld first, or let slurmctld place the job instead of morpheus place --reserve");
        }
        if (owner.rfind("engine ", 0) != 0) owner.clear();
    } else {
        owner = "engine pid " + std::to_string(::getpid()) + " " + process_name(::getpid());
    }
    std::string me = owner + (owner.empty() ? "" : "\n");
    if (who == Writer::Tool) me += "tool pid " + std::to_string(::getpid()) + " " + process_name(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, me.data(), me.size(), 0);
}

LedgerLock::~LedgerLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace morpheus
