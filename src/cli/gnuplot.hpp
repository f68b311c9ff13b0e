// Running gnuplot for the views' pictures (svg or png by the file's extension).
#pragma once
#include <string>
#include <vector>

namespace morpheus::cli {

// Throws InputError unless the path ends in .svg or .png (checked before any work).
void check_plot_path(const std::string &path);
// The gnuplot terminal line for the path's extension, width x height pixels.
std::string plot_terminal(const std::string &path, int width, int height);
// A gnuplot string literal.
std::string gnuplot_string(const std::string &s);
// Runs gnuplot on the script; says so plainly when gnuplot is not installed.
void run_gnuplot(const std::string &script_path);

// A temporary directory for one plot's data and script, removed with its files however the
// plot ends.
class PlotScratch {
public:
    PlotScratch();  // throws InputError (--plot) when no directory can be made
    ~PlotScratch();
    PlotScratch(const PlotScratch &) = delete;
    PlotScratch &operator=(const PlotScratch &) = delete;
    // The path of a file named `name` in it, removed with it.
    std::string file(const std::string &name);

private:
    std::string dir_;
    std::vector<std::string> files_;
};

}  // namespace morpheus::cli
