// morpheus fabric: the pod x blade latency matrix, the "heat map" Morpheus places by: a text
// matrix for people, the document with --json/--yaml, a picture with --plot FILE.svg|png.
#include <jansson.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "gnuplot.hpp"
#include "input_error.hpp"
#include "options.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"

namespace morpheus::cli {

namespace {

const std::vector<Field> kCellFields = {
    {"pod", 'P', "POD"}, {"blade", 'b', "BLADE"}, {"latency", 'l', "LATENCY"}, {"state", 't', "STATE"}};

std::string str(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : "-";
}

std::string cell(json_t *ns) { return json_is_integer(ns) ? format_latency(json_integer_value(ns)) : "-"; }

// Keeps the pods (rows) -p names and the blades (columns) whose state -t names.
void filter(json_t *root, const ViewOptions &v) {
    std::vector<std::string> pods, states;
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "pods"), i, x) pods.push_back(str(x, "pod"));
    require_known(v.pods, pods, "-p", "pod", "see morpheus fabric for the pods");
    for (std::string s : v.states) states.push_back(s == "drain" ? "draining" : s == "down" ? "failed" : s);
    require_known(states, {"up", "draining", "failed", "absent"}, "-t", "blade state",
                  "use up, draining (drain), failed (down) or absent");
    json_t *blades = json_object_get(root, "blades"), *matrix = json_object_get(root, "latency_ns");
    std::vector<size_t> keep_blades;
    json_array_foreach(blades, i, x) if (states.empty() || listed(states, str(x, "state"))) keep_blades.push_back(i);
    json_t *new_pods = json_array(), *new_blades = json_array(), *new_matrix = json_array();
    for (size_t b : keep_blades) json_array_append(new_blades, json_array_get(blades, b));
    json_array_foreach(json_object_get(root, "pods"), i, x) {
        if (!v.pods.empty() && !listed(v.pods, str(x, "pod"))) continue;
        json_array_append(new_pods, x);
        json_t *row = json_array();
        for (size_t b : keep_blades) json_array_append(row, json_array_get(json_array_get(matrix, i), b));
        json_array_append_new(new_matrix, row);
    }
    json_object_set_new(root, "pods", new_pods);
    json_object_set_new(root, "blades", new_blades);
    json_object_set_new(root, "latency_ns", new_matrix);
}

// Rows are pods, columns blades; '*' marks a blade inside DefaultHotLatency of the pod.
std::string render_matrix(json_t *root, bool header) {
    json_t *blades = json_object_get(root, "blades"), *matrix = json_object_get(root, "latency_ns");
    const json_int_t bound = json_integer_value(json_object_get(root, "hot_bound_ns"));
    std::vector<std::string> headers = {"POD"};
    size_t i, b;
    json_t *x, *ns;
    json_array_foreach(blades, b, x)
        headers.push_back(str(x, "blade") + (str(x, "state") == "up" ? "" : "(" + str(x, "state") + ")"));
    Table t(headers);
    json_array_foreach(json_object_get(root, "pods"), i, x) {
        std::vector<std::string> row = {str(x, "pod")};
        json_array_foreach(json_array_get(matrix, i), b, ns)
            row.push_back(cell(ns) + (json_is_integer(ns) && json_integer_value(ns) <= bound ? "*" : " "));
        t.add(row);
    }
    std::string out = t.render(header);
    if (header)
        out += "* within DefaultHotLatency (" + format_latency(static_cast<uint64_t>(bound)) + "); - unreachable\n";
    return out;
}

std::string render_cells(json_t *root, const ViewOptions &v) {
    Layout layout = v.format.empty() ? parse_Format(v.Format, kCellFields) : parse_format(v.format, kCellFields);
    std::vector<std::vector<std::string>> rows;
    json_t *blades = json_object_get(root, "blades"), *matrix = json_object_get(root, "latency_ns");
    size_t i, b;
    json_t *p, *ns;
    json_array_foreach(json_object_get(root, "pods"), i, p) json_array_foreach(json_array_get(matrix, i), b, ns) {
        json_t *blade = json_array_get(blades, b);
        rows.push_back({str(p, "pod"), str(blade, "blade"), cell(ns), str(blade, "state")});
    }
    return render_layout(layout, kCellFields, rows, v.header);
}

// A heat map: pods down, blades across, colour by latency; unreachable cells left blank.
void plot_matrix(json_t *root, const std::string &path) {
    char dir[] = "/tmp/morpheus-plot.XXXXXX";
    if (!::mkdtemp(dir))
        throw InputError("", "--plot", std::string("cannot make a temporary directory: ") + std::strerror(errno));
    std::string data = std::string(dir) + "/matrix.dat", script = std::string(dir) + "/plot.gp";
    json_t *pods = json_object_get(root, "pods"), *blades = json_object_get(root, "blades"),
           *matrix = json_object_get(root, "latency_ns");
    {
        std::ofstream out(data);
        size_t i, b;
        json_t *row, *ns;
        json_array_foreach(matrix, i, row) {
            json_array_foreach(row, b, ns) {
                out << b << ' ' << i << ' ';
                if (json_is_integer(ns))
                    out << json_integer_value(ns);
                else
                    out << "NaN";
                out << '\n';
            }
            out << '\n';
        }
    }
    {
        std::ofstream gp(script);
        size_t n_pods = json_array_size(pods), n_blades = json_array_size(blades);
        int width = static_cast<int>(std::min<size_t>(2400, 200 + 70 * n_blades));
        int height = static_cast<int>(std::min<size_t>(2400, 160 + 40 * n_pods));
        gp << "set terminal " << plot_terminal(path, width, height) << "\n"
           << "set output " << gnuplot_string(path) << "\n"
           << "set title "
           << gnuplot_string("pod x blade latency (ns), DefaultHotLatency " +
                             format_latency(json_integer_value(json_object_get(root, "hot_bound_ns"))))
           << "\nset xlabel 'blade'\nset ylabel 'pod'\nset yrange [" << n_pods << "-0.5:-0.5]\n"
           << "set xrange [-0.5:" << n_blades << "-0.5]\nset cblabel 'latency (ns)'\nset palette rgb 33,13,10\n"
           << "set xtics rotate by 45 right\n";
        auto tics = [&](const char *axis, json_t *array, const char *key) {
            gp << "set " << axis << " (";
            size_t k;
            json_t *x;
            json_array_foreach(array, k, x) gp << (k ? ", " : "") << gnuplot_string(str(x, key)) << ' ' << k;
            gp << ")\n";
        };
        if (n_blades <= 200) tics("xtics", blades, "blade");
        if (n_pods <= 200) tics("ytics", pods, "pod");
        gp << "plot " << gnuplot_string(data) << " using 1:2:3 with image notitle\n";
    }
    auto remove_files = [&] {
        ::unlink(data.c_str());
        ::unlink(script.c_str());
        ::rmdir(dir);
    };
    try {
        run_gnuplot(script);
    } catch (...) {
        remove_files();
        throw;
    }
    remove_files();
}

}  // namespace

int cmd_fabric(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    std::string plot;
    enum { kPlot = 1000, kHelp };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"plot", required_argument, nullptr, kPlot},
                                      MORPHEUS_VIEW_LONG_OPTIONS,
                                      {"help", no_argument, nullptr, kHelp},
                                      {"usage", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, (std::string("c:") + kViewShortOptions).c_str(), longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src) || take_view_option(c, optarg, v)) continue;
        if (c == kPlot) {
            plot = optarg;
            check_plot_path(plot);
            continue;
        }
        if (c == kHelp) {
            std::printf(
                "usage: morpheus fabric [FABRIC INVENTORY | --conf FILE] [--server HOST:PORT]\n"
                "                       [-p POD,...] [-t STATE,...] [-o FORMAT | -O FIELD[:[.]WIDTH],...]\n"
                "                       [-h|--noheader] [-i SECONDS] [--json|--yaml] [--plot FILE.svg|FILE.png]\n"
                "the pod x blade latency matrix; fields for -o/-O (one row per pod and blade):\n"
                "  pod(%%P) blade(%%b) latency(%%l) state(%%t)\n");
            return kOk;
        }
        return kUsage;
    }
    if (!v.format.empty() && !v.Format.empty()) throw InputError("", "-o", "give -o or -O, not both");
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    return run_view(v, [&] {
        json_t *root = fetch_document(src, "fabric");
        std::string out;
        try {
            filter(root, v);
            if (!plot.empty()) {
                plot_matrix(root, plot);
                out = v.output == ViewOptions::Text ? "" : dump_document(root, v.output);
            } else if (v.output != ViewOptions::Text)
                out = dump_document(root, v.output);
            else if (!v.format.empty() || !v.Format.empty())
                out = render_cells(root, v);
            else
                out = render_matrix(root, v.header);
        } catch (...) {
            json_decref(root);
            throw;
        }
        json_decref(root);
        return out;
    });
}

}  // namespace morpheus::cli
