// Writing NCCL topology XML and pairing GPUs with NICs. The spellings come from NCCL's parser
// and the providers' files it is fed (Azure ND/NC, AWS p4d/p5), never from guesswork.
#include "nccl_topology.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "input_error.hpp"

namespace morpheus {

namespace {

// NCCL matches link_speed by prefix against kvDictPciGen (topo.cc); anything else counts as
// Gen3. The kernel has written the "PCIe" forms since 5.7, and so do we.
const char *const kNcclSpeeds[] = {"2.5 GT/s",       "5 GT/s",         "8 GT/s",        "16 GT/s",
                                   "32 GT/s",        "2.5 GT/s PCIe",  "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                   "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"};

bool known_speed(const std::string &s) {
    for (const char *k : kNcclSpeeds)
        if (s.compare(0, std::strlen(k), k) == 0) return true;
    return false;
}

std::string hex(unsigned v, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
    return buf;
}

// Values here are bus ids, hex numbers, names of devices and CPU vendors; escape anyway so a
// strange interface name can never break the file.
std::string attr(const std::string &v) {
    std::string out;
    for (char c : v) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

void write_pci(const NodeTopology &t, int i, int depth, std::string &out) {
    const PciDevice &d = t.pci[i];
    std::string pad(2 * depth, ' ');
    out += pad + "<pci busid=\"" + attr(d.busid) + "\" class=\"" + hex(d.class_id, 4) + "00\"";
    out += " vendor=\"" + hex(d.vendor, 4) + "\" device=\"" + hex(d.device, 4) + "\"";
    out += " subsystem_vendor=\"" + hex(d.subvendor, 4) + "\" subsystem_device=\"" + hex(d.subdevice, 4) + "\"";
    auto [speed, width] = nccl_link(d);
    if (!speed.empty()) out += " link_speed=\"" + attr(speed) + "\" link_width=\"" + attr(width) + "\"";
    const Nic *nic = nullptr;
    for (const Nic &n : t.nics)
        if (n.pci == i) nic = &n;
    std::vector<std::string> nets;
    // NCCL matches a <net> to its device by name: the RDMA device for IB/RoCE, the interface
    // for the socket transport. A NIC with neither is still a NIC in the tree.
    if (nic && !nic->hca.empty())
        nets.push_back(nic->hca);
    else if (nic)
        nets = nic->netdevs;
    if (d.children.empty() && nets.empty()) {
        out += "/>\n";
        return;
    }
    out += ">\n";
    for (int c : d.children) write_pci(t, c, depth + 1, out);
    if (!nets.empty()) {
        out += pad + "  <nic>\n";
        for (const std::string &n : nets) out += pad + "    <net name=\"" + attr(n) + "\"/>\n";
        out += pad + "  </nic>\n";
    }
    out += pad + "</pci>\n";
}

}  // namespace

std::pair<std::string, std::string> nccl_link(const PciDevice &d) {
    if (!d.max_link_speed.empty() && known_speed(d.max_link_speed) && !d.max_link_width.empty() &&
        std::strspn(d.max_link_width.c_str(), "0123456789") == d.max_link_width.size())
        return {d.max_link_speed, d.max_link_width};
    if (d.link_gbps <= 0) return {"", ""};
    // hwloc stores lanes * GT/s * encoding / 8. Several (gen, width) pairs give the same GB/s
    // (Gen4 x16 = Gen5 x8); NCCL only uses their product (width * speed / 80), so taking the
    // widest match is exact where it matters.
    struct Gen {
        const char *name;
        double lane_gbps;
    } gens[] = {{"2.5 GT/s PCIe", 0.25},
                {"5.0 GT/s PCIe", 0.5},
                {"8.0 GT/s PCIe", 8 * 128.0 / 130 / 8},
                {"16.0 GT/s PCIe", 16 * 128.0 / 130 / 8},
                {"32.0 GT/s PCIe", 32 * 128.0 / 130 / 8},
                {"64.0 GT/s PCIe", 64 * 242.0 / 256 / 8}};
    for (int width : {16, 8, 4, 2, 1}) {
        for (const Gen &g : gens) {
            double want = g.lane_gbps * width;
            if (std::fabs(d.link_gbps - want) <= 0.005 * want) return {g.name, std::to_string(width)};
        }
    }
    return {"", ""};
}

std::string nccl_topology_xml(const NodeTopology &t) {
    std::string out = "<system version=\"1\">\n";
    for (const NumaNode &n : t.numa) {
        if (n.tier != MemoryTier::Local) continue;
        out += "  <cpu numaid=\"" + std::to_string(n.os_index) + "\"";
        if (!n.cpus.empty()) out += " affinity=\"" + cpumap_string(n.cpus, t.pu_count) + "\"";
        if (!t.arch.empty()) out += " arch=\"" + attr(t.arch) + "\"";
        if (!t.cpu_vendor.empty()) out += " vendor=\"" + attr(t.cpu_vendor) + "\"";
        if (t.cpu_family >= 0) out += " familyid=\"" + std::to_string(t.cpu_family) + "\"";
        if (t.cpu_model >= 0) out += " modelid=\"" + std::to_string(t.cpu_model) + "\"";
        std::string body;
        for (size_t i = 0; i < t.pci.size(); ++i) {
            if (t.pci[i].parent == -1 && t.pci[i].numa == static_cast<int>(n.os_index))
                write_pci(t, static_cast<int>(i), 2, body);
        }
        out += body.empty() ? "/>\n" : ">\n" + body + "  </cpu>\n";
    }
    out += "</system>\n";
    return out;
}

std::string write_private_file(const std::string &dir, const std::string &stem, const std::string &text, long uid,
                               long gid) {
    std::string tmpl = dir + "/" + stem + ".XXXXXX.xml";
    std::vector<char> path(tmpl.begin(), tmpl.end());
    path.push_back('\0');
    // mkstemps: a fresh name, O_EXCL, mode 0600, so a file or link planted in a shared /tmp
    // can never be written through.
    int fd = mkostemps(path.data(), 4, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        throw SystemError(dir, "", std::string("cannot create the NCCL topology file: ") + std::strerror(e), e,
                          "point TMPDIR (or the job's tmpfs) at a directory the job's user can write");
    }
    auto fail = [&](const char *what) {
        int e = errno;
        ::close(fd);
        ::unlink(path.data());
        throw SystemError(path.data(), "", std::string(what) + ": " + std::strerror(e), e);
    };
    if (uid >= 0 && geteuid() == 0 && fchown(fd, static_cast<uid_t>(uid), static_cast<gid_t>(gid < 0 ? -1 : gid)) < 0)
        fail("cannot give the file to the job's user");
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("cannot write the NCCL topology file");
        done += static_cast<size_t>(n);
    }
    if (::close(fd) < 0) {
        int e = errno;
        ::unlink(path.data());
        throw SystemError(path.data(), "", std::string("cannot write the NCCL topology file: ") + std::strerror(e), e);
    }
    return path.data();
}

const char *pci_path_name(PciPath p) {
    switch (p) {
    case PciPath::Pix: return "PIX";
    case PciPath::Pxb: return "PXB";
    case PciPath::Phb: return "PHB";
    case PciPath::Sys: return "SYS";
    }
    return "?";
}

namespace {

// Bridges crossed between two PCI devices (the common one counted once), or -1 when their
// only common ancestor is a CPU.
int bridges_between(const NodeTopology &t, int a, int b) {
    std::vector<int> pa = t.pci_path(a), pb = t.pci_path(b);
    for (size_t i = 0; i < pa.size(); ++i) {
        auto it = std::find(pb.begin(), pb.end(), pa[i]);
        if (it != pb.end()) {
            size_t j = static_cast<size_t>(it - pb.begin());
            return static_cast<int>(i + j) - 1;  // path a..lca..b without the two ends
        }
    }
    return -1;
}

std::pair<PciPath, int> distance(const NodeTopology &t, int gpu_pci, int nic_pci) {
    int bridges = bridges_between(t, gpu_pci, nic_pci);
    if (bridges >= 0) return {bridges <= 1 ? PciPath::Pix : PciPath::Pxb, bridges};
    if (t.pci[gpu_pci].numa == t.pci[nic_pci].numa) return {PciPath::Phb, 1000};
    return {PciPath::Sys, 2000};
}

}  // namespace

std::vector<GpuNic> nearest_nics(const NodeTopology &t) {
    std::vector<GpuNic> out;
    std::vector<std::vector<int>> candidates(t.gpus.size());
    for (size_t g = 0; g < t.gpus.size(); ++g) {
        GpuNic gn;
        gn.gpu = t.gpus[g].index;
        int best = -1;
        for (size_t k = 0; k < t.nics.size(); ++k) {
            if (t.nics[k].hca.empty()) continue;
            auto [path, d] = distance(t, t.gpus[g].pci, t.nics[k].pci);
            if (best < 0 || d < best) {
                best = d;
                gn.path = path;
                candidates[g].clear();
            }
            if (d == best) candidates[g].push_back(static_cast<int>(k));
        }
        out.push_back(gn);
    }
    // Pair GPUs that see the same nearest NICs with those NICs in bus order.
    std::map<std::vector<int>, size_t> seen;
    for (size_t g = 0; g < out.size(); ++g) {
        if (candidates[g].empty()) continue;
        size_t pos = seen[candidates[g]]++;
        out[g].nic = candidates[g][pos % candidates[g].size()];
    }
    return out;
}

}  // namespace morpheus
