// The heat map: per node x blade windows, the median across a pod's nodes (one node's outliers
// do not move the cell), staleness back to the fabric's value, hysteresis over settle rounds,
// bounded windows and refused reports, p50 against p99, and the model that placement reads.
#include "cluster_model.hpp"
#include "fabric.hpp"
#include "heat_map.hpp"
#include "inventory.hpp"
#include "latency_table.hpp"
#include "test_support.hpp"

using namespace morpheus;

namespace {

constexpr int64_t kT0 = 1700000000;

// etc/fabric.json: pod1 is gpu101..gpu104 (nodes 0..3), blade1 is 200ns from it.
struct Example {
    Fabric fabric = read_fabric(top_srcdir("etc/fabric.json"));
    LatencyTable table{fabric};
    uint32_t pod1 = static_cast<uint32_t>(fabric.pod_index("pod1"));
    uint32_t blade1 = static_cast<uint32_t>(fabric.blade_index("blade1"));
    uint32_t node(const char *name) const { return static_cast<uint32_t>(fabric.node_index(name)); }
};

HeatMapSettings settings(uint32_t rounds = 1, double hysteresis = 0.10) {
    HeatMapSettings s;
    s.rounds = rounds;
    s.hysteresis = hysteresis;
    return s;
}

void report_all(HeatMap &h, const Example &x, uint32_t blade, uint64_t ns, int64_t now) {
    for (const char *n : {"gpu101", "gpu102", "gpu103", "gpu104"})
        assert_int_equal(static_cast<int>(h.report(x.node(n), blade, ns, now)), static_cast<int>(HeatReport::Accepted));
}

}  // namespace

// One node with a bad NIC reports 5us; the pod's cell keeps the other nodes' figure, and the
// published value stays the fabric's. When most nodes see the rise, the cell follows.
static void median_resists_one_outlier_node(void **) {
    Example x;
    HeatMap h(x.fabric, x.table, settings());
    for (const char *n : {"gpu101", "gpu102", "gpu103"}) h.report(x.node(n), x.blade1, 210, kT0);
    h.report(x.node("gpu104"), x.blade1, 5000, kT0);
    HeatCell c = h.cell(x.pod1, x.blade1, kT0);
    assert_true(c.fresh);
    assert_int_equal(c.nodes, 4);
    assert_int_equal(c.count, 4);
    assert_int_equal(c.p99, 210);
    assert_int_equal(c.p50, 210);
    assert_false(h.settle(kT0));  // 210 is within 10% of 200
    assert_int_equal(h.published(x.pod1, x.blade1), 0);

    // Two of four nodes at 400: the lower median of {210, 400, 400, 5000} is 400.
    h.report(x.node("gpu101"), x.blade1, 400, kT0 + 10);
    h.report(x.node("gpu102"), x.blade1, 400, kT0 + 10);
    assert_int_equal(h.cell(x.pod1, x.blade1, kT0 + 10).p99, 400);
    assert_true(h.settle(kT0 + 10));
    assert_int_equal(h.published(x.pod1, x.blade1), 400);

    // With two nodes reporting, one node's outlier still does not move the cell.
    HeatMap two(x.fabric, x.table, settings());
    two.report(x.node("gpu101"), x.blade1, 205, kT0);
    two.report(x.node("gpu102"), x.blade1, 9000, kT0);
    assert_int_equal(two.cell(x.pod1, x.blade1, kT0).p99, 205);
    assert_false(two.settle(kT0));
}

// Probes stop: once every node's newest sample is older than HeatMapStale, the cell is not
// fresh and placement gets the fabric's value back, at once.
static void stale_cell_falls_back_to_static(void **) {
    Example x;
    HeatMapSettings s = settings();
    s.stale_s = 600;
    HeatMap h(x.fabric, x.table, s);
    report_all(h, x, x.blade1, 400, kT0);
    assert_true(h.settle(kT0));
    assert_int_equal(h.published(x.pod1, x.blade1), 400);
    assert_false(h.settle(kT0 + 600));  // still fresh
    HeatCell old = h.cell(x.pod1, x.blade1, kT0 + 601);
    assert_false(old.fresh);
    assert_int_equal(old.age_s, 601);
    assert_int_equal(old.nodes, 0);
    assert_true(h.settle(kT0 + 601));
    assert_int_equal(h.published(x.pod1, x.blade1), 0);
    // Other pods never had data: never published.
    uint32_t pod2 = static_cast<uint32_t>(x.fabric.pod_index("pod2"));
    assert_int_equal(h.cell(pod2, x.blade1, kT0).age_s, -1);
    assert_int_equal(h.published(pod2, x.blade1), 0);
}

// The published value moves only past the threshold, and only after HeatMapRounds rounds in a
// row: a round back inside the threshold starts the count again.
static void hysteresis_needs_rounds_and_threshold(void **) {
    Example x;
    HeatMapSettings s = settings(3, 0.10);
    s.samples = 1;  // each report replaces the node's window: the test steers the figure
    HeatMap h(x.fabric, x.table, s);
    report_all(h, x, x.blade1, 215, kT0);  // 7.5% over 200
    for (int round = 0; round < 5; ++round) assert_false(h.settle(kT0 + round));
    assert_int_equal(h.published(x.pod1, x.blade1), 0);

    report_all(h, x, x.blade1, 230, kT0 + 10);  // 15% over
    assert_false(h.settle(kT0 + 10));
    assert_false(h.settle(kT0 + 11));
    report_all(h, x, x.blade1, 205, kT0 + 12);  // one round back inside: the count restarts
    assert_false(h.settle(kT0 + 12));
    report_all(h, x, x.blade1, 230, kT0 + 13);
    assert_false(h.settle(kT0 + 13));
    assert_false(h.settle(kT0 + 14));
    assert_int_equal(h.published(x.pod1, x.blade1), 0);
    assert_true(h.settle(kT0 + 15));  // the third round in a row
    assert_int_equal(h.published(x.pod1, x.blade1), 230);

    // Now measured against 230: 245 is within 10%, 300 is not.
    report_all(h, x, x.blade1, 245, kT0 + 20);
    for (int round = 0; round < 4; ++round) assert_false(h.settle(kT0 + 20 + round));
    assert_int_equal(h.published(x.pod1, x.blade1), 230);
    report_all(h, x, x.blade1, 199, kT0 + 30);  // the link recovered: 199 after three rounds
    assert_false(h.settle(kT0 + 30));
    assert_false(h.settle(kT0 + 31));
    assert_true(h.settle(kT0 + 32));
    assert_int_equal(h.published(x.pod1, x.blade1), 199);

    // One noisy sample in a window of many does not move a p50 cell at all.
    HeatMapSettings p50 = settings(1, 0.10);
    p50.figure = HeatFigure::P50;
    HeatMap quiet(x.fabric, x.table, p50);
    for (int i = 0; i < 9; ++i) report_all(quiet, x, x.blade1, 200, kT0 + i);
    report_all(quiet, x, x.blade1, 3000, kT0 + 9);
    assert_false(quiet.settle(kT0 + 9));
}

// A window holds at most HeatMapSamples samples, within HeatMapWindow of its newest; absurd,
// unknown and late reports are refused and change nothing.
static void windows_are_bounded(void **) {
    Example x;
    HeatMapSettings s = settings();
    s.samples = 4;
    s.window_s = 100;
    HeatMap h(x.fabric, x.table, s);
    const uint32_t n = x.node("gpu101");
    const size_t empty = h.window_bytes();  // the node table alone before any report
    assert_true(empty < 4096);
    for (int i = 0; i < 8; ++i) h.report(n, x.blade1, i < 4 ? 900 : 300, kT0 + i);
    HeatCell c = h.cell(x.pod1, x.blade1, kT0 + 8);
    assert_int_equal(c.count, 4);
    assert_int_equal(c.p99, 300);  // the four 900s left the ring
    // One window of 4 samples: the node's other blades have none.
    size_t one_node = h.window_bytes();
    assert_true(one_node - empty <= 4 * 8 + 64);

    // Age: a sample more than window_s before the newest leaves the figure.
    h.report(n, x.blade1, 250, kT0 + 150);
    c = h.cell(x.pod1, x.blade1, kT0 + 150);
    assert_int_equal(c.count, 1);
    assert_int_equal(c.p99, 250);
    assert_int_equal(static_cast<int>(h.report(n, x.blade1, 250, kT0 + 49)), static_cast<int>(HeatReport::TooOld));

    assert_int_equal(static_cast<int>(h.report(n, x.blade1, 0, kT0 + 150)), static_cast<int>(HeatReport::BadLatency));
    assert_int_equal(static_cast<int>(h.report(n, x.blade1, kMaxMeasuredLatencyNs + 1, kT0 + 150)),
                     static_cast<int>(HeatReport::BadLatency));
    assert_int_equal(static_cast<int>(h.report(n, x.blade1, kMaxMeasuredLatencyNs, kT0 + 150)),
                     static_cast<int>(HeatReport::Accepted));
    assert_int_equal(static_cast<int>(h.report(999, x.blade1, 250, kT0)), static_cast<int>(HeatReport::UnknownNode));
    assert_int_equal(static_cast<int>(h.report(n, 99, 250, kT0)), static_cast<int>(HeatReport::UnknownBlade));
    assert_int_equal(static_cast<int>(h.report(n, x.blade1, 250, -1)), static_cast<int>(HeatReport::BadTime));
    assert_int_equal(static_cast<int>(h.report(n, x.blade1, 250, int64_t(1) << 40)),
                     static_cast<int>(HeatReport::BadTime));
    assert_int_equal(h.window_bytes(), one_node);  // refused reports allocate nothing

    // A pair the fabric has no path for.
    const char *json = kIslandFabric;
    Fabric f = parse_fabric(json, "t.json");
    LatencyTable t(f);
    HeatMap island(f, t, s);
    assert_int_equal(static_cast<int>(island.report(0, 1, 30, kT0)), static_cast<int>(HeatReport::NoPath));
    assert_int_equal(static_cast<int>(island.report(0, 0, 30, kT0)), static_cast<int>(HeatReport::Accepted));
    assert_true(island.settle(kT0));
    assert_int_equal(island.published(0, 0), 30);
}

// A node's windows are kept per blade it reports, in any order; the others stay unmeasured.
static void windows_only_for_reported_blades(void **) {
    Example x;
    HeatMap h(x.fabric, x.table, settings());
    const uint32_t n = x.node("gpu102");
    const uint32_t blades[] = {4, 0, 7, 2, 0, 4};
    for (size_t i = 0; i < 6; ++i) h.report(n, blades[i], 1000 + 100 * blades[i] + i, kT0);
    assert_int_equal(h.cell(x.pod1, 0, kT0).p99, 1004);
    assert_int_equal(h.cell(x.pod1, 0, kT0).count, 2);
    assert_int_equal(h.cell(x.pod1, 2, kT0).p99, 1203);
    assert_int_equal(h.cell(x.pod1, 4, kT0).p50, 1400);
    assert_int_equal(h.cell(x.pod1, 7, kT0).p99, 1702);
    assert_false(h.cell(x.pod1, 1, kT0).fresh);
    assert_true(h.settle(kT0));
    assert_int_equal(h.published(x.pod1, 7), 1702);
    assert_int_equal(h.published(x.pod1, 1), 0);
    // Other pods' cells are their own nodes' business.
    assert_int_equal(h.published(static_cast<uint32_t>(x.fabric.pod_index("pod2")), 7), 0);
}

// p50 follows the bulk of a window, p99 its tail; HeatMapFigure chooses what is published.
static void p50_against_p99(void **) {
    Example x;
    for (HeatFigure fig : {HeatFigure::P50, HeatFigure::P99}) {
        HeatMapSettings s = settings();
        s.figure = fig;
        HeatMap h(x.fabric, x.table, s);
        for (int i = 0; i < 32; ++i) report_all(h, x, x.blade1, i < 30 ? 205 : 1000, kT0 + i);
        HeatCell c = h.cell(x.pod1, x.blade1, kT0 + 31);
        assert_int_equal(c.p50, 205);
        assert_int_equal(c.p99, 1000);
        assert_int_equal(c.count, 4 * 32);
        assert_int_equal(h.figure(c), fig == HeatFigure::P50 ? 205 : 1000);
        assert_int_equal(h.settle(kT0 + 31), fig == HeatFigure::P99);
        assert_int_equal(h.published(x.pod1, x.blade1), fig == HeatFigure::P50 ? 0 : 1000);
    }
    assert_string_equal(heat_figure_name(HeatFigure::P50), "p50");
}

// The model placement reads: a copy with the published latencies, blade orders redone; the
// model it came from is left as it was.
static void model_with_live_latency(void **) {
    Example x;
    Inventory inv = read_inventory(top_srcdir("etc/inventory.json"), x.fabric);
    ClusterModel base(x.fabric, inv, PlacementSettings{});
    HeatMap h(base.fabric(), base.latency(), settings());
    report_all(h, x, x.blade1, 450, kT0);
    assert_true(h.settle(kT0));
    ClusterModel live = base.with_live_latency(h);
    assert_int_equal(live.latency().latency(x.pod1, x.blade1), 450);
    assert_int_equal(live.latency().static_latency(x.pod1, x.blade1), 200);
    assert_int_equal(live.latency().blades_by_latency(x.pod1).front(), x.fabric.blade_index("blade5"));
    assert_int_equal(base.latency().latency(x.pod1, x.blade1), 200);
    assert_int_equal(base.latency().blades_by_latency(x.pod1).front(), x.blade1);
    assert_int_equal(live.fabric().node_index("gpu101"), 0);  // the copy's name maps work
    // At 450ns blade1 is still inside DefaultHotLatency (500ns) for pod1: its cold pressure stays.
    assert_true(live.hot_pressure(x.blade1) == base.hot_pressure(x.blade1));
    // Stale: back to the fabric's value.
    assert_true(h.settle(kT0 + 10000));
    ClusterModel back = live.with_live_latency(h);
    assert_int_equal(back.latency().latency(x.pod1, x.blade1), 200);
    assert_int_equal(back.latency().live_count(), 0);
}

// A reload with the same fabric keeps the windows; another layout does not match.
static void layout_survives_reload(void **) {
    Example x;
    HeatMap h(x.fabric, x.table, settings());
    assert_true(h.same_layout(read_fabric(top_srcdir("etc/fabric.json"))));
    Fabric other = x.fabric;
    other.blades[0].name = "blade9";
    assert_false(h.same_layout(other));
    report_all(h, x, x.blade1, 450, kT0);
    assert_true(h.settle(kT0));
    HeatMapSettings s = settings(5);
    h.rebase(x.table, s);
    assert_int_equal(h.settings().rounds, 5);
    assert_int_equal(h.published(x.pod1, x.blade1), 450);
    assert_true(h.cell(x.pod1, x.blade1, kT0).fresh);
}

// measured_cells() (the views' one pass over a pod's windows) gives each measured cell exactly
// as cell() does, fresh or stale, and no cell no node measured.
static void measured_cells_agree_with_cell(void **) {
    Example x;
    HeatMap h(x.fabric, x.table, settings());
    const uint32_t blade5 = static_cast<uint32_t>(x.fabric.blade_index("blade5"));
    h.report(x.node("gpu101"), x.blade1, 300, kT0);
    h.report(x.node("gpu102"), x.blade1, 500, kT0 + 5);
    h.report(x.node("gpu103"), x.blade1, 9000, kT0 + 5);
    h.report(x.node("gpu104"), blade5, 400, kT0 - 700);  // stale by kT0 + 10
    const auto cells = h.measured_cells(x.pod1, kT0 + 10);
    assert_int_equal(cells.size(), 2);
    assert_int_equal(cells[0].first, x.blade1);
    assert_int_equal(cells[1].first, blade5);
    for (const auto &[b, c] : cells) {
        HeatCell one = h.cell(x.pod1, b, kT0 + 10);
        assert_int_equal(c.p50, one.p50);
        assert_int_equal(c.p99, one.p99);
        assert_int_equal(c.count, one.count);
        assert_int_equal(c.nodes, one.nodes);
        assert_int_equal(c.age_s, one.age_s);
        assert_int_equal(c.fresh, one.fresh);
    }
    assert_int_equal(cells[0].second.p99, 500);  // the lower median of 300, 500, 9000
    assert_int_equal(cells[0].second.age_s, 5);
    assert_false(cells[1].second.fresh);
    assert_int_equal(cells[1].second.age_s, 710);
    assert_true(h.measured_cells(static_cast<uint32_t>(x.fabric.pod_index("pod2")), kT0).empty());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(median_resists_one_outlier_node),
        cmocka_unit_test(stale_cell_falls_back_to_static),
        cmocka_unit_test(hysteresis_needs_rounds_and_threshold),
        cmocka_unit_test(windows_are_bounded),
        cmocka_unit_test(windows_only_for_reported_blades),
        cmocka_unit_test(p50_against_p99),
        cmocka_unit_test(model_with_live_latency),
        cmocka_unit_test(layout_survives_reload),
        cmocka_unit_test(measured_cells_agree_with_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
