// Checkpoint offload (issue 28): link tiers and bandwidths in the fabric, the paths' links,
// the flags and their errors, the link book's windows, the region's replicas, decide() with
// the book, the ledger's record of a window and the engine keeping book across a restart.
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "checkpoint.hpp"
#include "checkpoint_region.hpp"
#include "config.hpp"
#include "engine.hpp"
#include "example_cluster.hpp"
#include "explain.hpp"
#include "morpheus/morpheus_ckpt.h"
#include "pending_reason.hpp"
#include "status_model.hpp"
#include "units.hpp"
#include "test_support.hpp"

using namespace morpheus;

namespace {

const char *kTiered = R"({
  "pods": [{"name": "p1", "nodes": "n[1-2]"}],
  "switches": [{"name": "s1", "tier": "leaf"}, {"name": "top", "tier": "spine"}],
  "blades": [{"name": "b1"}, {"name": "b2", "failure_domain": "rack7"}],
  "link_tiers": [{"name": "spine", "bandwidth": 200}],
  "bulk_traffic": {"service_level": 3, "traffic_class": 106},
  "links": [{"from": "p1", "to": "s1", "latency": 10, "bandwidth": 400},
            {"from": "s1", "to": "top", "latency": 10},
            {"from": "b1", "to": "s1", "latency": 10, "bandwidth": 100, "tier": "edge"},
            {"from": "b2", "to": "top", "latency": 10}]
})";

Request ckpt(uint64_t job, uint32_t nodes, const char *size, const char *period, const char *max = nullptr,
             const char *replicas = nullptr) {
    Request r;
    r.job_id = job;
    r.nodes = nodes;
    parse_checkpoint_flags(r, size, period, max, replicas);
    return r;
}

ClusterModel example_with(const CheckpointSettings &cs) {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), f);
    PlacementSettings s;
    s.checkpoint = cs;
    return ClusterModel(std::move(f), std::move(inv), s);
}

// The example fabric with persistent memory on blade1 only, and CheckpointCycle `cycle_s`.
ClusterModel blade1_pmem_only(int64_t cycle_s) {
    Fabric f = read_fabric(top_srcdir("etc/fabric.json"));
    Inventory inv =
        parse_inventory(R"({"version": 1, "blades": [{"name": "blade1", "dram": "1T", "pmem": "4T"}]})", "inv.json", f);
    PlacementSettings ps;
    ps.checkpoint.cycle_s = cycle_s;
    return ClusterModel(std::move(f), std::move(inv), ps);
}

}  // namespace

static void fabric_link_tiers_and_domains(void **) {
    Fabric f = parse_fabric(kTiered, "t.json");
    auto tier = [&](size_t link) { return f.link_tiers[f.links[link].tier].name; };
    assert_string_equal(tier(0).c_str(), "leaf");  // the switch it goes to
    assert_string_equal(tier(1).c_str(), "spine");
    assert_string_equal(tier(2).c_str(), "edge");  // its own
    assert_string_equal(tier(3).c_str(), "spine");
    assert_true(f.links[1].bandwidth_gbps == 200);  // from its tier
    assert_true(f.links[3].bandwidth_gbps == 200);
    assert_string_equal(f.blade_domain[0].c_str(), "switch:s1");
    assert_string_equal(f.blade_domain[1].c_str(), "rack7");
    assert_int_equal(f.bulk_service_level, 3);
    assert_int_equal(f.bulk_traffic_class, 106);
    // Every fabric written before link tiers existed still loads, the same.
    Fabric old = read_fabric(top_srcdir("etc/fabric.json"));
    assert_string_equal(old.link_tiers[old.links[0].tier].name.c_str(), "leaf");
    assert_int_equal(old.bulk_service_level, -1);
}

static void fabric_bandwidth_errors(void **) {
    std::string no_bw = kTiered;
    no_bw.replace(no_bw.find("\"bandwidth\": 100, "), 18, "");
    expect_input_error([&] { parse_fabric(no_bw, "t.json"); },
                       {"t.json", "$.links[2]", "no bandwidth", "\"edge\"", "link_tiers"});
    std::string twice = kTiered;
    twice.replace(twice.find("\"link_tiers\": ["), 15, "\"link_tiers\": [{\"name\": \"spine\"}, ");
    expect_input_error([&] { parse_fabric(twice, "t.json"); }, {"declared twice"});
    std::string sl = kTiered;
    sl.replace(sl.find("\"service_level\": 3"), 18, "\"service_level\": 16");
    expect_input_error([&] { parse_fabric(sl, "t.json"); }, {"$.bulk_traffic.service_level"});
}

static void paths_cross_links_and_share(void **) {
    ClusterModel m = example();
    const Fabric &f = m.fabric();
    const LinkPaths &p = m.paths();
    uint32_t pod1 = f.pod_index("pod1"), b5 = f.blade_index("blade5"), b1 = f.blade_index("blade1");
    std::vector<std::string> names;
    for (const uint32_t *l = p.path_begin(pod1, b5); l != p.path_end(pod1, b5); ++l) names.push_back(link_name(f, *l));
    assert_int_equal(names.size(), 3);
    assert_string_equal(names[0].c_str(), "pod1->leaf1 (leaf)");
    assert_string_equal(names[1].c_str(), "leaf1->spine1 (spine)");
    assert_string_equal(names[2].c_str(), "blade5->spine1 (spine)");
    // Default share 0.5: 200 Gb/s x 0.5 = 12.5 GB/s on the spine blade's link.
    assert_true(std::abs(p.path_rate(pod1, b5) - 12.5e9) < 1);
    assert_true(std::abs(p.path_rate(pod1, b1) - 25e9) < 1);
    CheckpointSettings cs;
    cs.by_tier = {{"spine", 0.25}};
    ClusterModel shared = example_with(cs);
    assert_true(std::abs(shared.paths().path_rate(pod1, b5) - 6.25e9) < 1);
    cs.by_tier = {{"core", 0.25}};
    expect_input_error([&] { example_with(cs); }, {"CheckpointShare", "\"core\"", "leaf, spine"});
}

static void flags_parse_and_refuse(void **) {
    Request r = ckpt(1, 2, "2T", "30m", "1h", "2");
    assert_int_equal(r.ckpt_bytes, uint64_t(2) << 40);
    assert_int_equal(r.ckpt_period_s, 1800);
    assert_int_equal(r.ckpt_period_max_s, 3600);
    assert_int_equal(r.replicas(), 2);
    assert_true(r.wants_memory());
    assert_int_equal(ckpt(1, 1, "1024", "90s").ckpt_bytes, uint64_t(1) << 30);  // plain numbers: MB, as --mem
    expect_input_error([] { ckpt(1, 1, "2 parsecs", "30m"); }, {"--ckpt-size", "--ckpt-size=64G"});
    expect_input_error([] { ckpt(1, 1, "0", "30m"); }, {"--ckpt-size", "0 bytes"});
    expect_input_error([] { ckpt(1, 1, "2T", nullptr); }, {"--ckpt-period", "without a period", "30m"});
    expect_input_error([] { ckpt(1, 1, nullptr, "30m"); }, {"--ckpt-size", "without --ckpt-size"});
    expect_input_error([] { ckpt(1, 1, "2T", "soon"); }, {"--ckpt-period", "not a wait"});
    expect_input_error([] { ckpt(1, 1, "2T", "0"); }, {"--ckpt-period", "not a checkpoint period"});
    expect_input_error([] { ckpt(1, 1, "2T", "hard"); }, {"--ckpt-period", "not a checkpoint period"});
    expect_input_error([] { ckpt(1, 1, "2T", "1h", "30m"); }, {"--ckpt-period-max", "shorter than"});
    expect_input_error([] { ckpt(1, 1, "2T", "1h", nullptr, "0"); }, {"--ckpt-replicas", "1 to 4"});
    expect_input_error([] { ckpt(1, 1, "2T", "1h", nullptr, "5"); }, {"--ckpt-replicas"});
    expect_input_error([] { ckpt(1, 1, "2T", "1h", nullptr, "x"); }, {"--ckpt-replicas"});
}

static void never_fits_says_why(void **) {
    ClusterModel m = example();  // pmem: 2T on blades 1-4, 4T on 5-8; one domain per switch
    assert_string_equal(checkpoint_problem(m, ckpt(1, 1, "2T", "30m")).c_str(), "");
    std::string big = checkpoint_problem(m, ckpt(1, 1, "40T", "4h"));
    assert_non_null(strstr(big.c_str(), "--ckpt-size=40T is more than the 24T of persistent memory"));
    // 6 domains (leaf1-4, spine1, spine2); 3 copies of 9T: spine1 (8T) + leaf1 ... no third.
    std::string copies = checkpoint_problem(m, ckpt(1, 1, "9T", "4h", nullptr, "3"));
    assert_non_null(strstr(copies.c_str(), "separate failure domains"));
    assert_non_null(strstr(copies.c_str(), "fewer --ckpt-replicas"));
    // 1T alone: at most min(pods' uplinks, blades' links) at the share; 10s is far too short.
    std::string fast = checkpoint_problem(m, ckpt(1, 1, "10T", "30s"));
    assert_non_null(strstr(fast.c_str(), "one flush takes at least"));
    assert_non_null(strstr(fast.c_str(), "--ckpt-period=30s"));
    std::string slot = checkpoint_problem(m, ckpt(1, 1, "1G", "5s"));
    assert_non_null(strstr(slot.c_str(), "CheckpointSlot=10s"));
    // decide() and feasibility() refuse it as never fitting.
    Decision d = feasibility(m, ckpt(1, 1, "40T", "4h"));
    assert_int_equal(d.verdict, Verdict::Impossible);
}

static void config_keys(void **) {
    Config c = parse_config(
        "FabricFile=f\nInventoryFile=i\nCheckpointShare=0.4,spine:0.25\nCheckpointSlot=5\nCheckpointCycle=2h\n",
        "m.conf");
    assert_true(c.placement.checkpoint.share == 0.4);
    assert_int_equal(c.placement.checkpoint.by_tier.size(), 1);
    assert_string_equal(c.placement.checkpoint.by_tier[0].first.c_str(), "spine");
    assert_int_equal(c.placement.checkpoint.slot_s, 5);
    assert_int_equal(c.placement.checkpoint.cycle_s, 7200);
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nCheckpointShare=1.5\n", "m.conf"); },
                       {"m.conf", "line 3", "CheckpointShare", "not a share"});
    expect_input_error([] { parse_config("FabricFile=f\nInventoryFile=i\nCheckpointShare=:0.5\n", "m.conf"); },
                       {"empty tier"});
    expect_input_error(
        [] { parse_config("FabricFile=f\nInventoryFile=i\nCheckpointSlot=7\nCheckpointCycle=1h\n", "m.conf"); },
        {"CheckpointCycle", "multiple of the slot"});
}

static void book_staggers_and_folds(void **) {
    // One link of 100 B/s; slot 10 s, cycle 180 s.
    LinkBook book({100.0 * 1000}, 10, 180);
    std::vector<LinkLoad> half{{0, 60.0 * 1000}};
    auto a = book.find_phase(half, 60, 20);
    assert_true(a && *a == 0);
    book.book(1, half, {60, *a, 20});
    // A second 60% flush cannot overlap the first: it goes right after it.
    auto b = book.find_phase(half, 60, 20);
    assert_true(b && *b == 20);
    book.book(2, half, {60, *b, 20});
    auto c = book.find_phase(half, 60, 20);
    assert_true(c && *c == 40);
    book.book(3, half, {60, *c, 20});
    uint32_t blocking = 99;
    assert_false(book.find_phase(half, 60, 10, 0, &blocking).has_value());  // every instant holds 60%
    assert_int_equal(blocking, 0);
    assert_true(book.find_phase({{0, 40.0 * 1000}}, 60, 60).has_value());  // 40% still fits beside
    assert_true(book.peak(0) <= book.capacity(0));
    // Period 90 against period 60 (both divide 180): exact over the cycle, not folded blindly.
    assert_true(book.release(2));
    assert_true(book.release(3));
    assert_false(book.release(3));
    // Job 1 holds [0,20) [60,80) [120,140); windows of 20 s every 90 s always hit one of them
    // (folding by 90 alone would miss that [110,130) meets [120,140)); of 10 s, 20 is free.
    assert_false(book.find_phase(half, 90, 20).has_value());
    auto d = book.find_phase(half, 90, 10);
    assert_true(d && *d == 20);
    book.book(4, half, {90, *d, 10});
    for (int64_t t = 0; t < 180; t += 10) assert_true(book.booked(0, t) <= book.capacity(0));
    assert_false(book.find_phase(half, 70, 10).has_value());  // 70 does not divide the cycle
    assert_false(book.find_phase({{0, 101.0 * 1000}}, 60, 10).has_value());  // over the share even alone
    FlushWindow w{60, 20, 20};
    assert_true(w.open_at(25));
    assert_false(w.open_at(45));
    assert_int_equal(w.opens_in(45), 35);
    assert_int_equal(w.opens_in(30), 0);
}

static void periods_round_and_stretch(void **) {
    ClusterModel m = example();  // slot 10s, cycle 4h
    LinkBook book = empty_link_book(m);
    auto p = period_candidates(book, ckpt(1, 1, "1G", "45m", "1h"));
    assert_int_equal(p.front(), 2400);  // 45m rounds down to 40m, which divides 4h
    assert_int_equal(p.back(), 3600);
    assert_int_equal(p.size(), 3);  // 40m, 48m, 1h
    assert_int_equal(period_candidates(book, ckpt(1, 1, "1G", "9h")).front(), 4 * 3600);
}

static void region_replicas_apart(void **) {
    ClusterModel m = example();
    Ledger empty(m.fabric().blades.size());
    std::vector<Segment> out;
    std::string why;
    uint32_t pod1 = m.fabric().pod_index("pod1");
    assert_true(choose_region(m, empty, {{pod1, 2}}, uint64_t(3) << 40, 2, out, &why));
    uint64_t total = 0;
    for (const Segment &s : out) {
        assert_int_equal(s.tier, Tier::Pmem);
        assert_int_equal(s.use, Use::Checkpoint);
        total += s.bytes;
    }
    assert_int_equal(total, uint64_t(6) << 40);
    // First copy: blade1 (fastest, nearest, 2T) then blade2 (leaf2); the second copy avoids both domains.
    assert_string_equal(m.fabric().blades[out[0].blade].name.c_str(), "blade1");
    std::set<std::string> first{m.fabric().blade_domain[out[0].blade], m.fabric().blade_domain[out[1].blade]};
    for (size_t i = 2; i < out.size(); ++i) assert_int_equal(first.count(m.fabric().blade_domain[out[i].blade]), 0);
    out.clear();
    assert_false(choose_region(m, empty, {{pod1, 2}}, uint64_t(9) << 40, 3, out, &why));
    assert_non_null(strstr(why.c_str(), "failure domains apart"));
    assert_true(out.empty());
}

// Two jobs whose flushes share pod1's path to blade1 (1T each: 44 s at 25 GB/s) get
// disjoint windows; when the link is booked full, a third pends, naming the link, or starts
// with a longer period when it allows one.
static void decide_books_windows(void **) {
    // Persistent memory on blade1 only: nothing to route around to.
    ClusterModel m = blade1_pmem_only(240);
    Ledger ledger(m.fabric().blades.size());
    LinkBook book = empty_link_book(m);
    std::vector<uint8_t> free = all_free(m);
    std::vector<FlushWindow> got;
    for (uint64_t job = 1; job <= 2; ++job) {
        Request r = ckpt(job, 1, "1T", "4m");
        Decision d = decide(m, ledger, r, free, nullptr, &book);
        assert_int_equal(d.verdict, Verdict::Placed);
        const CheckpointHold &h = d.placement.checkpoint;
        assert_int_equal(h.period_s, 240);
        assert_int_equal(h.length_s, 44);
        Reservation res;
        res.job_id = job;
        res.pods = d.placement.pods;
        res.segments = d.placement.segments;
        res.checkpoint = h;
        assert_true(ledger.reserve(res, m.inventory()));
        book_reservation(m, book, res);
        got.push_back({h.period_s, h.phase_s, h.length_s});
    }
    // Disjoint: no instant has both windows open; no link over its share.
    for (int64_t t = 0; t < 240; ++t) assert_false(got[0].open_at(t) && got[1].open_at(t));
    for (uint32_t l = 0; l < book.link_count(); ++l) assert_true(book.peak(l) <= book.capacity(l));
    // Every 2 minutes: a window of 50 s and the one 120 s later always meet [0,100).
    Request third = ckpt(3, 1, "1T", "2m");
    Decision d = decide(m, ledger, third, free, nullptr, &book);
    assert_int_equal(d.verdict, Verdict::Pending);
    std::string reason = pending_reason(m, third, d);
    assert_non_null(strstr(reason.c_str(), "checkpoint: link blade1->leaf1 (leaf) has its checkpoint share booked"));
    assert_non_null(strstr(d.checkpoint_why.c_str(), "blade1->leaf1"));
    // Allowed up to 4 minutes: granted 4, after the other two.
    Request stretch = ckpt(3, 1, "1T", "2m", "4m");
    Decision s = decide(m, ledger, stretch, free, nullptr, &book);
    assert_int_equal(s.verdict, Verdict::Placed);
    assert_int_equal(s.placement.checkpoint.period_s, 240);
    assert_int_equal(s.placement.checkpoint.phase_s, 100);
    assert_non_null(strstr(s.placement.checkpoint_note.c_str(), "asked 2m"));
}

// The links view (morpheus links): the two windows on blade1's link, each shown to its owner
// only (the other counted), the load over the horizon within the link's capacity; a user
// cannot pick links by another user's job.
static void link_view_shows_windows_to_their_owners(void **) {
    ClusterModel m = blade1_pmem_only(240);
    Ledger ledger(m.fabric().blades.size());
    LinkBook book = empty_link_book(m);
    for (uint64_t job = 1; job <= 2; ++job) {
        Decision d = decide(m, ledger, ckpt(job, 1, "1T", "4m"), all_free(m), nullptr, &book);
        assert_int_equal(d.verdict, Verdict::Placed);
        Reservation res;
        res.job_id = job;
        res.uid = static_cast<uint32_t>(1000 * job);
        res.pods = d.placement.pods;
        res.segments = d.placement.segments;
        res.checkpoint = d.placement.checkpoint;
        assert_true(ledger.reserve(res, m.inventory()));
        book_reservation(m, book, res);
    }
    const int64_t now = 1000003;
    LinkQuery q;
    q.ends = {"blade1"};
    LinkBookView all = link_book_view(m, ledger, Viewer::of(0, true, false), now, q);
    assert_int_equal(all.windows, 2);
    assert_int_equal(all.links.size(), 1);
    assert_int_equal(all.horizon_s, 240);  // the longest booked period
    assert_int_equal(all.from, 1000000);  // down to a slot's start
    const LinkBookingStatus &k = all.links[0];
    assert_true(k.from == "blade1" || k.to == "blade1");
    assert_int_equal(k.holders.size(), 2);
    assert_int_equal(k.others, 0);
    assert_true(k.peak <= k.capacity && k.peak > 0);
    double booked_seconds = 0;
    for (const LinkSpan &s : k.load) {
        assert_true(s.start >= all.from && s.end <= all.from + all.horizon_s && s.start < s.end);
        assert_true(s.booked <= k.capacity);
        booked_seconds += double(s.end - s.start);
    }
    // Two windows of 44 s, in whole slots of 10 s, apart: 100 s of the 240 booked.
    assert_int_equal(static_cast<int64_t>(booked_seconds), 100);

    LinkBookView mine = link_book_view(m, ledger, Viewer::of(1000, false, false), now, q);
    assert_int_equal(mine.links.size(), 1);
    assert_int_equal(mine.links[0].holders.size(), 1);
    assert_int_equal(mine.links[0].holders[0].job_id, 1);
    assert_int_equal(mine.links[0].others, 1);
    assert_int_equal(mine.links[0].load.size(), k.load.size());  // the load is everybody's
    LinkQuery theirs;
    theirs.jobs = {2};
    assert_int_equal(link_book_view(m, ledger, Viewer::of(1000, false, false), now, theirs).links.size(), 0);
    assert_true(link_book_view(m, ledger, Viewer::of(2000, false, false), now, theirs).links.size() > 0);
    LinkQuery bad;
    bad.ends = {"blade99"};
    expect_input_error([&] { link_book_view(m, ledger, Viewer::of(0, true, false), now, bad); }, {"blade99"});
}

// With other blades to go to, a third job whose path to blade1 is full is routed around it.
static void decide_routes_around_full_link(void **) {
    CheckpointSettings cs;
    cs.cycle_s = 120;
    ClusterModel m = example_with(cs);
    Ledger ledger(m.fabric().blades.size());
    LinkBook book = empty_link_book(m);
    std::vector<uint8_t> free = all_free(m), pod1(free.size(), 0);
    for (uint32_t n = 0; n < 4; ++n) pod1[m.fabric().pods[0].first_node + n] = 1;
    std::vector<std::string> regions;
    for (uint64_t job = 1; job <= 3; ++job) {
        Decision d = decide(m, ledger, ckpt(job, 1, "1T", "2m"), free, &pod1, &book);
        assert_int_equal(d.verdict, Verdict::Placed);
        Reservation res;
        res.job_id = job;
        res.pods = d.placement.pods;
        res.segments = d.placement.segments;
        res.checkpoint = d.placement.checkpoint;
        assert_true(ledger.reserve(res, m.inventory()));
        book_reservation(m, book, res);
        regions.push_back(m.fabric().blades[res.segments.back().blade].name);
    }
    assert_string_equal(regions[0].c_str(), "blade1");
    assert_string_equal(regions[1].c_str(), "blade1");
    assert_string_not_equal(regions[2].c_str(), "blade1");
    for (uint32_t l = 0; l < book.link_count(); ++l) assert_true(book.peak(l) <= book.capacity(l));
}

static void ledger_keeps_window(void **) {
    ClusterModel m = example();
    Ledger l(m.fabric().blades.size());
    Reservation r;
    r.job_id = 7;
    r.pods = {{0, 1}};
    r.segments = {{0, Tier::Pmem, Use::Checkpoint, uint64_t(1) << 40, 200, 0}};
    r.checkpoint = {1800, 600, 44, uint64_t(1) << 40, 1};
    assert_true(l.reserve(r, m.inventory()));
    char dir[] = "/tmp/morpheus-ckpt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    std::string path = std::string(dir) + "/ledger.json";
    l.save(path, m.fabric());
    Ledger back = Ledger::load(path, m.fabric());
    const Reservation *b = back.find(7);
    assert_non_null(b);
    assert_true(b->checkpoint == r.checkpoint);
    assert_int_equal(b->segments[0].use, Use::Checkpoint);
    assert_int_equal(back.reserved(0, Tier::Pmem), uint64_t(1) << 40);
    LinkBook book = link_book_of(m, back);
    assert_non_null(book.find(7));
    assert_int_equal(book.find(7)->window.phase_s, 600);
    unlink(path.c_str());
    unlink((path + ".prev").c_str());
    unlink((path + ".lock").c_str());
    rmdir(dir);
}

// A temporary state directory holding the example fabric and inventory and a morpheus.conf
// for them (CheckpointCycle=2m); the path, to be removed with remove_example_dir().
static std::string example_dir(char *tmpl) {
    assert_non_null(mkdtemp(tmpl));
    std::string d = tmpl;
    std::ifstream fin(top_srcdir("etc/fabric.json"));
    std::ofstream(d + "/fabric.json") << fin.rdbuf();
    std::ifstream iin(top_srcdir("etc/inventory.json"));
    std::ofstream(d + "/inventory.json") << iin.rdbuf();
    std::ofstream(d + "/morpheus.conf") << "FabricFile=fabric.json\nInventoryFile=inventory.json\n"
                                           "StateFile=ledger.json\nCheckpointCycle=2m\n";
    return d;
}

static void remove_example_dir(const std::string &d) {
    for (const char *f :
         {"fabric.json", "inventory.json", "morpheus.conf", "ledger.json", "ledger.json.prev", "ledger.json.lock"})
        unlink((d + "/" + f).c_str());
    rmdir(d.c_str());
}

static void engine_books_and_restarts(void **) {
    char dir[] = "/tmp/morpheus-ckpt-engine-XXXXXX";
    const std::string d = example_dir(dir);
    int64_t phase1, phase2;
    {
        Engine e(d + "/morpheus.conf", "");
        Request r1 = ckpt(11, 1, "1T", "2m"), r2 = ckpt(12, 1, "1T", "2m");
        Reservation a = e.reserve(r1, {0});
        Reservation b = e.reserve(r2, {1});
        assert_int_equal(a.checkpoint.period_s, 120);
        phase1 = a.checkpoint.phase_s;
        phase2 = b.checkpoint.phase_s;
        assert_true(phase1 != phase2);
        assert_int_equal(e.links().bookings().size(), 2);
        // Reserving again (a requeued job) keeps its region and its phase.
        Reservation again = e.reserve(r1, {2});
        assert_int_equal(again.checkpoint.phase_s, phase1);
        assert_int_equal(again.segments.back().blade, a.segments.back().blade);
        Request r3 = ckpt(13, 1, "1T", "2m");
        // A third on the same nodes' path: pod1's blade1 link is full; it is routed elsewhere.
        Reservation c = e.reserve(r3, {3});
        assert_int_not_equal(c.segments.back().blade, a.segments.back().blade);
        assert_true(e.release(13));
        assert_int_equal(e.links().bookings().size(), 2);
    }
    {
        Engine e(d + "/morpheus.conf", "");  // a restart: the book comes back from the ledger
        assert_int_equal(e.links().bookings().size(), 2);
        assert_int_equal(e.links().find(11)->window.phase_s, phase1);
        assert_int_equal(e.links().find(12)->window.phase_s, phase2);
        e.release(11);
        e.release(12);
        assert_int_equal(e.links().bookings().size(), 0);
    }
    remove_example_dir(d);
}

// Recovery (the job side, issue 28): a requeued job keeps its region and window and is told
// to restore on the same blades; a failed blade leaves the copies in other domains; the
// window arithmetic of morpheus_ckpt.h.
static void requeue_keeps_region_and_says_restore(void **) {
    char dir[] = "/tmp/morpheus-ckpt-requeue-XXXXXX";
    const std::string d = example_dir(dir);
    {
        Engine e(d + "/morpheus.conf", "");
        Request r = ckpt(21, 1, "500G", "2m", nullptr, "2");
        r.hot_per_node = parse_size("64G");
        Reservation first = e.reserve(r, {0});
        std::vector<Segment> region;
        for (const Segment &s : first.segments)
            if (s.use == Use::Checkpoint) region.push_back(s);
        assert_int_equal(region.size(), 2);
        assert_string_not_equal(e.model().fabric().blade_domain[region[0].blade].c_str(),
                                e.model().fabric().blade_domain[region[1].blade].c_str());
        std::string env = reservation_environment(e.model(), first);
        assert_non_null(strstr(env.c_str(), "MORPHEUS_CKPT_RESTORE=0\n"));
        assert_non_null(strstr(env.c_str(), "MORPHEUS_CKPT_COPIES=2/2\n"));
        assert_null(strstr(env.c_str(), "MORPHEUS_CKPT_LOST"));

        // Requeued: the region and the window stay, the hot memory goes.
        assert_int_equal(e.release_for_requeue(21), 2);
        const Reservation *kept = e.ledger().find(21);
        assert_non_null(kept);
        assert_true(kept->checkpoint.waiting);
        for (const Segment &s : kept->segments)
            assert_int_equal(static_cast<int>(s.use), static_cast<int>(Use::Checkpoint));
        assert_non_null(e.links().find(21));
        assert_non_null(strstr(reservation_summary(e.model(), *kept).c_str(), "ckpt-kept-for-restart"));

        // A controller restart finds 21 pending (requeued) and 24 pending too (Slurm relaunched
        // it after a SIGKILL): 21 keeps its region, 24's memory goes, as does 25's (gone).
        Request relaunched;
        relaunched.job_id = 24;
        relaunched.nodes = 1;
        relaunched.hot_per_node = parse_size("32G");
        e.reserve(relaunched, {9});
        relaunched.job_id = 25;
        e.reserve(relaunched, {10});
        assert_int_equal(e.reconcile({}, {21, 24}), 2);
        assert_non_null(e.ledger().find(21));
        assert_null(e.ledger().find(24));
        assert_null(e.ledger().find(25));
        assert_non_null(e.links().find(21));

        // Restarted elsewhere: the same blades, the same phase, told to restore from them.
        Reservation second = e.reserve(r, {5});
        std::vector<Segment> again;
        for (const Segment &s : second.segments)
            if (s.use == Use::Checkpoint) again.push_back(s);
        assert_int_equal(again.size(), 2);
        assert_int_equal(again[0].blade, region[0].blade);
        assert_int_equal(again[1].blade, region[1].blade);
        assert_int_equal(second.checkpoint.phase_s, first.checkpoint.phase_s);
        assert_int_equal(second.checkpoint.restarts, 1);
        assert_false(second.checkpoint.waiting);
        env = reservation_environment(e.model(), second);
        assert_non_null(strstr(env.c_str(), "MORPHEUS_CKPT_RESTORE=1\n"));
        assert_non_null(strstr(env.c_str(), "MORPHEUS_CKPT_RESTORE_FROM="));

        // A job without a checkpoint is released whole by the same call.
        Request plain;
        plain.job_id = 22;
        plain.nodes = 1;
        plain.hot_per_node = parse_size("64G");
        e.reserve(plain, {8});
        assert_int_equal(e.release_for_requeue(22), 1);
        assert_null(e.ledger().find(22));
        assert_int_equal(e.release_for_requeue(22), 0);

        // Ended for good: the region and the window go.
        assert_true(e.release(21));
        assert_null(e.links().find(21));

        // region_health: a failed blade of one copy leaves the other; of a single copy, nothing.
        Reservation two = e.reserve(r, {0});
        Reservation one = e.reserve(ckpt(23, 1, "100G", "2m"), {1});
        std::string inv = d + "/inventory.failed.json";
        {
            std::ifstream src(d + "/inventory.json");
            std::stringstream text;
            text << src.rdbuf();
            std::string t = text.str();
            const std::string name = "\"" + e.model().fabric().blades[region[0].blade].name + "\"";
            size_t at = t.find("\"state\"", t.find(name));
            t.replace(t.find("\"up\"", at), 4, "\"failed\"");
            std::ofstream(inv) << t;
        }
        ClusterModel failed(e.model().fabric(), read_inventory(inv, e.model().fabric()), e.model().settings());
        RegionHealth h2 = region_health(failed, two);
        assert_int_equal(h2.copies, 2);
        assert_int_equal(h2.intact, 1);
        assert_int_equal(h2.intact_stripes.front().blade, region[1].blade);
        const Segment *single = nullptr;
        for (const Segment &s : one.segments)
            if (s.use == Use::Checkpoint) single = &s;
        assert_non_null(single);
        if (single->blade == region[0].blade) {
            RegionHealth h1 = region_health(failed, one);
            assert_int_equal(h1.intact, 0);
            assert_non_null(strstr(reservation_summary(failed, one).c_str(), "CKPT-LOST"));
        }
        unlink(inv.c_str());
    }
    remove_example_dir(d);
}

// A DRAINING region blade (the admin empties it; its memory still works): a requeued job keeps
// its copy there and restores from it, as from any intact copy; new regions go elsewhere.
// Failed blades are the other case (requeue_keeps_region_and_says_restore).
static void drained_region_blade_keeps_the_copy(void **) {
    char dir[] = "/tmp/morpheus-ckpt-drain-XXXXXX";
    const std::string d = example_dir(dir);
    std::string inventory;
    {
        std::ifstream iin(d + "/inventory.json");
        std::stringstream text;
        text << iin.rdbuf();
        inventory = text.str();
    }
    Request r = ckpt(31, 1, "500G", "2m", nullptr, "2");
    r.hot_per_node = parse_size("64G");
    std::vector<Segment> region;
    std::string drained;
    {
        Engine e(d + "/morpheus.conf", "");
        for (const Segment &s : e.reserve(r, {0}).segments)
            if (s.use == Use::Checkpoint) region.push_back(s);
        assert_int_equal(region.size(), 2);
        assert_int_equal(e.release_for_requeue(31), 2);
        drained = e.model().fabric().blades[region[0].blade].name;
    }
    // The admin drains the blade of the first copy while the job waits for its restart.
    size_t at = inventory.find("\"state\"", inventory.find("\"" + drained + "\""));
    inventory.replace(inventory.find("\"up\"", at), 4, "\"draining\"");
    std::ofstream(d + "/inventory.json") << inventory;
    {
        Engine e(d + "/morpheus.conf", "");
        assert_int_equal(static_cast<int>(e.model().inventory().blades[region[0].blade].state),
                         static_cast<int>(BladeState::Draining));
        Reservation again = e.reserve(r, {5});
        std::vector<Segment> copies;
        for (const Segment &s : again.segments)
            if (s.use == Use::Checkpoint) copies.push_back(s);
        assert_int_equal(copies.size(), 2);
        assert_int_equal(copies[0].blade, region[0].blade);  // still on the draining blade
        assert_int_equal(copies[1].blade, region[1].blade);
        assert_true(again.checkpoint.restore);
        assert_false(again.checkpoint.lost);
        assert_int_equal(region_health(e.model(), again).intact, 2);
        std::string env = reservation_environment(e.model(), again);
        assert_non_null(strstr(env.c_str(), "MORPHEUS_CKPT_RESTORE=1\n"));
        assert_null(strstr(env.c_str(), "MORPHEUS_CKPT_LOST"));
        // A new job's region is never laid on the draining blade.
        Reservation fresh = e.reserve(ckpt(32, 1, "100G", "2m"), {1});
        for (const Segment &s : fresh.segments)
            if (s.use == Use::Checkpoint) assert_int_not_equal(s.blade, region[0].blade);
    }
    remove_example_dir(d);
}

static void window_arithmetic(void **) {
    morpheus_ckpt_window_spec_t w = {60, 30, 26};
    int open = -1;
    int64_t seconds = -1;
    morpheus_ckpt_window_at(&w, 1000, &open, &seconds);  // 1000 mod 60 = 40: 10 s into the window
    assert_int_equal(open, 1);
    assert_int_equal(seconds, 16);
    morpheus_ckpt_window_at(&w, 1016, &open, &seconds);  // 56: closed, opens at 30 of the next
    assert_int_equal(open, 0);
    assert_int_equal(seconds, 34);
    morpheus_ckpt_window_at(&w, 990, &open, &seconds);  // exactly at the phase
    assert_int_equal(open, 1);
    assert_int_equal(seconds, 26);
    setenv("MORPHEUS_CKPT_PERIOD", "60", 1);
    setenv("MORPHEUS_CKPT_PHASE", "70", 1);  // outside the period
    setenv("MORPHEUS_CKPT_WINDOW", "26", 1);
    assert_int_equal(morpheus_ckpt_window(1000, &open, &seconds), -1);
    assert_int_equal(errno, EINVAL);
    setenv("MORPHEUS_CKPT_PHASE", "30", 1);
    assert_int_equal(morpheus_ckpt_window(1016, &open, &seconds), 0);
    assert_int_equal(open, 0);
    unsetenv("MORPHEUS_CKPT_PERIOD");
    assert_int_equal(morpheus_ckpt_window(1016, &open, &seconds), -1);
    assert_int_equal(errno, ENOENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fabric_link_tiers_and_domains),
        cmocka_unit_test(fabric_bandwidth_errors),
        cmocka_unit_test(paths_cross_links_and_share),
        cmocka_unit_test(flags_parse_and_refuse),
        cmocka_unit_test(never_fits_says_why),
        cmocka_unit_test(config_keys),
        cmocka_unit_test(book_staggers_and_folds),
        cmocka_unit_test(periods_round_and_stretch),
        cmocka_unit_test(region_replicas_apart),
        cmocka_unit_test(decide_books_windows),
        cmocka_unit_test(decide_routes_around_full_link),
        cmocka_unit_test(ledger_keeps_window),
        cmocka_unit_test(engine_books_and_restarts),
        cmocka_unit_test(requeue_keeps_region_and_says_restore),
        cmocka_unit_test(drained_region_blade_keeps_the_copy),
        cmocka_unit_test(window_arithmetic),
        cmocka_unit_test(link_view_shows_windows_to_their_owners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
