// The node-level decisions for a job: which NCCL settings its placement justifies, whether it
// asks for cold memory, and the files it gets. Only the user's own settings ever win here.
#include "node_setup.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "hostlist.hpp"
#include "input_error.hpp"
#include "nccl_topology.hpp"
#include "units.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus {

namespace {

std::optional<std::string> env_of(const NodeJob &job, const std::string &name) {
    if (!job.getenv) return std::nullopt;
    return job.getenv(name);
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (true) {
        size_t next = s.find(sep, pos);
        out.push_back(s.substr(pos, next == std::string::npos ? std::string::npos : next - pos));
        if (next == std::string::npos) return out;
        pos = next + 1;
    }
}

// A value this plugin set in an earlier step (listed in MORPHEUS_SET_ENV as NAME=VALUE) and
// still unchanged: srun carries the batch step's environment to every node, and that value
// describes the batch host (its NCCL file, its NICs, its pod), not this node.
bool inherited_from_us(const NodeJob &job, const std::string &name, const std::string &value) {
    std::optional<std::string> set = env_of(job, kSetEnvName);
    if (!set) return false;
    for (const std::string &entry : split(*set, kSetEnvSeparator))
        if (entry.size() == name.size() + 1 + value.size() && entry.compare(0, name.size(), name) == 0 &&
            entry[name.size()] == '=' && entry.compare(name.size() + 1, std::string::npos, value) == 0)
            return true;
    return false;
}

// The user's own value of `name`, which always wins; values we set in an earlier step do not count.
std::optional<std::string> user_value(const NodeJob &job, const std::string &name) {
    std::optional<std::string> v = env_of(job, name);
    if (v && inherited_from_us(job, name, *v)) return std::nullopt;
    return v;
}

bool user_set(const NodeJob &job, const std::string &name) { return user_value(job, name).has_value(); }

bool hints_on(const NodeJob &job) {
    if (job.nccl_hints >= 0) return job.nccl_hints != 0;
    std::optional<std::string> v = env_of(job, MORPHEUS_ENV_NCCL_HINTS);
    if (!v) v = env_of(job, "SLURM_SPANK_MORPHEUS_NCCL_HINTS");
    return !(v && (*v == "off" || *v == "0" || *v == "no"));
}

// The cold-tier request: the option as given, the request the SPANK plugin stored, or the
// placement's cold bytes. A malformed value only costs the job its policy, with a warning.
bool wants_cold(const NodeJob &job, std::vector<std::string> &warnings) { return wants_cold_memory(job, &warnings); }

}  // namespace

bool wants_cold_memory(const NodeJob &job, std::vector<std::string> *warnings) {
    std::optional<std::string> v = job.mem_cold;
    if (!v) v = env_of(job, MORPHEUS_ENV_MEM_COLD);
    if (!v) v = env_of(job, "SLURM_SPANK_MORPHEUS_MEM_COLD");
    if (v && !v->empty()) {
        try {
            if (parse_size(*v, "--mem-cold") > 0) return true;
        } catch (const InputError &e) {
            if (warnings) warnings->push_back(std::string("ignoring the cold-tier request: ") + e.what());
        }
    }
    std::optional<std::string> bytes = env_of(job, MORPHEUS_ENV_COLD_BYTES);
    return bytes && !bytes->empty() && bytes->find_first_not_of('0') != std::string::npos &&
           bytes->find_first_not_of("0123456789") == std::string::npos;
}

namespace {

// The job's GPUs on this node as Slurm numbers them (gres.conf order = bus order here).
std::optional<std::vector<unsigned>> job_gpus(const NodeJob &job) {
    for (const char *name : {"SLURM_STEP_GPUS", "SLURM_JOB_GPUS"}) {
        std::optional<std::string> v = env_of(job, name);
        if (!v || v->empty()) continue;
        std::vector<unsigned> out;
        for (const std::string &p : split(*v, ',')) {
            if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
            out.push_back(static_cast<unsigned>(std::stoul(p)));
        }
        return out;
    }
    return std::nullopt;
}

// This node's pod in MORPHEUS_POD_NODES ("pod1=gpu[101-102];pod2=gpu201"), or "".
std::string pod_in_pod_nodes(const NodeJob &job, const std::string &node) {
    std::optional<std::string> v = env_of(job, MORPHEUS_ENV_POD_NODES);
    if (!v || node.empty()) return "";
    for (const std::string &entry : split(*v, ';')) {
        size_t eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) continue;
        try {
            for (const std::string &n : expand_hostlist(entry.substr(eq + 1), MORPHEUS_ENV_POD_NODES))
                if (n == node) return entry.substr(0, eq);
        } catch (const InputError &) {
            return "";  // malformed: no pod rather than a wrong one
        }
    }
    return "";
}

std::string pod_of_node(const NodeJob &job, const std::string &node) {
    std::optional<std::string> p = user_value(job, MORPHEUS_ENV_NODE_POD);
    if (p && !p->empty()) return *p;
    std::string listed = pod_in_pod_nodes(job, node);
    if (!listed.empty()) return listed;
    p = env_of(job, MORPHEUS_ENV_POD);
    if (p && !p->empty() && p->find(',') == std::string::npos) return *p;
    return "";
}

unsigned job_nodes(const NodeJob &job) {
    for (const char *name : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES"}) {
        std::optional<std::string> v = env_of(job, name);
        if (v && !v->empty() && v->find_first_not_of("0123456789") == std::string::npos) return std::stoul(*v);
    }
    return 1;
}

void add_env(const NodeJob &job, EnvList &env, const std::string &name, const std::string &value) {
    if (!user_set(job, name)) env.emplace_back(name, value);
}

void nccl_settings(const NodeJob &job, const NodeTopology &t, NodeSetup &s) {
    if (!t.gpus.empty() && !user_set(job, "NCCL_TOPO_FILE")) s.nccl_xml = nccl_topology_xml(t);

    std::optional<std::vector<unsigned>> gpus = job_gpus(job);
    std::string node = job.node_name.empty() ? t.hostname : job.node_name;
    std::string pod = pod_of_node(job, node);
    if (!pod.empty()) add_env(job, s.env, MORPHEUS_ENV_NODE_POD, pod);
    if (gpus && !gpus->empty()) {
        std::vector<GpuNic> near = nearest_nics(t);
        std::vector<std::string> hcas;
        bool all_near = true, one_each = true;
        std::set<int> used;
        for (unsigned g : *gpus) {
            auto it = std::find_if(near.begin(), near.end(), [&](const GpuNic &n) { return n.gpu == g; });
            if (it == near.end() || it->nic < 0 || (it->path != PciPath::Pix && it->path != PciPath::Pxb)) {
                all_near = false;
                break;
            }
            if (!used.insert(it->nic).second) one_each = false;
            const std::string &h = t.nics[it->nic].hca;
            if (std::find(hcas.begin(), hcas.end(), h) == hcas.end()) hcas.push_back(h);
        }
        if (all_near) {
            std::string list = "=";
            for (size_t i = 0; i < hcas.size(); ++i) list += (i ? "," : "") + hcas[i];
            add_env(job, s.env, "NCCL_IB_HCA", list);
            if (one_each && !pod.empty() && job_nodes(job) > 1) add_env(job, s.env, "NCCL_CROSS_NIC", "0");
        }
    }

    if (!pod.empty()) {
        std::optional<std::string> slurm_addr = env_of(job, "SLURM_TOPOLOGY_ADDR");
        std::vector<std::string> parts = slurm_addr ? split(*slurm_addr, '.') : std::vector<std::string>{};
        if (!node.empty()) {
            if (parts.size() >= 2) {
                add_env(job, s.env, MORPHEUS_ENV_TOPOLOGY_ADDR, pod + "." + parts[parts.size() - 2] + "." + node);
                add_env(job, s.env, MORPHEUS_ENV_TOPOLOGY_ADDR_PATTERN, "pod.switch.node");
            } else {
                add_env(job, s.env, MORPHEUS_ENV_TOPOLOGY_ADDR, pod + "." + node);
                add_env(job, s.env, MORPHEUS_ENV_TOPOLOGY_ADDR_PATTERN, "pod.node");
            }
        }
    }
}

std::string tmpdir_of(const NodeJob &job) {
    if (!job.tmpdir.empty()) {
        // The site's node-local directory; "%n" stands for this node (Slurm's own convention).
        std::string dir = job.tmpdir, node = job.node_name;
        if (node.empty()) {
            char host[256] = "";
            if (gethostname(host, sizeof host - 1) == 0) node = host;
        }
        for (size_t at = dir.find("%n"); at != std::string::npos; at = dir.find("%n", at + node.size()))
            dir.replace(at, 2, node);
        return dir;
    }
    std::optional<std::string> t = env_of(job, "TMPDIR");
    if (t && !t->empty() && (*t)[0] == '/') return *t;
    return "/tmp";
}

// The job as seen on this node, its node name settled: a step's own node list and index name
// the node; SLURMD_NODENAME, as slurmstepd sees it before tasks start, is whatever srun
// inherited from the batch script, i.e. the batch host's name.
// The placement variables select/morpheus sets; a heterogeneous job has one set per component.
constexpr const char *kPlacementNames[] = {
    MORPHEUS_ENV_POD,         MORPHEUS_ENV_POD_NODES,      MORPHEUS_ENV_HOT_BLADES,
    MORPHEUS_ENV_HOT_BYTES,   MORPHEUS_ENV_HOT_LATENCY_NS, MORPHEUS_ENV_HOT_BOUND_NS,
    MORPHEUS_ENV_COLD_BLADES, MORPHEUS_ENV_COLD_BYTES};

// The step's component of a heterogeneous job: K where SLURM_JOB_ID_HET_GROUP_K is the step's
// job id (each component is a job of its own; its steps carry that id). -1: not one.
int het_group_of(const NodeJob &job) {
    std::optional<std::string> size = env_of(job, "SLURM_HET_SIZE");
    if (!size || size->empty() || size->size() > 3 || size->find_first_not_of("0123456789") != std::string::npos)
        return -1;
    int groups = std::stoi(*size);
    for (int k = 0; k < groups; ++k) {
        std::optional<std::string> id = env_of(job, "SLURM_JOB_ID_HET_GROUP_" + std::to_string(k));
        if (id && *id == std::to_string(job.job_id)) return k;
    }
    return -1;
}

// The batch script runs on the first node of the job (Slurm's batch host). A step of a
// heterogeneous job's component K sees that component's placement (NAME_HET_GROUP_K, which
// select/morpheus puts in the batch environment) under the plain names.
NodeJob on_this_node(const NodeJob &job) {
    NodeJob j = job;
    int group = het_group_of(job);
    if (group >= 0 && job.getenv) {
        std::string suffix = MORPHEUS_ENV_HET_SUFFIX + std::to_string(group);
        auto plain = job.getenv;
        j.getenv = [plain, suffix](const std::string &name) -> std::optional<std::string> {
            for (const char *p : kPlacementNames)
                if (name == p) {
                    std::optional<std::string> mine = plain(name + suffix);
                    if (mine) return mine;
                }
            return plain(name);
        };
    }
    bool batch = job.step_id == kBatchStepId;
    if (!batch && job.step_id >= kFirstSpecialStepId) return j;  // extern, interactive: no list
    std::optional<std::string> list = env_of(job, batch ? "SLURM_JOB_NODELIST" : "SLURM_STEP_NODELIST");
    if (job.step_node_index >= 0 && list && !list->empty()) {
        try {
            std::vector<std::string> names = expand_hostlist(*list, "SLURM_STEP_NODELIST");
            if (static_cast<size_t>(job.step_node_index) < names.size()) j.node_name = names[job.step_node_index];
        } catch (const InputError &) {
            // keep node_name: a malformed list costs the step its pod hints, not its run
        }
    }
    return j;
}

}  // namespace

NodeSetup plan_node(const NodeJob &given, const NodeTopology &t) {
    NodeJob job = on_this_node(given);
    NodeSetup s;
    // A heterogeneous component's tasks get its own placement under the plain names.
    if (het_group_of(given) >= 0)
        for (const char *name : kPlacementNames) {
            std::optional<std::string> v = env_of(job, name);
            if (v && v != env_of(given, name)) s.env.emplace_back(name, *v);
        }
    if (hints_on(job)) nccl_settings(job, t, s);
    if (wants_cold(job, s.warnings)) {
        TierChoice c = choose_tiers(t, {});
        s.warnings.insert(s.warnings.end(), c.warnings.begin(), c.warnings.end());
    }
    for (std::string &w : s.warnings) w = "morpheus: warning: " + w;
    return s;
}

namespace {

// Records what this step set, so a later step (on this node or another) can tell our values
// from the user's: MORPHEUS_SET_ENV=NAME=VALUE|NAME=VALUE. A value that holds the separator
// is left out, so it counts as the user's: never overridden, at worst not refreshed.
void record_what_we_set(NodeSetup &s) {
    std::string list;
    for (const auto &[name, value] : s.env)
        if (value.find(kSetEnvSeparator) == std::string::npos)
            list += (list.empty() ? "" : std::string(1, kSetEnvSeparator)) + name + "=" + value;
    if (!list.empty()) s.env.emplace_back(kSetEnvName, list);
}

}  // namespace

NodeSetup prepare_node(const NodeJob &given) {
    NodeJob job = on_this_node(given);
    std::vector<std::string> ignored;
    // Nothing to do for a job that asks for neither: spare it the PCI walk.
    if (!hints_on(job) && !wants_cold(job, ignored) && het_group_of(job) < 0) return NodeSetup{};
    NodeTopology t = load_node_topology(job.topology_xml, hints_on(job));
    NodeSetup s = plan_node(given, t);  // settles the node itself, from what the step was given
    if (!s.nccl_xml.empty()) {
        std::string stem =
            std::string(kNcclFileStem) + "." + std::to_string(job.job_id) + "." + std::to_string(job.step_id);
        s.nccl_topo_file = write_private_file(tmpdir_of(job), stem, s.nccl_xml, job.uid, job.gid);
        s.env.insert(s.env.begin(), {"NCCL_TOPO_FILE", s.nccl_topo_file});
        // Ours even where the user later sets NCCL_TOPO_FILE, so cleanup never guesses.
        s.env.emplace_back(MORPHEUS_ENV_NCCL_TOPO_FILE, s.nccl_topo_file);
    }
    record_what_we_set(s);
    return s;
}

NodeSetup bind_task(const NodeJob &job, const NodeTopology &t, const std::vector<unsigned> &task_cpus, bool apply) {
    NodeSetup s;
    if (!wants_cold(job, s.warnings)) return s;
    std::vector<unsigned> cpus = task_cpus;
    if (cpus.empty() && apply) cpus = current_cpubind();
    TierChoice c = choose_tiers(t, cpus);
    // The no-CXL warning is the node's, said once by prepare_node, not by every task.
    c.warnings.clear();
    std::optional<std::string> mine = env_of(job, MORPHEUS_ENV_COLD_NUMA_NODES);
    try {
        if (mine && !mine->empty()) c.cold = parse_node_list(*mine, MORPHEUS_ENV_COLD_NUMA_NODES);
        std::optional<std::string> pol = env_of(job, MORPHEUS_ENV_COLD_POLICY);
        ColdPolicy policy = pol && !pol->empty() ? parse_cold_policy(*pol) : ColdPolicy::Bind;
        s.env = tier_env(c);
        if (mine)
            s.env.erase(std::remove_if(s.env.begin(), s.env.end(),
                                       [](const auto &e) { return e.first == MORPHEUS_ENV_COLD_NUMA_NODES; }),
                        s.env.end());
        if (apply) apply_membind(membind_plan(c, policy));
    } catch (const std::exception &e) {
        s.warnings.push_back(std::string("cold-tier memory policy not set: ") + e.what());
    }
    for (std::string &w : s.warnings) w = "morpheus: warning: " + w;
    return s;
}

NodeSetup bind_this_task(const NodeJob &job) {
    std::vector<std::string> warnings;
    if (!wants_cold_memory(job, &warnings)) {
        NodeSetup s;
        for (const std::string &w : warnings) s.warnings.push_back("morpheus: warning: " + w);
        return s;
    }
    bool live = job.topology_xml.empty();
    return bind_task(job, load_node_topology(job.topology_xml, false), {}, live);
}

bool cleanup_node_file(const std::string &path, long uid) {
    std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    if (base.rfind(std::string(kNcclFileStem) + ".", 0) != 0)
        throw InputError(path, "", "not a Morpheus NCCL topology file; left in place");
    struct stat st;
    if (lstat(path.c_str(), &st) < 0) {
        if (errno == ENOENT) return false;
        throw InputError(path, "", std::string("cannot check it: ") + std::strerror(errno));
    }
    // Running as root at step end, in a directory the user controls: remove only what is
    // plainly ours, never through a link.
    if (!S_ISREG(st.st_mode) || (uid >= 0 && st.st_uid != static_cast<uid_t>(uid)))
        throw InputError(path, "", "not a regular file of the job's user; left in place");
    if (unlink(path.c_str()) < 0 && errno != ENOENT)
        throw InputError(path, "", std::string("cannot remove it: ") + std::strerror(errno));
    return true;
}

}  // namespace morpheus
