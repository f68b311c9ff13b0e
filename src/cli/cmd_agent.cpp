// morpheus node agent: the periodic work of a compute node, one pass per run, meant to be run
// by slurmd as its HealthCheckProgram (as root, every HealthCheckInterval seconds). The work
// is a list of tasks, each asking the status service inside slurmctld what this node has to
// do and saying when it is done; today one task:
//   moves  hot memory that moves closer (issue 27): slurmctld reserved in-bound memory for a
//          running job of this node (the ledger's "incoming" segments); the agent migrates the
//          job's pages from the old blades' NUMA nodes to the new ones with migrate_pages(2),
//          for every process of the job, then reports move_done. When this node has no NUMA
//          node for a blade of the move (no CXL memory here, as on a test cluster), the move
//          is EMULATED: it is written to morpheus_moves_emulated.log in the spool directory
//          and reported as emulated, never as a migration.
//   probe  the live fabric heat map (issue 29): ask the status service which blades this node
//          probes (its pod's HeatMapProbeBlades nearest) and whether a report is due; measure
//          the load-to-use latency to each blade's memory with a pointer chase over a buffer
//          bound to the blade's NUMA node (--blade-numa); report them (op report_latency).
//          Where no NUMA node holds a blade here (as on a test cluster), the latency comes
//          from the EMULATION file (--probe-emulation) if it names the blade for this node;
//          otherwise nothing is reported for that blade: no value is ever made up.
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <numeric>
#include <random>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "hostlist.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "status_source.hpp"

namespace morpheus::cli {

namespace {

struct Agent {
    StatusSource source;
    std::string node;  // this node's Slurm name
    std::string spool;  // where the emulation log goes
    std::map<std::string, int> blade_numa;  // blade -> this node's NUMA node holding its memory
    std::string scontrol = "scontrol";
    std::string probe_emulation;  // the emulation file ("" : SPOOL/morpheus_probe_emulation)
    unsigned probe_samples = 3;  // pointer chases per blade and run
};

struct Task {
    const char *name;
    std::function<std::string(Agent &)> run;  // one line saying what it did; throws on failure
};

json_t *ask(Agent &a, json_t *query) {
    char *text = json_dumps(query, JSON_COMPACT);
    json_decref(query);
    std::string q = text ? text : "";
    std::free(text);
    std::string reply = ask_status_service(a.source, q);
    json_error_t err;
    json_t *doc = json_loads(reply.c_str(), 0, &err);
    if (!json_is_object(doc)) {
        json_decref(doc);
        throw InputError(a.source.server, "", std::string("unreadable answer: ") + err.text);
    }
    json_t *e = json_object_get(doc, "error");
    if (json_is_string(e)) {
        std::string message = json_string_value(e);
        json_decref(doc);
        throw InputError(a.source.server, "", message);
    }
    return doc;
}

// "blade1=2,blade2=3": the NUMA node (Linux node number) that holds each blade's memory here.
std::map<std::string, int> parse_blade_numa(const std::string &text) {
    std::map<std::string, int> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        size_t eq = item.find('=');
        char *end = nullptr;
        long n = eq == std::string::npos ? -1 : std::strtol(item.c_str() + eq + 1, &end, 10);
        if (eq == std::string::npos || eq == 0 || n < 0 || n >= 1024 || !end || *end)
            throw InputError("", "--blade-numa", "'" + item + "' is not BLADE=NUMA",
                             "e.g. --blade-numa blade1=2,blade2=3");
        out[item.substr(0, eq)] = static_cast<int>(n);
    }
    return out;
}

bool numa_node_exists(int n) {
    struct stat st;
    return ::stat(("/sys/devices/system/node/node" + std::to_string(n)).c_str(), &st) == 0;
}

// The processes of the job on this node, as `scontrol listpids JOB` lists them.
std::vector<long> job_pids(const Agent &a, uint64_t job) {
    std::string cmd = a.scontrol + " listpids " + std::to_string(job) + " 2>/dev/null";
    std::vector<long> pids;
    FILE *p = ::popen(cmd.c_str(), "r");
    if (!p) throw SystemError("", "", "cannot run scontrol listpids", errno);
    char line[256];
    while (std::fgets(line, sizeof line, p)) {
        char *end = nullptr;
        long pid = std::strtol(line, &end, 10);
        if (end != line && pid > 1) pids.push_back(pid);  // the header and "-" rows are skipped
    }
    ::pclose(p);
    return pids;
}

struct Blades {
    std::vector<std::string> names;
    uint64_t bytes = 0;
};

Blades blades_of(json_t *segments) {
    Blades b;
    size_t i;
    json_t *s;
    json_array_foreach(segments, i, s) {
        b.names.push_back(json_string_value(json_object_get(s, "blade")) ?: "");
        b.bytes += static_cast<uint64_t>(json_integer_value(json_object_get(s, "bytes")));
    }
    return b;
}

// The NUMA mask of the blades, or "" with the first blade this node has no NUMA node for.
std::string numa_mask(const Agent &a, const Blades &b, std::vector<unsigned long> &mask) {
    for (const std::string &name : b.names) {
        auto it = a.blade_numa.find(name);
        if (it == a.blade_numa.end() || !numa_node_exists(it->second)) return name;
        const size_t bits = sizeof(unsigned long) * CHAR_BIT;
        if (mask.size() <= it->second / bits) mask.resize(it->second / bits + 1);
        mask[it->second / bits] |= 1ul << (it->second % bits);
    }
    return "";
}

// The real path: every process of the job has its pages on the old blades' NUMA nodes moved to
// the new ones'. Pages migrate_pages(2) could not move are counted and reported, not hidden.
std::string migrate_job(const Agent &a, uint64_t job, const std::vector<unsigned long> &from,
                        const std::vector<unsigned long> &to) {
    std::vector<unsigned long> old_nodes = from, new_nodes = to;
    const size_t words = std::max(old_nodes.size(), new_nodes.size());
    old_nodes.resize(words);
    new_nodes.resize(words);
    const unsigned long maxnode = words * sizeof(unsigned long) * CHAR_BIT + 1;
    std::vector<long> pids = job_pids(a, job);
    long left = 0;
    size_t moved = 0;
    for (long pid : pids) {
        long rc = ::syscall(SYS_migrate_pages, pid, maxnode, old_nodes.data(), new_nodes.data());
        if (rc < 0) {
            if (errno == ESRCH) continue;  // ended meanwhile
            throw SystemError("", "job " + std::to_string(job), "migrate_pages of pid " + std::to_string(pid), errno);
        }
        left += rc;
        ++moved;
    }
    return "migrated " + std::to_string(moved) + " process(es)" +
           (left ? ", " + std::to_string(left) + " page(s) could not move" : "");
}

// The emulation path, named as such: this node has no NUMA node for a blade of the move, so no
// page can move here; the move is recorded (one JSON line) so the path can be tested end to end.
void record_emulated(const Agent &a, json_t *move, const std::string &missing) {
    json_t *rec = json_object();
    json_object_set_new(rec, "time", json_integer(static_cast<json_int_t>(std::time(nullptr))));
    json_object_set_new(rec, "node", json_string(a.node.c_str()));
    json_object_set_new(rec, "job", json_incref(json_object_get(move, "job")));
    json_object_set_new(rec, "bytes", json_incref(json_object_get(move, "bytes")));
    json_object_set_new(rec, "from", json_incref(json_object_get(move, "from")));
    json_object_set_new(rec, "target", json_incref(json_object_get(move, "target")));
    json_object_set_new(rec, "emulated", json_true());
    json_object_set_new(rec, "why",
                        json_string(("no NUMA node for blade " + missing + " on this node: no page moved").c_str()));
    char *text = json_dumps(rec, JSON_COMPACT);
    json_decref(rec);
    const std::string path = a.spool + "/morpheus_moves_emulated.log";
    std::ofstream out(path, std::ios::app);
    out << (text ? text : "") << "\n";
    std::free(text);
    out.flush();
    if (!out) throw SystemError(path, "", "cannot record the emulated move", errno);
}

std::string run_moves(Agent &a) {
    json_t *q = json_object();
    json_object_set_new(q, "op", json_string("moves"));
    json_object_set_new(q, "node", json_string(a.node.c_str()));
    json_t *answer = ask(a, q);
    json_t *moves = json_object_get(answer, "moves");
    std::string said;
    size_t i;
    json_t *m;
    json_array_foreach(moves, i, m) {
        const uint64_t job = static_cast<uint64_t>(json_integer_value(json_object_get(m, "job")));
        Blades from = blades_of(json_object_get(m, "from")), to = blades_of(json_object_get(m, "target"));
        std::vector<unsigned long> from_mask, to_mask;
        std::string missing = numa_mask(a, from, from_mask);
        if (missing.empty()) missing = numa_mask(a, to, to_mask);
        std::string how;
        const bool emulated = !missing.empty();
        if (emulated) {
            record_emulated(a, m, missing);
            how = "emulated (no NUMA node for blade " + missing + ")";
        } else {
            how = migrate_job(a, job, from_mask, to_mask);
        }
        json_t *done = json_object();
        json_object_set_new(done, "op", json_string("move_done"));
        json_object_set_new(done, "job", json_integer(static_cast<json_int_t>(job)));
        json_object_set_new(done, "node", json_string(a.node.c_str()));
        json_object_set_new(done, "emulated", json_boolean(emulated));
        json_t *reply = ask(a, done);
        const bool finished = json_is_true(json_object_get(reply, "finished"));
        json_decref(reply);
        said += (said.empty() ? "" : "; ") + std::string("job ") + std::to_string(job) + ": " + how + ", reported" +
                (finished ? " (move finished)" : " (waiting for the job's other nodes)");
    }
    json_decref(answer);
    return said.empty() ? "nothing to move" : said;
}

// The buffer of a pointer chase: beyond the last-level cache (tens of MiB on today's CPUs), so
// each load goes to the blade's memory, yet small enough to set up in milliseconds.
constexpr size_t kChaseBytes = 64u << 20;
constexpr size_t kChaseLoads = 100000;
constexpr size_t kLine = 64;  // one load per cache line

// Nanoseconds per dependent load over a buffer bound to NUMA node `numa` (mbind(2), strict:
// a page the kernel cannot place there fails the probe rather than measuring other memory).
std::vector<uint64_t> chase(int numa, unsigned samples) {
    void *mem = ::mmap(nullptr, kChaseBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw SystemError("", "", "cannot map the probe buffer", errno);
    std::vector<unsigned long> mask(numa / (sizeof(unsigned long) * CHAR_BIT) + 1);
    mask[numa / (sizeof(unsigned long) * CHAR_BIT)] |= 1ul << (numa % (sizeof(unsigned long) * CHAR_BIT));
    const long kMpolBind = 2, kMpolMfStrict = 1;
    if (::syscall(SYS_mbind, mem, kChaseBytes, kMpolBind, mask.data(),
                  mask.size() * sizeof(unsigned long) * CHAR_BIT + 1, kMpolMfStrict) != 0) {
        int e = errno;
        ::munmap(mem, kChaseBytes);
        throw SystemError("", "NUMA node " + std::to_string(numa), "mbind of the probe buffer", e);
    }
    // A random cyclic permutation of the lines (Sattolo): no prefetcher can guess the next.
    const size_t lines = kChaseBytes / kLine;
    std::vector<size_t> order(lines);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(static_cast<uint64_t>(::getpid()) ^ static_cast<uint64_t>(std::time(nullptr)));
    for (size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
    char *base = static_cast<char *>(mem);
    for (size_t i = 0; i < lines; ++i)
        *reinterpret_cast<void **>(base + order[i] * kLine) = base + order[(i + 1) % lines] * kLine;
    std::vector<uint64_t> out;
    void *volatile sink = nullptr;
    for (unsigned s = 0; s < samples; ++s) {
        void **p = reinterpret_cast<void **>(base + order[0] * kLine);
        const auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < kChaseLoads; ++i) p = static_cast<void **>(*p);
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0);
        sink = p;
        out.push_back(std::max<uint64_t>(1, static_cast<uint64_t>(ns.count()) / kChaseLoads));
    }
    (void)sink;
    ::munmap(mem, kChaseBytes);
    return out;
}

// The EMULATION file: "[NODES] BLADE LATENCY_NS" per line (NODES a hostlist, all nodes when
// left out; '#' starts a comment). The last line naming this node and the blade wins.
std::map<std::string, uint64_t> read_emulation(const std::string &path, const std::string &node) {
    std::map<std::string, uint64_t> out;
    std::ifstream in(path);
    if (!in) return out;  // no file: nothing emulated
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        line = line.substr(0, line.find('#'));
        std::istringstream ws(line);
        std::vector<std::string> w;
        for (std::string t; ws >> t;) w.push_back(t);
        if (w.empty()) continue;
        char *end = nullptr;
        const unsigned long long ns = w.size() >= 2 ? std::strtoull(w.back().c_str(), &end, 10) : 0;
        if (w.size() > 3 || w.size() < 2 || !end || *end || ns == 0)
            throw InputError(path, "line " + std::to_string(n), "'" + line + "' is not [NODES] BLADE LATENCY_NS",
                             "e.g. 'gpu[101-104] blade1 450' or 'blade1 450'");
        if (w.size() == 3) {
            std::vector<std::string> nodes = expand_hostlist(w[0], path + " line " + std::to_string(n));
            if (std::find(nodes.begin(), nodes.end(), node) == nodes.end()) continue;
        }
        out[w[w.size() - 2]] = ns;
    }
    return out;
}

std::string run_probe(Agent &a) {
    json_t *q = json_object();
    json_object_set_new(q, "op", json_string("probe_blades"));
    json_object_set_new(q, "node", json_string(a.node.c_str()));
    json_t *answer = ask(a, q);
    const json_int_t due_in = json_integer_value(json_object_get(answer, "report_in"));
    std::vector<std::string> blades;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(answer, "blades"), i, b) if (json_is_string(b))
        blades.push_back(json_string_value(b));
    json_decref(answer);
    if (due_in > 0) return "not due (next report in " + std::to_string(due_in) + "s)";
    const std::string emulation = a.probe_emulation.empty() ? a.spool + "/morpheus_probe_emulation" : a.probe_emulation;
    std::map<std::string, uint64_t> emulated;
    bool emulation_read = false;
    json_t *reports = json_array();
    std::string measured, emulated_names, unmeasured;
    for (const std::string &blade : blades) {
        std::vector<uint64_t> ns;
        auto numa = a.blade_numa.find(blade);
        if (numa != a.blade_numa.end() && numa_node_exists(numa->second)) {
            ns = chase(numa->second, a.probe_samples);
            measured += " " + blade;
        } else {
            if (!emulation_read) emulated = read_emulation(emulation, a.node);
            emulation_read = true;
            auto it = emulated.find(blade);
            if (it == emulated.end()) {
                unmeasured += " " + blade;
                continue;
            }
            ns.push_back(it->second);
            emulated_names += " " + blade;
        }
        for (uint64_t v : ns) {
            json_t *e = json_object();
            json_object_set_new(e, "blade", json_string(blade.c_str()));
            json_object_set_new(e, "latency_ns", json_integer(static_cast<json_int_t>(v)));
            json_array_append_new(reports, e);
        }
    }
    std::string said = (measured.empty() ? "" : "measured" + measured + "; ") +
                       (emulated_names.empty() ? "" : "EMULATED from " + emulation + ":" + emulated_names + "; ") +
                       (unmeasured.empty() ? "" : "nothing for" + unmeasured + " (no NUMA node, no emulation line); ");
    if (json_array_size(reports) == 0) {
        json_decref(reports);
        return said + "nothing reported";
    }
    const size_t entries = json_array_size(reports);
    json_t *r = json_object();
    json_object_set_new(r, "op", json_string("report_latency"));
    json_object_set_new(r, "node", json_string(a.node.c_str()));
    json_object_set_new(r, "reports", reports);
    json_decref(ask(a, r));
    return said + "reported " + std::to_string(entries) + " measurement(s)";
}

const Task kTasks[] = {
    {"moves", run_moves},
    {"probe", run_probe},
};

// A key of slurm.conf (the first occurrence, case-insensitive), or "".
std::string slurm_conf_value(const std::string &key) {
    std::ifstream in(slurm_conf_path());
    std::string line;
    while (std::getline(in, line)) {
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        if (line.size() - start <= key.size() + 1 || strncasecmp(line.c_str() + start, key.c_str(), key.size()) != 0 ||
            line[start + key.size()] != '=')
            continue;
        std::string v = line.substr(start + key.size() + 1);
        return v.substr(0, v.find_first_of(" \t#"));
    }
    return "";
}

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

const char kAgentUsage[] =
    "usage: morpheus node agent [--conf FILE | --server HOST:PORT] [--node NAME]\n"
    "                           [--blade-numa BLADE=N,...] [--spool DIR] [--scontrol PATH]\n"
    "                           [--probe-emulation FILE] [--tasks moves,probe]\n"
    "  One pass of this node's periodic work, for slurmd's HealthCheckProgram (run as root):\n"
    "  moves   migrate the pages of this node's jobs whose hot memory slurmctld moves closer\n"
    "          (migrate_pages(2) from the old blades' NUMA nodes to the new ones'), then report\n"
    "          it done; a node without a NUMA node for a blade records the move as EMULATED\n"
    "          in DIR/morpheus_moves_emulated.log instead, and reports it as emulated.\n"
    "  probe   measure this node's load-to-use latency to the blades it probes for the live heat\n"
    "          map (a pointer chase over 64 MiB bound to the blade's NUMA node) and report it; a\n"
    "          blade without a NUMA node here takes its latency from the EMULATION file instead\n"
    "          (lines '[NODES] BLADE LATENCY_NS'), else nothing is reported for it.\n"
    "  --node NAME        this node (default $SLURMD_NODENAME, which slurmd sets, else the host name)\n"
    "  --blade-numa LIST  the NUMA node of each blade's memory here (default $MORPHEUS_BLADE_NUMA)\n"
    "  --spool DIR        where the emulation log goes (default SlurmdSpoolDir of slurm.conf)\n"
    "  --probe-emulation FILE  the latency EMULATION file (default DIR/morpheus_probe_emulation)\n"
    "  --tasks LIST       run only these tasks (default moves,probe)\n"
    "  The status service is found as by `morpheus jobs`: --server, $MORPHEUS_SERVER, or\n"
    "  StatusPort of morpheus.conf beside slurm.conf (--conf FILE names another).\n"
    "  Exit status 0 when every task succeeded, 1 otherwise (each failure on stderr).\n";

}  // namespace

int cmd_node_agent(int argc, char **argv) {
    Agent a;
    std::string numa = std::getenv("MORPHEUS_BLADE_NUMA") ? std::getenv("MORPHEUS_BLADE_NUMA") : "";
    std::string tasks = "moves,probe";
    enum { kNode = 1000, kBladeNuma, kSpool, kScontrol, kProbeEmulation, kTaskList, kHelp };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"node", required_argument, nullptr, kNode},
                                      {"blade-numa", required_argument, nullptr, kBladeNuma},
                                      {"spool", required_argument, nullptr, kSpool},
                                      {"scontrol", required_argument, nullptr, kScontrol},
                                      {"probe-emulation", required_argument, nullptr, kProbeEmulation},
                                      {"tasks", required_argument, nullptr, kTaskList},
                                      {"help", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(argc, argv, "c:", longopts,
                               [&](int c, const char *arg) -> int {
                                   if (c != kOptState && take_status_option(c, arg, a.source)) return kGoOn;
                                   switch (c) {
                                   case kNode: a.node = arg; return kGoOn;
                                   case kBladeNuma: numa = arg; return kGoOn;
                                   case kSpool: a.spool = arg; return kGoOn;
                                   case kScontrol: a.scontrol = arg; return kGoOn;
                                   case kProbeEmulation: a.probe_emulation = arg; return kGoOn;
                                   case kTaskList: tasks = arg; return kGoOn;
                                   case kHelp: std::fputs(kAgentUsage, stdout); return kOk;
                                   default: return kUsage;
                                   }
                               });
        rc != kGoOn)
        return rc;
    if (optind < argc) {
        std::fprintf(stderr, "morpheus node agent: unexpected argument '%s'\n", argv[optind]);
        return kUsage;
    }
    if (a.node.empty() && std::getenv("SLURMD_NODENAME")) a.node = std::getenv("SLURMD_NODENAME");
    if (a.node.empty()) {
        char host[256] = "";
        ::gethostname(host, sizeof host - 1);
        a.node = std::string(host).substr(0, std::string(host).find('.'));
    }
    a.blade_numa = parse_blade_numa(numa);
    if (a.spool.empty()) a.spool = replace_all(slurm_conf_value("SlurmdSpoolDir"), "%n", a.node);
    if (a.spool.empty()) a.spool = "/var/spool/slurmd";
    int failed = 0;
    for (const std::string &name : expand_hostlist(tasks, "--tasks"))
        if (std::none_of(std::begin(kTasks), std::end(kTasks), [&](const Task &t) { return name == t.name; }))
            throw InputError("", "--tasks", "unknown task '" + name + "'", "give moves, probe or both");
    for (const Task &t : kTasks) {
        if (("," + tasks + ",").find(std::string(",") + t.name + ",") == std::string::npos) continue;
        try {
            std::printf("morpheus node agent: %s: %s: %s\n", a.node.c_str(), t.name, t.run(a).c_str());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "morpheus node agent: %s: %s failed: %s\n", a.node.c_str(), t.name, e.what());
            ++failed;
        }
    }
    return failed ? kInputError : kOk;
}

}  // namespace morpheus::cli
