// Node topology from hwloc XML fixtures: NUMA tiers (CPU-less = far), PCI tree, GPUs and NICs,
// and the memory-tier choices made from them.
#include <hwloc.h>

#include <cstdlib>
#include <stdexcept>

#include "node_tiers.hpp"
#include "node_topology.hpp"
#include "test_support.hpp"

using namespace morpheus;

static NodeTopology fixture(const char *name) { return load_node_topology(test_data(std::string("hwloc/") + name)); }

static const PciDevice &pci_by_busid(const NodeTopology &t, const std::string &busid) {
    for (const PciDevice &d : t.pci)
        if (d.busid == busid) return d;
    std::fprintf(stderr, "no PCI device %s\n", busid.c_str());
    fail();
    return t.pci.front();
}

static std::vector<std::string> path_busids(const NodeTopology &t, int pci) {
    std::vector<std::string> out;
    for (int i : t.pci_path(pci)) out.push_back(t.pci[i].busid);
    return out;
}

static void dgx_has_eight_gpus_under_their_switches(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    assert_string_equal(t.hostname.c_str(), "dgx01");
    assert_string_equal(t.arch.c_str(), "x86_64");
    assert_string_equal(t.cpu_vendor.c_str(), "AuthenticAMD");
    assert_int_equal(t.cpu_family, 23);
    assert_int_equal(t.cpu_model, 49);
    assert_int_equal(t.pu_count, 128);
    assert_int_equal(t.gpus.size(), 8);
    const char *gpu_bus[] = {"0000:05:00.0", "0000:12:00.0", "0000:45:00.0", "0000:52:00.0",
                             "0000:85:00.0", "0000:92:00.0", "0000:c5:00.0", "0000:d2:00.0"};
    for (unsigned k = 0; k < 8; ++k) {
        const Gpu &g = t.gpus[k];
        const PciDevice &d = t.pci[g.pci];
        assert_int_equal(g.index, k);
        assert_string_equal(d.busid.c_str(), gpu_bus[k]);
        assert_int_equal(d.kind, PciKind::Gpu);
        assert_int_equal(d.class_id, 0x0302);
        assert_int_equal(d.vendor, 0x10de);
        assert_int_equal(d.numa, k < 4 ? 0 : 1);
        // root port, switch upstream, downstream, sub-switch upstream, sub-switch downstream
        std::vector<std::string> path = path_busids(t, g.pci);
        assert_int_equal(path.size(), 6);
        assert_int_equal(t.pci[t.pci_path(g.pci).back()].kind, PciKind::Bridge);
    }
    // GPU 0's chain, exactly.
    std::vector<std::string> p0 = path_busids(t, t.gpus[0].pci);
    const char *want[] = {"0000:05:00.0", "0000:04:00.0", "0000:03:00.0",
                          "0000:02:00.0", "0000:01:00.0", "0000:00:01.1"};
    for (size_t i = 0; i < 6; ++i) assert_string_equal(p0[i].c_str(), want[i]);
}

static void dgx_nics_carry_their_os_device_names(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    assert_int_equal(t.nics.size(), 10);
    int ib = 0;
    for (const Nic &n : t.nics) {
        const PciDevice &d = t.pci[n.pci];
        assert_int_equal(d.kind, PciKind::Nic);
        if (n.infiniband) {
            assert_int_equal(d.class_id, 0x0207);
            assert_string_equal(n.hca.c_str(), ("mlx5_" + std::to_string(ib)).c_str());
            assert_int_equal(n.netdevs.size(), 1);
            assert_string_equal(n.netdevs[0].c_str(), ("ib" + std::to_string(ib)).c_str());
            ++ib;
        }
    }
    assert_int_equal(ib, 8);
    // Management NIC: Ethernet, no RDMA device; storage ConnectX: Ethernet with one.
    const PciDevice &eno = pci_by_busid(t, "0000:21:00.0");
    assert_int_equal(eno.class_id, 0x0200);
    assert_int_equal(eno.numa, 0);
    const PciDevice &st = pci_by_busid(t, "0000:e1:00.0");
    assert_int_equal(st.numa, 1);
    for (const Nic &n : t.nics) {
        if (t.pci[n.pci].busid == "0000:21:00.0") assert_true(n.hca.empty());
        if (t.pci[n.pci].busid == "0000:e1:00.0") assert_string_equal(n.hca.c_str(), "mlx5_8");
    }
    // Only bridges on the way to a GPU or NIC are kept, parents before children.
    for (size_t i = 0; i < t.pci.size(); ++i) {
        if (t.pci[i].parent >= 0) assert_true(t.pci[i].parent < static_cast<int>(i));
        if (t.pci[i].kind == PciKind::Bridge) assert_false(t.pci[i].children.empty());
    }
}

static void dgx_numa_nodes_are_local_dram(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    assert_int_equal(t.numa.size(), 2);
    for (const NumaNode &n : t.numa) assert_int_equal(n.tier, MemoryTier::Local);
    assert_string_equal(cpu_list_string(t.numa[0].cpus).c_str(), "0-31,64-95");
    assert_string_equal(cpu_list_string(t.numa[1].cpus).c_str(), "32-63,96-127");
    assert_int_equal(t.numa[0].package, 0);
    assert_int_equal(t.numa[0].bytes, 1024000000000ULL);
}

static void cpu_less_nodes_are_the_far_tier(void **) {
    NodeTopology t = fixture("cxl-2s-3far.xml");
    assert_int_equal(t.numa.size(), 5);
    assert_int_equal(t.find_numa(0)->tier, MemoryTier::Local);
    assert_int_equal(t.find_numa(1)->tier, MemoryTier::Local);
    // subtype kept from the XML, as hwloc >= 2.10 writes it
    assert_int_equal(t.find_numa(2)->tier, MemoryTier::Far);
    assert_string_equal(t.find_numa(2)->subtype.c_str(), "CXL-DRAM");
    assert_int_equal(t.find_numa(2)->package, 0);
    // no subtype: shares socket 1's locality with the lower-numbered node 1
    assert_int_equal(t.find_numa(3)->tier, MemoryTier::Far);
    assert_non_null(std::strstr(t.find_numa(3)->tier_reason.c_str(), "node 1"));
    // Machine-level pool above both sockets
    assert_int_equal(t.find_numa(4)->tier, MemoryTier::Far);
    assert_int_equal(t.find_numa(4)->package, -1);
    assert_int_equal(t.numa_of_tier(MemoryTier::Far).size(), 3);
    assert_true(t.gpus.empty());
    assert_true(t.pci.empty());
}

static void hwloc_xmlfile_is_read_as_another_machine(void **) {
    std::string path = test_data("hwloc/cxl-2s-3far.xml");
    setenv("HWLOC_XMLFILE", path.c_str(), 1);
    NodeTopology t = load_node_topology("");
    unsetenv("HWLOC_XMLFILE");
    assert_string_equal(t.hostname.c_str(), "cxl01");
    assert_non_null(std::strstr(t.source.c_str(), "HWLOC_XMLFILE"));
    // This machine's sysfs must not have been consulted for the fixture's nodes.
    assert_int_equal(t.find_numa(1)->tier, MemoryTier::Local);
    assert_int_equal(t.numa_of_tier(MemoryTier::Far).size(), 3);
}

static void hwloc_reference_capture_reads(void **) {
    NodeTopology t = fixture("32em64t-2n8c2t-pci-normalio.xml");
    // Tesla M2075s are NVIDIA 0302; the Matrox VGA (0300, not NVIDIA) is no GPU.
    assert_int_equal(t.gpus.size(), 3);
    for (const Gpu &g : t.gpus) assert_int_equal(t.pci[g.pci].vendor, 0x10de);
    assert_int_equal(t.numa_of_tier(MemoryTier::Far).size(), 0);
    assert_int_equal(t.pci[t.gpus[0].pci].link_gbps, 0);
    NodeTopology m = fixture("8intel64-4n2t-memattrs.xml");
    assert_int_equal(m.numa.size(), 4);
    assert_int_equal(m.numa_of_tier(MemoryTier::Local).size(), 4);
}

static void bad_xml_is_an_input_error(void **) {
    expect_input_error([] { load_node_topology("/nonexistent/topo.xml"); }, {"/nonexistent/topo.xml", "hwloc"});
    expect_input_error([] { load_node_topology_from_buffer("<topology><object", "broken.xml"); }, {"broken.xml"});
}

static void cpu_sets_print_as_lists_and_sysfs_cpumaps(void **) {
    std::vector<unsigned> s0;
    for (unsigned i = 0; i < 32; ++i) s0.push_back(i);
    for (unsigned i = 64; i < 96; ++i) s0.push_back(i);
    assert_string_equal(cpumap_string(s0, 128).c_str(), "00000000,ffffffff,00000000,ffffffff");
    assert_string_equal(cpumap_string({0}, 1).c_str(), "00000001");
    assert_string_equal(cpumap_string({0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23}, 32).c_str(),
                        "00ff00ff");
    assert_string_equal(cpumap_string({40}, 8).c_str(), "00000100,00000000");
    assert_string_equal(cpu_list_string({0, 1, 2, 5, 7, 8}).c_str(), "0-2,5,7-8");
    assert_string_equal(cpu_list_string({}).c_str(), "");
}

static void tiers_follow_the_task_cpus(void **) {
    NodeTopology t = fixture("cxl-2s-3far.xml");
    TierChoice s0 = choose_tiers(t, {0, 1});
    assert_int_equal(s0.hot.size(), 1);
    assert_int_equal(s0.hot[0], 0);
    assert_int_equal(s0.cold.size(), 2);
    assert_int_equal(s0.cold[0], 2);  // the socket's expander before the shared pool
    assert_int_equal(s0.cold[1], 4);
    assert_true(s0.warnings.empty());
    TierChoice s1 = choose_tiers(t, {9});
    assert_int_equal(s1.hot[0], 1);
    assert_int_equal(s1.cold[0], 3);
    assert_int_equal(s1.cold[1], 4);
    TierChoice all = choose_tiers(t, {});
    assert_int_equal(all.hot.size(), 2);
    assert_int_equal(all.cold.size(), 3);
    auto env = tier_env(s0);
    assert_int_equal(env.size(), 2);
    assert_string_equal(env[0].first.c_str(), "MORPHEUS_HOT_NUMA_NODES");
    assert_string_equal(env[0].second.c_str(), "0");
    assert_string_equal(env[1].first.c_str(), "MORPHEUS_COLD_NUMA_NODES");
    assert_string_equal(env[1].second.c_str(), "2,4");
    MembindPlan bind = membind_plan(s0, ColdPolicy::Bind);
    assert_int_equal(bind.nodes.size(), 3);
    assert_int_equal(bind.nodes[0], 0);
    MembindPlan il = membind_plan(s0, parse_cold_policy("interleave"));
    assert_int_equal(il.policy, ColdPolicy::Interleave);
}

static void no_cxl_is_a_warning_and_no_policy(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    TierChoice c = choose_tiers(t, {});
    assert_true(c.cold.empty());
    assert_int_equal(c.warnings.size(), 1);
    assert_non_null(std::strstr(c.warnings[0].c_str(), "no CPU-less (CXL) NUMA node"));
    assert_non_null(std::strstr(c.warnings[0].c_str(), "dgx01"));
    assert_true(membind_plan(c, ColdPolicy::Bind).nodes.empty());
}

static void node_lists_and_policies_parse_strictly(void **) {
    std::vector<unsigned> v = parse_node_list("2,4-5", "X");
    assert_int_equal(v.size(), 3);
    assert_int_equal(v[2], 5);
    expect_input_error([] { parse_node_list("", "MORPHEUS_COLD_NUMA_NODES"); }, {"MORPHEUS_COLD_NUMA_NODES"});
    expect_input_error([] { parse_node_list("2,x", "L"); }, {"bad NUMA node list", "2,x"});
    expect_input_error([] { parse_node_list("5-2", "L"); }, {"bad NUMA node list"});
    expect_input_error([] { parse_cold_policy("spread"); }, {"spread", "bind or interleave"});
}

// The live machine: binding to its own first NUMA node works; to a node it lacks, it fails
// with the reason instead of binding somewhere else.
static void membind_applies_on_this_machine(void **) {
    NodeTopology t = load_node_topology("", false);
    assert_false(t.numa.empty());
    MembindPlan p;
    p.nodes = {t.numa.front().os_index};
    apply_membind(p);
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_membind_policy_t policy;
    if (hwloc_get_membind(topo, set, &policy, HWLOC_MEMBIND_BYNODESET) == 0) {
        assert_true(hwloc_bitmap_isset(set, t.numa.front().os_index));
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    p.nodes = {4000};
    bool threw = false;
    try {
        apply_membind(p);
    } catch (const std::runtime_error &e) {
        threw = std::strstr(e.what(), "allowed") != nullptr;
    }
    assert_true(threw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dgx_has_eight_gpus_under_their_switches),
        cmocka_unit_test(dgx_nics_carry_their_os_device_names),
        cmocka_unit_test(dgx_numa_nodes_are_local_dram),
        cmocka_unit_test(cpu_less_nodes_are_the_far_tier),
        cmocka_unit_test(hwloc_xmlfile_is_read_as_another_machine),
        cmocka_unit_test(hwloc_reference_capture_reads),
        cmocka_unit_test(bad_xml_is_an_input_error),
        cmocka_unit_test(cpu_sets_print_as_lists_and_sysfs_cpumaps),
        cmocka_unit_test(tiers_follow_the_task_cpus),
        cmocka_unit_test(no_cxl_is_a_warning_and_no_policy),
        cmocka_unit_test(node_lists_and_policies_parse_strictly),
        cmocka_unit_test(membind_applies_on_this_machine),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
