// NodeTopology: what one compute node offers (CPUs and NUMA nodes by memory tier, the PCI tree
// with its GPUs and NICs), read once from hwloc (the live machine or an XML export) into plain
// structs, so everything downstream (NCCL file, NIC affinity, memory tiers, `morpheus node`) is
// Slurm-free and hwloc-free and can be tested from fixtures.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace morpheus {

// Where memory sits for the CPUs of this node.
enum class MemoryTier {
    Local,  // DRAM of a NUMA node that has CPUs: the hot tier
    Far,  // CPU-less NUMA node (CXL expander or pool, NVDIMM, unknown): the cold tier
    Hbm,  // CPU-less but faster than DRAM (MCDRAM, HBM): never used as cold
};
const char *tier_name(MemoryTier t);  // "local", "far", "hbm"

struct NumaNode {
    unsigned os_index = 0;  // Linux node number (numactl -H, /sys/devices/system/node/nodeN)
    uint64_t bytes = 0;  // local memory
    std::string subtype;  // hwloc subtype ("CXL-DRAM", "NVM", "SPM", "MCDRAM") or ""
    MemoryTier tier = MemoryTier::Local;
    std::string tier_reason;  // why it got its tier, for `morpheus node`
    std::vector<unsigned> cpus;  // PUs (os indexes) of its locality, sorted
    int package = -1;  // os index of the Package above it, -1 if none
};

enum class PciKind { Bridge, Gpu, Nic };

struct PciDevice {
    PciKind kind = PciKind::Bridge;
    int parent = -1;  // index into NodeTopology::pci; -1: directly under a host bridge
    std::vector<int> children;  // indexes into NodeTopology::pci
    int numa = -1;  // os index of the CPU-having NUMA node its host bridge is local to
    std::string busid;  // "0000:07:00.0"
    uint16_t class_id = 0;  // PCI base class and subclass: 0x0604, 0x0302, 0x0207
    uint16_t vendor = 0, device = 0, subvendor = 0, subdevice = 0;
    double link_gbps = 0;  // hwloc's link speed in GB/s (0: unknown)
    // From sysfs max_link_speed/max_link_width when read from the live machine (what NCCL
    // itself would read); "" otherwise. hwloc's speed is the current one, and idle GPUs train
    // their links down, so sysfs's maximum is the right input for NCCL when we have it.
    std::string max_link_speed, max_link_width;
    std::string name;  // hwloc's PCIDevice info ("GA100 [A100 SXM4 40GB]") or ""
};

struct Gpu {
    int pci = -1;  // index into NodeTopology::pci
    unsigned index =
        0;  // position among the node's NVIDIA GPUs by PCI bus id (CUDA_DEVICE_ORDER=PCI_BUS_ID, gres.conf order)
};

struct Nic {
    int pci = -1;
    std::string hca;  // OpenFabrics device ("mlx5_0"), "" for a plain Ethernet NIC
    std::vector<std::string> netdevs;  // network interfaces ("ib0", "eno1")
    bool infiniband = false;  // PCI class 0x0207
};

struct NodeTopology {
    std::string source;  // "live" or the XML path
    std::string hostname;
    std::string arch;  // NCCL spelling: "x86_64", "arm64", "ppc64" ("" unknown)
    std::string cpu_vendor;  // "GenuineIntel", "AuthenticAMD" ("" unknown)
    int cpu_family = -1, cpu_model = -1;
    unsigned pu_count = 0;  // highest PU os index + 1 (sizes the sysfs cpumap)
    std::vector<NumaNode> numa;  // by os index
    // The PCI devices on a path from a host bridge to a GPU or NIC, parents before children,
    // in hwloc's (bus) order; other devices (disks, VGA, chipset) are left out.
    std::vector<PciDevice> pci;
    std::vector<Gpu> gpus;  // NVIDIA GPUs (vendor 0x10de, class 0x0300/0x0302), by bus id
    std::vector<Nic> nics;  // class 0x0200/0x0207, by bus id
    std::vector<std::string> warnings;  // things an admin should know (unknown locality, ...)

    const NumaNode *find_numa(unsigned os_index) const;
    std::vector<const NumaNode *> numa_of_tier(MemoryTier t) const;
    // The PCI path from the device up to its top-level bridge (device first).
    std::vector<int> pci_path(int pci_index) const;
};

// Reads the topology: from an hwloc XML file when xml_path is non-empty (InputError naming the
// file if hwloc rejects it), otherwise from this machine (with I/O devices). The live reading
// also consults sysfs for PCI maximum link speeds and CPU-less NUMA nodes. io=false skips
// the PCI tree (CPUs and memory only), which is what a task start can afford.
NodeTopology load_node_topology(const std::string &xml_path, bool io = true);

// Same from XML text in memory (tests; `name` is used in errors).
NodeTopology load_node_topology_from_buffer(const std::string &xml_text, const std::string &name);

// CPU lists for people and for the kernel: {0,1,2,5} -> "0-2,5"; and the sysfs cpumap form
// NCCL's `affinity` wants: 32-bit hex words, highest first, as many as pu_count needs.
std::string cpu_list_string(const std::vector<unsigned> &cpus);
std::string cpumap_string(const std::vector<unsigned> &cpus, unsigned pu_count);

}  // namespace morpheus
