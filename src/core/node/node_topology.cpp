// Reading a node's hwloc topology into NodeTopology. All hwloc calls of the node-level code that
// describe the machine live here (binding lives in node_tiers.cpp).
#include "node_topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "input_error.hpp"

namespace morpheus {

const char *tier_name(MemoryTier t) {
    switch (t) {
    case MemoryTier::Local: return "local";
    case MemoryTier::Far: return "far";
    case MemoryTier::Hbm: return "hbm";
    }
    return "?";
}

const NumaNode *NodeTopology::find_numa(unsigned os_index) const {
    for (const NumaNode &n : numa)
        if (n.os_index == os_index) return &n;
    return nullptr;
}

std::vector<const NumaNode *> NodeTopology::numa_of_tier(MemoryTier t) const {
    std::vector<const NumaNode *> out;
    for (const NumaNode &n : numa)
        if (n.tier == t) out.push_back(&n);
    return out;
}

std::vector<int> NodeTopology::pci_path(int pci_index) const {
    std::vector<int> path;
    for (int i = pci_index; i >= 0; i = pci[i].parent) path.push_back(i);
    return path;
}

std::string cpu_list_string(const std::vector<unsigned> &cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(cpus[i]);
        if (j > i) out += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

std::string cpumap_string(const std::vector<unsigned> &cpus, unsigned pu_count) {
    unsigned top = pu_count;
    for (unsigned c : cpus) top = std::max(top, c + 1);
    size_t words = std::max<size_t>(1, (top + 31) / 32);
    std::vector<uint32_t> w(words, 0);
    for (unsigned c : cpus) w[c / 32] |= 1u << (c % 32);
    std::string out;
    char buf[16];
    for (size_t i = words; i-- > 0;) {
        std::snprintf(buf, sizeof buf, "%08x", w[i]);
        if (!out.empty()) out += ',';
        out += buf;
    }
    return out;
}

namespace {

struct TopologyDeleter {
    void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

std::vector<unsigned> bitmap_list(hwloc_const_bitmap_t set) {
    std::vector<unsigned> out;
    if (!set) return out;
    unsigned i;
    hwloc_bitmap_foreach_begin(i, set) { out.push_back(i); }
    hwloc_bitmap_foreach_end();
    return out;
}

std::string info(hwloc_obj_t obj, const char *name) {
    const char *v = obj ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
    return v ? v : "";
}

int number_or(const std::string &s, int fallback) {
    if (s.empty()) return fallback;
    char *end = nullptr;
    long v = std::strtol(s.c_str(), &end, 10);
    return *end ? fallback : static_cast<int>(v);
}

// NCCL's arch names (src/graph/xml.cc kvDictCpuArch) from uname's.
std::string nccl_arch(const std::string &uname_arch) {
    if (uname_arch == "x86_64") return "x86_64";
    if (uname_arch == "aarch64" || uname_arch == "arm64") return "arm64";
    if (uname_arch.rfind("ppc64", 0) == 0) return "ppc64";
    return "";
}

std::string read_sysfs_line(const std::string &path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    return line;
}

// "0-1,4" -> {0,1,4}; empty set on anything odd.
std::set<unsigned> parse_list(const std::string &text) {
    std::set<unsigned> out;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t comma = text.find(',', pos);
        std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        unsigned a = 0, b = 0;
        if (std::sscanf(part.c_str(), "%u-%u", &a, &b) == 2) {
            for (unsigned i = a; i <= b && i < 65536; ++i) out.insert(i);
        } else if (std::sscanf(part.c_str(), "%u", &a) == 1) {
            out.insert(a);
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return out;
}

// hwloc declares the PCI attributes inside its attribute union, which C++ sees as nested.
using PciAttr = hwloc_obj_attr_u::hwloc_pcidev_attr_s;

bool is_far_subtype(const std::string &s) { return s == "CXL-DRAM" || s == "CXL-NVM" || s == "NVM" || s == "SPM"; }
bool is_fast_subtype(const std::string &s) { return s == "MCDRAM" || s == "HBM" || s == "GPUMemory"; }

bool is_nvidia_gpu(const PciAttr &p) { return p.vendor_id == 0x10de && (p.class_id == 0x0302 || p.class_id == 0x0300); }
bool is_nic(const PciAttr &p) { return p.class_id == 0x0200 || p.class_id == 0x0207; }

std::string busid_of(const PciAttr &p) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%01x", p.domain, p.bus, p.dev, p.func);
    return buf;
}

// A PCI-side object (device or PCI-to-PCI bridge); host bridges are the CPU side for NCCL.
bool is_pci_side(hwloc_obj_t o) {
    if (o->type == HWLOC_OBJ_PCI_DEVICE) return true;
    return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}
const PciAttr &pci_attr(hwloc_obj_t o) {
    return o->type == HWLOC_OBJ_PCI_DEVICE ? o->attr->pcidev : o->attr->bridge.upstream.pci;
}

class Reader {
public:
    Reader(hwloc_topology_t topo, bool live) : topo_(topo), live_(live) {}

    NodeTopology read(const std::string &source) {
        NodeTopology t;
        t.source = source;
        hwloc_obj_t root = hwloc_get_root_obj(topo_);
        t.hostname = info(root, "HostName");
        t.arch = nccl_arch(info(root, "Architecture"));
        hwloc_obj_t pkg = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_PACKAGE, nullptr);
        t.cpu_vendor = info(pkg, "CPUVendor");
        t.cpu_family = number_or(info(pkg, "CPUFamilyNumber"), -1);
        t.cpu_model = number_or(info(pkg, "CPUModelNumber"), -1);
        int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo_));
        t.pu_count = last < 0 ? 0 : static_cast<unsigned>(last) + 1;
        read_numa(t);
        read_pci(t);
        return t;
    }

private:
    void read_numa(NodeTopology &t) {
        std::vector<hwloc_obj_t> objs;
        for (hwloc_obj_t n = nullptr; (n = hwloc_get_next_obj_by_type(topo_, HWLOC_OBJ_NUMANODE, n));)
            objs.push_back(n);
        std::sort(objs.begin(), objs.end(), [](hwloc_obj_t a, hwloc_obj_t b) { return a->os_index < b->os_index; });
        // On the live machine the kernel says which nodes have CPUs; an XML export does not
        // carry that, so there the tier is inferred from where hwloc attached the node.
        std::set<unsigned> has_cpu;
        bool kernel_says = false;
        if (live_) {
            std::string text = read_sysfs_line("/sys/devices/system/node/has_cpu");
            has_cpu = parse_list(text);
            kernel_says = !has_cpu.empty();
        }
        for (hwloc_obj_t o : objs) {
            NumaNode n;
            n.os_index = o->os_index;
            n.bytes = o->attr ? o->attr->numanode.local_memory : 0;
            n.subtype = o->subtype ? o->subtype : "";
            n.cpus = bitmap_list(o->cpuset);
            hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topo_, HWLOC_OBJ_PACKAGE, o);
            n.package = p ? static_cast<int>(p->os_index) : -1;
            if (is_fast_subtype(n.subtype)) {
                n.tier = MemoryTier::Hbm;
                n.tier_reason = "subtype " + n.subtype;
            } else if (is_far_subtype(n.subtype)) {
                n.tier = MemoryTier::Far;
                n.tier_reason = "subtype " + n.subtype;
            } else if (kernel_says) {
                bool cpus = has_cpu.count(n.os_index) > 0;
                n.tier = cpus ? MemoryTier::Local : MemoryTier::Far;
                n.tier_reason = cpus ? "has CPUs" : "no CPUs (kernel has_cpu)";
            } else {
                infer_tier(o, objs, n);
            }
            t.numa.push_back(std::move(n));
        }
    }

    // hwloc hangs a CPU-less node under the object matching its locality, next to (or above)
    // the DRAM node of those CPUs, and gives it that locality as cpuset. Two shapes follow:
    //  - attached above other NUMA nodes' CPUs (a pool shared by sockets): far;
    //  - sharing its parent with a lower-numbered node: far, since Linux numbers the nodes
    //    with CPUs first (firmware lists CXL/SPM ranges after the sockets' DRAM).
    void infer_tier(hwloc_obj_t o, const std::vector<hwloc_obj_t> &all, NumaNode &n) {
        std::string below;
        for (hwloc_obj_t other : all) {
            if (other == o || is_far_subtype(other->subtype ? other->subtype : "")) continue;
            if (hwloc_bitmap_isincluded(other->cpuset, o->cpuset) && !hwloc_bitmap_isequal(other->cpuset, o->cpuset))
                below += (below.empty() ? "" : ",") + std::to_string(other->os_index);
        }
        if (!below.empty()) {
            n.tier = MemoryTier::Far;
            n.tier_reason = "CPU-less: spans the CPUs of nodes " + below;
            return;
        }
        for (hwloc_obj_t other : all) {
            if (other == o || other->parent != o->parent || other->os_index > o->os_index) continue;
            if (is_far_subtype(other->subtype ? other->subtype : "")) continue;
            n.tier = MemoryTier::Far;
            n.tier_reason = "CPU-less: shares the CPUs of node " + std::to_string(other->os_index);
            return;
        }
        n.tier = MemoryTier::Local;
        n.tier_reason = "has CPUs";
    }

    void read_pci(NodeTopology &t) {
        // Which PCI-side objects lead to a GPU or a NIC.
        std::set<hwloc_obj_t> keep;
        for (hwloc_obj_t d = nullptr; (d = hwloc_get_next_pcidev(topo_, d));) {
            if (!is_nvidia_gpu(d->attr->pcidev) && !is_nic(d->attr->pcidev)) continue;
            for (hwloc_obj_t o = d; o && is_pci_side(o); o = o->parent) keep.insert(o);
        }
        std::map<hwloc_obj_t, int> index;
        visit(hwloc_get_root_obj(topo_), t, keep, index);
        std::vector<std::pair<std::string, int>> gpus;
        for (size_t i = 0; i < t.pci.size(); ++i) {
            if (t.pci[i].kind == PciKind::Gpu) gpus.emplace_back(t.pci[i].busid, static_cast<int>(i));
        }
        std::sort(gpus.begin(), gpus.end());
        for (size_t k = 0; k < gpus.size(); ++k) t.gpus.push_back(Gpu{gpus[k].second, static_cast<unsigned>(k)});
        std::sort(t.nics.begin(), t.nics.end(),
                  [&](const Nic &a, const Nic &b) { return t.pci[a.pci].busid < t.pci[b.pci].busid; });
    }

    void visit(hwloc_obj_t o, NodeTopology &t, const std::set<hwloc_obj_t> &keep, std::map<hwloc_obj_t, int> &index) {
        if (keep.count(o)) add(o, t, index);
        for (hwloc_obj_t c = o->first_child; c; c = c->next_sibling) visit(c, t, keep, index);
        for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) visit(c, t, keep, index);
    }

    void add(hwloc_obj_t o, NodeTopology &t, std::map<hwloc_obj_t, int> &index) {
        const PciAttr &a = pci_attr(o);
        PciDevice d;
        d.busid = busid_of(a);
        d.class_id = a.class_id;
        d.vendor = a.vendor_id;
        d.device = a.device_id;
        d.subvendor = a.subvendor_id;
        d.subdevice = a.subdevice_id;
        d.link_gbps = a.linkspeed;
        d.name = info(o, "PCIDevice");
        if (o->type == HWLOC_OBJ_BRIDGE)
            d.kind = PciKind::Bridge;
        else
            d.kind = is_nvidia_gpu(a) ? PciKind::Gpu : PciKind::Nic;
        auto up = index.find(o->parent);
        d.parent = up == index.end() ? -1 : up->second;
        d.numa = d.parent >= 0 ? t.pci[d.parent].numa : local_numa(o, t);
        if (live_) {
            std::string dir = "/sys/bus/pci/devices/" + d.busid + "/";
            d.max_link_speed = read_sysfs_line(dir + "max_link_speed");
            d.max_link_width = read_sysfs_line(dir + "max_link_width");
        }
        int me = static_cast<int>(t.pci.size());
        if (d.parent >= 0) t.pci[d.parent].children.push_back(me);
        index[o] = me;
        t.pci.push_back(d);
        if (t.pci[me].kind == PciKind::Nic) {
            Nic nic;
            nic.pci = me;
            nic.infiniband = a.class_id == 0x0207;
            for (hwloc_obj_t c = o->io_first_child; c; c = c->next_sibling) {
                if (c->type != HWLOC_OBJ_OS_DEVICE || !c->name) continue;
                if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && nic.hca.empty()) nic.hca = c->name;
                if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK) nic.netdevs.push_back(c->name);
            }
            t.nics.push_back(nic);
        }
    }

    // The DRAM node a top-level PCI object is local to: the lowest-numbered CPU-having node in
    // the nodeset of its first non-I/O ancestor.
    int local_numa(hwloc_obj_t o, NodeTopology &t) {
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo_, o);
        std::vector<unsigned> nodes = bitmap_list(anc ? anc->nodeset : nullptr);
        std::vector<unsigned> local;
        for (unsigned n : nodes) {
            const NumaNode *nn = t.find_numa(n);
            if (nn && nn->tier == MemoryTier::Local) local.push_back(n);
        }
        if (local.empty()) return t.numa.empty() ? -1 : static_cast<int>(t.numa.front().os_index);
        if (local.size() > 1 && anc == hwloc_get_root_obj(topo_)) {
            t.warnings.push_back("PCI device " + busid_of(pci_attr(o)) +
                                 " has no known NUMA locality; listed under NUMA node " +
                                 std::to_string(local.front()));
        }
        return static_cast<int>(local.front());
    }

    hwloc_topology_t topo_;
    bool live_;
};

TopologyPtr open_topology(const std::string &name, bool io, const std::function<int(hwloc_topology_t)> &source) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) < 0) throw std::runtime_error("hwloc_topology_init failed");
    TopologyPtr topo(raw);
    // GPUs, NICs and the bridges above them; disallowed (cgroup-hidden) CPUs and nodes too,
    // because the description is of the node, not of the calling process.
    hwloc_topology_set_io_types_filter(raw, io ? HWLOC_TYPE_FILTER_KEEP_IMPORTANT : HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    if (source(raw) < 0)
        throw InputError(name, "", std::string("hwloc cannot use it: ") + std::strerror(errno),
                         "give an XML file written by lstopo --of xml or hwloc_topology_export_xml()");
    if (hwloc_topology_load(raw) < 0)
        throw InputError(name, "", std::string("hwloc cannot load the topology: ") + std::strerror(errno),
                         "check it with lstopo --if xml --input FILE");
    return topo;
}

}  // namespace

NodeTopology load_node_topology(const std::string &xml_path, bool io) {
    if (xml_path.empty()) {
        // HWLOC_XMLFILE (or HWLOC_SYNTHETIC) makes hwloc read another machine: then sysfs
        // here says nothing about it.
        const char *env = std::getenv("HWLOC_XMLFILE");
        TopologyPtr topo = open_topology(env && *env ? env : "live machine", io, [](hwloc_topology_t) { return 0; });
        bool here = hwloc_topology_is_thissystem(topo.get());
        return Reader(topo.get(), here).read(here ? "live" : std::string(env && *env ? env : "?") + " (HWLOC_XMLFILE)");
    }
    TopologyPtr topo =
        open_topology(xml_path, io, [&](hwloc_topology_t t) { return hwloc_topology_set_xml(t, xml_path.c_str()); });
    return Reader(topo.get(), false).read(xml_path);
}

NodeTopology load_node_topology_from_buffer(const std::string &xml_text, const std::string &name) {
    TopologyPtr topo = open_topology(name, true, [&](hwloc_topology_t t) {
        return hwloc_topology_set_xmlbuffer(t, xml_text.c_str(), static_cast<int>(xml_text.size() + 1));
    });
    return Reader(topo.get(), false).read(name);
}

}  // namespace morpheus
