// gnuplot is run on a script and data files in a temporary directory, removed afterwards.
#include "sim_plot.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "gnuplot.hpp"
#include "input_error.hpp"

namespace morpheus::cli {

void plot_utilisation(const std::string &path, const std::string &title,
                      const std::vector<morpheus::sim::SimResult> &runs) {
    check_plot_path(path);
    const std::string terminal = plot_terminal(path, 1000, 720);
    char dir[] = "/tmp/morpheus-plot.XXXXXX";
    if (!::mkdtemp(dir))
        throw InputError("", "--plot", std::string("cannot make a temporary directory: ") + std::strerror(errno));
    std::vector<std::string> files;
    for (size_t i = 0; i < runs.size(); ++i) {
        files.push_back(std::string(dir) + "/run" + std::to_string(i) + ".dat");
        std::ofstream out(files.back());
        // Time-averaged over windows of about 2.5% of the run: the samples are instants, and
        // one line per policy must stay readable over months of trace.
        out << "# hours(mid-window) gpus hot cold stranded queued, window means\n";
        const auto &tl = runs[i].timeline;
        const size_t window = std::max<size_t>(1, tl.size() / 40);
        for (size_t from = 0; from < tl.size(); from += window) {
            size_t to = std::min(tl.size(), from + window);
            double g = 0, h = 0, c = 0, st = 0, q = 0, n = static_cast<double>(to - from);
            for (size_t k = from; k < to; ++k) {
                g += tl[k].gpus;
                h += tl[k].hot;
                c += tl[k].cold;
                st += tl[k].stranded;
                q += static_cast<double>(tl[k].queued);
            }
            double mid =
                static_cast<double>(tl[from].time + tl[to - 1].time) / 2 - static_cast<double>(runs[i].first_submit);
            out << mid / 3600.0 << ' ' << 100 * g / n << ' ' << 100 * h / n << ' ' << 100 * c / n << ' ' << 100 * st / n
                << ' ' << q / n << '\n';
        }
    }
    std::string script_path = std::string(dir) + "/plot.gp";
    {
        std::ofstream gp(script_path);
        gp << "set terminal " << terminal << "\n"
           << "set output " << gnuplot_string(path) << "\n"
           << "set multiplot layout 2,1 title " << gnuplot_string(title) << " font ',11'\n"
           << "set grid\nset key outside right\nset yrange [0:100]\nset ylabel 'GPUs busy (%)'\n";
        auto series = [&](int column) {
            for (size_t i = 0; i < runs.size(); ++i)
                gp << (i ? ", " : "plot ") << gnuplot_string(files[i]) << " using 1:" << column
                   << " with lines lw 1.5 title " << gnuplot_string(runs[i].policy);
            gp << "\n";
        };
        series(2);
        gp << "set xlabel 'time since first submit (hours); each point: the mean over 1/40 of the run'\nset ylabel "
              "'hot memory (% of DRAM)'\n";
        series(3);
        gp << "unset multiplot\n";
    }
    auto remove_files = [&] {
        for (const std::string &f : files) ::unlink(f.c_str());
        ::unlink(script_path.c_str());
        ::rmdir(dir);
    };
    try {
        run_gnuplot(script_path);
    } catch (...) {
        remove_files();
        throw;
    }
    remove_files();
}

}  // namespace morpheus::cli
