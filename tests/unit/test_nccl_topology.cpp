// The NCCL topology XML written from hwloc fixtures, checked element by element with a parser
// as strict as NCCL's (src/graph/xml.cc), against golden files, against the vocabulary of the
// providers' real NCCL_TOPO_FILEs, and with xmllint when installed; GPU -> NIC pairing.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "nccl_topology.hpp"
#include "node_topology.hpp"
#include "test_support.hpp"

using namespace morpheus;

namespace {

struct Element {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attrs;
    std::vector<std::unique_ptr<Element>> children;
    Element *parent = nullptr;
    std::string get(const std::string &k) const {
        for (const auto &a : attrs)
            if (a.first == k) return a.second;
        return "";
    }
    bool has(const std::string &k) const {
        for (const auto &a : attrs)
            if (a.first == k) return true;
        return false;
    }
};

// A parser with NCCL's rules: no <?xml?> declaration, quoted values, at most 16 attributes and
// 255-character names and values, comments skipped, tags properly nested. Returns nullptr and
// says why on anything else.
class StrictXml {
public:
    explicit StrictXml(std::string text) : s_(std::move(text)) {}
    std::unique_ptr<Element> parse(std::string &why) {
        auto root = std::make_unique<Element>();
        root->name = "#document";
        Element *cur = root.get();
        while (true) {
            skip_space_and_comments();
            if (pos_ >= s_.size()) break;
            if (s_[pos_] != '<') return reject(why, "text outside elements");
            if (s_.compare(pos_, 2, "<?") == 0) return reject(why, "a <?...?> declaration (NCCL rejects it)");
            if (s_.compare(pos_, 2, "</") == 0) {
                pos_ += 2;
                std::string name = word();
                skip_space();
                if (pos_ >= s_.size() || s_[pos_] != '>') return reject(why, "bad closing tag");
                ++pos_;
                if (name != cur->name) return reject(why, "</" + name + "> closes <" + cur->name + ">");
                cur = cur->parent;
                continue;
            }
            ++pos_;
            auto e = std::make_unique<Element>();
            e->name = word();
            if (e->name.empty() || e->name.size() > 255) return reject(why, "bad element name");
            while (true) {
                skip_space();
                if (pos_ >= s_.size()) return reject(why, "unterminated tag");
                if (s_[pos_] == '/' || s_[pos_] == '>') break;
                std::string k = word();
                if (k.empty() || pos_ >= s_.size() || s_[pos_] != '=') return reject(why, "attribute without =value");
                ++pos_;
                if (pos_ >= s_.size() || s_[pos_] != '"') return reject(why, "unquoted value of " + k);
                size_t end = s_.find('"', pos_ + 1);
                if (end == std::string::npos) return reject(why, "unterminated value");
                std::string v = s_.substr(pos_ + 1, end - pos_ - 1);
                pos_ = end + 1;
                if (k.size() > 255 || v.size() > 255) return reject(why, "name or value over 255 characters");
                e->attrs.emplace_back(k, v);
            }
            if (e->attrs.size() > 16) return reject(why, "more than 16 attributes on <" + e->name + ">");
            bool empty = s_[pos_] == '/';
            pos_ += empty ? 2 : 1;
            e->parent = cur;
            Element *raw = e.get();
            cur->children.push_back(std::move(e));
            if (!empty) cur = raw;
        }
        if (cur != root.get()) return reject(why, "<" + cur->name + "> never closed");
        return root;
    }

private:
    std::unique_ptr<Element> reject(std::string &why, const std::string &w) {
        why = w + " at offset " + std::to_string(pos_);
        return nullptr;
    }
    void skip_space() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    void skip_space_and_comments() {
        while (true) {
            skip_space();
            if (s_.compare(pos_, 4, "<!--") != 0) return;
            size_t end = s_.find("-->", pos_);
            pos_ = end == std::string::npos ? s_.size() : end + 3;
        }
    }
    std::string word() {
        size_t start = pos_;
        while (pos_ < s_.size() &&
               (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '-'))
            ++pos_;
        return s_.substr(start, pos_ - start);
    }
    std::string s_;
    size_t pos_ = 0;
};

std::unique_ptr<Element> parse_or_fail(const std::string &text, const std::string &what) {
    std::string why;
    std::unique_ptr<Element> doc = StrictXml(text).parse(why);
    if (!doc) {
        std::fprintf(stderr, "%s: %s\n", what.c_str(), why.c_str());
        fail();
    }
    return doc;
}

void collect(const Element &e, const std::string &name, std::vector<const Element *> &out) {
    if (e.name == name) out.push_back(&e);
    for (const auto &c : e.children) collect(*c, name, out);
}

const Element *ancestor(const Element *e, const std::string &name) {
    for (const Element *p = e->parent; p; p = p->parent)
        if (p->name == name) return p;
    return nullptr;
}

std::vector<std::string> ancestor_busids(const Element *e) {
    std::vector<std::string> out;
    for (const Element *p = e->parent; p && p->name == "pci"; p = p->parent) out.push_back(p->get("busid"));
    return out;
}

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        fail();
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

NodeTopology fixture(const char *name) { return load_node_topology(test_data(std::string("hwloc/") + name)); }

// Element -> attribute names, as used by a set of files.
using Vocabulary = std::map<std::string, std::set<std::string>>;
void vocabulary(const Element &e, Vocabulary &v) {
    if (e.name != "#document") {
        auto &attrs = v[e.name];
        for (const auto &a : e.attrs) attrs.insert(a.first);
    }
    for (const auto &c : e.children) vocabulary(*c, v);
}

// NCCL's kvDictPciGen (topo.cc), the strings it matches link_speed against.
const std::set<std::string> kNcclSpeeds = {"2.5 GT/s",       "5 GT/s",         "8 GT/s",        "16 GT/s",
                                           "32 GT/s",        "2.5 GT/s PCIe",  "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                           "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe"};

bool is_hex_word_list(const std::string &s) {
    if (s.empty()) return false;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i % 9 == 8) {
            if (s[i] != ',') return false;
        } else if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(static_cast<unsigned char>(s[i]))) {
            return false;
        }
    }
    return s.size() % 9 == 8;
}

bool is_busid(const std::string &s) {
    unsigned d, b, dv, f;
    char tail;
    return s.size() == 12 && std::sscanf(s.c_str(), "%4x:%2x:%2x.%1x%c", &d, &b, &dv, &f, &tail) == 4;
}

}  // namespace

static void output_has_nccls_shape(void **) {
    std::string xml = nccl_topology_xml(fixture("dgx-8gpu-8nic.xml"));
    assert_int_equal(xml.rfind("<system version=\"1\">\n", 0), 0);  // first line, no <?xml?>
    assert_null(std::strstr(xml.c_str(), "<?xml"));
    auto doc = parse_or_fail(xml, "dgx NCCL XML");
    assert_int_equal(doc->children.size(), 1);
    const Element &sys = *doc->children[0];
    assert_string_equal(sys.name.c_str(), "system");
    assert_string_equal(sys.get("version").c_str(), "1");
    assert_int_equal(sys.children.size(), 2);
    const char *affinity[] = {"00000000,ffffffff,00000000,ffffffff", "ffffffff,00000000,ffffffff,00000000"};
    for (int i = 0; i < 2; ++i) {
        const Element &cpu = *sys.children[i];
        assert_string_equal(cpu.name.c_str(), "cpu");
        assert_string_equal(cpu.get("numaid").c_str(), std::to_string(i).c_str());
        assert_string_equal(cpu.get("affinity").c_str(), affinity[i]);
        assert_string_equal(cpu.get("arch").c_str(), "x86_64");
        assert_string_equal(cpu.get("vendor").c_str(), "AuthenticAMD");
        assert_string_equal(cpu.get("familyid").c_str(), "23");
        assert_string_equal(cpu.get("modelid").c_str(), "49");
    }
}

static void gpus_and_nics_sit_under_the_right_switches_and_cpus(void **) {
    auto doc = parse_or_fail(nccl_topology_xml(fixture("dgx-8gpu-8nic.xml")), "dgx NCCL XML");
    std::vector<const Element *> pcis;
    collect(*doc, "pci", pcis);
    std::map<std::string, const Element *> by_bus;
    for (const Element *p : pcis) by_bus[p->get("busid")] = p;
    std::vector<const Element *> gpus, nics;
    for (const Element *p : pcis) {
        if (p->get("class") == "0x030200") gpus.push_back(p);
        if (p->get("class") == "0x020700") nics.push_back(p);
    }
    assert_int_equal(gpus.size(), 8);
    assert_int_equal(nics.size(), 8);
    // GPU k and mlx5_k hang off the same sub-switch; the sub-switch's upstream port, the
    // Broadcom switch and the root port above it; under socket k/4's CPU.
    const char *gpu_bus[] = {"0000:05:00.0", "0000:12:00.0", "0000:45:00.0", "0000:52:00.0",
                             "0000:85:00.0", "0000:92:00.0", "0000:c5:00.0", "0000:d2:00.0"};
    const char *sub_switch[] = {"0000:03:00.0", "0000:10:00.0", "0000:43:00.0", "0000:50:00.0",
                                "0000:83:00.0", "0000:90:00.0", "0000:c3:00.0", "0000:d0:00.0"};
    const char *root_port[] = {"0000:00:01.1", "0000:40:01.1", "0000:80:01.1", "0000:c0:01.1"};
    for (int k = 0; k < 8; ++k) {
        const Element *g = by_bus.at(gpu_bus[k]);
        assert_true(g->children.empty());  // no <gpu>: NVML's dev index is NCCL's to fill
        std::vector<std::string> up = ancestor_busids(g);
        assert_int_equal(up.size(), 5);
        assert_string_equal(up[1].c_str(), sub_switch[k]);
        assert_string_equal(up[4].c_str(), root_port[k / 2]);
        for (const std::string &b : up) assert_string_equal(by_bus.at(b)->get("class").c_str(), "0x060400");
        assert_string_equal(ancestor(g, "cpu")->get("numaid").c_str(), k < 4 ? "0" : "1");
        assert_string_equal(g->get("vendor").c_str(), "0x10de");
        assert_string_equal(g->get("device").c_str(), "0x20b0");
        assert_string_equal(g->get("link_speed").c_str(), "16.0 GT/s PCIe");
        assert_string_equal(g->get("link_width").c_str(), "16");
        // the NIC of the same sub-switch
        const Element *n = nullptr;
        for (const Element *cand : nics)
            if (ancestor_busids(cand)[1] == sub_switch[k]) n = cand;
        assert_non_null(n);
        assert_int_equal(n->children.size(), 1);
        const Element &nic = *n->children[0];
        assert_string_equal(nic.name.c_str(), "nic");
        assert_int_equal(nic.children.size(), 1);
        assert_string_equal(nic.children[0]->name.c_str(), "net");
        assert_string_equal(nic.children[0]->get("name").c_str(), ("mlx5_" + std::to_string(k)).c_str());
        assert_string_equal(ancestor(n, "cpu")->get("numaid").c_str(), k < 4 ? "0" : "1");
    }
    // Management NIC on socket 0's root complex (Gen3 x8), storage ConnectX on socket 1's.
    const Element *eno = by_bus.at("0000:21:00.0");
    assert_string_equal(eno->get("class").c_str(), "0x020000");
    assert_string_equal(eno->get("link_speed").c_str(), "8.0 GT/s PCIe");
    assert_string_equal(eno->get("link_width").c_str(), "8");
    assert_string_equal(eno->children[0]->children[0]->get("name").c_str(), "eno1");
    assert_string_equal(ancestor(eno, "cpu")->get("numaid").c_str(), "0");
    const Element *st = by_bus.at("0000:e1:00.0");
    assert_string_equal(st->children[0]->children[0]->get("name").c_str(), "mlx5_8");
    assert_string_equal(ancestor(st, "cpu")->get("numaid").c_str(), "1");
}

static void every_value_is_spelled_as_nccl_reads_it(void **) {
    for (const char *f : {"dgx-8gpu-8nic.xml", "32em64t-2n8c2t-pci-normalio.xml"}) {
        auto doc = parse_or_fail(nccl_topology_xml(fixture(f)), f);
        std::vector<const Element *> pcis, cpus;
        collect(*doc, "pci", pcis);
        collect(*doc, "cpu", cpus);
        for (const Element *c : cpus) {
            assert_true(c->has("numaid"));
            assert_true(is_hex_word_list(c->get("affinity")));
        }
        for (const Element *p : pcis) {
            assert_true(is_busid(p->get("busid")));
            std::string cls = p->get("class");
            assert_int_equal(cls.size(), 8);
            assert_int_equal(cls.rfind("0x", 0), 0);
            if (p->has("link_speed")) {
                assert_true(kNcclSpeeds.count(p->get("link_speed")) == 1);
                assert_true(p->has("link_width"));
            }
            for (const char *k : {"vendor", "device", "subsystem_vendor", "subsystem_device"}) {
                assert_int_equal(p->get(k).size(), 6);
            }
        }
    }
    // Unknown link speeds (hwloc's 0) are left out for NCCL to read from sysfs.
    std::string old = nccl_topology_xml(fixture("32em64t-2n8c2t-pci-normalio.xml"));
    assert_null(std::strstr(old.c_str(), "link_speed"));
}

static void vocabulary_is_the_reference_files_vocabulary(void **) {
    // What the project writes, by element.
    Vocabulary ours;
    for (const char *f : {"dgx-8gpu-8nic.xml", "32em64t-2n8c2t-pci-normalio.xml"})
        vocabulary(*parse_or_fail(nccl_topology_xml(fixture(f)), f), ours);
    const Vocabulary allowed = {
        {"system", {"version"}},
        {"cpu", {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"}},
        {"pci",
         {"busid", "class", "vendor", "device", "subsystem_vendor", "subsystem_device", "link_speed", "link_width"}},
        {"nic", {}},
        {"net", {"name"}},
    };
    for (const auto &[el, attrs] : ours) {
        assert_true(allowed.count(el) == 1);
        for (const std::string &a : attrs) assert_true(allowed.at(el).count(a) == 1);
    }
    // And the providers' files use every one of those words: our vocabulary is a subset of
    // theirs. Azure's are vendored in tests/data/nccl-reference (origin and licence there).
    const char *env = std::getenv("MORPHEUS_NCCL_REFERENCE_DIR");
    std::string dir = env ? env : std::string(TEST_DATA_DIR) + "/nccl-reference";
    DIR *d = opendir(dir.c_str());
    if (!d) {
        std::fprintf(stderr,
                     "NCCL reference files not found in %s; set MORPHEUS_NCCL_REFERENCE_DIR to the "
                     "directory of Azure/AWS *-topo.xml files\n",
                     dir.c_str());
        fail();
    }
    Vocabulary theirs;
    int files = 0;
    while (dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() < 9 || n.compare(n.size() - 9, 9, "-topo.xml") != 0) continue;
        vocabulary(*parse_or_fail(read_file(dir + "/" + n), n), theirs);
        ++files;
    }
    closedir(d);
    assert_true(files >= 3);
    for (const auto &[el, attrs] : ours) {
        if (!theirs.count(el)) {
            std::fprintf(stderr, "<%s> appears in no reference file\n", el.c_str());
            fail();
        }
        for (const std::string &a : attrs) {
            if (!theirs.at(el).count(a)) {
                std::fprintf(stderr, "%s=\"\" on <%s> appears in no reference file\n", a.c_str(), el.c_str());
                fail();
            }
        }
    }
}

static void output_matches_golden_files(void **) {
    struct {
        const char *hwloc, *golden;
    } cases[] = {{"dgx-8gpu-8nic.xml", "nccl/dgx-8gpu-8nic.nccl.xml"},
                 {"32em64t-2n8c2t-pci-normalio.xml", "nccl/32em64t-2n8c2t-pci-normalio.nccl.xml"}};
    for (const auto &c : cases) {
        std::string got = nccl_topology_xml(fixture(c.hwloc));
        std::string want = read_file(test_data(c.golden));
        if (got != want) {
            std::fprintf(stderr,
                         "NCCL XML of %s differs from %s; regenerate with morpheus node --topology %s --nccl-file\n",
                         c.hwloc, c.golden, c.hwloc);
            fail();
        }
    }
}

static void xmllint_accepts_it_when_installed(void **) {
    if (system("command -v xmllint >/dev/null 2>&1") != 0) {
        std::fprintf(stderr, "*** SKIPPED: xmllint not installed (package libxml2-utils) ***\n");
        skip();
    }
    char dir[] = "/tmp/morpheus-nccl-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string path = write_private_file(dir, "lint", nccl_topology_xml(fixture("dgx-8gpu-8nic.xml")));
    std::string cmd = "xmllint --noout '" + path + "'";
    int rc = system(cmd.c_str());
    unlink(path.c_str());
    rmdir(dir);
    assert_int_equal(rc, 0);
}

static void link_speeds_map_to_ncclss_table(void **) {
    PciDevice d;
    d.link_gbps = 16 * 128.0 / 130 * 16 / 8;
    auto l = nccl_link(d);
    assert_string_equal(l.first.c_str(), "16.0 GT/s PCIe");
    assert_string_equal(l.second.c_str(), "16");
    d.link_gbps = 31.507692;  // as hwloc prints it in XML
    assert_string_equal(nccl_link(d).first.c_str(), "16.0 GT/s PCIe");
    d.link_gbps = 63.015385;
    assert_string_equal(nccl_link(d).first.c_str(), "32.0 GT/s PCIe");
    d.link_gbps = 7.876923;
    l = nccl_link(d);
    assert_string_equal(l.first.c_str(), "8.0 GT/s PCIe");
    assert_string_equal(l.second.c_str(), "8");
    d.link_gbps = 4.0;  // Gen1 x16: an idle GPU's trained-down link as hwloc saw it
    assert_string_equal(nccl_link(d).first.c_str(), "2.5 GT/s PCIe");
    d.link_gbps = 0;
    assert_true(nccl_link(d).first.empty());
    d.link_gbps = 12.3;  // matches nothing: leave it to NCCL
    assert_true(nccl_link(d).first.empty());
    // The live machine's sysfs maximum wins, verbatim, when NCCL's table knows it.
    d.max_link_speed = "32.0 GT/s PCIe";
    d.max_link_width = "16";
    assert_string_equal(nccl_link(d).first.c_str(), "32.0 GT/s PCIe");
    d.max_link_speed = "Unknown";
    assert_true(nccl_link(d).first.empty());
}

static void gpus_pair_with_their_nearest_nics(void **) {
    NodeTopology t = fixture("dgx-8gpu-8nic.xml");
    std::vector<GpuNic> near = nearest_nics(t);
    assert_int_equal(near.size(), 8);
    for (unsigned k = 0; k < 8; ++k) {
        assert_int_equal(near[k].gpu, k);
        assert_true(near[k].nic >= 0);
        assert_string_equal(t.nics[near[k].nic].hca.c_str(), ("mlx5_" + std::to_string(k)).c_str());
        assert_int_equal(near[k].path, PciPath::Pxb);
    }
    // The hwloc capture: GPU 2 shares a root port with the HCA, GPU 1 only the socket, GPU 0
    // is on the other socket.
    NodeTopology o = fixture("32em64t-2n8c2t-pci-normalio.xml");
    std::vector<GpuNic> on = nearest_nics(o);
    assert_int_equal(on[2].path, PciPath::Pix);
    assert_int_equal(on[1].path, PciPath::Phb);
    assert_int_equal(on[0].path, PciPath::Sys);
    assert_string_equal(pci_path_name(on[0].path), "SYS");
    // No RDMA NIC at all: no pairing.
    NodeTopology c = fixture("cxl-2s-3far.xml");
    assert_true(nearest_nics(c).empty());
}

static void flat_switches_pair_gpus_and_nics_in_bus_order(void **) {
    // An Azure NDv4-like switch: two GPUs and two HCAs on one bridge.
    NodeTopology t;
    t.numa.push_back(NumaNode{});
    auto dev = [&](PciKind k, const std::string &bus, int parent) {
        PciDevice d;
        d.kind = k;
        d.busid = bus;
        d.parent = parent;
        d.numa = 0;
        t.pci.push_back(d);
        int i = static_cast<int>(t.pci.size()) - 1;
        if (parent >= 0) t.pci[parent].children.push_back(i);
        return i;
    };
    int sw = dev(PciKind::Bridge, "ffff:ff:01.0", -1);
    int g0 = dev(PciKind::Gpu, "0001:00:00.0", sw), n0 = dev(PciKind::Nic, "0101:00:00.0", sw);
    int g1 = dev(PciKind::Gpu, "0002:00:00.0", sw), n1 = dev(PciKind::Nic, "0102:00:00.0", sw);
    t.gpus = {Gpu{g0, 0}, Gpu{g1, 1}};
    t.nics = {Nic{n0, "mlx5_ib0", {}, true}, Nic{n1, "mlx5_ib1", {}, true}};
    std::vector<GpuNic> near = nearest_nics(t);
    assert_int_equal(near[0].nic, 0);
    assert_int_equal(near[1].nic, 1);
    assert_int_equal(near[0].path, PciPath::Pix);
}

static void private_files_are_0600_and_never_reused(void **) {
    char dir[] = "/tmp/morpheus-nccl-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string a = write_private_file(dir, "morpheus-nccl-topo.42.0", "<system version=\"1\">\n</system>\n");
    std::string b = write_private_file(dir, "morpheus-nccl-topo.42.0", "x");
    assert_string_not_equal(a.c_str(), b.c_str());
    assert_int_equal(a.rfind(std::string(dir) + "/morpheus-nccl-topo.42.0.", 0), 0);
    assert_int_equal(a.compare(a.size() - 4, 4, ".xml"), 0);
    struct stat st;
    assert_int_equal(stat(a.c_str(), &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_string_equal(read_file(a).c_str(), "<system version=\"1\">\n</system>\n");
    unlink(a.c_str());
    unlink(b.c_str());
    rmdir(dir);
    expect_input_error([] { write_private_file("/nonexistent-dir", "x", "y"); }, {"/nonexistent-dir", "TMPDIR"});
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(output_has_nccls_shape),
        cmocka_unit_test(gpus_and_nics_sit_under_the_right_switches_and_cpus),
        cmocka_unit_test(every_value_is_spelled_as_nccl_reads_it),
        cmocka_unit_test(vocabulary_is_the_reference_files_vocabulary),
        cmocka_unit_test(output_matches_golden_files),
        cmocka_unit_test(xmllint_accepts_it_when_installed),
        cmocka_unit_test(link_speeds_map_to_ncclss_table),
        cmocka_unit_test(gpus_pair_with_their_nearest_nics),
        cmocka_unit_test(flat_switches_pair_gpus_and_nics_in_bus_order),
        cmocka_unit_test(private_files_are_0600_and_never_reused),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
