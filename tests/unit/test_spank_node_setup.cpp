// The SPANK shim of the node setup (plugins/spank/node_setup.c) against stand-ins for
// slurmstepd's SPANK calls: what it reads, that it never overwrites the user's variables,
// that warnings reach the user and that step end removes exactly the file it wrote.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdarg>
#include <map>
#include <string>
#include <vector>

#include "test_support.hpp"

extern "C" {
#include <slurm/spank.h>

#include "node_setup.h"
}

namespace {
std::map<std::string, std::string> env;
std::vector<std::string> logged, errors;
uint32_t job_id = 99, step_id = 3, node_id = 0;
}  // namespace

extern "C" {
spank_context_t spank_context(void) { return S_CTX_REMOTE; }
spank_err_t spank_get_item(spank_t, spank_item_t item, ...) {
    va_list ap;
    va_start(ap, item);
    spank_err_t rc = static_cast<spank_err_t>(ESPANK_SUCCESS);
    switch (item) {
    case S_JOB_ID: *va_arg(ap, uint32_t *) = job_id; break;
    case S_JOB_STEPID: *va_arg(ap, uint32_t *) = step_id; break;
    case S_JOB_NODEID: *va_arg(ap, uint32_t *) = node_id; break;
    case S_JOB_UID: *va_arg(ap, uid_t *) = geteuid(); break;
    case S_JOB_GID: *va_arg(ap, gid_t *) = getegid(); break;
    default: rc = static_cast<spank_err_t>(ESPANK_BAD_ARG);
    }
    va_end(ap);
    return rc;
}
spank_err_t spank_getenv(spank_t, const char *var, char *buf, int len) {
    auto it = env.find(var);
    if (it == env.end()) return static_cast<spank_err_t>(ESPANK_ENV_NOEXIST);
    if (static_cast<int>(it->second.size()) + 1 > len) return static_cast<spank_err_t>(ESPANK_NOSPACE);
    std::memcpy(buf, it->second.c_str(), it->second.size() + 1);
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
spank_err_t spank_setenv(spank_t, const char *var, const char *val, int overwrite) {
    if (!overwrite && env.count(var)) return static_cast<spank_err_t>(ESPANK_ENV_EXISTS);
    env[var] = val;
    return static_cast<spank_err_t>(ESPANK_SUCCESS);
}
const char *spank_strerror(spank_err_t) { return "stub error"; }
void slurm_spank_log(const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    logged.push_back(buf);
}
void slurm_error(const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    errors.push_back(buf);
}
}

static void user_init_sets_hints_and_exit_removes_the_file(void **) {
    char dir[] = "/tmp/morpheus-spank-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string xml = test_data("hwloc/dgx-8gpu-8nic.xml");
    env = {{"TMPDIR", dir},
           {"SLURMD_NODENAME", "dgx01"},
           {"SLURM_JOB_GPUS", "4,5"},
           {"SLURM_JOB_NUM_NODES", "2"},
           {"MORPHEUS_POD", "pod1"},
           {"NCCL_CROSS_NIC", "2"},
           {"MORPHEUS_MEM_COLD", "256G"}};
    logged.clear();
    errors.clear();
    char arg0[] = "conf=/etc/morpheus.conf";
    std::string a1 = "node_topology=" + xml;
    char *av[] = {arg0, &a1[0]};
    struct morpheus_spank_node_args args = {nullptr, nullptr, morpheus_spank_arg(2, av, "node_topology="), nullptr};
    assert_string_equal(args.topology_xml, xml.c_str());
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    assert_true(errors.empty());
    std::string file = env["NCCL_TOPO_FILE"];
    assert_int_equal(file.rfind(std::string(dir) + "/morpheus-nccl-topo.99.3.", 0), 0);
    struct stat st;
    assert_int_equal(stat(file.c_str(), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_string_equal(env["NCCL_IB_HCA"].c_str(), "=mlx5_4,mlx5_5");
    assert_string_equal(env["NCCL_CROSS_NIC"].c_str(), "2");  // the user's value stays
    assert_string_equal(env["MORPHEUS_TOPOLOGY_ADDR"].c_str(), "pod1.dgx01");
    // No CXL on the DGX: the cold request is a warning for the user, not a failure.
    assert_int_equal(logged.size(), 1);
    assert_non_null(std::strstr(logged[0].c_str(), "no CPU-less (CXL) NUMA node"));
    // Step end: the file goes, even if the user pointed NCCL_TOPO_FILE elsewhere since.
    env["NCCL_TOPO_FILE"] = "/etc/hosts";
    assert_int_equal(morpheus_spank_node_cleanup(nullptr), 0);
    assert_int_equal(access(file.c_str(), F_OK), -1);
    assert_int_equal(access("/etc/hosts", F_OK), 0);
    assert_true(errors.empty());
    assert_int_equal(morpheus_spank_node_cleanup(nullptr), 0);  // twice is harmless
    rmdir(dir);
}

// srun hands the batch step's environment to every node of the job: a step on another node
// must get its own file (in its own node-local directory) and its own pod and address, while
// the user's values still win.
static void a_later_step_on_another_node_recomputes_our_values(void **) {
    char dir[] = "/tmp/morpheus-spank-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (const char *node : {"dgx01", "dgx02"}) mkdir((std::string(dir) + "/" + node).c_str(), 0700);
    std::string xml = test_data("hwloc/dgx-8gpu-8nic.xml");
    std::string per_node = std::string(dir) + "/%n";
    // The batch step: no SLURMD_NODENAME yet; the batch host is the job's first node.
    env = {{"SLURM_JOB_NODELIST", "dgx[01-02]"},
           {"SLURM_JOB_GPUS", "4,5"},
           {"SLURM_JOB_NUM_NODES", "2"},
           {"MORPHEUS_POD", "pod1,pod2"},
           {"MORPHEUS_POD_NODES", "pod1=dgx01;pod2=dgx[02-03]"},
           {"NCCL_CROSS_NIC", "2"}};
    errors.clear();
    struct morpheus_spank_node_args args = {nullptr, nullptr, xml.c_str(), per_node.c_str()};
    step_id = 0xfffffffb;  // the batch step (SLURM_BATCH_SCRIPT), on dgx01
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    std::string batch_file = env["NCCL_TOPO_FILE"];
    assert_int_equal(batch_file.rfind(std::string(dir) + "/dgx01/morpheus-nccl-topo.99.4294967291.", 0), 0);
    assert_string_equal(env["MORPHEUS_NODE_POD"].c_str(), "pod1");
    assert_string_equal(env["MORPHEUS_TOPOLOGY_ADDR"].c_str(), "pod1.dgx01");

    // The srun step's task on dgx02 starts from the batch step's environment: SLURMD_NODENAME
    // still names the batch host; the step's node list and this node's index in it do not.
    env["SLURM_STEP_NODELIST"] = "dgx[01-02]";
    node_id = 1;
    step_id = 1;
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    assert_true(errors.empty());
    std::string step_file = env["NCCL_TOPO_FILE"];
    assert_int_equal(step_file.rfind(std::string(dir) + "/dgx02/morpheus-nccl-topo.99.1.", 0), 0);
    struct stat st;
    assert_int_equal(stat(step_file.c_str(), &st), 0);
    assert_string_equal(env["MORPHEUS_NCCL_TOPO_FILE"].c_str(), step_file.c_str());
    assert_string_equal(env["MORPHEUS_NODE_POD"].c_str(), "pod2");
    assert_string_equal(env["MORPHEUS_TOPOLOGY_ADDR"].c_str(), "pod2.dgx02");
    assert_string_equal(env["NCCL_CROSS_NIC"].c_str(), "2");  // the user's value stays

    // A value the user changed after our step is the user's again.
    node_id = 0;
    env["NCCL_IB_HCA"] = "=mlx5_0";
    step_id = 2;
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    assert_string_equal(env["NCCL_IB_HCA"].c_str(), "=mlx5_0");
    assert_string_equal(env["MORPHEUS_NODE_POD"].c_str(), "pod1");
    assert_int_equal(morpheus_spank_node_cleanup(nullptr), 0);
    unlink(batch_file.c_str());
    unlink(step_file.c_str());
    for (const char *node : {"dgx01", "dgx02"}) rmdir((std::string(dir) + "/" + node).c_str());
    rmdir(dir);
    step_id = 3;
    node_id = 0;
}

static void nccl_hints_off_sets_nothing(void **) {
    std::string xml = test_data("hwloc/dgx-8gpu-8nic.xml");
    env = {{"SLURM_JOB_GPUS", "0"}};
    struct morpheus_spank_node_args args = {"off", nullptr, xml.c_str()};
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    assert_int_equal(env.size(), 1);
}

static void task_init_exports_the_tiers(void **) {
    std::string xml = test_data("hwloc/cxl-2s-3far.xml");
    env = {};
    logged.clear();
    struct morpheus_spank_node_args args = {nullptr, "1T", xml.c_str()};
    assert_int_equal(morpheus_spank_node_task(nullptr, &args), 0);
    // A described machine is planned for the whole node (the XML is not this process's).
    assert_string_equal(env["MORPHEUS_HOT_NUMA_NODES"].c_str(), "0-1");
    assert_string_equal(env["MORPHEUS_COLD_NUMA_NODES"].c_str(), "2-4");
    assert_true(logged.empty());
}

static void core_errors_are_logged_not_fatal(void **) {
    env = {{"SLURM_JOB_GPUS", "0"}};
    errors.clear();
    struct morpheus_spank_node_args args = {"on", nullptr, "/nonexistent/topo.xml"};
    assert_int_equal(morpheus_spank_node_setup(nullptr, &args), 0);
    assert_int_equal(errors.size(), 1);
    assert_non_null(std::strstr(errors[0].c_str(), "/nonexistent/topo.xml"));
    assert_false(env.count("NCCL_TOPO_FILE"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(user_init_sets_hints_and_exit_removes_the_file),
        cmocka_unit_test(a_later_step_on_another_node_recomputes_our_values),
        cmocka_unit_test(nccl_hints_off_sets_nothing),
        cmocka_unit_test(task_init_exports_the_tiers),
        cmocka_unit_test(core_errors_are_logged_not_fatal),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
