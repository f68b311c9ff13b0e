// The NCCL topology file (NCCL_TOPO_FILE) of a node, written from its NodeTopology in the
// vocabulary of NCCL's own parser (src/graph/xml.cc, topo.cc), and the GPU -> NIC affinity by
// PCI tree that NCCL_IB_HCA and rail alignment are derived from.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "node_topology.hpp"

namespace morpheus {

// The XML text: `<system version="1">`, one `<cpu>` per NUMA node with CPUs, the PCI bridges
// down to each GPU and NIC as nested `<pci>`, `<nic><net name=.../></nic>` under each NIC.
// No `<?xml?>` line (NCCL's hand-written parser rejects it) and no `<gpu>` element: its `dev`
// index is NVML's to fill, and a wrong one would make NCCL misplace ranks.
std::string nccl_topology_xml(const NodeTopology &t);

// NCCL's link_speed and link_width for a device: the kernel's max_link_speed when read live,
// else derived from hwloc's GB/s ("16.0 GT/s PCIe", "16"); {"", ""} when unknown, so that NCCL
// reads sysfs itself.
std::pair<std::string, std::string> nccl_link(const PciDevice &d);

// Creates `dir`/`stem`.XXXXXX.xml with mode 0600 (never following or reusing an existing
// name), owned by uid:gid when the caller is root (-1: leave as is), holding `text`.
// Returns the path. Throws InputError naming the directory on failure.
std::string write_private_file(const std::string &dir, const std::string &stem, const std::string &text, long uid = -1,
                               long gid = -1);

// How far a GPU is from a NIC, in NCCL's path words.
enum class PciPath {
    Pix,  // through at most one PCIe bridge
    Pxb,  // through several bridges, not through the CPU
    Phb,  // through the host bridge of the same NUMA node
    Sys,  // through the CPU interconnect
};
const char *pci_path_name(PciPath p);  // "PIX", "PXB", "PHB", "SYS"

struct GpuNic {
    unsigned gpu = 0;  // Gpu::index
    int nic = -1;  // index into NodeTopology::nics, -1: the node has no usable NIC
    PciPath path = PciPath::Sys;
};

// For each GPU, the nearest NIC with an RDMA device (Nic::hca) by PCI tree. GPUs at the same
// distance from the same NICs (a flat switch with 2 GPUs and 2 NICs) are paired with them in
// bus order, one NIC each, the way the node's rails are cabled.
std::vector<GpuNic> nearest_nics(const NodeTopology &t);

}  // namespace morpheus
