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
// Latency probes for the heat map (issue 29) are the next task.
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
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

const Task kTasks[] = {
    {"moves", run_moves},
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
    "  One pass of this node's periodic work, for slurmd's HealthCheckProgram (run as root):\n"
    "  moves   migrate the pages of this node's jobs whose hot memory slurmctld moves closer\n"
    "          (migrate_pages(2) from the old blades' NUMA nodes to the new ones'), then report\n"
    "          it done; a node without a NUMA node for a blade records the move as EMULATED\n"
    "          in DIR/morpheus_moves_emulated.log instead, and reports it as emulated.\n"
    "  --node NAME        this node (default $SLURMD_NODENAME, which slurmd sets, else the host name)\n"
    "  --blade-numa LIST  the NUMA node of each blade's memory here (default $MORPHEUS_BLADE_NUMA)\n"
    "  --spool DIR        where the emulation log goes (default SlurmdSpoolDir of slurm.conf)\n"
    "  The status service is found as by `morpheus jobs`: --server, $MORPHEUS_SERVER, or\n"
    "  StatusPort of morpheus.conf beside slurm.conf (--conf FILE names another).\n"
    "  Exit status 0 when every task succeeded, 1 otherwise (each failure on stderr).\n";

}  // namespace

int cmd_node_agent(int argc, char **argv) {
    Agent a;
    std::string numa = std::getenv("MORPHEUS_BLADE_NUMA") ? std::getenv("MORPHEUS_BLADE_NUMA") : "";
    enum { kNode = 1000, kBladeNuma, kSpool, kScontrol, kHelp };
    static const option longopts[] = {
        {"conf", required_argument, nullptr, 'c'},     {"server", required_argument, nullptr, kOptServer},
        {"node", required_argument, nullptr, kNode},   {"blade-numa", required_argument, nullptr, kBladeNuma},
        {"spool", required_argument, nullptr, kSpool}, {"scontrol", required_argument, nullptr, kScontrol},
        {"help", no_argument, nullptr, kHelp},         {nullptr, 0, nullptr, 0}};
    if (int rc = parse_options(argc, argv, "c:", longopts,
                               [&](int c, const char *arg) -> int {
                                   if (c != kOptState && take_status_option(c, arg, a.source)) return kGoOn;
                                   switch (c) {
                                   case kNode: a.node = arg; return kGoOn;
                                   case kBladeNuma: numa = arg; return kGoOn;
                                   case kSpool: a.spool = arg; return kGoOn;
                                   case kScontrol: a.scontrol = arg; return kGoOn;
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
    for (const Task &t : kTasks) {
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
