// morpheus fabric: the pod x blade latency matrix, the "heat map" Morpheus places by: a text
// matrix for people, the document with --json/--yaml, a picture with --plot FILE.svg|png.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "fabric_live.hpp"
#include "gnuplot.hpp"
#include "input_error.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"

namespace morpheus::cli {

namespace {

const std::vector<Field> kCellFields = {
    {"pod", 'P', "POD"}, {"blade", 'b', "BLADE"}, {"latency", 'l', "LATENCY"}, {"state", 't', "STATE"}};

std::string cell(const std::optional<uint32_t> &ns) { return ns ? format_latency(*ns) : "-"; }

// Keeps the pods (rows) -p names and the blades (columns) whose state -t names.
void filter(FabricMatrix &m, const ViewOptions &v) {
    std::vector<std::string> pods;
    for (const FabricPod &p : m.pods) pods.push_back(p.pod);
    require_known(v.pods, pods, "-p", "pod", "see morpheus fabric for the pods");
    std::vector<std::string> states = blade_states(v);
    std::vector<size_t> keep_blades;
    for (size_t b = 0; b < m.blades.size(); ++b)
        if (states.empty() || listed(states, m.blades[b].state)) keep_blades.push_back(b);
    FabricMatrix kept;
    kept.hot_bound_ns = m.hot_bound_ns;
    for (size_t b : keep_blades) kept.blades.push_back(m.blades[b]);
    for (size_t p = 0; p < m.pods.size(); ++p) {
        if (!v.pods.empty() && !listed(v.pods, m.pods[p].pod)) continue;
        kept.pods.push_back(m.pods[p]);
        auto &row = kept.latency_ns.emplace_back();
        for (size_t b : keep_blades) row.push_back(m.latency_ns[p][b]);
    }
    m = std::move(kept);
}

// Rows are pods, columns blades; '*' marks a blade inside DefaultHotLatency of the pod.
std::string render_matrix(const FabricMatrix &m, bool header) {
    std::vector<std::string> headers = {"POD"};
    for (const FabricBlade &b : m.blades) headers.push_back(b.blade + (b.state == "up" ? "" : "(" + b.state + ")"));
    Table t(headers);
    for (size_t p = 0; p < m.pods.size(); ++p) {
        std::vector<std::string> row = {m.pods[p].pod};
        for (const std::optional<uint32_t> &ns : m.latency_ns[p])
            row.push_back(cell(ns) + (ns && *ns <= m.hot_bound_ns ? "*" : " "));
        t.add(row);
    }
    std::string out = t.render(header);
    if (header) out += "* within DefaultHotLatency (" + format_latency(m.hot_bound_ns) + "); - unreachable\n";
    return out;
}

std::string render_cells(const FabricMatrix &m, const ViewOptions &v) {
    Layout layout = v.format.empty() ? parse_Format(v.Format, kCellFields) : parse_format(v.format, kCellFields);
    std::vector<std::vector<std::string>> rows;
    for (size_t p = 0; p < m.pods.size(); ++p)
        for (size_t b = 0; b < m.latency_ns[p].size(); ++b)
            rows.push_back({m.pods[p].pod, m.blades[b].blade, cell(m.latency_ns[p][b]), m.blades[b].state});
    return render_layout(layout, kCellFields, rows, v.header);
}

// A heat map: pods down, blades across, colour by latency; unreachable cells left blank.
void plot_matrix(const FabricMatrix &m, const std::string &path) {
    PlotScratch scratch;
    const std::string data = scratch.file("matrix.dat"), script = scratch.file("plot.gp");
    {
        std::ofstream out(data);
        for (size_t p = 0; p < m.latency_ns.size(); ++p) {
            for (size_t b = 0; b < m.latency_ns[p].size(); ++b) {
                out << b << ' ' << p << ' ';
                if (m.latency_ns[p][b])
                    out << *m.latency_ns[p][b];
                else
                    out << "NaN";
                out << '\n';
            }
            out << '\n';
        }
    }
    {
        std::ofstream gp(script);
        size_t n_pods = m.pods.size(), n_blades = m.blades.size();
        int width = static_cast<int>(std::min<size_t>(2400, 200 + 70 * n_blades));
        int height = static_cast<int>(std::min<size_t>(2400, 160 + 40 * n_pods));
        gp << "set terminal " << plot_terminal(path, width, height) << "\n"
           << "set output " << gnuplot_string(path) << "\n"
           << "set title "
           << gnuplot_string("pod x blade latency (ns), DefaultHotLatency " + format_latency(m.hot_bound_ns))
           << "\nset xlabel 'blade'\nset ylabel 'pod'\nset yrange [" << n_pods << "-0.5:-0.5]\n"
           << "set xrange [-0.5:" << n_blades << "-0.5]\nset cblabel 'latency (ns)'\nset palette rgb 33,13,10\n"
           << "set xtics rotate by 45 right\n";
        auto tics = [&](const char *axis, const std::vector<std::string> &names) {
            gp << "set " << axis << " (";
            for (size_t k = 0; k < names.size(); ++k) gp << (k ? ", " : "") << gnuplot_string(names[k]) << ' ' << k;
            gp << ")\n";
        };
        std::vector<std::string> blade_names, pod_names;
        for (const FabricBlade &b : m.blades) blade_names.push_back(b.blade);
        for (const FabricPod &p : m.pods) pod_names.push_back(p.pod);
        if (n_blades <= 200) tics("xtics", blade_names);
        if (n_pods <= 200) tics("ytics", pod_names);
        gp << "plot " << gnuplot_string(data) << " using 1:2:3 with image notitle\n";
    }
    run_gnuplot(script);
}

}  // namespace

int cmd_fabric(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    std::string plot;
    bool live = false;
    LiveOptions lo;
    bool live_only = false;  // an option that means something with --live only
    enum { kPlot = 1000, kLive, kBlade, kAll, kLimit, kFrom };
    if (int rc = parse_view_command(
            argc, argv,
            "usage: morpheus fabric [FABRIC INVENTORY | --conf FILE] [--server HOST:PORT]\n"
            "                       [-p POD,...] [-t STATE,...] [-o FORMAT | -O FIELD[:[.]WIDTH],...]\n"
            "                       [-h|--noheader] [-i SECONDS] [--json|--yaml] [--plot FILE.svg|FILE.png]\n"
            "       morpheus fabric --live [--server HOST:PORT | --from FILE] [-p POD,...] [--blade BLADE,...]\n"
            "                       [--all] [--limit N] [-o FORMAT | -O ...] [-h] [-i SECONDS] [--json|--yaml]\n"
            "                       [--plot FILE.svg|FILE.png]\n"
            "the pod x blade latency matrix; fields for -o/-O (one row per pod and blade):\n"
            "  pod(%P) blade(%b) latency(%l) state(%t)\n"
            "--live: the measured heat map from the controller (cells some node measured; --all: every\n"
            "reachable cell; at most --limit, default 4096); fields for -o/-O:\n"
            "  pod(%P) blade(%b) measured(%m) p50(%5) p99(%9) static(%s) ratio(%r) used(%u) live(%L)\n"
            "  samples(%n) nodes(%N) age(%a) state(%t)\n",
            src, v, "",
            {{"plot", required_argument, nullptr, kPlot},
             {"live", no_argument, nullptr, kLive},
             {"blade", required_argument, nullptr, kBlade},
             {"blades", required_argument, nullptr, kBlade},
             {"all", no_argument, nullptr, kAll},
             {"limit", required_argument, nullptr, kLimit},
             {"from", required_argument, nullptr, kFrom}},
            [&](int c, const char *arg) {
                switch (c) {
                case kPlot:
                    plot = arg;
                    check_plot_path(plot);
                    return kGoOn;
                case kLive: live = true; return kGoOn;
                case kBlade: {
                    std::vector<std::string> more = split_list(arg);
                    lo.blades.insert(lo.blades.end(), more.begin(), more.end());
                    live_only = true;
                    return kGoOn;
                }
                case kAll: lo.all = live_only = true; return kGoOn;
                case kLimit: {
                    char *end = nullptr;
                    long n = std::strtol(arg, &end, 10);
                    if (*arg == '\0' || *end || n < 1 || n > kMaxHeatCells)
                        throw InputError("", "--limit", std::string("'") + arg + "' is not a number of cells",
                                         "give 1 to " + std::to_string(kMaxHeatCells));
                    lo.limit = static_cast<uint32_t>(n);
                    live_only = true;
                    return kGoOn;
                }
                case kFrom:
                    lo.from = arg;
                    live_only = true;
                    return kGoOn;
                default: return static_cast<int>(kUsage);
                }
            });
        rc != kGoOn)
        return rc;
    if (live_only && !live)
        throw InputError("", "--live", "--blade, --all, --limit and --from are options of --live",
                         "add --live (the measured heat map)");
    if (live) {
        lo.plot = plot;
        return run_view(v, [&] { return fabric_live(src, v, lo); });
    }
    return run_view(v, [&] {
        FabricMatrix m = fetch<FabricMatrix>(src, "fabric");
        filter(m, v);
        if (!plot.empty()) {
            plot_matrix(m, plot);
            return v.output == ViewOptions::Text ? std::string() : dump_value(m, v.output);
        }
        if (v.output != ViewOptions::Text) return dump_value(m, v.output);
        if (!v.format.empty() || !v.Format.empty()) return render_cells(m, v);
        return render_matrix(m, v.header);
    });
}

}  // namespace morpheus::cli
