// morpheus links: the fabric's link time as checkpoint windows book it (issue 28). Which jobs
// hold which link when: a table of the booked links with a timeline of each one's load over the
// horizon, the windows that make it, the document (--json/--yaml) and a picture (--plot).
#include <pwd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "commands.hpp"
#include "gnuplot.hpp"
#include "input_error.hpp"
#include "json_document.hpp"
#include "request.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"

namespace morpheus::cli {

namespace {

const std::vector<Field> kWindowFields = {
    {"link", 'l', "LINK"},   {"tier", 'T', "TIER"},     {"capacity", 'c', "CAPACITY"}, {"peak", 'k', "PEAK"},
    {"jobid", 'i', "JOBID"}, {"user", 'u', "USER"},     {"rate", 'r', "RATE"},         {"period", 'P', "PERIOD"},
    {"phase", 'f', "PHASE"}, {"window", 'w', "WINDOW"}, {"next", 'n', "NEXT_OPEN"},
};

constexpr int kTimelineMarks = 48;

std::string rate_text(double bytes_per_s) {
    return format_size(static_cast<uint64_t>(std::llround(std::max(0.0, bytes_per_s)))) + "/s";
}

std::string percent(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%", 100 * x);
    return buf;
}

std::string link_name(const LinkBookingStatus &k) { return k.from + "-" + k.to; }

std::string user_name(uint32_t uid) {
    struct passwd *pw = getpwuid(uid);
    return pw ? pw->pw_name : std::to_string(uid);
}

// Seconds from `now` until the holder's next window opens (0 while one is open).
int64_t opens_in(const LinkHolder &h, int64_t now) {
    if (h.period_s <= 0) return 0;
    const int64_t at = ((now % h.period_s) + h.period_s) % h.period_s;
    if (at >= h.phase_s && at < h.phase_s + h.window_s) return 0;
    return ((h.phase_s - at) % h.period_s + h.period_s) % h.period_s;
}

std::string clock_text(int64_t t) {
    time_t tt = static_cast<time_t>(t);
    struct tm tm;
    localtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
    return buf;
}

// One mark per horizon / kTimelineMarks seconds: the largest share of the link's checkpoint
// capacity booked in it. ' ' nothing, '.' up to 25%, ':' 50%, '+' 75%, '#' 100%, '!' more
// (only after CheckpointShare was lowered under windows already granted).
std::string timeline(const LinkBookingStatus &k, const LinkBookView &v) {
    std::string marks(kTimelineMarks, ' ');
    for (const LinkSpan &s : k.load) {
        const double share = k.capacity > 0 ? s.booked / k.capacity : 1;
        const char c = share > 1.0001 ? '!' : share > 0.75 ? '#' : share > 0.5 ? '+' : share > 0.25 ? ':' : '.';
        const auto at = [&](int64_t t) {
            return static_cast<int>((t - v.from) * kTimelineMarks / std::max<int64_t>(1, v.horizon_s));
        };
        for (int m = std::max(0, at(s.start)); m < std::min(kTimelineMarks, at(s.end - 1) + 1); ++m) {
            static const std::string order = " .:+#!";
            if (order.find(c) > order.find(marks[static_cast<size_t>(m)])) marks[static_cast<size_t>(m)] = c;
        }
    }
    return "|" + marks + "|";
}

std::vector<std::string> window_row(const LinkBookingStatus &k, const LinkHolder &h, const LinkBookView &v) {
    return {link_name(k),
            k.tier,
            rate_text(k.capacity),
            percent(k.capacity > 0 ? k.peak / k.capacity : 0),
            std::to_string(h.job_id),
            user_name(h.uid),
            rate_text(h.rate),
            format_hot_wait(h.period_s),
            "+" + format_hot_wait(h.phase_s),
            format_hot_wait(h.window_s),
            opens_in(h, v.now) ? clock_text(v.now + opens_in(h, v.now)) : "open"};
}

std::string render(const LinkBookView &v, bool header) {
    std::string out;
    if (header)
        out += "LINK TIME booked by " + std::to_string(v.windows) + " checkpoint window(s); from " +
               clock_text(v.from) + " for " + format_hot_wait(v.horizon_s) + " (CheckpointSlot " +
               format_hot_wait(v.slot_s) + ", CheckpointCycle " + format_hot_wait(v.cycle_s) + ")\n\n";
    Table links({"LINK", "TIER", "BANDWIDTH", "SHARE", "CAPACITY", "PEAK", "WINDOWS",
                 "NEXT " + format_hot_wait(v.horizon_s) + " (one mark " +
                     format_hot_wait(std::max<int64_t>(1, v.horizon_s / kTimelineMarks)) + ")"});
    for (const LinkBookingStatus &k : v.links)
        links.add({link_name(k), k.tier, rate_text(k.bandwidth), percent(k.share), rate_text(k.capacity),
                   percent(k.capacity > 0 ? k.peak / k.capacity : 0), std::to_string(k.holders.size() + k.others),
                   timeline(k, v)});
    out += links.render(header);
    if (header) {
        if (v.links.empty())
            out += v.windows ? "no booked link matches; see morpheus links without --link/-j\n"
                             : "no checkpoint window is booked (jobs ask with --ckpt-size and --ckpt-period)\n";
        else
            out +=
                "timeline: share of the link's checkpoint capacity booked: '.' <=25% ':' <=50% '+' <=75% "
                "'#' <=100% '!' over (CheckpointShare lowered since)\n";
        if (v.links_matched > v.links.size())
            out += "showing " + std::to_string(v.links.size()) + " of " + std::to_string(v.links_matched) +
                   " links: narrow with --link/-j or raise --limit\n";
    }
    Table windows({"LINK", "JOBID", "USER", "RATE", "PERIOD", "PHASE", "WINDOW", "NEXT_OPEN"});
    size_t hidden = 0, rows = 0;
    for (const LinkBookingStatus &k : v.links) {
        hidden += k.others;
        for (const LinkHolder &h : k.holders) {
            std::vector<std::string> r = window_row(k, h, v);
            windows.add({r[0], r[4], r[5], r[6], r[7], r[8], r[9], r[10]});
            ++rows;
        }
    }
    if (rows) out += "\n" + windows.render(header);
    if (header && hidden)
        out += std::to_string(hidden) + " window(s) of other users' jobs are in the load, not listed\n";
    return out;
}

// Two panels over the horizon: which job holds which link when (a bar per window), and each
// link's booked load as a share of its checkpoint capacity, with the cap at 1.
void plot_links(const LinkBookView &v, const std::string &path) {
    if (v.links.empty()) throw InputError("", "--plot", "no booked link to plot", "see morpheus links");
    constexpr size_t kMaxRows = 48, kMaxLines = 8;
    PlotScratch scratch;
    const std::string bars = scratch.file("windows.dat"), load = scratch.file("load.dat"),
                      script = scratch.file("plot.gp");
    std::vector<std::string> row_names;
    {
        std::ofstream out(bars);
        for (const LinkBookingStatus &k : v.links)
            for (const LinkHolder &h : k.holders) {
                if (row_names.size() == kMaxRows || h.period_s <= 0) break;
                const double y = static_cast<double>(row_names.size());
                row_names.push_back(link_name(k) + " job " + std::to_string(h.job_id));
                // Every opening inside the horizon, clipped to it.
                int64_t start = v.from - ((v.from - h.phase_s) % h.period_s + h.period_s) % h.period_s;
                for (; start < v.from + v.horizon_s; start += h.period_s) {
                    const double lo = static_cast<double>(std::max(start, v.from) - v.from);
                    const double hi = static_cast<double>(std::min(start + h.window_s, v.from + v.horizon_s) - v.from);
                    if (hi > lo) out << lo << ' ' << hi << ' ' << y << '\n';
                }
            }
        out << "NaN NaN NaN\n";  // gnuplot refuses a file with no point
    }
    const size_t lines = std::min(kMaxLines, v.links.size());
    {
        std::ofstream out(load);
        for (size_t i = 0; i < lines; ++i) {
            const LinkBookingStatus &k = v.links[i];
            // A step line over the whole horizon: zero where nothing is booked.
            int64_t t = v.from;
            auto point = [&](int64_t at, double booked) {
                out << (at - v.from) << ' ' << (k.capacity > 0 ? booked / k.capacity : 0) << '\n';
            };
            for (const LinkSpan &s : k.load) {
                if (s.start > t) point(t, 0);
                point(s.start, s.booked);
                t = s.end;
            }
            point(t, 0);
            point(v.from + v.horizon_s, 0);
            out << "\n\n";
        }
    }
    {
        std::ofstream gp(script);
        const int height = static_cast<int>(std::min<size_t>(2000, 420 + 22 * row_names.size()));
        gp << "set terminal " << plot_terminal(path, 1200, height) << "\n"
           << "set output " << gnuplot_string(path) << "\n"
           << "set multiplot layout 2,1 title "
           << gnuplot_string("link time booked by checkpoint windows, from " + clock_text(v.from) + " for " +
                             format_hot_wait(v.horizon_s))
           << "\nset xrange [0:" << v.horizon_s << "]\nset xlabel 'seconds from " << clock_text(v.from) << "'\n"
           << "set ylabel 'link, job'\nset yrange [" << row_names.size() << "-0.5:-0.5]\n"
           << "set style fill solid 0.7\nset ytics (";
        for (size_t r = 0; r < row_names.size(); ++r) gp << (r ? ", " : "") << gnuplot_string(row_names[r]) << ' ' << r;
        gp << ")\nset title 'windows: which job holds which link when'\n"
           << "plot " << gnuplot_string(bars)
           << " using (($1+$2)/2):3:(($2-$1)/2):(0.35) with boxxyerror linecolor rgb '#4575b4' notitle\n"
           << "set ytics auto\nset yrange [0:1.2]\nset ylabel 'booked / checkpoint capacity'\n"
           << "set title 'booked load per link (the line at 1 is the link tier''s CheckpointShare)'\n"
           << "set key outside right\nplot ";
        for (size_t i = 0; i < lines; ++i)
            gp << gnuplot_string(load) << " index " << i << " using 1:2 with steps linewidth 2 title "
               << gnuplot_string(link_name(v.links[i])) << ", ";
        gp << "1 with lines dashtype 2 linecolor rgb 'red' title 'capacity'\nunset multiplot\n";
    }
    run_gnuplot(script);
}

std::string query_of(const std::vector<std::string> &ends, const std::vector<std::string> &jobs, int64_t horizon,
                     uint32_t limit) {
    json_t *q = json_object();
    json_object_set_new(q, "op", json_string("links"));
    json_t *e = json_array(), *j = json_array();
    for (const std::string &n : ends) json_array_append_new(e, json_string(n.c_str()));
    for (const std::string &id : jobs) json_array_append_new(j, json_integer(std::atoll(id.c_str())));
    json_object_set_new(q, "ends", e);
    json_object_set_new(q, "jobs", j);
    json_object_set_new(q, "horizon", json_integer(horizon));
    json_object_set_new(q, "limit", json_integer(limit));
    return document_text(q);
}

}  // namespace

int cmd_links(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    std::vector<std::string> ends;
    int64_t horizon = 0;
    uint32_t limit = 64;
    std::string plot;
    enum { kLink = 1000, kHorizon, kLimit, kPlot };
    if (int rc = parse_view_command(
            argc, argv,
            "usage: morpheus links [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
            "                      [--link NAME,...] [-j JOBID,...] [--horizon DURATION] [--limit N]\n"
            "                      [-o FORMAT | -O FIELD[:[.]WIDTH],...] [-h|--noheader] [-i SECONDS]\n"
            "                      [--json|--yaml] [--plot FILE.svg|FILE.png]\n"
            "the link time checkpoint windows book: the links they use (fullest first) with each one's\n"
            "load over the horizon (default: the longest booked period), and which job holds which link\n"
            "when. --link: links with an end of these names (pod, switch, blade); -j: links these jobs use.\n"
            "fields for -o/-O (one row per link and window): link(%l) tier(%T) capacity(%c) peak(%k)\n"
            "  jobid(%i) user(%u) rate(%r) period(%P) phase(%f) window(%w) next(%n)\n",
            src, v, "j:",
            {{"link", required_argument, nullptr, kLink},
             {"links", required_argument, nullptr, kLink},
             {"jobs", required_argument, nullptr, 'j'},
             {"horizon", required_argument, nullptr, kHorizon},
             {"limit", required_argument, nullptr, kLimit},
             {"plot", required_argument, nullptr, kPlot}},
            [&](int c, const char *arg) {
                switch (c) {
                case kLink:
                    for (const std::string &n : split_list(arg)) ends.push_back(n);
                    return kGoOn;
                case 'j': take_job_ids(arg, "-j", v.jobs); return kGoOn;
                case kHorizon:
                    horizon = parse_hot_wait(arg, "--horizon");
                    if (horizon <= 0)
                        throw InputError("", "--horizon", std::string("'") + arg + "' is no length of time",
                                         "give a duration such as 10m or 2h");
                    return kGoOn;
                case kLimit: {
                    char *end = nullptr;
                    long n = std::strtol(arg, &end, 10);
                    if (*arg == '\0' || *end || n < 1 || n > kMaxLinkRows)
                        throw InputError("", "--limit", std::string("'") + arg + "' is not a number of links",
                                         "give 1 to " + std::to_string(kMaxLinkRows));
                    limit = static_cast<uint32_t>(n);
                    return kGoOn;
                }
                case kPlot:
                    plot = arg;
                    check_plot_path(plot);
                    return kGoOn;
                default: return static_cast<int>(kUsage);
                }
            });
        rc != kGoOn)
        return rc;
    if (!v.pods.empty() || !v.states.empty())
        throw InputError("", v.pods.empty() ? "-t" : "-p", "links are picked by their ends, not by pod or state",
                         "name the ends with --link NAME (a pod, switch or blade)");
    return run_view(v, [&] {
        LinkBookView view = fetch_query<LinkBookView>(src, query_of(ends, v.jobs, horizon, limit));
        if (!plot.empty()) {
            plot_links(view, plot);
            if (v.output == ViewOptions::Text) return std::string();
        }
        if (v.output != ViewOptions::Text) return dump_value(view, v.output);
        if (!v.format.empty() || !v.Format.empty()) {
            Layout layout =
                v.format.empty() ? parse_Format(v.Format, kWindowFields) : parse_format(v.format, kWindowFields);
            std::vector<std::vector<std::string>> rows;
            for (const LinkBookingStatus &k : view.links)
                for (const LinkHolder &h : k.holders) rows.push_back(window_row(k, h, view));
            return render_layout(layout, kWindowFields, rows, v.header);
        }
        return render(view, v.header);
    });
}

}  // namespace morpheus::cli
