// morpheus fabric --live: asks the status service for the heat map's cells (the live fabric op,
// status_queries.hpp) and renders them: a table, -o/-O fields, the document, and a picture of
// measured against static with the stale cells marked.
#include "fabric_live.hpp"

#include <jansson.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "gnuplot.hpp"
#include "input_error.hpp"
#include "json_document.hpp"
#include "table.hpp"
#include "units.hpp"

namespace morpheus::cli {

namespace {

const std::vector<Field> kLiveFields = {
    {"pod", 'P', "POD"},     {"blade", 'b', "BLADE"},     {"measured", 'm', "MEASURED"}, {"p50", '5', "P50"},
    {"p99", '9', "P99"},     {"static", 's', "STATIC"},   {"ratio", 'r', "RATIO"},       {"used", 'u', "USED"},
    {"live", 'L', "LIVE"},   {"samples", 'n', "SAMPLES"}, {"nodes", 'N', "NODES"},       {"age", 'a', "AGE"},
    {"state", 't', "STATE"},
};

std::string latency_or_dash(const std::optional<uint32_t> &ns) { return ns ? format_latency(*ns) : "-"; }

std::string age_text(const std::optional<int64_t> &age) {
    if (!age) return "-";
    char buf[32];
    if (*age < 120)
        std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(*age));
    else if (*age < 7200)
        std::snprintf(buf, sizeof buf, "%lldm", static_cast<long long>(*age / 60));
    else
        std::snprintf(buf, sizeof buf, "%lldh", static_cast<long long>(*age / 3600));
    return buf;
}

// Measured over static: 2.00 is twice the fabric file's latency.
std::string ratio_text(const HeatCellStatus &c) {
    if (!c.measured_ns || !c.static_ns) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", double(*c.measured_ns) / double(c.static_ns));
    return buf;
}

std::vector<std::string> cell_row(const HeatCellStatus &c) {
    return {c.pod,
            c.blade,
            latency_or_dash(c.measured_ns),
            latency_or_dash(c.p50_ns),
            latency_or_dash(c.p99_ns),
            format_latency(c.static_ns),
            ratio_text(c),
            format_latency(c.used_ns),
            c.live ? "yes" : "no",
            std::to_string(c.samples),
            std::to_string(c.nodes),
            age_text(c.age_s),
            c.state};
}

std::string query_of(const ViewOptions &v, const LiveOptions &o) {
    json_t *q = json_object();
    json_object_set_new(q, "op", json_string("fabric"));
    json_object_set_new(q, "live", json_true());
    auto names = [&](const char *key, const std::vector<std::string> &list) {
        if (list.empty()) return;
        json_t *a = json_array();
        for (const std::string &n : list) json_array_append_new(a, json_string(n.c_str()));
        json_object_set_new(q, key, a);
    };
    names("pods", v.pods);
    names("blades", o.blades);
    if (o.all) json_object_set_new(q, "all", json_true());
    json_object_set_new(q, "limit", json_integer(o.limit));
    return document_text(q);
}

// A saved answer holds what its query chose; the filters narrow it further here.
void filter_saved(HeatMapView &h, const ViewOptions &v, const LiveOptions &o) {
    std::vector<HeatCellStatus> kept;
    for (HeatCellStatus &c : h.cells) {
        if (!v.pods.empty() && !listed(v.pods, c.pod)) continue;
        if (!o.blades.empty() && !listed(o.blades, c.blade)) continue;
        if (!o.all && c.state == "unmeasured") continue;
        kept.push_back(std::move(c));
    }
    if (kept.size() > o.limit) kept.resize(o.limit);
    h.cells = std::move(kept);
    h.cells_matched = h.cells.size();
}

HeatMapView fetch_live(StatusSource &src, const ViewOptions &v, const LiveOptions &o) {
    if (!o.from.empty()) {
        std::ifstream in(o.from);
        if (!in) throw InputError(o.from, "--from", std::string("cannot read it: ") + std::strerror(errno));
        std::stringstream text;
        text << in.rdbuf();
        HeatMapView h = from_json<HeatMapView>(text.str(), o.from);
        filter_saved(h, v, o);
        return h;
    }
    // Offline (files named, no service): the files hold no measurement, so say so rather than
    // show the static matrix as if it were measured.
    if (src.server.empty() && !src.files.fabric.empty())
        throw InputError("", "--live",
                         "no measurements offline: the heat map lives in slurmctld, which the nodes' probes report to",
                         "ask the status service (--server HOST:PORT or StatusPort= in morpheus.conf), or give "
                         "--from FILE with a saved `morpheus fabric --live --json` answer; without --live, "
                         "morpheus fabric shows the fabric file's latencies");
    std::string reply = ask_status_service(src, query_of(v, o), "no measurements without the controller");
    return from_json<HeatMapView>(reply, src.server);
}

std::string render_table(const HeatMapView &h, bool header) {
    std::string out;
    if (header) {
        char line[512];
        std::snprintf(line, sizeof line,
                      "HEAT MAP %s (median over each pod's nodes), stale after %llds, moves past %g%% for %u rounds\n"
                      "CELLS %llu reachable, %llu measured, %llu fresh, %llu live\n\n",
                      h.figure.c_str(), static_cast<long long>(h.stale_s), h.hysteresis * 100, h.rounds,
                      static_cast<unsigned long long>(h.cells_reachable),
                      static_cast<unsigned long long>(h.cells_measured), static_cast<unsigned long long>(h.cells_fresh),
                      static_cast<unsigned long long>(h.cells_live));
        out += line;
    }
    std::vector<std::string> headers;
    for (const Field &f : kLiveFields) headers.push_back(f.header);
    Table t(headers);
    for (const HeatCellStatus &c : h.cells) t.add(cell_row(c));
    out += t.render(header);
    if (!header) return out;
    if (h.cells.empty())
        out += h.cells_measured ? "no measured cell matches; --all lists the unmeasured ones too\n"
                                : "no cell measured yet: are the nodes' probes running? (morpheus(1), HEAT MAP)\n";
    if (h.cells_matched > h.cells.size())
        out += "showing " + std::to_string(h.cells.size()) + " of " + std::to_string(h.cells_matched) +
               " cells: narrow with -p/--blade or raise --limit\n";
    return out;
}

// Two panels, pods down and blades across: measured / static (white at 1, red slower, blue
// faster) with the stale cells crossed, and the age of each cell's newest sample.
void plot_live(const HeatMapView &h, const std::string &path) {
    std::vector<std::string> pods, blades;
    std::map<std::string, size_t> pod_at, blade_at;
    for (const HeatCellStatus &c : h.cells) {
        if (pod_at.emplace(c.pod, pods.size()).second) pods.push_back(c.pod);
        if (blade_at.emplace(c.blade, blades.size()).second) blades.push_back(c.blade);
    }
    if (h.cells.empty()) throw InputError("", "--plot", "no cell to plot", "--all plots the unmeasured cells too");
    PlotScratch scratch;
    const std::string data = scratch.file("cells.dat"), stale = scratch.file("stale.dat"),
                      script = scratch.file("plot.gp");
    {
        std::vector<std::vector<const HeatCellStatus *>> grid(pods.size(),
                                                              std::vector<const HeatCellStatus *>(blades.size()));
        for (const HeatCellStatus &c : h.cells) grid[pod_at[c.pod]][blade_at[c.blade]] = &c;
        std::ofstream out(data), st(stale);
        st << "# blade pod\n";
        for (size_t p = 0; p < pods.size(); ++p) {
            for (size_t b = 0; b < blades.size(); ++b) {
                const HeatCellStatus *c = grid[p][b];
                out << b << ' ' << p << ' ';
                if (c && c->measured_ns && c->static_ns)
                    out << double(*c->measured_ns) / double(c->static_ns);
                else
                    out << "NaN";
                out << ' ';
                if (c && c->age_s)
                    out << *c->age_s;
                else
                    out << "NaN";
                out << '\n';
                if (c && c->state == "stale") st << b << ' ' << p << '\n';
            }
            out << '\n';
        }
        st << "NaN NaN\n";  // gnuplot refuses a file with no point
    }
    {
        std::ofstream gp(script);
        const int width = static_cast<int>(std::min<size_t>(3000, 400 + 2 * 70 * blades.size()));
        const int height = static_cast<int>(std::min<size_t>(2400, 200 + 40 * pods.size()));
        gp << "set terminal " << plot_terminal(path, width, height) << "\n"
           << "set output " << gnuplot_string(path) << "\n"
           << "set multiplot layout 1,2 title "
           << gnuplot_string("live heat map (" + h.figure + "): " + std::to_string(h.cells_fresh) + " fresh, " +
                             std::to_string(h.cells_measured - h.cells_fresh) + " stale, " +
                             std::to_string(h.cells_live) + " live cells; x: stale")
           << "\nset xlabel 'blade'\nset ylabel 'pod'\nset yrange [" << pods.size() << "-0.5:-0.5]\n"
           << "set xrange [-0.5:" << blades.size() << "-0.5]\nset xtics rotate by 45 right\n";
        auto tics = [&](const char *axis, const std::vector<std::string> &names) {
            if (names.size() > 200) return;
            gp << "set " << axis << " (";
            for (size_t k = 0; k < names.size(); ++k) gp << (k ? ", " : "") << gnuplot_string(names[k]) << ' ' << k;
            gp << ")\n";
        };
        tics("xtics", blades);
        tics("ytics", pods);
        const std::string crosses =
            gnuplot_string(stale) + " using 1:2 with points pointtype 2 pointsize 2 linecolor rgb 'black' notitle";
        gp << "set title 'measured / static latency (blank: no fresh measurement)'\n"
           << "set cbrange [0.5:2]\nset cblabel 'measured / static'\n"
           << "set palette defined (0.5 '#2166ac', 1 '#f7f7f7', 2 '#b2182b')\n"
           << "plot " << gnuplot_string(data) << " using 1:2:3 with image notitle, " << crosses << "\n"
           << "set title "
           << gnuplot_string("age of the newest sample (s); stale after " + std::to_string(h.stale_s) + "s")
           << "\nset cbrange [0:" << std::max<int64_t>(1, 2 * h.stale_s) << "]\nset cblabel 'age (s)'\n"
           << "set palette defined (0 '#1a9850', 0.5 '#fee08b', 1 '#d73027')\n"
           << "plot " << gnuplot_string(data) << " using 1:2:4 with image notitle, " << crosses << "\n"
           << "unset multiplot\n";
    }
    run_gnuplot(script);
}

}  // namespace

std::string fabric_live(StatusSource &src, const ViewOptions &v, const LiveOptions &o) {
    if (!v.states.empty())
        throw InputError("", "-t", "-t picks blades by state in the static matrix, not in --live",
                         "name blades with --blade");
    HeatMapView h = fetch_live(src, v, o);
    if (!o.plot.empty()) {
        plot_live(h, o.plot);
        if (v.output == ViewOptions::Text) return "";
    }
    if (v.output != ViewOptions::Text) return dump_value(h, v.output);
    if (!v.format.empty() || !v.Format.empty()) {
        Layout layout = v.format.empty() ? parse_Format(v.Format, kLiveFields) : parse_format(v.format, kLiveFields);
        std::vector<std::vector<std::string>> rows;
        for (const HeatCellStatus &c : h.cells) rows.push_back(cell_row(c));
        return render_layout(layout, kLiveFields, rows, v.header);
    }
    return render_table(h, v.header);
}

}  // namespace morpheus::cli
