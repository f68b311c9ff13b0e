// A job's node-level setup: which NCCL settings its placement justifies, that the user's own
// settings always win, the cold-tier choices per task, the NCCL file's life, and the C ABI the
// SPANK shim calls.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "morpheus/morpheus_node.h"
#include "nccl_topology.hpp"
#include "node_setup.hpp"
#include "test_support.hpp"

using namespace morpheus;

namespace {

using Env = std::map<std::string, std::string>;

NodeJob job_with(const Env &env) {
    NodeJob j;
    j.job_id = 42;
    j.step_id = 0;
    j.getenv = [env](const std::string &k) -> std::optional<std::string> {
        auto it = env.find(k);
        if (it == env.end()) return std::nullopt;
        return it->second;
    };
    return j;
}

NodeTopology fixture(const char *name) { return load_node_topology(test_data(std::string("hwloc/") + name)); }

std::optional<std::string> get(const EnvList &env, const std::string &k) {
    for (const auto &e : env)
        if (e.first == k) return e.second;
    return std::nullopt;
}

bool mentions(const std::vector<std::string> &lines, const char *needle) {
    for (const std::string &l : lines)
        if (std::strstr(l.c_str(), needle)) return true;
    return false;
}

}  // namespace

static void gpus_get_their_rails(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    NodeSetup s = plan_node(job_with({{"SLURM_JOB_GPUS", "0,1"}}), t);
    assert_false(s.nccl_xml.empty());
    assert_string_equal(get(s.env, "NCCL_IB_HCA")->c_str(), "=mlx5_0,mlx5_1");
    // One node, no pod: nothing justifies rail alignment or an address.
    assert_false(get(s.env, "NCCL_CROSS_NIC").has_value());
    assert_false(get(s.env, "MORPHEUS_TOPOLOGY_ADDR").has_value());
    // The step's GPUs come before the job's.
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "0,1,2,3"}, {"SLURM_STEP_GPUS", "6"}}), t);
    assert_string_equal(get(s.env, "NCCL_IB_HCA")->c_str(), "=mlx5_6");
}

static void multi_node_jobs_in_one_pod_are_rail_aligned(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    NodeJob j = job_with({{"SLURM_JOB_GPUS", "0,1,2,3,4,5,6,7"},
                          {"SLURM_JOB_NUM_NODES", "4"},
                          {"MORPHEUS_POD", "pod2"},
                          {"SLURM_TOPOLOGY_ADDR", "spine1.leaf7.dgx01"}});
    j.node_name = "dgx01";
    NodeSetup s = plan_node(j, t);
    assert_string_equal(get(s.env, "NCCL_IB_HCA")->c_str(), "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7");
    assert_string_equal(get(s.env, "NCCL_CROSS_NIC")->c_str(), "0");
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR")->c_str(), "pod2.leaf7.dgx01");
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR_PATTERN")->c_str(), "pod.switch.node");
    // Without Slurm's tree address the address has no switch; hostname stands in for the name.
    s = plan_node(job_with({{"MORPHEUS_POD", "pod2"}}), t);
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR")->c_str(), "pod2.dgx01");
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR_PATTERN")->c_str(), "pod.node");
    // Across pods (the spine in between): no rail alignment, no address for this node.
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "0,1"}, {"SLURM_JOB_NUM_NODES", "4"}, {"MORPHEUS_POD", "pod1,pod2"}}),
                  t);
    assert_true(get(s.env, "NCCL_IB_HCA").has_value());
    assert_false(get(s.env, "NCCL_CROSS_NIC").has_value());
    assert_false(get(s.env, "MORPHEUS_TOPOLOGY_ADDR").has_value());
    // ... unless the placement says which pod this node is in.
    s = plan_node(job_with({{"MORPHEUS_POD", "pod1,pod2"}, {"MORPHEUS_NODE_POD", "pod1"}}), t);
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR")->c_str(), "pod1.dgx01");
}

static void the_users_settings_win(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    NodeSetup s = plan_node(job_with({{"SLURM_JOB_GPUS", "0,1"},
                                      {"SLURM_JOB_NUM_NODES", "2"},
                                      {"MORPHEUS_POD", "pod1"},
                                      {"NCCL_IB_HCA", "mlx5_3"},
                                      {"NCCL_CROSS_NIC", "1"},
                                      {"NCCL_TOPO_FILE", "/home/me/topo.xml"}}),
                            t);
    assert_true(s.nccl_xml.empty());
    assert_false(get(s.env, "NCCL_IB_HCA").has_value());
    assert_false(get(s.env, "NCCL_CROSS_NIC").has_value());
    assert_false(get(s.env, "NCCL_TOPO_FILE").has_value());
}

static void nccl_hints_off_disables_everything(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    NodeJob j = job_with({{"SLURM_JOB_GPUS", "0,1"}, {"SLURM_JOB_NUM_NODES", "2"}, {"MORPHEUS_POD", "pod1"}});
    j.nccl_hints = 0;
    NodeSetup s = plan_node(j, t);
    assert_true(s.nccl_xml.empty());
    assert_true(s.env.empty());
    // The SPANK plugin's stored option counts when the shim passes -1.
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "0"}, {"MORPHEUS_NCCL_HINTS", "off"}}), t);
    assert_true(s.nccl_xml.empty());
    assert_true(s.env.empty());
}

static void far_nics_are_not_forced_on_nccl(void **) {
    // GPU 0 of the hwloc capture reaches the only HCA across the sockets: NCCL decides alone.
    NodeTopology t = fixture("32em64t-2n8c2t-pci-normalio.xml");
    NodeSetup s = plan_node(job_with({{"SLURM_JOB_GPUS", "0"}}), t);
    assert_false(get(s.env, "NCCL_IB_HCA").has_value());
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "2"}}), t);
    assert_string_equal(get(s.env, "NCCL_IB_HCA")->c_str(), "=mlx5_0");
    // A GPU index the node does not have, or a malformed list: no guess.
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "9"}}), t);
    assert_false(get(s.env, "NCCL_IB_HCA").has_value());
    s = plan_node(job_with({{"SLURM_JOB_GPUS", "gpu:2"}}), t);
    assert_false(get(s.env, "NCCL_IB_HCA").has_value());
    // Without GPUs there is no NCCL file.
    assert_true(plan_node(job_with({}), fixture("cxl-2s-3far.xml")).nccl_xml.empty());
}

static void cold_requests_warn_on_nodes_without_cxl(void **) {
    NodeSetup s = plan_node(job_with({{"MORPHEUS_MEM_COLD", "512G"}}), fixture("dgx-8gpu-8nic.xml"));
    assert_int_equal(s.warnings.size(), 1);
    assert_non_null(std::strstr(s.warnings[0].c_str(), "morpheus: warning: "));
    assert_non_null(std::strstr(s.warnings[0].c_str(), "no CPU-less (CXL) NUMA node"));
    // The placement's cold bytes count as a request too; a node with CXL says nothing.
    s = plan_node(job_with({{"MORPHEUS_COLD_BYTES", "1073741824"}}), fixture("dgx-8gpu-8nic.xml"));
    assert_int_equal(s.warnings.size(), 1);
    assert_true(plan_node(job_with({{"MORPHEUS_MEM_COLD", "512G"}}), fixture("cxl-2s-3far.xml")).warnings.empty());
    // No request, no warning.
    assert_true(plan_node(job_with({{"MORPHEUS_COLD_BYTES", "0"}}), fixture("dgx-8gpu-8nic.xml")).warnings.empty());
    NodeJob j = job_with({});
    j.mem_cold = "oops";
    s = plan_node(j, fixture("dgx-8gpu-8nic.xml"));
    assert_true(mentions(s.warnings, "ignoring the cold-tier request"));
}

static void tasks_bind_near_their_cpus(void **) {
    NodeTopology t = fixture("cxl-2s-3far.xml");
    NodeSetup s = bind_task(job_with({{"MORPHEUS_MEM_COLD", "1T"}}), t, {8, 9}, false);
    assert_string_equal(get(s.env, "MORPHEUS_HOT_NUMA_NODES")->c_str(), "1");
    assert_string_equal(get(s.env, "MORPHEUS_COLD_NUMA_NODES")->c_str(), "3-4");
    assert_true(s.warnings.empty());
    // The user's choice of cold nodes is kept (and not overwritten).
    s = bind_task(job_with({{"MORPHEUS_MEM_COLD", "1T"}, {"MORPHEUS_COLD_NUMA_NODES", "4"}}), t, {0}, false);
    assert_false(get(s.env, "MORPHEUS_COLD_NUMA_NODES").has_value());
    assert_string_equal(get(s.env, "MORPHEUS_HOT_NUMA_NODES")->c_str(), "0");
    // A bad policy name is a warning: the task runs, unbound.
    s = bind_task(job_with({{"MORPHEUS_MEM_COLD", "1T"}, {"MORPHEUS_COLD_POLICY", "spread"}}), t, {0}, false);
    assert_true(mentions(s.warnings, "spread"));
    // No request: nothing at all.
    s = bind_task(job_with({}), t, {0}, false);
    assert_true(s.env.empty() && s.warnings.empty());
    // No CXL: no per-task repetition of the node's warning.
    s = bind_task(job_with({{"MORPHEUS_MEM_COLD", "1T"}}), fixture("dgx-8gpu-8nic.xml"), {0}, false);
    assert_true(s.warnings.empty());
    assert_false(get(s.env, "MORPHEUS_COLD_NUMA_NODES").has_value());
}

static void the_nccl_file_lives_in_the_job_tmpdir_until_cleanup(void **) {
    char dir[] = "/tmp/morpheus-node-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    NodeJob j = job_with({{"SLURM_JOB_GPUS", "0,1"}});
    j.tmpdir = dir;
    j.job_id = 1234;
    j.step_id = 5;
    j.topology_xml = test_data("hwloc/dgx-8gpu-8nic.xml");
    NodeSetup s = prepare_node(j);
    assert_false(s.nccl_topo_file.empty());
    assert_int_equal(s.nccl_topo_file.rfind(std::string(dir) + "/morpheus-nccl-topo.1234.5.", 0), 0);
    assert_string_equal(s.env[0].first.c_str(), "NCCL_TOPO_FILE");
    assert_string_equal(s.env[0].second.c_str(), s.nccl_topo_file.c_str());
    assert_string_equal(get(s.env, "MORPHEUS_NCCL_TOPO_FILE")->c_str(), s.nccl_topo_file.c_str());
    struct stat st;
    assert_int_equal(stat(s.nccl_topo_file.c_str(), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    std::ifstream in(s.nccl_topo_file);
    std::stringstream text;
    text << in.rdbuf();
    assert_string_equal(text.str().c_str(), nccl_topology_xml(fixture("dgx-8gpu-8nic.xml")).c_str());
    // Only our own file goes, and only once.
    expect_input_error([&] { cleanup_node_file(std::string(dir) + "/precious.xml", -1); }, {"not a Morpheus"});
    expect_input_error([&] { cleanup_node_file(s.nccl_topo_file, geteuid() + 1); }, {"left in place"});
    assert_true(cleanup_node_file(s.nccl_topo_file, geteuid()));
    assert_false(cleanup_node_file(s.nccl_topo_file, geteuid()));
    // $TMPDIR of the job when the shim names no directory.
    NodeJob k = job_with({{"SLURM_JOB_GPUS", "0"}, {"TMPDIR", dir}});
    k.topology_xml = j.topology_xml;
    s = prepare_node(k);
    assert_int_equal(s.nccl_topo_file.rfind(dir, 0), 0);
    assert_true(cleanup_node_file(s.nccl_topo_file, -1));
    // Neither hints nor cold memory: not even the topology is read.
    NodeJob off = job_with({});
    off.nccl_hints = 0;
    off.topology_xml = "/nonexistent.xml";
    assert_true(prepare_node(off).env.empty());
    rmdir(dir);
}

// The C ABI as the SPANK shim uses it, with an environment lookup like spank_getenv's.
static int lookup(void *ctx, const char *name, char *buf, size_t len) {
    const Env *env = static_cast<const Env *>(ctx);
    auto it = env->find(name);
    if (it == env->end()) return 0;
    if (it->second.size() + 1 > len) return -1;
    std::memcpy(buf, it->second.c_str(), it->second.size() + 1);
    return 1;
}

static void c_abi_prepares_binds_and_cleans_up(void **) {
    char dir[] = "/tmp/morpheus-node-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string xml = test_data("hwloc/dgx-8gpu-8nic.xml");
    Env env = {{"SLURM_JOB_GPUS", "3"}, {"MORPHEUS_MEM_COLD", "64G"}, {"LONG", std::string(5000, 'x')}};
    morpheus_node_job_t job = {};
    job.job_id = 77;
    job.step_id = 1;
    job.uid = -1;
    job.gid = -1;
    job.tmpdir = dir;
    job.topology_xml = xml.c_str();
    job.nccl_hints = -1;
    job.lookup = lookup;
    job.lookup_ctx = &env;
    morpheus_error_t err;
    morpheus_node_result_t *res = nullptr;
    assert_int_equal(morpheus_node_prepare(&job, &res, &err), 0);
    assert_non_null(res);
    assert_non_null(res->nccl_topo_file);
    assert_int_equal(access(res->nccl_topo_file, R_OK), 0);
    bool hca = false;
    for (size_t i = 0; i < res->env_count; ++i) hca |= !std::strcmp(res->env[i], "NCCL_IB_HCA==mlx5_3");
    assert_true(hca);
    assert_int_equal(res->warning_count, 1);
    assert_non_null(std::strstr(res->warnings[0], "no CPU-less (CXL) NUMA node"));
    std::string path = res->nccl_topo_file;
    morpheus_node_result_free(&res);
    assert_null(res);
    assert_int_equal(morpheus_node_cleanup(path.c_str(), -1, &err), 1);
    assert_int_equal(morpheus_node_cleanup(path.c_str(), -1, &err), 0);
    assert_int_equal(morpheus_node_cleanup("/etc/passwd", -1, &err), -1);
    assert_non_null(std::strstr(err.message, "not a Morpheus"));

    // Per task, on a described (XML) machine: planned, never applied to this process.
    std::string cxl = test_data("hwloc/cxl-2s-3far.xml");
    job.topology_xml = cxl.c_str();
    assert_int_equal(morpheus_node_bind_task(&job, &res, &err), 0);
    bool cold = false;
    for (size_t i = 0; i < res->env_count; ++i) cold |= !std::strncmp(res->env[i], "MORPHEUS_COLD_NUMA_NODES=", 25);
    assert_true(cold);
    morpheus_node_result_free(&res);

    // Errors come back as -1 with the file named, never as an exception.
    job.topology_xml = "/nonexistent/topo.xml";
    assert_int_equal(morpheus_node_prepare(&job, &res, &err), -1);
    assert_null(res);
    assert_non_null(std::strstr(err.message, "/nonexistent/topo.xml"));
    assert_int_equal(morpheus_node_prepare(nullptr, &res, &err), -1);
    morpheus_node_result_free(nullptr);
    rmdir(dir);
}

// One batch script serves every component of a heterogeneous job: a step of component 1
// (its own job id) must see component 1's placement, not the leader's.
static void a_het_component_sees_its_own_placement(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    Env env = {{"SLURM_HET_SIZE", "2"},
               {"SLURM_JOB_ID_HET_GROUP_0", "41"},
               {"SLURM_JOB_ID_HET_GROUP_1", "42"},
               {"MORPHEUS_POD", "pod1"},
               {"MORPHEUS_HOT_BYTES", "34359738368"},
               {"MORPHEUS_POD_HET_GROUP_0", "pod1"},
               {"MORPHEUS_HOT_BYTES_HET_GROUP_0", "34359738368"},
               {"MORPHEUS_POD_HET_GROUP_1", "pod3"},
               {"MORPHEUS_HOT_BYTES_HET_GROUP_1", "68719476736"},
               {"MORPHEUS_POD_NODES_HET_GROUP_1", "pod3=gpu301"}};
    NodeJob j = job_with(env);  // job id 42: component 1
    j.node_name = "gpu301";
    NodeSetup s = plan_node(j, t);
    assert_string_equal(get(s.env, "MORPHEUS_POD")->c_str(), "pod3");
    assert_string_equal(get(s.env, "MORPHEUS_HOT_BYTES")->c_str(), "68719476736");
    assert_string_equal(get(s.env, "MORPHEUS_NODE_POD")->c_str(), "pod3");
    assert_string_equal(get(s.env, "MORPHEUS_TOPOLOGY_ADDR")->c_str(), "pod3.gpu301");
    // The leader's steps keep the plain values (nothing to replace).
    NodeJob leader = job_with(env);
    leader.job_id = 41;
    s = plan_node(leader, t);
    assert_false(get(s.env, "MORPHEUS_POD").has_value());
    assert_string_equal(get(s.env, "MORPHEUS_NODE_POD")->c_str(), "pod1");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpus_get_their_rails),
        cmocka_unit_test(a_het_component_sees_its_own_placement),
        cmocka_unit_test(multi_node_jobs_in_one_pod_are_rail_aligned),
        cmocka_unit_test(the_users_settings_win),
        cmocka_unit_test(nccl_hints_off_disables_everything),
        cmocka_unit_test(far_nics_are_not_forced_on_nccl),
        cmocka_unit_test(cold_requests_warn_on_nodes_without_cxl),
        cmocka_unit_test(tasks_bind_near_their_cpus),
        cmocka_unit_test(the_nccl_file_lives_in_the_job_tmpdir_until_cleanup),
        cmocka_unit_test(c_abi_prepares_binds_and_cleans_up),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
